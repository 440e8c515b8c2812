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
// vector addition); contractions along their N loop are M
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
//===----------------------------------------------------------------------===//

#include "mp/Dialect/MP/Transforms/Passes.h"
#include "mp/Dialect/MP/Transforms/Threading.h"

#include "mlir/Analysis/FlatLinearValueConstraints.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
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
#include "llvm/TargetParser/Host.h"

#include <numeric>

namespace mlir::mp {
#define GEN_PASS_DEF_MPTILEANDVECTORIZE
#include "mp/Dialect/MP/Transforms/Passes.h.inc"
} // namespace mlir::mp

using namespace mlir;
using namespace mlir::mp;

namespace {

/// The rows (independent vector accumulators) of a tile whose sums are
/// carried across its reduction loops: enough to cover the latency of a
/// vector addition or multiply-add (3-4 cycles, two per cycle).
static constexpr int64_t kReductionRows = 4;

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

/// True when `value` is an f16 value widened to f32 or f64 (`arith.extf`).
static bool isWidenedHalf(Value value) {
  auto extension = value.getDefiningOp<arith::ExtFOp>();
  return extension && extension.getIn().getType().isF16() &&
         (extension.getType().isF32() || extension.getType().isF64());
}

/// The unit attribute that marks a product of two widened f16 values
/// (markExactProducts) for fuseExactProducts.
static constexpr StringLiteral kExactProduct = "mp.exact_product";

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
static void markExactProducts(linalg::GenericOp op) {
  op.getBody()->walk([](arith::MulFOp product) {
    if (product.getFastmath() != arith::FastMathFlags::none ||
        !product->hasOneUse() || !isWidenedHalf(product.getLhs()) ||
        !isWidenedHalf(product.getRhs()))
      return;
    auto sum = dyn_cast<arith::AddFOp>(*product->user_begin());
    if (sum && sum.getFastmath() == arith::FastMathFlags::none)
      product->setAttr(kExactProduct, UnitAttr::get(product.getContext()));
  });
}

/// Replaces, in the payload of the tile `op`, every sum `c + a * b` whose
/// product is marked exact (markExactProducts) by `math.fma(a, b, c)`: the
/// same bits in one instruction. Only in tiles without reduction loops (K
/// tiled by 1): the vectoriser recognises a reduction by its combining
/// `arith.addf`, which an FMA would hide.
static void fuseExactProducts(RewriterBase &rewriter, linalg::GenericOp op) {
  if (op.getNumReductionLoops() != 0)
    return;
  SmallVector<arith::MulFOp> products;
  op.getBody()->walk([&](arith::MulFOp product) {
    if (product->hasAttr(kExactProduct) && product->hasOneUse() &&
        isa<arith::AddFOp>(*product->user_begin()))
      products.push_back(product);
  });
  for (arith::MulFOp product : products) {
    auto sum = cast<arith::AddFOp>(*product->user_begin());
    Value addend = sum.getLhs() == product.getResult() ? sum.getRhs()
                                                       : sum.getLhs();
    rewriter.setInsertionPoint(sum);
    rewriter.replaceOpWithNewOp<math::FmaOp>(sum, product.getLhs(),
                                             product.getRhs(), addend);
    rewriter.eraseOp(product);
  }
}

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
static SmallVector<int64_t> getHostMatmulTileSizes() {
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  if (features.lookup("avx512f"))
    return {16, 16, 1};
  return {4, 16, 1};
}

/// The most rows of A a tile reads in place (getKContiguousInput): each row
/// is a stream through L1, and more streams than its ways (8 on Zen 4)
/// evict each other where the row stride is a multiple of 4 KiB (K = 1024
/// f32): 45 against 92 GFLOP/s for 16 rows. Taller tiles read packed
/// panels.
constexpr int64_t kMaxInPlaceRows = 8;

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

/// The contraction dimensions of `op`, when it is a contraction with M, N
/// and K loops.
static std::optional<linalg::ContractionDimensions>
getMatmulDims(linalg::LinalgOp op) {
  if (!linalg::isaContractionOpInterface(op))
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.empty() || dims->n.empty() || dims->k.empty())
    return std::nullopt;
  return *dims;
}

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
static std::optional<std::pair<unsigned, unsigned>>
getImplicitConvDims(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() == 0)
    return std::nullopt;
  AffineMap inputMap = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap filterMap = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
  AffineMap outputMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (inputMap.isProjectedPermutation() ||
      !filterMap.isProjectedPermutation() ||
      !outputMap.isProjectedPermutation() || outputMap.getNumResults() == 0)
    return std::nullopt;
  // The payload: yield(out + a·b), a and b the inputs, possibly extended.
  Block *body = op.getBlock();
  auto sum = dyn_cast_or_null<arith::AddFOp>(
      body->getTerminator()->getOperand(0).getDefiningOp());
  if (!sum || sum.getLhs() != body->getArgument(2))
    return std::nullopt;
  auto product = sum.getRhs().getDefiningOp<arith::MulFOp>();
  auto reaches = [&](Value value, unsigned argument) {
    if (auto extension = value.getDefiningOp<arith::ExtFOp>())
      value = extension.getIn();
    return value == body->getArgument(argument);
  };
  if (!product || !reaches(product.getLhs(), 0) ||
      !reaches(product.getRhs(), 1))
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  auto nExpr = dyn_cast<AffineDimExpr>(outputMap.getResults().back());
  if (!nExpr || !filterMap.isFunctionOfDim(nExpr.getPosition()) ||
      inputMap.isFunctionOfDim(nExpr.getPosition()))
    return std::nullopt;
  std::optional<unsigned> m;
  for (unsigned d = 0, e = iterators.size(); d < e; ++d)
    if (iterators[d] == utils::IteratorType::parallel &&
        inputMap.isFunctionOfDim(d) && outputMap.isFunctionOfDim(d) &&
        !filterMap.isFunctionOfDim(d))
      m = d;
  if (!m)
    return std::nullopt;
  return std::make_pair(*m, nExpr.getPosition());
}

/// Annotates the scf.for `loop` for LLVM not to unroll it: an LLVM loop
/// annotation (`llvm.loop.unroll.disable`) under llvm.br's name for it,
/// which convert-scf-to-cf carries to the loop's latch branch.
static void keepRolled(Operation *loop) {
  MLIRContext *context = loop->getContext();
  auto unroll = LLVM::LoopUnrollAttr::get(
      context, /*disable=*/BoolAttr::get(context, true), /*count=*/{},
      /*runtimeDisable=*/{}, /*full=*/{}, /*followupUnrolled=*/{},
      /*followupRemainder=*/{}, /*followupAll=*/{});
  loop->setAttr(LLVM::BrOp::getLoopAnnotationAttrName(
                    OperationName(LLVM::BrOp::getOperationName(), context)),
                LLVM::LoopAnnotationAttr::get(
                    context, /*disableNonforced=*/{}, /*vectorize=*/{},
                    /*interleave=*/{}, unroll, /*unrollAndJam=*/{}, /*licm=*/{},
                    /*distribute=*/{}, /*pipeline=*/{}, /*peeled=*/{},
                    /*unswitch=*/{}, /*mustProgress=*/{}, /*isVectorized=*/{},
                    /*startLoc=*/{}, /*endLoc=*/{}, /*parallelAccesses=*/{}));
}

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
static SmallVector<unsigned> getRolledLoops(linalg::LinalgOp op, unsigned m) {
  AffineMap inputMap = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<unsigned> loops;
  for (AffineExpr result : inputMap.getResults()) {
    if (!result.isFunctionOfDim(m))
      continue;
    for (unsigned d = 0, e = iterators.size(); d < e; ++d)
      if (iterators[d] == utils::IteratorType::reduction &&
          result.isFunctionOfDim(d))
        loops.push_back(d);
  }
  return loops;
}

/// Makes the N·K operand of the dot contraction `op` (both operands
/// contiguous along K, as the linear layer's A·Bᵀ) an K·N operand by a
/// linalg.transpose in front of it, so that the contraction reads rows of
/// N along which it vectorises its outputs. A transpose moves values
/// exactly; the sums keep their order. Contractions whose M extent is below
/// `minM` are left alone: the transpose would cost as much as the product.
static void transposeDotOperand(RewriterBase &rewriter, linalg::GenericOp op,
                                int64_t minM) {
  std::optional<linalg::ContractionDimensions> dims = getMatmulDims(op);
  if (!dims || !isDotContraction(op, dims->k.back()))
    return;
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  int64_t m = 1;
  for (unsigned d : dims->m)
    m *= extents[d];
  if (ShapedType::isDynamicShape(extents) || m < minM)
    return;
  MLIRContext *context = rewriter.getContext();
  AffineExpr n = getAffineDimExpr(dims->n.back(), context);
  AffineExpr k = getAffineDimExpr(dims->k.back(), context);
  for (OpOperand *operand : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(operand);
    auto nPos = llvm::find(map.getResults(), n) - map.getResults().begin();
    auto kPos = llvm::find(map.getResults(), k) - map.getResults().begin();
    if (nPos == map.getNumResults() || kPos == map.getNumResults())
      continue;
    auto type = dyn_cast<RankedTensorType>(operand->get().getType());
    if (!type)
      return;
    SmallVector<int64_t> permutation =
        llvm::to_vector(llvm::seq<int64_t>(0, map.getNumResults()));
    std::swap(permutation[nPos], permutation[kPos]);
    SmallVector<int64_t> shape(type.getShape());
    std::swap(shape[nPos], shape[kPos]);
    SmallVector<AffineExpr> results(map.getResults());
    std::swap(results[nPos], results[kPos]);

    rewriter.setInsertionPoint(op);
    Location loc = op.getLoc();
    Value init =
        tensor::EmptyOp::create(rewriter, loc, shape, type.getElementType());
    Value transposed = linalg::TransposeOp::create(rewriter, loc,
                                                   operand->get(), init,
                                                   permutation)
                           ->getResult(0);
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    maps[operand->getOperandNumber()] = AffineMap::get(
        map.getNumDims(), map.getNumSymbols(), results, context);
    rewriter.modifyOpInPlace(op, [&] {
      operand->set(transposed);
      op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
    return;
  }
}

/// The float type every use of the payload argument `argument` extends it
/// to (`arith.extf`), with those extensions in `extensions`; null (and no
/// extensions) when it has a use that is not such an extension.
static FloatType getWidening(BlockArgument argument,
                             SmallVectorImpl<arith::ExtFOp> &extensions) {
  FloatType widened;
  for (Operation *user : argument.getUsers()) {
    auto extension = dyn_cast<arith::ExtFOp>(user);
    if (!extension || (widened && extension.getType() != widened)) {
      extensions.clear();
      return FloatType();
    }
    widened = cast<FloatType>(extension.getType());
    extensions.push_back(extension);
  }
  return widened;
}

/// A linalg.generic writing `input` extended to `widened` (exact) into a new
/// tensor of `shape`: its element i is element `inputMap`(i) of `input`.
static Value createWidening(OpBuilder &builder, Location loc, Value input,
                            AffineMap inputMap, ArrayRef<int64_t> shape,
                            FloatType widened) {
  Value init = tensor::EmptyOp::create(builder, loc, shape, widened);
  unsigned rank = shape.size();
  return linalg::GenericOp::create(
             builder, loc, TypeRange{init.getType()}, ValueRange{input},
             ValueRange{init},
             ArrayRef<AffineMap>{inputMap, AffineMap::getMultiDimIdentityMap(
                                               rank, builder.getContext())},
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [&](OpBuilder &nested, Location loc, ValueRange arguments) {
               Value wide =
                   arith::ExtFOp::create(nested, loc, widened, arguments[0]);
               linalg::YieldOp::create(nested, loc, wide);
             })
      .getResult(0);
}

/// Packs the input of the contraction `op` indexed by its loop `loop` (B
/// for an N loop, A for an M loop) into panels of `panel` elements along
/// that loop: the operand is expanded ([..., L, ...] -> [..., L/panel,
/// panel, ...], a tensor.expand_shape) and transposed (a linalg.transpose:
/// values are moved exactly) to its dimensions other than the reduction
/// ones and the panel's, in their order, then the reduction dimensions, in
/// their order, then the panel's. `op` becomes a generic with a new
/// outermost loop over the panels (its output expanded and collapsed back
/// the same way). Tiled, a tile then reads one contiguous panel row per K
/// step, whatever the operand's layout was (A of the weight gradient Aᵀ·B
/// is read along M, a stride of M elements per K step otherwise). An
/// operand the payload only widens (`arith.extf` of f16/bf16 values, the
/// AMP contractions) is widened while packing instead (a linalg.generic
/// that moves and extends: exact), so the tile reads f32 panels and no
/// inner-loop step converts. The products and the order of each sum are
/// unchanged. Returns whether `op` was packed: not when `loop` is not a
/// plain dimension of exactly one input and of the output.
static bool packOperand(RewriterBase &rewriter, linalg::GenericOp &op,
                        unsigned loop, int64_t panel) {
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      ShapedType::isDynamicShape(extents) || extents[loop] % panel != 0)
    return false;
  MLIRContext *context = rewriter.getContext();
  AffineExpr loopExpr = getAffineDimExpr(loop, context);
  // The input indexed by `loop`.
  OpOperand *x = nullptr;
  for (OpOperand *operand : op.getDpsInputOperands()) {
    if (!llvm::is_contained(op.getMatchingIndexingMap(operand).getResults(),
                            loopExpr))
      continue;
    if (x)
      return false;
    x = operand;
  }
  OpOperand *c = op.getDpsInitOperand(0);
  auto xType = dyn_cast<RankedTensorType>(x ? x->get().getType() : Type());
  auto cType = dyn_cast<RankedTensorType>(c->get().getType());
  AffineMap cMap = op.getMatchingIndexingMap(c);
  auto cPos =
      llvm::find(cMap.getResults(), loopExpr) - cMap.getResults().begin();
  if (!xType || !cType || cPos == cMap.getNumResults() ||
      !cMap.isProjectedPermutation())
    return false;
  AffineMap xMap = op.getMatchingIndexingMap(x);
  int64_t xPos =
      llvm::find(xMap.getResults(), loopExpr) - xMap.getResults().begin();

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  // [..., L, ...] -> [..., L/panel, panel, ...] at `pos`.
  auto expand = [&](Value value, RankedTensorType type, int64_t pos) {
    SmallVector<int64_t> shape(type.getShape());
    shape[pos] = extents[loop] / panel;
    shape.insert(shape.begin() + pos + 1, panel);
    SmallVector<ReassociationIndices> groups;
    for (int64_t i = 0, e = type.getRank(); i < e; ++i) {
      int64_t at = groups.empty() ? 0 : groups.back().back() + 1;
      groups.push_back(i == pos ? ReassociationIndices{at, at + 1}
                                : ReassociationIndices{at});
    }
    auto expandedType = RankedTensorType::get(shape, type.getElementType());
    return std::make_pair(
        tensor::ExpandShapeOp::create(rewriter, loc, expandedType, value,
                                      groups)
            .getResult(),
        groups);
  };
  Value xExpanded = expand(x->get(), xType, xPos).first;
  // The expanded operand's dimensions in the packed order, and the packed
  // operand's map (the panel loop is the new loop 0; op's loops shift by
  // one).
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  AffineExpr panelExpr = getAffineDimExpr(0, context);
  SmallVector<AffineExpr> xResults;
  for (AffineExpr result : xMap.shiftDims(1).getResults()) {
    if (result == loopExpr.shiftDims(extents.size(), 1))
      xResults.append({panelExpr, result});
    else
      xResults.push_back(result);
  }
  auto isReduction = [&](AffineExpr result) {
    auto dim = dyn_cast<AffineDimExpr>(result);
    return dim && dim.getPosition() > 0 &&
           iterators[dim.getPosition() - 1] != utils::IteratorType::parallel;
  };
  SmallVector<int64_t> permutation;
  for (int64_t i = 0, e = xResults.size(); i < e; ++i)
    if (i != xPos + 1 && !isReduction(xResults[i]))
      permutation.push_back(i);
  for (int64_t i = 0, e = xResults.size(); i < e; ++i)
    if (i != xPos + 1 && isReduction(xResults[i]))
      permutation.push_back(i);
  permutation.push_back(xPos + 1);
  SmallVector<int64_t> packedShape;
  SmallVector<AffineExpr> packedResults;
  for (int64_t i : permutation) {
    packedShape.push_back(
        cast<RankedTensorType>(xExpanded.getType()).getDimSize(i));
    packedResults.push_back(xResults[i]);
  }
  // The type every use of the operand in the payload extends it to, if any.
  BlockArgument xArgument = op.getMatchingBlockArgument(x);
  SmallVector<arith::ExtFOp> extensions;
  FloatType widened = getWidening(xArgument, extensions);
  Value packed;
  if (widened) {
    // Element i of the packed operand is element permutation[i] of the
    // expanded one.
    SmallVector<AffineExpr> inputResults(permutation.size());
    for (auto [i, from] : llvm::enumerate(permutation))
      inputResults[from] = getAffineDimExpr(i, context);
    packed = createWidening(
        rewriter, loc, xExpanded,
        AffineMap::get(permutation.size(), 0, inputResults, context),
        packedShape, widened);
  } else {
    Value packedInit = tensor::EmptyOp::create(rewriter, loc, packedShape,
                                               xType.getElementType());
    packed = linalg::TransposeOp::create(rewriter, loc, xExpanded, packedInit,
                                         permutation)
                 ->getResult(0);
  }
  auto [cExpanded, cGroups] = expand(c->get(), cType, cPos);

  // The loops: the panel loop first, then op's loops (shifted by one).
  unsigned numLoops = extents.size() + 1;
  SmallVector<AffineMap> maps;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand).shiftDims(1);
    SmallVector<AffineExpr> results(map.getResults());
    if (&operand == x)
      results = packedResults;
    else if (&operand == c)
      results.insert(results.begin() + cPos, panelExpr);
    maps.push_back(AffineMap::get(numLoops, 0, results, context));
  }
  SmallVector<utils::IteratorType> newIterators{utils::IteratorType::parallel};
  llvm::append_range(newIterators, iterators);
  SmallVector<Value> inputs;
  for (OpOperand *operand : op.getDpsInputOperands())
    inputs.push_back(operand == x ? packed : operand->get());
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{cExpanded.getType()}, inputs,
      ValueRange{cExpanded}, maps, newIterators);
  rewriter.inlineRegionBefore(op.getRegion(), generic.getRegion(),
                              generic.getRegion().begin());
  if (!extensions.empty()) {
    // The payload reads the widened value directly.
    rewriter.modifyOpInPlace(generic, [&] { xArgument.setType(widened); });
    for (arith::ExtFOp extension : extensions)
      rewriter.replaceOp(extension, xArgument);
  }
  Value collapsed = tensor::CollapseShapeOp::create(
      rewriter, loc, cType, generic.getResult(0), cGroups);
  rewriter.replaceOp(op, collapsed);
  op = generic;
  return true;
}

/// The input of the contraction `op` indexed by its loop `loop` when it is
/// the only one and its innermost dimension is the loop `k` (its rows are
/// contiguous along K), else null.
static OpOperand *getKContiguousInput(linalg::GenericOp op, unsigned loop,
                                      unsigned k) {
  OpOperand *x = nullptr;
  for (OpOperand *operand : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(operand);
    if (!llvm::is_contained(map.getResults(),
                            getAffineDimExpr(loop, op.getContext())))
      continue;
    if (x)
      return nullptr;
    x = operand;
  }
  if (!x || !isa<RankedTensorType>(x->get().getType()))
    return nullptr;
  AffineMap map = op.getMatchingIndexingMap(x);
  if (map.getResults().back() != getAffineDimExpr(k, op.getContext()))
    return nullptr;
  return x;
}

/// Widens the input `x` of `op` where the payload only widens it
/// (`arith.extf` of f16/bf16 values, the AMP contractions) by an
/// elementwise linalg.generic in its own layout (exact), so that the tiles
/// read f32 rows and no inner-loop step converts; leaves other inputs
/// alone.
static void widenOperand(RewriterBase &rewriter, linalg::GenericOp op,
                         OpOperand *x) {
  BlockArgument argument = op.getMatchingBlockArgument(x);
  SmallVector<arith::ExtFOp> extensions;
  FloatType widened = getWidening(argument, extensions);
  if (!widened)
    return;
  auto type = cast<RankedTensorType>(x->get().getType());
  rewriter.setInsertionPoint(op);
  Value wide = createWidening(
      rewriter, op.getLoc(), x->get(),
      AffineMap::getMultiDimIdentityMap(type.getRank(), rewriter.getContext()),
      type.getShape(), widened);
  rewriter.modifyOpInPlace(op, [&] {
    x->set(wide);
    argument.setType(widened);
  });
  for (arith::ExtFOp extension : extensions)
    rewriter.replaceOp(extension, argument);
}

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
static bool packContraction(RewriterBase &rewriter, linalg::GenericOp &op,
                            int64_t mPanel, int64_t nPanel, int64_t minM) {
  std::optional<linalg::ContractionDimensions> dims = getMatmulDims(op);
  if (!dims)
    return false;
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  if (ShapedType::isDynamicShape(extents))
    return false;
  unsigned m = dims->m.back(), n = dims->n.back();
  int64_t mExtent = 1;
  for (unsigned d : dims->m)
    mExtent *= extents[d];
  nPanel = chooseTileSize(extents[n], nPanel);
  mPanel = chooseTileSize(extents[m], mPanel);
  if (mExtent < minM || extents[n] / nPanel < 2)
    return false;
  OpOperand *rows = mPanel <= kMaxInPlaceRows
                        ? getKContiguousInput(op, m, dims->k.back())
                        : nullptr;
  if (rows)
    widenOperand(rewriter, op, rows);
  else if (extents[m] / mPanel >= 2 && packOperand(rewriter, op, m, mPanel))
    ++n; // The N loop moved behind A's panel loop.
  return packOperand(rewriter, op, n, nPanel);
}

/// True when `op` has reduction loops, f64 outputs and no f64 input: sums
/// of narrower values in f64 (PyTorch's batch-norm statistics). Along the
/// vector such a sum is one chain of dependent f64 additions (the ordered
/// vector.reduction adds the lanes one by one); across its outputs each
/// vector addition advances as many independent sums.
static bool isWideningSum(linalg::LinalgOp op) {
  auto isF64 = [](OpOperand *operand) {
    return getElementTypeOrSelf(operand->get().getType()).isF64();
  };
  return op.getNumReductionLoops() > 0 && op.getNumDpsInits() > 0 &&
         llvm::all_of(op.getDpsInitsMutable(),
                      [&](OpOperand &init) { return isF64(&init); }) &&
         llvm::none_of(op.getDpsInputOperands(), isF64);
}

/// The loop of `op` its tiles are vectors along: a parallel loop or the
/// last reduction loop (a sum along it keeps its order: the vector is
/// reduced in order into the accumulator), the one most inputs have as
/// their innermost dimension (contiguous), then the one the outputs have,
/// then the innermost; for a widening sum (isWideningSum), the parallel
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
  unsigned best = numLoops - 1;
  std::pair<int64_t, int64_t> bestScore = {-1, -1};
  bool acrossOutputs =
      isWideningSum(op) && llvm::any_of(llvm::seq(numLoops), [&](unsigned d) {
        return iterators[d] == utils::IteratorType::parallel &&
               innermostCount(d, outputs) > 0;
      });
  for (unsigned d = 0; d < numLoops; ++d) {
    if (iterators[d] != utils::IteratorType::parallel &&
        (d != lastReduction || acrossOutputs))
      continue;
    std::pair<int64_t, int64_t> score = {
        innermostCount(d, op.getDpsInputOperands()),
        innermostCount(d, outputs)};
    if (score >= bestScore) {
      best = d;
      bestScore = score;
    }
  }
  return best;
}

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
static void delinearizeInputs(RewriterBase &rewriter, linalg::GenericOp op) {
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
    rewriter.modifyOpInPlace(op, [&] { input->set(expanded); });
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

/// The loops (s, d) of a transposing elementwise operation: d its
/// getOutputLoop, and an input of rank 2 or more that is read along d and
/// whose innermost dimension is another loop, s (NCHW <-> N(HW)C: the input
/// contiguous along the channels or the pixels, the output along the
/// other). Tiled by a block of both (and by 1 elsewhere), a tile reads rows
/// of that input along s, transposes them in registers and writes rows
/// along d.
static std::optional<std::pair<unsigned, unsigned>>
getTransposeLoops(linalg::LinalgOp op) {
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
static void collapseContiguousLoops(RewriterBase &rewriter,
                                    linalg::GenericOp &op, int64_t vectorSize) {
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
                                PatternRewriter &rewriter) const override {
    auto broadcast =
        transpose.getVector().getDefiningOp<vector::BroadcastOp>();
    if (!broadcast || transpose.getPermutation() != ArrayRef<int64_t>{1, 0})
      return failure();
    auto sourceType = dyn_cast<VectorType>(broadcast.getSourceType());
    VectorType resultType = transpose.getResultVectorType();
    if (!sourceType || sourceType.getRank() != 1 ||
        sourceType.isScalable() || resultType.isScalable() ||
        sourceType.getDimSize(0) != resultType.getDimSize(0))
      return failure();
    auto column = VectorType::get({sourceType.getDimSize(0), 1},
                                  sourceType.getElementType());
    Value columnValue = vector::ShapeCastOp::create(
        rewriter, transpose.getLoc(), column, broadcast.getSource());
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(transpose, resultType,
                                                     columnValue);
    return success();
  }
};

/// arith.extf(vector.transpose(x)) as vector.transpose(arith.extf(x)) where x
/// is read as it is stored (a minor identity vector.transfer_read): a
/// transposing block (getTransposeLoops) of 16-bit floats the payload extends
/// to f32 is transposed as f32 lanes. The same values. (A transposed broadcast
/// is left to TransposeOfBroadcastToStretch.)
struct ExtensionOfTranspose : public OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::ExtFOp extension,
                                PatternRewriter &rewriter) const override {
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
    Value wide = arith::ExtFOp::create(rewriter, extension.getLoc(), wideType,
                                       transpose.getVector(),
                                       extension.getFastmathAttr());
    rewriter.replaceOpWithNewOp<vector::TransposeOp>(
        extension, wide, transpose.getPermutation());
    return success();
  }
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
static void readStretchedElements(RewriterBase &rewriter, Value input) {
  auto inputType = dyn_cast<RankedTensorType>(input.getType());
  if (!inputType || !inputType.hasStaticShape())
    return;
  for (Operation *user : llvm::make_early_inc_range(input.getUsers())) {
    auto read = dyn_cast<vector::TransferReadOp>(user);
    if (!read || read.getBase() != input || read.getMask())
      continue;
    VectorType type = read.getVectorType();
    AffineMap map = read.getPermutationMap();
    if (type.getRank() != 2 || type.isScalable() || map.getNumResults() != 2)
      continue;
    auto dim = dyn_cast<AffineDimExpr>(map.getResult(0));
    auto zero = dyn_cast<AffineConstantExpr>(map.getResult(1));
    if (!dim || !zero || zero.getValue() != 0)
      continue;
    unsigned along = dim.getPosition();
    std::optional<int64_t> start =
        getConstantIntValue(read.getIndices()[along]);
    int64_t rows = type.getDimSize(0);
    if (!start || *start + rows > inputType.getDimSize(along))
      continue;
    // A read only extended (arith.extf of the payload) is extended element
    // by element, before the splats.
    Operation *replaced = read;
    auto extension = read->hasOneUse()
                         ? dyn_cast<arith::ExtFOp>(*read->user_begin())
                         : arith::ExtFOp();
    if (extension)
      replaced = extension;
    auto resultType = cast<VectorType>(replaced->getResult(0).getType());
    Type elementType = resultType.getElementType();
    rewriter.setInsertionPoint(read);
    Location loc = read.getLoc();
    SmallVector<Value> indices(read.getIndices()), elements;
    for (int64_t row = 0; row < rows; ++row) {
      indices[along] =
          arith::ConstantIndexOp::create(rewriter, loc, *start + row);
      Value element = tensor::ExtractOp::create(rewriter, loc, input, indices);
      if (extension)
        element = arith::ExtFOp::create(rewriter, loc, elementType, element);
      elements.push_back(element);
    }
    Value column = vector::FromElementsOp::create(
        rewriter, loc, VectorType::get({rows}, elementType), elements);
    column = vector::ShapeCastOp::create(
        rewriter, loc, VectorType::get({rows, 1}, elementType), column);
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(replaced, resultType,
                                                     column);
    if (extension)
      rewriter.eraseOp(read);
  }
}

/// True when `op` is a fill: a linalg.fill, or the generic it generalises
/// to (one scalar input, yielded as it is, all loops parallel).
static bool isFill(Operation *op) {
  if (isa<linalg::FillOp>(op))
    return true;
  auto generic = dyn_cast<linalg::GenericOp>(op);
  return generic && linalg::isaFillOpInterface(generic).has_value();
}

/// True when `fill` (isFill) has uses and each is the destination of a
/// linalg operation with reduction loops (a contraction's accumulator).
static bool isAccumulatorFill(linalg::LinalgOp fill) {
  return !fill->use_empty() && llvm::all_of(fill->getUses(), [](OpOperand &use) {
    auto user = dyn_cast<linalg::LinalgOp>(use.getOwner());
    return user && user.getNumReductionLoops() != 0 && user.isDpsInit(&use);
  });
}

/// True when the destination of the linalg operation `op`, which has
/// reduction loops, is a fill's result (isFill).
static bool hasFilledDestination(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.getNumReductionLoops() == 0)
    return false;
  return llvm::any_of(linalgOp.getDpsInits(), [](Value init) {
    Operation *producer = init.getDefiningOp();
    return producer && isFill(producer);
  });
}

/// Fuses the fill that makes the destination of the tiled operation `tiled`
/// (hasFilledDestination before tiling: the zero accumulator of a
/// contraction) into the tile loops `loops`, which are parallel loops only,
/// so that each tile fills its own slice: vectorised, a constant the tile's
/// accumulators start from in registers (the fill's write and the tile's
/// read of it fold away), and the loops' destination becomes the fill's (an
/// empty tensor): no memset, no reading the zeros back. Each output element
/// still starts from the fill's value and is summed in its order. Returns
/// the fused fills, which are vectorised before `tiled`.
static SmallVector<Operation *>
fuseFilledDestinations(RewriterBase &rewriter, Operation *tiled,
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
      auto loop = dyn_cast<LoopLikeOpInterface>(
          argument.getOwner()->getParentOp());
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

/// Replaces each reshape (tensor.expand_shape, tensor.collapse_shape) of a
/// fill (isFill) of a tensor.empty by a fill of a tensor.empty of the
/// reshaped type: the packed contractions' outputs (packOperand expands the
/// zero accumulator into panels), whose fills fuseFilledDestinations then
/// finds as their destinations' producers. Same values, no copy.
static void refillReshapedFills(RewriterBase &rewriter,
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
    Value empty = tensor::EmptyOp::create(rewriter, reshape->getLoc(),
                                          type.getShape(),
                                          type.getElementType());
    Value scalar = fill.getDpsInputs()[0];
    rewriter.replaceOp(reshape,
                       linalg::FillOp::create(rewriter, reshape->getLoc(),
                                              scalar, empty)
                           .getResults());
  }
}

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
                                PatternRewriter &rewriter) const override {
    auto writer = insert.getDest().getDefiningOp<DestinationStyleOpInterface>();
    RankedTensorType destType = insert.getDestType();
    if (!writer || writer->getNumResults() != 1 ||
        writer.getNumDpsInits() != 1 ||
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
};

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
      // 16, the AVX-512 default already), the same accumulators. Each broadcast input element then
      // feeds one product (LLVM folds it into the multiplication as a
      // broadcast memory operand: no broadcast instruction of its own, where
      // two vectors per row take one each), and each row of the second
      // input is read once for twice the rows.
      tile(m, 2 * matmulTiles[0]);
      tile(n, matmulTiles[1] / 2);
      return sizes;
    }
    tileRows(m);
    tile(n, matmulTiles[1]);
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
  if (dims && vectorLoop == dims->n.back() &&
      vectorLoop != dims->m.back()) {
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
    FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
        rewriter, cast<TilingInterface>(current), options);
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
  function.walk([](arith::MulFOp product) {
    product->removeAttr(kExactProduct);
  });

  // Transfers with permutation maps become plain transfers and transposes;
  // transfers read and write through the tiles' slices.
  {
    RewritePatternSet patterns(context);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    patterns.add<TransposeOfBroadcastToStretch, ExtensionOfTranspose,
                 InsertOverWrite>(context);
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
