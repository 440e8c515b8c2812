//===- TileAndVectorize.cpp - CPU tiling and vectorisation of linalg ------===//
//
// mp-tile-and-vectorize is the code-generation step of the CPU pipeline: every
// statically shaped linalg operation on tensors is tiled with scf.for loops
// (contractions over M, N and K, other operations over their innermost
// loops), each tile is vectorised with linalg::vectorize, accumulator
// transfers are hoisted out of the reduction loops, and the vector code is
// rewritten into the forms convert-vector-to-llvm maps onto SIMD
// instructions: outer products (rows of FMAs) for contractions whose
// operands are not both contiguous along K, and, for those that are (A·Bᵀ,
// the linear layer), K-vector FMAs into an accumulator with a K dimension
// that is summed once after the K loop (a split-K dot product: no
// transposes, no horizontal sums inside the loop).
//
// It assumes linalg on tensors (after convert-mp-to-linalg, before
// bufferization). Tile sizes are shrunk to divisors of the loop extents so
// that every tile is full; operations the vectoriser rejects, operations on
// FP8 values, and gathers from slices with non-unit strides (whose
// vector.gather has no LLVM lowering) stay as they are for
// convert-linalg-to-loops. Element types are never changed and no fast-math
// flags are added, so every f16/bf16 rounding of the input survives.
//
//===----------------------------------------------------------------------===//

#include "mp/Dialect/MP/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

#include <numeric>

namespace mlir::mp {
#define GEN_PASS_DEF_MPTILEANDVECTORIZE
#include "mp/Dialect/MP/Transforms/Passes.h.inc"
} // namespace mlir::mp

using namespace mlir;
using namespace mlir::mp;

namespace {

/// The tile size for a loop of `extent` iterations given the requested
/// `size`: a divisor of `extent` not above `size`, preferring multiples of
/// 16, then 8, 4 and 2 (whole SIMD registers) and then the largest.
static int64_t chooseTileSize(int64_t extent, int64_t size) {
  int64_t best = 1, bestAlignment = 1;
  for (int64_t divisor = std::min(extent, size); divisor > 1; --divisor) {
    if (extent % divisor != 0)
      continue;
    int64_t alignment = 1;
    while (alignment < 16 && divisor % (alignment * 2) == 0)
      alignment *= 2;
    if (alignment > bestAlignment) {
      best = divisor;
      bestAlignment = alignment;
    } else if (best == 1) {
      best = divisor;
    }
  }
  return best;
}

/// True when a value of `type` (or its elements) is an 8-bit or narrower
/// float (FP8, FP6, FP4, E8M0).
static bool isFP8(Type type) {
  auto floatType = dyn_cast<FloatType>(getElementTypeOrSelf(type));
  return floatType && floatType.getWidth() <= 8;
}

/// True when `op` or an operation of its body reads or writes FP8 values.
static bool touchesFP8(linalg::LinalgOp op) {
  WalkResult result = op->walk([](Operation *nested) {
    if (llvm::any_of(nested->getOperandTypes(), isFP8) ||
        llvm::any_of(nested->getResultTypes(), isFP8))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// True when `op` gathers (`tensor.extract` in its body) from a tensor that
/// is a slice with a non-unit stride, possibly reshaped: bufferized, it is a
/// memref whose innermost stride may not be 1, and the vector.gather the
/// vectoriser would make of the extract has no LLVM lowering on such a
/// memref (convert-vector-to-llvm and the gather-to-loads patterns need a
/// unit innermost stride). Such operations stay scalar loops.
static bool gathersFromStridedSlice(linalg::LinalgOp op) {
  WalkResult result = op->walk([](tensor::ExtractOp extract) {
    Value source = extract.getTensor();
    while (Operation *def = source.getDefiningOp()) {
      if (auto slice = dyn_cast<tensor::ExtractSliceOp>(def)) {
        if (!llvm::all_of(slice.getMixedStrides(), [](OpFoldResult stride) {
              return isConstantIntValue(stride, 1);
            }))
          return WalkResult::interrupt();
        source = slice.getSource();
      } else if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp,
                     tensor::CastOp>(def)) {
        source = def->getOperand(0);
      } else {
        break;
      }
    }
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// True when both operands of the contraction `op` have its innermost
/// reduction loop `k` as their innermost dimension (A·Bᵀ): their tiles are
/// contiguous along K.
static bool isDotContraction(linalg::LinalgOp op, unsigned k) {
  auto innermostIsK = [&](OpOperand *operand) {
    AffineMap map = op.getMatchingIndexingMap(operand);
    return map.getNumResults() > 0 &&
           map.getResults().back() == getAffineDimExpr(k, op.getContext());
  };
  return op.getNumDpsInputs() == 2 && innermostIsK(op.getDpsInputOperand(0)) &&
         innermostIsK(op.getDpsInputOperand(1));
}

/// Broadcasts `operand` of a vector.contract, indexed by `map`, to the
/// iteration-space order: [parallel dims..., K].
static Value broadcastToIterationSpace(OpBuilder &b, Location loc,
                                       Value operand, AffineMap map,
                                       ArrayRef<int64_t> spaceShape,
                                       Type elementType) {
  auto type = cast<VectorType>(operand.getType());
  if (type.getElementType() != elementType)
    operand = arith::ExtFOp::create(
        b, loc, VectorType::get(type.getShape(), elementType), operand);
  unsigned numLoops = spaceShape.size();
  // The broadcast puts the loops missing from `map` first.
  SmallVector<unsigned> order;
  for (unsigned d = 0; d < numLoops; ++d)
    if (!map.isFunctionOfDim(d))
      order.push_back(d);
  for (AffineExpr result : map.getResults())
    order.push_back(cast<AffineDimExpr>(result).getPosition());
  SmallVector<int64_t> broadcastShape;
  for (unsigned d : order)
    broadcastShape.push_back(spaceShape[d]);
  Value broadcast = vector::BroadcastOp::create(
      b, loc, VectorType::get(broadcastShape, elementType), operand);
  SmallVector<int64_t> permutation(numLoops);
  for (unsigned d = 0; d < numLoops; ++d)
    permutation[d] = llvm::find(order, d) - order.begin();
  if (llvm::equal(permutation, llvm::seq<int64_t>(0, numLoops)))
    return broadcast;
  return vector::TransposeOp::create(b, loc, broadcast, permutation);
}

/// Rewrites the loop-carried accumulation `acc = contract(lhs, rhs, acc)` of
/// an scf.for whose contraction reduces over the innermost dimension of both
/// operands into FMAs on an accumulator that keeps that dimension, summed
/// into the original accumulator once after the loop.
static LogicalResult splitKAccumulation(RewriterBase &rewriter,
                                        vector::ContractionOp contract) {
  auto loop = dyn_cast<scf::ForOp>(contract->getParentOp());
  auto accArg = dyn_cast<BlockArgument>(contract.getAcc());
  auto accType = dyn_cast<VectorType>(contract.getAccType());
  if (!loop || !accArg || accArg.getOwner() != loop.getBody() ||
      accArg.getArgNumber() == 0 || !accArg.hasOneUse() ||
      !contract->hasOneUse() || !accType ||
      !isa<FloatType>(accType.getElementType()))
    return failure();
  unsigned iterIndex = accArg.getArgNumber() - 1;
  if (loop.getBody()->getTerminator()->getOperand(iterIndex) !=
      contract.getResult())
    return failure();

  // Iteration space [parallel..., k], the accumulator indexed by the
  // parallel loops in order, both operands innermost along k.
  SmallVector<vector::IteratorType> iterators =
      contract.getIteratorTypesArray();
  unsigned k = iterators.size() - 1;
  if (llvm::count(iterators, vector::IteratorType::reduction) != 1 ||
      iterators[k] != vector::IteratorType::reduction)
    return failure();
  SmallVector<AffineMap> maps = contract.getIndexingMapsArray();
  MLIRContext *context = rewriter.getContext();
  if (maps[2] !=
      AffineMap::getMultiDimIdentityMap(k + 1, context).getMajorSubMap(k))
    return failure();
  for (AffineMap map : {maps[0], maps[1]})
    if (!map.isProjectedPermutation() || map.getNumResults() == 0 ||
        map.getResults().back() != getAffineDimExpr(k, context))
      return failure();
  auto lhsType = cast<VectorType>(contract.getLhsType());
  if (!isa<FloatType>(lhsType.getElementType()))
    return failure();

  SmallVector<int64_t> spaceShape(accType.getShape());
  spaceShape.push_back(lhsType.getShape().back());
  Type elementType = accType.getElementType();
  auto wideType = VectorType::get(spaceShape, elementType);
  Location loc = contract.getLoc();

  rewriter.setInsertionPoint(loop);
  Value zeros = arith::ConstantOp::create(
      rewriter, loc, wideType,
      DenseElementsAttr::get(wideType, rewriter.getZeroAttr(elementType)));
  FailureOr<LoopLikeOpInterface> widened = loop.replaceWithAdditionalYields(
      rewriter, zeros, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &b, Location loc, ArrayRef<BlockArgument> newArgs) {
        Value lhs = broadcastToIterationSpace(b, loc, contract.getLhs(),
                                              maps[0], spaceShape, elementType);
        Value rhs = broadcastToIterationSpace(b, loc, contract.getRhs(),
                                              maps[1], spaceShape, elementType);
        return SmallVector<Value>{
            vector::FMAOp::create(b, loc, lhs, rhs, newArgs.front())};
      });
  if (failed(widened))
    return failure();
  auto newLoop = cast<scf::ForOp>(widened->getOperation());

  // The old accumulator now passes through the loop unchanged; its final
  // value is the sum of the wide accumulator along k, added to it.
  rewriter.replaceOp(contract, contract.getAcc());
  rewriter.setInsertionPointAfter(newLoop);
  Value sum = vector::MultiDimReductionOp::create(
      rewriter, loc, newLoop.getResults().back(),
      newLoop.getInitArgs()[iterIndex],
      ArrayRef<bool>(llvm::to_vector(llvm::map_range(
          llvm::seq<unsigned>(0, k + 1), [&](unsigned d) { return d == k; }))),
      vector::CombiningKind::ADD);
  rewriter.replaceAllUsesWith(newLoop.getResult(iterIndex), sum);
  return success();
}

struct TileAndVectorize
    : public mp::impl::MPTileAndVectorizeBase<TileAndVectorize> {
  using Base::Base;

  void runOnOperation() override;

private:
  /// The tile size of every loop of `op`, or nothing when `op` is left alone.
  std::optional<SmallVector<int64_t>> getTileSizes(linalg::LinalgOp op) const;

  SmallVector<int64_t> matmulTiles, dotTiles, innerTiles;
};

std::optional<SmallVector<int64_t>>
TileAndVectorize::getTileSizes(linalg::LinalgOp op) const {
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  if (extents.empty() || ShapedType::isDynamicShape(extents) ||
      touchesFP8(op) || gathersFromStridedSlice(op))
    return std::nullopt;
  SmallVector<int64_t> sizes(extents.size(), 1);
  // Tiles `loop` by `size`, shrunk to a divisor of its extent.
  auto tile = [&](unsigned loop, int64_t size) {
    sizes[loop] = chooseTileSize(extents[loop], size);
  };

  if (linalg::isaContractionOpInterface(op)) {
    FailureOr<linalg::ContractionDimensions> dims =
        linalg::inferContractionDims(op);
    if (succeeded(dims) && !dims->m.empty() && !dims->n.empty() &&
        !dims->k.empty()) {
      // The innermost loop of each group gets the tile; the others stay 1.
      ArrayRef<int64_t> tiles =
          isDotContraction(op, dims->k.back()) ? dotTiles : matmulTiles;
      tile(dims->m.back(), tiles[0]);
      tile(dims->n.back(), tiles[1]);
      tile(dims->k.back(), tiles[2]);
      return sizes;
    }
  }
  unsigned numLoops = extents.size();
  for (auto [i, size] : llvm::enumerate(llvm::reverse(innerTiles))) {
    if (i >= numLoops)
      break;
    tile(numLoops - 1 - i, size);
  }
  return sizes;
}

void TileAndVectorize::runOnOperation() {
  func::FuncOp function = getOperation();
  MLIRContext *context = &getContext();

  matmulTiles = matmulTileSizes.empty()
                    ? SmallVector<int64_t>{8, 32, 16}
                    : SmallVector<int64_t>(matmulTileSizes.begin(),
                                           matmulTileSizes.end());
  dotTiles = dotTileSizes.empty() ? SmallVector<int64_t>{4, 4, 16}
                                  : SmallVector<int64_t>(dotTileSizes.begin(),
                                                         dotTileSizes.end());
  innerTiles = tileSizes.empty()
                   ? SmallVector<int64_t>{8, 32}
                   : SmallVector<int64_t>(tileSizes.begin(), tileSizes.end());
  auto positive = [](int64_t size) { return size > 0; };
  if (matmulTiles.size() != 3 || !llvm::all_of(matmulTiles, positive) ||
      dotTiles.size() != 3 || !llvm::all_of(dotTiles, positive) ||
      !llvm::all_of(innerTiles, positive)) {
    function.emitError() << "mp-tile-and-vectorize: 'matmul-tile-sizes' and "
                            "'dot-tile-sizes' need three positive sizes (M, "
                            "N, K), 'tile-sizes' positive sizes";
    return signalPassFailure();
  }

  SmallVector<linalg::LinalgOp> candidates;
  function.walk([&](linalg::LinalgOp op) {
    if (op.hasPureTensorSemantics())
      candidates.push_back(op);
  });

  IRRewriter rewriter(context);
  for (linalg::LinalgOp op : candidates) {
    std::optional<SmallVector<int64_t>> sizes = getTileSizes(op);
    if (!sizes ||
        failed(linalg::vectorizeOpPrecondition(op, {}, {},
                                               /*vectorizeNDExtract=*/true)))
      continue;

    rewriter.setInsertionPoint(op);
    // Parallel loops outside, reduction loops inside, so that accumulators
    // stay in registers across the reduction.
    SmallVector<int64_t> interchange;
    for (auto [i, type] : llvm::enumerate(op.getIteratorTypesArray()))
      if (type == utils::IteratorType::parallel)
        interchange.push_back(i);
    for (auto [i, type] : llvm::enumerate(op.getIteratorTypesArray()))
      if (type != utils::IteratorType::parallel)
        interchange.push_back(i);
    scf::SCFTilingOptions options;
    options.setTileSizes(getAsIndexOpFoldResult(context, *sizes));
    options.setInterchange(interchange);
    FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
        rewriter, cast<TilingInterface>(op.getOperation()), options);
    if (failed(tiled))
      continue;
    rewriter.replaceOp(op, tiled->replacements);

    for (Operation *tile : tiled->tiledOps) {
      rewriter.setInsertionPoint(tile);
      FailureOr<linalg::VectorizationResult> vectorized =
          linalg::vectorize(rewriter, tile, {}, {}, /*vectorizeNDExtract=*/true,
                            /*flatten1DDepthwiseConv=*/false,
                            /*assumeDynamicDimsMatchVecSizes=*/false,
                            /*createNamedContraction=*/true);
      if (succeeded(vectorized))
        rewriter.replaceOp(tile, vectorized->replacements);
    }
  }

  // Multiply-accumulate reductions become vector.contract; transfers with
  // permutation maps become plain transfers and transposes.
  {
    RewritePatternSet patterns(context);
    vector::populateVectorReductionToContractPatterns(patterns);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(patterns);
    vector::TransferReadOp::getCanonicalizationPatterns(patterns, context);
    vector::TransferWriteOp::getCanonicalizationPatterns(patterns, context);
    // Not converging within the iteration limit leaves valid, slower code.
    (void)applyPatternsGreedily(function, std::move(patterns));
  }

  // Keep accumulators in registers across reduction loops: hoist the
  // matching transfer_read/transfer_write pairs (innermost loops first).
  function.walk([&](LoopLikeOpInterface loop) {
    (void)hoistLoopInvariantSubsets(rewriter, loop);
  });

  // Accumulations along the contiguous dimension of both operands become
  // split-K FMAs.
  SmallVector<vector::ContractionOp> contractions;
  function.walk([&](vector::ContractionOp op) { contractions.push_back(op); });
  for (vector::ContractionOp contract : contractions)
    (void)splitKAccumulation(rewriter, contract);

  // The other contractions become outer products (rows of fused
  // multiply-adds), multi-reductions elementwise operations and 1-d
  // reductions. Multi-dimensional math ops are unrolled into rows: not all
  // of their LLVM lowerings take n-d vectors (math.isfinite does not).
  RewritePatternSet patterns(context);
  vector::populateVectorUnrollPatterns(
      patterns,
      vector::UnrollVectorOptions()
          .setFilterConstraint([](Operation *op) {
            return success(
                isa<math::MathDialect>(op->getDialect()) &&
                op->getNumResults() == 1 &&
                isa<VectorType>(op->getResult(0).getType()) &&
                cast<VectorType>(op->getResult(0).getType()).getRank() > 1);
          })
          .setNativeShapeFn(
              [](Operation *op) -> std::optional<SmallVector<int64_t>> {
                auto type = cast<VectorType>(op->getResult(0).getType());
                SmallVector<int64_t> row(type.getRank() - 1, 1);
                row.push_back(type.getShape().back());
                return row;
              }));
  vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
  vector::populateVectorContractLoweringPatterns(
      patterns, vector::VectorContractLowering::OuterProduct);
  vector::populateVectorMultiReductionLoweringPatterns(
      patterns, vector::VectorMultiReductionLowering::InnerParallel);
  // Not converging within the iteration limit leaves valid, slower code.
  (void)applyPatternsGreedily(function, std::move(patterns));
}

} // namespace
