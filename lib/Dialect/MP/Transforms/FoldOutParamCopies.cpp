//===- FoldOutParamCopies.cpp - Results computed in their out-parameters --===//
//
// mp-fold-out-param-copies removes the copies buffer-results-to-out-params
// leaves where a function returns a reshape of a buffer it allocates (an
// optimizer update computed in the [heads, head_dim, d_model] layout of its
// gradient and returned as [d_model, d_model], say): `memref.copy
// %reshaped, %out` with `%reshaped` a collapse_shape or expand_shape of a
// `memref.alloc`. The pass makes the allocation the inverse reshape of the
// out-parameter instead, so that the ops writing the buffer write the
// result in place, and erases the copy: a whole-buffer memcpy per result
// and step, on one thread, less. It applies only where that cannot be told
// apart: the out-parameter is a function argument whose only use is the
// copy, and every use of the allocation (through views too) is in the
// copy's block and before the copy (nothing reads or writes it after the
// copy took its value), apart from deallocations, which go; both shapes
// are static. It assumes identity layouts at the function boundary
// (mp-cpu-pipeline's bufferization) and runs right after buffer-results-to-out-params, before
// the deallocation pipeline; other copies are left alone.
//
//===----------------------------------------------------------------------===//

#include "mp/Dialect/MP/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::mp {
#define GEN_PASS_DEF_MPFOLDOUTPARAMCOPIES
#include "mp/Dialect/MP/Transforms/Passes.h.inc"
} // namespace mlir::mp

using namespace mlir;
using namespace mlir::mp;

namespace {

/// Whether every use of `buffer`, and of the views of it, other than
/// deallocations (collected into `deallocs`) and `copy` itself, is an op of
/// `copy`'s block before `copy` (or nested in one).
static bool usedOnlyBefore(Value buffer, memref::CopyOp copy,
                           SmallVectorImpl<memref::DeallocOp> &deallocs) {
  Block *block = copy->getBlock();
  for (OpOperand &use : buffer.getUses()) {
    Operation *user = use.getOwner();
    if (user == copy.getOperation())
      continue;
    if (auto dealloc = dyn_cast<memref::DeallocOp>(user)) {
      deallocs.push_back(dealloc);
      continue;
    }
    Operation *ancestor = block->findAncestorOpInBlock(*user);
    if (!ancestor || !ancestor->isBeforeInBlock(copy))
      return false;
    if (auto view = dyn_cast<ViewLikeOpInterface>(user))
      if (view.getViewSource() == buffer)
        for (Value result : user->getResults())
          if (!usedOnlyBefore(result, copy, deallocs))
            return false;
  }
  return true;
}

/// Folds `copy` when it copies a reshape of an allocation into an
/// out-parameter as the pass description says; returns whether it did.
static bool foldCopy(memref::CopyOp copy) {
  auto target = dyn_cast<BlockArgument>(copy.getTarget());
  if (!target || !target.hasOneUse() ||
      !isa<func::FuncOp>(target.getOwner()->getParentOp()))
    return false;
  Operation *reshape = copy.getSource().getDefiningOp();
  if (!isa_and_nonnull<memref::CollapseShapeOp, memref::ExpandShapeOp>(
          reshape) ||
      !reshape->hasOneUse())
    return false;
  Value source = reshape->getOperand(0);
  auto alloc = source.getDefiningOp<memref::AllocOp>();
  auto targetType = dyn_cast<MemRefType>(target.getType());
  if (!alloc || alloc->getBlock() != copy->getBlock() || !targetType ||
      !targetType.hasStaticShape() || !alloc.getType().hasStaticShape() ||
      !targetType.getLayout().isIdentity() ||
      !alloc.getType().getLayout().isIdentity() ||
      targetType.getMemorySpace() != alloc.getType().getMemorySpace())
    return false;
  SmallVector<memref::DeallocOp> deallocs;
  if (!usedOnlyBefore(alloc.getResult(), copy, deallocs))
    return false;

  // The out-parameter reshaped to the allocation's type: the inverse of
  // `reshape`, with the same reassociation.
  OpBuilder builder(alloc);
  Value view;
  if (auto collapse = dyn_cast<memref::CollapseShapeOp>(reshape))
    view = memref::ExpandShapeOp::create(builder, alloc.getLoc(),
                                         alloc.getType().getShape(), target,
                                         collapse.getReassociationIndices());
  else
    view = memref::CollapseShapeOp::create(
        builder, alloc.getLoc(), target,
        cast<memref::ExpandShapeOp>(reshape).getReassociationIndices());
  if (view.getType() != alloc.getType()) {
    view.getDefiningOp()->erase();
    return false;
  }
  for (memref::DeallocOp dealloc : deallocs)
    dealloc.erase();
  copy.erase();
  reshape->erase();
  alloc.replaceAllUsesWith(view);
  alloc.erase();
  return true;
}

struct FoldOutParamCopies
    : public mp::impl::MPFoldOutParamCopiesBase<FoldOutParamCopies> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    for (memref::CopyOp copy : copies)
      foldCopy(copy);
  }
};

} // namespace
