//===- LinalgToThreadedLoops.cpp - linalg to loops, large ones threaded ---===//
//
// mp-linalg-to-threaded-loops lowers the linalg operations on buffers that
// are left after bufferization (those mp-tile-and-vectorize did not take, and
// the tiles it left as linalg operations) to the scf.for nests of
// convert-linalg-to-loops, and makes the leading parallel loops of a large
// operation one scf.parallel (OpenMP after convert-scf-to-openmp): as many
// as make kMinParallelTiles iterations, the loops inside them sequential, so
// that each thread runs whole inner loops (no collapsed index arithmetic per
// element) and small operations do not start the threads at all.
//
// Every output element is computed by one iteration of the scf.parallel,
// its reductions in their order inside it, so the bits do not depend on the
// number of threads. It assumes buffer semantics (after bufferization); an
// operation already inside an scf.parallel or scf.forall stays sequential.
//
//===----------------------------------------------------------------------===//

#include "mp/Dialect/MP/Transforms/Passes.h"
#include "mp/Dialect/MP/Transforms/Threading.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::mp {
#define GEN_PASS_DEF_MPLINALGTOTHREADEDLOOPS
#include "mp/Dialect/MP/Transforms/Passes.h.inc"
} // namespace mlir::mp

using namespace mlir;
using namespace mlir::mp;

namespace {

/// How many leading loops of `op` become one scf.parallel: none for an
/// operation with dynamic or fewer than kMinParallelIterations iterations,
/// else the leading parallel loops up to kMinParallelTiles iterations (none
/// when they have a single one).
static unsigned getNumThreadedLoops(linalg::LinalgOp op) {
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  if (ShapedType::isDynamicShape(extents))
    return 0;
  int64_t iterations = 1;
  for (int64_t extent : extents)
    iterations *= extent;
  if (iterations < kMinParallelIterations)
    return 0;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned count = 0;
  int64_t parallelIterations = 1;
  while (count < iterators.size() &&
         iterators[count] == utils::IteratorType::parallel &&
         parallelIterations < kMinParallelTiles)
    parallelIterations *= extents[count++];
  return parallelIterations > 1 ? count : 0;
}

/// Replaces the outermost `count` loops of the perfect scf.for nest `loops`
/// (outermost first, no iteration arguments, bounds defined outside the
/// nest) by one scf.parallel over them. Leaves a nest of another form alone.
static void makeParallel(RewriterBase &rewriter, ArrayRef<Operation *> loops,
                         unsigned count) {
  SmallVector<scf::ForOp> nest;
  for (Operation *loop : loops.take_front(count)) {
    auto forOp = dyn_cast<scf::ForOp>(loop);
    if (!forOp || forOp.getNumRegionIterArgs() != 0)
      return;
    nest.push_back(forOp);
  }
  scf::ForOp outer = nest.front(), inner = nest.back();
  SmallVector<Value> lowerBounds, upperBounds, steps;
  for (auto [i, forOp] : llvm::enumerate(nest)) {
    // Perfectly nested: the loop and its terminator only.
    if (i + 1 < nest.size() &&
        (forOp.getBody()->getOperations().size() != 2 ||
         &forOp.getBody()->front() != nest[i + 1].getOperation()))
      return;
    for (Value bound :
         {forOp.getLowerBound(), forOp.getUpperBound(), forOp.getStep()})
      if (outer->isAncestor(bound.getParentBlock()->getParentOp()))
        return;
    lowerBounds.push_back(forOp.getLowerBound());
    upperBounds.push_back(forOp.getUpperBound());
    steps.push_back(forOp.getStep());
  }

  rewriter.setInsertionPoint(outer);
  auto parallel = scf::ParallelOp::create(rewriter, outer.getLoc(), lowerBounds,
                                          upperBounds, steps);
  SmallVector<Value> ivs(parallel.getInductionVars());
  for (unsigned i = 0; i + 1 < nest.size(); ++i)
    rewriter.replaceAllUsesWith(nest[i].getInductionVar(), ivs[i]);
  Block *body = inner.getBody();
  rewriter.eraseOp(body->getTerminator());
  rewriter.inlineBlockBefore(body, parallel.getBody()->getTerminator(),
                             ValueRange{ivs.back()});
  rewriter.eraseOp(outer);
}

/// A linalg operation on buffers → its scf.for nest, the leading loops of a
/// large one outside any parallel loop as one scf.parallel.
struct LowerToThreadedLoops
    : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureBufferSemantics())
      return failure();
    unsigned count = 0;
    if (!op->getParentOfType<scf::ParallelOp>() &&
        !op->getParentOfType<scf::ForallOp>())
      count = getNumThreadedLoops(op);
    unsigned numLoops = op.getNumLoops();
    FailureOr<linalg::LinalgLoops> loops =
        linalg::linalgOpToLoops(rewriter, op);
    if (failed(loops))
      return failure();
    rewriter.eraseOp(op);
    if (count > 0 && loops->size() == numLoops)
      makeParallel(rewriter, *loops, count);
    return success();
  }
};

struct LinalgToThreadedLoops
    : public mp::impl::MPLinalgToThreadedLoopsBase<LinalgToThreadedLoops> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    patterns.add<LowerToThreadedLoops>(context);
    // As convert-linalg-to-loops: the loops' bounds and indices folded.
    memref::DimOp::getCanonicalizationPatterns(patterns, context);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
