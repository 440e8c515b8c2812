//===- RematerializeFills.cpp - One constant fill per destination use -----===//
//
// mp-rematerialize-fills undoes, just before bufferization, what CSE does to
// constant fills: identical fills (the zero accumulators of contractions of
// one shape, the zero tensors that padding scatters into) become one value
// with several uses, and one-shot bufferization allocates and copies that
// buffer for every further use that writes into it. Each use that may write
// (a destination operand: a DPS init, an scf.for or scf.forall initial
// value, possibly through a reshape) gets a clone of the fill instead,
// placed right after the original (outside any loop of its users): writing
// a constant again costs half a copy, and the values are the same.
//
// A fill is a linalg.fill of a constant into a tensor.empty, or its tiled
// form after mp-tile-and-vectorize: scf.for/scf.forall loops, starting from
// a tensor.empty, whose bodies only write constants (vector.transfer_write
// of a constant, linalg.fill of a constant), take slices, yield and compute
// indices. It assumes tensors (before bufferization) and runs after the last
// CSE (which would merge the clones again).
//
//===----------------------------------------------------------------------===//

#include "mp/Dialect/MP/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

namespace mlir::mp {
#define GEN_PASS_DEF_MPREMATERIALIZEFILLS
#include "mp/Dialect/MP/Transforms/Passes.h.inc"
} // namespace mlir::mp

using namespace mlir;
using namespace mlir::mp;

namespace {

/// True when `value` is the result of a tensor.empty.
static bool isEmptyTensor(Value value) {
  return value.getDefiningOp<tensor::EmptyOp>() != nullptr;
}

/// True when `op`, nested in a fill, only writes constants, takes slices,
/// yields or computes indices.
static bool isFillBodyOp(Operation *op) {
  if (auto write = dyn_cast<vector::TransferWriteOp>(op))
    return matchPattern(write.getVector(), m_Constant());
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    return matchPattern(fill.value(), m_Constant());
  if (isa<scf::ForOp, scf::ForallOp, scf::YieldOp, scf::InParallelOp,
          tensor::ExtractSliceOp, tensor::InsertSliceOp,
          tensor::ParallelInsertSliceOp, tensor::EmptyOp, arith::ConstantOp,
          affine::AffineApplyOp, affine::AffineMinOp, affine::AffineMaxOp>(
          op))
    return true;
  return op->getDialect() && isa<arith::ArithDialect>(op->getDialect()) &&
         llvm::all_of(op->getResultTypes(),
                      [](Type type) { return type.isIntOrIndex(); });
}

/// True when `op` computes a constant fill of a tensor.empty (see the file
/// comment): what a clone recomputes exactly.
static bool isFill(Operation *op) {
  if (op->getNumResults() != 1 ||
      !isa<RankedTensorType>(op->getResult(0).getType()))
    return false;
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    return matchPattern(fill.value(), m_Constant()) &&
           isEmptyTensor(fill.getDpsInitOperand(0)->get());
  if (!isa<scf::ForOp, scf::ForallOp>(op))
    return false;
  // Tensor operands: the tensor.empty it starts from; the other operands
  // are bounds and steps.
  for (Value operand : op->getOperands())
    if (isa<TensorType>(operand.getType()) && !isEmptyTensor(operand))
      return false;
  WalkResult result = op->walk([&](Operation *nested) {
    if (nested != op && !isFillBodyOp(nested))
      return WalkResult::interrupt();
    // No tensor from outside the fill is read.
    for (Value operand : nested->getOperands())
      if (isa<TensorType>(operand.getType()) &&
          !op->isAncestor(operand.getParentRegion()->getParentOp()) &&
          !isEmptyTensor(operand))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !result.wasInterrupted();
}

/// True when `use` may be written into in place by its owner: a
/// destination operand or a loop's initial value, or a reshape whose result
/// is only used so (a packed contraction writes its accumulator through
/// tensor.expand_shape).
static bool isDestination(OpOperand &use) {
  Operation *owner = use.getOwner();
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(owner))
    return !owner->getResult(0).use_empty() &&
           llvm::all_of(owner->getResult(0).getUses(),
                        [](OpOperand &use) { return isDestination(use); });
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(owner))
    return dps.isDpsInit(&use);
  if (auto loop = dyn_cast<scf::ForOp>(owner))
    return llvm::is_contained(loop.getInitArgsMutable(), use);
  if (auto forall = dyn_cast<scf::ForallOp>(owner))
    return llvm::is_contained(forall.getOutputsMutable(), use);
  return false;
}

struct RematerializeFills
    : public mp::impl::MPRematerializeFillsBase<RematerializeFills> {
  void runOnOperation() override {
    SmallVector<Operation *> fills;
    getOperation().walk([&](Operation *op) {
      if (isFill(op) && !op->getResult(0).hasOneUse())
        fills.push_back(op);
    });
    for (Operation *fill : fills) {
      Value value = fill->getResult(0);
      SmallVector<OpOperand *> destinations;
      bool onlyDestinations = true;
      for (OpOperand &use : value.getUses()) {
        if (isDestination(use))
          destinations.push_back(&use);
        else
          onlyDestinations = false;
      }
      // In the order of the uses' creation (use lists are newest first); one
      // destination keeps the fill when nothing else reads it.
      std::reverse(destinations.begin(), destinations.end());
      ArrayRef<OpOperand *> cloned = destinations;
      if (onlyDestinations && !cloned.empty())
        cloned = cloned.drop_front();
      OpBuilder builder(fill->getContext());
      builder.setInsertionPointAfter(fill);
      for (OpOperand *use : cloned) {
        IRMapping mapping;
        for (Value operand : fill->getOperands())
          if (auto empty = operand.getDefiningOp<tensor::EmptyOp>();
              empty && !mapping.contains(operand))
            mapping.map(operand, builder.clone(*empty)->getResult(0));
        Operation *clone = builder.clone(*fill, mapping);
        use->set(clone->getResult(0));
      }
    }
  }
};

} // namespace
