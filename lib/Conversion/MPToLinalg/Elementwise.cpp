//===- Elementwise.cpp - Elementwise mp ops to linalg.generic -------------===//
//
// Lowers the unary and binary elementwise ops (with NumPy broadcasting), gelu,
// select, compare, the activations of MPActivationOps.td (clamp, silu,
// hardswish, hardsigmoid, erf, abs, leaky_relu) and the elementwise gradients
// (relu_grad, gelu_grad, clamp_grad, silu_grad, ...) to one parallel
// linalg.generic each. Operands of a narrower float type are extended to f32
// in the payload, the scalar function is computed in f32 and the result is
// rounded once to the storage type: for + − × ÷ and sqrt this equals native
// arithmetic in that type (f32 has more than twice the precision of f16, bf16
// and FP8 plus two bits), and transcendental functions are the f32 function
// rounded once.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"
#include "Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mp/Dialect/MP/IR/MPOps.h"

#include <cmath>

using namespace mlir;
using namespace mlir::mp;
using namespace mlir::mp::lowering;

namespace {
/// √(2/π), the factor of the tanh approximation of GELU.
constexpr double kSqrt2OverPi = M_SQRT2 * M_2_SQRTPI * 0.5;
/// The cubic coefficient of the tanh approximation of GELU.
constexpr double kGeluKappa = 0.044715;

/// The f32 payload of each elementwise op: `args` are its operands in f32.
Value computeScalar(AddOp, OpBuilder &b, Location loc, ValueRange args) {
  return arith::AddFOp::create(b, loc, args[0], args[1]);
}
Value computeScalar(SubOp, OpBuilder &b, Location loc, ValueRange args) {
  return arith::SubFOp::create(b, loc, args[0], args[1]);
}
Value computeScalar(MulOp, OpBuilder &b, Location loc, ValueRange args) {
  return arith::MulFOp::create(b, loc, args[0], args[1]);
}
Value computeScalar(DivOp, OpBuilder &b, Location loc, ValueRange args) {
  return arith::DivFOp::create(b, loc, args[0], args[1]);
}
Value computeScalar(PowOp, OpBuilder &b, Location loc, ValueRange args) {
  return math::PowFOp::create(b, loc, args[0], args[1]);
}
Value computeScalar(MaximumOp, OpBuilder &b, Location loc, ValueRange args) {
  return arith::MaximumFOp::create(b, loc, args[0], args[1]);
}
Value computeScalar(MinimumOp, OpBuilder &b, Location loc, ValueRange args) {
  return arith::MinimumFOp::create(b, loc, args[0], args[1]);
}
Value computeScalar(NegOp, OpBuilder &b, Location loc, ValueRange args) {
  return arith::NegFOp::create(b, loc, args[0]);
}
Value computeScalar(ReluOp, OpBuilder &b, Location loc, ValueRange args) {
  // maximumf propagates NaN, as torch.relu does.
  return arith::MaximumFOp::create(b, loc, args[0],
                                   createF32Constant(b, loc, 0.0));
}
Value computeScalar(TanhOp, OpBuilder &b, Location loc, ValueRange args) {
  return math::TanhOp::create(b, loc, args[0]);
}
Value computeScalar(SigmoidOp, OpBuilder &b, Location loc, ValueRange args) {
  Value negated = arith::NegFOp::create(b, loc, args[0]);
  Value e = math::ExpOp::create(b, loc, negated);
  Value one = createF32Constant(b, loc, 1.0);
  Value denominator = arith::AddFOp::create(b, loc, one, e);
  return arith::DivFOp::create(b, loc, one, denominator);
}
Value computeScalar(ExpOp, OpBuilder &b, Location loc, ValueRange args) {
  return math::ExpOp::create(b, loc, args[0]);
}
Value computeScalar(LogOp, OpBuilder &b, Location loc, ValueRange args) {
  return math::LogOp::create(b, loc, args[0]);
}
Value computeScalar(SqrtOp, OpBuilder &b, Location loc, ValueRange args) {
  return math::SqrtOp::create(b, loc, args[0]);
}
Value computeScalar(RsqrtOp, OpBuilder &b, Location loc, ValueRange args) {
  return math::RsqrtOp::create(b, loc, args[0]);
}

Value computeScalar(GeluOp op, OpBuilder &b, Location loc, ValueRange args) {
  Value x = args[0];
  Value half = createF32Constant(b, loc, 0.5);
  Value one = createF32Constant(b, loc, 1.0);
  if (op.getApproximate() == GeluApproximation::tanh) {
    // 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), PyTorch's order.
    Value cube =
        arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, x, x), x);
    Value inner = arith::AddFOp::create(
        b, loc, x,
        arith::MulFOp::create(b, loc, createF32Constant(b, loc, kGeluKappa),
                              cube));
    Value t = math::TanhOp::create(
        b, loc,
        arith::MulFOp::create(b, loc, createF32Constant(b, loc, kSqrt2OverPi),
                              inner));
    Value halfX = arith::MulFOp::create(b, loc, half, x);
    return arith::MulFOp::create(b, loc, halfX,
                                 arith::AddFOp::create(b, loc, one, t));
  }
  // x·0.5·(1 + erf(x/√2)).
  Value e = math::ErfOp::create(
      b, loc,
      arith::MulFOp::create(b, loc, x, createF32Constant(b, loc, M_SQRT1_2)));
  Value halfX = arith::MulFOp::create(b, loc, x, half);
  return arith::MulFOp::create(b, loc, halfX,
                               arith::AddFOp::create(b, loc, one, e));
}

Value computeScalar(ReluGradOp, OpBuilder &b, Location loc, ValueRange args) {
  Value gradOutput = args[0], input = args[1];
  Value zero = createF32Constant(b, loc, 0.0);
  Value positive =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, input, zero);
  return arith::SelectOp::create(b, loc, positive, gradOutput, zero);
}

Value computeScalar(GeluGradOp op, OpBuilder &b, Location loc,
                    ValueRange args) {
  Value gradOutput = args[0], x = args[1];
  Value half = createF32Constant(b, loc, 0.5);
  Value one = createF32Constant(b, loc, 1.0);
  Value derivative;
  if (op.getApproximate() == GeluApproximation::tanh) {
    // d/dx 0.5·x·(1 + tanh(u)), u = √(2/π)·(x + κx³):
    // 0.5·(1 + tanh u) + 0.5·x·(1 − tanh² u)·√(2/π)·(1 + 3κx²).
    Value square = arith::MulFOp::create(b, loc, x, x);
    Value cube = arith::MulFOp::create(b, loc, square, x);
    Value inner = arith::AddFOp::create(
        b, loc, x,
        arith::MulFOp::create(b, loc, createF32Constant(b, loc, kGeluKappa),
                              cube));
    Value t = math::TanhOp::create(
        b, loc,
        arith::MulFOp::create(b, loc, createF32Constant(b, loc, kSqrt2OverPi),
                              inner));
    Value left = arith::MulFOp::create(b, loc, half, x);
    Value right = arith::AddFOp::create(b, loc, one, t);
    Value leftDerivative = arith::MulFOp::create(b, loc, half, right);
    Value sech2 =
        arith::SubFOp::create(b, loc, one, arith::MulFOp::create(b, loc, t, t));
    Value innerDerivative = arith::MulFOp::create(
        b, loc, createF32Constant(b, loc, kSqrt2OverPi),
        arith::AddFOp::create(
            b, loc, one,
            arith::MulFOp::create(
                b, loc, createF32Constant(b, loc, 3.0 * kGeluKappa), square)));
    Value rightDerivative = arith::MulFOp::create(
        b, loc, arith::MulFOp::create(b, loc, left, sech2), innerDerivative);
    derivative = arith::AddFOp::create(b, loc, leftDerivative, rightDerivative);
  } else {
    // Φ(x) + x·φ(x), φ(x) = exp(−x²/2)/√(2π).
    Value cdf = arith::MulFOp::create(
        b, loc, half,
        arith::AddFOp::create(
            b, loc, one,
            math::ErfOp::create(
                b, loc,
                arith::MulFOp::create(b, loc, x,
                                      createF32Constant(b, loc, M_SQRT1_2)))));
    Value exponent =
        arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, x, x),
                              createF32Constant(b, loc, -0.5));
    Value pdf = arith::MulFOp::create(
        b, loc, createF32Constant(b, loc, M_2_SQRTPI * M_SQRT1_2 * 0.5),
        math::ExpOp::create(b, loc, exponent));
    derivative = arith::AddFOp::create(b, loc, cdf,
                                       arith::MulFOp::create(b, loc, x, pdf));
  }
  return arith::MulFOp::create(b, loc, gradOutput, derivative);
}

//===----------------------------------------------------------------------===//
// Selection, comparison and the activations of MPActivationOps.td
//===----------------------------------------------------------------------===//

Value computeScalar(SelectOp, OpBuilder &b, Location loc, ValueRange args) {
  return arith::SelectOp::create(b, loc, args[0], args[1], args[2]);
}

Value computeScalar(CompareOp op, OpBuilder &b, Location loc, ValueRange args) {
  Value lhs = args[0], rhs = args[1];
  ComparePredicate predicate = op.getPredicate();
  if (isa<FloatType>(lhs.getType())) {
    // Ordered predicates are false on NaN; `ne` is unordered (true on NaN).
    arith::CmpFPredicate floatPredicate;
    switch (predicate) {
    case ComparePredicate::eq:
      floatPredicate = arith::CmpFPredicate::OEQ;
      break;
    case ComparePredicate::ne:
      floatPredicate = arith::CmpFPredicate::UNE;
      break;
    case ComparePredicate::lt:
      floatPredicate = arith::CmpFPredicate::OLT;
      break;
    case ComparePredicate::le:
      floatPredicate = arith::CmpFPredicate::OLE;
      break;
    case ComparePredicate::gt:
      floatPredicate = arith::CmpFPredicate::OGT;
      break;
    case ComparePredicate::ge:
      floatPredicate = arith::CmpFPredicate::OGE;
      break;
    }
    return arith::CmpFOp::create(b, loc, floatPredicate, lhs, rhs);
  }
  // Integers compare signed; i1 unsigned (true > false, as torch.bool).
  bool isBool = lhs.getType().isInteger(1);
  arith::CmpIPredicate intPredicate;
  switch (predicate) {
  case ComparePredicate::eq:
    intPredicate = arith::CmpIPredicate::eq;
    break;
  case ComparePredicate::ne:
    intPredicate = arith::CmpIPredicate::ne;
    break;
  case ComparePredicate::lt:
    intPredicate =
        isBool ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
    break;
  case ComparePredicate::le:
    intPredicate =
        isBool ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle;
    break;
  case ComparePredicate::gt:
    intPredicate =
        isBool ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt;
    break;
  case ComparePredicate::ge:
    intPredicate =
        isBool ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge;
    break;
  }
  return arith::CmpIOp::create(b, loc, intPredicate, lhs, rhs);
}

/// `predicate ? a : b` on f32 scalars.
Value selectIf(OpBuilder &b, Location loc, arith::CmpFPredicate predicate,
               Value lhs, Value rhs, Value a, Value c) {
  Value condition = arith::CmpFOp::create(b, loc, predicate, lhs, rhs);
  return arith::SelectOp::create(b, loc, condition, a, c);
}

/// PyTorch's clamp: m = min > x ? min : x, then max < m ? max : m, so a NaN
/// input stays NaN and x = ±0 at a zero bound keeps its sign.
Value clampScalar(OpBuilder &b, Location loc, Value x,
                  std::optional<APFloat> min, std::optional<APFloat> max) {
  if (min) {
    Value bound = createF32Constant(b, loc, min->convertToDouble());
    x = selectIf(b, loc, arith::CmpFPredicate::OGT, bound, x, bound, x);
  }
  if (max) {
    Value bound = createF32Constant(b, loc, max->convertToDouble());
    x = selectIf(b, loc, arith::CmpFPredicate::OLT, bound, x, bound, x);
  }
  return x;
}

Value computeScalar(ClampOp op, OpBuilder &b, Location loc, ValueRange args) {
  return clampScalar(b, loc, args[0], op.getMin(), op.getMax());
}

Value computeScalar(ClampGradOp op, OpBuilder &b, Location loc,
                    ValueRange args) {
  Value gradOutput = args[0], x = args[1];
  Value zero = createF32Constant(b, loc, 0.0);
  if (op.getHardtanh()) {
    // hardtanh_backward: (x <= min || x >= max) ? 0 : dy (NaN passes).
    Value min = createF32Constant(b, loc, op.getMin()->convertToDouble());
    Value max = createF32Constant(b, loc, op.getMax()->convertToDouble());
    Value below =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, x, min);
    Value above =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x, max);
    Value outside = arith::OrIOp::create(b, loc, below, above);
    return arith::SelectOp::create(b, loc, outside, zero, gradOutput);
  }
  // clamp_backward: (x >= min && x <= max) ? dy : 0 (NaN gets 0).
  Value inside;
  auto conjoin = [&](Value condition) {
    inside = inside
                 ? arith::AndIOp::create(b, loc, inside, condition).getResult()
                 : condition;
  };
  if (auto min = op.getMin())
    conjoin(arith::CmpFOp::create(
        b, loc, arith::CmpFPredicate::OGE, x,
        createF32Constant(b, loc, min->convertToDouble())));
  if (auto max = op.getMax())
    conjoin(arith::CmpFOp::create(
        b, loc, arith::CmpFPredicate::OLE, x,
        createF32Constant(b, loc, max->convertToDouble())));
  return arith::SelectOp::create(b, loc, inside, gradOutput, zero);
}

/// sigmoid(x) = 1 / (1 + exp(−x)) in f32, PyTorch's order.
Value sigmoidScalar(OpBuilder &b, Location loc, Value x) {
  Value one = createF32Constant(b, loc, 1.0);
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  return arith::DivFOp::create(b, loc, one,
                               arith::AddFOp::create(b, loc, one, e));
}

Value computeScalar(SiluOp, OpBuilder &b, Location loc, ValueRange args) {
  // x / (1 + exp(−x)), PyTorch's CPU formula.
  Value x = args[0];
  Value one = createF32Constant(b, loc, 1.0);
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  return arith::DivFOp::create(b, loc, x,
                               arith::AddFOp::create(b, loc, one, e));
}

Value computeScalar(SiluGradOp, OpBuilder &b, Location loc, ValueRange args) {
  // dy · s · (1 + x · (1 − s)).
  Value dy = args[0], x = args[1];
  Value one = createF32Constant(b, loc, 1.0);
  Value s = sigmoidScalar(b, loc, x);
  Value inner = arith::AddFOp::create(
      b, loc, one,
      arith::MulFOp::create(b, loc, x, arith::SubFOp::create(b, loc, one, s)));
  return arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, dy, s),
                               inner);
}

/// min(max(x + 3, 0), 6) in f32 (x + 3 is NaN for a NaN x).
Value relu6OfXPlus3(OpBuilder &b, Location loc, Value x) {
  Value shifted =
      arith::AddFOp::create(b, loc, x, createF32Constant(b, loc, 3.0));
  return clampScalar(b, loc, shifted, APFloat(0.0f), APFloat(6.0f));
}

Value computeScalar(HardswishOp, OpBuilder &b, Location loc, ValueRange args) {
  // x · relu6(x + 3) / 6, PyTorch's order.
  Value x = args[0];
  Value product = arith::MulFOp::create(b, loc, x, relu6OfXPlus3(b, loc, x));
  return arith::DivFOp::create(b, loc, product, createF32Constant(b, loc, 6.0));
}

Value computeScalar(HardswishGradOp, OpBuilder &b, Location loc,
                    ValueRange args) {
  // x < −3 ? 0 : x <= 3 ? dy · (x / 3 + 0.5) : dy.
  Value dy = args[0], x = args[1];
  Value zero = createF32Constant(b, loc, 0.0);
  Value inner = arith::MulFOp::create(
      b, loc, dy,
      arith::AddFOp::create(
          b, loc,
          arith::DivFOp::create(b, loc, x, createF32Constant(b, loc, 3.0)),
          createF32Constant(b, loc, 0.5)));
  Value upper = selectIf(b, loc, arith::CmpFPredicate::OLE, x,
                         createF32Constant(b, loc, 3.0), inner, dy);
  return selectIf(b, loc, arith::CmpFPredicate::OLT, x,
                  createF32Constant(b, loc, -3.0), zero, upper);
}

Value computeScalar(HardsigmoidOp, OpBuilder &b, Location loc,
                    ValueRange args) {
  return arith::DivFOp::create(b, loc, relu6OfXPlus3(b, loc, args[0]),
                               createF32Constant(b, loc, 6.0));
}

Value computeScalar(HardsigmoidGradOp, OpBuilder &b, Location loc,
                    ValueRange args) {
  // −3 < x < 3 ? dy · (1/6) : 0 (NaN gets 0).
  Value dy = args[0], x = args[1];
  Value zero = createF32Constant(b, loc, 0.0);
  Value aboveLower = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                                           createF32Constant(b, loc, -3.0));
  Value belowUpper = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                           createF32Constant(b, loc, 3.0));
  Value inside = arith::AndIOp::create(b, loc, aboveLower, belowUpper);
  Value scaled = arith::MulFOp::create(
      b, loc, dy, createF32Constant(b, loc, static_cast<float>(1.0 / 6.0)));
  return arith::SelectOp::create(b, loc, inside, scaled, zero);
}

Value computeScalar(ErfOp, OpBuilder &b, Location loc, ValueRange args) {
  return math::ErfOp::create(b, loc, args[0]);
}

Value computeScalar(ErfGradOp, OpBuilder &b, Location loc, ValueRange args) {
  // dy · 2/√π · exp(−x²).
  Value dy = args[0], x = args[1];
  Value e = math::ExpOp::create(
      b, loc,
      arith::NegFOp::create(b, loc, arith::MulFOp::create(b, loc, x, x)));
  Value derivative =
      arith::MulFOp::create(b, loc, createF32Constant(b, loc, M_2_SQRTPI), e);
  return arith::MulFOp::create(b, loc, derivative, dy);
}

Value computeScalar(AbsOp, OpBuilder &b, Location loc, ValueRange args) {
  return math::AbsFOp::create(b, loc, args[0]);
}

Value computeScalar(AbsGradOp, OpBuilder &b, Location loc, ValueRange args) {
  // dy · sign(x): sign is 1, −1, or 0 for ±0 and NaN.
  Value dy = args[0], x = args[1];
  Value zero = createF32Constant(b, loc, 0.0);
  Value one = createF32Constant(b, loc, 1.0);
  Value minusOne = createF32Constant(b, loc, -1.0);
  Value negative =
      selectIf(b, loc, arith::CmpFPredicate::OLT, x, zero, minusOne, zero);
  Value sign =
      selectIf(b, loc, arith::CmpFPredicate::OGT, x, zero, one, negative);
  return arith::MulFOp::create(b, loc, dy, sign);
}

Value computeScalar(LeakyReluOp op, OpBuilder &b, Location loc,
                    ValueRange args) {
  Value x = args[0];
  Value zero = createF32Constant(b, loc, 0.0);
  Value slope =
      createF32Constant(b, loc, op.getNegativeSlope().convertToDouble());
  return selectIf(b, loc, arith::CmpFPredicate::OGT, x, zero, x,
                  arith::MulFOp::create(b, loc, x, slope));
}

Value computeScalar(LeakyReluGradOp op, OpBuilder &b, Location loc,
                    ValueRange args) {
  Value dy = args[0], x = args[1];
  Value zero = createF32Constant(b, loc, 0.0);
  Value slope =
      createF32Constant(b, loc, op.getNegativeSlope().convertToDouble());
  return selectIf(b, loc, arith::CmpFPredicate::OGT, x, zero, dy,
                  arith::MulFOp::create(b, loc, dy, slope));
}

/// Lowers an elementwise op whose operands broadcast to its single result to
/// one linalg.generic computing `computeScalar` in f32.
template <typename OpTy>
struct ElementwiseOpLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getResult().getType());
    Value result = buildElementwise(
        rewriter, op.getLoc(), adaptor.getOperands(), resultType,
        [&](OpBuilder &b, Location loc, ValueRange args,
            ValueRange) -> SmallVector<Value> {
          return {computeScalar(op, b, loc, args)};
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void lowering::populateElementwisePatterns(RewritePatternSet &patterns) {
  patterns.add<ElementwiseOpLowering<AddOp>, ElementwiseOpLowering<SubOp>,
               ElementwiseOpLowering<MulOp>, ElementwiseOpLowering<DivOp>,
               ElementwiseOpLowering<PowOp>, ElementwiseOpLowering<MaximumOp>,
               ElementwiseOpLowering<MinimumOp>, ElementwiseOpLowering<NegOp>,
               ElementwiseOpLowering<ReluOp>, ElementwiseOpLowering<TanhOp>,
               ElementwiseOpLowering<SigmoidOp>, ElementwiseOpLowering<ExpOp>,
               ElementwiseOpLowering<LogOp>, ElementwiseOpLowering<SqrtOp>,
               ElementwiseOpLowering<RsqrtOp>, ElementwiseOpLowering<GeluOp>,
               ElementwiseOpLowering<ReluGradOp>,
               ElementwiseOpLowering<GeluGradOp>>(patterns.getContext());
  patterns.add<
      ElementwiseOpLowering<SelectOp>, ElementwiseOpLowering<CompareOp>,
      ElementwiseOpLowering<ClampOp>, ElementwiseOpLowering<ClampGradOp>,
      ElementwiseOpLowering<SiluOp>, ElementwiseOpLowering<SiluGradOp>,
      ElementwiseOpLowering<HardswishOp>,
      ElementwiseOpLowering<HardswishGradOp>,
      ElementwiseOpLowering<HardsigmoidOp>,
      ElementwiseOpLowering<HardsigmoidGradOp>, ElementwiseOpLowering<ErfOp>,
      ElementwiseOpLowering<ErfGradOp>, ElementwiseOpLowering<AbsOp>,
      ElementwiseOpLowering<AbsGradOp>, ElementwiseOpLowering<LeakyReluOp>,
      ElementwiseOpLowering<LeakyReluGradOp>>(patterns.getContext());
}
