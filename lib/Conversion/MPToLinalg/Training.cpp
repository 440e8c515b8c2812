//===- Training.cpp - Optimizers and scaling state to linalg --------------===//
//
// sgd, adam and adamw become one elementwise linalg.generic each, computing
// the op's formula in f32 (operands of a narrower type extended exactly) in
// the order of operations of PyTorch's single-tensor optimizers
// (torch/optim/{sgd,adam,adamw}.py, `_single_tensor_*`), with `add(alpha=)`
// and `addcmul` as fused multiply-adds (math.fma) as PyTorch's vectorised CPU
// kernels compute them, and rounding each result (parameter, buffers) once to
// its type. Scalars PyTorch computes in Python floats (the learning rate,
// Adam's bias corrections 1 − β^step from the step tensor, its step size,
// AdamW's 1 − lr·weight_decay) are computed once per op in f64 and rounded to
// f32. clip_grad_norm: per-gradient f32 sums of squares (or max |g|), their
// norm, the clamped coefficient and one elementwise product per gradient. all_finite is a
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

/// The learning rate of an optimizer in f64: its attribute value (or
/// `defaultLr`), or its 0-d operand read and extended exactly.
static Value buildLearningRate(OpBuilder &b, Location loc, Value operand,
                               std::optional<double> constant) {
  Type f64 = b.getF64Type();
  if (!operand)
    return createFloatConstant(b, loc, f64, *constant);
  return convertFloat(b, loc, extractScalar(b, loc, operand), f64);
}

/// `value` (f64) rounded to f32: a Python float coefficient as PyTorch's
/// kernels use it.
static Value toF32(OpBuilder &b, Location loc, Value value) {
  return convertFloat(b, loc, value, b.getF32Type());
}

/// a + α·b in one rounding: PyTorch's `add(a, b, alpha=α)` in its vectorised
/// CPU kernel (vec::fmadd) and on CUDA.
static Value fusedAdd(OpBuilder &b, Location loc, Value a, Value alpha,
                      Value x) {
  return math::FmaOp::create(b, loc, x, alpha, a);
}

namespace {
struct SGDOpLowering : OpConversionPattern<SGDOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SGDOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    double momentum = op.getMomentum().convertToDouble();
    double dampening = op.getDampening().convertToDouble();
    double weightDecay = op.getWeightDecay().convertToDouble();
    bool nesterov = op.getNesterov();
    bool maximize = op.getMaximize();
    Value buffer = adaptor.getMomentumBuffer();
    std::optional<double> lrConstant;
    if (auto lr = op.getLrAttr())
      lrConstant = lr.getValueAsDouble();
    // −lr rounded to f32 (PyTorch: param.add_(d_p, alpha=-lr)).
    Value negLr = toF32(
        rewriter, loc,
        arith::NegFOp::create(rewriter, loc,
                              buildLearningRate(rewriter, loc,
                                                adaptor.getLearningRate(),
                                                lrConstant)));
    // The first step (step == 1) sets the buffer to g.
    Value firstStep;
    if (Value step = adaptor.getStep()) {
      Value count = extractScalar(rewriter, loc, step);
      firstStep = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq, count,
          arith::ConstantOp::create(rewriter, loc,
                                    rewriter.getIntegerAttr(count.getType(), 1)));
    }
    SmallVector<MappedOperand> inputs{identityOperand(adaptor.getParam()),
                                      identityOperand(adaptor.getGrad())};
    if (buffer)
      inputs.push_back(identityOperand(buffer));
    SmallVector<Type> resultTypes(op->getResultTypes());
    SmallVector<Value> results = buildElementwise(
        rewriter, loc, inputs, resultTypes,
        [&](OpBuilder &b, Location loc, ValueRange in,
            ValueRange) -> SmallVector<Value> {
          Value param = in[0], grad = in[1];
          if (maximize)
            grad = arith::NegFOp::create(b, loc, grad);
          // g = g + weight_decay·param
          if (weightDecay != 0.0)
            grad = fusedAdd(b, loc, grad,
                            createF32Constant(b, loc, weightDecay), param);
          Value newBuffer;
          if (buffer) {
            // buf = momentum·buf + (1 − dampening)·g; the product by 1 is
            // exact without dampening.
            Value decayed = arith::MulFOp::create(
                b, loc, in[2], createF32Constant(b, loc, momentum));
            newBuffer =
                dampening == 0.0
                    ? arith::AddFOp::create(b, loc, decayed, grad).getResult()
                    : fusedAdd(b, loc, decayed,
                               createF32Constant(b, loc, 1.0 - dampening),
                               grad);
            if (firstStep)
              newBuffer =
                  arith::SelectOp::create(b, loc, firstStep, grad, newBuffer);
            grad = nesterov ? fusedAdd(b, loc, grad,
                                       createF32Constant(b, loc, momentum),
                                       newBuffer)
                            : newBuffer;
          }
          // param + (−lr)·g
          SmallVector<Value> results{fusedAdd(b, loc, param, negLr, grad)};
          if (buffer)
            results.push_back(newBuffer);
          return results;
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Lowers adam (L2 weight decay into the gradient) and adamw (decoupled
/// weight decay on the parameter) in the order of PyTorch's
/// `_single_tensor_adam(w)`.
template <typename OpTy> struct AdamLikeOpLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    constexpr bool decoupled = std::is_same_v<OpTy, AdamWOp>;
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    double beta1 = op.getBeta1().convertToDouble();
    double beta2 = op.getBeta2().convertToDouble();
    double eps = op.getEps().convertToDouble();
    double weightDecay = op.getWeightDecay().convertToDouble();
    bool maximize = op.getMaximize();
    bool amsgrad = static_cast<bool>(adaptor.getMaxExpAvgSq());

    // Python-float scalars in f64: bias corrections 1 − β^step, the step
    // size lr / (1 − β1^step), sqrt(1 − β2^step), 1 − lr·weight_decay.
    Type f64 = b.getF64Type();
    auto f64Const = [&](double value) {
      return createFloatConstant(b, loc, f64, value);
    };
    Value lr = buildLearningRate(b, loc, adaptor.getLearningRate(),
                                 op.getLrConstant());
    Value step = arith::SIToFPOp::create(
        b, loc, f64, extractScalar(b, loc, adaptor.getStep()));
    auto biasCorrection = [&](double beta) -> Value {
      return arith::SubFOp::create(
          b, loc, f64Const(1.0),
          math::PowFOp::create(b, loc, f64Const(beta), step));
    };
    Value stepSize =
        arith::DivFOp::create(b, loc, lr, biasCorrection(beta1));
    Value negStepSize =
        toF32(b, loc, arith::NegFOp::create(b, loc, stepSize));
    Value correction2Sqrt =
        toF32(b, loc, math::SqrtOp::create(b, loc, biasCorrection(beta2)));
    Value decay;
    if (decoupled)
      decay = toF32(b, loc,
                    arith::SubFOp::create(
                        b, loc, f64Const(1.0),
                        arith::MulFOp::create(b, loc, lr,
                                              f64Const(weightDecay))));

    SmallVector<MappedOperand> inputs{identityOperand(adaptor.getParam()),
                                      identityOperand(adaptor.getGrad()),
                                      identityOperand(adaptor.getExpAvg()),
                                      identityOperand(adaptor.getExpAvgSq())};
    if (amsgrad)
      inputs.push_back(identityOperand(adaptor.getMaxExpAvgSq()));
    SmallVector<Type> resultTypes(op->getResultTypes());
    SmallVector<Value> results = buildElementwise(
        rewriter, loc, inputs, resultTypes,
        [&](OpBuilder &b, Location loc, ValueRange in,
            ValueRange) -> SmallVector<Value> {
          Value param = in[0], grad = in[1], m = in[2], v = in[3];
          if (maximize)
            grad = arith::NegFOp::create(b, loc, grad);
          if (decoupled) {
            // param·(1 − lr·weight_decay), multiplied even by 1 as PyTorch.
            param = arith::MulFOp::create(b, loc, param, decay);
          } else if (weightDecay != 0.0) {
            // grad + weight_decay·param
            grad = fusedAdd(b, loc, grad,
                            createF32Constant(b, loc, weightDecay), param);
          }
          // m = fma(g, 1 − β1, m·β1); v = fma((1 − β2)·g, g, v·β2)
          Value newM = fusedAdd(
              b, loc,
              arith::MulFOp::create(b, loc, m, createF32Constant(b, loc, beta1)),
              createF32Constant(b, loc, 1.0 - beta1), grad);
          Value newV = math::FmaOp::create(
              b, loc,
              arith::MulFOp::create(b, loc,
                                    createF32Constant(b, loc, 1.0 - beta2),
                                    grad),
              grad,
              arith::MulFOp::create(b, loc, v,
                                    createF32Constant(b, loc, beta2)));
          Value second = newV, newMax;
          if (amsgrad)
            second = newMax = arith::MaximumFOp::create(b, loc, in[4], newV);
          // denom = sqrt(v̂) / sqrt(1 − β2^t) + eps
          Value denominator = arith::AddFOp::create(
              b, loc,
              arith::DivFOp::create(b, loc, math::SqrtOp::create(b, loc, second),
                                    correction2Sqrt),
              createF32Constant(b, loc, eps));
          // param + (−step_size·m) / denom (addcdiv)
          Value newParam = arith::AddFOp::create(
              b, loc, param,
              arith::DivFOp::create(
                  b, loc, arith::MulFOp::create(b, loc, negStepSize, newM),
                  denominator));
          SmallVector<Value> results{newParam, newM, newV};
          if (amsgrad)
            results.push_back(newMax);
          return results;
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct ClipGradNormOpLowering : OpConversionPattern<ClipGradNormOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ClipGradNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    bool infNorm = op.getInfNorm();
    // Combines an accumulator with one element (|x| or x²) or one norm.
    auto combine = [&](OpBuilder &b, Location loc, Value acc, Value x) {
      if (infNorm)
        return arith::MaximumFOp::create(b, loc, acc,
                                         math::AbsFOp::create(b, loc, x))
            .getResult();
      return arith::AddFOp::create(b, loc, acc,
                                   arith::MulFOp::create(b, loc, x, x))
          .getResult();
    };
    // Each gradient's norm, then the norm of those norms, in f32.
    Value total = createF32Constant(b, loc, 0.0);
    for (Value gradient : adaptor.getGradients()) {
      auto type = cast<RankedTensorType>(gradient.getType());
      Value reduced = extractScalar(
          b, loc,
          buildReduction(b, loc, {identityOperand(gradient)}, type.getShape(),
                         llvm::to_vector(llvm::seq<int64_t>(0, type.getRank())),
                         {createF32Constant(b, loc, 0.0)},
                         [&](OpBuilder &b, Location loc, ValueRange in,
                             ValueRange acc) -> SmallVector<Value> {
                           return {combine(b, loc, acc[0], in[0])};
                         })
              .front());
      Value norm = infNorm ? reduced : math::SqrtOp::create(b, loc, reduced);
      total = combine(b, loc, total, norm);
    }
    if (!infNorm)
      total = math::SqrtOp::create(b, loc, total);
    // clip_coef = max_norm / (total_norm + 1e-6), clamped to at most 1.
    Value coefficient = arith::DivFOp::create(
        b, loc, createF32Constant(b, loc, op.getMaxNorm().convertToDouble()),
        arith::AddFOp::create(b, loc, total, createF32Constant(b, loc, 1e-6)));
    Value clamped = arith::MinimumFOp::create(b, loc, coefficient,
                                              createF32Constant(b, loc, 1.0));
    SmallVector<Value> results;
    for (Value gradient : adaptor.getGradients()) {
      auto type = cast<RankedTensorType>(gradient.getType());
      results.push_back(
          buildElementwise(b, loc, {identityOperand(gradient)}, TypeRange{type},
                           [&](OpBuilder &b, Location loc, ValueRange in,
                               ValueRange) -> SmallVector<Value> {
                             return {arith::MulFOp::create(b, loc, in[0],
                                                           clamped)};
                           })
              .front());
    }
    results.push_back(wrapScalar(b, loc, total));
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
              // maxnumf from 0 ignores NaN elements (Transformer
              // Engine's amax kernels reduce with fmaxf / __hmax).
              return {arith::MaxNumFOp::create(
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
    // max(amax, eps): a NaN amax stays NaN.
    if (double eps = op.getAmaxEpsilon().convertToDouble(); eps > 0.0)
      amax = arith::MaximumFOp::create(rewriter, loc, amax,
                                       createF32Constant(rewriter, loc, eps));
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
    if (op.getPowerOfTwo()) {
      // Rounded down to a power of two: the mantissa bits cleared. A
      // subnormal scale (a large margin) becomes 0, which is not usable.
      newScale = buildPowerOfTwoFloor(rewriter, loc, newScale);
      usable = arith::AndIOp::create(
          rewriter, loc, usable,
          arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::ONE,
                                newScale,
                                createF32Constant(rewriter, loc, 0.0)));
    }
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
               ClipGradNormOpLowering,
               AdamLikeOpLowering<AdamWOp>, AllFiniteOpLowering, AmaxOpLowering,
               AmaxHistoryPushOpLowering, FP8ScaleOpLowering,
               UpdateLossScaleOpLowering>(patterns.getContext());
}
