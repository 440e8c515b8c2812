//===- DataParallel.cpp - Gradient all-reduce across processes ------------===//
//
// mp-data-parallel makes a train step data-parallel: each gradient, where the
// step consumes it (after mp-loss-scaling's unscale), is divided by the group
// size N (averaging), cast to the reduce type, summed across the processes of
// a 1-D `shard.grid @mp_data_parallel` with `shard.all_reduce` and cast back;
// the `mp.all_finite` of loss scaling checks the reduced gradients and its
// verdict is combined across the group (found_inf as i32, max), so every
// process skips the same steps; the `mp.loss` result becomes the group's mean
// loss. Each process draws its own random numbers: the step's ops read the
// rng state [seed, offset] with the process's rank folded into the key
// (seed XOR rank << 32) and the state it returns carries the shared seed
// again, so the threaded state stays identical on every process. Float
// batch-norm statistics (`mp.state` kinds `bn.*`) are broadcast
// from process 0 at the start of the step, as DDP's broadcast_buffers=True:
// shard has no broadcast that lowers to MPI, so each is an all-reduce sum of
// (process 0 ? value : 0), which is exact (x + 0 = x; a −0 becomes +0).
//
// It assumes one `mp.grad` directly in the body of a single-block function
// that follows the train-step contract (docs/TrainStep.md), and runs before
// mp-autodiff. Functions without `mp.grad` and without an `mp.loss` result,
// and functions that already hold `shard.all_reduce`, are left unchanged.
//
//===----------------------------------------------------------------------===//

#include "mp/Dialect/MP/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mp/Dialect/MP/IR/MPOps.h"

namespace mlir::mp {
#define GEN_PASS_DEF_MPDATAPARALLEL
#include "mp/Dialect/MP/Transforms/Passes.h.inc"
} // namespace mlir::mp

using namespace mlir;
using namespace mlir::mp;

/// The symbol of the data-parallel grid.
static constexpr StringLiteral kGridName = "mp_data_parallel";

namespace {

struct DataParallelPass
    : public mp::impl::MPDataParallelBase<DataParallelPass> {
  using MPDataParallelBase::MPDataParallelBase;

  void runOnOperation() override;

private:
  /// Finds or creates the grid; null after an error.
  shard::GridOp getOrCreateGrid(ModuleOp module);
  /// Rewrites the train step `func` around its `grad`.
  void distribute(func::FuncOp func, GradOp grad, Type reduceElementType);
  /// Gives each process its own stream of the rng state arguments of `func`.
  void splitRngStreams(func::FuncOp func);
};

} // namespace

/// The gradient `gradient` as the step consumes it: the end of the chain of
/// `mp.cast`/`mp.scale` ops (each the only user of the previous value) that
/// mp-loss-scaling puts on an `mp.grad` result to unscale it.
static Value getConsumedGradient(Value gradient) {
  Value value = gradient;
  while (value.hasOneUse()) {
    Operation *user = *value.getUsers().begin();
    if (auto castOp = dyn_cast<CastOp>(user)) {
      value = castOp.getResult();
      continue;
    }
    auto scale = dyn_cast<ScaleOp>(user);
    if (!scale || scale.getInput() != value)
      break;
    value = scale.getResult();
  }
  return value;
}

shard::GridOp DataParallelPass::getOrCreateGrid(ModuleOp module) {
  int64_t size = gridSize > 0 ? gridSize.getValue() : ShapedType::kDynamic;
  Operation *existing = module.lookupSymbol(kGridName);
  if (existing) {
    auto grid = dyn_cast<shard::GridOp>(existing);
    if (!grid || grid.getShape() != ArrayRef<int64_t>{size}) {
      existing->emitError("mp-data-parallel: symbol '@")
          << kGridName << "' must be a 1-D shard.grid of shape "
          << (size == ShapedType::kDynamic ? std::string("?")
                                           : std::to_string(size));
      return {};
    }
    return grid;
  }
  OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
  return shard::GridOp::create(builder, module.getLoc(), kGridName,
                               ArrayRef<int64_t>{size});
}

void DataParallelPass::runOnOperation() {
  ModuleOp module = getOperation();
  Type reduceElementType = llvm::StringSwitch<Type>(reduceType)
                               .Case("f32", Float32Type::get(&getContext()))
                               .Case("bf16", BFloat16Type::get(&getContext()))
                               .Case("f16", Float16Type::get(&getContext()))
                               .Default(Type());
  if (!reduceElementType) {
    module.emitError("mp-data-parallel: reduce-type must be f32, bf16 or "
                     "f16, got '")
        << reduceType << "'";
    return signalPassFailure();
  }
  if (gridSize < 0) {
    module.emitError("mp-data-parallel: grid-size must be >= 0 (0: set by "
                     "the runtime), got ")
        << static_cast<int64_t>(gridSize);
    return signalPassFailure();
  }

  // The train steps to distribute, all checked before anything changes.
  SmallVector<std::pair<func::FuncOp, GradOp>> steps;
  bool failed = false;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    bool distributed = false;
    SmallVector<GradOp> grads;
    func.walk([&](Operation *op) {
      distributed |= isa<shard::AllReduceOp>(op);
      if (auto grad = dyn_cast<GradOp>(op))
        grads.push_back(grad);
    });
    if (distributed)
      continue;
    if (grads.empty()) {
      bool isTrainStep = false;
      for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
        isTrainStep |= !!func.getResultAttr(i, MPDialect::kLossAttrName);
      if (isTrainStep) {
        func.emitError("mp-data-parallel expects the train step's gradients "
                       "as mp.grad results (run it before mp-autodiff)");
        failed = true;
      }
      continue;
    }
    if (grads.size() > 1) {
      grads[1].emitError("mp-data-parallel expects one mp.grad per "
                         "function, found ")
          << grads.size();
      failed = true;
      continue;
    }
    if (!func.getBody().hasOneBlock() || grads[0]->getParentOp() != func ||
        !isa<func::ReturnOp>(func.front().getTerminator())) {
      grads[0].emitError("mp-data-parallel expects mp.grad directly in the "
                         "body of a single-block function ending in "
                         "func.return");
      failed = true;
      continue;
    }
    steps.emplace_back(func, grads[0]);
  }
  if (failed)
    return signalPassFailure();
  if (steps.empty())
    return;
  if (!getOrCreateGrid(module))
    return signalPassFailure();
  for (auto [func, grad] : steps) {
    distribute(func, grad, reduceElementType);
    splitRngStreams(func);
  }
}

void DataParallelPass::splitRngStreams(func::FuncOp func) {
  auto returnOp = cast<func::ReturnOp>(func.front().getTerminator());
  for (BlockArgument state : func.getArguments()) {
    auto kind = func.getArgAttrOfType<StringAttr>(state.getArgNumber(),
                                                  MPDialect::kStateAttrName);
    if (!kind || kind.getValue() != "rng" || state.use_empty())
      continue;
    OpBuilder builder = OpBuilder::atBlockBegin(&func.front());
    Location loc = state.getLoc();
    Type i64 = builder.getI64Type();
    SmallVector<OpOperand *> uses(llvm::make_pointer_range(state.getUses()));
    // seed' = seed XOR (rank << 32), in the key word k1 = seed[63:32]: rank 0
    // keeps the single-process stream.
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    Value seed = tensor::ExtractOp::create(builder, loc, state, zero);
    Value rank = shard::ProcessLinearIndexOp::create(
                     builder, loc, builder.getIndexType(),
                     FlatSymbolRefAttr::get(builder.getContext(), kGridName))
                     .getResult();
    Value wideRank = arith::IndexCastUIOp::create(builder, loc, i64, rank);
    Value shifted = arith::ShLIOp::create(
        builder, loc, wideRank,
        arith::ConstantOp::create(builder, loc, builder.getI64IntegerAttr(32)));
    Value rankSeed = arith::XOrIOp::create(builder, loc, seed, shifted);
    Value rankState =
        tensor::InsertOp::create(builder, loc, rankSeed, state, zero);
    for (OpOperand *use : uses)
      use->set(rankState);
    // The returned state: the shared seed, the advanced offset.
    for (OpOperand &operand : returnOp->getOpOperands()) {
      auto target = func.getResultAttrOfType<IntegerAttr>(
          operand.getOperandNumber(), MPDialect::kUpdatesAttrName);
      if (!target || target.getInt() != state.getArgNumber())
        continue;
      builder.setInsertionPoint(returnOp);
      operand.set(
          tensor::InsertOp::create(builder, loc, seed, operand.get(), zero));
    }
  }
}

void DataParallelPass::distribute(func::FuncOp func, GradOp grad,
                                  Type reduceElementType) {
  OpBuilder builder(func.getContext());
  Location loc = grad.getLoc();
  Type f32 = builder.getF32Type();
  Type i32 = builder.getI32Type();
  auto f32Scalar = RankedTensorType::get({}, f32);
  SmallVector<shard::GridAxis> axes{0};

  // Batch-norm statistics: process 0's, before any use. The counter
  // (bn.num_batches_tracked, an integer) is the same on every process, which
  // all run the same steps.
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(&func.front());
    Value isRoot;
    for (BlockArgument argument : func.getArguments()) {
      auto kind = func.getArgAttrOfType<StringAttr>(argument.getArgNumber(),
                                                    MPDialect::kStateAttrName);
      auto type = dyn_cast<RankedTensorType>(argument.getType());
      if (!kind || !kind.getValue().starts_with("bn.") || !type ||
          !isa<FloatType>(type.getElementType()) || argument.use_empty())
        continue;
      Location argLoc = argument.getLoc();
      if (!isRoot) {
        Value index =
            shard::ProcessLinearIndexOp::create(builder, argLoc, kGridName);
        Value zeroIndex = arith::ConstantIndexOp::create(builder, argLoc, 0);
        isRoot = arith::CmpIOp::create(
            builder, argLoc, arith::CmpIPredicate::eq, index, zeroIndex);
      }
      Value zeros = arith::ConstantOp::create(
          builder, argLoc,
          DenseElementsAttr::get(
              type, builder.getFloatAttr(type.getElementType(), 0.0)));
      Value masked =
          arith::SelectOp::create(builder, argLoc, isRoot, argument, zeros);
      Value broadcast =
          shard::AllReduceOp::create(builder, argLoc, type, kGridName,
                                     ArrayRef<int16_t>{0}, masked,
                                     shard::ReductionKind::Sum)
              .getResult();
      argument.replaceAllUsesExcept(broadcast, masked.getDefiningOp());
    }
  }

  // 1/N, computed as double and rounded to f32 (static N: a constant).
  builder.setInsertionPointAfter(grad);
  Value inverseSize;
  if (gridSize > 0) {
    inverseSize = createScalarTensor(
        builder, loc, f32,
        builder.getF32FloatAttr(static_cast<float>(1.0 / gridSize)));
  } else {
    Value size = shard::GridShapeOp::create(builder, loc, kGridName, axes)
                     .getResult()[0];
    Value wide =
        arith::IndexCastUIOp::create(builder, loc, builder.getI64Type(), size);
    Value real =
        arith::UIToFPOp::create(builder, loc, builder.getF64Type(), wide);
    Value one =
        arith::ConstantOp::create(builder, loc, builder.getF64FloatAttr(1.0));
    Value reciprocal = arith::DivFOp::create(builder, loc, one, real);
    Value narrow = arith::TruncFOp::create(builder, loc, f32, reciprocal);
    inverseSize =
        tensor::FromElementsOp::create(builder, loc, f32Scalar, narrow);
  }

  // Each gradient: ×1/N in f32, cast to the reduce type, summed, cast back.
  auto reduce = [&](OpBuilder &b, Value value, Type reduceType, bool mean) {
    Type elementType = cast<RankedTensorType>(value.getType()).getElementType();
    Value result = value;
    if (mean)
      result = ScaleOp::create(b, loc, castElements(b, loc, result, f32),
                               inverseSize)
                   .getResult();
    result = castElements(b, loc, result, reduceType);
    result = shard::AllReduceOp::create(b, loc, result.getType(), kGridName,
                                        ArrayRef<int16_t>{0}, result,
                                        shard::ReductionKind::Sum)
                 .getResult();
    return castElements(b, loc, result, elementType);
  };
  for (Value gradient : grad.getGradients()) {
    Value consumed = getConsumedGradient(gradient);
    if (consumed.use_empty())
      continue;
    SmallVector<OpOperand *> uses(llvm::make_pointer_range(consumed.getUses()));
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointAfterValue(consumed);
    if (consumed == gradient)
      builder.setInsertionPointAfterValue(inverseSize);
    Value reduced = reduce(builder, consumed, reduceElementType, average);
    for (OpOperand *use : uses)
      use->set(reduced);
  }

  // One skip decision: found_inf of every process, or-ed (max as i32).
  SmallVector<AllFiniteOp> checks;
  func.walk([&](AllFiniteOp op) { checks.push_back(op); });
  for (AllFiniteOp check : checks) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointAfter(check);
    Location checkLoc = check.getLoc();
    Value trueTensor = createScalarTensor(
        builder, checkLoc, builder.getI1Type(), builder.getBoolAttr(true));
    Value localInf =
        arith::XOrIOp::create(builder, checkLoc, check.getResult(), trueTensor);
    Value wide = arith::ExtUIOp::create(
        builder, checkLoc, RankedTensorType::get({}, i32), localInf);
    Value anyWide = shard::AllReduceOp::create(
                        builder, checkLoc, wide.getType(), kGridName,
                        ArrayRef<int16_t>{0}, wide, shard::ReductionKind::Max)
                        .getResult();
    Value zero = createScalarTensor(builder, checkLoc, i32,
                                    builder.getI32IntegerAttr(0));
    Value anyInf = arith::CmpIOp::create(
        builder, checkLoc, arith::CmpIPredicate::ne, anyWide, zero);
    Value allFinite =
        arith::XOrIOp::create(builder, checkLoc, anyInf, trueTensor);
    check.getResult().replaceAllUsesExcept(allFinite, localInf.getDefiningOp());
  }

  // The loss every process reports: the mean over the group, in f32.
  auto returnOp = cast<func::ReturnOp>(func.front().getTerminator());
  builder.setInsertionPoint(returnOp);
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i) {
    if (!func.getResultAttr(i, MPDialect::kLossAttrName))
      continue;
    Value loss = returnOp.getOperand(i);
    if (!isa<FloatType>(getElementTypeOrSelf(loss.getType())))
      continue;
    returnOp.setOperand(i, reduce(builder, loss, f32, /*mean=*/true));
  }
}
