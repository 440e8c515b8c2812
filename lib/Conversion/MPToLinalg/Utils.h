//===- Utils.h - Builders shared by the mp-to-linalg patterns ---*- C++ -*-===//
//
// Internal to lib/Conversion/MPToLinalg. The op-family patterns build their
// linalg.generic ops through these helpers, so that broadcasting, the
// extension of narrow floats to f32 and the single rounding of each result
// are written once.
//
//===----------------------------------------------------------------------===//

#ifndef MP_LIB_CONVERSION_MPTOLINALG_UTILS_H
#define MP_LIB_CONVERSION_MPTOLINALG_UTILS_H

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::mp::lowering {

/// A tensor operand of a linalg.generic and the map from the loop indices to
/// its indices.
struct MappedOperand {
  Value tensor;
  AffineMap map;
};

/// Computes the payload of a linalg.generic: receives the input elements
/// (floats converted to the compute type) and the output block arguments
/// (unconverted), returns one value per output.
using GenericBodyFn = function_ref<SmallVector<Value>(
    OpBuilder &b, Location loc, ValueRange inputs, ValueRange outputs)>;

/// Returns an `arith` constant `value` of float type `type`, rounded to
/// nearest even. FP8, FP6, FP4 and E8M0 constants are built as an integer
/// bit pattern of their width and an `arith.bitcast`, which every lowering to
/// LLVM handles.
Value createFloatConstant(OpBuilder &b, Location loc, Type type, double value);

/// An f32 `arith` constant.
Value createF32Constant(OpBuilder &b, Location loc, double value);

/// The f32 scalar `value` rounded down (in magnitude) to a power of two: its
/// mantissa bits cleared (a subnormal becomes ±0; infinity and NaN keep
/// their exponent), Transformer Engine's power_2_scale rounding.
Value buildPowerOfTwoFloor(OpBuilder &b, Location loc, Value value);

/// Converts the float scalar `value` to the float type `to`: `arith.extf` when
/// widening, `arith.truncf` (round to nearest even) when narrowing, and
/// through f32 (exact first step) between formats of one width or when an
/// FP8, FP6, FP4 or E8M0 format meets anything but f32, so that every
/// conversion to or from them is from or to f32.
Value convertFloat(OpBuilder &b, Location loc, Value value, Type to);

/// The f32 scalar `x` converted to the FP8, FP6, FP4 or E8M0 type `target`
/// as `mp.cast ... saturate` does: clamped to ± the largest finite value
/// (NaN kept), then rounded to nearest even, or for E8M0 its magnitude
/// rounded upward. Implemented with the mp.cast lowering (Precision.cpp).
Value buildSaturatingTruncation(OpBuilder &b, Location loc, Value x,
                                Type target);

/// `value` (f32, f16 or bf16; scalar, vector or tensor) rounded to the FP8,
/// FP6 or FP4 type `target` stochastically with the i32 random bits
/// `randomBits` of its shape (mp.stochastic_cast's rule), saturating: integer
/// arithmetic, implemented with the exact conversions in FP8Conversions.cpp.
Value buildStochasticTruncation(OpBuilder &b, Location loc, Value value,
                                Value randomBits, Type target);

/// `tensor.empty` of the given shape and element type.
Value createEmptyTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                        Type elementType);

/// A tensor of the given shape filled with the scalar `value` (linalg.fill).
Value createFilledTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                         Value value);

/// A tensor of the given shape and element type filled with zeros.
Value createZeroTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                       Type elementType);

/// Reinterprets `tensor` with `shape` in row-major order (the element count
/// must agree): one `tensor.collapse_shape` or `tensor.expand_shape` when the
/// shapes allow it, else a collapse to 1-d followed by an expand.
Value reshapeTensor(OpBuilder &b, Location loc, Value tensor,
                    ArrayRef<int64_t> shape);

/// `tensor` read with the identity map over its own rank.
MappedOperand identityOperand(Value tensor);

/// `tensor` broadcast to `shape` with the NumPy rule (trailing alignment):
/// its size-1 dimensions that broadcast are collapsed away, so that the map
/// is a projected permutation.
MappedOperand broadcastOperand(OpBuilder &b, Location loc, Value tensor,
                               ArrayRef<int64_t> shape);

/// `tensor`, which has the shape of a `numLoops`-d iteration space without
/// the dimensions `droppedDims`, read with the projection that skips them.
MappedOperand projectedOperand(Value tensor, unsigned numLoops,
                               ArrayRef<int64_t> droppedDims);

/// Builds a linalg.generic over `iteratorTypes.size()` loops. Float input
/// elements reach `body` converted to `computeType` (`convertFloat`); the
/// values it returns are converted to the element types of `inits`.
SmallVector<Value> buildGeneric(OpBuilder &b, Location loc,
                                ArrayRef<MappedOperand> inputs,
                                ArrayRef<MappedOperand> inits,
                                ArrayRef<utils::IteratorType> iteratorTypes,
                                Type computeType, GenericBodyFn body);

/// An elementwise linalg.generic producing tensors of `resultTypes` (one
/// shape): inputs are converted to `computeType` (f32 by default), each
/// result is rounded once to its element type.
SmallVector<Value> buildElementwise(OpBuilder &b, Location loc,
                                    ArrayRef<MappedOperand> inputs,
                                    TypeRange resultTypes, GenericBodyFn body,
                                    Type computeType = {});

/// `buildElementwise` for one result, with `inputs` broadcast to its shape by
/// the NumPy rule.
Value buildElementwise(OpBuilder &b, Location loc, ValueRange inputs,
                       RankedTensorType resultType, GenericBodyFn body,
                       Type computeType = {});

/// A reduction over the dimensions `reducedDims` of the iteration space
/// `loopShape`: one f32 accumulator per value of `initValues` (f32 scalars),
/// each of shape `loopShape` without `reducedDims`. `body` gets the inputs in
/// f32 and the accumulators, and returns the new accumulators.
SmallVector<Value>
buildReduction(OpBuilder &b, Location loc, ArrayRef<MappedOperand> inputs,
               ArrayRef<int64_t> loopShape, ArrayRef<int64_t> reducedDims,
               ArrayRef<Value> initValues, GenericBodyFn body);

/// Rounds `tensor` elementwise, once, to `type` (of its shape): `tensor`
/// itself when it has that type already.
Value roundTensor(OpBuilder &b, Location loc, Value tensor,
                  RankedTensorType type);

/// Divides the f32 tensor `sum` elementwise by `count` and rounds the
/// quotients once to `resultType` (of the shape of `sum`).
Value buildMean(OpBuilder &b, Location loc, Value sum, int64_t count,
                RankedTensorType resultType);

/// Returns `shape` without the dimensions `dims`.
SmallVector<int64_t> dropDims(ArrayRef<int64_t> shape, ArrayRef<int64_t> dims);

/// Reads the element of a 0-d tensor.
Value extractScalar(OpBuilder &b, Location loc, Value tensor);

/// Wraps a scalar into a 0-d tensor.
Value wrapScalar(OpBuilder &b, Location loc, Value scalar);

/// Statistics of a softmax along `dim`, in f32 and of the input's shape
/// without `dim`: the maximum and the sum of exp(x − maximum).
struct SoftmaxStatistics {
  Value max;
  Value sumExp;
};
SoftmaxStatistics buildSoftmaxStatistics(OpBuilder &b, Location loc,
                                         Value input, int64_t dim);

/// Statistics of a normalisation over the dimensions [axis, rank), in f32 and
/// of shape input.shape[:axis]. `centered` (layer norm): the mean and
/// 1/sqrt(biased variance + eps); otherwise (RMS norm) no mean and
/// 1/sqrt(mean(x²) + eps).
struct NormStatistics {
  Value mean;
  Value rstd;
  /// The rank of the input and its normalised dimensions [axis, rank).
  unsigned rank;
  SmallVector<int64_t> normDims;
  /// The number of elements normalised together.
  int64_t count;

  /// The number of operands `appendOperands` adds: mean (if any) and rstd.
  unsigned getNumOperands() const { return mean ? 2 : 1; }

  /// Appends the mean (if any) and rstd to `operands`, read at each element
  /// of the input's iteration space.
  void appendOperands(SmallVectorImpl<MappedOperand> &operands) const;

  /// The normalised element x̂ = (x − mean) · rstd, or x · rstd without a
  /// mean, from the payload element `x` and the payload values `statistics`
  /// of the operands `appendOperands` added.
  Value normalize(OpBuilder &b, Location loc, Value x,
                  ValueRange statistics) const;
};
NormStatistics buildNormStatistics(OpBuilder &b, Location loc, Value input,
                                   int64_t axis, double eps, bool centered);

} // namespace mlir::mp::lowering

#endif // MP_LIB_CONVERSION_MPTOLINALG_UTILS_H
