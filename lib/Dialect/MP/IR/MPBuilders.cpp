//===- MPBuilders.cpp - Small IR builders shared by mp passes -------------===//
//
// Builders of the few values that gradients and the training passes all
// create: 0-d constants and element-type casts.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mp/Dialect/MP/IR/MPOps.h"

using namespace mlir;
using namespace mlir::mp;

Value mp::createScalarTensor(OpBuilder &builder, Location loc, Type elementType,
                             Attribute value) {
  auto type = RankedTensorType::get({}, elementType);
  return arith::ConstantOp::create(builder, loc,
                                   DenseElementsAttr::get(type, value));
}

Value mp::castElements(OpBuilder &builder, Location loc, Value value,
                       Type elementType) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getElementType() == elementType)
    return value;
  return CastOp::create(builder, loc, type.clone(elementType), value)
      .getResult();
}
