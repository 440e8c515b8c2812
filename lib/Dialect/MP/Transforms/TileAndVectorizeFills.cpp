//===- TileAndVectorizeFills.cpp - Fills fused into contractions ----------===//
//
// The fills of mp-tile-and-vectorize's accumulators: a fill that only makes the
// accumulators of contractions is fused into their parallel tile loops, so that
// each tile starts from the fill's value in registers (no fill of the whole
// result in memory, no reading it back); fills reshaped by packing become fills
// of the reshaped type, and the fused fill's write that its tile overwrites is
// dropped. Assumes linalg on tensors (the pass's tiles, scf.for and scf.forall
// loops). Each output element still starts from the fill's value and is summed
// in its order.
//
//===----------------------------------------------------------------------===//

#include "TileAndVectorize.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::mp;
using namespace mlir::mp::tiling;

bool tiling::isFill(Operation *op) {
  if (isa<linalg::FillOp>(op))
    return true;
  auto generic = dyn_cast<linalg::GenericOp>(op);
  return generic && linalg::isaFillOpInterface(generic).has_value();
}

bool tiling::isAccumulatorFill(linalg::LinalgOp fill) {
  return !fill->use_empty() &&
         llvm::all_of(fill->getUses(), [](OpOperand &use) {
           auto user = dyn_cast<linalg::LinalgOp>(use.getOwner());
           return user && user.getNumReductionLoops() != 0 &&
                  user.isDpsInit(&use);
         });
}

bool tiling::hasFilledDestination(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.getNumReductionLoops() == 0)
    return false;
  return llvm::any_of(linalgOp.getDpsInits(), [](Value init) {
    Operation *producer = init.getDefiningOp();
    return producer && isFill(producer);
  });
}

SmallVector<Operation *>
tiling::fuseFilledDestinations(RewriterBase &rewriter, Operation *tiled,
                               MutableArrayRef<LoopLikeOpInterface> loops) {
  SmallVector<Operation *> fills;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(tiled);
  if (loops.empty() || !linalgOp || linalgOp.getNumReductionLoops() == 0)
    return fills;
  for (OpOperand &init : linalgOp.getDpsInitsMutable()) {
    auto slice = init.get().getDefiningOp<tensor::ExtractSliceOp>();
    if (!slice)
      continue;
    // The slice's source, through the loops' iteration arguments.
    Value source = slice.getSource();
    while (auto argument = dyn_cast<BlockArgument>(source)) {
      auto loop =
          dyn_cast<LoopLikeOpInterface>(argument.getOwner()->getParentOp());
      if (!loop || !llvm::is_contained(loops, loop))
        break;
      OpOperand *loopInit = loop.getTiedLoopInit(argument);
      if (!loopInit)
        break;
      source = loopInit->get();
    }
    Operation *producer = source.getDefiningOp();
    if (!producer || !isFill(producer))
      continue;
    std::optional<scf::SCFFuseProducerOfSliceResult> fused =
        scf::tileAndFuseProducerOfSlice(rewriter, slice, loops);
    if (fused)
      llvm::append_range(fills, fused->tiledOps);
  }
  return fills;
}

void tiling::refillReshapedFills(RewriterBase &rewriter,
                                 func::FuncOp function) {
  // In program order, so that a reshape of a reshaped fill (a contraction
  // whose A and B are both packed) finds the fill its operand became.
  SmallVector<Operation *> reshapes;
  function.walk([&](Operation *op) {
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op))
      reshapes.push_back(op);
  });
  for (Operation *reshape : reshapes) {
    auto fill = dyn_cast_or_null<linalg::LinalgOp>(
        reshape->getOperand(0).getDefiningOp());
    auto type = cast<RankedTensorType>(reshape->getResult(0).getType());
    if (!fill || !isFill(fill) || fill.getDpsInits().size() != 1 ||
        !fill.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>() ||
        !type.hasStaticShape())
      continue;
    rewriter.setInsertionPoint(reshape);
    Value empty = tensor::EmptyOp::create(
        rewriter, reshape->getLoc(), type.getShape(), type.getElementType());
    Value scalar = fill.getDpsInputs()[0];
    rewriter.replaceOp(reshape, linalg::FillOp::create(
                                    rewriter, reshape->getLoc(), scalar, empty)
                                    .getResults());
  }
}

LogicalResult
tiling::InsertOverWrite::matchAndRewrite(tensor::InsertSliceOp insert,
                                         PatternRewriter &rewriter) const {
  auto writer = insert.getDest().getDefiningOp<DestinationStyleOpInterface>();
  RankedTensorType destType = insert.getDestType();
  if (!writer || writer->getNumResults() != 1 || writer.getNumDpsInits() != 1 ||
      writer.getDpsInitOperand(0)->get().getType() != destType ||
      !destType.hasStaticShape() ||
      insert.getSourceType().getNumElements() != destType.getNumElements())
    return failure();
  auto isZero = [](OpFoldResult v) { return isConstantIntValue(v, 0); };
  auto isOne = [](OpFoldResult v) { return isConstantIntValue(v, 1); };
  if (!llvm::all_of(insert.getMixedOffsets(), isZero) ||
      !llvm::all_of(insert.getMixedStrides(), isOne) ||
      insert.getStaticSizes() != destType.getShape())
    return failure();
  Value base = writer.getDpsInitOperand(0)->get();
  rewriter.modifyOpInPlace(insert,
                           [&] { insert.getDestMutable().assign(base); });
  return success();
}
