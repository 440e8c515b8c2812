//===- MPBuilders.cpp - Small IR builders shared by mp passes -------------===//
//
// Builders of the few values that gradients and the training passes all
// create: state arguments (and the test for forward state), 0-d constants and
// element-type casts.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mp/Dialect/MP/IR/MPOps.h"

using namespace mlir;
using namespace mlir::mp;

BlockArgument
mp::appendStateArgument(FunctionOpInterface function, Type type, StringRef kind,
                        Attribute init,
                        ArrayRef<NamedAttribute> otherAttributes) {
  Builder builder(function.getContext());
  SmallVector<NamedAttribute> attrs{builder.getNamedAttr(
      MPDialect::kStateAttrName, builder.getStringAttr(kind))};
  if (init)
    attrs.push_back(builder.getNamedAttr(MPDialect::kInitAttrName, init));
  llvm::append_range(attrs, otherAttributes);
  unsigned index = function.getNumArguments();
  (void)function.insertArgument(index, type, builder.getDictionaryAttr(attrs),
                                function.getLoc());
  return function.getArgument(index);
}

bool mp::isForwardStateArgument(FunctionOpInterface function, unsigned index) {
  auto kind =
      function.getArgAttrOfType<StringAttr>(index, MPDialect::kStateAttrName);
  return kind && MPDialect::isForwardStateKind(kind.getValue());
}

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
