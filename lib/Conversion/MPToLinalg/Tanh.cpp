//===- Tanh.cpp - f32 tanh and exp as arithmetic --------------------------===//
//
// `mp-expand-tanh` and its patterns: rewrite f32 `math.tanh` (scalar or
// vector) into IEEE arithmetic that every lowering evaluates the same way,
// so that a tanh (GELU's tanh approximation, mp.tanh) is vector code on the
// CPU instead of one libm tanhf call per element, gives the same bits in
// vectorised and scalar loops, and the same bits in the GPU kernels
// (mp-gpu-pipeline's device-resident kernels and fused GELU epilogues).
// It uses only operations that are correctly rounded on every target:
// addf, mulf, divf, math.fma (one rounding), compares, selects, integer
// bit operations and fptosi of small integers; no fast-math flags.
//
// With a = |x| (the sign bit masked off) and tanh(x) = sign(x)·tanh(a):
//  - a < 0.875 (or NaN): a + a³·P(a²), P a degree-6 polynomial fitted to
//    (tanh(a) − a)/a³ on [0, 0.875²] for least relative error, in Horner
//    form with fma;
//  - otherwise 1 − 2/(e^(2a) + 1), with a clamped to 9.5 (tanh rounds to 1
//    in f32 from 9.01 on; infinity gives 1 too). e^y for y = 2a ∈ [1.75, 19]
//    is 2^k·e^r: k = y·log2(e) rounded to an integer by adding and
//    subtracting 1.5·2^23, r = y − k·ln 2 in two fma steps (ln 2 split into
//    a 16-bit head and a tail), e^r by its Taylor polynomial of degree 7 on
//    |r| ≤ ln(2)/2, and 2^k built in the exponent field.
// The sign bit of x is or-ed back in, so tanh(−0) = −0 and NaN stays NaN.
// Over every f32: at most 1.03 ulp from the exact tanh, correctly rounded
// for 99.9% of the inputs (glibc's tanhf: 2.19 ulp; docs/Lowering.md has the
// comparison with glibc and PyTorch; test/python/tanh.py checks a sample).
//
// With `exp=true` (mp-cpu-pipeline), f32 `math.exp` without fast-math
// flags is rewritten too, into the same exponential evaluated in f64: x
// widened (exactly) and clamped to [-150, 100] (e^-150 rounds to 0 in f32,
// e^100 to infinity), 2^k·e^r with ln 2 as the nearest double and its rest,
// a Taylor polynomial of degree 11 and 2^k in the exponent field of an i64,
// rounded once to f32 (arith.truncf, which also rounds overflow and gradual
// underflow); NaN gives x + x. Over every f32 it is correctly rounded but
// for 2 inputs, within 0.500001 ulp (glibc's expf misrounds 170,648;
// docs/Lowering.md, tools/bench/exp_accuracy.c). The GPU lowerings leave
// exp to libdevice.
//
// It assumes f32 operands: run math-extend-to-supported-types first so that
// f16/bf16 tanh and exp are computed in f32; f64 ones are left to libm.
//
//===----------------------------------------------------------------------===//

#include "mp/Conversion/MPToLinalg/MPToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mp/Conversion/Passes.h"

namespace mlir::mp {
#define GEN_PASS_DEF_MPEXPANDTANH
#include "mp/Conversion/Passes.h.inc"
} // namespace mlir::mp

using namespace mlir;
using namespace mlir::mp;

namespace {

/// Below this magnitude the odd polynomial is used, above it the exponential.
constexpr float kPolynomialLimit = 0.875f;
/// Magnitudes are clamped here before the exponential: tanh is 1 in f32.
constexpr float kSaturation = 9.5f;
/// P(s) with tanh(a) ≈ a + a³·P(a²) on a ∈ [0, 0.875], lowest degree first.
constexpr double kOddCoefficients[] = {
    -0x1.55555p-2f,  0x1.110fcap-3f, -0x1.b9df2p-5f,  0x1.639eacp-6f,
    -0x1.11a68ep-7f, 0x1.5e03c4p-9f, -0x1.00e856p-11f};
/// ln 2 as a head with 16 significant bits (k·head is exact for |k| < 2^8)
/// and the f32 nearest to the rest.
constexpr float kLn2Head = 0x1.62e4p-1f;
constexpr float kLn2Tail = 0x1.7f7d1cp-20f;
constexpr float kLog2E = 0x1.715476p+0f;
/// Adding and subtracting 1.5·2^23 rounds an f32 of magnitude < 2^22 to the
/// nearest integer, ties to even.
constexpr float kRoundingShift = 0x1.8p+23f;
/// The same constants in f64: ln 2 as the nearest double and the double
/// nearest to the rest (fma computes k·head − y with one rounding), log2(e),
/// 1.5·2^52.
constexpr double kLn2Head64 = 0x1.62e42fefa39efp-1;
constexpr double kLn2Tail64 = 0x1.abc9e3b39803fp-56;
constexpr double kLog2E64 = 0x1.71547652b82fep+0;
constexpr double kRoundingShift64 = 0x1.8p+52;
/// The degrees of the Taylor polynomials of e^r, |r| ≤ ln(2)/2: f32's for
/// tanh (its exponential only feeds 1 − 2/(e + 1)), f64's for math.exp
/// (relative error below 2^-47 before the rounding to f32).
constexpr unsigned kExpDegree32 = 7;
constexpr unsigned kExpDegree64 = 11;
/// math.exp's operand is clamped to [kExpLow, kExpHigh] before the f64
/// exponential: e^kExpLow rounds to 0 in f32, e^kExpHigh to infinity.
constexpr double kExpLow = -150.0;
constexpr double kExpHigh = 100.0;

/// Builds f32 and i32 (or f64 and i64) arithmetic on values shaped like a
/// scalar or vector type of f32 (or f64).
class TanhBuilder {
public:
  TanhBuilder(OpBuilder &b, Location loc, Type floatType)
      : b(b), loc(loc), floatType(floatType),
        width(getElementTypeOrSelf(floatType).getIntOrFloatBitWidth()),
        intType(isa<VectorType>(floatType)
                    ? Type(cast<VectorType>(floatType).clone(
                          b.getIntegerType(width)))
                    : Type(b.getIntegerType(width))) {}

  /// `value` in the element type (f32 constants are written as floats, so
  /// they are exact).
  Value f(double value) {
    APFloat constant(value);
    if (width == 32)
      constant = APFloat(static_cast<float>(value));
    return createScalarOrSplatConstant(b, loc, floatType, constant);
  }
  Value i(uint64_t value) {
    return createScalarOrSplatConstant(b, loc, intType, APInt(width, value));
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value fma(Value x, Value y, Value z) {
    return math::FmaOp::create(b, loc, x, y, z);
  }
  Value less(arith::CmpFPredicate predicate, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, predicate, x, y);
  }
  Value select(Value condition, Value x, Value y) {
    return arith::SelectOp::create(b, loc, condition, x, y);
  }
  Value toBits(Value x) { return arith::BitcastOp::create(b, loc, intType, x); }
  Value fromBits(Value x) {
    return arith::BitcastOp::create(b, loc, floatType, x);
  }
  Value bitAnd(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value bitOr(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }

  /// Σ coefficients[i]·x^i in Horner form with fma.
  Value horner(Value x, ArrayRef<double> coefficients) {
    Value sum = f(coefficients.back());
    for (double c : llvm::reverse(coefficients.drop_back()))
      sum = fma(x, sum, f(c));
    return sum;
  }

  /// e^y for y ∈ [0, 2^8·ln 2) in f32, y ∈ (−2^9·ln 2, 2^9·ln 2) in f64:
  /// 2^k·e^r, k = y·log2(e) rounded to an integer, r = y − k·ln 2 (|r| ≤
  /// ln(2)/2) in two fma steps, e^r by its Taylor polynomial (of degree
  /// kExpDegree32 or kExpDegree64; coefficients 1/i! rounded to the type),
  /// 2^k written into the exponent field.
  Value exp(Value y) {
    bool wide = width == 64;
    Value shift = f(wide ? kRoundingShift64 : kRoundingShift);
    Value k = sub(add(mul(y, f(wide ? kLog2E64 : kLog2E)), shift), shift);
    Value r = fma(k, f(-(wide ? kLn2Head64 : kLn2Head)), y);
    r = fma(k, f(-(wide ? kLn2Tail64 : kLn2Tail)), r);
    SmallVector<double> taylor{1.0};
    double factorial = 1.0;
    for (unsigned i = 1, e = wide ? kExpDegree64 : kExpDegree32; i <= e; ++i) {
      factorial *= i;
      taylor.push_back(
          wide ? 1.0 / factorial
               : static_cast<double>(1.0f / static_cast<float>(factorial)));
    }
    Value polynomial = horner(r, taylor);
    Value exponent = arith::AddIOp::create(
        b, loc, arith::FPToSIOp::create(b, loc, intType, k),
        i(wide ? 1023 : 127));
    Value power = fromBits(
        arith::ShLIOp::create(b, loc, exponent, i(wide ? 52 : 23)).getResult());
    return mul(polynomial, power);
  }

private:
  OpBuilder &b;
  Location loc;
  Type floatType;
  unsigned width;
  Type intType;
};

/// Succeeds when the result of `op` is an f32 scalar or vector.
static LogicalResult matchF32(Operation *op, PatternRewriter &rewriter) {
  Type type = op->getResult(0).getType();
  if (!isa<FloatType>(type) && !isa<VectorType>(type))
    return rewriter.notifyMatchFailure(op, "not a scalar or vector");
  if (!getElementTypeOrSelf(type).isF32())
    return rewriter.notifyMatchFailure(op, "not f32");
  return success();
}

struct ExpandTanh : OpRewritePattern<math::TanhOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::TanhOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (failed(matchF32(op, rewriter)))
      return failure();
    TanhBuilder t(rewriter, op.getLoc(), type);
    Value bits = t.toBits(op.getOperand());
    Value sign = t.bitAnd(bits, t.i(0x80000000u));
    Value a = t.fromBits(t.bitAnd(bits, t.i(0x7FFFFFFFu)));

    // a + a³·P(a²).
    Value square = t.mul(a, a);
    Value cube = t.mul(square, a);
    Value odd = t.fma(cube, t.horner(square, kOddCoefficients), a);

    // 1 − 2/(e^(2a) + 1), a ≤ 9.5 (NaN takes the polynomial).
    Value clamped = t.select(
        t.less(arith::CmpFPredicate::OLT, a, t.f(kSaturation)), a,
        t.f(kSaturation));
    Value e = t.exp(t.add(clamped, clamped));
    Value denominator = t.add(e, t.f(1.0f));
    Value saturating = t.sub(t.f(1.0f), t.div(t.f(2.0f), denominator));

    Value magnitude =
        t.select(t.less(arith::CmpFPredicate::ULT, a, t.f(kPolynomialLimit)),
                 odd, saturating);
    rewriter.replaceOp(op, t.fromBits(t.bitOr(t.toBits(magnitude), sign)));
    return success();
  }
};

/// f32 math.exp as the f64 exponential of TanhBuilder::exp, rounded once to
/// f32 (see the file comment).
struct ExpandExp : OpRewritePattern<math::ExpOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::ExpOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (failed(matchF32(op, rewriter)))
      return failure();
    if (op.getFastmath() != arith::FastMathFlags::none)
      return rewriter.notifyMatchFailure(op, "fast-math flags");
    Location loc = op.getLoc();
    Type wideType =
        isa<VectorType>(type)
            ? Type(cast<VectorType>(type).clone(rewriter.getF64Type()))
            : Type(rewriter.getF64Type());
    TanhBuilder d(rewriter, loc, wideType);
    Value x = op.getOperand();
    Value wide = arith::ExtFOp::create(rewriter, loc, wideType, x);
    // x clamped to [kExpLow, kExpHigh] (NaN to kExpLow).
    Value low = d.f(kExpLow), high = d.f(kExpHigh);
    Value clamped =
        d.select(d.less(arith::CmpFPredicate::OGT, wide, low), wide, low);
    clamped = d.select(d.less(arith::CmpFPredicate::OLT, clamped, high),
                       clamped, high);
    Value rounded =
        arith::TruncFOp::create(rewriter, loc, type, d.exp(clamped));
    // NaN: x + x (quiet, its payload kept), as libm returns it.
    TanhBuilder t(rewriter, loc, type);
    Value isNaN = t.less(arith::CmpFPredicate::UNO, x, x);
    rewriter.replaceOp(op, t.select(isNaN, t.add(x, x), rounded));
    return success();
  }
};

struct MPExpandTanhPass : mp::impl::MPExpandTanhBase<MPExpandTanhPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateExpandTanhPatterns(patterns);
    if (exp)
      populateExpandExpPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns)))) {
      getOperation()->emitError()
          << "mp-expand-tanh: the rewrite did not converge";
      return signalPassFailure();
    }
  }
};

} // namespace

void mp::populateExpandTanhPatterns(RewritePatternSet &patterns) {
  patterns.add<ExpandTanh>(patterns.getContext());
}

void mp::populateExpandExpPatterns(RewritePatternSet &patterns) {
  patterns.add<ExpandExp>(patterns.getContext());
}
