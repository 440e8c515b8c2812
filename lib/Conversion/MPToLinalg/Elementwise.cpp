//===- Elementwise.cpp - Elementwise mp ops to linalg.generic -------------===//
//
// Lowers the unary and binary elementwise ops (with NumPy broadcasting), gelu
// and the elementwise gradients relu_grad and gelu_grad to one parallel
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
}
