//===- Autocast.cpp - Allow/deny-list mixed precision ---------------------===//
//
// mp-autocast runs every op of every function in the precision its category
// in the AutocastPolicy asks for: allow ops in the compute type (f16/bf16,
// accumulating in f32), deny ops in f32, promote ops in the widest type of
// their inputs, clear ops in the type of their inputs. Operands are converted
// with `mp.cast`, one per (value, element type), placed right after the
// value's definition (at the start of the block for block arguments) and
// shared by all users; a reshape/transpose/broadcast/relu/neg whose users all
// run in the compute type is run in it too, so its input's cast can be shared.
// Where a result's type changes, users that are not rewritten (exempt ops,
// unknown ops, terminators, disabled ops) get a cast back to the original
// type, so signatures and the types seen by those ops never change. `mp.grad`
// keeps its loss type; a differentiated value whose type changed stays
// differentiated as is and its gradient is cast back for the users.
// Finally, an mp contraction accumulating in f32 whose result is only
// consumed in f32 (directly, or through clear and promote ops that are then
// consumed in f32) returns its f32 accumulator instead of rounding it to the
// compute type and widening it back, and those clear/promote ops run in f32:
// fewer casts, one rounding less (docs/Autocast.md, "Results consumed in
// f32").
//
// It assumes SSA dominance in function bodies: ops are visited in pre-order,
// so a value's definition is visited before its uses. A bad policy or a
// meaningless `mp.precision` pin fails the pass before anything changes. An op
// of another dialect that does not verify in its new types is restored and
// left as it was, with a warning.
//
//===----------------------------------------------------------------------===//

#include "mp/Dialect/MP/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Support/DebugStringHelper.h"
#include "mp/Dialect/MP/IR/MPOps.h"
#include "mp/Dialect/MP/Transforms/AutocastPolicy.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::mp {
#define GEN_PASS_DEF_MPAUTOCAST
#include "mp/Dialect/MP/Transforms/Passes.h.inc"
} // namespace mlir::mp

using namespace mlir;
using namespace mlir::mp;

/// True for the two FP8 formats.
static bool isFP8(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

/// Returns the float type that represents every value of each of `types`
/// exactly, preferring one of them; f32 when none does (f16 with bf16).
static FloatType getWidest(ArrayRef<FloatType> types) {
  FloatType widest = types.front();
  for (FloatType type : types.drop_front()) {
    if (CastOp::isExactConversion(widest, type))
      widest = type;
    else if (!CastOp::isExactConversion(type, widest))
      widest = Float32Type::get(type.getContext());
  }
  return widest;
}

/// True when `operand` is an accumulator (`outs`) of a destination-style op.
static bool isDpsInit(OpOperand &operand) {
  auto dps = dyn_cast<DestinationStyleOpInterface>(operand.getOwner());
  return dps && dps.isDpsInit(&operand);
}

/// Makes the accumulation type and compute mode of an mp contraction valid
/// for operands of element type `type`: f16 accumulation needs f16 operands,
/// TF32 needs f32 ones; f32 accumulation is kept.
static void adjustContraction(Operation *op, FloatType type) {
  Type f32 = Float32Type::get(op->getContext());
  auto fixAcc = [&](auto contraction) {
    if (contraction.getAccType().isF16() && !type.isF16())
      contraction.setAccType(f32);
  };
  llvm::TypeSwitch<Operation *>(op)
      .Case<MatmulOp, BatchMatmulOp>([&](auto contraction) {
        fixAcc(contraction);
        if (contraction.getCompute() == ComputeMode::tf32 && !type.isF32())
          contraction.setCompute(ComputeMode::ieee);
      })
      .Case<LinearOp, Conv2DOp, Conv2DGradInputOp, Conv2DGradFilterOp>(fixAcc);
}

/// The accumulation type of an mp contraction, or null for other ops.
static Type getContractionAccType(Operation *op) {
  return llvm::TypeSwitch<Operation *, Type>(op)
      .Case<MatmulOp, BatchMatmulOp, LinearOp, Conv2DOp, Conv2DGradInputOp,
            Conv2DGradFilterOp>(
          [](auto contraction) { return contraction.getAccType(); })
      .Default([](Operation *) { return Type(); });
}

/// The bias operand of an mp contraction that has one (`mp.linear`,
/// `mp.conv2d`), or null. The bias is added to the accumulator and has the
/// result's element type.
static OpOperand *getBiasOperand(Operation *op) {
  return llvm::TypeSwitch<Operation *, OpOperand *>(op)
      .Case<LinearOp, Conv2DOp>([](auto contraction) -> OpOperand * {
        MutableOperandRange bias = contraction.getBiasMutable();
        return bias.empty() ? nullptr : &bias[0];
      })
      .Default([](Operation *) { return nullptr; });
}

/// True when only casts separate `cast` from the definition of its input (the
/// start of the block for a block argument).
static bool followsDefinition(CastOp cast) {
  Value input = cast.getInput();
  Block::iterator it;
  if (auto argument = dyn_cast<BlockArgument>(input)) {
    if (cast->getBlock() != argument.getOwner())
      return false;
    it = argument.getOwner()->begin();
  } else {
    Operation *definition = input.getDefiningOp();
    if (cast->getBlock() != definition->getBlock())
      return false;
    it = std::next(definition->getIterator());
  }
  for (; &*it != cast.getOperation(); ++it)
    if (!isa<CastOp>(*it))
      return false;
  return true;
}

namespace {
/// A body argument of a destination-style op retyped to follow its operand,
/// and the widening back to its old type at the start of the body.
struct RetypedBodyArgument {
  BlockArgument argument;
  Type oldType;
  Operation *widening;
};
} // namespace

/// Makes the body of a destination-style op (a linalg op) follow the new
/// element types of its operands: the block argument of an operand that was
/// narrowed takes the new type and is widened back (`arith.extf`, exact) at
/// the start of the body, so the body computes as before on the rounded
/// values — the body linalg builds for mixed-type operands. Other changes
/// leave the body as it is (and the op then fails to verify).
static void retypeBody(Operation *op, ArrayRef<Value> oldOperands,
                       SmallVectorImpl<RetypedBodyArgument> &retyped) {
  if (op->getNumRegions() != 1 || !op->getRegion(0).hasOneBlock())
    return;
  Block &body = op->getRegion(0).front();
  if (body.getNumArguments() != op->getNumOperands())
    return;
  OpBuilder builder = OpBuilder::atBlockBegin(&body);
  for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
    Type newType = getElementTypeOrSelf(operand.getType());
    Type oldType = getElementTypeOrSelf(oldOperands[index].getType());
    BlockArgument argument = body.getArgument(index);
    if (newType == oldType || argument.getType() != oldType ||
        !isa<FloatType>(newType) ||
        !CastOp::isExactConversion(newType, oldType))
      continue;
    argument.setType(newType);
    auto widening =
        arith::ExtFOp::create(builder, argument.getLoc(), oldType, argument);
    argument.replaceAllUsesExcept(widening.getResult(), widening);
    retyped.push_back({argument, oldType, widening});
  }
}

namespace {

/// Rewrites one function body.
class FunctionAutocast {
public:
  FunctionAutocast(const AutocastPolicy &policy, FunctionOpInterface function)
      : policy(policy), function(function), builder(function.getContext()) {}

  /// Rewrites every op of the function.
  void run();

  /// Number of `mp.cast` ops created.
  unsigned numCasts = 0;
  /// Number of ops whose types changed.
  unsigned numRewritten = 0;

private:
  /// Decides which clear ops commuting with rounding run in the compute type
  /// because all their users do.
  void paintLowPrecision(ArrayRef<Operation *> ops);
  /// True when `use` will consume its value in the compute type.
  bool wantsComputeType(OpOperand &use) const;

  /// Returns the element type `op` runs in, or null to leave it as it is.
  FloatType getExecutionType(Operation *op, AutocastRole role,
                             FloatType pinned) const;
  /// The operands `op` computes on: the float tensor operands, except the
  /// accumulators of a destination-style allow op.
  SmallVector<OpOperand *> getComputeOperands(Operation *op,
                                              AutocastRole role) const;

  /// Runs `op` in `type`; returns failure (and leaves `op` as it was) when
  /// the op cannot be rewritten.
  LogicalResult rewrite(Operation *op, AutocastRole role, FloatType type);
  /// Gives the operands of `op` whose type changed their original type.
  void keepOriginalTypes(Operation *op);
  /// `mp.grad`: the loss keeps its type; differentiated values whose type
  /// changed stay, and their gradients take their type.
  void visitGrad(GradOp grad);

  /// Returns `value` converted to element type `elementType`, creating the
  /// cast on first request.
  Value castTo(Value value, Type elementType, Location loc);

  /// Runs in f32 the largest set of ops among `lowOps` such that each result
  /// is only consumed by casts to f32 made by this rewrite or by clear and
  /// promote ops of the set, each clear/promote op of the set gets its float
  /// operands from ops of the set (or already in f32), and each contraction
  /// accumulates in f32 and had an f32 bias (or none): those casts lose
  /// their users, and no cast is added.
  void runInF32WhereConsumedInF32();

  const AutocastPolicy &policy;
  FunctionOpInterface function;
  OpBuilder builder;
  /// The type values had before their definition was rewritten.
  DenseMap<Value, Type> originalTypes;
  /// The cast of a value to an element type.
  DenseMap<std::pair<Value, Type>, Value> casts;
  /// The last cast placed after an op result, and at the start of a block.
  DenseMap<Value, Operation *> lastCastOfResult;
  DenseMap<Block *, Operation *> lastCastOfArgument;
  /// Clear ops that run in the compute type because their users do.
  DenseSet<Operation *> paintedLow;
  /// Ops already visited (a block listed before the block defining one of
  /// its operands holds such users).
  DenseSet<Operation *> visited;
  /// Casts created by this rewrite, some possibly unused in the end.
  SmallVector<CastOp> created;
  DenseSet<Operation *> createdSet;
  /// Unpinned allow, clear and promote ops rewritten to run in the compute
  /// type, in visiting order.
  SmallVector<Operation *> lowOps;
  /// The bias a contraction of `lowOps` had before it was rewritten.
  DenseMap<Operation *, Value> originalBiases;
};

} // namespace

void FunctionAutocast::run() {
  SmallVector<Operation *> ops;
  function.getFunctionBody().walk<WalkOrder::PreOrder>(
      [&](Operation *op) { ops.push_back(op); });
  paintLowPrecision(ops);

  for (Operation *op : ops) {
    visited.insert(op);
    if (auto grad = dyn_cast<GradOp>(op)) {
      visitGrad(grad);
      continue;
    }
    if (isAutocastEnabled(op)) {
      AutocastRole role = policy.getRole(op);
      FloatType pinned = getPinnedPrecision(op);
      if (FloatType type = getExecutionType(op, role, pinned)) {
        OpOperand *bias = getBiasOperand(op);
        Value oldBias = bias ? bias->get() : Value();
        if (succeeded(rewrite(op, role, type))) {
          if (!pinned && type == policy.getComputeType() &&
              (role == AutocastRole::Allow || role == AutocastRole::Clear ||
               role == AutocastRole::Promote)) {
            lowOps.push_back(op);
            if (oldBias)
              originalBiases[op] = oldBias;
          }
          continue;
        }
      }
    }
    keepOriginalTypes(op);
  }
  runInF32WhereConsumedInF32();

  // Casts made for an op that was then restored, and the casts bypassed by
  // runInF32WhereConsumedInF32, have no user.
  for (CastOp cast : llvm::reverse(created)) {
    if (cast->use_empty()) {
      cast->erase();
      --numCasts;
    }
  }
}

bool FunctionAutocast::wantsComputeType(OpOperand &use) const {
  Operation *user = use.getOwner();
  if (paintedLow.contains(user))
    return true;
  if (!isAutocastEnabled(user) || isDpsInit(use) ||
      llvm::any_of(user->getOperandTypes(),
                   [](Type type) { return isFP8(getElementTypeOrSelf(type)); }))
    return false;
  if (FloatType pinned = getPinnedPrecision(user))
    return pinned == policy.getComputeType();
  return policy.getRole(user) == AutocastRole::Allow;
}

void FunctionAutocast::paintLowPrecision(ArrayRef<Operation *> ops) {
  // Users come after their definitions: decide them first.
  for (Operation *op : llvm::reverse(ops)) {
    if (!AutocastPolicy::commutesWithRounding(op->getName().getStringRef()) ||
        policy.getRole(op) != AutocastRole::Clear || getPinnedPrecision(op) ||
        !isAutocastEnabled(op) || op->use_empty())
      continue;
    if (llvm::all_of(op->getUses(),
                     [&](OpOperand &use) { return wantsComputeType(use); }))
      paintedLow.insert(op);
  }
}

SmallVector<OpOperand *>
FunctionAutocast::getComputeOperands(Operation *op, AutocastRole role) const {
  SmallVector<OpOperand *> operands;
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isFloatTensor(operand.get().getType()))
      continue;
    if (role == AutocastRole::Allow && isDpsInit(operand))
      continue;
    operands.push_back(&operand);
  }
  return operands;
}

FloatType FunctionAutocast::getExecutionType(Operation *op, AutocastRole role,
                                             FloatType pinned) const {
  bool listed = role == AutocastRole::Allow || role == AutocastRole::Deny ||
                role == AutocastRole::Promote || role == AutocastRole::Clear;
  if (!listed && !(role == AutocastRole::Unknown && pinned))
    return {};
  SmallVector<FloatType> operandTypes;
  for (OpOperand *operand : getComputeOperands(op, role))
    operandTypes.push_back(
        cast<FloatType>(getElementTypeOrSelf(operand->get().getType())));
  // Nothing to decide, or already quantised to FP8 (mp-fp8-scaling's job).
  if (operandTypes.empty() || llvm::any_of(operandTypes, isFP8))
    return {};
  if (pinned)
    return pinned;
  if (paintedLow.contains(op))
    return policy.getComputeType();
  bool tensorCoresOnly = policy.getLevel() == AutocastLevel::TensorCoresOnly;
  switch (role) {
  case AutocastRole::Allow:
    return policy.getComputeType();
  case AutocastRole::Deny:
    return tensorCoresOnly ? FloatType() : Float32Type::get(op->getContext());
  case AutocastRole::Promote:
    return tensorCoresOnly ? FloatType() : getWidest(operandTypes);
  case AutocastRole::Clear:
    return getWidest(operandTypes);
  default:
    return {};
  }
}

LogicalResult FunctionAutocast::rewrite(Operation *op, AutocastRole role,
                                        FloatType type) {
  SmallVector<OpOperand *> computeOperands = getComputeOperands(op, role);
  for (OpOperand *operand : computeOperands) {
    if (!isCastableFloatTensor(operand->get().getType())) {
      op->emitWarning() << "mp-autocast left this op in its original types: "
                           "operand #"
                        << operand->getOperandNumber() << " of type "
                        << operand->get().getType()
                        << " is not a statically shaped f32, f16, bf16 or "
                           "FP8 tensor";
      return failure();
    }
  }

  // Remember the op as it is, to restore it if it does not verify.
  SmallVector<Value> oldOperands(op->getOperands());
  SmallVector<Type> oldResultTypes(op->getResultTypes());
  DictionaryAttr oldAttrs = op->getAttrDictionary();
  SmallVector<RetypedBodyArgument> retypedArguments;
  auto restore = [&] {
    for (RetypedBodyArgument &retyped : retypedArguments) {
      retyped.widening->getResult(0).replaceAllUsesWith(retyped.argument);
      retyped.widening->erase();
      retyped.argument.setType(retyped.oldType);
    }
    op->setOperands(oldOperands);
    for (auto [result, oldType] : llvm::zip(op->getResults(), oldResultTypes))
      result.setType(oldType);
    op->setAttrs(oldAttrs);
  };

  for (OpOperand *operand : computeOperands)
    operand->set(castTo(operand->get(), type, op->getLoc()));
  // Accumulators of an allow-list destination-style op keep their type.
  for (OpOperand &operand : op->getOpOperands()) {
    auto it = originalTypes.find(operand.get());
    if (it != originalTypes.end() &&
        !llvm::is_contained(computeOperands, &operand))
      operand.set(castTo(operand.get(), getElementTypeOrSelf(it->second),
                         op->getLoc()));
  }
  adjustContraction(op, type);
  if (op->getNumRegions() != 0)
    retypeBody(op, oldOperands, retypedArguments);

  // New result types: a destination-style op's follow its accumulators;
  // inferred where the op infers them; otherwise float results take `type`.
  std::string problem;
  {
    ScopedDiagnosticHandler captureDiagnostics(op->getContext(),
                                               [&](Diagnostic &diagnostic) {
                                                 if (problem.empty())
                                                   problem = diagnostic.str();
                                                 return success();
                                               });
    if (auto dps = dyn_cast<DestinationStyleOpInterface>(op)) {
      for (auto [result, init] : llvm::zip(op->getResults(), dps.getDpsInits()))
        result.setType(init.getType());
    } else if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
      SmallVector<Type> inferred;
      if (failed(infer.inferReturnTypes(
              op->getContext(), op->getLoc(), op->getOperands(),
              op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
              op->getRegions(), inferred)) ||
          inferred.size() != op->getNumResults()) {
        if (problem.empty())
          problem = "its result types cannot be inferred";
      } else {
        for (auto [result, inferredType] :
             llvm::zip(op->getResults(), inferred))
          result.setType(inferredType);
      }
    } else {
      for (OpResult result : op->getResults())
        if (isCastableFloatTensor(result.getType()))
          result.setType(cast<RankedTensorType>(result.getType()).clone(type));
    }
    // Users that keep the original types need a cast back, which only
    // exists between statically shaped float tensors.
    for (auto [result, oldType] : llvm::zip(op->getResults(), oldResultTypes))
      if (problem.empty() && result.getType() != oldType &&
          (!isCastableFloatTensor(oldType) ||
           !isCastableFloatTensor(result.getType())))
        problem = llvm::formatv("result #{0} would change from {1} to {2}, "
                                "which mp.cast cannot convert back",
                                result.getResultNumber(), debugString(oldType),
                                debugString(result.getType()));
    if (problem.empty() && op->isRegistered() &&
        failed(verify(op, /*verifyRecursively=*/false)) && problem.empty())
      problem = "it does not verify";
  }
  if (!problem.empty()) {
    restore();
    op->emitWarning() << "mp-autocast left this op in its original types; "
                         "running it in "
                      << debugString(type) << ": " << problem;
    return failure();
  }

  bool changed = !llvm::equal(oldOperands, op->getOperands());
  for (auto [result, oldType] : llvm::zip(op->getResults(), oldResultTypes)) {
    if (result.getType() == oldType)
      continue;
    changed = true;
    originalTypes[result] = oldType;
    // Users visited before this definition keep the type they saw.
    for (OpOperand &use : llvm::make_early_inc_range(result.getUses()))
      if (use.getOwner() != op && visited.contains(use.getOwner()))
        use.set(castTo(result, getElementTypeOrSelf(oldType), op->getLoc()));
  }
  if (changed)
    ++numRewritten;
  return success();
}

void FunctionAutocast::keepOriginalTypes(Operation *op) {
  for (OpOperand &operand : op->getOpOperands()) {
    auto it = originalTypes.find(operand.get());
    if (it != originalTypes.end())
      operand.set(castTo(operand.get(), getElementTypeOrSelf(it->second),
                         op->getLoc()));
  }
}

void FunctionAutocast::visitGrad(GradOp grad) {
  OpOperand &loss = grad.getLossMutable();
  auto it = originalTypes.find(loss.get());
  if (it != originalTypes.end())
    loss.set(
        castTo(loss.get(), getElementTypeOrSelf(it->second), grad.getLoc()));
  for (auto [value, gradient] :
       llvm::zip(grad.getValues(), grad.getGradients())) {
    if (gradient.getType() == value.getType())
      continue;
    originalTypes[gradient] = gradient.getType();
    gradient.setType(value.getType());
  }
}

Value FunctionAutocast::castTo(Value value, Type elementType, Location loc) {
  if (getElementTypeOrSelf(value.getType()) == elementType)
    return value;
  auto key = std::make_pair(value, elementType);
  if (Value cast = casts.lookup(key))
    return cast;

  // Right after the definition, after the casts already placed there.
  auto argument = dyn_cast<BlockArgument>(value);
  if (argument) {
    if (Operation *last = lastCastOfArgument.lookup(argument.getOwner()))
      builder.setInsertionPointAfter(last);
    else
      builder.setInsertionPointToStart(argument.getOwner());
  } else if (Operation *last = lastCastOfResult.lookup(value)) {
    builder.setInsertionPointAfter(last);
  } else {
    builder.setInsertionPointAfter(value.getDefiningOp());
  }

  // Reuse (and hoist) a cast the value already has, else create one.
  auto type = cast<RankedTensorType>(value.getType()).clone(elementType);
  CastOp cast;
  for (Operation *user : value.getUsers()) {
    auto existing = dyn_cast<CastOp>(user);
    if (existing && !existing.getSaturate() && existing.getType() == type) {
      cast = existing;
      break;
    }
  }
  if (cast) {
    // A cast already among those right after the definition dominates every
    // use: it stays in its place, so that a second run keeps the order.
    if (followsDefinition(cast)) {
      casts[key] = cast.getResult();
      return cast.getResult();
    }
    cast->moveBefore(builder.getInsertionBlock(), builder.getInsertionPoint());
  } else {
    cast = CastOp::create(builder, loc, type, value);
    created.push_back(cast);
    createdSet.insert(cast);
    ++numCasts;
  }

  if (argument)
    lastCastOfArgument[argument.getOwner()] = cast;
  else
    lastCastOfResult[value] = cast;
  casts[key] = cast.getResult();
  return cast.getResult();
}

void FunctionAutocast::runInF32WhereConsumedInF32() {
  auto f32 = Float32Type::get(function.getContext());
  auto isAllow = [&](Operation *op) {
    return policy.getRole(op) == AutocastRole::Allow;
  };

  // Candidates: contractions that accumulate in f32 and had an f32 bias (or
  // none); clear and promote ops of the mp dialect, whose float operands and
  // results share one element type.
  DenseSet<Operation *> wide;
  SmallVector<Operation *> candidates;
  for (Operation *op : lowOps) {
    if (op->use_empty())
      continue;
    if (isAllow(op)) {
      Type accType = getContractionAccType(op);
      if (!accType || !accType.isF32())
        continue;
      if (getBiasOperand(op)) {
        Value bias = originalBiases.lookup(op);
        if (!bias || !getElementTypeOrSelf(bias.getType()).isF32())
          continue;
      }
    } else if (!isa<MPDialect>(op->getDialect()) || op->getNumRegions() != 0) {
      continue;
    }
    wide.insert(op);
    candidates.push_back(op);
  }

  // Shrinks the set to the largest one whose ops all satisfy the conditions.
  auto consumedInF32 = [&](OpOperand &use) {
    Operation *user = use.getOwner();
    if (auto cast = dyn_cast<CastOp>(user))
      return createdSet.contains(user) &&
             cast.getType().getElementType() == f32;
    return wide.contains(user) && !isAllow(user);
  };
  auto qualifies = [&](Operation *op) {
    for (OpResult result : op->getResults())
      if (isFloatTensor(result.getType()) &&
          !llvm::all_of(result.getUses(), consumedInF32))
        return false;
    if (isAllow(op))
      return true;
    return llvm::all_of(op->getOperands(), [&](Value operand) {
      if (!isFloatTensor(operand.getType()) ||
          getElementTypeOrSelf(operand.getType()) == f32)
        return true;
      Operation *definition = operand.getDefiningOp();
      return definition && wide.contains(definition);
    });
  };
  SmallVector<Operation *> worklist(candidates);
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!wide.contains(op) || qualifies(op))
      continue;
    wide.erase(op);
    // Its producers and users may no longer qualify.
    for (Value operand : op->getOperands())
      if (Operation *definition = operand.getDefiningOp();
          definition && wide.contains(definition))
        worklist.push_back(definition);
    for (Operation *user : op->getUsers())
      if (wide.contains(user))
        worklist.push_back(user);
  }

  // Retype the set, then bypass the casts to f32 of its results: they and
  // the casts of the biases lose their users and are erased with the other
  // unused casts.
  for (Operation *op : candidates) {
    if (!wide.contains(op))
      continue;
    if (OpOperand *bias = getBiasOperand(op))
      bias->set(originalBiases.lookup(op));
    for (OpResult result : op->getResults())
      if (isFloatTensor(result.getType()))
        result.setType(cast<RankedTensorType>(result.getType()).clone(f32));
  }
  for (Operation *op : candidates) {
    if (!wide.contains(op))
      continue;
    for (OpResult result : op->getResults())
      for (Operation *user : result.getUsers())
        if (auto cast = dyn_cast<CastOp>(user))
          cast.getResult().replaceAllUsesWith(result);
  }
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// Reports `mp.precision` pins autocast cannot honour.
static LogicalResult checkPins(ModuleOp module, const AutocastPolicy &policy) {
  bool valid = true;
  module.walk([&](Operation *op) {
    if (!op->hasAttr(MPDialect::kPrecisionAttrName))
      return;
    AutocastRole role = policy.getRole(op);
    StringRef reason;
    if (role == AutocastRole::Exempt)
      reason = "autocast never changes training, precision and terminator ops";
    else if (op->getNumRegions() != 0 && !isa<DestinationStyleOpInterface>(op))
      reason = "autocast never changes ops with regions";
    else if (role == AutocastRole::None)
      reason = "it has no float tensor operand";
    if (reason.empty())
      return;
    op->emitError() << "'" << MPDialect::kPrecisionAttrName << "' cannot pin '"
                    << op->getName() << "': " << reason;
    valid = false;
  });
  return success(valid);
}

namespace {
struct AutocastPass : public mp::impl::MPAutocastBase<AutocastPass> {
  using MPAutocastBase::MPAutocastBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    AutocastPolicySettings settings =
        makePolicySettings(policyFile, allow, deny, promote, clear);
    settings.computeType = computeType;
    settings.level = level;
    std::string error;
    FailureOr<AutocastPolicy> policy =
        AutocastPolicy::build(&getContext(), settings, error);
    if (failed(policy)) {
      // On the module's location, without printing the module.
      emitError(module.getLoc()) << "mp-autocast: " << error;
      return signalPassFailure();
    }
    if (failed(checkPins(module, *policy)))
      return signalPassFailure();

    // Functions of the module (not functions nested in functions).
    SmallVector<FunctionOpInterface> functions;
    module.walk([&](FunctionOpInterface function) {
      if (!function.isExternal() &&
          !function->getParentOfType<FunctionOpInterface>())
        functions.push_back(function);
    });
    for (FunctionOpInterface function : functions) {
      FunctionAutocast rewriter(*policy, function);
      rewriter.run();
      numCasts += rewriter.numCasts;
      numRewritten += rewriter.numRewritten;
    }
  }
};
} // namespace
