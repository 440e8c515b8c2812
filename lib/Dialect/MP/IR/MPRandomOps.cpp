//===- MPRandomOps.cpp - Random numbers and dropout -----------------------===//
//
// Verifiers, folders and the dropout adjoint of the random ops
// (MPRandomOps.td): mp.dropout, mp.dropout_grad, mp.random_uniform,
// mp.random_normal and mp.random_bits. The generator state is a
// `tensor<2xi64>` [seed, offset] (docs/Random.md); the custom syntax always
// gives that type, the verifiers check it for the generic form.
// mp.dropout's adjoint is mp.dropout_grad of the same state and p, which
// regenerates the mask instead of keeping it.
//
//===----------------------------------------------------------------------===//

#include "mp/Dialect/MP/IR/MPOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <cmath>

using namespace mlir;
using namespace mlir::mp;

bool mp::isRngStateType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getShape() == ArrayRef<int64_t>{2} &&
         tensor.getElementType().isInteger(64);
}

/// Checks that `state` is a generator state.
static LogicalResult verifyState(Operation *op, Value state) {
  if (!isRngStateType(state.getType()))
    return op->emitOpError("expects the rng state to be tensor<2xi64> "
                           "([seed, offset]), got ")
           << state.getType();
  return success();
}

/// Checks a dropout probability.
static LogicalResult verifyProbability(Operation *op, double p) {
  if (!(p >= 0.0 && p < 1.0))
    return op->emitOpError("expects the dropout probability p in [0, 1), got ")
           << p;
  return success();
}

/// Checks that `value` has one of the element types dropout supports.
static LogicalResult verifyDropoutElementType(Operation *op, StringRef name,
                                              Value value) {
  Type element = cast<RankedTensorType>(value.getType()).getElementType();
  if (!isa<Float32Type, Float16Type, BFloat16Type>(element))
    return op->emitOpError("expects ")
           << name << " of element type f32, f16 or bf16, got " << element;
  return success();
}

LogicalResult DropoutOp::verify() {
  if (failed(verifyState(*this, getState())) ||
      failed(verifyProbability(*this, getP().convertToDouble())))
    return failure();
  return verifyDropoutElementType(*this, "input", getInput());
}

LogicalResult DropoutOp::fold(FoldAdaptor,
                              SmallVectorImpl<OpFoldResult> &results) {
  // p = 0 keeps every element, scales by 1 and draws nothing.
  if (!getP().isZero())
    return failure();
  results.push_back(getInput());
  results.push_back(getState());
  return success();
}

LogicalResult DropoutGradOp::verify() {
  if (failed(verifyState(*this, getState())) ||
      failed(verifyProbability(*this, getP().convertToDouble())))
    return failure();
  return verifyDropoutElementType(*this, "grad_output", getGradOutput());
}

OpFoldResult DropoutGradOp::fold(FoldAdaptor) {
  if (getP().isZero())
    return getGradOutput();
  return {};
}

/// Checks the attributes of a random op: finite, and `first` < `second` (a
/// range) or `second` >= 0 (a standard deviation).
static LogicalResult verifyRandomOp(Operation *op, Value state,
                                    StringRef firstName, double first,
                                    StringRef secondName, double second,
                                    bool isRange) {
  if (failed(verifyState(op, state)))
    return failure();
  if (!std::isfinite(first) || !std::isfinite(second))
    return op->emitOpError("expects finite ")
           << firstName << " and " << secondName << ", got " << first << " and "
           << second;
  if (isRange && !(first < second))
    return op->emitOpError("expects low < high, got low = ")
           << first << " and high = " << second;
  if (!isRange && second < 0.0)
    return op->emitOpError("expects std >= 0, got ") << second;
  return success();
}

LogicalResult RandomUniformOp::verify() {
  return verifyRandomOp(*this, getState(), "low", getLow().convertToDouble(),
                        "high", getHigh().convertToDouble(), /*isRange=*/true);
}

LogicalResult RandomNormalOp::verify() {
  return verifyRandomOp(*this, getState(), "mean", getMean().convertToDouble(),
                        "std", getStd().convertToDouble(), /*isRange=*/false);
}

LogicalResult RandomBitsOp::verify() { return verifyState(*this, getState()); }

FailureOr<SmallVector<Value>>
DropoutOp::buildAdjoints(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                         ArrayRef<bool>) {
  // dx = dy · mask / (1 − p), the mask regenerated from the same state; the
  // state (integers) has no adjoint.
  if (!resultAdjoints[0])
    return SmallVector<Value>{Value(), Value()};
  ImplicitLocOpBuilder b(getLoc(), builder);
  Value dx = DropoutGradOp::create(b, resultAdjoints[0], getState(), getP());
  return SmallVector<Value>{dx, Value()};
}
