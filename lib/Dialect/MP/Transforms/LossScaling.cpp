//===- LossScaling.cpp - Loss scaling around mp.grad ----------------------===//
//
// mp-loss-scaling turns a train step into PyTorch GradScaler's step: the loss
// that reaches `mp.grad` is multiplied by S, the gradients are cast to f32 and
// multiplied by 1/S (reciprocal in f64, rounded to f32), a step whose unscaled
// gradients (or the total norm of an mp.clip_grad_norm, which consumes the
// unscaled gradients: GradScaler's unscale_ before clipping) hold an inf or
// NaN returns every `mp.updates` result's argument
// unchanged (except forward state, MPDialect::isForwardStateKind, which
// advances as in PyTorch), and in dynamic mode S and its growth tracker (and a hysteresis
// counter) are threaded through the signature and updated with
// `mp.update_loss_scale`.
//
// It assumes one `mp.grad` directly in the body of a single-block function
// whose results follow the train-step contract (docs/TrainStep.md); it runs
// before mp-autodiff. Functions without `mp.grad`, or already marked
// `mp.loss_scaling`, are left unchanged.
//
// It runs on the module, one function at a time; a function whose signature
// it changes must not be referenced in the module (mp::rewriteTrainSteps).
//
//===----------------------------------------------------------------------===//

#include "mp/Dialect/MP/Transforms/Passes.h"
#include "mp/Dialect/MP/Transforms/TrainSteps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mp/Dialect/MP/IR/MPOps.h"

namespace mlir::mp {
#define GEN_PASS_DEF_MPLOSSSCALING
#include "mp/Dialect/MP/Transforms/Passes.h.inc"
} // namespace mlir::mp

using namespace mlir;
using namespace mlir::mp;

namespace {

/// The validated options of one run.
struct ScalingConfig {
  bool dynamic;
  double initScale;
  bool skip;
};

struct LossScalingPass : public mp::impl::MPLossScalingBase<LossScalingPass> {
  using MPLossScalingBase::MPLossScalingBase;

  void runOnOperation() override;

private:
  /// Rewrites one function of the module; fails after reporting an error.
  LogicalResult rewriteFunction(func::FuncOp func);

  /// Checks the options; reports the first conflict at `loc`.
  FailureOr<ScalingConfig> validateOptions(Location loc);
  /// Rewrites `grad` (in `func`) per `config`.
  LogicalResult scale(func::FuncOp func, GradOp grad,
                      const ScalingConfig &config);
};

} // namespace

FailureOr<ScalingConfig> LossScalingPass::validateOptions(Location loc) {
  auto fail = [&](const Twine &message) -> FailureOr<ScalingConfig> {
    emitError(loc) << "mp-loss-scaling: " << message;
    return failure();
  };
  if (mode != "dynamic" && mode != "static")
    return fail("mode must be 'dynamic' or 'static', got '" + mode + "'");
  bool dynamic = mode == "dynamic";
  if (!(initScale > 0.0) || !std::isfinite(initScale) ||
      !std::isfinite(static_cast<float>(initScale)))
    return fail("init-scale must be a finite positive f32 value");
  if (!dynamic && hysteresis != 1)
    return fail("hysteresis applies to mode=dynamic only");
  if (dynamic && !skipNonFinite)
    return fail("skip-nonfinite=false is only valid with mode=static");
  if (dynamic) {
    if (!(growthFactor > 1.0) || !std::isfinite(growthFactor))
      return fail("growth-factor must be a finite number > 1");
    if (!(backoffFactor > 0.0 && backoffFactor < 1.0))
      return fail("backoff-factor must be in (0, 1)");
    if (growthInterval < 1)
      return fail("growth-interval must be >= 1");
    if (hysteresis < 1)
      return fail("hysteresis must be >= 1");
    if (minScale < 0.0 || maxScale < 0.0)
      return fail("min-scale and max-scale must be >= 0 (0 = no bound)");
    if (minScale > 0.0 && maxScale > 0.0 && minScale > maxScale)
      return fail("min-scale must not exceed max-scale");
    if ((minScale > 0.0 && initScale < minScale) ||
        (maxScale > 0.0 && initScale > maxScale))
      return fail("init-scale must lie within [min-scale, max-scale]");
  }
  return ScalingConfig{dynamic, initScale, skipNonFinite};
}

void LossScalingPass::runOnOperation() {
  if (failed(rewriteTrainSteps(
          getOperation(), getArgument(),
          [&](func::FuncOp func) { return rewriteFunction(func); })))
    signalPassFailure();
}

LogicalResult LossScalingPass::rewriteFunction(func::FuncOp func) {
  SmallVector<GradOp> grads;
  func.walk([&](GradOp grad) { grads.push_back(grad); });
  if (grads.empty() || func->hasAttr(MPDialect::kLossScalingAttrName))
    return success();

  FailureOr<ScalingConfig> config = validateOptions(func.getLoc());
  if (failed(config))
    return failure();
  if (grads.size() > 1) {
    grads[1].emitError("mp-loss-scaling expects one mp.grad per function, "
                       "found ")
        << grads.size();
    return failure();
  }
  GradOp grad = grads.front();
  if (!func.getBody().hasOneBlock() || grad->getParentOp() != func) {
    grad.emitError("mp-loss-scaling expects mp.grad directly in the body of "
                   "a single-block function");
    return failure();
  }
  return scale(func, grad, *config);
}

LogicalResult LossScalingPass::scale(func::FuncOp func, GradOp grad,
                                     const ScalingConfig &config) {
  MLIRContext *context = func.getContext();
  Block &body = func.front();
  auto returnOp = dyn_cast<func::ReturnOp>(body.getTerminator());
  if (!returnOp)
    return func.emitError("mp-loss-scaling expects a func.return terminator");
  Location loc = grad.getLoc();
  OpBuilder builder(context);
  Type f32 = builder.getF32Type();
  Type i32 = builder.getI32Type();
  auto f32Scalar = RankedTensorType::get({}, f32);
  auto i32Scalar = RankedTensorType::get({}, i32);
  unsigned numOriginalResults = func.getNumResults();

  // The scale S, its reciprocal and (dynamic mode) the threaded state.
  auto addStateArgument = [&](Type type, StringRef kind,
                              Attribute init) -> Value {
    return appendStateArgument(func, type, kind, init);
  };
  Value scale, tracker, hysteresisTracker;
  builder.setInsertionPoint(grad);
  if (config.dynamic) {
    scale = addStateArgument(f32Scalar, "loss_scale",
                             builder.getF32FloatAttr(config.initScale));
    tracker = addStateArgument(i32Scalar, "growth_tracker", {});
    if (hysteresis > 1)
      hysteresisTracker = addStateArgument(
          i32Scalar, "hysteresis_tracker",
          builder.getI32IntegerAttr(static_cast<int32_t>(hysteresis)));
  } else {
    scale = createScalarTensor(builder, loc, f32,
                               builder.getF32FloatAttr(config.initScale));
  }

  // loss * S feeds the backward; the function still returns the loss itself.
  Value scaledLoss =
      ScaleOp::create(builder, loc, grad.getLoss(), scale).getResult();
  grad.getLossMutable().assign(scaledLoss);

  // 1/S as GradScaler computes it: the reciprocal in double, then float.
  builder.setInsertionPointAfter(grad);
  Value inverse;
  if (config.dynamic) {
    auto f64Scalar = RankedTensorType::get({}, builder.getF64Type());
    Value wide = arith::ExtFOp::create(builder, loc, f64Scalar, scale);
    Value one = createScalarTensor(builder, loc, builder.getF64Type(),
                                   builder.getF64FloatAttr(1.0));
    Value reciprocal = arith::DivFOp::create(builder, loc, one, wide);
    inverse = arith::TruncFOp::create(builder, loc, f32Scalar, reciprocal);
  } else {
    float reciprocal = static_cast<float>(1.0 / config.initScale);
    inverse = createScalarTensor(builder, loc, f32,
                                 builder.getF32FloatAttr(reciprocal));
  }

  // Unscale every gradient in f32; users keep the types they expect.
  SmallVector<Value> unscaled;
  // Casts made redundant, erased once no op is inserted next to them (the
  // builder's insertion point may be one of them).
  SmallVector<Operation *> redundantCasts;
  for (Value gradient : grad.getGradients()) {
    auto type = cast<RankedTensorType>(gradient.getType());
    auto f32Type = type.clone(f32);
    Value wide = gradient;
    if (type.getElementType() != f32)
      wide = CastOp::create(builder, loc, f32Type, gradient).getResult();
    Value result = ScaleOp::create(builder, loc, wide, inverse).getResult();
    unscaled.push_back(result);

    Value castBack;
    for (OpOperand &use : llvm::make_early_inc_range(gradient.getUses())) {
      Operation *user = use.getOwner();
      if (user == wide.getDefiningOp() || user == result.getDefiningOp())
        continue;
      if (wide == gradient) {
        use.set(result);
        continue;
      }
      // A cast of the gradient to f32 is the unscaled gradient itself.
      if (auto cast = dyn_cast<CastOp>(user);
          cast && cast.getResult().getType() == f32Type) {
        cast.getResult().replaceAllUsesWith(result);
        redundantCasts.push_back(cast);
        continue;
      }
      if (!castBack) {
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPointAfterValue(result);
        castBack = CastOp::create(builder, loc, type, result).getResult();
      }
      use.set(castBack);
    }
  }
  for (Operation *cast : redundantCasts)
    cast->erase();

  // found_inf, the skip decision and the scale update, right before return.
  builder.setInsertionPoint(returnOp);
  Location returnLoc = returnOp.getLoc();
  // A clip_grad_norm of the (unscaled) gradients adds its total norm: a
  // non-finite norm skips the step.
  SmallVector<Value> checked(unscaled);
  for (ClipGradNormOp clip : body.getOps<ClipGradNormOp>())
    checked.push_back(clip.getTotalNorm());
  Value allFinite = AllFiniteOp::create(builder, loc, checked).getResult();
  Value trueTensor = createScalarTensor(builder, loc, builder.getI1Type(),
                                        builder.getBoolAttr(true));
  Value foundInf = arith::XOrIOp::create(builder, loc, allFinite, trueTensor);

  SmallVector<Value> results(returnOp.getOperands());
  if (config.skip) {
    Value finite =
        tensor::ExtractOp::create(builder, returnLoc, allFinite, ValueRange{});
    for (unsigned i = 0; i < numOriginalResults; ++i) {
      auto target =
          func.getResultAttrOfType<IntegerAttr>(i, MPDialect::kUpdatesAttrName);
      // Forward state (RNG, batch-norm statistics) advances on a skipped
      // step too: GradScaler skips only optimizer.step().
      if (!target || isForwardStateArgument(func, target.getInt()))
        continue;
      Value previous = func.getArgument(target.getInt());
      results[i] = arith::SelectOp::create(builder, returnLoc, finite,
                                           results[i], previous);
    }
  }

  auto appendResult = [&](Value value, NamedAttribute attr) {
    unsigned index = func.getNumResults();
    (void)func.insertResult(index, value.getType(),
                            builder.getDictionaryAttr({attr}));
    results.push_back(value);
  };
  auto updatesAttr = [&](Value argument) {
    return builder.getNamedAttr(
        MPDialect::kUpdatesAttrName,
        builder.getI64IntegerAttr(
            cast<BlockArgument>(argument).getArgNumber()));
  };
  if (config.dynamic) {
    auto update = UpdateLossScaleOp::create(
        builder, loc, scale, tracker, foundInf, hysteresisTracker,
        builder.getF64FloatAttr(growthFactor),
        builder.getF64FloatAttr(backoffFactor),
        builder.getI64IntegerAttr(growthInterval),
        builder.getI64IntegerAttr(hysteresis),
        minScale > 0.0 ? builder.getF64FloatAttr(minScale) : FloatAttr(),
        maxScale > 0.0 ? builder.getF64FloatAttr(maxScale) : FloatAttr());
    appendResult(update.getNewScale(), updatesAttr(scale));
    appendResult(update.getNewGrowthTracker(), updatesAttr(tracker));
    if (hysteresisTracker)
      appendResult(update.getNewHysteresisTracker(),
                   updatesAttr(hysteresisTracker));
  }
  if (config.skip)
    appendResult(foundInf, builder.getNamedAttr(MPDialect::kSkippedAttrName,
                                                builder.getUnitAttr()));
  returnOp->setOperands(results);
  func->setAttr(MPDialect::kLossScalingAttrName,
                builder.getStringAttr(config.dynamic ? "dynamic" : "static"));
  return success();
}
