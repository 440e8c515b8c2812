//===- BF16DotProducts.cpp - bf16 contractions on AVX512_BF16 -------------===//
//
// mp-bf16-dot-products gives every statically shaped bf16 x bf16 -> f32
// contraction on tensors (linalg.matmul, linalg.batch_matmul and their
// transposed forms, accumulating into a zero fill) a second implementation
// on AVX512_BF16's `vdpbf16ps` (x86vector.avx512.dot), taken at run time
// where it computes the same bits as the contraction's own definition
// (products rounded to f32, added in ascending K, one rounding each).
//
// What vdpbf16ps computes (measured bit for bit over every input pattern,
// tools/bench/bf16_dot_semantics.c): in each f32 lane, for its pair of bf16
// products, acc = ftz(fma(a1, b1, acc)), then acc = ftz(fma(a0, b0, acc)),
// with denormal inputs read as zero: the odd element of the pair first, the
// exact product (no rounding), denormal results flushed. So each K pair is
// swapped (K = 2p in the odd slot), which makes the order ascending K, and
// the packed kernel runs only where a guard proves the other differences
// away: no operand is denormal, infinite or NaN, and with Ea, Eb the biased
// exponents of nonzero elements of A and B, min Ea + min Eb >= 142 and
// max Ea + max Eb <= 380. Then every product is a normal f32 exact in f32
// (so FMA and multiply-then-add agree), and every product and so every
// partial sum from a zero accumulator is a multiple of
// 2^(min Ea + min Eb - 268) >= 2^-126 (never denormal, nothing
// to flush). Elsewhere the original contraction runs (the `scf.if`'s else
// branch, which also takes what only the contraction reads: its zero fill,
// im2col and widening copies the kernel does not read), so the bits are
// those of mp-cpu-pipeline{vectorize=false} either way.
//
// The kernel: A packed as [batch, M/16, K/2, 16] words of bf16 pairs (per
// 16 rows and 16 K pairs, a 16 x 32 block read as 16 x 16 words, each
// rotated by 16 bits, then transposed: a K pair's 16 rows one line), B as
// [batch, N/16, K/2, 16] words (for each K pair, a panel's 16 columns as
// (2p + 1, 2p) pairs); a tile is 16 rows x 16 columns, 16 vector<16xf32>
// accumulators carried over the K pairs (one row of B and 16 dot
// instructions per pair, each with its row's word of A broadcast as the
// second source, which LLVM folds into vdpbf16ps as a memory operand: on
// Zen 4 a broadcast shared by two products costs an instruction of its
// own). An operand stored transposed (A K-major, as x in a weight gradient
// xᵀ·dy; B [N, K], as W in x·Wᵀ) is packed from where it is, each with the
// other's method (the words are the same); one stored in another order is
// copied into [batch, M, K] or [batch, K, N] first. With `parallel` the tile
// loops are an scf.forall (each output element is still computed by one
// iteration), and so are, for operands of at least kMinParallelIterations
// elements, the packing of A and B (one panel an iteration) and the guard's
// reductions (chunks of partial minima and maxima combined after): two threads
// no longer wait on either.
//
// Convolutions: the implicit GEMM of convert-mp-to-linalg (one group, unit
// width stride: out[n, oh, owb, r, f] += in[n, c, oh·sh + kh·dh, owb·P + r +
// kw·dw] · w[c, kh, kw, f] over (c, kh, kw), c outermost, the forward
// product and the input gradient's) whose two f32 operands are widened
// copies of bf16 tensors (the padding scatter into a zero fill, the filter
// copy) gets a second implementation the same way, guarded on the bf16
// tensors: the filter as words of bf16 pairs [F/width, K/2, width] (K =
// (c, kh, kw), K = 2p in the high half: the f32 elements are widened bf16,
// so the pair is taken from their high halves, no rounding), and per block
// of images (in cache) the padded input as words [K/2, pixels], one vector
// per row of output pixels and K pair, then tiles of 16 pixels x 16
// filters, one broadcast word per pixel and K pair (no rotation); with
// `parallel` the blocks are an scf.forall. Where every user of the result
// reads it transposed to [N, F, OH, OW] and an image's pixels are whole
// tiles, the tiles are 16 filters x 16 pixels (a row of A's words, one
// broadcast filter word per filter) written channel-major, the users'
// maps read that layout directly (a user left copying it unchanged is
// replaced by it: no transposing copy), and the else branch copies the
// implicit GEMM's rows to it; the sums are the same chains. The im2col form
// of a width stride of 2 (panels of pixels times the filter, a
// linalg.contract) takes the same kernel: its packing reads the padded
// input, every second column, and the im2col moves into the else branch.
// The implicit filter gradient (loops (kh, kw, c, f, n, oh, ow), summed
// over (n, oh, ow), width stride 1 or 2, OW even) likewise: B [N, F/width,
// OH·OW/2, width] words of the gradient for every image first (from the
// bf16 [N, F, OH, OW] gradient itself where the f32 operand is its widened
// transpose), then per block of images in order (as many as
// pair-words-budget bytes of words hold) the padded input's rows made pair
// words once per phase (a K pair is two neighbouring pixels of a row,
// columns sw apart; every (kh, kw) broadcasts from the same words, no
// im2col copy), and every tile of 8 (kh, kw, c) rows x filters continues
// its sums over each image's pairs in turn from where the previous image
// left them (from the op's zero fill); with `parallel` B's packing, a
// block's pair words and its tiles are each an scf.forall. Either way each
// output is one chain of vdpbf16ps over the K pairs in ascending K, the
// contraction's order, with the guard's proof. It assumes linalg on tensors
// after convert-mp-to-linalg, before mp-tile-and-vectorize (which tiles the
// transposing copies and the fallback contraction), and a target with
// AVX512_BF16: the pipeline adds it only for such a host.
//
// The pass's pieces: this file holds the pass, the guard, the matmul and
// batch-matmul kernel and the register tile that every kernel builds
// (buildPackedTile); BF16DotProducts.h declares what it shares with
// BF16ConvKernels.cpp (the convolution and filter-gradient kernels).
//
//===----------------------------------------------------------------------===//

#include "BF16DotProducts.h"

#include "mp/Dialect/MP/Transforms/Passes.h"
#include "mp/Dialect/MP/Transforms/Threading.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/Matchers.h"

#include <numeric>

namespace mlir::mp {
#define GEN_PASS_DEF_MPBF16DOTPRODUCTS
#include "mp/Dialect/MP/Transforms/Passes.h.inc"
} // namespace mlir::mp

using namespace mlir;
using namespace mlir::mp;
using namespace mlir::mp::bf16;

namespace {

/// The loops of a contraction the kernel can take: its batch, M and N
/// loops in the order the output indexes them (output (batch..., M..., N...)),
/// its K loops in loop order (the order of the sum), and the flattened
/// extents.
struct ContractionShape {
  SmallVector<unsigned> batchDims, mDims, nDims, kDims;
  SmallVector<int64_t> extents;
  int64_t batch = 1, m = 1, n = 1, k;

  /// The extents of `dims`.
  SmallVector<int64_t> extentsOf(ArrayRef<unsigned> dims) const {
    return llvm::map_to_vector(dims, [&](unsigned d) { return extents[d]; });
  }
};

} // namespace

bool bf16::isZeroFill(Value value) {
  auto fill = value.getDefiningOp<linalg::FillOp>();
  return fill && matchPattern(fill.getInputs()[0], m_AnyZeroFloat());
}

/// The shape of `op` when it is a bf16 x bf16 -> f32 contraction (products
/// of the widened operands added to the output) the kernel computes: one M,
/// N and K loop, at most one batch loop, the output indexed (batch, M, N),
/// a zero fill as its initial value, M, N and K multiples of the tile.
static std::optional<ContractionShape> matchContraction(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() ||
      op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !linalg::isaContractionOpInterface(op))
    return std::nullopt;
  auto elementType = [](Value value) {
    return getElementTypeOrSelf(value.getType());
  };
  if (!elementType(op.getDpsInputs()[0]).isBF16() ||
      !elementType(op.getDpsInputs()[1]).isBF16() ||
      !elementType(op.getDpsInits()[0]).isF32() ||
      !isZeroFill(op.getDpsInits()[0]))
    return std::nullopt;
  // The payload: extf, extf, mulf, addf (what linalg.matmul's is), nothing
  // else (no fast-math flags, no other conversion).
  Block &body = op->getRegion(0).front();
  unsigned extensions = 0, products = 0, sums = 0;
  for (Operation &nested : body.without_terminator()) {
    if (isa<arith::ExtFOp>(nested))
      ++extensions;
    else if (auto mul = dyn_cast<arith::MulFOp>(nested);
             mul && mul.getFastmath() == arith::FastMathFlags::none)
      ++products;
    else if (auto add = dyn_cast<arith::AddFOp>(nested);
             add && add.getFastmath() == arith::FastMathFlags::none)
      ++sums;
    else
      return std::nullopt;
  }
  if (extensions != 2 || products != 1 || sums != 1)
    return std::nullopt;

  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.empty() || dims->n.empty() || dims->k.empty())
    return std::nullopt;
  ContractionShape shape;
  shape.extents = op.getStaticLoopRanges();
  if (ShapedType::isDynamicShape(shape.extents))
    return std::nullopt;
  shape.kDims.assign(dims->k.begin(), dims->k.end());
  llvm::sort(shape.kDims);
  shape.k = 1;
  for (unsigned d : shape.kDims)
    shape.k *= shape.extents[d];
  // The output indexed (batch..., M..., N...): its dimensions, grouped.
  AffineMap outputMap = op.getIndexingMapMatchingResult(op->getResult(0));
  unsigned group = 0; // 0: batch, 1: M, 2: N.
  for (AffineExpr result : outputMap.getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(result);
    if (!dim)
      return std::nullopt;
    unsigned position = dim.getPosition();
    unsigned kind = llvm::is_contained(dims->batch, position) ? 0
                    : llvm::is_contained(dims->m, position)   ? 1
                                                              : 2;
    if (kind < group)
      return std::nullopt;
    group = kind;
    SmallVector<unsigned> &list =
        kind == 0 ? shape.batchDims : kind == 1 ? shape.mDims : shape.nDims;
    list.push_back(position);
  }
  if (shape.mDims.size() != dims->m.size() ||
      shape.nDims.size() != dims->n.size() ||
      shape.batchDims.size() != dims->batch.size())
    return std::nullopt;
  for (unsigned d : shape.batchDims)
    shape.batch *= shape.extents[d];
  for (unsigned d : shape.mDims)
    shape.m *= shape.extents[d];
  for (unsigned d : shape.nDims)
    shape.n *= shape.extents[d];
  // Tiles of 16 flattened rows, panels of 16 columns of the last N loop,
  // pairs along the last K loop.
  if (shape.m % kTileRows || shape.extents[shape.nDims.back()] % kTileColumns ||
      shape.extents[shape.kDims.back()] % 2)
    return std::nullopt;
  return shape;
}

/// A copy of operand `operand` of `op` into a new tensor of shape `shape`,
/// whose loops index it in order and are mapped to `op`'s loops by
/// `toOpLoops` (op loop -> expression of the copy's loops).
static Value buildCopy(OpBuilder &builder, Location loc, linalg::LinalgOp op,
                       OpOperand &operand, ArrayRef<int64_t> shape,
                       ArrayRef<AffineExpr> toOpLoops) {
  MLIRContext *context = builder.getContext();
  auto substitution =
      AffineMap::get(shape.size(), /*symbolCount=*/0, toOpLoops, context);
  AffineMap inputMap = op.getMatchingIndexingMap(&operand).compose(
      substitution);
  Value init = tensor::EmptyOp::create(builder, loc, shape,
                                       builder.getBF16Type());
  SmallVector<utils::IteratorType> iterators(shape.size(),
                                             utils::IteratorType::parallel);
  auto copy = linalg::GenericOp::create(
      builder, loc, init.getType(), ValueRange{operand.get()},
      ValueRange{init},
      ArrayRef<AffineMap>{inputMap,
                          builder.getMultiDimIdentityMap(shape.size())},
      iterators, [](OpBuilder &b, Location loc, ValueRange args) {
        linalg::YieldOp::create(b, loc, args[0]);
      });
  return copy.getResult(0);
}

namespace {

/// The two reductions of the guard over the bf16 tensor `value`, as i32
/// scalars: the smallest `magnitude - 1` (unsigned 16-bit, so that zeros,
/// at 0xFFFF, drop out) and the largest magnitude, where the magnitude is
/// the bit pattern without its sign. An element is denormal where
/// `magnitude - 1 < 0x7F`, infinite or NaN where `magnitude >= 0x7F80`;
/// the biased exponent of the smallest nonzero element is
/// `(minimum + 1) >> 7`, that of the largest `maximum >> 7`. Vector code
/// over the flattened tensor, 32 elements a step (the tail read padded
/// with zeros, which change neither); with `parallel`, a tensor of at least
/// kMinParallelIterations elements is reduced in up to kMinParallelTiles
/// chunks of whole steps by an scf.forall, each writing its two partial
/// vectors into its row of a [chunks, 2, 32] tensor, then one loop combines
/// the rows (minimum and maximum do not depend on the order).
struct MagnitudeRange {
  Value minimumMinusOne, maximum;
};

} // namespace

static MagnitudeRange buildMagnitudeRange(OpBuilder &builder, Location loc,
                                          Value value, bool parallel) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t count = type.getNumElements();
  ReassociationIndices all(type.getRank());
  std::iota(all.begin(), all.end(), 0);
  Value flat = type.getRank() == 1
                   ? value
                   : tensor::CollapseShapeOp::create(
                         builder, loc, value,
                         ArrayRef<ReassociationIndices>{all})
                         .getResult();
  Type i16 = builder.getI16Type();
  auto wordsType = VectorType::get({2 * kLanes}, i16);
  auto readType = VectorType::get({2 * kLanes}, builder.getBF16Type());
  auto splat = [&](OpBuilder &b, int64_t v) {
    return arith::ConstantOp::create(
               b, loc, DenseElementsAttr::get(wordsType, b.getIntegerAttr(i16, v)))
        .getResult();
  };
  Value padding = arith::ConstantOp::create(
      builder, loc, builder.getFloatAttr(builder.getBF16Type(), 0.0));
  // One step: the running minimum and maximum with 32 more elements.
  auto accumulate = [&](OpBuilder &b, Value index, bool inBounds,
                        Value minimum, Value maximum) {
    Value elements = vector::TransferReadOp::create(
        b, loc, readType, flat, ValueRange{index}, padding,
        ArrayRef<bool>{inBounds});
    Value words = vector::BitCastOp::create(b, loc, wordsType, elements);
    Value magnitude =
        arith::AndIOp::create(b, loc, words, splat(b, 0x7FFF));
    Value minusOne = arith::SubIOp::create(b, loc, magnitude, splat(b, 1));
    return std::make_pair(
        arith::MinUIOp::create(b, loc, minimum, minusOne).getResult(),
        arith::MaxUIOp::create(b, loc, maximum, magnitude).getResult());
  };
  int64_t step = 2 * kLanes, full = count / step * step;
  auto index = [&](OpBuilder &b, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  // The running minimum and maximum over [begin, end) from `minimum` and
  // `maximum`, one step of 32 elements at a time.
  auto accumulateRange = [&](OpBuilder &b, Value begin, Value end,
                             Value minimum, Value maximum) {
    auto loop = scf::ForOp::create(
        b, loc, begin, end, index(b, step), ValueRange{minimum, maximum},
        [&](OpBuilder &b, Location loc, Value i, ValueRange carried) {
          auto [minimum, maximum] =
              accumulate(b, i, /*inBounds=*/true, carried[0], carried[1]);
          scf::YieldOp::create(b, loc, ValueRange{minimum, maximum});
        });
    return std::make_pair(loop.getResult(0), loop.getResult(1));
  };
  Value minimum, maximum;
  int64_t chunks = std::min<int64_t>(kMinParallelTiles, full / step);
  if (parallel && count >= kMinParallelIterations && chunks >= 2) {
    // Chunks of whole steps on the threads, each writing its two partial
    // vectors into its row of a [chunks, 2, 32] tensor, then one loop
    // combining the rows: minimum and maximum do not depend on the order.
    int64_t chunkSize = full / step / chunks * step;
    auto partialsType = RankedTensorType::get({chunks, 2, 2 * kLanes}, i16);
    Value partials =
        tensor::EmptyOp::create(builder, loc, partialsType.getShape(), i16);
    auto forall = scf::ForallOp::create(
        builder, loc, ArrayRef<OpFoldResult>{builder.getIndexAttr(chunks)},
        ValueRange{partials}, std::nullopt,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value chunk = args[0], shared = args[1];
          Value begin =
              arith::MulIOp::create(b, loc, chunk, index(b, chunkSize));
          Value end = arith::AddIOp::create(b, loc, begin, index(b, chunkSize));
          auto [minimum, maximum] = accumulateRange(
              b, begin, end, splat(b, 0xFFFF), splat(b, 0));
          Value pair = tensor::EmptyOp::create(
              b, loc, ArrayRef<int64_t>{2, 2 * kLanes}, i16);
          Value vectors[] = {minimum, maximum};
          for (auto [row, vector] : llvm::enumerate(vectors))
            pair = vector::TransferWriteOp::create(
                       b, loc, vector, pair,
                       ValueRange{index(b, row), index(b, 0)},
                       ArrayRef<bool>{true})
                       .getResult();
          auto inParallel = scf::InParallelOp::create(b, loc);
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(inParallel.getBody());
          tensor::ParallelInsertSliceOp::create(
              b, loc, pair, shared,
              ArrayRef<OpFoldResult>{chunk, b.getIndexAttr(0),
                                     b.getIndexAttr(0)},
              ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(2),
                                     b.getIndexAttr(2 * kLanes)},
              ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1),
                                     b.getIndexAttr(1)});
        });
    Value rows = forall.getResult(0);
    auto combine = scf::ForOp::create(
        builder, loc, index(builder, 0), index(builder, chunks),
        index(builder, 1),
        ValueRange{splat(builder, 0xFFFF), splat(builder, 0)},
        [&](OpBuilder &b, Location loc, Value chunk, ValueRange carried) {
          auto read = [&](int64_t row) {
            return vector::TransferReadOp::create(
                       b, loc, wordsType, rows,
                       ValueRange{chunk, index(b, row), index(b, 0)},
                       arith::ConstantIntOp::create(b, loc, i16, 0),
                       ArrayRef<bool>{true})
                .getResult();
          };
          scf::YieldOp::create(
              b, loc,
              ValueRange{arith::MinUIOp::create(b, loc, carried[0], read(0)),
                         arith::MaxUIOp::create(b, loc, carried[1], read(1))});
        });
    minimum = combine.getResult(0);
    maximum = combine.getResult(1);
    // The steps the chunks leave (fewer than `chunks`), in one thread.
    if (chunks * chunkSize != full)
      std::tie(minimum, maximum) =
          accumulateRange(builder, index(builder, chunks * chunkSize),
                          index(builder, full), minimum, maximum);
  } else {
    std::tie(minimum, maximum) =
        accumulateRange(builder, index(builder, 0), index(builder, full),
                        splat(builder, 0xFFFF), splat(builder, 0));
  }
  if (full != count)
    std::tie(minimum, maximum) = accumulate(builder, index(builder, full),
                                            /*inBounds=*/false, minimum,
                                            maximum);
  auto reduce = [&](vector::CombiningKind kind, Value vector) {
    Value scalar = vector::ReductionOp::create(builder, loc, kind, vector);
    return arith::ExtUIOp::create(builder, loc, builder.getI32Type(), scalar)
        .getResult();
  };
  return {reduce(vector::CombiningKind::MINUI, minimum),
          reduce(vector::CombiningKind::MAXUI, maximum)};
}

/// The guard: true where the packed kernel computes the contraction's bits
/// (see the file comment).
static Value buildGuard(OpBuilder &builder, Location loc, Value a, Value b,
                        bool parallel) {
  MagnitudeRange ra = buildMagnitudeRange(builder, loc, a, parallel);
  MagnitudeRange rb = buildMagnitudeRange(builder, loc, b, parallel);
  Type i32 = builder.getI32Type();
  auto constant = [&](int32_t v) {
    return arith::ConstantIntOp::create(builder, loc, i32, v).getResult();
  };
  auto compare = [&](arith::CmpIPredicate predicate, Value lhs, int32_t rhs) {
    return arith::CmpIOp::create(builder, loc, predicate, lhs, constant(rhs))
        .getResult();
  };
  auto exponent = [&](Value magnitude) {
    return arith::ShRUIOp::create(builder, loc, magnitude, constant(7))
        .getResult();
  };
  auto smallest = [&](const MagnitudeRange &range) {
    return exponent(
        arith::AddIOp::create(builder, loc, range.minimumMinusOne, constant(1)));
  };
  SmallVector<Value> conditions = {
      // No denormal, infinity or NaN.
      compare(arith::CmpIPredicate::uge, ra.minimumMinusOne, 0x7F),
      compare(arith::CmpIPredicate::uge, rb.minimumMinusOne, 0x7F),
      compare(arith::CmpIPredicate::ult, ra.maximum, 0x7F80),
      compare(arith::CmpIPredicate::ult, rb.maximum, 0x7F80),
      // Every product normal and exact, every partial sum a multiple of a
      // normal power of two.
      compare(arith::CmpIPredicate::uge,
              arith::AddIOp::create(builder, loc, smallest(ra), smallest(rb)),
              142),
      compare(arith::CmpIPredicate::ule,
              arith::AddIOp::create(builder, loc, exponent(ra.maximum),
                                    exponent(rb.maximum)),
              380)};
  Value guard = conditions.front();
  for (Value condition : ArrayRef(conditions).drop_front())
    guard = arith::AndIOp::create(builder, loc, guard, condition);
  return guard;
}

Value bf16::buildTileNest(
    OpBuilder &builder, Location loc, Value dest, ArrayRef<int64_t> tripCounts,
    ArrayRef<OpFoldResult> sizes, bool parallel,
    llvm::function_ref<Value(OpBuilder &, Location, ValueRange, Value,
                             SmallVector<OpFoldResult> &)>
        computeTile) {
  SmallVector<OpFoldResult> strides(sizes.size(), builder.getIndexAttr(1));
  if (parallel && llvm::product_of(tripCounts) >= 2) {
    SmallVector<OpFoldResult> upper = llvm::map_to_vector(
        tripCounts, [&](int64_t v) -> OpFoldResult {
          return builder.getIndexAttr(v);
        });
    auto forall = scf::ForallOp::create(
        builder, loc, upper, ValueRange{dest}, std::nullopt,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          SmallVector<OpFoldResult> offsets;
          Value tile =
              computeTile(b, loc, args.drop_back(), args.back(), offsets);
          auto inParallel = scf::InParallelOp::create(b, loc);
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(inParallel.getBody());
          tensor::ParallelInsertSliceOp::create(b, loc, tile, args.back(),
                                                offsets, sizes, strides);
        });
    return forall.getResult(0);
  }
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(builder, loc, v).getResult();
  };
  SmallVector<Value> lower(tripCounts.size(), index(0)),
      steps(tripCounts.size(), index(1));
  SmallVector<Value> upper = llvm::map_to_vector(tripCounts, index);
  scf::LoopNest nest = scf::buildLoopNest(
      builder, loc, lower, upper, steps, ValueRange{dest},
      [&](OpBuilder &b, Location loc, ValueRange ivs, ValueRange carried) {
        SmallVector<OpFoldResult> offsets;
        Value tile = computeTile(b, loc, ivs, carried[0], offsets);
        return SmallVector<Value>{tensor::InsertSliceOp::create(
            b, loc, tile, carried[0], offsets, sizes, strides)};
      });
  return nest.results[0];
}

Value bf16::buildSliceNest(
    OpBuilder &builder, Location loc, Value dest, ArrayRef<int64_t> outer,
    bool parallel,
    llvm::function_ref<Value(OpBuilder &, Location, ValueRange, Value)> fill) {
  auto type = cast<RankedTensorType>(dest.getType());
  int64_t count = outer.size();
  auto sliceType = RankedTensorType::get(type.getShape().drop_front(count),
                                         type.getElementType());
  SmallVector<OpFoldResult> sizes(count, builder.getIndexAttr(1));
  for (int64_t size : sliceType.getShape())
    sizes.push_back(builder.getIndexAttr(size));
  SmallVector<OpFoldResult> strides(type.getRank(), builder.getIndexAttr(1));
  return buildTileNest(
      builder, loc, dest, outer, sizes, parallel,
      [&](OpBuilder &b, Location loc, ValueRange ivs, Value whole,
          SmallVector<OpFoldResult> &offsets) {
        offsets.assign(ivs.begin(), ivs.end());
        offsets.resize(type.getRank(), b.getIndexAttr(0));
        Value slice = tensor::ExtractSliceOp::create(b, loc, sliceType, whole,
                                                     offsets, sizes, strides);
        return fill(b, loc, ivs, slice);
      });
}

Value bf16::buildRotatedPairWords(OpBuilder &builder, Location loc,
                                  Value block) {
  auto wordsType = VectorType::get({kLanes, kLanes}, builder.getI32Type());
  Value sixteen = arith::ConstantOp::create(
      builder, loc,
      DenseElementsAttr::get(wordsType, builder.getI32IntegerAttr(16)));
  Value words = vector::BitCastOp::create(builder, loc, wordsType, block);
  Value rotated = arith::OrIOp::create(
      builder, loc, arith::ShLIOp::create(builder, loc, words, sixteen),
      arith::ShRUIOp::create(builder, loc, words, sixteen));
  return vector::TransposeOp::create(builder, loc, rotated,
                                     ArrayRef<int64_t>{1, 0});
}

Value bf16::readPackedRow(OpBuilder &builder, Location loc, Value packed,
                          Value panel, Value pair, int64_t column) {
  Value zero =
      arith::ConstantIntOp::create(builder, loc, builder.getI32Type(), 0);
  return vector::TransferReadOp::create(
             builder, loc, VectorType::get({kLanes}, builder.getI32Type()),
             packed,
             ValueRange{panel, pair,
                        arith::ConstantIndexOp::create(builder, loc, column)},
             zero, ArrayRef<bool>{true})
      .getResult();
}

Value bf16::buildPackedTile(OpBuilder &builder, Location loc, Value packedA,
                            Value packedB, Value tile, Value row, Value panel,
                            int64_t pairs, int64_t tileRows, int64_t panelWidth,
                            bool accumulate) {
  auto wordOfA = [&](OpBuilder &b, Location loc, Value pair, int64_t r) {
    Value pixel = arith::AddIOp::create(
        b, loc, row, arith::ConstantIndexOp::create(b, loc, r));
    return tensor::ExtractOp::create(b, loc, packedA, ValueRange{pair, pixel})
        .getResult();
  };
  auto rowOfB = [&](OpBuilder &b, Location loc, Value pair, int64_t column) {
    return readPackedRow(b, loc, packedB, panel, pair, column);
  };
  return buildPackedTile(builder, loc, wordOfA, rowOfB, tile, pairs, tileRows,
                         panelWidth, accumulate);
}

Value bf16::buildPackedTile(OpBuilder &builder, Location loc, WordOfA wordOfA,
                            RowOfB rowOfB, Value tile, int64_t pairs,
                            int64_t tileRows, int64_t panelWidth,
                            bool accumulate) {
  Type f32 = builder.getF32Type();
  auto accumulatorType = VectorType::get({kLanes}, f32);
  auto pairType = VectorType::get({2 * kLanes}, builder.getBF16Type());
  auto wordsType = VectorType::get({kLanes}, builder.getI32Type());
  Value zero = arith::ConstantOp::create(
      builder, loc,
      DenseElementsAttr::get(accumulatorType, builder.getFloatAttr(f32, 0.0)));
  auto index = [&](OpBuilder &b, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  int64_t vectorsPerRow = panelWidth / kLanes;
  SmallVector<Value> accumulators(tileRows * vectorsPerRow, zero);
  if (accumulate) {
    Value f32Padding =
        arith::ConstantOp::create(builder, loc, builder.getFloatAttr(f32, 0.0));
    for (int64_t r = 0; r < tileRows; ++r)
      for (int64_t c = 0; c < vectorsPerRow; ++c)
        accumulators[r * vectorsPerRow + c] = vector::TransferReadOp::create(
            builder, loc, accumulatorType, tile,
            ValueRange{index(builder, r), index(builder, c * kLanes)},
            f32Padding, ArrayRef<bool>{true});
  }
  auto loop = scf::ForOp::create(
      builder, loc, index(builder, 0), index(builder, pairs), index(builder, 1),
      accumulators,
      [&](OpBuilder &b, Location loc, Value pair, ValueRange carried) {
        SmallVector<Value> rowsOfB;
        for (int64_t c = 0; c < vectorsPerRow; ++c)
          rowsOfB.push_back(vector::BitCastOp::create(
              b, loc, pairType, rowOfB(b, loc, pair, c * kLanes)));
        SmallVector<Value> results;
        for (int64_t r = 0; r < tileRows; ++r) {
          Value word = wordOfA(b, loc, pair, r);
          Value pairs = vector::BitCastOp::create(
              b, loc, pairType,
              vector::BroadcastOp::create(b, loc, wordsType, word));
          for (int64_t c = 0; c < vectorsPerRow; ++c)
            // The broadcast as the second source, the one vdpbf16ps may
            // read from memory (m32bcst); the sum is the same with the
            // sources swapped (each lane's products are exact).
            results.push_back(x86vector::DotBF16Op::create(
                b, loc, accumulatorType, carried[r * vectorsPerRow + c],
                rowsOfB[c], pairs));
        }
        scf::YieldOp::create(b, loc, results);
      });
  for (int64_t r = 0; r < tileRows; ++r)
    for (int64_t c = 0; c < vectorsPerRow; ++c)
      tile = vector::TransferWriteOp::create(
                 builder, loc, loop.getResult(r * vectorsPerRow + c), tile,
                 ValueRange{index(builder, r), index(builder, c * kLanes)},
                 ArrayRef<bool>{true})
                 .getResult();
  return tile;
}

/// The packed kernel of `op` with shape `shape` into its output's init,
/// returning the result tensor.
static Value buildKernel(OpBuilder &builder, Location loc, linalg::LinalgOp op,
                         const ContractionShape &shape, bool parallel) {
  MLIRContext *context = builder.getContext();
  auto group = [](int64_t first, int64_t count) {
    ReassociationIndices indices(count);
    std::iota(indices.begin(), indices.end(), first);
    return indices;
  };
  // Each operand as a 3-d tensor, [batch, inner, outer] (A's [batch, rows,
  // K], B's [batch, K, columns]) or, where it is stored that way, swapped
  // to [batch, outer, inner] (A stored K-major, B column-major: the
  // transposed operands of a weight or attention gradient and of x·Wᵀ),
  // collapsed, with a unit batch dimension where the contraction has none;
  // `swapped` says which. Stored in another order, it is copied into
  // [batch, inner, outer] first (vectorised by mp-tile-and-vectorize).
  auto canonical = [&](OpOperand &operand, ArrayRef<unsigned> inner,
                       ArrayRef<unsigned> outer, bool &swapped) -> Value {
    Value value = operand.get();
    AffineMap map = op.getMatchingIndexingMap(&operand);
    auto orderOf = [&](ArrayRef<unsigned> first, ArrayRef<unsigned> second) {
      SmallVector<unsigned> dims(shape.batchDims);
      dims.append(first.begin(), first.end());
      dims.append(second.begin(), second.end());
      return dims;
    };
    auto indexesInOrder = [&](ArrayRef<unsigned> dims) {
      return map.getNumResults() == dims.size() &&
             llvm::all_of(llvm::enumerate(dims), [&](auto entry) {
               return map.getResult(entry.index()) ==
                      getAffineDimExpr(entry.value(), context);
             });
    };
    SmallVector<unsigned> dims = orderOf(inner, outer);
    swapped = !indexesInOrder(dims) && indexesInOrder(orderOf(outer, inner));
    if (swapped) {
      std::swap(inner, outer);
      dims = orderOf(inner, outer);
    } else if (!indexesInOrder(dims)) {
      SmallVector<AffineExpr> toOpLoops(op.getNumLoops(),
                                        getAffineConstantExpr(0, context));
      for (auto [i, d] : llvm::enumerate(dims))
        toOpLoops[d] = getAffineDimExpr(i, context);
      value = buildCopy(builder, loc, op, operand, shape.extentsOf(dims),
                        toOpLoops);
    }
    int64_t numBatch = shape.batchDims.size();
    SmallVector<ReassociationIndices> groups;
    if (numBatch)
      groups.push_back(group(0, numBatch));
    groups.push_back(group(numBatch, inner.size()));
    groups.push_back(group(numBatch + inner.size(), outer.size()));
    if (groups.size() != dims.size())
      value = tensor::CollapseShapeOp::create(builder, loc, value, groups);
    if (numBatch)
      return value;
    auto flat = cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> withBatch = {1};
    withBatch.append(flat.getShape().begin(), flat.getShape().end());
    return tensor::ExpandShapeOp::create(
               builder, loc,
               RankedTensorType::get(withBatch, flat.getElementType()), value,
               ArrayRef<ReassociationIndices>{{0, 1}, {2}})
        .getResult();
  };
  bool columnMajorA = false, rowMajorB = false;
  Value storedA =
      canonical(op->getOpOperand(0), shape.mDims, shape.kDims, columnMajorA);
  Value storedB =
      canonical(op->getOpOperand(1), shape.kDims, shape.nDims, rowMajorB);
  Type bf16 = builder.getBF16Type(), i32 = builder.getI32Type();
  auto index = [&](OpBuilder &b, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  int64_t pairs = shape.k / 2;
  auto panelType = RankedTensorType::get({pairs, kLanes}, i32);
  // A [batch, panels, K/2, 16] tensor of words of bf16 pairs (K = 2p in the
  // high half), panel by panel: `fillPanel(b, batchIndex, panel, dest)`
  // writes a panel's [K/2, 16] words into `dest`, its slice of the result
  // (so that bufferization writes in place). With `parallel`, and at least
  // kMinParallelIterations `elements` to pack, one panel an iteration of an
  // scf.forall.
  using FillPanel = llvm::function_ref<Value(OpBuilder &, Value, Value, Value)>;
  auto packPanels = [&](int64_t panels, int64_t elements,
                        FillPanel fillPanel) -> Value {
    Value packed = tensor::EmptyOp::create(
        builder, loc, ArrayRef<int64_t>{shape.batch, panels, pairs, kLanes},
        i32);
    return buildSliceNest(
        builder, loc, packed, {shape.batch, panels},
        parallel && elements >= kMinParallelIterations,
        [&](OpBuilder &b, Location, ValueRange ivs, Value slice) {
          return fillPanel(b, ivs[0], ivs[1], slice);
        });
  };

  // The panel of a [batch, lines, K] operand (A, or B stored column-major):
  // per 16 lines and 16 K pairs, a 16 x 32 block of bf16 read as 16 x 16
  // words, each rotated by 16 bits (K = 2p into the high half) and
  // transposed, so that a K pair's 16 lines are one row of words. (A K not
  // a multiple of 32 ends with a partial block.)
  Value bf16Padding =
      arith::ConstantOp::create(builder, loc, builder.getFloatAttr(bf16, 0.0));
  auto fillPanelOfLines = [&](Value source, OpBuilder &b, Value batchIndex,
                              Value panel, Value dest) {
    Value line = arith::MulIOp::create(b, loc, panel, index(b, kLanes));
    // The words of K pairs [first, first + count) into `dest`.
    auto packBlock = [&](OpBuilder &b, Value first, int64_t count,
                         Value dest) {
      Value column = arith::MulIOp::create(b, loc, first, index(b, 2));
      Value block = vector::TransferReadOp::create(
          b, loc, VectorType::get({kLanes, 2 * kLanes}, bf16), source,
          ValueRange{batchIndex, line, column}, bf16Padding,
          ArrayRef<bool>{true, count == kLanes});
      Value transposed = buildRotatedPairWords(b, loc, block);
      if (count < kLanes)
        transposed = vector::ExtractStridedSliceOp::create(
            b, loc, transposed, ArrayRef<int64_t>{0, 0},
            ArrayRef<int64_t>{count, kLanes}, ArrayRef<int64_t>{1, 1});
      return vector::TransferWriteOp::create(b, loc, transposed, dest,
                                             ValueRange{first, index(b, 0)},
                                             ArrayRef<bool>{true, true})
          .getResult();
    };
    int64_t full = pairs / kLanes * kLanes;
    if (full) {
      auto blocks = scf::ForOp::create(
          b, loc, index(b, 0), index(b, full), index(b, kLanes),
          ValueRange{dest},
          [&](OpBuilder &b, Location loc, Value first, ValueRange carried) {
            scf::YieldOp::create(b, loc,
                                 packBlock(b, first, kLanes, carried[0]));
          });
      dest = blocks.getResult(0);
    }
    if (pairs > full)
      dest = packBlock(b, index(b, full), pairs - full, dest);
    return dest;
  };

  // The panel of a [batch, K, lines] operand (B, or A stored K-major): for
  // each K pair, the panel's 16 lines as words of (K = 2p + 1, K = 2p)
  // pairs, the two rows interleaved.
  auto fillPanelOfKRows = [&](Value source, OpBuilder &b, Value batchIndex,
                              Value panel, Value dest) {
    auto rowType = VectorType::get({kLanes}, bf16);
    Value line = arith::MulIOp::create(b, loc, panel, index(b, kLanes));
    auto rows = scf::ForOp::create(
        b, loc, index(b, 0), index(b, pairs), index(b, 1), ValueRange{dest},
        [&](OpBuilder &b, Location loc, Value pair, ValueRange carried) {
          Value even = arith::MulIOp::create(b, loc, pair, index(b, 2));
          Value odd = arith::AddIOp::create(b, loc, even, index(b, 1));
          auto row = [&](Value k) {
            return vector::TransferReadOp::create(
                       b, loc, rowType, source, ValueRange{batchIndex, k, line},
                       bf16Padding, ArrayRef<bool>{true})
                .getResult();
          };
          Value interleaved =
              vector::InterleaveOp::create(b, loc, row(odd), row(even));
          Value words = vector::BitCastOp::create(
              b, loc, VectorType::get({kLanes}, b.getI32Type()), interleaved);
          scf::YieldOp::create(
              b, loc,
              vector::TransferWriteOp::create(b, loc, words, carried[0],
                                              ValueRange{pair, index(b, 0)},
                                              ArrayRef<bool>{true})
                  .getResult());
        });
    return rows.getResult(0);
  };
  // Both operands' words have the same layout whichever way they are
  // stored, so the kernel (and every bit) is the same.
  auto pack = [&](Value source, bool kInnermost, int64_t lines) {
    return packPanels(
        lines / kLanes, shape.batch * lines * shape.k,
        [&](OpBuilder &b, Value batchIndex, Value panel, Value dest) {
          return kInnermost
                     ? fillPanelOfLines(source, b, batchIndex, panel, dest)
                     : fillPanelOfKRows(source, b, batchIndex, panel, dest);
        });
  };
  static_assert(kTileRows == kLanes && kTileColumns == kLanes,
                "a panel of either operand is one vector of words wide");
  Value packedA = pack(storedA, /*kInnermost=*/!columnMajorA, shape.m);
  Value packedB = pack(storedB, /*kInnermost=*/rowMajorB, shape.n);

  // The result as [batch, M, N] ([M, N] without batch loops), expanded to
  // the output's shape at the end; every element is written by one tile,
  // so there is no zero fill to start from.
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<int64_t> flatShape;
  if (!shape.batchDims.empty())
    flatShape.push_back(shape.batch);
  flatShape.append({shape.m, shape.n});
  auto outputType =
      RankedTensorType::get(flatShape, resultType.getElementType());
  Value init = tensor::EmptyOp::create(builder, loc, outputType.getShape(),
                                       outputType.getElementType());
  unsigned rank = outputType.getRank();
  auto expandResult = [&](Value flat) -> Value {
    if (flat.getType() == resultType)
      return flat;
    SmallVector<ReassociationIndices> groups;
    int64_t first = 0;
    for (size_t count : {shape.batchDims.size(), shape.mDims.size(),
                         shape.nDims.size()}) {
      if (count == 0)
        continue;
      groups.push_back(group(first, count));
      first += count;
    }
    return tensor::ExpandShapeOp::create(builder, loc, resultType, flat,
                                         groups);
  };
  // The tile loops: batch, N panels, M tiles (the M tiles of a panel run
  // one after the other while the panel is in cache).
  SmallVector<int64_t> tripCounts = {shape.batch, shape.n / kTileColumns,
                                     shape.m / kTileRows};
  auto tileOffsets = [&](OpBuilder &b, ValueRange ivs) {
    SmallVector<OpFoldResult> offsets;
    if (!shape.batchDims.empty())
      offsets.push_back(ivs[0]);
    offsets.push_back(
        arith::MulIOp::create(b, loc, ivs[2], index(b, kTileRows)).getResult());
    offsets.push_back(arith::MulIOp::create(b, loc, ivs[1],
                                            index(b, kTileColumns))
                          .getResult());
    return offsets;
  };
  SmallVector<OpFoldResult> sizes(rank, builder.getIndexAttr(1));
  sizes[rank - 2] = builder.getIndexAttr(kTileRows);
  sizes[rank - 1] = builder.getIndexAttr(kTileColumns);
  SmallVector<OpFoldResult> strides(rank, builder.getIndexAttr(1));
  auto tileType = RankedTensorType::get({kTileRows, kTileColumns},
                                        outputType.getElementType());
  // The tile of panel ivs[1] and rows ivs[2] of batch ivs[0].
  auto computeTile = [&](OpBuilder &b, ValueRange ivs, Value output,
                         SmallVector<OpFoldResult> &offsets) {
    offsets = tileOffsets(b, ivs);
    Value tile = tensor::ExtractSliceOp::create(b, loc, tileType, output,
                                                offsets, sizes, strides);
    auto one = b.getIndexAttr(1), zero = b.getIndexAttr(0);
    Value panelOfA = tensor::ExtractSliceOp::create(
        b, loc, panelType, packedA,
        ArrayRef<OpFoldResult>{ivs[0], ivs[2], zero, zero},
        ArrayRef<OpFoldResult>{one, one, b.getIndexAttr(pairs),
                               b.getIndexAttr(kLanes)},
        SmallVector<OpFoldResult>(4, one));
    int64_t panels = shape.n / kTileColumns;
    Value panelsOfB = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get({panels, pairs, kLanes}, i32), packedB,
        ArrayRef<OpFoldResult>{ivs[0], zero, zero, zero},
        ArrayRef<OpFoldResult>{one, b.getIndexAttr(panels),
                               b.getIndexAttr(pairs), b.getIndexAttr(kLanes)},
        SmallVector<OpFoldResult>(4, one));
    return buildPackedTile(b, loc, panelOfA, panelsOfB, tile, index(b, 0),
                           ivs[1], pairs, kTileRows, kTileColumns);
  };

  return expandResult(buildTileNest(
      builder, loc, init, tripCounts, sizes,
      parallel &&
          shape.batch * shape.m * shape.n * shape.k >= kMinParallelIterations,
      [&](OpBuilder &b, Location, ValueRange ivs, Value output,
          SmallVector<OpFoldResult> &offsets) {
        return computeTile(b, ivs, output, offsets);
      }));
}

/// Moves the producers of `fallback`'s operands that nothing else reads (its
/// zero fill, an im2col or widening copy only it takes, and so on up) to
/// just before it, into the else branch it now sits in, so that the kernel's
/// path does not compute them; in unguarded mode (`fallback` erased, so they
/// have no use left) erases them. Only side-effect-free linalg, tensor
/// reshape and bufferization.alloc_tensor ops move.
static void sinkIntoFallback(ArrayRef<Value> operands, Operation *fallback) {
  for (Value operand : operands) {
    Operation *producer = operand.getDefiningOp();
    if (!producer ||
        !isa<linalg::LinalgOp, tensor::CollapseShapeOp,
             tensor::ExpandShapeOp, bufferization::AllocTensorOp>(producer) ||
        (isa<linalg::LinalgOp>(producer) &&
         !cast<linalg::LinalgOp>(producer).hasPureTensorSemantics()))
      continue;
    if (fallback ? !producer->hasOneUse() ||
                       *producer->user_begin() != fallback
                 : !producer->use_empty())
      continue;
    SmallVector<Value> producerOperands(producer->getOperands());
    if (fallback) {
      producer->moveBefore(fallback);
      sinkIntoFallback(producerOperands, producer);
    } else {
      producer->erase();
      sinkIntoFallback(producerOperands, nullptr);
    }
  }
}

/// Replaces `op` (one result) by an scf.if on `guard` whose then branch
/// yields `buildKernel`'s value and whose else branch is `op` itself, with
/// what only it reads (sinkIntoFallback).
static void replaceGuarded(Operation *op, Value guard,
                           function_ref<Value(OpBuilder &)> buildKernel) {
  OpBuilder builder(op);
  Location loc = op->getLoc();
  auto branch = scf::IfOp::create(builder, loc, op->getResultTypes(), guard,
                                  /*addThenBlock=*/true,
                                  /*addElseBlock=*/true);
  builder.setInsertionPointToStart(branch.thenBlock());
  scf::YieldOp::create(builder, loc, buildKernel(builder));
  // The original op itself is the fallback.
  op->replaceAllUsesWith(branch.getResults());
  op->moveBefore(branch.elseBlock(), branch.elseBlock()->end());
  builder.setInsertionPointToEnd(branch.elseBlock());
  scf::YieldOp::create(builder, loc, op->getResults());
  sinkIntoFallback(SmallVector<Value>(op->getOperands()), op);
}

namespace {

struct BF16DotProducts
    : public mp::impl::MPBF16DotProductsBase<BF16DotProducts> {
  using Base::Base;

  void runOnOperation() override {
    rewriteEach<linalg::LinalgOp>(
        matchContraction,
        [](linalg::LinalgOp op, const ContractionShape &) {
          return std::make_pair(op.getDpsInputs()[0], op.getDpsInputs()[1]);
        },
        buildKernel);
    // Filter gradients (implicit, of bf16 data widened to f32).
    rewriteEach<linalg::GenericOp>(
        matchImplicitGradFilter,
        [](linalg::GenericOp, const GradFilterShape &shape) {
          return std::make_pair(shape.inputBF16, shape.gradientBF16);
        },
        [&](OpBuilder &builder, Location loc, linalg::GenericOp op,
            const GradFilterShape &shape, bool parallel) {
          return buildGradFilterKernel(builder, loc, op, shape, parallel,
                                       pairWordsBudget);
        });
    // Convolutions (implicit GEMMs of bf16 data widened to f32), guarded on
    // the bf16 sources: the padded input's other elements are zeros, which
    // change neither bound. Where every user reads the result transposed to
    // [N, F, OH, OW] (an image a block), the kernel writes that layout and
    // the users read it directly.
    // The im2col form (a width stride of 2) likewise: the kernel reads the
    // padded input, the im2col moves into the else branch.
    auto convGuardOperands = [](linalg::LinalgOp, const ConvShape &shape) {
      return std::make_pair(shape.inputBF16, shape.filterBF16);
    };
    std::vector<std::pair<linalg::LinalgOp, ConvShape>> convolutions;
    getOperation().walk([&](linalg::LinalgOp op) {
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (std::optional<ConvShape> shape =
              generic ? matchImplicitConv(generic) : matchIm2colConv(op))
        convolutions.emplace_back(op, *shape);
    });
    for (auto &[op, shape] : convolutions) {
      if (std::optional<SmallVector<ChannelMajorUse>> uses =
              matchChannelMajorUses(op, shape))
        rewriteChannelMajor(op, shape, *uses);
      else
        rewrite(op, shape, convGuardOperands, buildConvKernel);
    }
  }

  /// Gives the convolution `op` the channel-major kernel and makes `uses`
  /// read its [N, F, OH, OW] result (behind the guard, the op's result
  /// collapsed and transposed to it is the fallback); a user left copying
  /// that result unchanged is replaced by it.
  void rewriteChannelMajor(linalg::LinalgOp op, ConvShape shape,
                           ArrayRef<ChannelMajorUse> uses) {
    shape.channelMajor = true;
    auto collapse = cast<tensor::CollapseShapeOp>(*op->user_begin());
    OpBuilder builder(op);
    Location loc = op.getLoc();
    Type f32 = builder.getF32Type();
    auto type = RankedTensorType::get(
        {shape.batch, shape.filters, shape.outH, shape.outW}, f32);
    Value result;
    if (unguarded) {
      result = buildConvKernel(builder, loc, op, shape, parallel);
    } else {
      Value guard = buildGuard(builder, loc, shape.inputBF16,
                               shape.filterBF16, parallel);
      auto branch = scf::IfOp::create(builder, loc, TypeRange{type}, guard,
                                      /*addThenBlock=*/true,
                                      /*addElseBlock=*/true);
      builder.setInsertionPointToStart(branch.thenBlock());
      scf::YieldOp::create(builder, loc,
                           buildConvKernel(builder, loc, op, shape, parallel));
      // The fallback: the op, its [N·OH·OW, F] rows copied to the layout.
      op->moveBefore(branch.elseBlock(), branch.elseBlock()->end());
      builder.setInsertionPointToEnd(branch.elseBlock());
      Value rows = tensor::CollapseShapeOp::create(
          builder, loc, op->getResult(0), collapse.getReassociationIndices());
      Value empty = tensor::EmptyOp::create(builder, loc, type.getShape(), f32);
      MLIRContext *context = builder.getContext();
      auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
      AffineMap rowsMap = AffineMap::get(
          4, 0,
          {d(0) * (shape.outH * shape.outW) + d(2) * shape.outW + d(3), d(1)},
          context);
      auto copy = linalg::GenericOp::create(
          builder, loc, TypeRange{type}, ValueRange{rows}, ValueRange{empty},
          ArrayRef<AffineMap>{rowsMap,
                              AffineMap::getMultiDimIdentityMap(4, context)},
          SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
          [](OpBuilder &b, Location loc, ValueRange args) {
            linalg::YieldOp::create(b, loc, args[0]);
          });
      scf::YieldOp::create(builder, loc, copy.getResult(0));
      result = branch.getResult(0);
      sinkIntoFallback(SmallVector<Value>(op->getOperands()), op);
    }
    for (const ChannelMajorUse &use : uses) {
      auto user = cast<linalg::GenericOp>(use.operand->getOwner());
      SmallVector<AffineMap> maps = user.getIndexingMapsArray();
      maps[use.operand->getOperandNumber()] = use.map;
      use.operand->set(result);
      user.setIndexingMapsAttr(builder.getAffineMapArrayAttr(maps));
      replaceIdentityCopy(user);
    }
    collapse.erase();
    if (unguarded) {
      SmallVector<Value> operands(op->getOperands());
      op->erase();
      sinkIntoFallback(operands, nullptr);
    }
  }

  /// Replaces `op` by its input when it copies that input unchanged (one
  /// input and result of the same type, identity maps, parallel loops, the
  /// payload yielding the input element) and no terminator (a function's
  /// return: its own result buffer) takes the copy.
  static void replaceIdentityCopy(linalg::GenericOp op) {
    if (llvm::any_of(op->getUsers(), [](Operation *user) {
          return user->hasTrait<OpTrait::IsTerminator>();
        }))
      return;
    if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
        op.getNumReductionLoops() != 0 ||
        op.getDpsInputs()[0].getType() != op.getResult(0).getType() ||
        !llvm::all_of(op.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isIdentity(); }))
      return;
    Block &body = op.getRegion().front();
    if (body.getOperations().size() != 1 ||
        body.getTerminator()->getOperand(0) != body.getArgument(0))
      return;
    op.getResult(0).replaceAllUsesWith(op.getDpsInputs()[0]);
    op.erase();
  }

  /// Gives each op of type OpTy that `match` takes (returning its shape) the
  /// kernel `build` makes, behind the guard on the two tensors
  /// `guardOperands` names (the op itself the fallback, replaceGuarded), or
  /// in its place with `unguarded`.
  template <typename OpTy, typename Match, typename GuardOperands,
            typename Build>
  void rewriteEach(Match match, GuardOperands guardOperands, Build build) {
    using Shape =
        typename decltype(match(std::declval<OpTy>()))::value_type;
    std::vector<std::pair<OpTy, Shape>> matched;
    getOperation().walk([&](OpTy op) {
      if (std::optional<Shape> shape = match(op))
        matched.emplace_back(op, *shape);
    });
    for (auto &entry : matched)
      rewrite(entry.first, entry.second, guardOperands, build);
  }

  /// Gives `op` (of shape `shape`) the kernel `build` makes, behind the
  /// guard on `guardOperands` (see rewriteEach).
  template <typename OpTy, typename Shape, typename GuardOperands,
            typename Build>
  void rewrite(OpTy op, const Shape &shape, GuardOperands guardOperands,
               Build build) {
    OpBuilder builder(op);
    Location loc = op.getLoc();
    if (unguarded) {
      op->replaceAllUsesWith(
          ValueRange{build(builder, loc, op, shape, parallel)});
      SmallVector<Value> operands(op->getOperands());
      op->erase();
      sinkIntoFallback(operands, nullptr);
      return;
    }
    auto [a, b] = guardOperands(op, shape);
    Value guard = buildGuard(builder, loc, a, b, parallel);
    replaceGuarded(op, guard, [&](OpBuilder &nested) {
      return build(nested, loc, op, shape, parallel);
    });
  }
};

} // namespace
