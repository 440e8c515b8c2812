//===- Training.cpp - Optimizers and scaling state to linalg --------------===//
//
// sgd, adam and adamw become one elementwise linalg.generic each, computing
// the op's formula in f32 (operands of a narrower type extended exactly) and
// rounding each result (parameter, buffers) once to its type; Adam's bias
// corrections 1 − β^step are computed once per op in f64 from the step
// tensor (as PyTorch does in Python) and rounded to f32. all_finite is a
// chain of reductions into one i1, amax an f32 max-of-|x| reduction;
// update_loss_scale and fp8_scale are scalar arith on values read from 0-d
// tensors with tensor.extract and wrapped back with tensor.from_elements;
// amax_history_push is a tensor.concat of the new amax and the history
// without its oldest entry.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"
#include "Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mp/Dialect/MP/IR/MPOps.h"

#include <limits>

using namespace mlir;
using namespace mlir::mp;
using namespace mlir::mp::lowering;

namespace {
struct SGDOpLowering : OpConversionPattern<SGDOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SGDOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    double lr = op.getLr().convertToDouble();
    double momentum = op.getMomentum().convertToDouble();
    double dampening = op.getDampening().convertToDouble();
    double weightDecay = op.getWeightDecay().convertToDouble();
    bool nesterov = op.getNesterov();
    Value buffer = adaptor.getMomentumBuffer();
    SmallVector<MappedOperand> inputs{identityOperand(adaptor.getParam()),
                                      identityOperand(adaptor.getGrad())};
    if (buffer)
      inputs.push_back(identityOperand(buffer));
    SmallVector<Type> resultTypes(op->getResultTypes());
    SmallVector<Value> results = buildElementwise(
        rewriter, op.getLoc(), inputs, resultTypes,
        [&](OpBuilder &b, Location loc, ValueRange in,
            ValueRange) -> SmallVector<Value> {
          Value param = in[0], grad = in[1];
          // g = grad + weight_decay·param
          if (weightDecay != 0.0)
            grad = arith::AddFOp::create(
                b, loc, grad,
                arith::MulFOp::create(
                    b, loc, createF32Constant(b, loc, weightDecay), param));
          Value newBuffer;
          if (buffer) {
            // buf = momentum·buf + (1 − dampening)·g (g alone without
            // dampening: the product by 1 is exact anyway)
            Value damped =
                dampening == 0.0
                    ? grad
                    : arith::MulFOp::create(
                          b, loc, createF32Constant(b, loc, 1.0 - dampening),
                          grad)
                          .getResult();
            newBuffer = arith::AddFOp::create(
                b, loc,
                arith::MulFOp::create(
                    b, loc, createF32Constant(b, loc, momentum), in[2]),
                damped);
            grad = nesterov
                       ? arith::AddFOp::create(
                             b, loc, grad,
                             arith::MulFOp::create(
                                 b, loc, createF32Constant(b, loc, momentum),
                                 newBuffer))
                             .getResult()
                       : newBuffer;
          }
          // param − lr·g
          Value newParam = arith::SubFOp::create(
              b, loc, param,
              arith::MulFOp::create(b, loc, createF32Constant(b, loc, lr),
                                    grad));
          SmallVector<Value> results{newParam};
          if (buffer)
            results.push_back(newBuffer);
          return results;
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Lowers adam (L2 weight decay into the gradient) and adamw (decoupled
/// weight decay on the parameter).
template <typename OpTy> struct AdamLikeOpLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    constexpr bool decoupled = std::is_same_v<OpTy, AdamWOp>;
    Location loc = op.getLoc();
    double lr = op.getLr().convertToDouble();
    double beta1 = op.getBeta1().convertToDouble();
    double beta2 = op.getBeta2().convertToDouble();
    double eps = op.getEps().convertToDouble();
    double weightDecay = op.getWeightDecay().convertToDouble();

    // Bias corrections 1 − β^step in f64, rounded to f32.
    Type f64 = rewriter.getF64Type();
    Value step = arith::SIToFPOp::create(
        rewriter, loc, f64, extractScalar(rewriter, loc, adaptor.getStep()));
    auto biasCorrection = [&](double beta) -> Value {
      Value power = math::PowFOp::create(
          rewriter, loc, createFloatConstant(rewriter, loc, f64, beta), step);
      Value correction = arith::SubFOp::create(
          rewriter, loc, createFloatConstant(rewriter, loc, f64, 1.0), power);
      return convertFloat(rewriter, loc, correction, rewriter.getF32Type());
    };
    Value correction1 = biasCorrection(beta1);
    Value correction2 = biasCorrection(beta2);

    SmallVector<Type> resultTypes(op->getResultTypes());
    SmallVector<Value> results = buildElementwise(
        rewriter, loc,
        {identityOperand(adaptor.getParam()),
         identityOperand(adaptor.getGrad()),
         identityOperand(adaptor.getExpAvg()),
         identityOperand(adaptor.getExpAvgSq())},
        resultTypes,
        [&](OpBuilder &b, Location loc, ValueRange in,
            ValueRange) -> SmallVector<Value> {
          Value param = in[0], grad = in[1], m = in[2], v = in[3];
          if (weightDecay != 0.0) {
            if (decoupled)
              // param·(1 − lr·weight_decay)
              param = arith::MulFOp::create(
                  b, loc, param,
                  createF32Constant(b, loc, 1.0 - lr * weightDecay));
            else
              // grad + weight_decay·param
              grad = arith::AddFOp::create(
                  b, loc, grad,
                  arith::MulFOp::create(
                      b, loc, createF32Constant(b, loc, weightDecay), param));
          }
          // m = β1·m + (1 − β1)·g, v = β2·v + (1 − β2)·g²
          Value newM = arith::AddFOp::create(
              b, loc,
              arith::MulFOp::create(b, loc, createF32Constant(b, loc, beta1),
                                    m),
              arith::MulFOp::create(
                  b, loc, createF32Constant(b, loc, 1.0 - beta1), grad));
          Value newV = arith::AddFOp::create(
              b, loc,
              arith::MulFOp::create(b, loc, createF32Constant(b, loc, beta2),
                                    v),
              arith::MulFOp::create(b, loc,
                                    createF32Constant(b, loc, 1.0 - beta2),
                                    arith::MulFOp::create(b, loc, grad, grad)));
          // param − lr·(m / (1 − β1^t)) / (sqrt(v / (1 − β2^t)) + eps)
          Value mHat = arith::DivFOp::create(b, loc, newM, correction1);
          Value vHat = arith::DivFOp::create(b, loc, newV, correction2);
          Value denominator =
              arith::AddFOp::create(b, loc, math::SqrtOp::create(b, loc, vHat),
                                    createF32Constant(b, loc, eps));
          Value update = arith::DivFOp::create(
              b, loc,
              arith::MulFOp::create(b, loc, createF32Constant(b, loc, lr),
                                    mHat),
              denominator);
          Value newParam = arith::SubFOp::create(b, loc, param, update);
          return {newParam, newM, newV};
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct AllFiniteOpLowering : OpConversionPattern<AllFiniteOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AllFiniteOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value allTrue =
        arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(true));
    Value flag = createFilledTensor(rewriter, loc, {}, allTrue);
    // Each operand ANDs its elements' finiteness into the running flag.
    for (Value input : adaptor.getInputs()) {
      auto type = cast<RankedTensorType>(input.getType());
      SmallVector<utils::IteratorType> iterators(
          type.getRank(), utils::IteratorType::reduction);
      MappedOperand init{
          flag, AffineMap::get(type.getRank(), 0, {}, rewriter.getContext())};
      flag = buildGeneric(rewriter, loc, {identityOperand(input)}, {init},
                          iterators, rewriter.getF32Type(),
                          [](OpBuilder &b, Location loc, ValueRange in,
                             ValueRange out) -> SmallVector<Value> {
                            return {arith::AndIOp::create(
                                b, loc, out[0],
                                math::IsFiniteOp::create(b, loc, in[0]))};
                          })
                 .front();
    }
    rewriter.replaceOp(op, flag);
    return success();
  }
};

struct AmaxOpLowering : OpConversionPattern<AmaxOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(adaptor.getInput().getType());
    Value amax =
        buildReduction(
            rewriter, loc, {identityOperand(adaptor.getInput())},
            type.getShape(),
            llvm::to_vector(llvm::seq<int64_t>(0, type.getRank())),
            {createF32Constant(rewriter, loc, 0.0)},
            [](OpBuilder &b, Location loc, ValueRange in,
               ValueRange acc) -> SmallVector<Value> {
              return {arith::MaximumFOp::create(
                  b, loc, acc[0], math::AbsFOp::create(b, loc, in[0]))};
            })
            .front();
    rewriter.replaceOp(op, amax);
    return success();
  }
};

struct AmaxHistoryPushOpLowering : OpConversionPattern<AmaxHistoryPushOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AmaxHistoryPushOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getHistory().getType();
    int64_t length = type.getDimSize(0);
    Value newest = reshapeTensor(rewriter, loc, adaptor.getAmax(), {1});
    if (length == 1) {
      rewriter.replaceOp(op, newest);
      return success();
    }
    Value kept = tensor::ExtractSliceOp::create(
        rewriter, loc,
        RankedTensorType::get({length - 1}, type.getElementType()),
        adaptor.getHistory(), ValueRange{}, ValueRange{}, ValueRange{},
        ArrayRef<int64_t>{0}, ArrayRef<int64_t>{length - 1},
        ArrayRef<int64_t>{1});
    rewriter.replaceOp(op, tensor::ConcatOp::create(rewriter, loc, type, 0,
                                                    ValueRange{newest, kept})
                               .getResult());
    return success();
  }
};

struct FP8ScaleOpLowering : OpConversionPattern<FP8ScaleOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(FP8ScaleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value history = adaptor.getHistory();
    Value amax;
    if (op.getAmaxCompute() == AmaxCompute::max) {
      Value negInf = createF32Constant(
          rewriter, loc, -std::numeric_limits<double>::infinity());
      amax = extractScalar(
          rewriter, loc,
          buildReduction(rewriter, loc, {identityOperand(history)},
                         op.getHistory().getType().getShape(), {0}, {negInf},
                         [](OpBuilder &b, Location loc, ValueRange in,
                            ValueRange acc) -> SmallVector<Value> {
                           return {arith::MaximumFOp::create(b, loc, acc[0],
                                                             in[0])};
                         })
              .front());
    } else {
      amax = tensor::ExtractOp::create(
          rewriter, loc, history,
          ValueRange{arith::ConstantIndexOp::create(rewriter, loc, 0)});
    }
    double fp8Max = op.getFormat() == FP8Format::e4m3 ? 448.0 : 57344.0;
    Value scale = extractScalar(rewriter, loc, adaptor.getScale());
    // (fp8_max / amax) / 2^margin
    Value newScale = arith::DivFOp::create(
        rewriter, loc,
        arith::DivFOp::create(rewriter, loc,
                              createF32Constant(rewriter, loc, fp8Max), amax),
        createF32Constant(rewriter, loc, std::ldexp(1.0, op.getMargin())));
    // Kept when amax is 0 or not finite, or the new scale is not finite.
    Value isZero =
        arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OEQ, amax,
                              createF32Constant(rewriter, loc, 0.0));
    Value usable = arith::AndIOp::create(
        rewriter, loc,
        arith::AndIOp::create(
            rewriter, loc, math::IsFiniteOp::create(rewriter, loc, amax),
            math::IsFiniteOp::create(rewriter, loc, newScale)),
        arith::XOrIOp::create(rewriter, loc, isZero,
                              arith::ConstantOp::create(
                                  rewriter, loc, rewriter.getBoolAttr(true))));
    Value result =
        arith::SelectOp::create(rewriter, loc, usable, newScale, scale);
    rewriter.replaceOp(op, wrapScalar(rewriter, loc, result));
    return success();
  }
};

struct UpdateLossScaleOpLowering : OpConversionPattern<UpdateLossScaleOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(UpdateLossScaleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value scale = extractScalar(b, loc, adaptor.getScale());
    Value tracker = extractScalar(b, loc, adaptor.getGrowthTracker());
    Value foundInf = extractScalar(b, loc, adaptor.getFoundInf());
    auto i32Const = [&](int64_t value) -> Value {
      return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(value));
    };
    Value zero = i32Const(0);

    // Backed-off scale: max(scale·backoff, min_scale).
    Value backedOff = arith::MulFOp::create(
        b, loc, scale,
        createF32Constant(b, loc, op.getBackoffFactor().convertToDouble()));
    if (auto minScale = op.getMinScaleAttr())
      backedOff = arith::MaximumFOp::create(
          b, loc, backedOff,
          createF32Constant(b, loc, minScale.getValueAsDouble()));
    // Grown scale: min(scale·growth, max_scale), kept if not finite.
    Value grown = arith::MulFOp::create(
        b, loc, scale,
        createF32Constant(b, loc, op.getGrowthFactor().convertToDouble()));
    if (auto maxScale = op.getMaxScaleAttr())
      grown = arith::MinimumFOp::create(
          b, loc, grown,
          createF32Constant(b, loc, maxScale.getValueAsDouble()));
    grown = arith::SelectOp::create(
        b, loc, math::IsFiniteOp::create(b, loc, grown), grown, scale);

    // Without overflow the tracker counts up; reaching the interval grows.
    Value counted = arith::AddIOp::create(b, loc, tracker, i32Const(1));
    Value reached =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, counted,
                              i32Const(op.getGrowthInterval()));
    Value cleanScale = arith::SelectOp::create(b, loc, reached, grown, scale);
    Value cleanTracker =
        arith::SelectOp::create(b, loc, reached, zero, counted);

    SmallVector<Value> results;
    Value overflowScale = backedOff;
    Value newHysteresis;
    if (Value hysteresisTensor = adaptor.getHysteresisTracker()) {
      // An overflow decrements the hysteresis tracker and backs off only
      // when it reaches 0; a growth resets it.
      Value hysteresis = extractScalar(b, loc, hysteresisTensor);
      Value decremented =
          arith::SubIOp::create(b, loc, hysteresis, i32Const(1));
      Value exhausted = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle,
                                              decremented, zero);
      overflowScale =
          arith::SelectOp::create(b, loc, exhausted, backedOff, scale);
      Value cleanHysteresis = arith::SelectOp::create(
          b, loc, reached, i32Const(op.getHysteresis()), hysteresis);
      newHysteresis = arith::SelectOp::create(b, loc, foundInf, decremented,
                                              cleanHysteresis);
    }
    Value newScale =
        arith::SelectOp::create(b, loc, foundInf, overflowScale, cleanScale);
    Value newTracker =
        arith::SelectOp::create(b, loc, foundInf, zero, cleanTracker);
    results.push_back(wrapScalar(b, loc, newScale));
    results.push_back(wrapScalar(b, loc, newTracker));
    if (newHysteresis)
      results.push_back(wrapScalar(b, loc, newHysteresis));
    rewriter.replaceOp(op, results);
    return success();
  }
};
} // namespace

void lowering::populateTrainingPatterns(RewritePatternSet &patterns) {
  patterns.add<SGDOpLowering, AdamLikeOpLowering<AdamOp>,
               AdamLikeOpLowering<AdamWOp>, AllFiniteOpLowering, AmaxOpLowering,
               AmaxHistoryPushOpLowering, FP8ScaleOpLowering,
               UpdateLossScaleOpLowering>(patterns.getContext());
}
