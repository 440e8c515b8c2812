//===- TileAndVectorizeTransposes.cpp - Transposing elementwise ops -------===//
//
// The operations of mp-tile-and-vectorize whose operands are contiguous along
// different loops. Elementwise ones (NCHW <-> N(HW)C around the convolutions):
// inputs read at linearised loops are read through expanded views, runs of
// loops consecutive in every operand are collapsed, a transposing operation's
// source- and destination-contiguous loops are found (getTransposeLoops, which
// the pass tiles by 16 x 16 blocks), and extensions move ahead of the blocks'
// register transposes, so that they are transposed as 32-bit lanes. Widening
// sums across channels of NCHW tensors (batch-norm statistics: one f64 sum per
// channel, its elements contiguous along the pixels): the pixels' run is
// collapsed and the channel loop made innermost (prepareTransposedSum), so
// that a 16 x 16 tile reads 16 pixels of 16 channels as rows, transposes them
// in registers and adds the pixel rows to the channels' sums one after the
// other (OuterReductionToRows), where a vector along the channels would
// gather its 16 lanes one by one. Assumes linalg.generic operations on
// tensors with static shapes, not yet tiled (ExtensionOfTranspose and
// OuterReductionToRows: the vectorised tiles). The same elements are read and
// computed; every sum adds its elements in the scalar order.
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

/// The innermost loop of the map of `operand` in `op`, if it has one.
static std::optional<unsigned> getInnermostLoop(linalg::LinalgOp op,
                                                OpOperand *operand) {
  AffineMap map = op.getMatchingIndexingMap(operand);
  if (map.getNumResults() == 0)
    return std::nullopt;
  auto dim = dyn_cast<AffineDimExpr>(map.getResults().back());
  if (!dim)
    return std::nullopt;
  return dim.getPosition();
}

/// The loops (r, p) of the widening sum `op` (isWideningSum) were it
/// transposed: p the innermost loop of every output, a parallel loop, and r
/// the reduction loop that is the innermost of every input read along p
/// (32-bit elements), where there is one. Inputs read along p only (a
/// channel's mean) are broadcast across r.
static std::optional<std::pair<unsigned, unsigned>>
findTransposedSumLoops(linalg::LinalgOp op) {
  if (!isWideningSum(op) || op.getNumLoops() < 2 ||
      ShapedType::isDynamicShape(op.getStaticLoopRanges()) ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isProjectedPermutation(); }))
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  std::optional<unsigned> p;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    std::optional<unsigned> inner = getInnermostLoop(op, &init);
    if (!inner || (p && *p != *inner))
      return std::nullopt;
    p = inner;
  }
  if (!p || iterators[*p] != utils::IteratorType::parallel)
    return std::nullopt;
  std::optional<unsigned> r;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (map.getNumResults() == 0 ||
        llvm::all_of(llvm::seq(op.getNumLoops()), [&](unsigned d) {
          return iterators[d] == utils::IteratorType::parallel ||
                 !map.isFunctionOfDim(d);
        }))
      continue; // A scalar, or a value per output (broadcast across r).
    std::optional<unsigned> inner = getInnermostLoop(op, input);
    Type element = getElementTypeOrSelf(input->get().getType());
    if (!inner || !map.isFunctionOfDim(*p) ||
        iterators[*inner] == utils::IteratorType::parallel ||
        (r && *r != *inner) || !element.isIntOrFloat() ||
        element.getIntOrFloatBitWidth() != 32)
      return std::nullopt;
    r = inner;
  }
  if (!r)
    return std::nullopt;
  return std::make_pair(*r, *p);
}

std::optional<std::pair<unsigned, unsigned>>
tiling::getTransposedSumLoops(linalg::LinalgOp op, int64_t vectorSize) {
  std::optional<std::pair<unsigned, unsigned>> loops =
      findTransposedSumLoops(op);
  unsigned numLoops = op.getNumLoops();
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  if (!loops || loops->second != numLoops - 1 || loops->first != numLoops - 2 ||
      extents[loops->first] % vectorSize != 0 ||
      extents[loops->second] % vectorSize != 0)
    return std::nullopt;
  return loops;
}

void tiling::prepareTransposedSum(RewriterBase &rewriter, linalg::GenericOp &op,
                                  int64_t vectorSize) {
  std::optional<std::pair<unsigned, unsigned>> loops =
      findTransposedSumLoops(op);
  if (!loops ||
      llvm::any_of(op->getUsers(),
                   [](Operation *user) { return isa<func::ReturnOp>(user); }) ||
      llvm::any_of(op->getOperands(), [](Value operand) {
        return operand.getDefiningOp<tensor::ExtractSliceOp>();
      }))
    return;
  auto [r, p] = *loops;
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  // The run of reduction loops ending at r that every operand reads as
  // consecutive dimensions (h, w).
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  ReassociationIndices run{static_cast<int64_t>(r)};
  while (run.front() > 0 &&
         iterators[run.front() - 1] != utils::IteratorType::parallel) {
    ReassociationIndices longer{run.front() - 1};
    llvm::append_range(longer, run);
    if (!linalg::areDimSequencesPreserved(maps, longer))
      break;
    run = longer;
  }
  int64_t pixels = 1;
  for (int64_t loop : run)
    pixels *= extents[loop];
  if (pixels % vectorSize != 0 || extents[p] % vectorSize != 0)
    return;
  rewriter.setInsertionPoint(op);
  if (run.size() > 1) {
    FailureOr<linalg::CollapseResult> collapsed =
        linalg::collapseOpIterationDims(op, {run}, rewriter);
    if (failed(collapsed))
      return;
    rewriter.replaceOp(op, collapsed->results);
    op = cast<linalg::GenericOp>(collapsed->collapsedOp.getOperation());
    loops = findTransposedSumLoops(op);
    if (!loops)
      return;
    std::tie(r, p) = *loops;
  }
  // p innermost, the other loops in their order (the sums' order).
  unsigned numLoops = op.getNumLoops();
  if (p == numLoops - 1)
    return;
  SmallVector<unsigned> interchange;
  for (unsigned loop = 0; loop < numLoops; ++loop)
    if (loop != p)
      interchange.push_back(loop);
  interchange.push_back(p);
  FailureOr<linalg::GenericOp> interchanged =
      linalg::interchangeGenericOp(rewriter, op, interchange);
  if (succeeded(interchanged))
    op = *interchanged;
}

LogicalResult tiling::OuterReductionToRows::matchAndRewrite(
    vector::MultiDimReductionOp reduction, PatternRewriter &rewriter) const {
  VectorType type = reduction.getSourceVectorType();
  if (type.getRank() != 2 || type.isScalable() ||
      reduction.getReductionDims() != ArrayRef<int64_t>{0} ||
      cast<vector::MaskableOpInterface>(reduction.getOperation()).isMasked())
    return failure();
  Location loc = reduction.getLoc();
  Value sum = reduction.getAcc();
  for (int64_t row = 0, rows = type.getDimSize(0); row < rows; ++row) {
    Value value =
        vector::ExtractOp::create(rewriter, loc, reduction.getSource(), row);
    sum = vector::makeArithReduction(rewriter, loc, reduction.getKind(), value,
                                     sum);
  }
  rewriter.replaceOp(reduction, sum);
  return success();
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
  // Transposed as 32-bit lanes; a wider extension (a sum's f32 values
  // widened to f64) stays after the transpose.
  if (getElementTypeOrSelf(extension.getType()).getIntOrFloatBitWidth() != 32)
    return failure();
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
