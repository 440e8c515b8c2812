//===- TileAndVectorize.h - Pieces of mp-tile-and-vectorize -----*- C++ -*-===//
//
// Internal to lib/Dialect/MP/Transforms: what the files of
// mp-tile-and-vectorize share. TileAndVectorize.cpp holds the pass (tile sizes,
// tiling, vectorisation, the cleanup patterns) and uses the pieces declared
// here: the register tiles of contractions, the packing of their operands and
// implicit-GEMM convolutions (TileAndVectorizeContractions.cpp), transposing
// and linearised elementwise operations (TileAndVectorizeTransposes.cpp), and
// the fusion of accumulator fills into their contractions' tile loops
// (TileAndVectorizeFills.cpp). Every rewrite keeps the bits of the scalar loops
// (see TileAndVectorize.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef MP_LIB_DIALECT_MP_TRANSFORMS_TILEANDVECTORIZE_H
#define MP_LIB_DIALECT_MP_TRANSFORMS_TILEANDVECTORIZE_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace mlir::mp::tiling {

//===----------------------------------------------------------------------===//
// Tile sizes (TileAndVectorize.cpp)
//===----------------------------------------------------------------------===//

/// The tile size for a loop of `extent` iterations given the requested
/// `size`: a divisor of `extent` not above `size`, preferring multiples of
/// 16, then 8, 4 and 2 (whole SIMD registers) and then the largest.
int64_t chooseTileSize(int64_t extent, int64_t size);

/// True when `op` has reduction loops, f64 outputs and no f64 input: sums
/// of narrower values in f64 (PyTorch's batch-norm statistics). Along the
/// vector such a sum is one chain of dependent f64 additions (the ordered
/// vector.reduction adds the lanes one by one); across its outputs each
/// vector addition advances as many independent sums.
bool isWideningSum(linalg::LinalgOp op);

//===----------------------------------------------------------------------===//
// Contractions and implicit convolutions (TileAndVectorizeContractions.cpp)
//===----------------------------------------------------------------------===//

/// The unit attribute that marks a product of two widened f16 values
/// (markExactProducts) for fuseExactProducts.
inline constexpr StringLiteral kExactProduct = "mp.exact_product";

/// Marks (kExactProduct), in the payload of `op`, every product `a * b`
/// (`arith.mulf`, no fast-math flags) used only by a sum `c + a * b`
/// (`arith.addf`, no fast-math flags) whose factors are both widened f16
/// values (isWidenedHalf: the FP16 AMP contractions). Such a product is
/// exact: the product of two f16 values has at most 22 significant bits and
/// an exponent within f32's normal range (2^-48 to 2^32), so the sum rounds
/// once whether it is fused or not. Not so for bf16 factors (their products
/// can overflow f32 or fall below its normal range) nor for f32 ones
/// (rounded products). The mark survives packing, which replaces the
/// widenings by widened panels, and tiling, which clones the payload.
void markExactProducts(linalg::GenericOp op);

/// Replaces, in the payload of the tile `op`, every sum `c + a * b` whose
/// product is marked exact (markExactProducts) by `math.fma(a, b, c)`: the
/// same bits in one instruction. Only in tiles without reduction loops (K
/// tiled by 1): the vectoriser recognises a reduction by its combining
/// `arith.addf`, which an FMA would hide.
void fuseExactProducts(RewriterBase &rewriter, linalg::GenericOp op);

/// The default register tile of contractions (M, N, K) for the host: M rows
/// of N-element f32 vectors as accumulators. With AVX-512 (32 registers of
/// 16 f32 lanes) 16 rows of one register: 16 accumulators and one B
/// register, each A element used by one multiplication, so that LLVM folds
/// its broadcast into it (`vmulps m32{1to16}`). An 8 x 32 tile uses each
/// broadcast twice, so it stays a separate vbroadcastss, which on Zen 4
/// occupies the vector pipes the products and sums need: 80 GFLOP/s a core
/// against 117 for the folded 16 x 16 tile (tools/bench/cpu_matmul.py,
/// docs/performance.md). Otherwise (AVX2's 16 registers of 8 lanes, or other
/// targets) 4 rows of 16 lanes.
SmallVector<int64_t> getHostMatmulTileSizes();

/// The contraction dimensions of `op`, when it is a contraction with M, N
/// and K loops.
std::optional<linalg::ContractionDimensions> getMatmulDims(linalg::LinalgOp op);

/// The M and N loops of an implicit-GEMM convolution (the product of a
/// convolution read from its padded input, not from an im2col): a
/// linalg.generic with two inputs, one output and reduction loops whose
/// payload adds the product of its inputs (possibly extended) to the
/// output, the output and the second input (the filter, or the transposed
/// output gradient of a filter gradient) read with projected permutations
/// and the first (the input) with sums of loops (oh·sh + kh·dh, owb·P + r +
/// kw·dw). N is the output's innermost loop, which the second input reads
/// and the input does not; M the last parallel loop the input and the
/// output read and the second input does not: r, the pixels of an output
/// row (unit stride in the input), or, in a filter gradient (loops (kh, kw,
/// c, f, n, oh, ow)), c, the channels (a column of the input, as a
/// matmul's A read in place). Tiled with both in the vector and the
/// reductions by 1, a tile is the outer product of M input elements and a
/// row of N filters (the reduction loops' unit tiles dropped, every map of
/// the tile is a projected permutation).
std::optional<std::pair<unsigned, unsigned>>
getImplicitConvDims(linalg::LinalgOp op);

/// Annotates the scf.for `loop` for LLVM not to unroll it: an LLVM loop
/// annotation (`llvm.loop.unroll.disable`) under llvm.br's name for it,
/// which convert-scf-to-cf carries to the loop's latch branch.
void keepRolled(Operation *loop);

/// The reduction loops of the implicit-GEMM convolution `op` (M loop `m`,
/// getImplicitConvDims) that shift its rows of input: those read in the
/// same input dimension as `m` (kw, in owb·P + r + kw·dw). Consecutive
/// steps of such a loop read overlapping rows (pixel r at kw + 1 reads the
/// element of pixel r + 1 at kw), so, were LLVM to unroll the loop, it
/// would load such an element once for both products, a broadcast into a
/// register (`vbroadcastss zmm, m32`) instead of a broadcast memory operand
/// folded into each multiplication: on Zen 4, a 7 x 16 tile's loop runs at
/// 90 GFLOP/s so against 117 with every broadcast folded (a C
/// microbenchmark of the two instruction sequences). tile() keeps such
/// loops rolled (keepRolled), so that each product reads its element with
/// a load of its own. Empty for a filter gradient (its M loop, the
/// channels, shares no input dimension with a reduction loop).
SmallVector<unsigned> getRolledLoops(linalg::LinalgOp op, unsigned m);

/// Makes the N·K operand of the dot contraction `op` (both operands
/// contiguous along K, as the linear layer's A·Bᵀ) an K·N operand by a
/// linalg.transpose in front of it, so that the contraction reads rows of
/// N along which it vectorises its outputs. A transpose moves values
/// exactly; the sums keep their order. Contractions whose M extent is below
/// `minM` are left alone: the transpose would cost as much as the product.
void transposeDotOperand(RewriterBase &rewriter, linalg::GenericOp op,
                         int64_t minM);

/// The float type every use of the payload argument `argument` extends it
/// to (`arith.extf`), with those extensions in `extensions`; null (and no
/// extensions) when it has a use that is not such an extension.
FloatType getWidening(BlockArgument argument,
                      SmallVectorImpl<arith::ExtFOp> &extensions);

/// Packs both inputs of the contraction `op` (packOperand): A into panels
/// of `mPanel` rows along its innermost M loop, then B into panels of
/// `nPanel` columns along its innermost N loop, so that the loop over B's
/// panels is outermost and the one over A's next (all A panels run while a
/// B panel is in cache). Contractions of a single N panel, or whose M
/// extent is below `minM`, are left alone; A is left as it is when it has a
/// single panel, and when its rows are contiguous along K and the panel
/// has at most kMaxInPlaceRows rows: the tile then broadcasts each of its M
/// elements per K step from M rows (as from a packed panel, without the
/// transposing copy), A only widened where the payload widens it
/// (widenOperand). Returns whether B was packed.
bool packContraction(RewriterBase &rewriter, linalg::GenericOp &op,
                     int64_t mPanel, int64_t nPanel, int64_t minM);

/// transpose(broadcast(v : vector<M>) : vector<N x M>, [1, 0]) as
/// broadcast(shape_cast(v) : vector<M x 1>) : vector<M x N>: row i is a
/// splat of v[i]. A contraction tile reads its packed M panel (M contiguous
/// values per k) so; lowered as written, the broadcast and the transpose
/// become shuffles of the flattened M·N lanes (256-lane masks for an 8 × 32
/// tile, most of the step's LLVM dialect text), where the stretch is one
/// splat per row. The values are the same.
struct TransposeOfBroadcastToStretch
    : public OpRewritePattern<vector::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::TransposeOp transpose,
                                PatternRewriter &rewriter) const override;
};

/// Replaces each stretching read of the vectorised implicit-convolution tile
/// whose first input (the convolution's input, getImplicitConvDims) is
/// `input` (a vector.transfer_read of M elements along one dimension of
/// `input`, each splat across a row of N: permutation map (d, 0)) by M
/// scalar reads (tensor.extract, extended one by one where the payload
/// extends them), each splat across its row (from_elements, then the
/// stretching broadcast). Read as a vector, the M elements reach
/// LLVM as one vector load whose lanes it splats with shuffles (a row of 7
/// split into pieces of 4, 2 and 1 lanes, the 2 lanes a `vmovsd` and
/// register broadcasts): shuffles on the vector pipes the multiplications
/// and additions need. Read one by one, each element is a scalar load that
/// LLVM folds into its multiplication as a broadcast memory operand
/// (`vmulps m32{1to16}`) where it has one use (getRolledLoops). The values
/// are the same. Reads that are not statically in bounds or are masked are
/// left as they are.
void readStretchedElements(RewriterBase &rewriter, Value input);

//===----------------------------------------------------------------------===//
// Transposing elementwise operations (TileAndVectorizeTransposes.cpp)
//===----------------------------------------------------------------------===//

/// Replaces each input of the elementwise generic `op` (static loops, all
/// parallel) that it reads at linearised loops (a dimension indexed by
/// Σ loop·stride, the strides those of a row-major array of the loops'
/// extents, their product the dimension's size) by its tensor.expand_shape
/// into those extents, read at the loops themselves: the convolutions'
/// products read back as N(HW)C rows (`(n·28 + h)·28 + w, c` of a
/// 25088x16 tensor), whose maps the vectoriser rejects, are then read
/// through projected permutations (of a 32x28x28x16 view). The same
/// elements are read. Inputs read otherwise (sums with offsets, strides
/// that are not a row-major array's) are left as they are; so is `op` when
/// an expanded map would not be a projected permutation.
void delinearizeInputs(RewriterBase &rewriter, linalg::GenericOp op);

/// The loops (s, d) of a transposing elementwise operation: d its
/// getOutputLoop, and an input of rank 2 or more that is read along d and
/// whose innermost dimension is another loop, s (NCHW <-> N(HW)C: the input
/// contiguous along the channels or the pixels, the output along the
/// other). Tiled by a block of both (and by 1 elsewhere), a tile reads rows
/// of that input along s, transposes them in registers and writes rows
/// along d.
std::optional<std::pair<unsigned, unsigned>>
getTransposeLoops(linalg::LinalgOp op);

/// Collapses, in the elementwise operation `op`, each run of consecutive
/// loops that holds a loop its vectors run along and that every operand
/// reads as consecutive dimensions in that order (the h and w of NCHW)
/// into one loop (linalg::collapseOpIterationDims: the operands are
/// collapsed, the results expanded back), so that its vectors can be whole
/// registers: the 784 pixels of a 28x28 image are 49 vectors of 16 where 28
/// has no divisor of 8 or 16. The loops its vectors run along: the s and d
/// of a transposing operation (getTransposeLoops), else its outputs'
/// innermost loop (getOutputLoop) where its extent is not a multiple of
/// `vectorSize`. The same elements are computed. Operations whose results
/// are returned, or with an operand that is a tensor.extract_slice, are left
/// as they are.
void collapseContiguousLoops(RewriterBase &rewriter, linalg::GenericOp &op,
                             int64_t vectorSize);

/// The loops (r, p) of a transposed widening sum (isWideningSum, in
/// prepareTransposedSum's form): p, its last loop, a parallel loop every
/// output has as its innermost dimension (the channels), and r, the loop
/// before it, a reduction loop every input read along p has as its innermost
/// dimension (the pixels), of 32-bit elements; both extents multiples of
/// `vectorSize`. Tiled by a block of both (and by 1 elsewhere), a tile reads
/// rows of its input along r, transposes them in registers and adds the rows
/// along p, one after the other, to the sums.
std::optional<std::pair<unsigned, unsigned>>
getTransposedSumLoops(linalg::LinalgOp op, int64_t vectorSize);

/// Makes the widening sum `op` (isWideningSum) across the outputs' innermost
/// loop p of inputs contiguous along a reduction loop r (a batch norm's
/// per-channel sums of an NCHW tensor) a transposed sum
/// (getTransposedSumLoops): the run of reduction loops ending at r that every
/// operand reads as consecutive dimensions (h, w) collapsed into one
/// (linalg::collapseOpIterationDims), then p moved after every other loop
/// (linalg::interchangeGenericOp; the reduction loops keep their order, so
/// each sum adds its elements in the same order). Left as it is unless the
/// collapsed run and p are multiples of `vectorSize`, and when its result is
/// returned or an operand is a tensor.extract_slice.
void prepareTransposedSum(RewriterBase &rewriter, linalg::GenericOp &op,
                          int64_t vectorSize);

/// vector.multi_reduction of a rows x N vector along its rows (a transposed
/// sum's tile) as `rows` elementwise combinations into the accumulator, row
/// 0 first: each lane adds its elements in order, as the ordered lowering
/// that transposes the vector first would, without the transpose.
struct OuterReductionToRows
    : public OpRewritePattern<vector::MultiDimReductionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::MultiDimReductionOp reduction,
                                PatternRewriter &rewriter) const override;
};

/// arith.extf(vector.transpose(x)) as vector.transpose(arith.extf(x)) where x
/// is read as it is stored (a minor identity vector.transfer_read) and the
/// extension is to 32 bits: a transposing block (getTransposeLoops) of 16-bit
/// floats the payload extends to f32 is transposed as f32 lanes. The same
/// values. (A transposed broadcast is left to TransposeOfBroadcastToStretch.)
struct ExtensionOfTranspose : public OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::ExtFOp extension,
                                PatternRewriter &rewriter) const override;
};

//===----------------------------------------------------------------------===//
// Accumulator fills (TileAndVectorizeFills.cpp)
//===----------------------------------------------------------------------===//

/// True when `op` is a fill: a linalg.fill, or the generic it generalises
/// to (one scalar input, yielded as it is, all loops parallel).
bool isFill(Operation *op);

/// True when `fill` (isFill) has uses and each is the destination of a
/// linalg operation with reduction loops (a contraction's accumulator).
bool isAccumulatorFill(linalg::LinalgOp fill);

/// True when the destination of the linalg operation `op`, which has
/// reduction loops, is a fill's result (isFill).
bool hasFilledDestination(Operation *op);

/// Fuses the fill that makes the destination of the tiled operation `tiled`
/// (hasFilledDestination before tiling: the zero accumulator of a
/// contraction) into the tile loops `loops`, which are parallel loops only,
/// so that each tile fills its own slice: vectorised, a constant the tile's
/// accumulators start from in registers (the fill's write and the tile's
/// read of it fold away), and the loops' destination becomes the fill's (an
/// empty tensor): no memset, no reading the zeros back. Each output element
/// still starts from the fill's value and is summed in its order. Returns
/// the fused fills, which are vectorised before `tiled`.
SmallVector<Operation *>
fuseFilledDestinations(RewriterBase &rewriter, Operation *tiled,
                       MutableArrayRef<LoopLikeOpInterface> loops);

/// Replaces each reshape (tensor.expand_shape, tensor.collapse_shape) of a
/// fill (isFill) of a tensor.empty by a fill of a tensor.empty of the
/// reshaped type: the packed contractions' outputs (packOperand expands the
/// zero accumulator into panels), whose fills fuseFilledDestinations then
/// finds as their destinations' producers. Same values, no copy.
void refillReshapedFills(RewriterBase &rewriter, func::FuncOp function);

/// tensor.insert_slice %x into %t where %t is written into %d by a
/// destination-style operation (vector.transfer_write, tensor.insert_slice)
/// and the slice is all of %t → tensor.insert_slice %x into %d: what the
/// operation put in %t is overwritten. A fill fused into a contraction's tile
/// loops (fuseFilledDestinations) writes its zeros into the tile's slice,
/// which the contraction reads from registers (the read of the zeros
/// folds into the constant) and then overwrites; left there, the write
/// made bufferization copy the tile through a new buffer.
struct InsertOverWrite : public OpRewritePattern<tensor::InsertSliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::InsertSliceOp insert,
                                PatternRewriter &rewriter) const override;
};

} // namespace mlir::mp::tiling

#endif // MP_LIB_DIALECT_MP_TRANSFORMS_TILEANDVECTORIZE_H
