//===- FP8Scaling.cpp - FP8 matmuls with per-tensor scaling ---------------===//
//
// mp-fp8-scaling runs the hidden matmul-like ops of a train step in FP8 with
// Transformer Engine's per-tensor scaling: each operand is quantised as
// saturating_cast(x · scale) (E4M3 forward, E5M2 or E4M3 gradients), the FP8
// op accumulates in f32 and its result is multiplied by 1/(scale_a · scale_b)
// and cast back to the original result type. With the delayed recipe every
// FP8 tensor threads an amax history and a scale through the signature; with
// the current recipe the scale comes from the tensor's own amax. The
// block-scaled recipes (mxfp8, fp8-block, nvfp4: Transformer Engine's
// MXFP8BlockScaling, Float8BlockScaling, NVFP4BlockScaling) instead turn each
// GEMM of a layer into an mp.scaled_matmul of two mp.block_quantize'd
// operands, each quantised from the f32 tensor with blocks along that GEMM's
// contraction dimension (NVFP4: with its tensor scale, stochastic rounding
// of gradients and the random Hadamard transform of the wgrad operands).
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
#include <limits>
#include <map>
#include <tuple>

namespace mlir::mp {
#define GEN_PASS_DEF_MPFP8SCALING
#include "mp/Dialect/MP/Transforms/Passes.h.inc"
} // namespace mlir::mp

using namespace mlir;
using namespace mlir::mp;

/// The grid mp-data-parallel creates.
static constexpr StringLiteral kDataParallelGrid = "mp_data_parallel";

namespace {

/// The scaling recipes.
enum class Recipe { delayed, current, mxfp8, fp8Block, nvfp4 };

/// The validated options of one run.
struct FP8Config {
  Recipe recipe;
  /// The recipe's option value, for diagnostics.
  std::string name;
  bool delayed;
  bool hybrid;
  int64_t historyLength;
  AmaxCompute amaxCompute;
  int64_t margin;
  /// Current scaling: TE's power_2_scale and amax_epsilon; fp8-block:
  /// amax_epsilon of each block.
  bool powerOfTwo;
  double amaxEpsilon;
  /// fp8-block: f32 block scales not rounded to powers of two (TE's
  /// power_2_scale=False).
  bool fp32Scales = false;
  /// Delayed scaling in a data-parallel module (mp-data-parallel's grid):
  /// each amax is all-reduced (max) over the grid (TE's reduce_amax).
  bool reduceAmax;
  /// Op names (`mp.matmul`, ...) that go to FP8.
  SmallVector<StringRef> kinds;
  bool includeFirstLast;
  /// Block-scaled recipes: the block length along a contraction dimension
  /// (32, 128, 16; 0 for the per-tensor recipes) and whether weights are
  /// quantised in square tiles of that length instead.
  int64_t blockLength = 0;
  bool weightTiles = false;
  /// fp8-block: a dimension that is not a multiple of the block ends in a
  /// partial block (the operand is padded with zeros to whole blocks).
  bool partialBlocks = false;
  /// nvfp4: stochastic rounding of gradients and the random Hadamard
  /// transform of the wgrad operands (TE's disable_stochastic_rounding and
  /// disable_rht, negated).
  bool stochasticRounding = false;
  bool hadamardTransform = false;

  bool isBlockScaled() const { return blockLength != 0; }
};

/// What a GEMM operand is in the layer it belongs to.
enum class Role { input, weight, gradient };

/// One operand quantised with block scales.
struct BlockTensor {
  Value data, scales;
  /// NVFP4: the tensor-level encode scale (0-d f32); null otherwise.
  Value global;
};

/// One GEMM of a block-scaled layer: the forward op or a backward matmul.
struct BlockGemm {
  Operation *op;
  Value lhs, rhs;
  bool transposeLhs, transposeRhs;
  Role lhsRole, rhsRole;
  /// The weight-gradient GEMM (input × gradient).
  bool weightGradient;
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
  /// Rewrites a chosen forward op and its backward matmuls with a
  /// block-scaled recipe, or warns and leaves them when a shape does not
  /// fit the blocks.
  void rewriteBlockLayer(FP8Layer &layer);
  /// Why `gemm` cannot be block-scaled, or an empty string.
  std::string checkBlockShapes(const BlockGemm &gemm) const;
  /// The block shape of a rank-2 operand of role `role` contracted along
  /// dimension `dim`.
  SmallVector<int64_t, 2> getBlockShape(Role role, int64_t dim) const;
  /// `value` in f32: through the f32 source of an `mp.cast` (possibly behind
  /// `mp.reshape`s, which are rebuilt in f32) or a new widening cast.
  Value getWideSource(Value value);
  /// Quantises operand `value` (role `role`, contracted along `dim`) of a
  /// GEMM, after the random Hadamard transform along `dim` when `hadamard`
  /// (the result then has that dimension last).
  BlockTensor quantiseBlocks(Value value, Role role, int64_t dim,
                             bool hadamard);
  /// NVFP4's f32 tensor-level encode scale of `source`.
  Value createGlobalScale(Value source);
  /// `value` (rank 2) times TE's 16×16 random Hadamard matrix along `dim`,
  /// returned with that dimension last.
  Value applyHadamard(Value value, int64_t dim);
  /// The next random bits of the recipe's rng state, of shape `shape`.
  Value drawRandomBits(ArrayRef<int64_t> shape);
  /// fp8-block: rank-2 `value` padded with zeros at the end of each
  /// dimension to a multiple of `block` (TE's partial blocks).
  Value padToBlocks(Value value, ArrayRef<int64_t> block);
  /// Replaces `op` by `product` (f32) times `inverse` (if any), plus the
  /// bias of a `linear`, cast and reshaped to `op`'s result type.
  void finishContraction(Operation *op, Value product, Value inverse);
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
  /// Block-scaled operands already built, by (f32 source, block shape,
  /// Hadamard transform), so that a copy is shared by the GEMMs that need it.
  std::map<std::tuple<void *, int64_t, int64_t, bool>, BlockTensor> blockCache;
  /// NVFP4: the rng state argument, its seed word and the current state
  /// of the recipe's own stream.
  BlockArgument rngArgument;
  Value rngSeed;
  Value rngState;
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
  if (recipe == "delayed")
    config.recipe = Recipe::delayed;
  else if (recipe == "current")
    config.recipe = Recipe::current;
  else if (recipe == "mxfp8")
    config.recipe = Recipe::mxfp8;
  else if (recipe == "fp8-block")
    config.recipe = Recipe::fp8Block;
  else if (recipe == "nvfp4")
    config.recipe = Recipe::nvfp4;
  else
    return fail("recipe must be 'delayed', 'current', 'mxfp8', 'fp8-block' "
                "or 'nvfp4', got '" +
                recipe + "'");
  config.name = recipe;
  config.blockLength = config.recipe == Recipe::mxfp8      ? 32
                       : config.recipe == Recipe::fp8Block ? 128
                       : config.recipe == Recipe::nvfp4    ? 16
                                                           : 0;
  config.delayed = recipe == "delayed";
  bool perTensor = !config.isBlockScaled();
  if (format != "default" && format != "hybrid" && format != "e4m3")
    return fail("format must be 'default', 'hybrid' or 'e4m3', got '" + format +
                "'");
  if (config.recipe == Recipe::nvfp4 && format != "default")
    return fail("format does not apply to recipe=nvfp4 (f4E2M1FN data), got "
                "'" +
                format + "'");
  config.hybrid = format == "hybrid" || (format == "default" && perTensor);
  if (weightBlocks != "default" && weightBlocks != "1d" && weightBlocks != "2d")
    return fail("weight-blocks must be 'default', '1d' or '2d', got '" +
                weightBlocks + "'");
  if (perTensor && weightBlocks != "default")
    return fail("weight-blocks applies to recipe=mxfp8, fp8-block and nvfp4 "
                "only");
  config.weightTiles = weightBlocks == "2d" || (weightBlocks == "default" &&
                                                config.recipe != Recipe::mxfp8);
  config.partialBlocks = config.recipe == Recipe::fp8Block;
  if (config.recipe != Recipe::nvfp4 &&
      (disableStochasticRounding || disableRht))
    return fail("disable-stochastic-rounding and disable-rht apply to "
                "recipe=nvfp4 only");
  config.stochasticRounding =
      config.recipe == Recipe::nvfp4 && !disableStochasticRounding;
  config.hadamardTransform = config.recipe == Recipe::nvfp4 && !disableRht;
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
  if (!perTensor && margin != 0)
    return fail("margin applies to recipe=delayed and current only");
  config.margin = margin;
  if (config.recipe != Recipe::current && power2Scale)
    return fail("power-2-scale applies to recipe=current only");
  if (config.recipe != Recipe::current && config.recipe != Recipe::fp8Block &&
      amaxEpsilon != 0.0)
    return fail("amax-epsilon applies to recipe=current and fp8-block only");
  if (config.recipe != Recipe::fp8Block && fp32Scales)
    return fail("fp32-scales applies to recipe=fp8-block only");
  config.fp32Scales = fp32Scales;
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
    else if (kind == "batch_matmul" && perTensor)
      config.kinds.push_back(BatchMatmulOp::getOperationName());
    else if (kind == "batch_matmul")
      return fail("ops=batch_matmul applies to recipe=delayed and current "
                  "only");
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
  for (FP8Layer &layer : layers) {
    if (config.isBlockScaled())
      rewriteBlockLayer(layer);
    else
      rewriteLayer(layer);
  }
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
  Value product;
  if (auto matmul = dyn_cast<MatmulOp>(op))
    product = MatmulOp::create(builder, loc, f32Type, lhs.quantised,
                               rhs.quantised, matmul.getTransposeLhs(),
                               matmul.getTransposeRhs(), f32);
  else if (auto batch = dyn_cast<BatchMatmulOp>(op))
    product = BatchMatmulOp::create(builder, loc, f32Type, lhs.quantised,
                                    rhs.quantised, batch.getTransposeLhs(),
                                    batch.getTransposeRhs(), f32);
  else
    product = LinearOp::create(builder, loc, f32Type, lhs.quantised,
                               rhs.quantised, Value(), f32);
  finishContraction(op, product, createInverseProduct(lhs.scale, rhs.scale));
}

void FunctionRewriter::finishContraction(Operation *op, Value product,
                                         Value inverse) {
  Location loc = op->getLoc();
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  Type f32 = builder.getF32Type();
  Value bias;
  if (auto linear = dyn_cast<LinearOp>(op))
    bias = linear.getBias();
  Value result = product;
  if (inverse)
    result = ScaleOp::create(builder, loc, result, inverse);
  if (bias) {
    auto biasType = cast<RankedTensorType>(bias.getType());
    Value wideBias = bias;
    if (!biasType.getElementType().isF32())
      wideBias = CastOp::create(builder, loc, biasType.clone(f32), bias,
                                /*saturate=*/false);
    result = AddOp::create(builder, loc, result, wideBias);
  }
  auto wideType = cast<RankedTensorType>(result.getType());
  if (resultType.getElementType() != wideType.getElementType())
    result = CastOp::create(builder, loc,
                            wideType.clone(resultType.getElementType()), result,
                            /*saturate=*/false);
  if (wideType.getShape() != resultType.getShape())
    result = ReshapeOp::create(builder, loc, resultType, result);
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
  if (stateUpdates.empty() && !rngArgument)
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
  // The rng state is forward state: it advances on a skipped step too.
  if (rngArgument) {
    (void)func.insertResult(
        func.getNumResults(), rngState.getType(),
        builder.getDictionaryAttr(builder.getNamedAttr(
            MPDialect::kUpdatesAttrName,
            builder.getI64IntegerAttr(rngArgument.getArgNumber()))));
    // The recipe's stream returns to the argument's seed (see
    // drawRandomBits).
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    results.push_back(
        tensor::InsertOp::create(builder, loc, rngSeed, rngState, zero));
  }
  returnOp->setOperands(results);
}

//===----------------------------------------------------------------------===//
// Block-scaled recipes
//===----------------------------------------------------------------------===//

/// Transformer Engine's fixed sign vector of the NVFP4 weight-gradient
/// random Hadamard transform (pytorch/tensor/nvfp4_tensor.py,
/// get_wgrad_sign_vector).
static constexpr int kHadamardSigns[16] = {1,  1,  1,  -1, 1,  -1, -1, -1,
                                           -1, -1, -1, 1,  -1, 1,  -1, -1};

/// NVFP4's global encode scale numerator: E4M3 max · E2M1 max.
static constexpr float kNVFP4ScaleMax = 448.0f * 6.0f;

/// XORed into the seed word of NVFP4's rng stream: the top bit of the key
/// word k1 (mp-data-parallel's rank streams use the low bits of k1).
static constexpr int64_t kNVFP4StreamBit = std::numeric_limits<int64_t>::min();

SmallVector<int64_t, 2> FunctionRewriter::getBlockShape(Role role,
                                                        int64_t dim) const {
  int64_t b = config.blockLength;
  if (role == Role::weight && config.weightTiles)
    return {b, b};
  if (dim == 0)
    return {b, 1};
  return {1, b};
}

std::string FunctionRewriter::checkBlockShapes(const BlockGemm &gemm) const {
  std::string reason;
  llvm::raw_string_ostream os(reason);
  auto check = [&](Value value, Role role, int64_t dim, StringRef name) {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<int64_t, 2> shape(type.getShape());
    // A linear's input is flattened to rank 2.
    if (isa<LinearOp>(gemm.op) && value == gemm.lhs && shape.size() > 2)
      shape = {type.getNumElements() / shape.back(), shape.back()};
    if (shape.size() != 2) {
      os << name << " has rank " << shape.size() << ", not 2";
      return false;
    }
    if (config.partialBlocks)
      return true;
    SmallVector<int64_t, 2> block = getBlockShape(role, dim);
    for (int64_t k = 0; k < 2; ++k)
      if (shape[k] % block[k] != 0) {
        os << name << " dimension " << k << " (" << shape[k]
           << ") is not a multiple of the block " << block[0] << "x"
           << block[1];
        return false;
      }
    return true;
  };
  int64_t lhsDim = gemm.transposeLhs ? 0 : 1;
  int64_t rhsDim = gemm.transposeRhs ? 1 : 0;
  std::string lhsName =
      ("the lhs of " + gemm.op->getName().getStringRef()).str();
  std::string rhsName =
      ("the rhs of " + gemm.op->getName().getStringRef()).str();
  if (check(gemm.lhs, gemm.lhsRole, lhsDim, lhsName))
    (void)check(gemm.rhs, gemm.rhsRole, rhsDim, rhsName);
  return reason;
}

Value FunctionRewriter::getWideSource(Value value) {
  Location loc = value.getLoc();
  auto type = cast<RankedTensorType>(value.getType());
  Type f32 = builder.getF32Type();
  if (type.getElementType().isF32())
    return value;
  if (auto reshape = value.getDefiningOp<ReshapeOp>()) {
    Value input = getWideSource(reshape.getInput());
    if (input != reshape.getInput())
      return ReshapeOp::create(builder, loc, type.clone(f32), input);
  }
  Value source = getQuantisationSource(value);
  if (source != value)
    return source;
  return CastOp::create(builder, loc, type.clone(f32), value,
                        /*saturate=*/false);
}

Value FunctionRewriter::createGlobalScale(Value source) {
  // TE's compute_global_encode_scaling_factor_FP4: 448·6 / amax, at most
  // FLT_MAX (fminf: a NaN amax gives FLT_MAX), 1 when the amax or the scale
  // is 0.
  Location loc = source.getLoc();
  Type f32 = builder.getF32Type();
  auto constant = [&](float value) -> Value {
    return createScalarTensor(builder, loc, f32,
                              builder.getF32FloatAttr(value));
  };
  auto compare = [&](ComparePredicate predicate, Value lhs, Value rhs) {
    return CompareOp::create(
        builder, loc,
        ComparePredicateAttr::get(builder.getContext(), predicate), lhs, rhs);
  };
  Value amax = AmaxOp::create(builder, loc, source);
  Value scale = DivOp::create(builder, loc, constant(kNVFP4ScaleMax), amax);
  Value largest = constant(std::numeric_limits<float>::max());
  scale = MinimumOp::create(builder, loc, scale, largest);
  scale = SelectOp::create(builder, loc,
                           compare(ComparePredicate::ne, scale, scale), largest,
                           scale);
  Value zero = constant(0.0f), one = constant(1.0f);
  scale = SelectOp::create(
      builder, loc, compare(ComparePredicate::eq, scale, zero), one, scale);
  return SelectOp::create(
      builder, loc, compare(ComparePredicate::eq, amax, zero), one, scale);
}

Value FunctionRewriter::applyHadamard(Value value, int64_t dim) {
  Location loc = value.getLoc();
  Type f32 = builder.getF32Type();
  auto type = cast<RankedTensorType>(value.getType());
  if (dim == 0) {
    value = TransposeOp::create(builder, loc, value,
                                builder.getDenseI64ArrayAttr({1, 0}));
    type = cast<RankedTensorType>(value.getType());
  }
  // diag(signs) · H16 / 4: row i of Sylvester's Hadamard matrix times the
  // sign i, entries ±1/4 (exact in f32; the matrix is orthogonal).
  SmallVector<float> entries;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j)
      entries.push_back((llvm::popcount(unsigned(i & j)) % 2 ? -0.25f : 0.25f) *
                        kHadamardSigns[i]);
  auto matrixType = RankedTensorType::get({16, 16}, f32);
  Value matrix = arith::ConstantOp::create(
      builder, loc,
      DenseElementsAttr::get(matrixType, ArrayRef<float>(entries)));
  auto rowsType = RankedTensorType::get({type.getNumElements() / 16, 16}, f32);
  Value rows = ReshapeOp::create(builder, loc, rowsType, value);
  Value product = MatmulOp::create(builder, loc, rowsType, rows, matrix,
                                   /*transposeLhs=*/false,
                                   /*transposeRhs=*/false, f32);
  return ReshapeOp::create(builder, loc, type, product);
}

Value FunctionRewriter::drawRandomBits(ArrayRef<int64_t> shape) {
  // The draws are made at the top of the function, one after the other, so
  // that they dominate every quantisation whatever order the layers come in.
  OpBuilder::InsertionGuard guard(builder);
  Type i64 = builder.getI64Type();
  auto stateType = RankedTensorType::get({2}, i64);
  if (!rngArgument) {
    rngArgument = addState(stateType, "rng", {});
    builder.setInsertionPointToStart(&func.front());
    // The recipe's own Philox stream: the argument [seed, offset] with the
    // top bit of the key word k1 = seed[63:32] flipped, so that its bits
    // are independent of a dropout's that mp-run seeds from the same
    // --seed; the returned state carries the argument's seed again.
    Location loc = func.getLoc();
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    rngSeed = tensor::ExtractOp::create(builder, loc, rngArgument, zero);
    Value streamBit = arith::ConstantOp::create(
        builder, loc, builder.getI64IntegerAttr(kNVFP4StreamBit));
    Value streamSeed = arith::XOrIOp::create(builder, loc, rngSeed, streamBit);
    // In a data-parallel step each process draws its own bits, as
    // mp-data-parallel gives the step's other rng states: rank << 32 XORed
    // into the seed too (that pass ran first and did not see this state).
    if (SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(
            func, builder.getStringAttr(kDataParallelGrid))) {
      Value rank = shard::ProcessLinearIndexOp::create(
          builder, loc, kDataParallelGrid);
      Value shifted = arith::ShLIOp::create(
          builder, loc, arith::IndexCastUIOp::create(builder, loc, i64, rank),
          arith::ConstantOp::create(builder, loc,
                                    builder.getI64IntegerAttr(32)));
      streamSeed = arith::XOrIOp::create(builder, loc, streamSeed, shifted);
    }
    rngState =
        tensor::InsertOp::create(builder, loc, streamSeed, rngArgument, zero);
  } else {
    builder.setInsertionPointAfter(rngState.getDefiningOp());
  }
  auto draw = RandomBitsOp::create(
      builder, func.getLoc(),
      RankedTensorType::get(shape, builder.getI32Type()), stateType, rngState);
  rngState = draw.getNewState();
  return draw.getResult();
}

Value FunctionRewriter::padToBlocks(Value value, ArrayRef<int64_t> block) {
  // TE's blockwise kernels read the elements past the end of a partial block
  // as zeros (its amax is over the elements that exist) and keep
  // ceil(n / 128) scales; zero padding gives the same scales, and the
  // padded products are zeros, dropped again after the GEMM.
  Location loc = value.getLoc();
  for (int64_t k = 0; k < 2; ++k) {
    auto type = cast<RankedTensorType>(value.getType());
    int64_t size = type.getDimSize(k), rest = size % block[k];
    if (rest == 0)
      continue;
    SmallVector<int64_t, 2> padShape(type.getShape());
    padShape[k] = block[k] - rest;
    auto padType = type.clone(padShape);
    Value zeros = arith::ConstantOp::create(
        builder, loc,
        DenseElementsAttr::get(padType,
                               builder.getZeroAttr(type.getElementType())));
    value = ConcatOp::create(builder, loc, ValueRange{value, zeros}, k);
  }
  return value;
}

BlockTensor FunctionRewriter::quantiseBlocks(Value value, Role role,
                                             int64_t dim, bool hadamard) {
  Location loc = value.getLoc();
  MLIRContext *context = func.getContext();
  Value source = getWideSource(value);
  SmallVector<int64_t, 2> block = getBlockShape(role, dim);
  // The transform leaves the contraction dimension last.
  if (hadamard)
    block = {1, config.blockLength};
  auto key = std::make_tuple(source.getAsOpaquePointer(), block[0], block[1],
                             hadamard);
  auto it = blockCache.find(key);
  if (it != blockCache.end() &&
      it->second.data.getDefiningOp()->isBeforeInBlock(
          &*builder.getInsertionPoint()))
    return it->second;

  Value input = hadamard ? applyHadamard(source, dim) : source;
  if (config.partialBlocks)
    input = padToBlocks(input, block);
  auto inputType = cast<RankedTensorType>(input.getType());
  Type dataElement, scaleElement;
  switch (config.recipe) {
  case Recipe::mxfp8:
  case Recipe::fp8Block:
    dataElement = getFP8Type(context, role == Role::gradient && config.hybrid
                                          ? FP8Format::e5m2
                                          : FP8Format::e4m3);
    scaleElement = config.recipe == Recipe::mxfp8
                       ? Type(Float8E8M0FNUType::get(context))
                       : Type(builder.getF32Type());
    break;
  default:
    dataElement = Float4E2M1FNType::get(context);
    scaleElement = Float8E4M3FNType::get(context);
    break;
  }
  SmallVector<int64_t, 2> scaleShape = {inputType.getDimSize(0) / block[0],
                                        inputType.getDimSize(1) / block[1]};
  BlockTensor result;
  Value bits;
  if (config.recipe == Recipe::nvfp4) {
    result.global = createGlobalScale(input);
    // TE rounds NVFP4 gradients stochastically, inputs and weights to
    // nearest.
    if (role == Role::gradient && config.stochasticRounding)
      bits = drawRandomBits(inputType.getShape());
  }
  // fp8-block: TE's QParams amax_epsilon and power_2_scale.
  bool fp8Block = config.recipe == Recipe::fp8Block;
  auto quantise = BlockQuantizeOp::create(
      builder, loc, inputType.clone(dataElement),
      RankedTensorType::get(scaleShape, scaleElement), input, result.global,
      bits, APFloat(fp8Block ? config.amaxEpsilon : 0.0),
      fp8Block && config.fp32Scales);
  result.data = quantise.getData();
  result.scales = quantise.getScales();
  blockCache[key] = result;
  return result;
}

void FunctionRewriter::rewriteBlockLayer(FP8Layer &layer) {
  Operation *forwardOp = layer.forward;
  SmallVector<BlockGemm> gemms;
  // The forward op; a linear's input is flattened to rank 2.
  if (auto matmul = dyn_cast<MatmulOp>(forwardOp))
    gemms.push_back({forwardOp, matmul.getLhs(), matmul.getRhs(),
                     matmul.getTransposeLhs(), matmul.getTransposeRhs(),
                     Role::input, Role::weight, false});
  else
    gemms.push_back({forwardOp, forwardOp->getOperand(0),
                     forwardOp->getOperand(1), false, true, Role::input,
                     Role::weight, false});
  for (const BackwardUse &use : layer.backward) {
    auto matmul = cast<MatmulOp>(use.op);
    Role forwardRole = use.usesLhs ? Role::input : Role::weight;
    Role lhsRole = use.forwardIndex == 0 ? forwardRole : Role::gradient;
    Role rhsRole = use.forwardIndex == 1 ? forwardRole : Role::gradient;
    gemms.push_back({use.op, matmul.getLhs(), matmul.getRhs(),
                     matmul.getTransposeLhs(), matmul.getTransposeRhs(),
                     lhsRole, rhsRole, use.usesLhs});
  }
  // Every GEMM must fit the blocks, or the layer stays as it is.
  for (const BlockGemm &gemm : gemms) {
    std::string reason = checkBlockShapes(gemm);
    if (!reason.empty()) {
      forwardOp->emitWarning("mp-fp8-scaling: recipe=")
          << config.name << " leaves this layer in its precision: " << reason;
      return;
    }
  }

  for (BlockGemm &gemm : gemms) {
    Operation *op = gemm.op;
    Location loc = op->getLoc();
    builder.setInsertionPoint(op);
    Value lhs = gemm.lhs;
    auto lhsType = cast<RankedTensorType>(lhs.getType());
    if (lhsType.getRank() > 2) {
      int64_t k = lhsType.getShape().back();
      lhs = ReshapeOp::create(
          builder, loc,
          lhsType.clone(ArrayRef<int64_t>{lhsType.getNumElements() / k, k}),
          lhs);
    }
    bool hadamard = config.hadamardTransform && gemm.weightGradient;
    bool transposeLhs = gemm.transposeLhs, transposeRhs = gemm.transposeRhs;
    BlockTensor lhsBlocks =
        quantiseBlocks(lhs, gemm.lhsRole, transposeLhs ? 0 : 1, hadamard);
    BlockTensor rhsBlocks =
        quantiseBlocks(gemm.rhs, gemm.rhsRole, transposeRhs ? 1 : 0, hadamard);
    // The transform leaves K last in both operands: lhs [M, K], rhs [N, K].
    if (hadamard) {
      transposeLhs = false;
      transposeRhs = true;
    }
    auto lhsData = cast<RankedTensorType>(lhsBlocks.data.getType());
    auto rhsData = cast<RankedTensorType>(rhsBlocks.data.getType());
    int64_t m = lhsData.getDimSize(transposeLhs ? 1 : 0);
    int64_t n = rhsData.getDimSize(transposeRhs ? 0 : 1);
    Type f32 = builder.getF32Type();
    Value product = ScaledMatmulOp::create(
        builder, loc, RankedTensorType::get({m, n}, f32), lhsBlocks.data,
        lhsBlocks.scales, rhsBlocks.data, rhsBlocks.scales,
        transposeLhs ? builder.getUnitAttr() : UnitAttr(),
        transposeRhs ? builder.getUnitAttr() : UnitAttr(), TypeAttr::get(f32));
    // Padded operands (partial blocks): the product of the zero rows and
    // columns is dropped.
    auto unpadded = cast<RankedTensorType>(lhs.getType());
    int64_t rows = unpadded.getDimSize(gemm.transposeLhs ? 1 : 0);
    int64_t cols = cast<RankedTensorType>(gemm.rhs.getType())
                       .getDimSize(gemm.transposeRhs ? 0 : 1);
    if (rows != m || cols != n)
      product = SliceOp::create(builder, loc, product,
                                ArrayRef<int64_t>{0, 0},
                                ArrayRef<int64_t>{rows, cols},
                                ArrayRef<int64_t>{1, 1});
    Value inverse;
    if (lhsBlocks.global)
      inverse = createInverseProduct(lhsBlocks.global, rhsBlocks.global);
    finishContraction(op, product, inverse);
  }
}
