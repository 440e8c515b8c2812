//===- FP8Conversions.cpp - Bit-exact FP8 extf/truncf ---------------------===//
//
// `mp-expand-fp8-conversions` and its patterns: rewrite arith.truncf to and
// arith.extf from f8E4M3FN and f8E5M2 (scalars, vectors or tensors) into
// integer arithmetic on i32 and i8, because LLVM has no FP8 type and the
// upstream lowerings leave these ops in the IR. Other source or target
// widths (f16, bf16) go through f32, which is exact; f64 sources and
// truncations with a rounding mode other than to-nearest-even are errors
// (LLVM could not lower them either).
//
// Truncation f32 → FP8 (m mantissa bits, exponent bias B): with a = |bits|,
//  - a normal result (a ≥ the smallest normal of the target) is a rounded to
//    nearest even at bit 23 − m — adding 2^(22−m) − 1 plus the lowest kept
//    bit before shifting, so a carry moves into the exponent — and rebiased
//    by (127 − B) << m;
//  - a subnormal result is the 24-bit significand shifted right by
//    (23 − m) + (emin − e), rounded the same way (a carry gives the smallest
//    normal, whose encoding follows the largest subnormal);
//  - a result beyond the largest finite encoding is the overflow value (NaN
//    for E4M3FN, infinity for E5M2), NaN inputs give NaN; the sign is kept.
// Extension FP8 → f32 rebiases the exponent and shifts the mantissa;
// subnormals are mantissa · 2^(emin − m), computed exactly with
// uitofp/mulf; E4M3FN's S.1111.111 and E5M2's exponent 31 give NaN and
// infinity.
//
//===----------------------------------------------------------------------===//

#include "mp/Conversion/MPToLinalg/MPToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mp/Conversion/Passes.h"
#include "llvm/ADT/APFloat.h"

namespace mlir::mp {
#define GEN_PASS_DEF_MPEXPANDFP8CONVERSIONS
#include "mp/Conversion/Passes.h.inc"
} // namespace mlir::mp

using namespace mlir;
using namespace mlir::mp;

namespace {
/// The encoding parameters of an FP8 format.
struct FP8Encoding {
  unsigned mantissaBits;
  unsigned exponentBits;
  int bias;
  /// Magnitude encodings: largest finite, what overflow gives, a quiet NaN.
  uint32_t maxFinite;
  uint32_t overflow;
  uint32_t nan;
};

std::optional<FP8Encoding> getEncoding(Type type) {
  if (isa<Float8E4M3FNType>(type))
    return FP8Encoding{3, 4, 7, 0x7E, 0x7F, 0x7F};
  if (isa<Float8E5M2Type>(type))
    return FP8Encoding{2, 5, 15, 0x7B, 0x7C, 0x7E};
  return std::nullopt;
}

/// Builds integer arithmetic on values shaped like `like` (scalar, vector or
/// tensor) with element type `elementType`.
class BitBuilder {
public:
  BitBuilder(OpBuilder &b, Location loc, Type like, Type elementType)
      : b(b), loc(loc), type(cloneShapeLike(like, elementType)) {}

  /// The shaped type with the element type swapped.
  static Type cloneShapeLike(Type like, Type elementType) {
    if (auto shaped = dyn_cast<ShapedType>(like))
      return shaped.clone(elementType);
    return elementType;
  }

  Type getType() const { return type; }
  /// A constant of the element width from its (unsigned) bit pattern.
  Value constant(uint64_t value) {
    unsigned width = getElementTypeOrSelf(type).getIntOrFloatBitWidth();
    return createScalarOrSplatConstant(b, loc, type, APInt(width, value));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value bitAnd(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value bitOr(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value shl(Value x, Value y) { return arith::ShLIOp::create(b, loc, x, y); }
  Value shr(Value x, Value y) { return arith::ShRUIOp::create(b, loc, x, y); }
  Value minu(Value x, Value y) { return arith::MinUIOp::create(b, loc, x, y); }
  Value cmp(arith::CmpIPredicate predicate, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, predicate, x, y);
  }
  Value select(Value condition, Value x, Value y) {
    return arith::SelectOp::create(b, loc, condition, x, y);
  }
  /// `value` + bias, shifted right by `shift`, rounding to nearest even.
  Value shiftRightNearestEven(Value value, Value shift) {
    Value one = constant(1);
    Value lowestKept = bitAnd(shr(value, shift), one);
    Value halfMinusOne = sub(shl(one, sub(shift, one)), one);
    return shr(add(value, add(halfMinusOne, lowestKept)), shift);
  }

private:
  OpBuilder &b;
  Location loc;
  Type type;
};

/// arith.truncf from f32 (or f16/bf16, extended first) to an FP8 type.
struct ExpandFP8TruncF : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    Type resultElement = getElementTypeOrSelf(op.getType());
    std::optional<FP8Encoding> encoding = getEncoding(resultElement);
    if (!encoding)
      return rewriter.notifyMatchFailure(op, "not an FP8 result");
    if (auto mode = op.getRoundingmode();
        mode && *mode != arith::RoundingMode::to_nearest_even)
      return rewriter.notifyMatchFailure(op, "not round to nearest even");
    Location loc = op.getLoc();
    Value input = op.getIn();
    Type sourceElement = getElementTypeOrSelf(input.getType());
    Type f32 = rewriter.getF32Type();
    if (sourceElement.getIntOrFloatBitWidth() > 32)
      return rewriter.notifyMatchFailure(op, "source wider than f32");
    if (!sourceElement.isF32())
      input = arith::ExtFOp::create(
          rewriter, loc, BitBuilder::cloneShapeLike(input.getType(), f32),
          input);

    const FP8Encoding &e = *encoding;
    int64_t m = e.mantissaBits;
    BitBuilder i32(rewriter, loc, input.getType(), rewriter.getI32Type());
    Value bits = arith::BitcastOp::create(rewriter, loc, i32.getType(), input);
    Value signByte =
        i32.shr(i32.bitAnd(bits, i32.constant(0x80000000u)), i32.constant(24));
    Value magnitude = i32.bitAnd(bits, i32.constant(0x7FFFFFFF));

    // Normal target: round at bit 23 − m, rebias the exponent.
    Value normal =
        i32.sub(i32.shiftRightNearestEven(magnitude, i32.constant(23 - m)),
                i32.constant(static_cast<int64_t>(127 - e.bias) << m));
    // Subnormal target: the significand with its implicit bit, shifted by
    // (23 − m) + (emin − e) = (23 − m + 128 − B) − biased exponent, at most
    // 25 (everything below rounds to zero; keeps the shift in range).
    Value exponent = i32.shr(magnitude, i32.constant(23));
    Value significand = i32.bitOr(i32.bitAnd(magnitude, i32.constant(0x7FFFFF)),
                                  i32.constant(0x800000));
    Value shift =
        i32.minu(i32.sub(i32.constant(23 - m + 128 - e.bias), exponent),
                 i32.constant(25));
    Value subnormal = i32.shiftRightNearestEven(significand, shift);
    Value isSubnormal =
        i32.cmp(arith::CmpIPredicate::ult, magnitude,
                i32.constant(static_cast<int64_t>(128 - e.bias) << 23));
    Value result = i32.select(isSubnormal, subnormal, normal);
    // Overflow and NaN.
    Value overflows =
        i32.cmp(arith::CmpIPredicate::ugt, result, i32.constant(e.maxFinite));
    result = i32.select(overflows, i32.constant(e.overflow), result);
    Value isNaN =
        i32.cmp(arith::CmpIPredicate::ugt, magnitude, i32.constant(0x7F800000));
    result = i32.select(isNaN, i32.constant(e.nan), result);
    result = i32.bitOr(result, signByte);

    Type i8 = BitBuilder::cloneShapeLike(input.getType(), rewriter.getI8Type());
    Value byte = arith::TruncIOp::create(rewriter, loc, i8, result);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, op.getType(), byte);
    return success();
  }
};

/// arith.extf from an FP8 type to f32 (then extf/truncf, exact, to other
/// float targets).
struct ExpandFP8ExtF : OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::ExtFOp op,
                                PatternRewriter &rewriter) const override {
    Value input = op.getIn();
    std::optional<FP8Encoding> encoding =
        getEncoding(getElementTypeOrSelf(input.getType()));
    if (!encoding)
      return rewriter.notifyMatchFailure(op, "not an FP8 source");
    const FP8Encoding &e = *encoding;
    Location loc = op.getLoc();
    int64_t m = e.mantissaBits;
    Type f32Type =
        BitBuilder::cloneShapeLike(input.getType(), rewriter.getF32Type());

    Type i8 = BitBuilder::cloneShapeLike(input.getType(), rewriter.getI8Type());
    BitBuilder i32(rewriter, loc, input.getType(), rewriter.getI32Type());
    Value byte = arith::BitcastOp::create(rewriter, loc, i8, input);
    Value bits = arith::ExtUIOp::create(rewriter, loc, i32.getType(), byte);
    Value sign =
        i32.shl(i32.bitAnd(bits, i32.constant(0x80)), i32.constant(24));
    Value exponent = i32.bitAnd(i32.shr(bits, i32.constant(m)),
                                i32.constant((1 << e.exponentBits) - 1));
    Value mantissa = i32.bitAnd(bits, i32.constant((1 << m) - 1));

    Value normal =
        i32.bitOr(i32.shl(i32.add(exponent, i32.constant(127 - e.bias)),
                          i32.constant(23)),
                  i32.shl(mantissa, i32.constant(23 - m)));
    // mantissa · 2^(1 − B − m): exact in f32, and normal there.
    Value scaled = arith::MulFOp::create(
        rewriter, loc,
        arith::UIToFPOp::create(rewriter, loc, f32Type, mantissa),
        createScalarOrSplatConstant(
            rewriter, loc, f32Type,
            APFloat(std::ldexp(1.0f, static_cast<int>(1 - e.bias - m)))));
    Value subnormal =
        arith::BitcastOp::create(rewriter, loc, i32.getType(), scaled);
    Value isSubnormal =
        i32.cmp(arith::CmpIPredicate::eq, exponent, i32.constant(0));
    Value magnitude = i32.select(isSubnormal, subnormal, normal);

    Value isSpecial;
    Value special;
    if (isa<Float8E4M3FNType>(getElementTypeOrSelf(input.getType()))) {
      // S.1111.111 is NaN; there is no infinity.
      isSpecial =
          i32.cmp(arith::CmpIPredicate::eq,
                  i32.bitAnd(bits, i32.constant(0x7F)), i32.constant(0x7F));
      special = i32.constant(0x7FC00000);
    } else {
      // Exponent 31: infinity with a zero mantissa, else NaN (payload kept).
      isSpecial = i32.cmp(arith::CmpIPredicate::eq, exponent,
                          i32.constant((1 << e.exponentBits) - 1));
      special = i32.bitOr(i32.constant(0x7F800000),
                          i32.shl(mantissa, i32.constant(23 - m)));
      Value isNaN =
          i32.cmp(arith::CmpIPredicate::ne, mantissa, i32.constant(0));
      special = i32.select(isNaN, i32.bitOr(special, i32.constant(0x400000)),
                           special);
    }
    magnitude = i32.select(isSpecial, special, magnitude);
    Value result = arith::BitcastOp::create(rewriter, loc, f32Type,
                                            i32.bitOr(magnitude, sign));

    Type resultElement = getElementTypeOrSelf(op.getType());
    if (resultElement.isF32()) {
      rewriter.replaceOp(op, result);
    } else if (resultElement.getIntOrFloatBitWidth() > 32) {
      rewriter.replaceOpWithNewOp<arith::ExtFOp>(op, op.getType(), result);
    } else {
      rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, op.getType(), result);
    }
    return success();
  }
};

struct MPExpandFP8ConversionsPass
    : mp::impl::MPExpandFP8ConversionsBase<MPExpandFP8ConversionsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateExpandFP8ConversionPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns)))) {
      getOperation()->emitError()
          << "mp-expand-fp8-conversions: the rewrite did not converge";
      return signalPassFailure();
    }
    // What is left cannot be lowered to LLVM (which has no FP8 type): an
    // error at each such conversion rather than IR that lowers "successfully"
    // with the FP8 op still in it.
    WalkResult result = getOperation()->walk([](Operation *op) {
      bool truncToFP8 = isa<arith::TruncFOp>(op) &&
                        getEncoding(getElementTypeOrSelf(op->getResult(0)));
      bool extFromFP8 = isa<arith::ExtFOp>(op) &&
                        getEncoding(getElementTypeOrSelf(op->getOperand(0)));
      if (!truncToFP8 && !extFromFP8)
        return WalkResult::advance();
      op->emitOpError() << "cannot be expanded into integer arithmetic: "
                        << (truncToFP8 ? "truncation to FP8 is supported from "
                                         "f32, f16 and bf16 with rounding to "
                                         "nearest even only"
                                       : "unsupported extension from FP8");
      return WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace

void mp::populateExpandFP8ConversionPatterns(RewritePatternSet &patterns) {
  patterns.add<ExpandFP8TruncF, ExpandFP8ExtF>(patterns.getContext());
}
