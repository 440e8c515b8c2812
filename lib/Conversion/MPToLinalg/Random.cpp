//===- Random.cpp - Philox random ops to linalg.generic -------------------===//
//
// Lowers mp.dropout, mp.dropout_grad, mp.random_uniform, mp.random_normal and
// mp.random_bits to one parallel linalg.generic each, whose payload computes
// Philox4x32-10 for its element: the element's row-major linear index (from
// linalg.index) plus the state's offset is its draw number d, the block
// counter is (d >> 2) split into two 32-bit words, the key is the seed split
// into two, and word d & 3 of the block is the draw (docs/Random.md). Each
// element is a pure function of the state and its index, so any tiling,
// vectorisation or thread count gives the same bits. The draw becomes a float
// in f32 (exact), the value is computed in f32 and rounded once to the
// storage type (f16/bf16), as the other elementwise lowerings. The new state
// is [seed, offset + 4·ceil(N/4)].
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"
#include "Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mp/Dialect/MP/IR/MPOps.h"

#include <array>
#include <cmath>

using namespace mlir;
using namespace mlir::mp;
using namespace mlir::mp::lowering;

namespace {
/// The Philox4x32 round multipliers and Weyl key increments (Random123).
constexpr uint32_t kPhiloxM0 = 0xD2511F53u;
constexpr uint32_t kPhiloxM1 = 0xCD9E8D57u;
constexpr uint32_t kPhiloxW0 = 0x9E3779B9u;
constexpr uint32_t kPhiloxW1 = 0xBB67AE85u;
constexpr int kPhiloxRounds = 10;

/// The generator state [seed, offset] read as scalars, and the key words.
struct RngState {
  Value seed, offset;
  Value key0, key1;
};

Value i32Constant(OpBuilder &b, Location loc, uint32_t value) {
  return arith::ConstantOp::create(
      b, loc, b.getI32IntegerAttr(static_cast<int32_t>(value)));
}

Value i64Constant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(value));
}

/// The low and the high 32 bits of the i64 `value`.
std::pair<Value, Value> splitWords(OpBuilder &b, Location loc, Value value) {
  Type i32 = b.getI32Type();
  Value low = arith::TruncIOp::create(b, loc, i32, value);
  Value shifted =
      arith::ShRUIOp::create(b, loc, value, i64Constant(b, loc, 32));
  Value high = arith::TruncIOp::create(b, loc, i32, shifted);
  return {low, high};
}

/// Reads the state tensor (outside the generic: the payload captures it).
RngState readState(OpBuilder &b, Location loc, Value state) {
  RngState result;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  result.seed = tensor::ExtractOp::create(b, loc, state, ValueRange{zero});
  result.offset = tensor::ExtractOp::create(b, loc, state, ValueRange{one});
  std::tie(result.key0, result.key1) = splitWords(b, loc, result.seed);
  return result;
}

/// [seed, offset + 4·ceil(numElements/4)] (modulo 2^64).
Value advanceState(OpBuilder &b, Location loc, const RngState &state,
                   int64_t numElements) {
  int64_t draws = (numElements + 3) / 4 * 4;
  Value offset =
      arith::AddIOp::create(b, loc, state.offset, i64Constant(b, loc, draws));
  return tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({2}, b.getI64Type()),
      ValueRange{state.seed, offset});
}

/// The low and high words of the 64-bit product of the i32 values `x` and
/// `y` (unsigned). Through i64 rather than arith.mului_extended, which the
/// LLVM lowering rejects on the n-d vectors that vectorisation makes; LLVM
/// selects a widening multiply for it.
std::pair<Value, Value> buildWideProduct(OpBuilder &b, Location loc, Value x,
                                         Value y) {
  Type i64 = b.getI64Type();
  Value product =
      arith::MulIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i64, x),
                            arith::ExtUIOp::create(b, loc, i64, y));
  return splitWords(b, loc, product);
}

/// Philox4x32-10 of `counter` under `key`: ten rounds, the key bumped by the
/// Weyl constants before every round but the first.
std::array<Value, 4> buildPhilox(OpBuilder &b, Location loc,
                                 std::array<Value, 4> counter, Value key0,
                                 Value key1) {
  Value m0 = i32Constant(b, loc, kPhiloxM0);
  Value m1 = i32Constant(b, loc, kPhiloxM1);
  Value w0 = i32Constant(b, loc, kPhiloxW0);
  Value w1 = i32Constant(b, loc, kPhiloxW1);
  for (int round = 0; round < kPhiloxRounds; ++round) {
    if (round > 0) {
      key0 = arith::AddIOp::create(b, loc, key0, w0);
      key1 = arith::AddIOp::create(b, loc, key1, w1);
    }
    auto [low0, high0] = buildWideProduct(b, loc, m0, counter[0]);
    auto [low1, high1] = buildWideProduct(b, loc, m1, counter[2]);
    Value x0 = arith::XOrIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, high1, counter[1]), key0);
    Value x2 = arith::XOrIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, high0, counter[3]), key1);
    counter = {x0, low1, x2, low0};
  }
  return counter;
}

/// The 32-bit draw number `draw` (i64): word `draw & 3` of the block with
/// counter (draw >> 2, 0).
Value buildDraw(OpBuilder &b, Location loc, const RngState &state, Value draw) {
  Value block = arith::ShRUIOp::create(b, loc, draw, i64Constant(b, loc, 2));
  auto [c0, c1] = splitWords(b, loc, block);
  Value zero = i32Constant(b, loc, 0);
  std::array<Value, 4> words =
      buildPhilox(b, loc, {c0, c1, zero, zero}, state.key0, state.key1);
  Value word = arith::TruncIOp::create(
      b, loc, b.getI32Type(),
      arith::AndIOp::create(b, loc, draw, i64Constant(b, loc, 3)));
  Value result = words[3];
  for (int k = 2; k >= 0; --k) {
    Value isK = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, word,
                                      i32Constant(b, loc, k));
    result = arith::SelectOp::create(b, loc, isK, words[k], result);
  }
  return result;
}

/// The row-major linear index (i64) of the current element of a generic
/// over `shape`.
Value buildLinearIndex(OpBuilder &b, Location loc, ArrayRef<int64_t> shape) {
  Value linear = arith::ConstantIndexOp::create(b, loc, 0);
  for (auto [dim, size] : llvm::enumerate(shape)) {
    Value scaled = arith::MulIOp::create(
        b, loc, linear, arith::ConstantIndexOp::create(b, loc, size));
    linear = arith::AddIOp::create(b, loc, scaled,
                                   linalg::IndexOp::create(b, loc, dim));
  }
  return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), linear);
}

/// The draw of element `index` for an op drawing one word per element.
Value buildElementDraw(OpBuilder &b, Location loc, const RngState &state,
                       Value index) {
  return buildDraw(b, loc, state,
                   arith::AddIOp::create(b, loc, state.offset, index));
}

/// (x >> 8) · 2^-24 in f32 (exact), plus `bias` (0 or 1) before scaling.
Value buildUnitFloat(OpBuilder &b, Location loc, Value bits, int bias = 0) {
  Value top = arith::ShRUIOp::create(b, loc, bits, i32Constant(b, loc, 8));
  if (bias)
    top = arith::AddIOp::create(b, loc, top, i32Constant(b, loc, bias));
  Value real = arith::UIToFPOp::create(b, loc, b.getF32Type(), top);
  return arith::MulFOp::create(b, loc, real,
                               createF32Constant(b, loc, std::ldexp(1.0, -24)));
}

/// The dropout payload shared by mp.dropout and mp.dropout_grad, PyTorch's
/// `x · mask · scale` in f32: (x · (kept ? 1 : 0)) · f32(1/(1−p)), so that a
/// dropped element is x · 0 (−0 for negative x, NaN for non-finite x).
Value buildDropoutElement(OpBuilder &b, Location loc, const RngState &state,
                          ArrayRef<int64_t> shape, Value x, double p) {
  Value bits = buildElementDraw(b, loc, state, buildLinearIndex(b, loc, shape));
  Value u = buildUnitFloat(b, loc, bits);
  Value keep = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, u,
                                     createF32Constant(b, loc, 1.0 - p));
  Value mask =
      arith::SelectOp::create(b, loc, keep, createF32Constant(b, loc, 1.0),
                              createF32Constant(b, loc, 0.0));
  Value masked = arith::MulFOp::create(b, loc, x, mask);
  return arith::MulFOp::create(b, loc, masked,
                               createF32Constant(b, loc, 1.0 / (1.0 - p)));
}

/// Dropout and its gradient: the same payload on `input`.
template <typename OpTy>
LogicalResult lowerDropoutLike(OpTy op, Value input, Value stateTensor,
                               bool returnsState,
                               ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  auto type = cast<RankedTensorType>(input.getType());
  double p = op.getP().convertToDouble();
  if (p == 0.0) {
    // The identity; nothing is drawn.
    SmallVector<Value> results{input};
    if (returnsState)
      results.push_back(stateTensor);
    rewriter.replaceOp(op, results);
    return success();
  }
  RngState state = readState(rewriter, loc, stateTensor);
  Value result =
      buildElementwise(rewriter, loc, ValueRange{input}, type,
                       [&](OpBuilder &b, Location loc, ValueRange args,
                           ValueRange) -> SmallVector<Value> {
                         return {buildDropoutElement(
                             b, loc, state, type.getShape(), args[0], p)};
                       });
  SmallVector<Value> results{result};
  if (returnsState)
    results.push_back(
        advanceState(rewriter, loc, state, type.getNumElements()));
  rewriter.replaceOp(op, results);
  return success();
}

struct DropoutOpLowering : OpConversionPattern<DropoutOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DropoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerDropoutLike(op, adaptor.getInput(), adaptor.getState(),
                            /*returnsState=*/true, rewriter);
  }
};

struct DropoutGradOpLowering : OpConversionPattern<DropoutGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DropoutGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerDropoutLike(op, adaptor.getGradOutput(), adaptor.getState(),
                            /*returnsState=*/false, rewriter);
  }
};

/// A generic without inputs producing `resultType` from `element(b, loc,
/// state, linearIndex)`, and the advanced state.
template <typename OpTy, typename ElementFn>
LogicalResult lowerSampler(OpTy op, Value stateTensor,
                           ConversionPatternRewriter &rewriter,
                           ElementFn element) {
  Location loc = op.getLoc();
  auto type = cast<RankedTensorType>(op.getResult().getType());
  RngState state = readState(rewriter, loc, stateTensor);
  Value result =
      buildElementwise(
          rewriter, loc, ArrayRef<MappedOperand>{}, TypeRange{type},
          [&](OpBuilder &b, Location loc, ValueRange,
              ValueRange) -> SmallVector<Value> {
            return {element(b, loc, state,
                            buildLinearIndex(b, loc, type.getShape()))};
          })
          .front();
  rewriter.replaceOp(
      op, {result, advanceState(rewriter, loc, state, type.getNumElements())});
  return success();
}

struct RandomUniformOpLowering : OpConversionPattern<RandomUniformOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(RandomUniformOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // f32(low) + (f32(high) − f32(low)) · u, in f32.
    float low = static_cast<float>(op.getLow().convertToDouble());
    float high = static_cast<float>(op.getHigh().convertToDouble());
    return lowerSampler(
        op, adaptor.getState(), rewriter,
        [&](OpBuilder &b, Location loc, const RngState &state, Value index) {
          Value u =
              buildUnitFloat(b, loc, buildElementDraw(b, loc, state, index));
          Value lowValue = createF32Constant(b, loc, low);
          Value width = arith::SubFOp::create(
              b, loc, createF32Constant(b, loc, high), lowValue);
          return Value(arith::AddFOp::create(
              b, loc, lowValue, arith::MulFOp::create(b, loc, width, u)));
        });
  }
};

struct RandomNormalOpLowering : OpConversionPattern<RandomNormalOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(RandomNormalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Box-Muller on the pair j = i / 2: draws offset + 2j and offset + 2j + 1.
    float mean = static_cast<float>(op.getMean().convertToDouble());
    float stddev = static_cast<float>(op.getStd().convertToDouble());
    return lowerSampler(
        op, adaptor.getState(), rewriter,
        [&](OpBuilder &b, Location loc, const RngState &state, Value index) {
          Value one = i64Constant(b, loc, 1);
          Value parity = arith::AndIOp::create(b, loc, index, one);
          Value even = arith::XOrIOp::create(b, loc, index, parity);
          Value first = arith::AddIOp::create(b, loc, state.offset, even);
          Value second = arith::AddIOp::create(b, loc, first, one);
          Value u1 = buildUnitFloat(b, loc, buildDraw(b, loc, state, first),
                                    /*bias=*/1);
          Value u2 = buildUnitFloat(b, loc, buildDraw(b, loc, state, second));
          Value logU1 = math::LogOp::create(b, loc, u1);
          Value radius = math::SqrtOp::create(
              b, loc,
              arith::MulFOp::create(b, loc, createF32Constant(b, loc, -2.0),
                                    logU1));
          Value theta = arith::MulFOp::create(
              b, loc, createF32Constant(b, loc, 2.0 * M_PI), u2);
          Value isOdd = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                              parity, i64Constant(b, loc, 0));
          Value trig = arith::SelectOp::create(
              b, loc, isOdd, math::SinOp::create(b, loc, theta),
              math::CosOp::create(b, loc, theta));
          Value z = arith::MulFOp::create(b, loc, radius, trig);
          return Value(arith::AddFOp::create(
              b, loc, createF32Constant(b, loc, mean),
              arith::MulFOp::create(b, loc, createF32Constant(b, loc, stddev),
                                    z)));
        });
  }
};

struct RandomBitsOpLowering : OpConversionPattern<RandomBitsOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(RandomBitsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerSampler(op, adaptor.getState(), rewriter, buildElementDraw);
  }
};
} // namespace

void lowering::populateRandomPatterns(RewritePatternSet &patterns) {
  patterns
      .add<DropoutOpLowering, DropoutGradOpLowering, RandomUniformOpLowering,
           RandomNormalOpLowering, RandomBitsOpLowering>(patterns.getContext());
}
