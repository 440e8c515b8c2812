//===- Autodiff.cpp - Reverse-mode expansion of mp.grad -------------------===//
//
// mp-autodiff replaces every `mp.grad %loss wrt %v...` by explicit backward
// ops. For one mp.grad it finds the active ops of its block — those on a path
// from a differentiated value to the loss — and walks them in reverse order,
// asking each (through DifferentiableOpInterface, implemented next to the op
// definitions in lib/Dialect/MP/IR/MPGradients.cpp) to build the adjoints of
// its operands from the adjoints of its results. The seed is 1.0 in the
// loss's type; adjoints of a value used several times accumulate with mp.add
// in the value's type; differentiated values the loss does not depend on get
// zeros and a warning.
//
// It assumes value semantics (every mp op is pure) and that the differentiated
// values are defined in the mp.grad's block before it; values defined outside
// the block are constants of the differentiation, and so are the results of
// mp.stop_gradient (nothing flows through it). Ops on the active path that
// cannot be differentiated (other dialects, ops with regions, mp backward and
// optimizer ops) are reported at the op, and the function is left unchanged.
//
//===----------------------------------------------------------------------===//

#include "mp/Dialect/MP/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "mp/Dialect/MP/IR/MPOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::mp {
#define GEN_PASS_DEF_MPAUTODIFF
#include "mp/Dialect/MP/Transforms/Passes.h.inc"
} // namespace mlir::mp

using namespace mlir;
using namespace mlir::mp;

namespace {

/// Records every op a builder inserts, so that an expansion can be cleaned up
/// (unused ops erased) or undone on failure.
struct InsertedOpsRecorder : OpBuilder::Listener {
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    ops.push_back(op);
  }
  SmallVector<Operation *> ops;
};

/// Expands one mp.grad.
class GradExpander {
public:
  explicit GradExpander(GradOp grad) : grad(grad) {}

  /// Replaces the mp.grad by its backward computation, or reports an error
  /// and leaves the IR unchanged.
  LogicalResult expand();

private:
  /// Checks the loss and that every differentiated value is defined in the
  /// block of the mp.grad, before it.
  LogicalResult checkOperands();
  /// Finds the active values and ops: `varied` (depends on a differentiated
  /// value) and `useful` (the loss depends on it).
  void analyzeActivity();
  /// Reports the active ops that have no gradient.
  LogicalResult checkActiveOps();
  /// Builds the backward ops before the mp.grad.
  LogicalResult buildBackward(OpBuilder &builder);
  /// Adds `adjoint` to the adjoint of `value`.
  void accumulate(OpBuilder &builder, Value value, Value adjoint);
  /// Describes a differentiated value in diagnostics.
  std::string describe(Value value) const;

  bool isActive(Value value) const {
    return varied.contains(value) && useful.contains(value);
  }

  GradOp grad;
  llvm::DenseSet<Value> varied;
  llvm::DenseSet<Value> useful;
  /// The ops that read a varied value (directly or in a nested region): only
  /// these propagate derivatives. The op defining a differentiated value
  /// does not, unless it reads another differentiated value itself.
  llvm::SmallPtrSet<Operation *, 32> dependentOps;
  /// The ops to differentiate, in program order.
  SmallVector<Operation *> activeOps;
  /// The adjoint of each active value reached so far.
  DenseMap<Value, Value> adjoints;
};

} // namespace

/// True for the types that carry a derivative: float tensors.
static bool isDifferentiableType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

LogicalResult GradExpander::checkOperands() {
  auto lossType = dyn_cast<RankedTensorType>(grad.getLoss().getType());
  if (!lossType || lossType.getRank() != 0 ||
      !isa<FloatType>(lossType.getElementType()))
    return grad.emitOpError("expects a 0-d float loss, got ")
           << grad.getLoss().getType();
  Block *block = grad->getBlock();
  for (auto [index, value] : llvm::enumerate(grad.getValues())) {
    bool definedBefore;
    if (auto argument = dyn_cast<BlockArgument>(value)) {
      definedBefore = argument.getOwner() == block;
    } else {
      Operation *definingOp = value.getDefiningOp();
      definedBefore =
          definingOp->getBlock() == block && definingOp->isBeforeInBlock(grad);
    }
    if (!definedBefore)
      return grad.emitOpError("value #")
             << index
             << " is not defined in the block of this op before it: "
                "mp-autodiff differentiates with respect to arguments of the "
                "block or results of earlier ops in it";
  }
  return success();
}

void GradExpander::analyzeActivity() {
  Block *block = grad->getBlock();
  auto ops = llvm::make_range(block->begin(), grad->getIterator());

  // Forward: what depends on a differentiated value, including through values
  // that nested regions capture.
  for (Value value : grad.getValues())
    varied.insert(value);
  for (Operation &op : ops) {
    // mp.stop_gradient's result is a constant of the differentiation.
    if (isa<StopGradientOp>(op))
      continue;
    bool dependsOnVaried = llvm::any_of(op.getOperands(), [&](Value operand) {
      return varied.contains(operand);
    });
    if (!dependsOnVaried && op.getNumRegions() > 0) {
      op.walk([&](Operation *nested) {
        if (llvm::any_of(nested->getOperands(), [&](Value operand) {
              return varied.contains(operand);
            }))
          dependsOnVaried = true;
      });
    }
    if (!dependsOnVaried)
      continue;
    dependentOps.insert(&op);
    for (Value result : op.getResults())
      if (isDifferentiableType(result.getType()))
        varied.insert(result);
  }

  // Backward: what the loss depends on.
  useful.insert(grad.getLoss());
  for (Operation &op : llvm::reverse(ops)) {
    if (llvm::none_of(op.getResults(),
                      [&](Value result) { return useful.contains(result); }))
      continue;
    // No derivative flows through mp.stop_gradient to its operand.
    if (isa<StopGradientOp>(op))
      continue;
    for (Value operand : op.getOperands())
      useful.insert(operand);
    if (op.getNumRegions() > 0) {
      llvm::SetVector<Value> captured;
      getUsedValuesDefinedAbove(op.getRegions(), captured);
      for (Value value : captured)
        useful.insert(value);
    }
    if (dependentOps.contains(&op) &&
        llvm::any_of(op.getResults(),
                     [&](Value result) { return isActive(result); }))
      activeOps.push_back(&op);
  }
  std::reverse(activeOps.begin(), activeOps.end());
}

LogicalResult GradExpander::checkActiveOps() {
  bool ok = true;
  for (Operation *op : activeOps) {
    if (isa<DifferentiableOpInterface>(op))
      continue;
    InFlightDiagnostic diag = op->emitError()
                              << "op '" << op->getName() << "' has no gradient";
    if (op->getNumRegions() > 0)
      diag << ": mp-autodiff does not differentiate through ops with regions";
    else if (isa<MPDialect>(op->getDialect()))
      diag << ": mp-autodiff differentiates forward ops, not backward, "
              "gradient or optimizer ops (second-order differentiation is not "
              "supported)";
    diag.attachNote(grad.getLoc())
        << "on the path from a differentiated value to the loss of this "
           "mp.grad";
    ok = false;
  }
  return success(ok);
}

void GradExpander::accumulate(OpBuilder &builder, Value value, Value adjoint) {
  Value &slot = adjoints[value];
  slot = slot ? AddOp::create(builder, grad.getLoc(), slot, adjoint).getResult()
              : adjoint;
}

LogicalResult GradExpander::buildBackward(OpBuilder &builder) {
  Value loss = grad.getLoss();
  auto lossType = cast<RankedTensorType>(loss.getType());
  adjoints[loss] = arith::ConstantOp::create(
      builder, grad.getLoc(),
      DenseElementsAttr::get(
          lossType, builder.getFloatAttr(lossType.getElementType(), 1.0)));

  for (Operation *op : llvm::reverse(activeOps)) {
    SmallVector<Value> resultAdjoints =
        llvm::map_to_vector(op->getResults(), [&](Value result) {
          return adjoints.lookup(result);
        });
    if (llvm::all_of(resultAdjoints, [](Value adjoint) { return !adjoint; }))
      continue;
    SmallVector<bool> requested = llvm::map_to_vector(
        op->getOperands(), [&](Value operand) { return isActive(operand); });
    FailureOr<SmallVector<Value>> operandAdjoints =
        cast<DifferentiableOpInterface>(op).buildAdjoints(
            builder, resultAdjoints, requested);
    if (failed(operandAdjoints))
      return failure();
    if (operandAdjoints->size() != op->getNumOperands())
      return op->emitError("gradient builder returned ")
             << operandAdjoints->size() << " adjoints for "
             << op->getNumOperands() << " operands";
    for (auto [index, operand, adjoint] :
         llvm::enumerate(op->getOperands(), *operandAdjoints)) {
      if (!adjoint || !requested[index])
        continue;
      if (adjoint.getType() != operand.getType())
        return op->emitError("gradient builder returned an adjoint of type ")
               << adjoint.getType() << " for operand #" << index << " of type "
               << operand.getType();
      accumulate(builder, operand, adjoint);
    }
  }
  return success();
}

std::string GradExpander::describe(Value value) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto argument = dyn_cast<BlockArgument>(value)) {
    auto function =
        dyn_cast<FunctionOpInterface>(argument.getOwner()->getParentOp());
    if (function && argument.getOwner()->isEntryBlock()) {
      os << "function argument #" << argument.getArgNumber();
      if (function.getArgAttr(argument.getArgNumber(),
                              MPDialect::kParamAttrName))
        os << ", " << MPDialect::kParamAttrName;
    } else {
      os << "block argument #" << argument.getArgNumber();
    }
  } else {
    os << "result #" << cast<OpResult>(value).getResultNumber() << " of '"
       << value.getDefiningOp()->getName() << "'";
  }
  return text;
}

LogicalResult GradExpander::expand() {
  if (failed(checkOperands()))
    return failure();
  analyzeActivity();
  if (failed(checkActiveOps()))
    return failure();

  InsertedOpsRecorder recorder;
  OpBuilder builder(grad);
  builder.setListener(&recorder);
  if (failed(buildBackward(builder))) {
    for (Operation *op : llvm::reverse(recorder.ops))
      op->erase();
    return failure();
  }

  SmallVector<Value> gradients;
  for (auto [index, value] : llvm::enumerate(grad.getValues())) {
    Value gradient = adjoints.lookup(value);
    if (!gradient) {
      grad.emitWarning("gradient of value #")
          << index << " (" << describe(value) << ") is zero: "
          << (useful.contains(value)
                  ? "the loss depends on it only through operands without a "
                    "gradient (labels, indices, scale factors)"
                  : "the loss does not depend on it");
      gradient = arith::ConstantOp::create(
          builder, grad.getLoc(), builder.getZeroAttr(value.getType()));
    }
    gradients.push_back(gradient);
  }
  grad->replaceAllUsesWith(gradients);
  grad->erase();

  // Builders may leave unused ops behind (the seed of a loss that depends on
  // nothing, adjoints nobody asked for): drop them.
  for (Operation *op : llvm::reverse(recorder.ops))
    if (isOpTriviallyDead(op))
      op->erase();
  return success();
}

namespace {
struct AutodiffPass : public mp::impl::MPAutodiffBase<AutodiffPass> {
  using MPAutodiffBase::MPAutodiffBase;

  void runOnOperation() override {
    SmallVector<GradOp> grads;
    getOperation()->walk([&](GradOp grad) { grads.push_back(grad); });
    // Later mp.grad ops first: each sees the forward ops as written (an
    // mp.grad whose loss depends on another's gradients reaches that
    // unexpanded mp.grad and is reported).
    bool ok = true;
    for (GradOp grad : llvm::reverse(grads))
      if (failed(GradExpander(grad).expand()))
        ok = false;
    if (!ok)
      signalPassFailure();
  }
};
} // namespace
