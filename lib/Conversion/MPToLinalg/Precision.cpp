//===- Precision.cpp - mp.cast and mp.scale to linalg.generic -------------===//
//
// mp.cast becomes an elementwise arith.extf/arith.truncf (round to nearest
// even; through f32 between formats of one width and for every FP8, FP6,
// FP4 and E8M0 conversion, the first step being exact). A saturating cast
// clamps the f32 value to ± the largest finite value of the target first
// (NaN propagates through the clamp, infinities become the largest value),
// so the truncation that follows never overflows; a cast to E8M0 takes the
// magnitude first and truncates rounding upward (the scale rule of
// mp.cast). mp-expand-fp8-conversions later expands the narrow
// truncations into integer arithmetic. mp.scale multiplies in f32 and
// rounds once to the input's type.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"
#include "Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mp/Dialect/MP/IR/MPOps.h"
#include "llvm/ADT/APFloat.h"

using namespace mlir;
using namespace mlir::mp;
using namespace mlir::mp::lowering;

Value lowering::buildSaturatingTruncation(OpBuilder &b, Location loc, Value x,
                                          Type target) {
  auto targetType = cast<FloatType>(target);
  bool scale = isa<Float8E8M0FNUType>(target);
  if (scale)
    x = math::AbsFOp::create(b, loc, x);
  double max =
      APFloat::getLargest(targetType.getFloatSemantics()).convertToDouble();
  Value hi = createF32Constant(b, loc, max);
  Value lo = createF32Constant(b, loc, -max);
  x = arith::MinimumFOp::create(b, loc, arith::MaximumFOp::create(b, loc, x, lo),
                                hi);
  if (!scale)
    return convertFloat(b, loc, x, target);
  return arith::TruncFOp::create(
      b, loc, target, x,
      arith::RoundingModeAttr::get(b.getContext(),
                                   arith::RoundingMode::upward),
      arith::FastMathFlagsAttr{});
}

namespace {
struct CastOpLowering : OpConversionPattern<CastOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(CastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = op.getResult().getType();
    auto target = cast<FloatType>(resultType.getElementType());
    bool saturate = op.getSaturate();
    Value result = buildElementwise(
        rewriter, op.getLoc(), adaptor.getInput(), resultType,
        [&](OpBuilder &b, Location loc, ValueRange args,
            ValueRange) -> SmallVector<Value> {
          if (saturate)
            return {buildSaturatingTruncation(b, loc, args[0], target)};
          return {args[0]};
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ScaleOpLowering : OpConversionPattern<ScaleOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ScaleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value result = buildElementwise(
        rewriter, op.getLoc(), {adaptor.getInput(), adaptor.getFactor()},
        op.getResult().getType(),
        [](OpBuilder &b, Location loc, ValueRange args,
           ValueRange) -> SmallVector<Value> {
          return {arith::MulFOp::create(b, loc, args[0], args[1])};
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void lowering::populatePrecisionPatterns(RewritePatternSet &patterns) {
  patterns.add<CastOpLowering, ScaleOpLowering>(patterns.getContext());
}
