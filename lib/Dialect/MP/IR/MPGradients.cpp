//===- MPGradients.cpp - Adjoints of the differentiable mp ops ------------===//
//
// The reverse-mode derivative of every differentiable `mp` op, as an
// implementation of `DifferentiableOpInterface::buildAdjoints`: given the
// adjoint of an op's result, each op builds the adjoints of its operands.
// The formulas are PyTorch's (tools/autograd/derivatives.yaml). Each adjoint
// has exactly its operand's type, and the backward runs in the op's own
// precision: a matmul of f16 operands accumulating in f32 is differentiated
// by f16 matmuls accumulating in f32 (with transpose flags rather than
// explicit transposes), and where a result element type differs from the
// operands' (a contraction with an f32 result), the result adjoint is cast to
// the operands' type first. The dialect's explicit backward ops (relu_grad,
// softmax_grad, layer_norm_grad, cross_entropy_grad, ...) are used where they
// exist, plain ops elsewhere; constants are 0-d `arith.constant` tensors.
//
//===----------------------------------------------------------------------===//

#include "mp/Dialect/MP/IR/MPOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

using namespace mlir;
using namespace mlir::mp;

#include "mp/Dialect/MP/IR/MPInterfaces.cpp.inc"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The ranked tensor type of `value` (every float operand of an mp op has
/// one).
static RankedTensorType tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// A 0-d tensor constant of `elementType` holding `value` rounded to it.
static Value scalarConstant(ImplicitLocOpBuilder &b, Type elementType,
                            double value) {
  APFloat converted(value);
  bool losesInfo;
  converted.convert(cast<FloatType>(elementType).getFloatSemantics(),
                    APFloat::rmNearestTiesToEven, &losesInfo);
  return createScalarOrSplatConstant(
      b, b.getLoc(), RankedTensorType::get({}, elementType), converted);
}

/// A 0-d f32 constant: the factor operand of `mp.scale`.
static Value f32Factor(ImplicitLocOpBuilder &b, double value) {
  return scalarConstant(b, b.getF32Type(), value);
}

/// `value` reshaped to `type` (unchanged when it already has it).
static Value reshapeTo(ImplicitLocOpBuilder &b, Value value,
                       RankedTensorType type) {
  if (value.getType() == type)
    return value;
  return ReshapeOp::create(b, type, value);
}

/// `value` broadcast to `type` (unchanged when it already has it).
static Value broadcastTo(ImplicitLocOpBuilder &b, Value value,
                         RankedTensorType type) {
  if (value.getType() == type)
    return value;
  return BroadcastOp::create(b, type, value);
}

/// Reduces the adjoint `grad` of a broadcast result back to the shape of an
/// operand of type `operandType`: sums over the dimensions that broadcasting
/// prepended or expanded from 1 (`mp.reduce_sum`), then restores the size-1
/// dimensions (`mp.reshape`).
static Value sumToShape(ImplicitLocOpBuilder &b, Value grad,
                        RankedTensorType operandType) {
  RankedTensorType gradType = tensorType(grad);
  if (gradType.getShape() == operandType.getShape())
    return grad;
  int64_t prepended = gradType.getRank() - operandType.getRank();
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < gradType.getRank(); ++d)
    if (d < prepended || (operandType.getDimSize(d - prepended) == 1 &&
                          gradType.getDimSize(d) != 1))
      dims.push_back(d);
  Value sum = grad;
  if (!dims.empty())
    sum = ReduceSumOp::create(b, grad, dims, /*keepdims=*/false);
  return reshapeTo(b, sum, operandType);
}

/// Expands the adjoint `grad` of a reduction of `inputType` over `dims`
/// (with or without keepdims) back to `inputType`: reshape to the keepdims
/// shape, then broadcast.
static Value expandReduced(ImplicitLocOpBuilder &b, Value grad,
                           RankedTensorType inputType, ArrayRef<int64_t> dims) {
  SmallVector<int64_t> keptShape(inputType.getShape());
  for (int64_t dim : dims)
    keptShape[dim] = 1;
  Value kept = reshapeTo(b, grad, inputType.clone(keptShape));
  return broadcastTo(b, kept, inputType);
}

/// Fails with a diagnostic at `op` unless contractions (matmul, linear, conv)
/// of `operandElementType` operands can be differentiated: f32, f16 and
/// bf16 can; int8 and the FP8 formats cannot.
static LogicalResult checkDifferentiableContraction(Operation *op,
                                                    Type operandElementType) {
  if (isa<Float32Type, Float16Type, BFloat16Type>(operandElementType))
    return success();
  return op->emitOpError("has no gradient for operands of type ")
         << operandElementType
         << ": mp-autodiff differentiates f32, f16 and bf16 contractions";
}

/// The adjoints of a broadcasting binary op, given the adjoints `lhsGrad` and
/// `rhsGrad` of its operands in the broadcast (result) shape: each is
/// reduced to its operand's shape. Null entries stay null.
static SmallVector<Value> reduceBinaryAdjoints(ImplicitLocOpBuilder &b,
                                               Operation *op, Value lhsGrad,
                                               Value rhsGrad) {
  SmallVector<Value> adjoints(2);
  for (auto [i, grad] : llvm::enumerate(std::array<Value, 2>{lhsGrad, rhsGrad}))
    if (grad)
      adjoints[i] = sumToShape(b, grad, tensorType(op->getOperand(i)));
  return adjoints;
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

/// Shared by matmul and batch_matmul. For C = op(A)·op(B):
///   dA = dC·op(B)ᵀ, or op(B)·dCᵀ when A is transposed;
///   dB = op(A)ᵀ·dC, or dCᵀ·op(A) when B is transposed;
/// each one mp matmul with transpose flags, the forward's accumulation type
/// and compute mode, in the operands' element type.
template <typename OpTy>
static FailureOr<SmallVector<Value>>
buildMatmulAdjoints(OpTy op, OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                    ArrayRef<bool> requested) {
  Type elementType = tensorType(op.getLhs()).getElementType();
  if (failed(checkDifferentiableContraction(op, elementType)))
    return failure();
  ImplicitLocOpBuilder b(op.getLoc(), builder);
  Value dC = castElements(b, b.getLoc(), resultAdjoints[0], elementType);
  Value lhs = op.getLhs(), rhs = op.getRhs();
  bool transposeLhs = op.getTransposeLhs(), transposeRhs = op.getTransposeRhs();
  auto matmul = [&](Type resultType, Value l, Value r, bool tl, bool tr) {
    return OpTy::create(b, resultType, l, r, tl, tr, op.getAccType(),
                        op.getCompute())
        .getResult();
  };
  SmallVector<Value> adjoints(2);
  if (requested[0])
    adjoints[0] = transposeLhs
                      ? matmul(lhs.getType(), rhs, dC, transposeRhs, true)
                      : matmul(lhs.getType(), dC, rhs, false, !transposeRhs);
  if (requested[1])
    adjoints[1] = transposeRhs
                      ? matmul(rhs.getType(), dC, lhs, true, transposeLhs)
                      : matmul(rhs.getType(), lhs, dC, !transposeLhs, false);
  return adjoints;
}

FailureOr<SmallVector<Value>>
MatmulOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                        ArrayRef<bool> requested) {
  return buildMatmulAdjoints(*this, builder, resultAdjoints, requested);
}

FailureOr<SmallVector<Value>>
BatchMatmulOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                             ArrayRef<bool> requested) {
  return buildMatmulAdjoints(*this, builder, resultAdjoints, requested);
}

/// y = x·Wᵀ + b with x [..., in]: with the leading dimensions flattened to
/// M rows by mp.reshape, dx = dy·W, dW = dyᵀ·x (mp.matmul), and
/// db = dy summed over the leading dimensions.
FailureOr<SmallVector<Value>>
LinearOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                        ArrayRef<bool> requested) {
  RankedTensorType inputType = tensorType(getInput());
  RankedTensorType weightType = tensorType(getWeight());
  Type elementType = inputType.getElementType();
  if (failed(checkDifferentiableContraction(*this, elementType)))
    return failure();
  ImplicitLocOpBuilder b(getLoc(), builder);
  Value dy = resultAdjoints[0];
  int64_t outFeatures = weightType.getDimSize(0);
  int64_t inFeatures = weightType.getDimSize(1);
  int64_t rows = inputType.getNumElements() / inFeatures;
  // dy and x as matrices of M rows, in the operands' element type.
  Value dyMatrix =
      reshapeTo(b, castElements(b, b.getLoc(), dy, elementType),
                RankedTensorType::get({rows, outFeatures}, elementType));
  SmallVector<Value> adjoints(getNumOperands());
  if (requested[0]) {
    auto dxType = RankedTensorType::get({rows, inFeatures}, elementType);
    Value dx = MatmulOp::create(b, dxType, dyMatrix, getWeight(),
                                /*transpose_lhs=*/false,
                                /*transpose_rhs=*/false, getAccType());
    adjoints[0] = reshapeTo(b, dx, inputType);
  }
  if (requested[1]) {
    Value inputMatrix = reshapeTo(
        b, getInput(), RankedTensorType::get({rows, inFeatures}, elementType));
    adjoints[1] = MatmulOp::create(b, weightType, dyMatrix, inputMatrix,
                                   /*transpose_lhs=*/true,
                                   /*transpose_rhs=*/false, getAccType());
  }
  if (getBias() && requested[2]) {
    RankedTensorType dyType = tensorType(dy);
    SmallVector<int64_t> leading =
        llvm::to_vector(llvm::seq<int64_t>(0, dyType.getRank() - 1));
    adjoints[2] = leading.empty()
                      ? dy
                      : ReduceSumOp::create(b, dy, leading, false).getResult();
  }
  return adjoints;
}

/// dx = conv2d_grad_input(dy, filter), dfilter = conv2d_grad_filter(dy, x),
/// dbias = dy summed over the batch and spatial dimensions.
FailureOr<SmallVector<Value>>
Conv2DOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                        ArrayRef<bool> requested) {
  Type elementType = tensorType(getInput()).getElementType();
  if (failed(checkDifferentiableContraction(*this, elementType)))
    return failure();
  ImplicitLocOpBuilder b(getLoc(), builder);
  Value dy = resultAdjoints[0];
  Value dyOperand = castElements(b, b.getLoc(), dy, elementType);
  SmallVector<Value> adjoints(getNumOperands());
  if (requested[0])
    adjoints[0] = Conv2DGradInputOp::create(
        b, getInput().getType(), dyOperand, getFilter(), getAccTypeAttr(),
        getStridesAttr(), getPaddingAttr(), getDilationAttr(), getGroupsAttr());
  if (requested[1])
    adjoints[1] = Conv2DGradFilterOp::create(
        b, getFilter().getType(), dyOperand, getInput(), getAccTypeAttr(),
        getStridesAttr(), getPaddingAttr(), getDilationAttr(), getGroupsAttr());
  if (getBias() && requested[2])
    adjoints[2] = ReduceSumOp::create(b, dy, ArrayRef<int64_t>{0, 2, 3},
                                      /*keepdims=*/false);
  return adjoints;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// Sub-expressions are built in separate statements so that the order of the
// backward ops does not depend on the order in which a compiler evaluates
// function arguments.

FailureOr<SmallVector<Value>>
AddOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                     ArrayRef<bool> requested) {
  ImplicitLocOpBuilder b(getLoc(), builder);
  Value dy = resultAdjoints[0];
  return reduceBinaryAdjoints(b, *this, requested[0] ? dy : Value(),
                              requested[1] ? dy : Value());
}

FailureOr<SmallVector<Value>>
SubOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                     ArrayRef<bool> requested) {
  ImplicitLocOpBuilder b(getLoc(), builder);
  Value dy = resultAdjoints[0];
  Value dRhs;
  if (requested[1])
    dRhs = NegOp::create(b, dy);
  return reduceBinaryAdjoints(b, *this, requested[0] ? dy : Value(), dRhs);
}

FailureOr<SmallVector<Value>>
MulOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                     ArrayRef<bool> requested) {
  ImplicitLocOpBuilder b(getLoc(), builder);
  Value dy = resultAdjoints[0];
  Value dLhs, dRhs;
  if (requested[0])
    dLhs = MulOp::create(b, dy, getRhs());
  if (requested[1])
    dRhs = MulOp::create(b, dy, getLhs());
  return reduceBinaryAdjoints(b, *this, dLhs, dRhs);
}

/// y = l / r: dl = dy / r, dr = −dl · y (= −dy · l / r²).
FailureOr<SmallVector<Value>>
DivOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                     ArrayRef<bool> requested) {
  ImplicitLocOpBuilder b(getLoc(), builder);
  Value dLhs = DivOp::create(b, resultAdjoints[0], getRhs());
  Value dRhs;
  if (requested[1])
    dRhs = NegOp::create(b, MulOp::create(b, dLhs, getResult()));
  return reduceBinaryAdjoints(b, *this, requested[0] ? dLhs : Value(), dRhs);
}

/// y = l ^ r: dl = dy · r · l^(r − 1), dr = dy · y · log(l) except where
/// l = 0 and r >= 0, where dr is 0 as in PyTorch's pow_backward_exponent
/// (y · log(l) would be 0 · −inf there). Where l < 0, dr is NaN, as in
/// PyTorch.
FailureOr<SmallVector<Value>>
PowOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                     ArrayRef<bool> requested) {
  ImplicitLocOpBuilder b(getLoc(), builder);
  Value dy = resultAdjoints[0];
  Type elementType = tensorType(getLhs()).getElementType();
  Value dLhs, dRhs;
  if (requested[0]) {
    Value one = scalarConstant(b, elementType, 1.0);
    Value exponent = SubOp::create(b, getRhs(), one);
    Value power = PowOp::create(b, getLhs(), exponent);
    dLhs = MulOp::create(b, dy, MulOp::create(b, getRhs(), power));
  }
  if (requested[1]) {
    Value logLhs = LogOp::create(b, getLhs());
    Value product = MulOp::create(b, dy, MulOp::create(b, getResult(), logLhs));
    RankedTensorType type = tensorType(product);
    Value zero = createScalarOrSplatConstant(
        b, b.getLoc(), type,
        APFloat::getZero(cast<FloatType>(elementType).getFloatSemantics()));
    Value zeroBase = arith::CmpFOp::create(
        b, arith::CmpFPredicate::OEQ, broadcastTo(b, getLhs(), type), zero);
    Value nonNegativeExponent = arith::CmpFOp::create(
        b, arith::CmpFPredicate::OGE, broadcastTo(b, getRhs(), type), zero);
    Value masked = arith::AndIOp::create(b, zeroBase, nonNegativeExponent);
    dRhs = arith::SelectOp::create(b, masked, zero, product);
  }
  return reduceBinaryAdjoints(b, *this, dLhs, dRhs);
}

/// Routes dy to the selected operand with mp.maximum_grad / mp.minimum_grad,
/// then reduces each adjoint to its operand's shape.
template <typename GradOpTy, typename OpTy>
static FailureOr<SmallVector<Value>>
buildMinMaxAdjoints(OpTy op, OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                    ArrayRef<bool> requested) {
  ImplicitLocOpBuilder b(op.getLoc(), builder);
  auto grads = GradOpTy::create(b, resultAdjoints[0], op.getLhs(), op.getRhs());
  return reduceBinaryAdjoints(b, op,
                              requested[0] ? grads.getLhsGrad() : Value(),
                              requested[1] ? grads.getRhsGrad() : Value());
}

FailureOr<SmallVector<Value>>
MaximumOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                         ArrayRef<bool> requested) {
  return buildMinMaxAdjoints<MaximumGradOp>(*this, builder, resultAdjoints,
                                            requested);
}

FailureOr<SmallVector<Value>>
MinimumOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                         ArrayRef<bool> requested) {
  return buildMinMaxAdjoints<MinimumGradOp>(*this, builder, resultAdjoints,
                                            requested);
}

/// The adjoint of the single operand of an elementwise unary op, from `dy`,
/// the operand `x` and the result `y`.
using UnaryAdjointFn =
    function_ref<Value(ImplicitLocOpBuilder &b, Value dy, Value x, Value y)>;

template <typename OpTy>
static SmallVector<Value> buildUnaryAdjoint(OpTy op, OpBuilder &builder,
                                            ArrayRef<Value> resultAdjoints,
                                            UnaryAdjointFn formula) {
  ImplicitLocOpBuilder b(op.getLoc(), builder);
  return {formula(b, resultAdjoints[0], op.getInput(), op.getResult())};
}

/// The element type of a tensor value.
static Type elementTypeOf(Value value) {
  return tensorType(value).getElementType();
}

FailureOr<SmallVector<Value>>
NegOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                     ArrayRef<bool>) {
  // −dy
  return buildUnaryAdjoint(*this, builder, resultAdjoints,
                           [](ImplicitLocOpBuilder &b, Value dy, Value,
                              Value) -> Value { return NegOp::create(b, dy); });
}

FailureOr<SmallVector<Value>>
ReluOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                      ArrayRef<bool>) {
  // dy where x > 0
  return buildUnaryAdjoint(
      *this, builder, resultAdjoints,
      [](ImplicitLocOpBuilder &b, Value dy, Value x, Value) -> Value {
        return ReluGradOp::create(b, dy, x);
      });
}

FailureOr<SmallVector<Value>>
TanhOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                      ArrayRef<bool>) {
  // dy · (1 − y²)
  return buildUnaryAdjoint(
      *this, builder, resultAdjoints,
      [](ImplicitLocOpBuilder &b, Value dy, Value, Value y) -> Value {
        Value one = scalarConstant(b, elementTypeOf(y), 1.0);
        Value ySquared = MulOp::create(b, y, y);
        return MulOp::create(b, dy, SubOp::create(b, one, ySquared));
      });
}

FailureOr<SmallVector<Value>>
SigmoidOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                         ArrayRef<bool>) {
  // dy · y · (1 − y)
  return buildUnaryAdjoint(
      *this, builder, resultAdjoints,
      [](ImplicitLocOpBuilder &b, Value dy, Value, Value y) -> Value {
        Value one = scalarConstant(b, elementTypeOf(y), 1.0);
        Value oneMinusY = SubOp::create(b, one, y);
        return MulOp::create(b, MulOp::create(b, dy, y), oneMinusY);
      });
}

FailureOr<SmallVector<Value>>
ExpOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                     ArrayRef<bool>) {
  // dy · y
  return buildUnaryAdjoint(
      *this, builder, resultAdjoints,
      [](ImplicitLocOpBuilder &b, Value dy, Value, Value y) -> Value {
        return MulOp::create(b, dy, y);
      });
}

FailureOr<SmallVector<Value>>
LogOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                     ArrayRef<bool>) {
  // dy / x
  return buildUnaryAdjoint(
      *this, builder, resultAdjoints,
      [](ImplicitLocOpBuilder &b, Value dy, Value x, Value) -> Value {
        return DivOp::create(b, dy, x);
      });
}

FailureOr<SmallVector<Value>>
SqrtOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                      ArrayRef<bool>) {
  // dy / (2 · y)
  return buildUnaryAdjoint(
      *this, builder, resultAdjoints,
      [](ImplicitLocOpBuilder &b, Value dy, Value, Value y) -> Value {
        Value two = scalarConstant(b, elementTypeOf(y), 2.0);
        return DivOp::create(b, dy, MulOp::create(b, y, two));
      });
}

FailureOr<SmallVector<Value>>
RsqrtOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                       ArrayRef<bool>) {
  // −0.5 · dy · y³
  return buildUnaryAdjoint(
      *this, builder, resultAdjoints,
      [](ImplicitLocOpBuilder &b, Value dy, Value, Value y) -> Value {
        Value minusHalf = scalarConstant(b, elementTypeOf(y), -0.5);
        Value yCubed = MulOp::create(b, MulOp::create(b, y, y), y);
        return MulOp::create(b, MulOp::create(b, dy, yCubed), minusHalf);
      });
}

FailureOr<SmallVector<Value>>
GeluOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                      ArrayRef<bool>) {
  // dy · gelu'(x), with the forward's formula.
  return buildUnaryAdjoint(
      *this, builder, resultAdjoints,
      [&](ImplicitLocOpBuilder &b, Value dy, Value x, Value) -> Value {
        return GeluGradOp::create(b, dy, x, getApproximate());
      });
}

//===----------------------------------------------------------------------===//
// Reductions and normalisation
//===----------------------------------------------------------------------===//

/// dy broadcast back over the reduced dimensions.
FailureOr<SmallVector<Value>>
ReduceSumOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                           ArrayRef<bool>) {
  ImplicitLocOpBuilder b(getLoc(), builder);
  return SmallVector<Value>{
      expandReduced(b, resultAdjoints[0], tensorType(getInput()), getDims())};
}

/// dy / count broadcast back over the reduced dimensions; the division is an
/// mp.scale by 1/count (formed in f32, rounded once), so the count need not
/// be representable in a narrow element type.
FailureOr<SmallVector<Value>>
ReduceMeanOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                            ArrayRef<bool>) {
  ImplicitLocOpBuilder b(getLoc(), builder);
  RankedTensorType inputType = tensorType(getInput());
  int64_t count = 1;
  for (int64_t dim : getDims())
    count *= inputType.getDimSize(dim);
  Value scaled = ScaleOp::create(
      b, resultAdjoints[0], f32Factor(b, 1.0 / static_cast<double>(count)));
  return SmallVector<Value>{expandReduced(b, scaled, inputType, getDims())};
}

/// dy shared evenly by the positions holding the maximum.
FailureOr<SmallVector<Value>>
ReduceMaxOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                           ArrayRef<bool>) {
  ImplicitLocOpBuilder b(getLoc(), builder);
  return SmallVector<Value>{
      ReduceMaxGradOp::create(b, resultAdjoints[0], getInput(), getResult(),
                              getDimsAttr(), getKeepdimsAttr())};
}

FailureOr<SmallVector<Value>>
SoftmaxOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                         ArrayRef<bool>) {
  ImplicitLocOpBuilder b(getLoc(), builder);
  return SmallVector<Value>{
      SoftmaxGradOp::create(b, resultAdjoints[0], getResult(), getDimAttr())};
}

FailureOr<SmallVector<Value>>
LogSoftmaxOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                            ArrayRef<bool>) {
  ImplicitLocOpBuilder b(getLoc(), builder);
  return SmallVector<Value>{LogSoftmaxGradOp::create(
      b, resultAdjoints[0], getResult(), getDimAttr())};
}

/// The type of the weight (and bias) of a normalisation of `input` over
/// `[axis, rank)`.
static RankedTensorType normalizedType(Value input, int64_t axis) {
  RankedTensorType inputType = tensorType(input);
  return inputType.clone(inputType.getShape().drop_front(axis));
}

/// One mp.layer_norm_grad gives the input, weight and bias adjoints.
FailureOr<SmallVector<Value>>
LayerNormOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                           ArrayRef<bool>) {
  ImplicitLocOpBuilder b(getLoc(), builder);
  RankedTensorType paramType = normalizedType(getInput(), getAxis());
  auto grads = LayerNormGradOp::create(
      b, getInput().getType(), paramType, paramType, resultAdjoints[0],
      getInput(), getWeight(), getAxisAttr(), getEpsAttr());
  SmallVector<Value> adjoints{grads.getInputGrad()};
  if (getWeight())
    adjoints.push_back(grads.getWeightGrad());
  if (getBias())
    adjoints.push_back(grads.getBiasGrad());
  return adjoints;
}

/// One mp.rms_norm_grad gives the input and weight adjoints.
FailureOr<SmallVector<Value>>
RMSNormOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                         ArrayRef<bool>) {
  ImplicitLocOpBuilder b(getLoc(), builder);
  RankedTensorType paramType = normalizedType(getInput(), getAxis());
  auto grads = RMSNormGradOp::create(b, getInput().getType(), paramType,
                                     resultAdjoints[0], getInput(), getWeight(),
                                     getAxisAttr(), getEpsAttr());
  SmallVector<Value> adjoints{grads.getInputGrad()};
  if (getWeight())
    adjoints.push_back(grads.getWeightGrad());
  return adjoints;
}

//===----------------------------------------------------------------------===//
// Shape
//===----------------------------------------------------------------------===//

/// dy transposed by the inverse permutation.
FailureOr<SmallVector<Value>>
TransposeOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                           ArrayRef<bool>) {
  ImplicitLocOpBuilder b(getLoc(), builder);
  ArrayRef<int64_t> permutation = getPermutation();
  SmallVector<int64_t> inverse(permutation.size());
  for (auto [i, dim] : llvm::enumerate(permutation))
    inverse[dim] = i;
  return SmallVector<Value>{
      TransposeOp::create(b, resultAdjoints[0], inverse).getResult()};
}

/// dy reshaped back.
FailureOr<SmallVector<Value>>
ReshapeOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                         ArrayRef<bool>) {
  ImplicitLocOpBuilder b(getLoc(), builder);
  return SmallVector<Value>{
      reshapeTo(b, resultAdjoints[0], tensorType(getInput()))};
}

/// dy summed over the broadcast dimensions.
FailureOr<SmallVector<Value>>
BroadcastOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                           ArrayRef<bool>) {
  ImplicitLocOpBuilder b(getLoc(), builder);
  return SmallVector<Value>{
      sumToShape(b, resultAdjoints[0], tensorType(getInput()))};
}

/// Each input's adjoint is its slice of dy along `dim`.
FailureOr<SmallVector<Value>>
ConcatOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                        ArrayRef<bool> requested) {
  ImplicitLocOpBuilder b(getLoc(), builder);
  int64_t dim = getDim();
  SmallVector<Value> adjoints(getNumOperands());
  int64_t offset = 0;
  for (auto [i, input] : llvm::enumerate(getInputs())) {
    RankedTensorType inputType = tensorType(input);
    if (requested[i]) {
      SmallVector<int64_t> offsets(inputType.getRank(), 0);
      offsets[dim] = offset;
      SmallVector<int64_t> strides(inputType.getRank(), 1);
      adjoints[i] = SliceOp::create(b, resultAdjoints[0], offsets,
                                    inputType.getShape(), strides);
    }
    offset += inputType.getDimSize(dim);
  }
  return adjoints;
}

/// dy scattered into zeros at the sliced box.
FailureOr<SmallVector<Value>>
SliceOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                       ArrayRef<bool>) {
  ImplicitLocOpBuilder b(getLoc(), builder);
  return SmallVector<Value>{
      SliceGradOp::create(b, getInput().getType(), resultAdjoints[0],
                          getOffsetsAttr(), getSizesAttr(), getStridesAttr())};
}

/// The table's adjoint sums the rows of dy at the looked-up indices; the
/// indices have none.
FailureOr<SmallVector<Value>>
EmbeddingOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                           ArrayRef<bool>) {
  ImplicitLocOpBuilder b(getLoc(), builder);
  return SmallVector<Value>{EmbeddingGradOp::create(b, getTable().getType(),
                                                    resultAdjoints[0],
                                                    getIndices()),
                            Value()};
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

/// The logits' adjoint is mp.cross_entropy_grad; the labels have none.
FailureOr<SmallVector<Value>>
CrossEntropyOp::buildAdjoints(OpBuilder &builder,
                              ArrayRef<Value> resultAdjoints, ArrayRef<bool>) {
  ImplicitLocOpBuilder b(getLoc(), builder);
  return SmallVector<Value>{
      CrossEntropyGradOp::create(b, getLogits().getType(), resultAdjoints[0],
                                 getLogits(), getLabels(), getIgnoreIndex(),
                                 getLabelSmoothing()),
      Value()};
}

/// l = mean((x − t)²): dx = (x − t) · (dl · 2/N) and dt = −dx, with the
/// factor 2/N applied by mp.scale (formed in f32, rounded once).
FailureOr<SmallVector<Value>>
MSEOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                     ArrayRef<bool> requested) {
  ImplicitLocOpBuilder b(getLoc(), builder);
  int64_t count = tensorType(getInput()).getNumElements();
  Value factor = ScaleOp::create(
      b, resultAdjoints[0], f32Factor(b, 2.0 / static_cast<double>(count)));
  Value dInput =
      MulOp::create(b, SubOp::create(b, getInput(), getTarget()), factor);
  Value dTarget;
  if (requested[1])
    dTarget = NegOp::create(b, dInput);
  return SmallVector<Value>{requested[0] ? dInput : Value(), dTarget};
}

//===----------------------------------------------------------------------===//
// Precision
//===----------------------------------------------------------------------===//

/// The adjoint is cast back to the input's type: f32 values used through f16
/// casts get f32 gradients.
FailureOr<SmallVector<Value>>
CastOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                      ArrayRef<bool>) {
  ImplicitLocOpBuilder b(getLoc(), builder);
  return SmallVector<Value>{
      CastOp::create(b, getInput().getType(), resultAdjoints[0]).getResult()};
}

/// dx = dy scaled by the same factor; the factor gets no gradient.
FailureOr<SmallVector<Value>>
ScaleOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                       ArrayRef<bool>) {
  ImplicitLocOpBuilder b(getLoc(), builder);
  return SmallVector<Value>{
      ScaleOp::create(b, resultAdjoints[0], getFactor()).getResult(), Value()};
}

//===----------------------------------------------------------------------===//
// Batch normalisation
//===----------------------------------------------------------------------===//

/// One mp.batch_norm_grad gives the input, weight and bias adjoints; the
/// running statistics and the count have none (PyTorch updates them under
/// no_grad), and the adjoints of the statistics results are ignored.
FailureOr<SmallVector<Value>>
BatchNormOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                           ArrayRef<bool>) {
  SmallVector<Value> adjoints(getNumOperands(), Value());
  if (!resultAdjoints[0])
    return adjoints;
  ImplicitLocOpBuilder b(getLoc(), builder);
  auto paramType = [&](Value param) {
    if (param)
      return tensorType(param);
    return RankedTensorType::get({tensorType(getInput()).getDimSize(1)},
                                 b.getF32Type());
  };
  auto grads = BatchNormGradOp::create(
      b, getInput().getType(), paramType(getWeight()), paramType(getBias()),
      resultAdjoints[0], getInput(), getWeight(), getRunningMean(),
      getRunningVar(), getModeAttr(), getEpsAttr());
  unsigned next = 0;
  adjoints[next++] = grads.getInputGrad();
  if (getWeight())
    adjoints[next++] = grads.getWeightGrad();
  if (getBias())
    adjoints[next++] = grads.getBiasGrad();
  return adjoints;
}

//===----------------------------------------------------------------------===//
// Selection
//===----------------------------------------------------------------------===//

/// PyTorch's where backward: d(true_value) = select(c, dy, 0) and
/// d(false_value) = select(c, 0, dy), each summed to its operand's shape; the
/// condition has no adjoint.
FailureOr<SmallVector<Value>>
SelectOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                        ArrayRef<bool> requested) {
  ImplicitLocOpBuilder b(getLoc(), builder);
  Value dy = resultAdjoints[0];
  Value zero = scalarConstant(b, elementTypeOf(dy), 0.0);
  SmallVector<Value> adjoints(3);
  if (requested[1])
    adjoints[1] = sumToShape(b, SelectOp::create(b, getCondition(), dy, zero),
                             tensorType(getTrueValue()));
  if (requested[2])
    adjoints[2] = sumToShape(b, SelectOp::create(b, getCondition(), zero, dy),
                             tensorType(getFalseValue()));
  return adjoints;
}

//===----------------------------------------------------------------------===//
// Activations and math
//===----------------------------------------------------------------------===//

/// dy passes where the input lies within the bounds (inclusive, or exclusive
/// with `hardtanh`).
FailureOr<SmallVector<Value>>
ClampOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                       ArrayRef<bool>) {
  return buildUnaryAdjoint(
      *this, builder, resultAdjoints,
      [&](ImplicitLocOpBuilder &b, Value dy, Value x, Value) -> Value {
        return ClampGradOp::create(b, dy, x, getMinAttr(), getMaxAttr(),
                                   getHardtanhAttr());
      });
}

/// The adjoint of an activation with an explicit backward op `GradOpTy`
/// taking (dy, x).
template <typename GradOpTy, typename OpTy>
static FailureOr<SmallVector<Value>>
buildActivationAdjoint(OpTy op, OpBuilder &builder,
                       ArrayRef<Value> resultAdjoints) {
  return buildUnaryAdjoint(
      op, builder, resultAdjoints,
      [](ImplicitLocOpBuilder &b, Value dy, Value x, Value) -> Value {
        return GradOpTy::create(b, dy, x);
      });
}

FailureOr<SmallVector<Value>>
SiluOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                      ArrayRef<bool>) {
  return buildActivationAdjoint<SiluGradOp>(*this, builder, resultAdjoints);
}

FailureOr<SmallVector<Value>>
HardswishOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                           ArrayRef<bool>) {
  return buildActivationAdjoint<HardswishGradOp>(*this, builder,
                                                 resultAdjoints);
}

FailureOr<SmallVector<Value>>
HardsigmoidOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                             ArrayRef<bool>) {
  return buildActivationAdjoint<HardsigmoidGradOp>(*this, builder,
                                                   resultAdjoints);
}

FailureOr<SmallVector<Value>>
ErfOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                     ArrayRef<bool>) {
  return buildActivationAdjoint<ErfGradOp>(*this, builder, resultAdjoints);
}

FailureOr<SmallVector<Value>>
AbsOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                     ArrayRef<bool>) {
  return buildActivationAdjoint<AbsGradOp>(*this, builder, resultAdjoints);
}

FailureOr<SmallVector<Value>>
LeakyReluOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                           ArrayRef<bool>) {
  return buildUnaryAdjoint(
      *this, builder, resultAdjoints,
      [&](ImplicitLocOpBuilder &b, Value dy, Value x, Value) -> Value {
        return LeakyReluGradOp::create(b, dy, x, getNegativeSlopeAttr());
      });
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// mp.max_pool2d_grad recomputes the selected elements from the input.
FailureOr<SmallVector<Value>>
MaxPool2DOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                           ArrayRef<bool>) {
  ImplicitLocOpBuilder b(getLoc(), builder);
  return SmallVector<Value>{MaxPool2DGradOp::create(
      b, getInput().getType(), resultAdjoints[0], getInput(),
      getKernelSizeAttr(), getStrideAttr(), getPaddingAttr(), getDilationAttr(),
      getCeilModeAttr())};
}

FailureOr<SmallVector<Value>>
AvgPool2DOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                           ArrayRef<bool>) {
  ImplicitLocOpBuilder b(getLoc(), builder);
  return SmallVector<Value>{AvgPool2DGradOp::create(
      b, getInput().getType(), resultAdjoints[0], getKernelSizeAttr(),
      getStrideAttr(), getPaddingAttr(), getCeilModeAttr(),
      getCountIncludePadAttr(), getDivisorOverrideAttr())};
}

FailureOr<SmallVector<Value>> AdaptiveAvgPool2DOp::buildAdjoints(
    OpBuilder &builder, ArrayRef<Value> resultAdjoints, ArrayRef<bool>) {
  ImplicitLocOpBuilder b(getLoc(), builder);
  return SmallVector<Value>{AdaptiveAvgPool2DGradOp::create(
      b, getInput().getType(), resultAdjoints[0])};
}

//===----------------------------------------------------------------------===//
// Losses of MPTrainingOps.td
//===----------------------------------------------------------------------===//

/// derivatives.yaml's nll_loss_backward: −grad_output at each target not
/// ignored (÷ their count for mean), no gradient for the targets.
FailureOr<SmallVector<Value>>
NLLLossOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                         ArrayRef<bool>) {
  ImplicitLocOpBuilder b(getLoc(), builder);
  return SmallVector<Value>{
      NLLLossGradOp::create(b, getInput().getType(), resultAdjoints[0],
                            getTargets(), getIgnoreIndex(), getReduction()),
      Value()};
}
