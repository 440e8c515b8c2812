//===- MasterWeights.cpp - FP32 master weights and optimizer --------------===//
//
// mp-master-weights keeps the parameters of a train step as f32 masters and
// runs the optimizer and its state in f32, in one of two styles:
//
// - cast-per-step (PyTorch AMP): a parameter stored in a lower precision T
//   becomes an f32 argument, cast once to T at function entry for the
//   forward; gradients are taken with respect to the master (so they are f32);
// - stored-copy (Apex O2): a parameter the forward uses in a precision T gets
//   a working-copy argument of type T (`mp.state = "working_copy"`,
//   `mp.copy_of`); the forward and the gradient use the copy, the gradient is
//   cast to f32 for the optimizer, and the copy is refreshed from the updated
//   master and returned.
//
// It assumes a single-block function following the train-step contract whose
// optimizer ops take their parameter and state directly from arguments; it
// runs after mp-autocast and before mp-loss-scaling and mp-autodiff.
// It runs on the module, one function at a time; a function whose signature
// it changes must not be referenced in the module (mp::rewriteTrainSteps).
//
//===----------------------------------------------------------------------===//

#include "mp/Dialect/MP/Transforms/Passes.h"
#include "mp/Dialect/MP/Transforms/TrainSteps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mp/Dialect/MP/IR/MPOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::mp {
#define GEN_PASS_DEF_MPMASTERWEIGHTS
#include "mp/Dialect/MP/Transforms/Passes.h.inc"
} // namespace mlir::mp

using namespace mlir;
using namespace mlir::mp;

namespace {

/// How one parameter argument is rewritten.
struct ParamPlan {
  /// The parameter argument; it holds the f32 master afterwards.
  BlockArgument master;
  /// The precision the forward uses the parameter in.
  RankedTensorType workingType;
  /// True when the argument itself is stored in `workingType` and becomes f32.
  bool widenArgument = false;
  /// The working-copy argument (stored-copy style) or the per-step cast.
  Value working;
};

struct MasterWeightsPass
    : public mp::impl::MPMasterWeightsBase<MasterWeightsPass> {
  using MPMasterWeightsBase::MPMasterWeightsBase;

  void runOnOperation() override;

private:
  /// Rewrites one function of the module; fails after reporting an error.
  LogicalResult rewriteFunction(func::FuncOp func);
};

} // namespace

/// True for the optimizer ops, whose operand 0 is the parameter.
static bool isOptimizer(Operation *op) {
  return isa<SGDOp, AdamOp, AdamWOp>(op);
}

/// The state operands of an optimizer op (momentum buffer or moments).
static SmallVector<OpOperand *> getStateOperands(Operation *op) {
  SmallVector<OpOperand *> states;
  if (auto sgd = dyn_cast<SGDOp>(op)) {
    for (OpOperand &operand : sgd.getMomentumBufferMutable())
      states.push_back(&operand);
  } else if (auto adam = dyn_cast<AdamOp>(op)) {
    states = {&adam.getExpAvgMutable(), &adam.getExpAvgSqMutable()};
  } else if (auto adamw = dyn_cast<AdamWOp>(op)) {
    states = {&adamw.getExpAvgMutable(), &adamw.getExpAvgSqMutable()};
  }
  // amsgrad's max_exp_avg_sq.
  if (auto adam = dyn_cast<AdamOp>(op))
    for (OpOperand &operand : adam.getMaxExpAvgSqMutable())
      states.push_back(&operand);
  if (auto adamw = dyn_cast<AdamWOp>(op))
    for (OpOperand &operand : adamw.getMaxExpAvgSqMutable())
      states.push_back(&operand);
  return states;
}

/// The single lower-precision type `param` is cast to by its users, if any;
/// users other than casts, mp.grad, optimizers and the return make it none.
static RankedTensorType findWorkingType(BlockArgument param) {
  RankedTensorType working;
  for (Operation *user : param.getUsers()) {
    if (isa<GradOp, func::ReturnOp>(user) || isOptimizer(user))
      continue;
    auto cast = dyn_cast<CastOp>(user);
    if (!cast)
      return {};
    auto type = cast.getResult().getType();
    if (type.getElementType().getIntOrFloatBitWidth() >= 32 ||
        (working && working != type))
      return {};
    working = type;
  }
  return working;
}

/// The `mp.init` value `init` of a state argument widened to f32: a scalar
/// or dense float value converted exactly (every f16/bf16/FP8 value is an f32
/// value); null for a form that cannot be converted.
static TypedAttr widenInitValue(TypedAttr init, RankedTensorType widenedType) {
  Type f32 = widenedType.getElementType();
  auto widen = [&](APFloat value) {
    bool losesInfo = false;
    value.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
    return value;
  };
  if (auto scalar = dyn_cast<FloatAttr>(init))
    return FloatAttr::get(f32, widen(scalar.getValue()));
  if (auto dense = dyn_cast<DenseFPElementsAttr>(init))
    return dense.mapValues(f32, [&](const APFloat &value) {
      return widen(value).bitcastToAPInt();
    });
  return {};
}

void MasterWeightsPass::runOnOperation() {
  if (failed(rewriteTrainSteps(
          getOperation(), getArgument(),
          [&](func::FuncOp func) { return rewriteFunction(func); })))
    signalPassFailure();
}

LogicalResult MasterWeightsPass::rewriteFunction(func::FuncOp func) {
  if (style != "cast-per-step" && style != "stored-copy") {
    func.emitError("mp-master-weights: style must be 'cast-per-step' or "
                   "'stored-copy', got '")
        << style << "'";
    return failure();
  }
  if (masterType != "f32") {
    func.emitError("mp-master-weights: master-type must be 'f32', got '")
        << masterType << "'";
    return failure();
  }
  if (func.isExternal())
    return success();
  bool storedCopy = style == "stored-copy";
  Block &body = func.front();
  auto returnOp = dyn_cast<func::ReturnOp>(body.getTerminator());
  if (!func.getBody().hasOneBlock() || !returnOp) {
    func.emitError("mp-master-weights expects a single-block function ending "
                   "in func.return");
    return failure();
  }
  OpBuilder builder(func.getContext());
  Type f32 = builder.getF32Type();

  // Plan each parameter.
  SmallVector<ParamPlan> plans;
  for (BlockArgument arg : body.getArguments()) {
    if (!func.getArgAttr(arg.getArgNumber(), MPDialect::kParamAttrName))
      continue;
    auto type = cast<RankedTensorType>(arg.getType());
    if (type.getElementType() != f32) {
      plans.push_back({arg, type, /*widenArgument=*/true, {}});
      continue;
    }
    if (!storedCopy)
      continue;
    bool hasCopy = llvm::any_of(body.getArguments(), [&](BlockArgument other) {
      auto of = func.getArgAttrOfType<IntegerAttr>(other.getArgNumber(),
                                                   MPDialect::kCopyOfAttrName);
      return of && of.getInt() == arg.getArgNumber();
    });
    if (RankedTensorType working = findWorkingType(arg); working && !hasCopy)
      plans.push_back({arg, working, /*widenArgument=*/false, {}});
  }
  if (plans.empty())
    return success();

  // Each optimizer must take its parameter and state from arguments.
  llvm::MapVector<Value, Operation *> optimizerOf;
  for (Operation &op : body) {
    if (!isOptimizer(&op))
      continue;
    bool fromArguments = isa<BlockArgument>(op.getOperand(0));
    for (OpOperand *state : getStateOperands(&op))
      fromArguments &= isa<BlockArgument>(state->get());
    if (!fromArguments) {
      op.emitError("mp-master-weights expects the optimizer's parameter and "
                   "state to be function arguments");
      return failure();
    }
    // A low-precision state widened to f32 keeps its initial value.
    for (OpOperand *state : getStateOperands(&op)) {
      auto stateArg = cast<BlockArgument>(state->get());
      auto init = func.getArgAttrOfType<TypedAttr>(stateArg.getArgNumber(),
                                                   MPDialect::kInitAttrName);
      auto stateType = cast<RankedTensorType>(stateArg.getType());
      if (init && stateType.getElementType() != f32 &&
          !widenInitValue(init, stateType.clone(f32))) {
        op.emitError("mp-master-weights cannot convert the initial value of "
                     "state argument ")
            << stateArg.getArgNumber() << " to f32: " << init;
        return failure();
      }
    }
    optimizerOf[op.getOperand(0)] = &op;
  }

  // Masters become f32; the forward gets the working value.
  builder.setInsertionPointToStart(&body);
  for (ParamPlan &plan : plans) {
    Location loc = plan.master.getLoc();
    if (plan.widenArgument)
      plan.master.setType(plan.workingType.clone(f32));
    if (storedCopy) {
      plan.working = appendStateArgument(
          func, plan.workingType, "working_copy", /*init=*/{},
          builder.getNamedAttr(
              MPDialect::kCopyOfAttrName,
              builder.getI64IntegerAttr(plan.master.getArgNumber())));
    } else {
      plan.working =
          CastOp::create(builder, loc, plan.workingType, plan.master);
    }
    for (OpOperand &use : llvm::make_early_inc_range(plan.master.getUses())) {
      Operation *user = use.getOwner();
      if (user == plan.working.getDefiningOp() || isa<func::ReturnOp>(user) ||
          (isOptimizer(user) && use.getOperandNumber() == 0))
        continue;
      if (isa<GradOp>(user)) {
        // Gradients with respect to the master in cast-per-step style (f32
        // through the cast); with respect to the copy in stored-copy style.
        if (storedCopy)
          use.set(plan.working);
        continue;
      }
      if (auto cast = dyn_cast<CastOp>(user);
          cast && cast.getResult().getType() == plan.workingType) {
        cast.getResult().replaceAllUsesWith(plan.working);
        cast->erase();
        continue;
      }
      use.set(plan.working);
    }
  }

  // Rebuild each mp.grad whose operand types changed; optimizers of planned
  // parameters take the new gradients, other users get the old type back.
  SmallVector<GradOp> grads(body.getOps<GradOp>());
  for (GradOp grad : grads) {
    builder.setInsertionPoint(grad);
    auto rebuilt = GradOp::create(builder, grad.getLoc(), grad.getLoss(),
                                  grad.getValues());
    builder.setInsertionPointAfter(rebuilt);
    for (auto [oldResult, newResult] :
         llvm::zip(grad.getGradients(), rebuilt.getGradients())) {
      Value castBack;
      for (OpOperand &use : llvm::make_early_inc_range(oldResult.getUses())) {
        Operation *user = use.getOwner();
        if (isOptimizer(user) && use.getOperandNumber() == 1 &&
            llvm::any_of(plans, [&](const ParamPlan &plan) {
              return user->getOperand(0) == plan.master;
            })) {
          use.set(newResult);
          continue;
        }
        if (!castBack)
          castBack = castElements(builder, grad.getLoc(), newResult,
                                  getElementTypeOrSelf(oldResult.getType()));
        use.set(castBack);
      }
    }
    grad->erase();
  }

  // Gradient clipping runs in f32 too: a clip of gradients cast back from
  // f32 is rebuilt on the f32 values; optimizers of planned parameters take
  // its f32 results, other users get the old type back.
  auto isPlannedOptimizerGrad = [&](OpOperand &use) {
    Operation *user = use.getOwner();
    return isOptimizer(user) && use.getOperandNumber() == 1 &&
           llvm::any_of(plans, [&](const ParamPlan &plan) {
             return user->getOperand(0) == plan.master;
           });
  };
  SmallVector<ClipGradNormOp> clips(body.getOps<ClipGradNormOp>());
  for (ClipGradNormOp clip : clips) {
    SmallVector<Value> operands;
    llvm::SmallSetVector<Operation *, 4> narrowings;
    bool widened = false;
    for (Value gradient : clip.getGradients()) {
      auto narrowing = gradient.getDefiningOp<CastOp>();
      if (narrowing && getElementTypeOrSelf(narrowing.getInput()) == f32) {
        operands.push_back(narrowing.getInput());
        narrowings.insert(narrowing);
        widened = true;
      } else {
        operands.push_back(gradient);
      }
    }
    if (!widened)
      continue;
    builder.setInsertionPoint(clip);
    auto rebuilt = ClipGradNormOp::create(builder, clip.getLoc(), operands,
                                          clip.getMaxNormAttr(),
                                          clip.getInfNormAttr());
    builder.setInsertionPointAfter(rebuilt);
    for (auto [oldResult, newResult] :
         llvm::zip(clip.getClipped(), rebuilt.getClipped())) {
      Value castBack;
      for (OpOperand &use : llvm::make_early_inc_range(oldResult.getUses())) {
        if (oldResult.getType() == newResult.getType() ||
            isPlannedOptimizerGrad(use)) {
          use.set(newResult);
          continue;
        }
        if (!castBack)
          castBack = castElements(builder, clip.getLoc(), newResult,
                                  getElementTypeOrSelf(oldResult.getType()));
        use.set(castBack);
      }
    }
    clip.getTotalNorm().replaceAllUsesWith(rebuilt.getTotalNorm());
    clip->erase();
    for (Operation *narrowing : narrowings)
      if (narrowing->use_empty())
        narrowing->erase();
  }

  // Optimizers of planned parameters run in f32 on the masters.
  for (ParamPlan &plan : plans) {
    Operation *optimizer = optimizerOf.lookup(plan.master);
    if (!optimizer)
      continue;
    Location loc = optimizer->getLoc();
    builder.setInsertionPoint(optimizer);
    optimizer->setOperand(
        1, castElements(builder, loc, optimizer->getOperand(1),
                        getElementTypeOrSelf(plan.master.getType())));
    for (OpOperand *state : getStateOperands(optimizer)) {
      auto stateArg = cast<BlockArgument>(state->get());
      auto stateType = cast<RankedTensorType>(stateArg.getType());
      if (stateType.getElementType() == f32)
        continue;
      stateArg.setType(stateType.clone(f32));
      unsigned stateIndex = stateArg.getArgNumber();
      if (auto init = func.getArgAttrOfType<TypedAttr>(
              stateIndex, MPDialect::kInitAttrName))
        func.setArgAttr(stateIndex, MPDialect::kInitAttrName,
                        widenInitValue(init, stateType.clone(f32)));
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(&body);
      Value narrow;
      for (OpOperand &use : llvm::make_early_inc_range(stateArg.getUses())) {
        if (use.getOwner() == optimizer || isa<func::ReturnOp>(use.getOwner()))
          continue;
        if (!narrow)
          narrow = castElements(builder, loc, stateArg,
                                getElementTypeOrSelf(stateType));
        use.set(narrow);
      }
    }
    // Recreate the op so its inferred result types follow the operands.
    OperationState state(loc, optimizer->getName());
    state.addOperands(optimizer->getOperands());
    state.addAttributes(optimizer->getAttrs());
    SmallVector<Type> resultTypes;
    for (Value result : optimizer->getResults())
      resultTypes.push_back(
          cast<RankedTensorType>(result.getType()).clone(f32));
    state.addTypes(resultTypes);
    Operation *widened = builder.create(state);
    builder.setInsertionPointAfter(widened);
    for (auto [oldResult, newResult] :
         llvm::zip(optimizer->getResults(), widened->getResults())) {
      Value castBack;
      for (OpOperand &use : llvm::make_early_inc_range(oldResult.getUses())) {
        if (isa<func::ReturnOp>(use.getOwner())) {
          use.set(newResult);
          continue;
        }
        if (!castBack)
          castBack = castElements(builder, loc, newResult,
                                  getElementTypeOrSelf(oldResult.getType()));
        use.set(castBack);
      }
    }
    optimizer->erase();

    // Refresh the working copy from the updated master.
    if (storedCopy) {
      builder.setInsertionPoint(returnOp);
      Value refreshed = castElements(builder, loc, widened->getResult(0),
                                     getElementTypeOrSelf(plan.workingType));
      unsigned index = func.getNumResults();
      (void)func.insertResult(
          index, refreshed.getType(),
          builder.getDictionaryAttr(builder.getNamedAttr(
              MPDialect::kUpdatesAttrName,
              builder.getI64IntegerAttr(
                  cast<BlockArgument>(plan.working).getArgNumber()))));
      returnOp->insertOperands(returnOp->getNumOperands(), refreshed);
    }
  }

  func.setFunctionType(builder.getFunctionType(body.getArgumentTypes(),
                                               returnOp.getOperandTypes()));
  return success();
}
