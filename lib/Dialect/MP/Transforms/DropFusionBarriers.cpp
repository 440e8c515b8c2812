//===- DropFusionBarriers.cpp - Fusion barriers replaced by their sources -===//
//
// mp-drop-fusion-barriers replaces each `bufferization.alloc_tensor
// copy(%t)` that convert-mp-to-linalg marked `mp.fusion_barrier` by `%t`.
// The barriers keep linalg's reshape propagation and elementwise fusion from
// merging a copying generic (a transposed or widened operand) into the
// product that reads it; once the pipeline is past fusion and tiling they
// only cost a whole-tensor copy each. It assumes tensors (it runs just
// before bufferization, which still copies where an in-place write needs
// it) and leaves unmarked alloc_tensor ops alone.
//
//===----------------------------------------------------------------------===//

#include "mp/Dialect/MP/Transforms/Passes.h"

#include "mp/Dialect/MP/IR/MPDialect.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::mp {
#define GEN_PASS_DEF_MPDROPFUSIONBARRIERS
#include "mp/Dialect/MP/Transforms/Passes.h.inc"
} // namespace mlir::mp

using namespace mlir;
using namespace mlir::mp;

namespace {

struct DropFusionBarriers
    : public mp::impl::MPDropFusionBarriersBase<DropFusionBarriers> {
  void runOnOperation() override {
    getOperation().walk([](bufferization::AllocTensorOp barrier) {
      if (!barrier->hasAttr(MPDialect::kFusionBarrierAttrName) ||
          !barrier.getCopy())
        return;
      barrier.replaceAllUsesWith(barrier.getCopy());
      barrier.erase();
    });
  }
};

} // namespace
