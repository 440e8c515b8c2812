//===- Pooling.cpp - Pooling mp ops to linalg.generic ---------------------===//
//
// Lowers max_pool2d, avg_pool2d, adaptive_avg_pool2d and their gradients to
// linalg.generic ops that reproduce PyTorch's CPU kernels element for
// element. A forward op is one reduction over the window loops (kh, kw) of
// the iteration space (n, c, oh, ow, kh, kw); the payload computes the input
// position (ih, iw) from the loop indices, reads the input there with
// tensor.extract when it lies inside the input, and skips padding (so
// neither −inf nor zero padding is materialised and ceil_mode windows that
// run past the padding need no special case). Elements are read in f32.
//
// Max pooling selects one element per window by a total order (a NaN beats
// every number and a later NaN an earlier one; among numbers the larger
// wins and ties go to the earlier position), so the selection does not
// depend on the order the loops run in and equals PyTorch's sequential scan
// `if (val > max || isnan(val))`. The gradients are gathers: the result
// element (ih, iw) loops over the windows that contain it (for max and
// average pooling, over the kernel offsets in reverse, so that the windows
// come in PyTorch's row-major order and the f32 sums add in its order) and
// adds each window's adjoint; the f32 sum is rounded once to the result
// type. Average divisors are compile-time constants of PyTorch's rule.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"
#include "Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mp/Dialect/MP/IR/MPOps.h"

#include <limits>

using namespace mlir;
using namespace mlir::mp;
using namespace mlir::mp::lowering;

namespace {
/// The window geometry of a 2-d pooling, per spatial dimension.
struct PoolGeometry {
  int64_t kernel[2], stride[2], padding[2], dilation[2];
  /// The spatial sizes of the input and of the output.
  int64_t in[2], out[2];
  int64_t batch, channels;

  PoolGeometry(ArrayRef<int64_t> inputShape, ArrayRef<int64_t> outputShape,
               ArrayRef<int64_t> kernelSize, ArrayRef<int64_t> strides,
               ArrayRef<int64_t> paddings, ArrayRef<int64_t> dilations) {
    batch = inputShape[0];
    channels = inputShape[1];
    for (int i = 0; i < 2; ++i) {
      kernel[i] = kernelSize[i];
      stride[i] = strides[i];
      padding[i] = paddings[i];
      dilation[i] = dilations[i];
      in[i] = inputShape[2 + i];
      out[i] = outputShape[2 + i];
    }
  }
};

Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// The iteration space (n, c, p, q, r, s): four parallel loops and two
/// reduction loops.
SmallVector<utils::IteratorType> windowIterators() {
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
  iterators.append(2, utils::IteratorType::reduction);
  return iterators;
}

/// The input that gives the two reduction loops their bounds: an unread f32
/// tensor of shape [r, s] (as linalg's pooling ops take a window tensor).
MappedOperand windowOperand(OpBuilder &b, Location loc, int64_t rows,
                            int64_t columns) {
  MLIRContext *context = b.getContext();
  Value window = createEmptyTensor(b, loc, {rows, columns}, b.getF32Type());
  return {window, AffineMap::get(6, 0,
                                 {getAffineDimExpr(4, context),
                                  getAffineDimExpr(5, context)},
                                 context)};
}

/// An accumulator of shape [N, C, P, Q] filled with `value`, read and written
/// at (n, c, p, q).
MappedOperand accumulator(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                          Value value) {
  return projectedOperand(createFilledTensor(b, loc, shape, value), 6, {4, 5});
}

/// The loop indices of the payload.
SmallVector<Value> loopIndices(OpBuilder &b, Location loc) {
  SmallVector<Value> indices;
  for (int64_t d = 0; d < 6; ++d)
    indices.push_back(linalg::IndexOp::create(b, loc, d));
  return indices;
}

/// `value` when `condition` holds, else 0 (an index in range to read at).
Value indexOrZero(OpBuilder &b, Location loc, Value condition, Value value) {
  return arith::SelectOp::create(b, loc, condition, value,
                                 indexConstant(b, loc, 0));
}

/// Whether 0 <= `index` < `size`.
Value isInRange(OpBuilder &b, Location loc, Value index, int64_t size) {
  Value nonNegative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                            index, indexConstant(b, loc, 0));
  Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, index,
                                      indexConstant(b, loc, size));
  return arith::AndIOp::create(b, loc, nonNegative, below);
}

/// The input position of window element `k` of output `o` in dimension `i`:
/// o·stride − padding + k·dilation.
Value inputPosition(OpBuilder &b, Location loc, const PoolGeometry &g, int i,
                    Value o, Value k) {
  Value start = arith::SubIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, o, indexConstant(b, loc, g.stride[i])),
      indexConstant(b, loc, g.padding[i]));
  Value offset =
      arith::MulIOp::create(b, loc, k, indexConstant(b, loc, g.dilation[i]));
  return arith::AddIOp::create(b, loc, start, offset);
}

/// Reads `tensor` (NCHW) at (n, c, h, w) where `valid`, converted to f32;
/// elsewhere it reads (n, c, 0, 0), which exists, and the caller ignores it.
Value readIf(OpBuilder &b, Location loc, Value tensor, Value n, Value c,
             Value h, Value w, Value valid) {
  Value element =
      tensor::ExtractOp::create(b, loc, tensor,
                                ValueRange{n, c, indexOrZero(b, loc, valid, h),
                                           indexOrZero(b, loc, valid, w)});
  if (isa<FloatType>(element.getType()))
    return convertFloat(b, loc, element, b.getF32Type());
  return element;
}

/// The maximum of each window of `input` and the position of the element
/// selected (kh·KW + kw, i64; −1 for a window without an element inside the
/// input), as f32 and i64 tensors of the output shape.
std::pair<Value, Value> buildMaxSelection(OpBuilder &b, Location loc,
                                          Value input, const PoolGeometry &g) {
  SmallVector<int64_t> outShape{g.batch, g.channels, g.out[0], g.out[1]};
  Type i64 = b.getI64Type();
  Value minusInf =
      createF32Constant(b, loc, -std::numeric_limits<double>::infinity());
  Value none = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(-1));
  SmallVector<Value> results = buildGeneric(
      b, loc, {windowOperand(b, loc, g.kernel[0], g.kernel[1])},
      {accumulator(b, loc, outShape, minusInf),
       accumulator(b, loc, outShape, none)},
      windowIterators(), b.getF32Type(),
      [&](OpBuilder &b, Location loc, ValueRange,
          ValueRange acc) -> SmallVector<Value> {
        SmallVector<Value> idx = loopIndices(b, loc);
        Value ih = inputPosition(b, loc, g, 0, idx[2], idx[4]);
        Value iw = inputPosition(b, loc, g, 1, idx[3], idx[5]);
        Value inside =
            arith::AndIOp::create(b, loc, isInRange(b, loc, ih, g.in[0]),
                                  isInRange(b, loc, iw, g.in[1]));
        Value value = readIf(b, loc, input, idx[0], idx[1], ih, iw, inside);
        Value position = arith::IndexCastOp::create(
            b, loc, i64,
            arith::AddIOp::create(
                b, loc,
                arith::MulIOp::create(b, loc, idx[4],
                                      indexConstant(b, loc, g.kernel[1])),
                idx[5]));
        Value best = acc[0], bestPosition = acc[1];
        auto cmpf = [&](arith::CmpFPredicate p, Value l, Value r) -> Value {
          return arith::CmpFOp::create(b, loc, p, l, r);
        };
        auto cmpi = [&](arith::CmpIPredicate p, Value l, Value r) -> Value {
          return arith::CmpIOp::create(b, loc, p, l, r);
        };
        Value empty =
            cmpi(arith::CmpIPredicate::eq, bestPosition,
                 arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(-1)));
        Value valueIsNaN = cmpf(arith::CmpFPredicate::UNO, value, value);
        Value bestIsNaN = cmpf(arith::CmpFPredicate::UNO, best, best);
        Value bestIsNumber = cmpf(arith::CmpFPredicate::ORD, best, best);
        // A NaN beats a number and an earlier NaN.
        Value nanWins = arith::OrIOp::create(
            b, loc, bestIsNumber,
            cmpi(arith::CmpIPredicate::sgt, position, bestPosition));
        // A number beats a smaller number and an equal later one.
        Value tieWins = arith::AndIOp::create(
            b, loc, cmpf(arith::CmpFPredicate::OEQ, value, best),
            cmpi(arith::CmpIPredicate::slt, position, bestPosition));
        Value numberWins = arith::AndIOp::create(
            b, loc,
            arith::XOrIOp::create(
                b, loc, bestIsNaN,
                arith::ConstantOp::create(b, loc, b.getBoolAttr(true))),
            arith::OrIOp::create(
                b, loc, cmpf(arith::CmpFPredicate::OGT, value, best), tieWins));
        Value wins =
            arith::SelectOp::create(b, loc, valueIsNaN, nanWins, numberWins);
        Value take = arith::AndIOp::create(
            b, loc, inside, arith::OrIOp::create(b, loc, empty, wins));
        return {arith::SelectOp::create(b, loc, take, value, best),
                arith::SelectOp::create(b, loc, take, position, bestPosition)};
      });
  return {results[0], results[1]};
}

/// Builds dx of an NCHW `resultType` for max or average pooling: result
/// element (ih, iw) adds, over the windows (oh, ow) containing it as kernel
/// element (kh, kw) in row-major window order, `contribution(n, c, oh, ow,
/// kh, kw)` (f32, or null to add nothing) in f32, rounded once.
Value buildWindowGather(
    OpBuilder &b, Location loc, const PoolGeometry &g,
    RankedTensorType resultType,
    function_ref<Value(OpBuilder &, Location, Value n, Value c, Value oh,
                       Value ow, Value kh, Value kw, Value valid)>
        contribution) {
  Value zero = createF32Constant(b, loc, 0.0);
  Value sum =
      buildGeneric(
          b, loc, {windowOperand(b, loc, g.kernel[0], g.kernel[1])},
          {accumulator(b, loc, resultType.getShape(), zero)}, windowIterators(),
          b.getF32Type(),
          [&](OpBuilder &b, Location loc, ValueRange,
              ValueRange acc) -> SmallVector<Value> {
            SmallVector<Value> idx = loopIndices(b, loc);
            Value valid;
            SmallVector<Value> outputs, kernels;
            for (int i = 0; i < 2; ++i) {
              // The kernel offset runs backwards: the window index then
              // increases with the loop.
              Value k = arith::SubIOp::create(
                  b, loc, indexConstant(b, loc, g.kernel[i] - 1), idx[4 + i]);
              Value numerator = arith::SubIOp::create(
                  b, loc,
                  arith::AddIOp::create(b, loc, idx[2 + i],
                                        indexConstant(b, loc, g.padding[i])),
                  arith::MulIOp::create(b, loc, k,
                                        indexConstant(b, loc, g.dilation[i])));
              Value nonNegative =
                  arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                        numerator, indexConstant(b, loc, 0));
              Value safe = indexOrZero(b, loc, nonNegative, numerator);
              Value stride = indexConstant(b, loc, g.stride[i]);
              Value o = arith::DivUIOp::create(b, loc, safe, stride);
              Value divisible = arith::CmpIOp::create(
                  b, loc, arith::CmpIPredicate::eq,
                  arith::RemUIOp::create(b, loc, safe, stride),
                  indexConstant(b, loc, 0));
              Value inRange =
                  arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, o,
                                        indexConstant(b, loc, g.out[i]));
              Value ok = arith::AndIOp::create(
                  b, loc, nonNegative,
                  arith::AndIOp::create(b, loc, divisible, inRange));
              valid = valid
                          ? arith::AndIOp::create(b, loc, valid, ok).getResult()
                          : ok;
              outputs.push_back(o);
              kernels.push_back(k);
            }
            Value oh = indexOrZero(b, loc, valid, outputs[0]);
            Value ow = indexOrZero(b, loc, valid, outputs[1]);
            Value term = contribution(b, loc, idx[0], idx[1], oh, ow,
                                      kernels[0], kernels[1], valid);
            Value added = arith::AddFOp::create(b, loc, acc[0], term);
            return {arith::SelectOp::create(b, loc, valid, added, acc[0])};
          })
          .front();
  return roundTensor(b, loc, sum, resultType);
}

struct MaxPool2DOpLowering : OpConversionPattern<MaxPool2DOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MaxPool2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = op.getResult().getType();
    PoolGeometry g(op.getInput().getType().getShape(), resultType.getShape(),
                   op.getKernelSize(), op.getEffectiveStride(), op.getPadding(),
                   op.getDilation());
    Value maximum =
        buildMaxSelection(rewriter, loc, adaptor.getInput(), g).first;
    rewriter.replaceOp(op, roundTensor(rewriter, loc, maximum, resultType));
    return success();
  }
};

struct MaxPool2DGradOpLowering : OpConversionPattern<MaxPool2DGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MaxPool2DGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = op.getResult().getType();
    PoolGeometry g(resultType.getShape(),
                   op.getGradOutput().getType().getShape(), op.getKernelSize(),
                   op.getEffectiveStride(), op.getPadding(), op.getDilation());
    Value selected =
        buildMaxSelection(rewriter, loc, adaptor.getInput(), g).second;
    Value gradOutput = adaptor.getGradOutput();
    Value dx = buildWindowGather(
        rewriter, loc, g, resultType,
        [&](OpBuilder &b, Location loc, Value n, Value c, Value oh, Value ow,
            Value kh, Value kw, Value valid) -> Value {
          Value position = tensor::ExtractOp::create(b, loc, selected,
                                                     ValueRange{n, c, oh, ow});
          Value expected = arith::IndexCastOp::create(
              b, loc, b.getI64Type(),
              arith::AddIOp::create(
                  b, loc,
                  arith::MulIOp::create(b, loc, kh,
                                        indexConstant(b, loc, g.kernel[1])),
                  kw));
          Value hit = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            position, expected);
          Value dy = readIf(b, loc, gradOutput, n, c, oh, ow, valid);
          return arith::SelectOp::create(b, loc, hit, dy,
                                         createF32Constant(b, loc, 0.0));
        });
    rewriter.replaceOp(op, dx);
    return success();
  }
};

/// PyTorch's average-pooling divisor of each output position, as an f32
/// constant of shape [OH, OW].
Value buildAvgDivisors(OpBuilder &b, Location loc, const PoolGeometry &g,
                       bool countIncludePad, std::optional<int64_t> divisor) {
  SmallVector<float> divisors;
  for (int64_t oh = 0; oh < g.out[0]; ++oh) {
    for (int64_t ow = 0; ow < g.out[1]; ++ow) {
      int64_t start[2], end[2], padded = 1, inside = 1;
      int64_t o[2] = {oh, ow};
      for (int i = 0; i < 2; ++i) {
        start[i] = o[i] * g.stride[i] - g.padding[i];
        end[i] = std::min(start[i] + g.kernel[i], g.in[i] + g.padding[i]);
        padded *= end[i] - start[i];
        inside *= std::min(end[i], g.in[i]) - std::max(start[i], int64_t(0));
      }
      int64_t factor = divisor ? *divisor : countIncludePad ? padded : inside;
      divisors.push_back(static_cast<float>(std::max(factor, int64_t(1))));
    }
  }
  auto type = RankedTensorType::get({g.out[0], g.out[1]}, b.getF32Type());
  return arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(type, ArrayRef<float>(divisors)));
}

/// The operand `divisors` ([OH, OW]) read at (n, c, oh, ow).
MappedOperand spatialOperand(Value divisors) {
  MLIRContext *context = divisors.getContext();
  return {divisors, AffineMap::get(4, 0,
                                   {getAffineDimExpr(2, context),
                                    getAffineDimExpr(3, context)},
                                   context)};
}

/// `numerator` (NCHW, any float type) divided elementwise by the spatial
/// constant `divisors` in f32; the quotients are rounded to `resultType`.
Value divideBySpatial(OpBuilder &b, Location loc, Value numerator,
                      ArrayRef<Value> divisors, RankedTensorType resultType) {
  SmallVector<MappedOperand> inputs{identityOperand(numerator)};
  for (Value divisor : divisors)
    inputs.push_back(spatialOperand(divisor));
  return buildElementwise(b, loc, inputs, TypeRange{resultType},
                          [](OpBuilder &b, Location loc, ValueRange in,
                             ValueRange) -> SmallVector<Value> {
                            Value quotient = in[0];
                            for (Value divisor : in.drop_front())
                              quotient = arith::DivFOp::create(b, loc, quotient,
                                                               divisor);
                            return {quotient};
                          })
      .front();
}

struct AvgPool2DOpLowering : OpConversionPattern<AvgPool2DOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AvgPool2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = op.getResult().getType();
    PoolGeometry g(op.getInput().getType().getShape(), resultType.getShape(),
                   op.getKernelSize(), op.getEffectiveStride(), op.getPadding(),
                   {1, 1});
    Value input = adaptor.getInput();
    Value zero = createF32Constant(rewriter, loc, 0.0);
    Value sum =
        buildGeneric(
            rewriter, loc,
            {windowOperand(rewriter, loc, g.kernel[0], g.kernel[1])},
            {accumulator(rewriter, loc, resultType.getShape(), zero)},
            windowIterators(), rewriter.getF32Type(),
            [&](OpBuilder &b, Location loc, ValueRange,
                ValueRange acc) -> SmallVector<Value> {
              SmallVector<Value> idx = loopIndices(b, loc);
              Value ih = inputPosition(b, loc, g, 0, idx[2], idx[4]);
              Value iw = inputPosition(b, loc, g, 1, idx[3], idx[5]);
              Value inside =
                  arith::AndIOp::create(b, loc, isInRange(b, loc, ih, g.in[0]),
                                        isInRange(b, loc, iw, g.in[1]));
              Value value =
                  readIf(b, loc, input, idx[0], idx[1], ih, iw, inside);
              Value added = arith::AddFOp::create(b, loc, acc[0], value);
              return {arith::SelectOp::create(b, loc, inside, added, acc[0])};
            })
            .front();
    Value divisors = buildAvgDivisors(rewriter, loc, g, op.getCountIncludePad(),
                                      op.getDivisorOverride());
    rewriter.replaceOp(
        op, divideBySpatial(rewriter, loc, sum, {divisors}, resultType));
    return success();
  }
};

struct AvgPool2DGradOpLowering : OpConversionPattern<AvgPool2DGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AvgPool2DGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = op.getResult().getType();
    auto gradType = op.getGradOutput().getType();
    PoolGeometry g(resultType.getShape(), gradType.getShape(),
                   op.getKernelSize(), op.getEffectiveStride(), op.getPadding(),
                   {1, 1});
    Value divisors = buildAvgDivisors(rewriter, loc, g, op.getCountIncludePad(),
                                      op.getDivisorOverride());
    // grad_delta = dy / divisor in f32, as PyTorch's backward.
    Value delta =
        divideBySpatial(rewriter, loc, adaptor.getGradOutput(), {divisors},
                        gradType.clone(rewriter.getF32Type()));
    Value dx = buildWindowGather(
        rewriter, loc, g, resultType,
        [&](OpBuilder &b, Location loc, Value n, Value c, Value oh, Value ow,
            Value, Value, Value) -> Value {
          return tensor::ExtractOp::create(b, loc, delta,
                                           ValueRange{n, c, oh, ow});
        });
    rewriter.replaceOp(op, dx);
    return success();
  }
};

/// PyTorch's adaptive window of output `o` of `out` over `in` elements:
/// [⌊o·in/out⌋, ⌈(o+1)·in/out⌉).
std::pair<int64_t, int64_t> adaptiveWindow(int64_t o, int64_t in, int64_t out) {
  return {(o * in) / out, ((o + 1) * in + out - 1) / out};
}

/// The same window bounds in the payload, from the index `o`.
std::pair<Value, Value> adaptiveWindow(OpBuilder &b, Location loc, Value o,
                                       int64_t in, int64_t out) {
  Value inSize = indexConstant(b, loc, in);
  Value outSize = indexConstant(b, loc, out);
  Value start = arith::DivUIOp::create(
      b, loc, arith::MulIOp::create(b, loc, o, inSize), outSize);
  Value next = arith::AddIOp::create(b, loc, o, indexConstant(b, loc, 1));
  Value end = arith::DivUIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, next, inSize),
                            indexConstant(b, loc, out - 1)),
      outSize);
  return {start, end};
}

/// The two divisors of each output of an adaptive pooling, as f32 constants
/// of shape [OH, OW]: its window height and width, or, for the output size
/// [1, 1] (where PyTorch computes a mean over H·W), H·W and 1.
std::pair<Value, Value> adaptiveSizes(OpBuilder &b, Location loc,
                                      ArrayRef<int64_t> in,
                                      ArrayRef<int64_t> out) {
  SmallVector<float> rows, columns;
  bool global = out[0] == 1 && out[1] == 1;
  for (int64_t oh = 0; oh < out[0]; ++oh)
    for (int64_t ow = 0; ow < out[1]; ++ow) {
      auto [h0, h1] = adaptiveWindow(oh, in[0], out[0]);
      auto [w0, w1] = adaptiveWindow(ow, in[1], out[1]);
      rows.push_back(static_cast<float>(global ? in[0] * in[1] : h1 - h0));
      columns.push_back(static_cast<float>(global ? 1 : w1 - w0));
    }
  auto type = RankedTensorType::get({out[0], out[1]}, b.getF32Type());
  return {arith::ConstantOp::create(
              b, loc, DenseElementsAttr::get(type, ArrayRef<float>(rows))),
          arith::ConstantOp::create(
              b, loc, DenseElementsAttr::get(type, ArrayRef<float>(columns)))};
}

/// The largest adaptive window along a dimension.
int64_t largestAdaptiveWindow(int64_t in, int64_t out) {
  int64_t largest = 1;
  for (int64_t o = 0; o < out; ++o) {
    auto [start, end] = adaptiveWindow(o, in, out);
    largest = std::max(largest, end - start);
  }
  return largest;
}

struct AdaptiveAvgPool2DOpLowering : OpConversionPattern<AdaptiveAvgPool2DOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AdaptiveAvgPool2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = op.getResult().getType();
    ArrayRef<int64_t> inShape = op.getInput().getType().getShape();
    int64_t in[2] = {inShape[2], inShape[3]};
    int64_t out[2] = {resultType.getDimSize(2), resultType.getDimSize(3)};
    Value input = adaptor.getInput();
    Value zero = createF32Constant(rewriter, loc, 0.0);
    Value sum =
        buildGeneric(
            rewriter, loc,
            {windowOperand(rewriter, loc, largestAdaptiveWindow(in[0], out[0]),
                           largestAdaptiveWindow(in[1], out[1]))},
            {accumulator(rewriter, loc, resultType.getShape(), zero)},
            windowIterators(), rewriter.getF32Type(),
            [&](OpBuilder &b, Location loc, ValueRange,
                ValueRange acc) -> SmallVector<Value> {
              SmallVector<Value> idx = loopIndices(b, loc);
              Value inside, position[2];
              for (int i = 0; i < 2; ++i) {
                auto [start, end] =
                    adaptiveWindow(b, loc, idx[2 + i], in[i], out[i]);
                position[i] = arith::AddIOp::create(b, loc, start, idx[4 + i]);
                Value ok = arith::CmpIOp::create(
                    b, loc, arith::CmpIPredicate::ult, position[i], end);
                inside =
                    inside
                        ? arith::AndIOp::create(b, loc, inside, ok).getResult()
                        : ok;
              }
              Value value = readIf(b, loc, input, idx[0], idx[1], position[0],
                                   position[1], inside);
              Value added = arith::AddFOp::create(b, loc, acc[0], value);
              return {arith::SelectOp::create(b, loc, inside, added, acc[0])};
            })
            .front();
    auto [rows, columns] = adaptiveSizes(rewriter, loc, in, out);
    rewriter.replaceOp(
        op, divideBySpatial(rewriter, loc, sum, {rows, columns}, resultType));
    return success();
  }
};

struct AdaptiveAvgPool2DGradOpLowering
    : OpConversionPattern<AdaptiveAvgPool2DGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AdaptiveAvgPool2DGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = op.getResult().getType();
    auto gradType = op.getGradOutput().getType();
    int64_t in[2] = {resultType.getDimSize(2), resultType.getDimSize(3)};
    int64_t out[2] = {gradType.getDimSize(2), gradType.getDimSize(3)};
    auto [rows, columns] = adaptiveSizes(rewriter, loc, in, out);
    // grad_delta = dy / kh / kw in f32, as PyTorch's backward.
    Value delta =
        divideBySpatial(rewriter, loc, adaptor.getGradOutput(), {rows, columns},
                        gradType.clone(rewriter.getF32Type()));
    // Loops (n, c, ih, iw, oh, ow): every window, in row-major order.
    MLIRContext *context = rewriter.getContext();
    MappedOperand deltaOperand{
        delta, AffineMap::get(
                   6, 0,
                   {getAffineDimExpr(0, context), getAffineDimExpr(1, context),
                    getAffineDimExpr(4, context), getAffineDimExpr(5, context)},
                   context)};
    Value zero = createF32Constant(rewriter, loc, 0.0);
    Value sum =
        buildGeneric(
            rewriter, loc, {deltaOperand},
            {accumulator(rewriter, loc, resultType.getShape(), zero)},
            windowIterators(), rewriter.getF32Type(),
            [&](OpBuilder &b, Location loc, ValueRange inputs,
                ValueRange acc) -> SmallVector<Value> {
              SmallVector<Value> idx = loopIndices(b, loc);
              Value inside;
              for (int i = 0; i < 2; ++i) {
                auto [start, end] =
                    adaptiveWindow(b, loc, idx[4 + i], in[i], out[i]);
                Value ok = arith::AndIOp::create(
                    b, loc,
                    arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                          idx[2 + i], start),
                    arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          idx[2 + i], end));
                inside =
                    inside
                        ? arith::AndIOp::create(b, loc, inside, ok).getResult()
                        : ok;
              }
              Value added = arith::AddFOp::create(b, loc, acc[0], inputs[0]);
              return {arith::SelectOp::create(b, loc, inside, added, acc[0])};
            })
            .front();
    rewriter.replaceOp(op, roundTensor(rewriter, loc, sum, resultType));
    return success();
  }
};
} // namespace

void lowering::populatePoolingPatterns(RewritePatternSet &patterns) {
  patterns.add<MaxPool2DOpLowering, MaxPool2DGradOpLowering,
               AvgPool2DOpLowering, AvgPool2DGradOpLowering,
               AdaptiveAvgPool2DOpLowering, AdaptiveAvgPool2DGradOpLowering>(
      patterns.getContext());
}
