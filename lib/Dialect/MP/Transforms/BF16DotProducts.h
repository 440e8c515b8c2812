//===- BF16DotProducts.h - Pieces of mp-bf16-dot-products ------*- C++ -*-===//
//
// Internal to lib/Dialect/MP/Transforms: what the files of
// mp-bf16-dot-products share. BF16DotProducts.cpp holds the pass (the guard,
// the matmul and batch-matmul kernel, the register tile that every kernel
// builds) and uses the convolution kernels of BF16ConvKernels.cpp (implicit
// GEMM convolutions and filter gradients on bf16 data), which build their
// tiles with buildPackedTile. Where the guard holds, every kernel computes the
// bits of the contraction it replaces (see BF16DotProducts.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef MP_LIB_DIALECT_MP_TRANSFORMS_BF16DOTPRODUCTS_H
#define MP_LIB_DIALECT_MP_TRANSFORMS_BF16DOTPRODUCTS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>

namespace mlir::mp::bf16 {

//===----------------------------------------------------------------------===//
// The register tile and what every kernel matches (BF16DotProducts.cpp)
//===----------------------------------------------------------------------===//

/// Rows and columns of the contractions' register tile: 16 x 1 vector of
/// 16 f32, so that each broadcast word of A feeds one dot product and LLVM
/// folds it into the product (`vdpbf16ps zmm, zmm, m32{1to16}`).
inline constexpr int64_t kTileRows = 16;
inline constexpr int64_t kTileColumns = 16;
inline constexpr int64_t kLanes = 16;

/// True when `value` is a linalg.fill of a floating-point zero.
bool isZeroFill(Value value);

/// Computes the tileRows x panelWidth tile at (row, panel) of a contraction
/// or convolution from its packed operands over `pairs` K pairs into `tile`
/// and returns it: A as [K/2, rows] and B as [columns/width, K/2, width]
/// words of bf16 pairs (K = 2p in the high half, the element vdpbf16ps adds
/// first), so that a broadcast word of A is the pair of its row in
/// ascending K; each broadcast feeds width/16 dot products (one with the
/// 16 x 16 tile, which LLVM then folds into the product as a memory
/// operand). The sums start from zero, or with `accumulate` from the
/// tile's values (a sum continued over more K pairs: the same chain).
Value buildPackedTile(OpBuilder &builder, Location loc, Value packedA,
                      Value packedB, Value tile, Value row, Value panel,
                      int64_t pairs, int64_t tileRows, int64_t panelWidth,
                      bool accumulate = false);

/// The word of A (an i32: a bf16 pair, K = 2p in the high half) that row `r`
/// of a tile broadcasts at K pair `pair`, built at the builder's point.
using WordOfA =
    llvm::function_ref<Value(OpBuilder &, Location, Value pair, int64_t r)>;

/// The 16 words of B (vector<16xi32>, bf16 pairs as for WordOfA) of the
/// tile's columns `column` .. `column` + 15 at K pair `pair`.
using RowOfB = llvm::function_ref<Value(OpBuilder &, Location, Value pair,
                                        int64_t column)>;

/// buildPackedTile with A and B read through `wordOfA` and `rowOfB` instead
/// of packed tensors (e.g. A straight from pair words of an image, or the
/// filters as rows and the pixels as columns).
Value buildPackedTile(OpBuilder &builder, Location loc, WordOfA wordOfA,
                      RowOfB rowOfB, Value tile, int64_t pairs,
                      int64_t tileRows, int64_t panelWidth,
                      bool accumulate = false);

/// Computes `dest` tile by tile and returns it: for each point `ivs` of the
/// loops of extents `tripCounts`, `computeTile(b, loc, ivs, whole, offsets)`
/// returns the tile's value and sets its `offsets` in `whole` (sizes
/// `sizes`, unit strides; the tile may be rank-reduced). With `parallel`
/// (and two tiles or more) the loops are an scf.forall (each tile written by
/// tensor.parallel_insert_slice), else scf.for loops in order.
Value buildTileNest(
    OpBuilder &builder, Location loc, Value dest, ArrayRef<int64_t> tripCounts,
    ArrayRef<OpFoldResult> sizes, bool parallel,
    llvm::function_ref<Value(OpBuilder &, Location, ValueRange, Value,
                             SmallVector<OpFoldResult> &)>
        computeTile);

/// Fills `dest` slice by slice and returns it: the slices of size 1 in its
/// leading dimensions of extents `outer` and whole in the others, each
/// `fill(b, loc, ivs, slice)`'s new value of the slice (rank-reduced to the
/// other dimensions; written in place). With `parallel` (and two slices or
/// more) the slices are the iterations of an scf.forall, else of scf.for
/// loops in order.
Value buildSliceNest(
    OpBuilder &builder, Location loc, Value dest, ArrayRef<int64_t> outer,
    bool parallel,
    llvm::function_ref<Value(OpBuilder &, Location, ValueRange, Value)> fill);

/// The words of bf16 pairs of a 16 x 32 `block` of bf16 (16 rows of 16
/// neighbouring pairs, K = 2p in the low half as stored) with each pair
/// rotated (K = 2p into the high half, the element vdpbf16ps adds first) and
/// the 16 x 16 words transposed: a K pair's 16 rows one vector.
Value buildRotatedPairWords(OpBuilder &builder, Location loc, Value block);

/// The 16 words at [panel, pair, column .. column + 15] of a packed
/// [panels, K/2, width] operand (B's layout).
Value readPackedRow(OpBuilder &builder, Location loc, Value packed,
                    Value panel, Value pair, int64_t column);

//===----------------------------------------------------------------------===//
// Convolutions: the implicit GEMM of convert-mp-to-linalg on bf16 data
// (BF16ConvKernels.cpp)
//===----------------------------------------------------------------------===//

/// An implicit GEMM convolution (convert-mp-to-linalg's buildImplicitConv,
/// one group) the conv kernel takes: loops (n, oh, owb, r, f, c, kh, kw),
/// out[n, oh, owb, r, f] += in[n, c, oh·sh + kh·dh, owb·P + r + kw·dw] ·
/// w[c, kh, kw, f] summed over (c, kh, kw) in loop order into a zero fill,
/// both f32 operands widened copies of bf16 tensors (getBF16Source).
struct ConvShape {
  Value input, filter;         // The f32 operands.
  Value inputBF16, filterBF16; // Their bf16 sources (for the guard).
  int64_t batch, outH, outW, filters, channels, kernelH, kernelW;
  int64_t strideH, dilationH, dilationW;
  int64_t strideW = 1; // 1, or 2 in the im2col form.
  /// The im2col copy of the input (matchIm2colConv), which only the
  /// fallback needs; null for the implicit GEMM.
  linalg::GenericOp im2col;
  int64_t panelWidth, tileRows; // The kernel's tile: rows x panelWidth.
  int64_t blockImages;          // Images whose A is packed at a time.
  /// Whether the kernel writes [N, F, OH, OW] (tiles of 16 filters x 16
  /// pixels, the pixels of a tile in one image: blockImages 1) instead of
  /// the op's [N, OH, OWB, P, F].
  bool channelMajor = false;

  int64_t m() const { return batch * outH * outW; }
  int64_t k() const { return channels * kernelH * kernelW; }
};

/// The shape of `op` when it is an implicit GEMM convolution the conv
/// kernel computes: besides ConvShape's form, F a multiple of 16, C·KH·KW
/// even, OW at most 64 (a row of pixels is one vector of the packing copy)
/// and the fewest images whose pixels are whole tiles of rows dividing N.
std::optional<ConvShape> matchImplicitConv(linalg::GenericOp op);

/// The shape of `op` when it is the other form of convert-mp-to-linalg's
/// pixel-major convolution the conv kernel computes: a product of an im2col
/// copy in panels of P pixels [N·OH·OW/P, C·KH·KW, P] (a linalg.generic
/// copying the padded input at in[n, c, oh·sh + kh·dh, (owb·P + r)·sw +
/// kw·dw], a width stride sw of 1 or 2) and the filter [C·KH·KW, F] into
/// [N·OH·OW/P, P, F] from a zero fill, both f32 operands widened bf16 (the
/// padded input's and the filter's sources), with matchImplicitConv's
/// conditions on the shape. The kernel reads the padded input itself; the
/// im2col (`im2col`) is only the fallback's.
std::optional<ConvShape> matchIm2colConv(linalg::LinalgOp op);

/// The conv kernel of `op` (shape `shape`), returning its result: the
/// filter packed as B [F/width, K/2, 2·width] (like the contractions' B);
/// then, for each block of images (an scf.forall over the blocks with
/// `parallel`), the block's padded input packed as A [K/2, 2·rows] (rows of
/// pixels, K = (c, kh, kw), each pair swapped; one vector per row of output
/// pixels and K index, rounded to bf16, exact since the elements are
/// bf16's), small enough to stay in cache, and the block's tiles of rows x
/// width, each output element summed over the K pairs in ascending K. With
/// `shape.channelMajor` the tiles are 16 filters (broadcast words of B) x 16
/// pixels (a row of A's words) and the result is [N, F, OH, OW].
Value buildConvKernel(OpBuilder &builder, Location loc, linalg::LinalgOp op,
                      const ConvShape &shape, bool parallel);

/// A user of an implicit convolution's result that reads it as [N·OH·OW, F]
/// (through a tensor.collapse_shape): its operand, and the indexing map that
/// reads the same elements from the [N, F, OH, OW] result of a
/// channel-major kernel.
struct ChannelMajorUse {
  OpOperand *operand;
  AffineMap map;
};

/// The uses of the implicit convolution `op` (shape `shape`, one image per
/// block) when its result's one use is a collapse to [N·OH·OW, F] whose every
/// user is a linalg.generic input with a map (..., n·OH·OW + oh·OW + ow, f)
/// over loops n, oh, ow of extents at most (N, OH, OW) and a loop f; nullopt
/// otherwise.
std::optional<SmallVector<ChannelMajorUse>>
matchChannelMajorUses(linalg::LinalgOp op, const ConvShape &shape);

/// An implicit filter gradient (convert-mp-to-linalg's
/// buildImplicitGradFilter, one group) the conv kernel takes: loops (kh, kw,
/// c, f, n, oh, ow), out[kh, kw, c, f] += in[n, c, oh·sh + kh·dh, ow·sw +
/// kw·dw] · g[n, oh, ow, f] summed over (n, oh, ow) in loop order into a
/// zero fill, both f32 operands widened copies of bf16 tensors; a width
/// stride sw of 1 or 2.
struct GradFilterShape {
  Value input, gradient;         // The f32 operands.
  Value inputBF16, gradientBF16; // Their bf16 sources (for the guard).
  /// The gradient as bf16 [N, F, OH, OW] when `gradient` is its widened
  /// transpose (convert-mp-to-linalg's dYᵀ, one group): B is then packed
  /// from it, and the transposing copy is only the fallback's. Else null.
  Value gradientChannelMajor;
  int64_t kernelH, kernelW, channels, filters, batch, outH, outW;
  int64_t strideH, strideW, dilationH, dilationW;
  int64_t panelWidth, tileRows; // Tiles of (kh, kw, c) rows x filters.

  int64_t m() const { return kernelH * kernelW * channels; }
  int64_t pairsPerImage() const { return outH * outW / 2; }
};

/// The shape of `op` when it is an implicit filter gradient the conv kernel
/// computes: besides GradFilterShape's form, C and F multiples of 16 and OW
/// even (the K pairs are pixel pairs of a row).
std::optional<GradFilterShape> matchImplicitGradFilter(linalg::GenericOp op);

/// The conv kernel of the filter gradient `op` (shape `shape`): its
/// gradient packed as B [N, F/width, OH·OW/2, width] words first; then for
/// each block of images in order (the most images, dividing N, whose words
/// take at most `pairWordsBudget` bytes), their padded input made pair words
/// [images, 2·sw, C, rows, words] (a K pair is two neighbouring pixels of a
/// row; phase k's word j holds the columns 2·sw·j + k and 2·sw·j + k + sw, K
/// even in the high half), which every (kh, kw) broadcasts from, and every
/// tile of (kh, kw, c) rows x filters of the [KH·KW·C, F] result continues
/// its sums over the block's images' K pairs, image by image (from the zero
/// fill for the first image): each sum one chain over (n, oh, ow) in
/// ascending order. With `parallel` a block's pair words and its tiles are
/// each an scf.forall.
Value buildGradFilterKernel(OpBuilder &builder, Location loc,
                            linalg::GenericOp op, const GradFilterShape &shape,
                            bool parallel, int64_t pairWordsBudget);

} // namespace mlir::mp::bf16

#endif // MP_LIB_DIALECT_MP_TRANSFORMS_BF16DOTPRODUCTS_H
