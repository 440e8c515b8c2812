//===- Utils.cpp - Builders shared by the mp-to-linalg patterns -----------===//
//
// Broadcasting, reshapes, float conversions and the generic/elementwise/
// reduction builders every op family of convert-mp-to-linalg uses. All
// shapes are static (the mp dialect only has statically shaped tensors).
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "llvm/ADT/APFloat.h"

using namespace mlir;
using namespace mlir::mp;
using namespace mlir::mp::lowering;

/// True for the formats LLVM has no type for: FP8, FP6, FP4 and E8M0.
static bool isNarrowFloat(Type type) {
  auto floatType = dyn_cast<FloatType>(type);
  return floatType && floatType.getWidth() <= 8;
}

Value lowering::createFloatConstant(OpBuilder &b, Location loc, Type type,
                                    double value) {
  auto floatType = cast<FloatType>(type);
  APFloat apValue(value);
  bool losesInfo;
  apValue.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
  if (!isNarrowFloat(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, apValue));
  Value bits = arith::ConstantOp::create(
      b, loc,
      b.getIntegerAttr(b.getIntegerType(floatType.getWidth()),
                       apValue.bitcastToAPInt()));
  return arith::BitcastOp::create(b, loc, type, bits);
}

Value lowering::createF32Constant(OpBuilder &b, Location loc, double value) {
  return createFloatConstant(b, loc, b.getF32Type(), value);
}

Value lowering::buildPowerOfTwoFloor(OpBuilder &b, Location loc, Value value) {
  Value bits = arith::BitcastOp::create(b, loc, b.getI32Type(), value);
  Value mask =
      arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0xFF800000));
  return arith::BitcastOp::create(b, loc, b.getF32Type(),
                                  arith::AndIOp::create(b, loc, bits, mask));
}

Value lowering::convertFloat(OpBuilder &b, Location loc, Value value, Type to) {
  Type from = value.getType();
  if (from == to)
    return value;
  auto fromFloat = cast<FloatType>(from);
  auto toFloat = cast<FloatType>(to);
  Type f32 = b.getF32Type();
  bool throughF32 = fromFloat.getWidth() == toFloat.getWidth() ||
                    (isNarrowFloat(from) && !to.isF32()) ||
                    (isNarrowFloat(to) && !from.isF32());
  if (throughF32) {
    // The first step is exact: f32 holds every value of the 8- and 16-bit
    // formats.
    if (!from.isF32())
      value = fromFloat.getWidth() < 32
                  ? arith::ExtFOp::create(b, loc, f32, value).getResult()
                  : arith::TruncFOp::create(b, loc, f32, value).getResult();
    return convertFloat(b, loc, value, to);
  }
  if (fromFloat.getWidth() < toFloat.getWidth())
    return arith::ExtFOp::create(b, loc, to, value);
  return arith::TruncFOp::create(b, loc, to, value);
}

Value lowering::createEmptyTensor(OpBuilder &b, Location loc,
                                  ArrayRef<int64_t> shape, Type elementType) {
  return tensor::EmptyOp::create(b, loc, shape, elementType);
}

Value lowering::createFilledTensor(OpBuilder &b, Location loc,
                                   ArrayRef<int64_t> shape, Value value) {
  Value empty = createEmptyTensor(b, loc, shape, value.getType());
  return linalg::FillOp::create(b, loc, ValueRange{value}, ValueRange{empty})
      .getResult(0);
}

Value lowering::createZeroTensor(OpBuilder &b, Location loc,
                                 ArrayRef<int64_t> shape, Type elementType) {
  Value zero =
      isa<FloatType>(elementType)
          ? createFloatConstant(b, loc, elementType, 0.0)
          : arith::ConstantOp::create(b, loc, b.getIntegerAttr(elementType, 0))
                .getResult();
  return createFilledTensor(b, loc, shape, zero);
}

Value lowering::reshapeTensor(OpBuilder &b, Location loc, Value tensor,
                              ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (type.getShape() == shape)
    return tensor;
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  int64_t rank = type.getRank();
  int64_t resultRank = static_cast<int64_t>(shape.size());
  // To and from rank 0: no reassociation groups at all.
  if (resultRank == 0)
    return tensor::CollapseShapeOp::create(b, loc, resultType, tensor,
                                           ArrayRef<ReassociationIndices>{});
  if (rank == 0)
    return tensor::ExpandShapeOp::create(b, loc, resultType, tensor,
                                         ArrayRef<ReassociationIndices>{});
  if (resultRank < rank) {
    if (auto groups =
            getReassociationIndicesForCollapse(type.getShape(), shape))
      return tensor::CollapseShapeOp::create(b, loc, resultType, tensor,
                                             *groups);
  } else if (resultRank > rank) {
    if (auto groups =
            getReassociationIndicesForCollapse(shape, type.getShape()))
      return tensor::ExpandShapeOp::create(b, loc, resultType, tensor, *groups);
  }
  // No single reshape: go through the flat 1-d tensor.
  Value flat = reshapeTensor(b, loc, tensor, {type.getNumElements()});
  return reshapeTensor(b, loc, flat, shape);
}

MappedOperand lowering::identityOperand(Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  return {tensor, AffineMap::getMultiDimIdentityMap(type.getRank(),
                                                    tensor.getContext())};
}

MappedOperand lowering::broadcastOperand(OpBuilder &b, Location loc,
                                         Value tensor,
                                         ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(tensor.getType());
  int64_t offset = static_cast<int64_t>(shape.size()) - type.getRank();
  assert(offset >= 0 && "operand of higher rank than the broadcast shape");
  SmallVector<int64_t> keptShape;
  SmallVector<AffineExpr> exprs;
  for (auto [i, size] : llvm::enumerate(type.getShape())) {
    int64_t dim = offset + static_cast<int64_t>(i);
    if (size == 1 && shape[dim] != 1)
      continue;
    keptShape.push_back(size);
    exprs.push_back(b.getAffineDimExpr(dim));
  }
  return {reshapeTensor(b, loc, tensor, keptShape),
          AffineMap::get(shape.size(), 0, exprs, b.getContext())};
}

MappedOperand lowering::projectedOperand(Value tensor, unsigned numLoops,
                                         ArrayRef<int64_t> droppedDims) {
  MLIRContext *context = tensor.getContext();
  SmallVector<AffineExpr> exprs;
  for (unsigned i = 0; i < numLoops; ++i)
    if (!llvm::is_contained(droppedDims, static_cast<int64_t>(i)))
      exprs.push_back(getAffineDimExpr(i, context));
  return {tensor, AffineMap::get(numLoops, 0, exprs, context)};
}

SmallVector<Value> lowering::buildGeneric(
    OpBuilder &b, Location loc, ArrayRef<MappedOperand> inputs,
    ArrayRef<MappedOperand> inits, ArrayRef<utils::IteratorType> iteratorTypes,
    Type computeType, GenericBodyFn body) {
  SmallVector<Value> inputValues, initValues;
  SmallVector<AffineMap> maps;
  SmallVector<Type> resultTypes;
  for (const MappedOperand &input : inputs) {
    inputValues.push_back(input.tensor);
    maps.push_back(input.map);
  }
  for (const MappedOperand &init : inits) {
    initValues.push_back(init.tensor);
    maps.push_back(init.map);
    resultTypes.push_back(init.tensor.getType());
  }
  size_t numInputs = inputs.size();
  auto generic = linalg::GenericOp::create(
      b, loc, resultTypes, inputValues, initValues, maps, iteratorTypes,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        SmallVector<Value> converted;
        for (Value arg : args.take_front(numInputs))
          converted.push_back(
              isa<FloatType>(arg.getType()) && computeType
                  ? convertFloat(nested, nestedLoc, arg, computeType)
                  : arg);
        ValueRange outputs = args.drop_front(numInputs);
        SmallVector<Value> results =
            body(nested, nestedLoc, converted, outputs);
        for (auto [result, output] : llvm::zip_equal(results, outputs))
          if (isa<FloatType>(result.getType()))
            result = convertFloat(nested, nestedLoc, result, output.getType());
        linalg::YieldOp::create(nested, nestedLoc, results);
      });
  return SmallVector<Value>(generic.getResults());
}

SmallVector<Value> lowering::buildElementwise(OpBuilder &b, Location loc,
                                              ArrayRef<MappedOperand> inputs,
                                              TypeRange resultTypes,
                                              GenericBodyFn body,
                                              Type computeType) {
  auto first = cast<RankedTensorType>(resultTypes.front());
  SmallVector<MappedOperand> inits;
  for (Type type : resultTypes) {
    auto tensorType = cast<RankedTensorType>(type);
    inits.push_back(identityOperand(createEmptyTensor(
        b, loc, tensorType.getShape(), tensorType.getElementType())));
  }
  SmallVector<utils::IteratorType> iterators(first.getRank(),
                                             utils::IteratorType::parallel);
  return buildGeneric(b, loc, inputs, inits, iterators,
                      computeType ? computeType : b.getF32Type(), body);
}

Value lowering::buildElementwise(OpBuilder &b, Location loc, ValueRange inputs,
                                 RankedTensorType resultType,
                                 GenericBodyFn body, Type computeType) {
  SmallVector<MappedOperand> mapped;
  for (Value input : inputs)
    mapped.push_back(broadcastOperand(b, loc, input, resultType.getShape()));
  return buildElementwise(b, loc, mapped, TypeRange{resultType}, body,
                          computeType)
      .front();
}

SmallVector<Value> lowering::buildReduction(OpBuilder &b, Location loc,
                                            ArrayRef<MappedOperand> inputs,
                                            ArrayRef<int64_t> loopShape,
                                            ArrayRef<int64_t> reducedDims,
                                            ArrayRef<Value> initValues,
                                            GenericBodyFn body) {
  SmallVector<int64_t> reducedShape = dropDims(loopShape, reducedDims);
  SmallVector<MappedOperand> inits;
  for (Value init : initValues)
    inits.push_back(
        projectedOperand(createFilledTensor(b, loc, reducedShape, init),
                         loopShape.size(), reducedDims));
  SmallVector<utils::IteratorType> iterators;
  for (int64_t i = 0, e = loopShape.size(); i < e; ++i)
    iterators.push_back(llvm::is_contained(reducedDims, i)
                            ? utils::IteratorType::reduction
                            : utils::IteratorType::parallel);
  return buildGeneric(b, loc, inputs, inits, iterators, b.getF32Type(), body);
}

Value lowering::roundTensor(OpBuilder &b, Location loc, Value tensor,
                            RankedTensorType type) {
  if (tensor.getType() == type)
    return tensor;
  return buildElementwise(b, loc, {identityOperand(tensor)}, TypeRange{type},
                          [](OpBuilder &, Location, ValueRange in, ValueRange)
                              -> SmallVector<Value> { return {in[0]}; })
      .front();
}

Value lowering::buildMean(OpBuilder &b, Location loc, Value sum, int64_t count,
                          RankedTensorType resultType) {
  return buildElementwise(
             b, loc, {identityOperand(sum)}, TypeRange{resultType},
             [&](OpBuilder &b, Location loc, ValueRange in,
                 ValueRange) -> SmallVector<Value> {
               Value divisor =
                   createF32Constant(b, loc, static_cast<double>(count));
               return {arith::DivFOp::create(b, loc, in[0], divisor)};
             })
      .front();
}

SmallVector<int64_t> lowering::dropDims(ArrayRef<int64_t> shape,
                                        ArrayRef<int64_t> dims) {
  SmallVector<int64_t> result;
  for (auto [i, size] : llvm::enumerate(shape))
    if (!llvm::is_contained(dims, static_cast<int64_t>(i)))
      result.push_back(size);
  return result;
}

Value lowering::extractScalar(OpBuilder &b, Location loc, Value tensor) {
  return tensor::ExtractOp::create(b, loc, tensor, ValueRange{});
}

Value lowering::wrapScalar(OpBuilder &b, Location loc, Value scalar) {
  return tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({}, scalar.getType()), scalar);
}

SoftmaxStatistics lowering::buildSoftmaxStatistics(OpBuilder &b, Location loc,
                                                   Value input, int64_t dim) {
  auto type = cast<RankedTensorType>(input.getType());
  ArrayRef<int64_t> shape = type.getShape();
  unsigned rank = type.getRank();
  Value negInf =
      createF32Constant(b, loc, -std::numeric_limits<double>::infinity());
  Value max = buildReduction(
                  b, loc, {identityOperand(input)}, shape, {dim}, {negInf},
                  [](OpBuilder &b, Location loc, ValueRange in,
                     ValueRange acc) -> SmallVector<Value> {
                    return {arith::MaximumFOp::create(b, loc, acc[0], in[0])};
                  })
                  .front();
  Value zero = createF32Constant(b, loc, 0.0);
  Value sumExp =
      buildReduction(
          b, loc, {identityOperand(input), projectedOperand(max, rank, {dim})},
          shape, {dim}, {zero},
          [](OpBuilder &b, Location loc, ValueRange in,
             ValueRange acc) -> SmallVector<Value> {
            Value shifted = arith::SubFOp::create(b, loc, in[0], in[1]);
            Value e = math::ExpOp::create(b, loc, shifted);
            return {arith::AddFOp::create(b, loc, acc[0], e)};
          })
          .front();
  return {max, sumExp};
}

NormStatistics lowering::buildNormStatistics(OpBuilder &b, Location loc,
                                             Value input, int64_t axis,
                                             double eps, bool centered) {
  auto type = cast<RankedTensorType>(input.getType());
  ArrayRef<int64_t> shape = type.getShape();
  unsigned rank = type.getRank();
  SmallVector<int64_t> normDims =
      llvm::to_vector(llvm::seq<int64_t>(axis, rank));
  SmallVector<int64_t> leadShape(shape.take_front(axis));
  int64_t count = ShapedType::getNumElements(shape.drop_front(axis));
  Type f32 = b.getF32Type();
  Value zero = createFloatConstant(b, loc, f32, 0.0);
  auto leadType = RankedTensorType::get(leadShape, f32);

  Value mean;
  if (centered) {
    Value sum = buildReduction(
                    b, loc, {identityOperand(input)}, shape, normDims, {zero},
                    [](OpBuilder &b, Location loc, ValueRange in,
                       ValueRange acc) -> SmallVector<Value> {
                      return {arith::AddFOp::create(b, loc, acc[0], in[0])};
                    })
                    .front();
    mean = buildMean(b, loc, sum, count, leadType);
  }
  // Σ (x − mean)² for layer norm, Σ x² for RMS norm.
  SmallVector<MappedOperand> inputs{identityOperand(input)};
  if (centered)
    inputs.push_back(projectedOperand(mean, rank, normDims));
  Value sumSquares =
      buildReduction(
          b, loc, inputs, shape, normDims, {zero},
          [&](OpBuilder &b, Location loc, ValueRange in,
              ValueRange acc) -> SmallVector<Value> {
            Value d =
                centered
                    ? arith::SubFOp::create(b, loc, in[0], in[1]).getResult()
                    : in[0];
            Value sq = arith::MulFOp::create(b, loc, d, d);
            return {arith::AddFOp::create(b, loc, acc[0], sq)};
          })
          .front();
  Value rstd =
      buildElementwise(
          b, loc, {identityOperand(sumSquares)}, TypeRange{leadType},
          [&](OpBuilder &b, Location loc, ValueRange in,
              ValueRange) -> SmallVector<Value> {
            Value variance = arith::DivFOp::create(
                b, loc, in[0],
                createFloatConstant(b, loc, f32, static_cast<double>(count)));
            Value shifted = arith::AddFOp::create(
                b, loc, variance, createFloatConstant(b, loc, f32, eps));
            return {math::RsqrtOp::create(b, loc, shifted)};
          })
          .front();
  return {mean, rstd, rank, normDims, count};
}

void NormStatistics::appendOperands(
    SmallVectorImpl<MappedOperand> &operands) const {
  if (mean)
    operands.push_back(projectedOperand(mean, rank, normDims));
  operands.push_back(projectedOperand(rstd, rank, normDims));
}

Value NormStatistics::normalize(OpBuilder &b, Location loc, Value x,
                                ValueRange statistics) const {
  if (mean)
    x = arith::SubFOp::create(b, loc, x, statistics.front());
  return arith::MulFOp::create(b, loc, x, statistics.back());
}
