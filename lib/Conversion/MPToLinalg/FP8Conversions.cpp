//===- FP8Conversions.cpp - Bit-exact narrow float extf/truncf ------------===//
//
// `mp-expand-fp8-conversions` and its patterns: rewrite arith.truncf to and
// arith.extf from the narrow formats f8E4M3FN, f8E5M2, f6E2M3FN, f6E3M2FN,
// f4E2M1FN and f8E8M0FNU (scalars, vectors or tensors) into integer
// arithmetic on i32 and iN, because LLVM has no such types and the upstream
// lowerings leave these ops in the IR. Other source or target widths (f16,
// bf16) go through f32, which is exact; f64 sources and unsupported
// rounding modes are errors (LLVM could not lower them either). The
// stochastic rounding of mp.stochastic_cast (buildStochasticTruncation,
// Utils.h) is the same code with another rounding step.
//
// Truncation f32 → FP8/FP6/FP4 (m mantissa bits, exponent bias B): with
// a = |bits|,
//  - a normal result (a ≥ the smallest normal of the target) is a rounded at
//    bit 23 − m — to nearest even by adding 2^(22−m) − 1 plus the lowest
//    kept bit before shifting, so a carry moves into the exponent — and
//    rebiased by (127 − B) << m;
//  - a subnormal result is the 24-bit significand shifted right by
//    (23 − m) + (emin − e), rounded the same way (a carry gives the smallest
//    normal, whose encoding follows the largest subnormal);
//  - a result beyond the largest finite encoding is the overflow value (NaN
//    for E4M3FN, infinity for E5M2, the largest finite value for FP6/FP4,
//    which have neither), NaN inputs give NaN (FP6/FP4: +max); the sign is
//    kept.
// Stochastic rounding replaces "add half, shift" by "add the random bits
// below the kept bits, shift" (in i64: the discarded bits scaled to 32 bits
// plus the 32 random bits carry into the kept bits exactly when
// ⌊f·2^32⌋ + r ≥ 2^32) and always saturates.
// Truncation to E8M0 (rounding upward, the only mode a scale needs): the
// f32 exponent field, plus one when the mantissa is non-zero, except for
// magnitudes ≤ 2^-127 (code 0); above 2^127 NaN (no infinity), negative
// values 2^-127 (the smallest value above them), NaN 0xFF.
// Extension rebiases the exponent and shifts the mantissa; subnormals are
// mantissa · 2^(emin − m), computed exactly with uitofp/mulf; E4M3FN's
// S.1111.111 and E5M2's exponent 31 give NaN and infinity; E8M0 code c is
// 2^(c − 127) (c = 0: the f32 subnormal 2^-127), 0xFF NaN.
//
//===----------------------------------------------------------------------===//

#include "mp/Conversion/MPToLinalg/MPToLinalg.h"

#include "Utils.h"
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
/// The encoding parameters of an FP8, FP6 or FP4 format.
struct NarrowEncoding {
  unsigned width;
  unsigned mantissaBits;
  unsigned exponentBits;
  int bias;
  /// Magnitude encodings: largest finite, what overflow gives.
  uint32_t maxFinite;
  uint32_t overflow;
  /// A quiet NaN; none for FP6/FP4, which have no NaN (NaN becomes +max).
  std::optional<uint32_t> nan;
};

std::optional<NarrowEncoding> getEncoding(Type type) {
  if (isa<Float8E4M3FNType>(type))
    return NarrowEncoding{8, 3, 4, 7, 0x7E, 0x7F, 0x7F};
  if (isa<Float8E5M2Type>(type))
    return NarrowEncoding{8, 2, 5, 15, 0x7B, 0x7C, 0x7E};
  if (isa<Float6E2M3FNType>(type))
    return NarrowEncoding{6, 3, 2, 1, 0x1F, 0x1F, std::nullopt};
  if (isa<Float6E3M2FNType>(type))
    return NarrowEncoding{6, 2, 3, 3, 0x1F, 0x1F, std::nullopt};
  if (isa<Float4E2M1FNType>(type))
    return NarrowEncoding{4, 1, 2, 1, 0x7, 0x7, std::nullopt};
  return std::nullopt;
}

/// True for the types this file converts.
bool isNarrow(Type type) {
  return getEncoding(type) || isa<Float8E8M0FNUType>(type);
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
  /// `value` zero-extended or truncated to this builder's element width.
  Value resize(Value value) {
    unsigned from = getElementTypeOrSelf(value.getType()).getIntOrFloatBitWidth();
    unsigned to = getElementTypeOrSelf(type).getIntOrFloatBitWidth();
    if (from == to)
      return value;
    if (from < to)
      return arith::ExtUIOp::create(b, loc, type, value);
    return arith::TruncIOp::create(b, loc, type, value);
  }
  /// `value` + bias, shifted right by `shift`, rounding to nearest even.
  Value shiftRightNearestEven(Value value, Value shift) {
    Value one = constant(1);
    Value lowestKept = bitAnd(shr(value, shift), one);
    Value halfMinusOne = sub(shl(one, sub(shift, one)), one);
    return shr(add(value, add(halfMinusOne, lowestKept)), shift);
  }
  /// `value` (< 2^31) shifted right by `shift` (< 64), rounded away from
  /// zero when the discarded bits, as a 32-bit fraction ⌊f·2^32⌋, plus
  /// `random` (< 2^32) reach 2^32. On i64.
  Value shiftRightStochastic(Value value, Value shift, Value random) {
    Value c32 = constant(32);
    Value kept = shr(value, shift);
    Value fraction = bitAnd(shr(shl(value, c32), shift), constant(0xFFFFFFFF));
    return add(kept, shr(add(fraction, random), c32));
  }

private:
  OpBuilder &b;
  Location loc;
  Type type;
};

/// The code (in the builder's width) of the f32 value with bit pattern
/// `bits` in the format `e`: rounded to nearest even, or stochastically with
/// `random` (then on i64, saturating).
Value buildTruncationBits(BitBuilder &ib, Value bits, const NarrowEncoding &e,
                          Value random) {
  int64_t m = e.mantissaBits;
  auto round = [&](Value value, Value shift) {
    return random ? ib.shiftRightStochastic(value, shift, random)
                  : ib.shiftRightNearestEven(value, shift);
  };
  Value signBits = ib.shr(ib.bitAnd(bits, ib.constant(0x80000000u)),
                          ib.constant(32 - e.width));
  Value magnitude = ib.bitAnd(bits, ib.constant(0x7FFFFFFF));

  // Normal target: round at bit 23 − m, rebias the exponent.
  Value normal = ib.sub(round(magnitude, ib.constant(23 - m)),
                        ib.constant(static_cast<int64_t>(127 - e.bias) << m));
  // Subnormal target: the significand with its implicit bit, shifted by
  // (23 − m) + (emin − e) = (23 − m + 128 − B) − biased exponent, at most
  // 25 (everything below rounds to zero to nearest; keeps the shift in
  // range) or 63 for stochastic rounding (whose fraction needs every bit).
  Value exponent = ib.shr(magnitude, ib.constant(23));
  Value significand = ib.bitOr(ib.bitAnd(magnitude, ib.constant(0x7FFFFF)),
                               ib.constant(0x800000));
  Value shift =
      ib.minu(ib.sub(ib.constant(23 - m + 128 - e.bias), exponent),
              ib.constant(random ? 63 : 25));
  Value subnormal = round(significand, shift);
  Value isSubnormal =
      ib.cmp(arith::CmpIPredicate::ult, magnitude,
             ib.constant(static_cast<int64_t>(128 - e.bias) << 23));
  Value result = ib.select(isSubnormal, subnormal, normal);
  // Overflow and NaN.
  Value overflows =
      ib.cmp(arith::CmpIPredicate::ugt, result, ib.constant(e.maxFinite));
  result = ib.select(overflows, ib.constant(random ? e.maxFinite : e.overflow),
                     result);
  Value isNaN =
      ib.cmp(arith::CmpIPredicate::ugt, magnitude, ib.constant(0x7F800000));
  if (e.nan) {
    result = ib.select(isNaN, ib.constant(*e.nan), result);
    return ib.bitOr(result, signBits);
  }
  result = ib.bitOr(result, signBits);
  return ib.select(isNaN, ib.constant(e.maxFinite), result);
}

/// The E8M0 code of the f32 value with bit pattern `bits` (i32), rounded
/// upward.
Value buildE8M0TruncationBits(BitBuilder &i32, Value bits) {
  Value magnitude = i32.bitAnd(bits, i32.constant(0x7FFFFFFF));
  Value exponent = i32.shr(magnitude, i32.constant(23));
  Value exact = i32.cmp(arith::CmpIPredicate::eq,
                        i32.bitAnd(magnitude, i32.constant(0x7FFFFF)),
                        i32.constant(0));
  Value code =
      i32.select(exact, exponent, i32.add(exponent, i32.constant(1)));
  // Magnitudes up to 2^-127 (the f32 subnormal 0x00400000) round up to it.
  Value tiny = i32.cmp(arith::CmpIPredicate::ule, magnitude,
                       i32.constant(0x00400000));
  code = i32.select(tiny, i32.constant(0), code);
  // Beyond 2^127: no infinity, NaN.
  code = i32.select(i32.cmp(arith::CmpIPredicate::ugt, code, i32.constant(254)),
                    i32.constant(0xFF), code);
  // Every value of the format lies above a negative input.
  Value negative = i32.cmp(arith::CmpIPredicate::ne,
                           i32.bitAnd(bits, i32.constant(0x80000000u)),
                           i32.constant(0));
  code = i32.select(negative, i32.constant(0), code);
  Value isNaN = i32.cmp(arith::CmpIPredicate::ugt, magnitude,
                        i32.constant(0x7F800000));
  return i32.select(isNaN, i32.constant(0xFF), code);
}

/// The integer type of the width of `type`, shaped like `like`.
Type bitsTypeLike(OpBuilder &b, Type like, Type type) {
  return BitBuilder::cloneShapeLike(
      like, b.getIntegerType(type.getIntOrFloatBitWidth()));
}

/// arith.truncf from f32 (or f16/bf16, extended first) to a narrow type.
struct ExpandNarrowTruncF : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    Type resultElement = getElementTypeOrSelf(op.getType());
    std::optional<NarrowEncoding> encoding = getEncoding(resultElement);
    bool e8m0 = isa<Float8E8M0FNUType>(resultElement);
    if (!encoding && !e8m0)
      return rewriter.notifyMatchFailure(op, "not a narrow float result");
    arith::RoundingMode expected = e8m0 ? arith::RoundingMode::upward
                                        : arith::RoundingMode::to_nearest_even;
    std::optional<arith::RoundingMode> mode = op.getRoundingmode();
    if (mode.value_or(arith::RoundingMode::to_nearest_even) != expected)
      return rewriter.notifyMatchFailure(op, "unsupported rounding mode");
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

    BitBuilder i32(rewriter, loc, input.getType(), rewriter.getI32Type());
    Value bits = arith::BitcastOp::create(rewriter, loc, i32.getType(), input);
    Value result = e8m0 ? buildE8M0TruncationBits(i32, bits)
                        : buildTruncationBits(i32, bits, *encoding, {});
    Value code = arith::TruncIOp::create(
        rewriter, loc, bitsTypeLike(rewriter, input.getType(), resultElement),
        result);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, op.getType(), code);
    return success();
  }
};

/// arith.extf from a narrow type to f32 (then extf/truncf, exact or rounded
/// once, to other float targets).
struct ExpandNarrowExtF : OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::ExtFOp op,
                                PatternRewriter &rewriter) const override {
    Value input = op.getIn();
    Type sourceElement = getElementTypeOrSelf(input.getType());
    if (!isNarrow(sourceElement))
      return rewriter.notifyMatchFailure(op, "not a narrow float source");
    Location loc = op.getLoc();
    Type f32Type =
        BitBuilder::cloneShapeLike(input.getType(), rewriter.getF32Type());
    BitBuilder i32(rewriter, loc, input.getType(), rewriter.getI32Type());
    Value code = arith::BitcastOp::create(
        rewriter, loc, bitsTypeLike(rewriter, input.getType(), sourceElement),
        input);
    Value bits = arith::ExtUIOp::create(rewriter, loc, i32.getType(), code);

    Value magnitude;
    if (isa<Float8E8M0FNUType>(sourceElement)) {
      // 2^(c − 127): the exponent field; c = 0 is the f32 subnormal 2^-127.
      magnitude = i32.shl(bits, i32.constant(23));
      magnitude = i32.select(
          i32.cmp(arith::CmpIPredicate::eq, bits, i32.constant(0)),
          i32.constant(0x00400000), magnitude);
      magnitude = i32.select(
          i32.cmp(arith::CmpIPredicate::eq, bits, i32.constant(0xFF)),
          i32.constant(0x7FC00000), magnitude);
    } else {
      magnitude = buildExtension(rewriter, loc, i32, bits, f32Type,
                                 sourceElement);
    }
    Value result = arith::BitcastOp::create(rewriter, loc, f32Type, magnitude);

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

  /// The f32 bits (sign included) of the FP8/FP6/FP4 code `bits` (i32).
  static Value buildExtension(PatternRewriter &rewriter, Location loc,
                              BitBuilder &i32, Value bits, Type f32Type,
                              Type sourceElement) {
    const NarrowEncoding e = *getEncoding(sourceElement);
    int64_t m = e.mantissaBits;
    uint32_t signBit = 1u << (e.width - 1);
    Value sign = i32.shl(i32.bitAnd(bits, i32.constant(signBit)),
                         i32.constant(32 - e.width));
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

    if (isa<Float8E4M3FNType>(sourceElement)) {
      // S.1111.111 is NaN; there is no infinity.
      Value isSpecial =
          i32.cmp(arith::CmpIPredicate::eq,
                  i32.bitAnd(bits, i32.constant(0x7F)), i32.constant(0x7F));
      magnitude =
          i32.select(isSpecial, i32.constant(0x7FC00000), magnitude);
    } else if (isa<Float8E5M2Type>(sourceElement)) {
      // Exponent 31: infinity with a zero mantissa, else NaN (payload kept).
      Value isSpecial = i32.cmp(arith::CmpIPredicate::eq, exponent,
                                i32.constant((1 << e.exponentBits) - 1));
      Value special = i32.bitOr(i32.constant(0x7F800000),
                                i32.shl(mantissa, i32.constant(23 - m)));
      Value isNaN =
          i32.cmp(arith::CmpIPredicate::ne, mantissa, i32.constant(0));
      special = i32.select(
          isNaN, i32.bitOr(special, i32.constant(0x400000)), special);
      magnitude = i32.select(isSpecial, special, magnitude);
    }
    // FP6 and FP4 have only finite values.
    return i32.bitOr(magnitude, sign);
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
    // What is left cannot be lowered to LLVM (which has no such types): an
    // error at each such conversion rather than IR that lowers
    // "successfully" with the narrow op still in it.
    WalkResult result = getOperation()->walk([](Operation *op) {
      bool trunc = isa<arith::TruncFOp>(op) &&
                   isNarrow(getElementTypeOrSelf(op->getResult(0)));
      bool ext = isa<arith::ExtFOp>(op) &&
                 isNarrow(getElementTypeOrSelf(op->getOperand(0)));
      if (!trunc && !ext)
        return WalkResult::advance();
      InFlightDiagnostic diag = op->emitOpError()
                                << "cannot be expanded into integer "
                                   "arithmetic: ";
      if (!trunc)
        diag << "unsupported extension from a narrow float";
      else if (isa<Float8E8M0FNUType>(
                   getElementTypeOrSelf(op->getResult(0))))
        diag << "truncation to f8E8M0FNU is supported from f32, f16 and bf16 "
                "with rounding upward only";
      else
        diag << "truncation to FP8, FP6 and FP4 is supported from f32, f16 "
                "and bf16 with rounding to nearest even only";
      return WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace

void mp::populateExpandFP8ConversionPatterns(RewritePatternSet &patterns) {
  patterns.add<ExpandNarrowTruncF, ExpandNarrowExtF>(patterns.getContext());
}

Value lowering::buildStochasticTruncation(OpBuilder &b, Location loc,
                                          Value value, Value randomBits,
                                          Type target) {
  const NarrowEncoding e = *getEncoding(target);
  Type like = value.getType();
  if (!getElementTypeOrSelf(like).isF32())
    value = arith::ExtFOp::create(
        b, loc, BitBuilder::cloneShapeLike(like, b.getF32Type()), value);
  BitBuilder i64(b, loc, like, b.getI64Type());
  Value bits = i64.resize(arith::BitcastOp::create(
      b, loc, BitBuilder::cloneShapeLike(like, b.getI32Type()), value));
  Value code = buildTruncationBits(i64, bits, e, i64.resize(randomBits));
  Value narrow =
      arith::TruncIOp::create(b, loc, bitsTypeLike(b, like, target), code);
  return arith::BitcastOp::create(b, loc, BitBuilder::cloneShapeLike(like, target),
                                  narrow);
}
