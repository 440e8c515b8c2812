//===- TileAndVectorizeTransposes.cpp - Transposing elementwise ops -------===//
//
// The elementwise operations of mp-tile-and-vectorize whose operands are
// contiguous along different loops (NCHW <-> N(HW)C around the convolutions):
// inputs read at linearised loops are read through expanded views, runs of
// loops consecutive in every operand are collapsed, a transposing operation's
// source- and destination-contiguous loops are found (getTransposeLoops, which
// the pass tiles by 16 x 16 blocks), and extensions move ahead of the blocks'
// register transposes, so that they are transposed as 32-bit lanes. Assumes
// elementwise linalg.generic operations on tensors with static shapes, not yet
// tiled (ExtensionOfTranspose: the vectorised tiles). The same elements are
// read and computed.
//
//===----------------------------------------------------------------------===//

#include "TileAndVectorize.h"

#include "mlir/Analysis/FlatLinearValueConstraints.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"

using namespace mlir;
using namespace mlir::mp;
using namespace mlir::mp::tiling;

void tiling::delinearizeInputs(RewriterBase &rewriter, linalg::GenericOp op) {
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  if (op.getNumReductionLoops() != 0 || ShapedType::isDynamicShape(extents))
    return;
  MLIRContext *context = rewriter.getContext();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<std::pair<OpOperand *, SmallVector<ReassociationIndices>>>
      expansions;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = maps[input->getOperandNumber()];
    auto type = dyn_cast<RankedTensorType>(input->get().getType());
    if (map.isProjectedPermutation() || !type || !type.hasStaticShape())
      continue;
    SmallVector<AffineExpr> results;
    SmallVector<ReassociationIndices> groups;
    for (auto [expr, size] : llvm::zip(map.getResults(), type.getShape())) {
      // Σ coefficient·loop with no constant term, nothing else.
      SmallVector<int64_t> flat;
      if (failed(getFlattenedAffineExpr(expr, map.getNumDims(), 0, &flat)) ||
          flat.size() != map.getNumDims() + 1 || flat.back() != 0)
        return;
      SmallVector<unsigned> loops;
      for (unsigned d = 0, e = map.getNumDims(); d < e; ++d)
        if (flat[d] != 0)
          loops.push_back(d);
      // Outermost (largest stride) first.
      llvm::stable_sort(
          loops, [&](unsigned a, unsigned b) { return flat[a] > flat[b]; });
      int64_t stride = 1;
      for (unsigned d : llvm::reverse(loops)) {
        if (flat[d] != stride)
          return;
        stride *= extents[d];
      }
      if (loops.empty() || (loops.size() > 1 && stride != size))
        return;
      ReassociationIndices group;
      for (unsigned d : loops) {
        group.push_back(results.size());
        results.push_back(getAffineDimExpr(d, context));
      }
      groups.push_back(group);
    }
    AffineMap expanded = AffineMap::get(map.getNumDims(), 0, results, context);
    if (!expanded.isProjectedPermutation())
      return;
    maps[input->getOperandNumber()] = expanded;
    expansions.emplace_back(input, std::move(groups));
  }
  if (expansions.empty())
    return;
  rewriter.setInsertionPoint(op);
  for (auto &[input, groups] : expansions) {
    AffineMap map = maps[input->getOperandNumber()];
    SmallVector<int64_t> shape;
    for (AffineExpr result : map.getResults())
      shape.push_back(extents[cast<AffineDimExpr>(result).getPosition()]);
    auto type = cast<RankedTensorType>(input->get().getType());
    Value expanded = tensor::ExpandShapeOp::create(
        rewriter, op.getLoc(),
        RankedTensorType::get(shape, type.getElementType()), input->get(),
        groups);
    OpOperand *operand = input;
    rewriter.modifyOpInPlace(op, [&] { operand->set(expanded); });
  }
  rewriter.modifyOpInPlace(op, [&] {
    op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
  });
}

/// The loop that is every output's innermost dimension in the elementwise
/// operation `op` (no reduction loops, every map a projected permutation),
/// if any: its outputs are contiguous along it.
static std::optional<unsigned> getOutputLoop(linalg::LinalgOp op) {
  if (op.getNumLoops() < 2 || op.getNumReductionLoops() != 0 ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isProjectedPermutation(); }))
    return std::nullopt;
  std::optional<unsigned> d;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    AffineMap map = op.getMatchingIndexingMap(&init);
    if (map.getNumResults() == 0)
      return std::nullopt;
    unsigned inner = cast<AffineDimExpr>(map.getResults().back()).getPosition();
    if (d && *d != inner)
      return std::nullopt;
    d = inner;
  }
  return d;
}

std::optional<std::pair<unsigned, unsigned>>
tiling::getTransposeLoops(linalg::LinalgOp op) {
  std::optional<unsigned> d = getOutputLoop(op);
  if (!d)
    return std::nullopt;
  std::optional<unsigned> s;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (map.getNumResults() < 2 || !map.isFunctionOfDim(*d))
      continue;
    unsigned inner = cast<AffineDimExpr>(map.getResults().back()).getPosition();
    if (inner == *d)
      continue;
    // The block is transposed as 32-bit lanes (the shuffles of
    // mp-cpu-pipeline's 16x16 lowering; LLVM cannot legalise every shuffle
    // of 16-bit floats): its elements are 32-bit, or extended to 32 bits by
    // every use (ExtensionOfTranspose moves the extension first).
    Type element = getElementTypeOrSelf(input->get().getType());
    SmallVector<arith::ExtFOp> extensions;
    if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
      if (FloatType widened =
              getWidening(generic.getMatchingBlockArgument(input), extensions))
        element = widened;
    if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() != 32)
      return std::nullopt;
    if (!s)
      s = inner;
  }
  if (!s)
    return std::nullopt;
  return std::make_pair(*s, *d);
}

void tiling::collapseContiguousLoops(RewriterBase &rewriter,
                                     linalg::GenericOp &op,
                                     int64_t vectorSize) {
  SmallVector<unsigned> keys;
  if (std::optional<std::pair<unsigned, unsigned>> transpose =
          getTransposeLoops(op))
    keys = {transpose->first, transpose->second};
  else if (std::optional<unsigned> d = getOutputLoop(op))
    if (op.getStaticLoopRanges()[*d] % vectorSize != 0)
      keys = {*d};
  // Not an operation whose results are returned (the optimiser's updates of
  // a filter): the returned reshapes would be copied into the caller's
  // buffers.
  if (keys.empty() || llvm::any_of(op->getUsers(), [](Operation *user) {
        return isa<func::ReturnOp>(user);
      }))
    return;
  // Nor one with an operand that is a slice (possibly not contiguous: its
  // collapsed buffer would be a copy).
  if (llvm::any_of(op->getOperands(), [](Value operand) {
        return operand.getDefiningOp<tensor::ExtractSliceOp>();
      }))
    return;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<ReassociationIndices> groups;
  for (unsigned first = 0, e = op.getNumLoops(); first < e;) {
    ReassociationIndices group{first};
    while (group.back() + 1 < e) {
      ReassociationIndices longer(group);
      longer.push_back(group.back() + 1);
      if (!linalg::areDimSequencesPreserved(maps, longer))
        break;
      group = longer;
    }
    first = group.back() + 1;
    if (group.size() > 1 && llvm::any_of(keys, [&](unsigned key) {
          return llvm::is_contained(group, key);
        }))
      groups.push_back(group);
  }
  if (groups.empty())
    return;
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::CollapseResult> collapsed =
      linalg::collapseOpIterationDims(op, groups, rewriter);
  if (failed(collapsed))
    return;
  rewriter.replaceOp(op, collapsed->results);
  op = cast<linalg::GenericOp>(collapsed->collapsedOp.getOperation());
}

LogicalResult
tiling::ExtensionOfTranspose::matchAndRewrite(arith::ExtFOp extension,
                                              PatternRewriter &rewriter) const {
  auto transpose = extension.getIn().getDefiningOp<vector::TransposeOp>();
  if (!transpose || !transpose->hasOneUse())
    return failure();
  auto read = transpose.getVector().getDefiningOp<vector::TransferReadOp>();
  if (!read || !read.getPermutationMap().isMinorIdentity())
    return failure();
  VectorType sourceType = transpose.getSourceVectorType();
  auto wideType =
      VectorType::get(sourceType.getShape(),
                      cast<VectorType>(extension.getType()).getElementType());
  Value wide =
      arith::ExtFOp::create(rewriter, extension.getLoc(), wideType,
                            transpose.getVector(), extension.getFastmathAttr());
  rewriter.replaceOpWithNewOp<vector::TransposeOp>(extension, wide,
                                                   transpose.getPermutation());
  return success();
}
