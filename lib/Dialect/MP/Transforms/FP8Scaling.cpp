//===- FP8Scaling.cpp - FP8 matmuls with per-tensor scaling ---------------===//
//
// mp-fp8-scaling runs the hidden matmul-like ops of a train step in FP8 with
// Transformer Engine's per-tensor scaling: each operand is quantised as
// saturating_cast(x · scale) (E4M3 forward, E5M2 or E4M3 gradients), the FP8
// op accumulates in f32 and its result is multiplied by 1/(scale_a · scale_b)
// and cast back to the original result type. With the delayed recipe every
// FP8 tensor threads an amax history and a scale through the signature; with
// the current recipe the scale comes from the tensor's own amax.
//
// It assumes the joint graph of a train step (docs/TrainStep.md) after
// mp-autodiff: a single-block function with an `mp.loss` result and no
// `mp.grad`, whose backward matmuls are the `mp.matmul`s mp-autodiff built
// from the forward operands (possibly through `mp.reshape`) and the
// gradients of the forward results. Forward ops are the ops the loss depends
// on. Functions without an `mp.loss` result are left unchanged, as are ops
// already in FP8 (so the pass is idempotent).
//
// It runs on the module, one function at a time; a function whose signature
// it changes must not be referenced in the module (mp::rewriteTrainSteps).
//
//===----------------------------------------------------------------------===//

#include "mp/Dialect/MP/Transforms/Passes.h"
#include "mp/Dialect/MP/Transforms/TrainSteps.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mp/Dialect/MP/IR/MPOps.h"
#include "llvm/ADT/SetVector.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace mlir::mp {
#define GEN_PASS_DEF_MPFP8SCALING
#include "mp/Dialect/MP/Transforms/Passes.h.inc"
} // namespace mlir::mp

using namespace mlir;
using namespace mlir::mp;

/// The grid mp-data-parallel creates.
static constexpr StringLiteral kDataParallelGrid = "mp_data_parallel";

namespace {

/// The validated options of one run.
struct FP8Config {
  bool delayed;
  bool hybrid;
  int64_t historyLength;
  AmaxCompute amaxCompute;
  int64_t margin;
  /// Current scaling: TE's power_2_scale and amax_epsilon.
  bool powerOfTwo;
  double amaxEpsilon;
  /// Delayed scaling in a data-parallel module (mp-data-parallel's grid):
  /// each amax is all-reduced (max) over the grid (TE's reduce_amax).
  bool reduceAmax;
  /// Op names (`mp.matmul`, ...) that go to FP8.
  SmallVector<StringRef> kinds;
  bool includeFirstLast;
};

/// One tensor quantised to FP8 and the scale it uses.
struct ScaledTensor {
  /// The FP8 value.
  Value quantised;
  /// The scale (0-d f32) it was multiplied by.
  Value scale;
};

/// A backward matmul-like of a forward op F.
struct BackwardUse {
  Operation *op;
  /// Which operand of `op` is (a reshape of) an operand of F.
  unsigned forwardIndex;
  /// Whether that operand is F's lhs/input (else its rhs/weight).
  bool usesLhs;
};

/// A forward op chosen for FP8 and its backward matmuls.
struct FP8Layer {
  Operation *forward;
  /// The backward matmul-likes whose gradient operand has root `gradRoot`.
  SmallVector<BackwardUse> backward;
  Value gradRoot;
};

/// The state arguments of one FP8 tensor (delayed recipe).
struct TensorState {
  BlockArgument history, scale;
};

struct FP8ScalingPass : public mp::impl::MPFP8ScalingBase<FP8ScalingPass> {
  using MPFP8ScalingBase::MPFP8ScalingBase;

  void runOnOperation() override;

private:
  /// Rewrites one function of the module; fails after reporting an error.
  LogicalResult rewriteFunction(func::FuncOp func);

  /// Checks the options; reports the first conflict at `loc`.
  FailureOr<FP8Config> validateOptions(Location loc);
};

/// Rewrites one function.
class FunctionRewriter {
public:
  FunctionRewriter(func::FuncOp func, const FP8Config &config)
      : func(func), config(config), builder(func.getContext()) {}

  LogicalResult run();

private:
  /// True for ops the forward set holds and for function arguments.
  bool isForwardValue(Value value);
  /// Strips `mp.reshape`s.
  static Value getRoot(Value value);
  /// True for matmul-likes of `config.kinds` with f32/f16/bf16 operands.
  bool isCandidate(Operation *op) const;
  /// True when both operands of `op` are f32, f16 or bf16 tensors.
  static bool hasWideOperands(Operation *op);
  /// Chooses the forward ops (candidates minus first/last layers).
  void chooseLayers();
  /// Attributes the backward matmul-likes to the chosen layers.
  void attributeBackward();
  /// Appends a state argument.
  BlockArgument addState(Type type, StringRef kind, Attribute init);
  /// The scale of a tensor whose values are `source` (any float type):
  /// delayed, the scale argument, with the history update recorded; current,
  /// mp.fp8_scale of its amax. Inserted at the builder's insertion point.
  Value createScale(Value source, FP8Format format);
  /// Quantises `value` with `scale` to `format`.
  Value quantise(Value value, Value scale, FP8Format format);
  /// The f32 value `value` was cast from, or `value` itself.
  static Value getQuantisationSource(Value value);
  /// Rewrites a chosen forward op.
  void rewriteLayer(FP8Layer &layer);
  /// Builds the FP8 version of a matmul-like `op` with `lhs`/`rhs`, scaled by
  /// 1/(lhsScale · rhsScale), and replaces `op`.
  void replaceContraction(Operation *op, ScaledTensor lhs, ScaledTensor rhs);
  /// 1/(a · b) in f32.
  Value createInverseProduct(Value a, Value b);
  /// Appends the new state to the results (selecting the old values on a
  /// skipped step).
  void finishSignature();

  func::FuncOp func;
  const FP8Config &config;
  OpBuilder builder;
  SetVector<Operation *> forward;
  /// Forward matmul-likes of every kind, in block order.
  SmallVector<Operation *> forwardContractions;
  SmallVector<FP8Layer> layers;
  /// New state: (argument, its new value).
  SmallVector<std::pair<BlockArgument, Value>> stateUpdates;
};

} // namespace

static bool isContraction(Operation *op) {
  return isa<MatmulOp, BatchMatmulOp, LinearOp>(op);
}

static Type getFP8Type(MLIRContext *context, FP8Format format) {
  if (format == FP8Format::e4m3)
    return Float8E4M3FNType::get(context);
  return Float8E5M2Type::get(context);
}

FailureOr<FP8Config> FP8ScalingPass::validateOptions(Location loc) {
  auto fail = [&](const Twine &message) -> FailureOr<FP8Config> {
    emitError(loc) << "mp-fp8-scaling: " << message;
    return failure();
  };
  FP8Config config;
  if (recipe != "delayed" && recipe != "current")
    return fail("recipe must be 'delayed' or 'current', got '" + recipe + "'");
  config.delayed = recipe == "delayed";
  if (format != "hybrid" && format != "e4m3")
    return fail("format must be 'hybrid' or 'e4m3', got '" + format + "'");
  config.hybrid = format == "hybrid";
  // Other values than the defaults are a mistake with the current recipe.
  if (!config.delayed && (amaxHistoryLen != 1024 || amaxCompute != "max"))
    return fail("amax-history-len and amax-compute apply to recipe=delayed "
                "only");
  if (amaxHistoryLen < 1)
    return fail("amax-history-len must be >= 1, got " +
                Twine(amaxHistoryLen.getValue()));
  config.historyLength = amaxHistoryLen;
  if (amaxCompute == "max")
    config.amaxCompute = AmaxCompute::max;
  else if (amaxCompute == "most-recent")
    config.amaxCompute = AmaxCompute::most_recent;
  else
    return fail("amax-compute must be 'max' or 'most-recent', got '" +
                amaxCompute + "'");
  if (margin < 0)
    return fail("margin must be >= 0, got " + Twine(margin.getValue()));
  config.margin = margin;
  if (config.delayed && (power2Scale || amaxEpsilon != 0.0))
    return fail("power-2-scale and amax-epsilon apply to recipe=current only");
  if (!std::isfinite(amaxEpsilon) || amaxEpsilon < 0.0)
    return fail("amax-epsilon must be finite and >= 0, got " +
                llvm::formatv("{0}", amaxEpsilon.getValue()).str());
  config.powerOfTwo = power2Scale;
  config.amaxEpsilon = amaxEpsilon;
  config.reduceAmax = reduceAmax;
  for (const std::string &kind : ops) {
    if (kind == "matmul")
      config.kinds.push_back(MatmulOp::getOperationName());
    else if (kind == "linear")
      config.kinds.push_back(LinearOp::getOperationName());
    else if (kind == "batch_matmul")
      config.kinds.push_back(BatchMatmulOp::getOperationName());
    else
      return fail("ops entries must be matmul, linear or batch_matmul, got '" +
                  kind + "'");
  }
  if (config.kinds.empty())
    config.kinds = {MatmulOp::getOperationName(), LinearOp::getOperationName()};
  config.includeFirstLast = includeFirstLast;
  return config;
}

void FP8ScalingPass::runOnOperation() {
  if (failed(rewriteTrainSteps(
          getOperation(), getArgument(),
          [&](func::FuncOp func) { return rewriteFunction(func); })))
    signalPassFailure();
}

LogicalResult FP8ScalingPass::rewriteFunction(func::FuncOp func) {
  FailureOr<FP8Config> config = validateOptions(func.getLoc());
  if (failed(config))
    return failure();
  if (func.isExternal())
    return success();
  bool isTrainStep = false;
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
    isTrainStep |= bool(func.getResultAttr(i, MPDialect::kLossAttrName));
  if (!isTrainStep)
    return success();
  return FunctionRewriter(func, *config).run();
}

//===----------------------------------------------------------------------===//
// FunctionRewriter
//===----------------------------------------------------------------------===//

bool FunctionRewriter::isForwardValue(Value value) {
  if (auto argument = dyn_cast<BlockArgument>(value))
    return argument.getOwner()->getParentOp() == func.getOperation();
  return forward.contains(value.getDefiningOp());
}

Value FunctionRewriter::getRoot(Value value) {
  while (auto reshape = value.getDefiningOp<ReshapeOp>())
    value = reshape.getInput();
  return value;
}

bool FunctionRewriter::isCandidate(Operation *op) const {
  if (!llvm::is_contained(config.kinds, op->getName().getStringRef()))
    return false;
  return hasWideOperands(op);
}

bool FunctionRewriter::hasWideOperands(Operation *op) {
  auto isWide = [](Value value) {
    Type type = getElementTypeOrSelf(value.getType());
    return type.isF32() || type.isF16() || type.isBF16();
  };
  return isWide(op->getOperand(0)) && isWide(op->getOperand(1));
}

LogicalResult FunctionRewriter::run() {
  if (!func.getBody().hasOneBlock())
    return func.emitError("mp-fp8-scaling expects a single-block function");
  Block &body = func.front();
  auto returnOp = dyn_cast<func::ReturnOp>(body.getTerminator());
  if (!returnOp)
    return func.emitError("mp-fp8-scaling expects a func.return terminator");

  // The joint graph only: no mp.grad, no matmul-likes in nested regions.
  WalkResult walk = func.walk([&](Operation *op) {
    if (auto grad = dyn_cast<GradOp>(op)) {
      grad.emitError("mp-fp8-scaling runs on the joint graph: expand mp.grad "
                     "with mp-autodiff first");
      return WalkResult::interrupt();
    }
    if (isContraction(op) && op->getParentOp() != func.getOperation()) {
      op->emitError("mp-fp8-scaling expects matmul-like ops directly in the "
                    "function body, not in a nested region");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();

  // The forward set: every op the mp.loss result depends on.
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i) {
    if (!func.getResultAttr(i, MPDialect::kLossAttrName))
      continue;
    BackwardSliceOptions options;
    options.inclusive = true;
    options.omitBlockArguments = true;
    (void)getBackwardSlice(returnOp.getOperand(i), &forward, options);
  }
  for (Operation &op : body)
    if (isContraction(&op) && forward.contains(&op))
      forwardContractions.push_back(&op);

  chooseLayers();
  if (layers.empty())
    return success();
  attributeBackward();
  for (FP8Layer &layer : layers)
    rewriteLayer(layer);
  finishSignature();
  return success();
}

void FunctionRewriter::chooseLayers() {
  // First/last layers among the matmul-likes of the chosen kinds, FP8 ones
  // included (so that a second run chooses the same layers).
  SmallVector<Operation *> kindOps;
  for (Operation *op : forwardContractions)
    if (llvm::is_contained(config.kinds, op->getName().getStringRef()))
      kindOps.push_back(op);
  llvm::SmallPtrSet<Operation *, 16> kindSet(kindOps.begin(), kindOps.end());
  for (Operation *op : kindOps) {
    if (!isCandidate(op))
      continue;
    if (!config.includeFirstLast) {
      SetVector<Operation *> ancestors;
      BackwardSliceOptions backwardOptions;
      backwardOptions.omitBlockArguments = true;
      (void)getBackwardSlice(op, &ancestors, backwardOptions);
      bool first = llvm::none_of(
          ancestors, [&](Operation *other) { return kindSet.contains(other); });
      SetVector<Operation *> descendants;
      getForwardSlice(op, &descendants);
      bool last = llvm::none_of(descendants, [&](Operation *other) {
        return kindSet.contains(other) && forward.contains(other);
      });
      if (first || last)
        continue;
    }
    layers.push_back(FP8Layer{op, {}, Value()});
  }
}

void FunctionRewriter::attributeBackward() {
  // Forward matmul-likes (of any kind) by the values they use.
  DenseMap<Value, SmallVector<Operation *, 2>> usersOf;
  for (Operation *op : forwardContractions)
    for (Value operand : op->getOperands())
      if (!llvm::is_contained(usersOf[operand], op))
        usersOf[operand].push_back(op);
  DenseMap<Operation *, FP8Layer *> layerOf;
  for (FP8Layer &layer : layers)
    layerOf[layer.forward] = &layer;
  // Gradient roots seen per forward op, to tell apart the users of a shared
  // operand (q, k and v projections of one input).
  DenseMap<Operation *, SmallVector<Value, 1>> gradRootsOf;

  struct Pending {
    Operation *op;
    unsigned forwardIndex;
    Value forwardRoot, gradRoot;
  };
  SmallVector<Pending> pending;
  for (Operation &op : func.front()) {
    if (!isa<MatmulOp, BatchMatmulOp>(op) || forward.contains(&op) ||
        !hasWideOperands(&op))
      continue;
    bool lhsForward = isForwardValue(getRoot(op.getOperand(0)));
    bool rhsForward = isForwardValue(getRoot(op.getOperand(1)));
    if (lhsForward == rhsForward)
      continue;
    // The first value of the reshape chain that a forward op uses.
    Value forwardRoot = op.getOperand(lhsForward ? 0 : 1);
    while (!usersOf.count(forwardRoot))
      if (auto reshape = forwardRoot.getDefiningOp<ReshapeOp>())
        forwardRoot = reshape.getInput();
      else
        break;
    Value gradRoot = getRoot(op.getOperand(lhsForward ? 1 : 0));
    pending.push_back({&op, lhsForward ? 0u : 1u, forwardRoot, gradRoot});
  }

  // Unambiguous ones first (the forward operand has one forward user, e.g. a
  // weight), then those whose gradient root identifies the user.
  auto assign = [&](const Pending &entry, Operation *owner) {
    Operation *op = entry.op;
    Value gradRoot = entry.gradRoot;
    gradRootsOf[owner].push_back(gradRoot);
    FP8Layer *layer = layerOf.lookup(owner);
    if (!layer)
      return;
    if (!layer->gradRoot)
      layer->gradRoot = gradRoot;
    if (layer->gradRoot != gradRoot) {
      op->emitWarning("mp-fp8-scaling: backward matmul left in its "
                      "precision: its gradient operand differs from that of "
                      "the other backward matmuls of its FP8 layer");
      return;
    }
    layer->backward.push_back(
        {op, entry.forwardIndex, owner->getOperand(0) == entry.forwardRoot});
  };
  SmallVector<Pending> ambiguous;
  for (const Pending &entry : pending) {
    auto it = usersOf.find(entry.forwardRoot);
    if (it == usersOf.end())
      continue;
    if (it->second.size() == 1)
      assign(entry, it->second.front());
    else
      ambiguous.push_back(entry);
  }
  for (const Pending &entry : ambiguous) {
    SmallVector<Operation *> owners;
    for (Operation *user : usersOf[entry.forwardRoot])
      if (llvm::is_contained(gradRootsOf[user], entry.gradRoot))
        owners.push_back(user);
    if (owners.size() == 1) {
      assign(entry, owners.front());
      continue;
    }
    if (llvm::any_of(usersOf[entry.forwardRoot],
                     [&](Operation *user) { return layerOf.count(user); }))
      entry.op->emitWarning("mp-fp8-scaling: backward matmul left in its "
                            "precision: cannot tell which forward op it "
                            "belongs to");
  }
}

BlockArgument FunctionRewriter::addState(Type type, StringRef kind,
                                         Attribute init) {
  return appendStateArgument(func, type, kind, init);
}

Value FunctionRewriter::getQuantisationSource(Value value) {
  if (auto cast = value.getDefiningOp<CastOp>())
    if (cast.getInput().getType().getElementType().isF32())
      return cast.getInput();
  return value;
}

Value FunctionRewriter::createScale(Value source, FP8Format format) {
  Location loc = source.getLoc();
  Type f32 = builder.getF32Type();
  auto f32Scalar = RankedTensorType::get({}, f32);
  Value amax = AmaxOp::create(builder, loc, source);
  if (config.delayed && config.reduceAmax &&
      SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(
          func, builder.getStringAttr(kDataParallelGrid)))
    amax = shard::AllReduceOp::create(builder, loc, amax.getType(),
                                      kDataParallelGrid, ArrayRef<int16_t>{0},
                                      amax, shard::ReductionKind::Max);
  if (!config.delayed) {
    Value history =
        ReshapeOp::create(builder, loc, RankedTensorType::get({1}, f32), amax);
    Value one =
        createScalarTensor(builder, loc, f32, builder.getF32FloatAttr(1.0));
    return FP8ScaleOp::create(builder, loc, f32Scalar, history, one, format,
                              config.margin, AmaxCompute::max,
                              APFloat(config.amaxEpsilon), config.powerOfTwo);
  }
  auto historyType = RankedTensorType::get({config.historyLength}, f32);
  BlockArgument history = addState(historyType, "fp8.amax_history", {});
  BlockArgument scale =
      addState(f32Scalar, "fp8.scale", builder.getF32FloatAttr(1.0));
  Value newHistory = AmaxHistoryPushOp::create(builder, loc, history, amax);
  Value newScale =
      FP8ScaleOp::create(builder, loc, f32Scalar, newHistory, scale, format,
                         config.margin, config.amaxCompute, APFloat(0.0));
  stateUpdates.push_back({history, newHistory});
  stateUpdates.push_back({scale, newScale});
  return scale;
}

Value FunctionRewriter::quantise(Value value, Value scale, FP8Format format) {
  Location loc = value.getLoc();
  auto type = cast<RankedTensorType>(value.getType());
  Value wide = value;
  if (!type.getElementType().isF32())
    wide = CastOp::create(builder, loc, type.clone(builder.getF32Type()), value,
                          /*saturate=*/false);
  Value scaled = ScaleOp::create(builder, loc, wide, scale);
  return CastOp::create(builder, loc,
                        type.clone(getFP8Type(func.getContext(), format)),
                        scaled, /*saturate=*/true);
}

Value FunctionRewriter::createInverseProduct(Value a, Value b) {
  Location loc = a.getLoc();
  Value product = MulOp::create(builder, loc, a, b);
  Value one = createScalarTensor(builder, loc, builder.getF32Type(),
                                 builder.getF32FloatAttr(1.0));
  return DivOp::create(builder, loc, one, product);
}

void FunctionRewriter::replaceContraction(Operation *op, ScaledTensor lhs,
                                          ScaledTensor rhs) {
  Location loc = op->getLoc();
  builder.setInsertionPoint(op);
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  auto f32Type = resultType.clone(builder.getF32Type());
  Type f32 = builder.getF32Type();
  Value bias;
  Value product;
  if (auto matmul = dyn_cast<MatmulOp>(op))
    product = MatmulOp::create(builder, loc, f32Type, lhs.quantised,
                               rhs.quantised, matmul.getTransposeLhs(),
                               matmul.getTransposeRhs(), f32);
  else if (auto batch = dyn_cast<BatchMatmulOp>(op))
    product = BatchMatmulOp::create(builder, loc, f32Type, lhs.quantised,
                                    rhs.quantised, batch.getTransposeLhs(),
                                    batch.getTransposeRhs(), f32);
  else {
    auto linear = cast<LinearOp>(op);
    product = LinearOp::create(builder, loc, f32Type, lhs.quantised,
                               rhs.quantised, Value(), f32);
    bias = linear.getBias();
  }
  Value inverse = createInverseProduct(lhs.scale, rhs.scale);
  Value result = ScaleOp::create(builder, loc, product, inverse);
  if (bias) {
    auto biasType = cast<RankedTensorType>(bias.getType());
    Value wideBias = bias;
    if (!biasType.getElementType().isF32())
      wideBias = CastOp::create(builder, loc, biasType.clone(f32), bias,
                                /*saturate=*/false);
    result = AddOp::create(builder, loc, result, wideBias);
  }
  if (resultType != f32Type)
    result = CastOp::create(builder, loc, resultType, result,
                            /*saturate=*/false);
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
}

void FunctionRewriter::rewriteLayer(FP8Layer &layer) {
  Operation *op = layer.forward;
  MLIRContext *context = func.getContext();
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);

  // Forward operands: E4M3.
  builder.setInsertionPoint(op);
  auto quantiseForward = [&](Value operand) {
    Value source = getQuantisationSource(operand);
    Value scale = createScale(source, FP8Format::e4m3);
    return ScaledTensor{quantise(source, scale, FP8Format::e4m3), scale};
  };
  ScaledTensor lhsFP8 = quantiseForward(lhs);
  ScaledTensor rhsFP8 = quantiseForward(rhs);

  // Gradient of the output: E5M2 (hybrid) or E4M3, quantised where its root
  // is defined so that every backward matmul can use it.
  FP8Format gradFormat = config.hybrid ? FP8Format::e5m2 : FP8Format::e4m3;
  DenseMap<Value, Value> gradQuantised;
  Value gradScale;
  // In block order, so that the gradient's scale and FP8 copies come first.
  llvm::sort(layer.backward, [](const BackwardUse &a, const BackwardUse &b) {
    return a.op->isBeforeInBlock(b.op);
  });
  if (!layer.backward.empty()) {
    builder.setInsertionPoint(layer.backward.front().op);
    gradScale = createScale(layer.gradRoot, gradFormat);
  }
  for (auto [backward, forwardIndex, usesLhs] : layer.backward) {
    bool lhsIsForward = forwardIndex == 0;
    Value forwardOperand = backward->getOperand(forwardIndex);
    Value gradOperand = backward->getOperand(1 - forwardIndex);
    builder.setInsertionPoint(backward);
    Value &gradFP8 = gradQuantised[gradOperand];
    if (!gradFP8)
      gradFP8 = quantise(gradOperand, gradScale, gradFormat);
    // The forward operand's FP8 copy, reshaped like the backward operand.
    ScaledTensor forwardFP8 = usesLhs ? lhsFP8 : rhsFP8;
    Value operandFP8 = forwardFP8.quantised;
    auto wantedType = cast<RankedTensorType>(forwardOperand.getType())
                          .clone(getFP8Type(context, FP8Format::e4m3));
    if (operandFP8.getType() != wantedType)
      operandFP8 = ReshapeOp::create(builder, backward->getLoc(), wantedType,
                                     operandFP8);
    ScaledTensor gradTensor{gradFP8, gradScale};
    ScaledTensor forwardTensor{operandFP8, forwardFP8.scale};
    if (lhsIsForward)
      replaceContraction(backward, forwardTensor, gradTensor);
    else
      replaceContraction(backward, gradTensor, forwardTensor);
  }
  replaceContraction(op, lhsFP8, rhsFP8);
}

void FunctionRewriter::finishSignature() {
  if (stateUpdates.empty())
    return;
  auto returnOp = cast<func::ReturnOp>(func.front().getTerminator());
  builder.setInsertionPoint(returnOp);
  Location loc = returnOp.getLoc();
  // A skipped step (mp-loss-scaling's flag) keeps the old state.
  Value skipped;
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
    if (func.getResultAttr(i, MPDialect::kSkippedAttrName))
      skipped = tensor::ExtractOp::create(builder, loc, returnOp.getOperand(i),
                                          ValueRange{});
  SmallVector<Value> results(returnOp.getOperands());
  for (auto [argument, value] : stateUpdates) {
    Value next = value;
    if (skipped)
      next = arith::SelectOp::create(builder, loc, skipped, argument, value);
    unsigned index = func.getNumResults();
    (void)func.insertResult(
        index, next.getType(),
        builder.getDictionaryAttr(builder.getNamedAttr(
            MPDialect::kUpdatesAttrName,
            builder.getI64IntegerAttr(argument.getArgNumber()))));
    results.push_back(next);
  }
  returnOp->setOperands(results);
}
