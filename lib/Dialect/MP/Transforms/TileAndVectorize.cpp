//===- TileAndVectorize.cpp - CPU tiling and vectorisation of linalg ------===//
//
// mp-tile-and-vectorize is the code-generation step of the CPU pipeline. Its
// code grows with the number of operations, not with the tensor sizes: every
// loop of every statically shaped linalg operation on tensors is tiled with
// scf.for loops (by 1 unless the loop is in the vector), the unit loops of
// each tile are dropped, and the tile is vectorised with linalg::vectorize,
// so vectors are a few registers (16 lanes; M x 16 for contractions).
// Each operation is vectorised along its most contiguous loop (a parallel
// loop, or its last reduction loop; f64 sums of narrower values along the
// parallel loop of their outputs instead, as many independent sums per
// vector addition, read transposed in 16 x 16 blocks where their inputs
// are contiguous along a reduction (prepareTransposedSum), or, with
// `parallel` and one tile of outputs, two tiles of half the vector);
// contractions along their N loop are M
// rows of N-vectors accumulated over K one step at a time, their N operand
// packed first into contiguous panels of N-tile columns and their M operand,
// unless its rows are contiguous along K (then read in place, widened where
// the payload widens it), into panels of M-tile rows, K inside (with outer
// loops over the B panels, then the A tiles); small dot contractions (A·Bᵀ,
// both operands contiguous along K) get their N·K operand transposed
// instead, so that they are such matmuls. Elementwise operations that
// transpose (an input contiguous along one loop, the outputs along another:
// NCHW <-> N(HW)C around the convolutions) are tiled by blocks of both
// loops (16 x 16): rows of the input read, transposed in registers
// (vector.transpose, 32-bit lanes), the payload applied, rows of the output
// written; inputs read at linearised loops (`(n·28 + h)·28 + w`) are read
// through expanded views first, and runs of loops consecutive in every
// operand (h, w) collapsed (also in elementwise operations whose rows are
// not a multiple of the vector). Accumulators are hoisted out of
// the reduction loops; a zero fill that only makes accumulators is fused
// into the parallel tile loops of its contractions, so that they start from
// zeros in registers (no fill of the whole result in memory, no reading it
// back). An implicit-GEMM convolution is tiled as a contraction
// (getImplicitConvDims); where a reduction loop shifts the row of input its
// tiles read (kw), they read their input elements one by one and that loop
// carries an LLVM annotation that keeps it rolled (getRolledLoops), so that
// each product folds its element into the multiplication as a broadcast
// memory operand. Sums carried across reduction loops outside the vector (a
// parallel vector loop) take 4 rows of the parallel loop before it, so
// that 4 independent chains are in flight; such an operation is tiled even
// when the vectoriser does not take its combiner (a multiply-add) as a
// reduction, each tile being elementwise on its accumulators. With
// `parallel`, the leading parallel tile loops of large operations are one
// scf.forall (each output element still computed by one iteration).
//
// The bits are those of the scalar loops: element types are never changed,
// no fast-math flags are added, multiplications and additions stay separate
// (no FMA), and every reduction adds its elements in the scalar order (one
// step at a time outside the vector, an ordered vector.reduction into the
// accumulator along it).
//
// It assumes linalg on tensors (after convert-mp-to-linalg, before
// bufferization). Tile sizes are shrunk to divisors of the loop extents so
// that every tile is full; operations the vectoriser rejects, operations on
// FP8 values, and gathers from slices with non-unit strides (whose
// vector.gather has no LLVM lowering) stay as they are for
// convert-linalg-to-loops.
//
// The pass's pieces: this file chooses the tile sizes (the vector loop,
// widening sums, the rows of carried sums), tiles, vectorises and cleans up;
// TileAndVectorize.h declares what it uses from
// TileAndVectorizeContractions.cpp (register tiles, packing, implicit
// convolutions), TileAndVectorizeTransposes.cpp (transposing and linearised
// elementwise operations) and TileAndVectorizeFills.cpp (fills fused into their
// contractions).
//
//===----------------------------------------------------------------------===//

#include "TileAndVectorize.h"

#include "mp/Dialect/MP/Transforms/Passes.h"
#include "mp/Dialect/MP/Transforms/Threading.h"

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
using namespace mlir::mp::tiling;

/// The rows (independent vector accumulators) of a tile whose sums are
/// carried across its reduction loops: enough to cover the latency of a
/// vector addition or multiply-add (3-4 cycles, two per cycle).
static constexpr int64_t kReductionRows = 4;

int64_t tiling::chooseTileSize(int64_t extent, int64_t size) {
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

bool tiling::isWideningSum(linalg::LinalgOp op) {
  auto isF64 = [](OpOperand *operand) {
    return getElementTypeOrSelf(operand->get().getType()).isF64();
  };
  return op.getNumReductionLoops() > 0 && op.getNumDpsInits() > 0 &&
         llvm::all_of(op.getDpsInitsMutable(),
                      [&](OpOperand &init) { return isF64(&init); }) &&
         llvm::none_of(op.getDpsInputOperands(), isF64);
}

namespace {

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

/// The loop of `op` its tiles are vectors along: a parallel loop or the
/// last reduction loop (a sum along it keeps its order: the vector is
/// reduced in order into the accumulator), the one most inputs that vary
/// along every parallel loop have as their innermost dimension
/// (contiguous), then the one the outputs have, then the one most inputs
/// have (an input broadcast along a parallel loop, a per-channel scale,
/// say, is small: reading it along the vector must not make the tensors
/// gathered), then the innermost; for a widening sum (isWideningSum), the parallel
/// loop the outputs have as their innermost dimension, where there is one,
/// rather than the reduction loop (its inputs gathered across outputs).
static unsigned chooseVectorLoop(linalg::LinalgOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned numLoops = iterators.size();
  std::optional<unsigned> lastReduction;
  for (unsigned d = 0; d < numLoops; ++d)
    if (iterators[d] != utils::IteratorType::parallel)
      lastReduction = d;
  auto innermostCount = [&](unsigned d, auto operands) {
    int64_t count = 0;
    for (OpOperand *operand : operands) {
      AffineMap map = op.getMatchingIndexingMap(operand);
      if (map.getNumResults() > 0 &&
          map.getResults().back() == getAffineDimExpr(d, op.getContext()))
        ++count;
    }
    return count;
  };
  SmallVector<OpOperand *> outputs = llvm::to_vector(llvm::map_range(
      op.getDpsInitsMutable(), [](OpOperand &o) { return &o; }));
  // The inputs that vary along every parallel loop (not broadcast along
  // any of them).
  SmallVector<OpOperand *> fullInputs;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (llvm::all_of(llvm::seq(numLoops), [&](unsigned d) {
          return iterators[d] != utils::IteratorType::parallel ||
                 map.isFunctionOfDim(d);
        }))
      fullInputs.push_back(input);
  }
  unsigned best = numLoops - 1;
  std::tuple<int64_t, int64_t, int64_t> bestScore = {-1, -1, -1};
  bool acrossOutputs =
      isWideningSum(op) && llvm::any_of(llvm::seq(numLoops), [&](unsigned d) {
        return iterators[d] == utils::IteratorType::parallel &&
               innermostCount(d, outputs) > 0;
      });
  for (unsigned d = 0; d < numLoops; ++d) {
    if (iterators[d] != utils::IteratorType::parallel &&
        (d != lastReduction || acrossOutputs))
      continue;
    std::tuple<int64_t, int64_t, int64_t> score = {
        innermostCount(d, fullInputs), innermostCount(d, outputs),
        innermostCount(d, op.getDpsInputOperands())};
    if (score >= bestScore) {
      best = d;
      bestScore = score;
    }
  }
  return best;
}

struct TileAndVectorize
    : public mp::impl::MPTileAndVectorizeBase<TileAndVectorize> {
  using Base::Base;

  void runOnOperation() override;

private:
  /// The tile size of every loop of `op`, or nothing when `op` is left alone.
  std::optional<SmallVector<int64_t>> getTileSizes(linalg::LinalgOp op) const;

  /// Tiles `op` by `sizes` and replaces it: parallel loops outside, reduction
  /// loops inside (in their order), so that accumulators stay in registers
  /// across the reduction. With `parallel`, the outermost parallel tile
  /// loops of a large enough operation are one scf.forall. The scf.for
  /// loops of the loops `rolled` of `op` are annotated for LLVM not to
  /// unroll them (getRolledLoops). Returns the tiles.
  FailureOr<SmallVector<Operation *>>
  tile(RewriterBase &rewriter, linalg::LinalgOp op, ArrayRef<int64_t> sizes,
       ArrayRef<unsigned> rolled = {}) const;

  SmallVector<int64_t> matmulTiles, innerTiles;
};

std::optional<SmallVector<int64_t>>
TileAndVectorize::getTileSizes(linalg::LinalgOp op) const {
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  if (extents.empty() || ShapedType::isDynamicShape(extents) ||
      touchesFP8(op) || gathersFromStridedSlice(op))
    return std::nullopt;
  // Every loop is tiled, by 1 unless said otherwise: the loops that are not
  // in the vector are scf.for loops, reductions visit their elements in
  // order.
  SmallVector<int64_t> sizes(extents.size(), 1);
  auto tile = [&](unsigned loop, int64_t size) {
    sizes[loop] = chooseTileSize(extents[loop], size);
  };

  // An M tile: a short M loop whose divisors up to the M tile are below
  // half of it (the 7 pixels of a convolution's panel, with an M tile of
  // 4) is one tile.
  auto tileRows = [&](unsigned m) {
    tile(m, matmulTiles[0]);
    if (extents[m] <= 2 * matmulTiles[0] && 2 * sizes[m] < matmulTiles[0])
      sizes[m] = extents[m];
  };
  if (std::optional<std::pair<unsigned, unsigned>> conv =
          getImplicitConvDims(op)) {
    auto [m, n] = *conv;
    if (extents[m] >= 2 * matmulTiles[0] && extents[n] > matmulTiles[1] / 2 &&
        matmulTiles[1] % 2 == 0 && matmulTiles[0] < matmulTiles[1]) {
      // Rows to spare (a filter gradient's channels), more columns than
      // half the N tile, and a tile wider than tall (two vectors a row: 4 x
      // 16 on AVX2, 8 x 32): twice the rows, half the columns (8 x 8, 16 x
      // 16, the AVX-512 default already), the same accumulators. Each broadcast
      // input element then feeds one product (LLVM folds it into the
      // multiplication as a broadcast memory operand: no broadcast instruction
      // of its own, where two vectors per row take one each), and each row of
      // the second input is read once for twice the rows.
      tile(m, 2 * matmulTiles[0]);
      tile(n, matmulTiles[1] / 2);
      return sizes;
    }
    tileRows(m);
    tile(n, matmulTiles[1]);
    return sizes;
  }
  // A transposed sum: blocks of its pixels and its channels.
  if (std::optional<std::pair<unsigned, unsigned>> sum =
          getTransposedSumLoops(op, innerTiles.back())) {
    sizes[sum->first] = innerTiles.back();
    sizes[sum->second] = innerTiles.back();
    return sizes;
  }
  // A transposing elementwise operation: blocks of both its source- and its
  // destination-contiguous loops, by the last size (16 x 16 by default),
  // unless one of them would be below 4 (then vectors along one loop).
  if (std::optional<std::pair<unsigned, unsigned>> transpose =
          getTransposeLoops(op)) {
    int64_t s = chooseTileSize(extents[transpose->first], innerTiles.back());
    int64_t d = chooseTileSize(extents[transpose->second], innerTiles.back());
    if (s >= 4 && d >= 4) {
      sizes[transpose->first] = s;
      sizes[transpose->second] = d;
      return sizes;
    }
  }
  unsigned vectorLoop = chooseVectorLoop(op);
  std::optional<linalg::ContractionDimensions> dims = getMatmulDims(op);
  if (dims && vectorLoop == dims->n.back() && vectorLoop != dims->m.back()) {
    // Rows of N outputs, M of them, accumulated over K (in order).
    tileRows(dims->m.back());
    tile(dims->n.back(), matmulTiles[1]);
    tile(dims->k.back(), matmulTiles[2]);
    return sizes;
  }
  // The vector loop by the last size, the parallel loops before it by the
  // sizes before.
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  tile(vectorLoop, innerTiles.back());
  int64_t loop = vectorLoop;
  for (int64_t size : llvm::drop_begin(llvm::reverse(innerTiles))) {
    while (--loop >= 0 && iterators[loop] != utils::IteratorType::parallel)
      ;
    if (loop < 0)
      break;
    tile(loop, size);
  }
  // Sums carried across the tiles of reduction loops (a parallel vector
  // loop) are dependent chains, one vector operation per step: with a
  // single vector row each step waits for the latency of the last. Rows of
  // the parallel loop before the vector loop are independent sums, so a
  // tile of kReductionRows of them keeps that many chains in flight (each
  // row still summed in its order), unless `tile-sizes` sized that loop.
  if (iterators[vectorLoop] == utils::IteratorType::parallel &&
      op.getNumReductionLoops() > 0) {
    int64_t rows = vectorLoop;
    while (--rows >= 0 && iterators[rows] != utils::IteratorType::parallel)
      ;
    if (rows >= 0 && sizes[rows] == 1)
      tile(rows, kReductionRows);
  }
  // With `parallel`, a large widening sum whose outputs are one tile (the
  // statistics of 16 channels) is two tiles of half the vector: one per
  // thread, each summing its channels in order, where one tile would run
  // on one thread while the others wait. (Without `parallel` such a sum
  // reads its elements transposed instead, prepareTransposedSum, which is
  // faster on one core but, its input just written by every thread, waits
  // on the other cores' caches.)
  int64_t iterations = 1;
  for (int64_t extent : extents)
    iterations *= extent;
  if (parallel && isWideningSum(op) &&
      iterators[vectorLoop] == utils::IteratorType::parallel &&
      iterations >= kMinParallelIterations && sizes[vectorLoop] % 16 == 0 &&
      llvm::all_of(llvm::seq(extents.size()), [&](size_t d) {
        return iterators[d] != utils::IteratorType::parallel ||
               extents[d] == sizes[d];
      }))
    sizes[vectorLoop] /= 2;
  return sizes;
}

/// True when every reduction loop of `op` is tiled by 1 in `sizes` (none is
/// in the vector): each tile, its unit loops dropped, is elementwise on its
/// accumulators, whatever combines them (a multiply-add included, which the
/// vectoriser does not take as a reduction of the whole operation).
static bool reducesAcrossTiles(linalg::LinalgOp op, ArrayRef<int64_t> sizes) {
  if (op.getNumReductionLoops() == 0)
    return false;
  for (auto [size, type] : llvm::zip(sizes, op.getIteratorTypesArray()))
    if (type != utils::IteratorType::parallel && size != 1)
      return false;
  return true;
}

FailureOr<SmallVector<Operation *>>
TileAndVectorize::tile(RewriterBase &rewriter, linalg::LinalgOp op,
                       ArrayRef<int64_t> sizes,
                       ArrayRef<unsigned> rolled) const {
  MLIRContext *context = rewriter.getContext();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  // The loops in tile order: parallel ones, then reduction ones.
  SmallVector<int64_t> order;
  for (auto [i, type] : llvm::enumerate(iterators))
    if (type == utils::IteratorType::parallel)
      order.push_back(i);
  unsigned numParallel = order.size();
  for (auto [i, type] : llvm::enumerate(iterators))
    if (type != utils::IteratorType::parallel)
      order.push_back(i);

  // The leading parallel loops that become one scf.forall: as many as make
  // kMinParallelTiles tiles, none for a small operation.
  unsigned numForall = 0;
  int64_t iterations = 1;
  for (int64_t extent : extents)
    iterations *= extent;
  if (parallel && iterations >= kMinParallelIterations) {
    int64_t numTiles = 1;
    while (numForall < numParallel && numTiles < kMinParallelTiles) {
      numTiles *= extents[order[numForall]] / sizes[order[numForall]];
      ++numForall;
    }
    if (numTiles == 1)
      numForall = 0;
  }

  Operation *current = op;
  // The fills fused into the loops (fuseFilledDestinations): tiles too.
  SmallVector<Operation *> fills;
  if (numForall > 0) {
    // The scf.forall over the leading parallel loops (in their order, which
    // is the tile order), the other loops untiled inside.
    SmallVector<int64_t> forallSizes(sizes.size(), 0);
    for (unsigned i = 0; i < numForall; ++i)
      forallSizes[order[i]] = sizes[order[i]];
    scf::SCFTilingOptions options;
    options.setTileSizes(getAsIndexOpFoldResult(context, forallSizes));
    options.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
    FailureOr<scf::SCFTilingResult> tiled =
        scf::tileUsingSCF(rewriter, cast<TilingInterface>(current), options);
    if (failed(tiled) || tiled->tiledOps.size() != 1)
      return failure();
    rewriter.replaceOp(current, tiled->replacements);
    current = tiled->tiledOps.front();
    fills = fuseFilledDestinations(rewriter, current, tiled->loops);
    rewriter.setInsertionPoint(current);
  }

  // scf.for loops over the rest, in tile order: with a filled destination
  // (an accumulator) the parallel loops first, the fill fused into them,
  // then the reduction loops inside (a fill inside a reduction loop would
  // restart the sums).
  SmallVector<int64_t> forSizes(sizes);
  for (unsigned i = 0; i < numForall; ++i)
    forSizes[order[i]] = 0;
  auto tileFor = [&](ArrayRef<int64_t> forSizes)
      -> std::optional<FailureOr<scf::SCFTilingResult>> {
    if (llvm::all_of(forSizes, [](int64_t size) { return size == 0; }))
      return std::nullopt;
    scf::SCFTilingOptions options;
    options.setTileSizes(getAsIndexOpFoldResult(context, forSizes));
    options.setInterchange(order);
    FailureOr<scf::SCFTilingResult> tiled =
        scf::tileUsingSCF(rewriter, cast<TilingInterface>(current), options);
    if (succeeded(tiled)) {
      rewriter.replaceOp(current, tiled->replacements);
      current = tiled->tiledOps.back();
      // The loops, one per loop of a nonzero size in tile order.
      SmallVector<int64_t> tiledLoops = llvm::filter_to_vector(
          order, [&](int64_t loop) { return forSizes[loop] != 0; });
      if (tiledLoops.size() == tiled->loops.size())
        for (auto [loop, forLoop] : llvm::zip(tiledLoops, tiled->loops))
          if (llvm::is_contained(rolled, loop))
            keepRolled(forLoop);
    }
    return tiled;
  };
  if (hasFilledDestination(current)) {
    SmallVector<int64_t> parallelSizes(forSizes), reductionSizes(forSizes);
    for (auto [i, type] : llvm::enumerate(iterators))
      (type == utils::IteratorType::parallel ? reductionSizes
                                             : parallelSizes)[i] = 0;
    std::optional<FailureOr<scf::SCFTilingResult>> tiled =
        tileFor(parallelSizes);
    if (tiled && succeeded(*tiled))
      llvm::append_range(
          fills, fuseFilledDestinations(rewriter, current, (*tiled)->loops));
    if (!tiled || succeeded(*tiled))
      forSizes = reductionSizes;
  }
  std::optional<FailureOr<scf::SCFTilingResult>> tiled = tileFor(forSizes);
  if (tiled && failed(*tiled)) {
    // The tile stays a linalg operation, for mp-linalg-to-loops.
    if (current == op.getOperation())
      return failure();
    return fills;
  }
  if (!tiled && current == op.getOperation() && fills.empty())
    return SmallVector<Operation *>{current};
  SmallVector<Operation *> tiles(fills);
  if (tiled)
    llvm::append_range(tiles, (**tiled).tiledOps);
  else
    tiles.push_back(current);
  return tiles;
}

void TileAndVectorize::runOnOperation() {
  func::FuncOp function = getOperation();
  MLIRContext *context = &getContext();

  matmulTiles = matmulTileSizes.empty()
                    ? getHostMatmulTileSizes()
                    : SmallVector<int64_t>(matmulTileSizes.begin(),
                                           matmulTileSizes.end());
  innerTiles = tileSizes.empty()
                   ? SmallVector<int64_t>{16}
                   : SmallVector<int64_t>(tileSizes.begin(), tileSizes.end());
  auto positive = [](int64_t size) { return size > 0; };
  if (matmulTiles.size() != 3 || !llvm::all_of(matmulTiles, positive) ||
      !llvm::all_of(innerTiles, positive)) {
    function.emitError() << "mp-tile-and-vectorize: 'matmul-tile-sizes' needs "
                            "three positive sizes (M, N, K), 'tile-sizes' "
                            "positive sizes";
    return signalPassFailure();
  }

  IRRewriter rewriter(context);
  // Named operations become generics (whose unit loops can be dropped), dot
  // contractions matmuls.
  SmallVector<linalg::LinalgOp> named;
  function.walk([&](linalg::LinalgOp op) {
    if (op.hasPureTensorSemantics() && !isa<linalg::GenericOp>(op))
      named.push_back(op);
  });
  for (linalg::LinalgOp op : named) {
    rewriter.setInsertionPoint(op);
    (void)linalg::generalizeNamedOp(rewriter, op);
  }
  SmallVector<linalg::GenericOp> generics;
  function.walk([&](linalg::GenericOp op) {
    if (op.hasPureTensorSemantics())
      generics.push_back(op);
  });
  for (linalg::GenericOp op : generics)
    markExactProducts(op);
  for (linalg::GenericOp op : generics)
    if (!packContraction(rewriter, op, /*mPanel=*/matmulTiles[0],
                         /*nPanel=*/matmulTiles[1],
                         /*minM=*/4 * matmulTiles[0]))
      transposeDotOperand(rewriter, op, /*minM=*/matmulTiles[0]);
  refillReshapedFills(rewriter, function);
  // Elementwise operations read at linearised loops read expanded views;
  // transposing ones get their contiguous loops' runs collapsed.
  SmallVector<linalg::GenericOp> elementwise;
  function.walk([&](linalg::GenericOp op) {
    if (op.hasPureTensorSemantics() && op.getNumReductionLoops() == 0)
      elementwise.push_back(op);
  });
  for (linalg::GenericOp op : elementwise) {
    delinearizeInputs(rewriter, op);
    if (!isFill(op))
      collapseContiguousLoops(rewriter, op, innerTiles.back());
  }
  // Widening sums across channels whose elements are contiguous along the
  // pixels become transposed sums (on one thread; see getTileSizes).
  SmallVector<linalg::GenericOp> sums;
  function.walk([&](linalg::GenericOp op) {
    if (op.hasPureTensorSemantics() && isWideningSum(op))
      sums.push_back(op);
  });
  if (!parallel)
    for (linalg::GenericOp op : sums)
      prepareTransposedSum(rewriter, op, innerTiles.back());

  // Fills that only make accumulators come last: tiling their contractions
  // fuses them (fuseFilledDestinations); those left are tiled on their own.
  SmallVector<linalg::LinalgOp> candidates, accumulatorFills;
  function.walk([&](linalg::LinalgOp op) {
    if (!op.hasPureTensorSemantics())
      return;
    if (isFill(op) && isAccumulatorFill(op))
      accumulatorFills.push_back(op);
    else
      candidates.push_back(op);
  });
  for (linalg::LinalgOp fill : accumulatorFills)
    candidates.push_back(fill);
  linalg::ControlDropUnitDims dropUnitDims;
  dropUnitDims.rankReductionStrategy =
      linalg::ControlDropUnitDims::RankReductionStrategy::ExtractInsertSlice;
  for (linalg::LinalgOp op : candidates) {
    if (isFill(op) && op->use_empty()) {
      rewriter.eraseOp(op); // Fused into every contraction it filled.
      continue;
    }
    // An implicit-GEMM convolution's input map is no projected permutation
    // (which the vectoriser needs) until its tiles drop their unit loops.
    // Neither is an operation whose reductions all step from tile to tile
    // (reducesAcrossTiles): its tiles are checked below, one at a time.
    std::optional<SmallVector<int64_t>> sizes = getTileSizes(op);
    std::optional<std::pair<unsigned, unsigned>> conv = getImplicitConvDims(op);
    // The loops that shift an implicit convolution's rows: kept rolled,
    // its tiles reading their input elements one by one.
    SmallVector<unsigned> rolled;
    if (conv)
      rolled = getRolledLoops(op, conv->first);
    if (!sizes ||
        (!conv && !reducesAcrossTiles(op, *sizes) &&
         failed(linalg::vectorizeOpPrecondition(op, {}, {},
                                                /*vectorizeNDExtract=*/true))))
      continue;

    rewriter.setInsertionPoint(op);
    FailureOr<SmallVector<Operation *>> tiles =
        tile(rewriter, op, *sizes, rolled);
    if (failed(tiles))
      continue;

    for (Operation *tile : *tiles) {
      // The tile without its unit loops: vectors of rank 1 (2 for the
      // M rows of a contraction), reductions of extent 1 gone.
      auto generic = dyn_cast<linalg::GenericOp>(tile);
      if (generic && llvm::any_of(generic.getStaticLoopRanges(),
                                  [](int64_t e) { return e != 1; })) {
        rewriter.setInsertionPoint(generic);
        FailureOr<linalg::DropUnitDimsResult> dropped =
            linalg::dropUnitDims(rewriter, generic, dropUnitDims);
        if (succeeded(dropped)) {
          rewriter.replaceOp(generic, dropped->replacements);
          tile = dropped->resultOp;
        }
      }
      if (auto tileGeneric = dyn_cast<linalg::GenericOp>(tile))
        fuseExactProducts(rewriter, tileGeneric);
      if (failed(linalg::vectorizeOpPrecondition(tile, {}, {},
                                                 /*vectorizeNDExtract=*/true)))
        continue;
      rewriter.setInsertionPoint(tile);
      FailureOr<linalg::VectorizationResult> vectorized =
          linalg::vectorize(rewriter, tile, {}, {}, /*vectorizeNDExtract=*/true,
                            /*flatten1DDepthwiseConv=*/false,
                            /*assumeDynamicDimsMatchVecSizes=*/false,
                            /*createNamedContraction=*/false);
      if (failed(vectorized))
        continue;
      // The input of an implicit convolution's product tile (its first)
      // whose rows shift.
      Value input = !rolled.empty() && !isFill(tile)
                        ? cast<linalg::LinalgOp>(tile).getDpsInputs()[0]
                        : Value();
      rewriter.replaceOp(tile, vectorized->replacements);
      if (input)
        readStretchedElements(rewriter, input);
    }
  }

  // Keep accumulators in registers across reduction loops: hoist the
  // matching slices (those of packed matmuls, whose rank-reduced slices
  // would fold into transfers that do not match) and, below, the matching
  // transfer_read/transfer_write pairs (innermost loops first).
  auto hoistAccumulators = [&] {
    function.walk([&](scf::ForOp loop) {
      (void)hoistLoopInvariantSubsets(rewriter, loop);
    });
  };
  hoistAccumulators();
  // The marks of exact products not fused (in tiles left as they are).
  function.walk(
      [](arith::MulFOp product) { product->removeAttr(kExactProduct); });

  // Transfers with permutation maps become plain transfers and transposes;
  // transfers read and write through the tiles' slices.
  {
    RewritePatternSet patterns(context);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    patterns.add<TransposeOfBroadcastToStretch, ExtensionOfTranspose,
                 OuterReductionToRows, InsertOverWrite>(context);
    tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(patterns);
    vector::TransferReadOp::getCanonicalizationPatterns(patterns, context);
    vector::TransferWriteOp::getCanonicalizationPatterns(patterns, context);
    // Not converging within the iteration limit leaves valid, slower code.
    (void)applyPatternsGreedily(function, std::move(patterns));
  }

  hoistAccumulators();

  // Reductions along the vector become ordered vector.reduction ops
  // (sequential sums, as the scalar loops), multi-dimensional math ops are
  // unrolled into rows: not all of their LLVM lowerings take n-d vectors
  // (math.isfinite does not). Multiplications and additions stay separate
  // operations: no FMA is formed, so every product is rounded as in the
  // scalar loops.
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
  vector::populateVectorMultiReductionLoweringPatterns(
      patterns, vector::VectorMultiReductionLowering::InnerReduction);
  // Not converging within the iteration limit leaves valid, slower code.
  (void)applyPatternsGreedily(function, std::move(patterns));

  // The slices that fused fills wrote and their contractions overwrite,
  // once the reduction loops no longer carry them.
  RewritePatternSet overwrites(context);
  scf::ForOp::getCanonicalizationPatterns(overwrites, context);
  overwrites.add<InsertOverWrite>(context);
  (void)applyPatternsGreedily(function, std::move(overwrites));
}

} // namespace
