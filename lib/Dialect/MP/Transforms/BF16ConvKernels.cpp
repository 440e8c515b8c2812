//===- BF16ConvKernels.cpp - bf16 convolutions on AVX512_BF16 -------------===//
//
// The convolution kernels of mp-bf16-dot-products: the implicit GEMM
// convolutions (the forward product and the input gradient, also as slices
// of a padded tensor: a strided input gradient's phases), the im2col form of
// a width stride of 2, and the filter gradients of convert-mp-to-linalg whose
// two f32 operands are widened copies of bf16 tensors (getBF16Source),
// matched with their shapes and rebuilt on vdpbf16ps: the operands packed
// into words of bf16 pairs (taken exactly from the f32 elements' high halves,
// or read from the bf16 data itself), the tiles built by buildPackedTile,
// each output element one chain of dot products over the K pairs in
// ascending K, the contraction's order. Convolutions whose users read them as
// NCHW write that layout (matchChannelMajorUses); filter gradients broadcast
// A from pair words of the input rows (no im2col copy) and pack B, the output
// gradient's words, for every image before the first (one parallel loop, not
// a serial step per image). Assumes linalg on tensors with static shapes
// after convert-mp-to-linalg; the pass puts each kernel behind the guard on
// the bf16 sources, which proves that it gives the contraction's bits (see
// BF16DotProducts.cpp).
//
//===----------------------------------------------------------------------===//

#include "BF16DotProducts.h"

#include "mp/Dialect/MP/Transforms/Threading.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <numeric>

using namespace mlir;
using namespace mlir::mp;
using namespace mlir::mp::bf16;

/// The bf16 tensor whose elements (or zeros) include every element of the
/// f32 tensor `value` (what the guard reduces; more elements only make it
/// stricter), when `value` is made by a widening copy of it: a
/// linalg.generic (behind a bufferization.alloc_tensor copy, the fusion
/// barrier, or a tensor.extract_slice, e.g. a strided input gradient's
/// phase of the padded gradient) with one bf16 input whose payload extends
/// it (arith.extf) and yields the extended element, or, as the padding copy
/// does, selects between it and its sum with the output element of a zero
/// fill (e + 0 is e, or +0 for -0); outputs not written keep the zero fill,
/// or, into anything but a zero fill, every output element is written (a
/// permutation of the loops). Null otherwise.
static Value getBF16Source(Value value) {
  if (auto barrier = value.getDefiningOp<bufferization::AllocTensorOp>())
    return barrier.getCopy() ? getBF16Source(barrier.getCopy()) : Value();
  if (auto slice = value.getDefiningOp<tensor::ExtractSliceOp>())
    return getBF16Source(slice.getSource());
  if (auto reshape = value.getDefiningOp<tensor::CollapseShapeOp>())
    return getBF16Source(reshape.getSrc());
  if (auto reshape = value.getDefiningOp<tensor::ExpandShapeOp>())
    return getBF16Source(reshape.getSrc());
  auto copy = value.getDefiningOp<linalg::GenericOp>();
  if (!copy || copy.getNumDpsInputs() != 1 || copy.getNumDpsInits() != 1 ||
      !getElementTypeOrSelf(copy.getDpsInputs()[0].getType()).isBF16() ||
      !getElementTypeOrSelf(value.getType()).isF32() ||
      copy.getNumReductionLoops() != 0)
    return {};
  Block &body = copy.getRegion().front();
  Value element = body.getArgument(0), output = body.getArgument(1);
  // Values that are the input element widened (or it plus the zero output).
  llvm::SmallPtrSet<Value, 4> exact;
  bool readsOutput = false;
  for (Operation &nested : body.without_terminator()) {
    auto operandsIn = [&](Operation &op, ArrayRef<Value> allowed) {
      return llvm::all_of(op.getOperands(), [&](Value v) {
        return exact.contains(v) || llvm::is_contained(allowed, v);
      });
    };
    if (auto extend = dyn_cast<arith::ExtFOp>(nested);
        extend && extend.getIn() == element)
      exact.insert(extend);
    else if (isa<arith::AddFOp>(nested) && operandsIn(nested, {output}) &&
             llvm::count_if(nested.getOperands(),
                            [&](Value v) { return exact.contains(v); }) == 1)
      readsOutput = true, exact.insert(nested.getResult(0));
    else if (isa<arith::CmpFOp>(nested) && operandsIn(nested, {}))
      continue;
    else if (auto select = dyn_cast<arith::SelectOp>(nested);
             select && exact.contains(select.getTrueValue()) &&
             exact.contains(select.getFalseValue()))
      exact.insert(select);
    else
      return {};
  }
  if (!exact.contains(body.getTerminator()->getOperand(0)))
    return {};
  OpOperand *init = copy.getDpsInitOperand(0);
  if (!isZeroFill(init->get()) &&
      (readsOutput || !copy.getMatchingIndexingMap(init).isPermutation() ||
       ShapedType::isDynamicShape(copy.getStaticLoopRanges())))
    return {};
  return copy.getDpsInputs()[0];
}

/// Coefficients of `expr` (an expression of `numDims` dimensions and no
/// symbols) when it is linear without a constant term: sum of coefficient
/// · dimension. Nullopt otherwise.
static std::optional<SmallVector<int64_t>>
getLinearCoefficients(AffineExpr expr, unsigned numDims) {
  MLIRContext *context = expr.getContext();
  auto valueAt = [&](int64_t dim) -> std::optional<int64_t> {
    SmallVector<AffineExpr> point(numDims, getAffineConstantExpr(0, context));
    if (dim >= 0)
      point[dim] = getAffineConstantExpr(1, context);
    auto constant = dyn_cast<AffineConstantExpr>(
        simplifyAffineExpr(expr.replaceDims(point), 0, 0));
    return constant ? std::optional<int64_t>(constant.getValue())
                    : std::nullopt;
  };
  if (valueAt(-1) != 0)
    return std::nullopt;
  SmallVector<int64_t> coefficients;
  AffineExpr linear = getAffineConstantExpr(0, context);
  for (unsigned d = 0; d < numDims; ++d) {
    std::optional<int64_t> value = valueAt(d);
    if (!value)
      return std::nullopt;
    coefficients.push_back(*value);
    linear = linear + getAffineDimExpr(d, context) * *value;
  }
  if (simplifyAffineExpr(linear - expr, numDims, 0) !=
      getAffineConstantExpr(0, context))
    return std::nullopt;
  return coefficients;
}

/// The coefficients of the height and width expressions of a convolution's
/// input map `inputMap` ((n, c, h, w), `numLoops` loops) when both are linear
/// and use exactly the loops `heightLoops` and `widthLoops`. Nullopt
/// otherwise.
static std::optional<std::pair<SmallVector<int64_t>, SmallVector<int64_t>>>
getWindowCoefficients(AffineMap inputMap, ArrayRef<unsigned> heightLoops,
                      ArrayRef<unsigned> widthLoops) {
  unsigned numLoops = inputMap.getNumDims();
  std::optional<SmallVector<int64_t>> height =
      getLinearCoefficients(inputMap.getResult(2), numLoops);
  std::optional<SmallVector<int64_t>> width =
      getLinearCoefficients(inputMap.getResult(3), numLoops);
  if (!height || !width)
    return std::nullopt;
  for (unsigned i = 0; i < numLoops; ++i)
    if (((*height)[i] != 0) != llvm::is_contained(heightLoops, i) ||
        ((*width)[i] != 0) != llvm::is_contained(widthLoops, i))
      return std::nullopt;
  return std::make_pair(*height, *width);
}

/// True when the payload of `op` is out + a·b (convert-mp-to-linalg's
/// multiplyAccumulate), without fast-math flags.
static bool isMultiplyAccumulate(linalg::LinalgOp op) {
  Block &body = *op.getBlock();
  if (body.getOperations().size() != 3)
    return false;
  auto mul = dyn_cast<arith::MulFOp>(body.front());
  auto add = dyn_cast<arith::AddFOp>(*std::next(body.begin()));
  return mul && add && mul.getFastmath() == arith::FastMathFlags::none &&
         add.getFastmath() == arith::FastMathFlags::none &&
         mul.getLhs() == body.getArgument(0) &&
         mul.getRhs() == body.getArgument(1) &&
         add.getLhs() == body.getArgument(2) && add.getRhs() == mul &&
         body.getTerminator()->getOperand(0) == add;
}

/// The static loop extents of `op` when it is an implicit product the conv
/// kernels take: two inputs and one f32 output from a zero fill, `numLoops`
/// loops of which the first `numParallel` are parallel and the rest
/// reductions, and a multiply-accumulate payload. Nullopt otherwise.
static std::optional<SmallVector<int64_t>>
getImplicitProductExtents(linalg::GenericOp op, unsigned numLoops,
                          unsigned numParallel) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op.getNumLoops() != numLoops ||
      !isZeroFill(op.getDpsInits()[0]) ||
      !getElementTypeOrSelf(op.getResult(0).getType()).isF32() ||
      !isMultiplyAccumulate(op))
    return std::nullopt;
  for (auto [i, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
    if ((iterator == utils::IteratorType::reduction) != (i >= numParallel))
      return std::nullopt;
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  if (ShapedType::isDynamicShape(extents))
    return std::nullopt;
  return extents;
}

/// A ConvShape of the f32 operands `input` (the padded input) and `filter`
/// with their bf16 sources (getBF16Source), its extents unset; nullopt
/// where either is not a widened copy of bf16 data.
static std::optional<ConvShape> getConvOperands(Value input, Value filter) {
  ConvShape shape;
  shape.input = input;
  shape.filter = filter;
  shape.inputBF16 = getBF16Source(input);
  shape.filterBF16 = getBF16Source(filter);
  if (!shape.inputBF16 || !shape.filterBF16)
    return std::nullopt;
  return shape;
}

/// Sets the kernel's tile and block of images of `shape` (whose loop
/// extents are set) and says whether the conv kernel takes it: F a multiple
/// of 16, C·KH·KW even, OW at most 64 (a row of pixels is one vector of the
/// packing copy) and the fewest images whose pixels are whole tiles of rows
/// dividing N.
static bool completeConvShape(ConvShape &shape) {
  shape.panelWidth = shape.filters % kTileColumns == 0 ? kTileColumns : kLanes;
  shape.tileRows = kTileRows * kTileColumns / shape.panelWidth;
  if (shape.filters % kLanes || shape.k() % 2 || shape.outW > 64)
    return false;
  int64_t pixels = shape.outH * shape.outW;
  shape.blockImages = shape.tileRows / std::gcd(pixels, shape.tileRows);
  return shape.batch % shape.blockImages == 0;
}

std::optional<ConvShape> bf16::matchImplicitConv(linalg::GenericOp op) {
  std::optional<SmallVector<int64_t>> loopExtents =
      getImplicitProductExtents(op, /*numLoops=*/8, /*numParallel=*/5);
  if (!loopExtents)
    return std::nullopt;
  const SmallVector<int64_t> &extents = *loopExtents;

  MLIRContext *context = op.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (maps[1] != AffineMap::get(8, 0, {d(5), d(6), d(7), d(4)}, context) ||
      maps[2] !=
          AffineMap::get(8, 0, {d(0), d(1), d(2), d(3), d(4)}, context) ||
      maps[0].getNumResults() != 4 || maps[0].getResult(0) != d(0) ||
      maps[0].getResult(1) != d(5))
    return std::nullopt;
  auto window = getWindowCoefficients(maps[0], {1, 6}, {2, 3, 7});
  if (!window)
    return std::nullopt;
  const SmallVector<int64_t> &height = window->first, &width = window->second;
  if (width[2] != extents[3] || width[3] != 1)
    return std::nullopt;

  std::optional<ConvShape> operands =
      getConvOperands(op.getDpsInputs()[0], op.getDpsInputs()[1]);
  if (!operands)
    return std::nullopt;
  ConvShape shape = *operands;
  shape.batch = extents[0];
  shape.outH = extents[1];
  shape.outW = extents[2] * extents[3];
  shape.filters = extents[4];
  shape.channels = extents[5];
  shape.kernelH = extents[6];
  shape.kernelW = extents[7];
  shape.strideH = height[1];
  shape.dilationH = height[6];
  shape.dilationW = width[7];
  if (!completeConvShape(shape))
    return std::nullopt;
  return shape;
}

std::optional<ConvShape> bf16::matchIm2colConv(linalg::LinalgOp op) {
  // The product: [panels, K, P] x [K, F] -> [panels, P, F] over (panel, r,
  // f, k), from a zero fill.
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op.getNumLoops() != 4 ||
      op.getNumReductionLoops() != 1 || !isZeroFill(op.getDpsInits()[0]) ||
      !getElementTypeOrSelf(op->getResult(0).getType()).isF32() ||
      !isMultiplyAccumulate(op))
    return std::nullopt;
  MLIRContext *context = op.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (maps[0] != AffineMap::get(4, 0, {d(0), d(3), d(1)}, context) ||
      maps[1] != AffineMap::get(4, 0, {d(3), d(2)}, context) ||
      maps[2] != AffineMap::get(4, 0, {d(0), d(1), d(2)}, context) ||
      op.getIteratorTypesArray()[3] != utils::IteratorType::reduction)
    return std::nullopt;
  // The im2col: loops (n, oh, owb, c, kh, kw, r), panels[(n·OH + oh)·OWB +
  // owb, (c·KH + kh)·KW + kw, r] = in[n, c, oh·sh + kh·dh, (owb·P + r)·sw +
  // kw·dw], a copy of its first input.
  auto im2col = op.getDpsInputs()[0].getDefiningOp<linalg::GenericOp>();
  if (!im2col || !im2col.hasPureTensorSemantics() ||
      im2col.getNumDpsInputs() != 2 || im2col.getNumDpsInits() != 1 ||
      im2col.getNumLoops() != 7 || im2col.getNumReductionLoops() != 0)
    return std::nullopt;
  Block &body = im2col.getRegion().front();
  if (body.getOperations().size() != 1 ||
      body.getTerminator()->getOperand(0) != body.getArgument(0))
    return std::nullopt;
  SmallVector<int64_t> extents = im2col.getStaticLoopRanges();
  if (ShapedType::isDynamicShape(extents))
    return std::nullopt;
  SmallVector<AffineMap> copyMaps = im2col.getIndexingMapsArray();
  AffineMap inputMap = copyMaps[0], panelMap = copyMaps[2];
  if (panelMap.getNumResults() != 3 || panelMap.getResult(2) != d(6) ||
      inputMap.getNumResults() != 4 || inputMap.getResult(0) != d(0) ||
      inputMap.getResult(1) != d(3))
    return std::nullopt;
  auto expect = [&](AffineExpr expr, ArrayRef<int64_t> coefficients) {
    std::optional<SmallVector<int64_t>> actual = getLinearCoefficients(expr, 7);
    return actual && ArrayRef<int64_t>(*actual) == coefficients;
  };
  int64_t outH = extents[1], widthBlocks = extents[2], kernelH = extents[4],
          kernelW = extents[5];
  if (!expect(panelMap.getResult(0),
              {outH * widthBlocks, widthBlocks, 1, 0, 0, 0, 0}) ||
      !expect(panelMap.getResult(1),
              {0, 0, 0, kernelH * kernelW, kernelW, 1, 0}))
    return std::nullopt;
  auto window = getWindowCoefficients(inputMap, {1, 4}, {2, 5, 6});
  if (!window)
    return std::nullopt;
  const SmallVector<int64_t> &height = window->first, &width = window->second;
  int64_t strideW = width[6];
  if ((strideW != 1 && strideW != 2) || width[2] != extents[6] * strideW)
    return std::nullopt;

  std::optional<ConvShape> operands =
      getConvOperands(im2col.getDpsInputs()[0], op.getDpsInputs()[1]);
  if (!operands)
    return std::nullopt;
  ConvShape shape = *operands;
  shape.im2col = im2col;
  shape.batch = extents[0];
  shape.outH = outH;
  shape.outW = widthBlocks * extents[6];
  shape.filters = op.getStaticLoopRanges()[2];
  shape.channels = extents[3];
  shape.kernelH = kernelH;
  shape.kernelW = kernelW;
  shape.strideH = height[1];
  shape.strideW = strideW;
  shape.dilationH = height[4];
  shape.dilationW = width[5];
  if (!completeConvShape(shape))
    return std::nullopt;
  return shape;
}

std::optional<SmallVector<ChannelMajorUse>>
bf16::matchChannelMajorUses(linalg::LinalgOp op, const ConvShape &shape) {
  if (shape.blockImages != 1 || !op->hasOneUse())
    return std::nullopt;
  auto collapse = dyn_cast<tensor::CollapseShapeOp>(*op->user_begin());
  int64_t rank = cast<RankedTensorType>(op->getResult(0).getType()).getRank();
  ReassociationIndices rows(rank - 1);
  std::iota(rows.begin(), rows.end(), 0);
  if (!collapse || collapse.getReassociationIndices() !=
                       SmallVector<ReassociationIndices>{rows, {rank - 1}})
    return std::nullopt;
  MLIRContext *context = op.getContext();
  SmallVector<ChannelMajorUse> uses;
  for (OpOperand &use : collapse->getUses()) {
    auto user = dyn_cast<linalg::GenericOp>(use.getOwner());
    if (!user || !user.isDpsInput(&use))
      return std::nullopt;
    AffineMap map = user.getMatchingIndexingMap(&use);
    unsigned numLoops = map.getNumDims();
    if (map.getNumResults() != 2 || map.getNumSymbols() != 0 ||
        !isa<AffineDimExpr>(map.getResult(1)))
      return std::nullopt;
    std::optional<SmallVector<int64_t>> coefficients =
        getLinearCoefficients(map.getResult(0), numLoops);
    if (!coefficients)
      return std::nullopt;
    // The loops of n, oh and ow: coefficients OH·OW, OW and 1, every other
    // loop's 0, and extents that keep oh·OW + ow within an image.
    SmallVector<int64_t> ranges = user.getStaticLoopRanges();
    std::optional<unsigned> imageLoop, rowLoop, columnLoop;
    for (unsigned i = 0; i < numLoops; ++i) {
      int64_t coefficient = (*coefficients)[i];
      if (coefficient == 0)
        continue;
      std::optional<unsigned> *loop = coefficient == shape.outH * shape.outW
                                          ? &imageLoop
                                      : coefficient == shape.outW ? &rowLoop
                                      : coefficient == 1          ? &columnLoop
                                                                  : nullptr;
      if (!loop || loop->has_value())
        return std::nullopt;
      *loop = i;
    }
    if (!imageLoop || !rowLoop || !columnLoop ||
        ShapedType::isDynamic(ranges[*rowLoop]) ||
        ShapedType::isDynamic(ranges[*columnLoop]) ||
        ranges[*rowLoop] > shape.outH || ranges[*columnLoop] > shape.outW)
      return std::nullopt;
    uses.push_back(
        {&use,
         AffineMap::get(numLoops, 0,
                        {getAffineDimExpr(*imageLoop, context),
                         map.getResult(1), getAffineDimExpr(*rowLoop, context),
                         getAffineDimExpr(*columnLoop, context)},
                        context)});
  }
  if (uses.empty())
    return std::nullopt;
  return uses;
}

/// The 32-bit words of bf16 pairs from two vectors of f32 elements that are
/// widened bf16 values (their low 16 bits zero): per lane, the bf16 of
/// `first` (K = 2p, the element vdpbf16ps adds first) in the high half and
/// that of `second` (K = 2p + 1) in the low half, i.e. (first & 0xFFFF0000)
/// | (second >> 16), exact without any rounding.
static Value buildPairWords(OpBuilder &b, Location loc, Value first,
                            Value second) {
  auto type = VectorType::get(cast<VectorType>(first.getType()).getShape(),
                              b.getI32Type());
  auto splat = [&](int64_t v) {
    return arith::ConstantOp::create(
               b, loc, DenseElementsAttr::get(type, b.getI32IntegerAttr(v)))
        .getResult();
  };
  Value high = arith::AndIOp::create(
      b, loc, arith::BitcastOp::create(b, loc, type, first),
      splat(static_cast<int32_t>(0xFFFF0000u)));
  Value low = arith::ShRUIOp::create(
      b, loc, arith::BitcastOp::create(b, loc, type, second), splat(16));
  return arith::OrIOp::create(b, loc, high, low);
}

Value bf16::buildConvKernel(OpBuilder &builder, Location loc,
                            linalg::LinalgOp op, const ConvShape &shape,
                            bool parallel) {
  Type i32 = builder.getI32Type(), f32 = builder.getF32Type();
  auto index = [&](OpBuilder &b, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  int64_t pairs = shape.k() / 2, window = shape.kernelH * shape.kernelW;
  int64_t blockRows = shape.blockImages * shape.outH * shape.outW;
  Value f32Padding =
      arith::ConstantOp::create(builder, loc, builder.getFloatAttr(f32, 0.0));
  auto k = [&](OpBuilder &b, Value pair, int64_t offset) {
    return arith::AddIOp::create(
               b, loc, arith::MulIOp::create(b, loc, pair, index(b, 2)),
               index(b, offset))
        .getResult();
  };

  // B: the filter [C, KH, KW, F] as [K, F], each K pair of rows of a panel
  // as words of bf16 pairs.
  int64_t panels = shape.filters / shape.panelWidth;
  Value packedB = tensor::EmptyOp::create(
      builder, loc, ArrayRef<int64_t>{panels, pairs, shape.panelWidth}, i32);
  {
    Value rowsOfB =
        cast<RankedTensorType>(shape.filter.getType()).getRank() == 2
            ? shape.filter
            : tensor::CollapseShapeOp::create(
                  builder, loc, shape.filter,
                  ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}})
                  .getResult();
    auto rowType = VectorType::get({shape.panelWidth}, f32);
    SmallVector<Value> lower(2, index(builder, 0)), steps(2, index(builder, 1));
    SmallVector<Value> upper = {index(builder, panels), index(builder, pairs)};
    scf::LoopNest nest = scf::buildLoopNest(
        builder, loc, lower, upper, steps, ValueRange{packedB},
        [&](OpBuilder &b, Location loc, ValueRange ivs, ValueRange carried) {
          Value column =
              arith::MulIOp::create(b, loc, ivs[0], index(b, shape.panelWidth));
          auto row = [&](Value kIndex) {
            return vector::TransferReadOp::create(
                       b, loc, rowType, rowsOfB, ValueRange{kIndex, column},
                       f32Padding, ArrayRef<bool>{true})
                .getResult();
          };
          Value words = buildPairWords(b, loc, row(k(b, ivs[1], 0)),
                                       row(k(b, ivs[1], 1)));
          return SmallVector<Value>{vector::TransferWriteOp::create(
                                        b, loc, words, carried[0],
                                        ValueRange{ivs[0], ivs[1], index(b, 0)},
                                        ArrayRef<bool>{true})
                                        .getResult()};
        });
    packedB = nest.results[0];
  }

  // A of the block of images at `block`: for each K pair and row of output
  // pixels (n, oh), the pixels' two input rows at (c, kh, kw) of K = 2p and
  // 2p + 1 as words of bf16 pairs.
  auto packA = [&](OpBuilder &builder, Value block) {
    Value packedA = tensor::EmptyOp::create(
        builder, loc, ArrayRef<int64_t>{pairs, blockRows}, i32);
    Value firstImage = arith::MulIOp::create(builder, loc, block,
                                             index(builder, shape.blockImages));
    // A row of output pixels reads OW·sw input columns (beyond the tensor:
    // zeros, never used), every sw-th the pixels'.
    auto rowType = VectorType::get({shape.outW * shape.strideW}, f32);
    SmallVector<Value> lower(3, index(builder, 0)), steps(3, index(builder, 1));
    SmallVector<Value> upper = {index(builder, pairs),
                                index(builder, shape.blockImages),
                                index(builder, shape.outH)};
    scf::LoopNest nest = scf::buildLoopNest(
        builder, loc, lower, upper, steps, ValueRange{packedA},
        [&](OpBuilder &b, Location loc, ValueRange ivs, ValueRange carried) {
          Value image = arith::AddIOp::create(b, loc, firstImage, ivs[1]);
          auto pixels = [&](Value kIndex) {
            Value c = arith::DivUIOp::create(b, loc, kIndex, index(b, window));
            Value tap =
                arith::RemUIOp::create(b, loc, kIndex, index(b, window));
            Value kh =
                arith::DivUIOp::create(b, loc, tap, index(b, shape.kernelW));
            Value kw =
                arith::RemUIOp::create(b, loc, tap, index(b, shape.kernelW));
            auto scaled = [&](Value v, int64_t factor) {
              return arith::MulIOp::create(b, loc, v, index(b, factor))
                  .getResult();
            };
            Value h =
                arith::AddIOp::create(b, loc, scaled(ivs[2], shape.strideH),
                                      scaled(kh, shape.dilationH));
            Value columns = vector::TransferReadOp::create(
                b, loc, rowType, shape.input,
                ValueRange{image, c, h, scaled(kw, shape.dilationW)},
                f32Padding, ArrayRef<bool>{shape.strideW == 1});
            if (shape.strideW == 2)
              columns =
                  vector::DeinterleaveOp::create(b, loc, columns).getRes1();
            return columns;
          };
          Value words = buildPairWords(b, loc, pixels(k(b, ivs[0], 0)),
                                       pixels(k(b, ivs[0], 1)));
          Value pixelRow = arith::AddIOp::create(
              b, loc,
              arith::MulIOp::create(b, loc, ivs[1], index(b, shape.outH)),
              ivs[2]);
          Value column =
              arith::MulIOp::create(b, loc, pixelRow, index(b, shape.outW));
          return SmallVector<Value>{
              vector::TransferWriteOp::create(b, loc, words, carried[0],
                                              ValueRange{ivs[0], column},
                                              ArrayRef<bool>{true})
                  .getResult()};
        });
    return nest.results[0];
  };

  // The block's [rows, F] result: its tiles (panel, row tile) in order.
  SmallVector<OpFoldResult> tileSizes = {
      builder.getIndexAttr(shape.tileRows),
      builder.getIndexAttr(shape.panelWidth)};
  SmallVector<OpFoldResult> unitStrides(2, builder.getIndexAttr(1));
  auto tileType =
      RankedTensorType::get({shape.tileRows, shape.panelWidth}, f32);
  // The block's tiles are written into `destination`, its slice of the
  // result (not into a tensor of their own, which bufferization would copy
  // into the result afterwards).
  auto computeBlock = [&](OpBuilder &builder, Value block, Value destination) {
    Value packedA = packA(builder, block);
    Value init = destination;
    if (shape.channelMajor) {
      // Tiles of 16 filters (rows, words of B broadcast) x 16 pixels
      // (columns, a row of A's words) into the image's [1, F, OH·OW].
      int64_t pixels = shape.outH * shape.outW;
      SmallVector<Value> lower(2, index(builder, 0)),
          steps(2, index(builder, 1));
      SmallVector<Value> upper = {index(builder, panels),
                                  index(builder, pixels / kLanes)};
      SmallVector<OpFoldResult> sizes = {builder.getIndexAttr(1),
                                         builder.getIndexAttr(kTileRows),
                                         builder.getIndexAttr(kLanes)};
      SmallVector<OpFoldResult> strides(3, builder.getIndexAttr(1));
      auto filtersByPixels = RankedTensorType::get({kTileRows, kLanes}, f32);
      scf::LoopNest nest = scf::buildLoopNest(
          builder, loc, lower, upper, steps, ValueRange{init},
          [&](OpBuilder &b, Location loc, ValueRange ivs, ValueRange carried) {
            Value filter = arith::MulIOp::create(b, loc, ivs[0],
                                                 index(b, shape.panelWidth));
            Value pixel =
                arith::MulIOp::create(b, loc, ivs[1], index(b, kLanes));
            SmallVector<OpFoldResult> offsets = {b.getIndexAttr(0), filter,
                                                 pixel};
            Value tile = tensor::ExtractSliceOp::create(
                b, loc, filtersByPixels, carried[0], offsets, sizes, strides);
            auto wordOfA = [&](OpBuilder &b, Location loc, Value pair,
                               int64_t r) {
              return tensor::ExtractOp::create(
                         b, loc, packedB, ValueRange{ivs[0], pair, index(b, r)})
                  .getResult();
            };
            auto rowOfB = [&](OpBuilder &b, Location loc, Value pair,
                              int64_t column) {
              Value zero = arith::ConstantIntOp::create(b, loc, i32, 0);
              return vector::TransferReadOp::create(
                         b, loc, VectorType::get({kLanes}, i32), packedA,
                         ValueRange{pair, arith::AddIOp::create(
                                              b, loc, pixel, index(b, column))},
                         zero, ArrayRef<bool>{true})
                  .getResult();
            };
            tile = buildPackedTile(b, loc, wordOfA, rowOfB, tile, pairs,
                                   kTileRows, kLanes);
            return SmallVector<Value>{tensor::InsertSliceOp::create(
                b, loc, tile, carried[0], offsets, sizes, strides)};
          });
      return nest.results[0];
    }
    SmallVector<Value> lower(2, index(builder, 0)), steps(2, index(builder, 1));
    SmallVector<Value> upper = {index(builder, panels),
                                index(builder, blockRows / shape.tileRows)};
    scf::LoopNest nest = scf::buildLoopNest(
        builder, loc, lower, upper, steps, ValueRange{init},
        [&](OpBuilder &b, Location loc, ValueRange ivs, ValueRange carried) {
          Value row =
              arith::MulIOp::create(b, loc, ivs[1], index(b, shape.tileRows));
          Value column =
              arith::MulIOp::create(b, loc, ivs[0], index(b, shape.panelWidth));
          SmallVector<OpFoldResult> offsets = {row, column};
          Value tile = tensor::ExtractSliceOp::create(
              b, loc, tileType, carried[0], offsets, tileSizes, unitStrides);
          tile = buildPackedTile(b, loc, packedA, packedB, tile, row, ivs[0],
                                 pairs, shape.tileRows, shape.panelWidth);
          return SmallVector<Value>{tensor::InsertSliceOp::create(
              b, loc, tile, carried[0], offsets, tileSizes, unitStrides)};
        });
    return nest.results[0];
  };

  // The blocks into the [M, F] result, expanded to the op's
  // [N, OH, OWB, P, F]; channel-major, the images into [N, F, OH·OW],
  // expanded to [N, F, OH, OW].
  int64_t blocks = shape.batch / shape.blockImages;
  int64_t pixels = shape.outH * shape.outW;
  SmallVector<int64_t> resultShape = {shape.m(), shape.filters};
  SmallVector<int64_t> blockShape = {blockRows, shape.filters};
  if (shape.channelMajor) {
    resultShape = {shape.batch, shape.filters, pixels};
    blockShape = {1, shape.filters, pixels};
  }
  Value init = tensor::EmptyOp::create(builder, loc, resultShape, f32);
  SmallVector<OpFoldResult> blockSizes =
      llvm::map_to_vector(blockShape, [&](int64_t size) -> OpFoldResult {
        return builder.getIndexAttr(size);
      });
  auto blockOffsets = [&](OpBuilder &b, Value block) {
    SmallVector<OpFoldResult> offsets(blockShape.size(), b.getIndexAttr(0));
    offsets[0] = shape.channelMajor
                     ? OpFoldResult(block)
                     : OpFoldResult(arith::MulIOp::create(b, loc, block,
                                                          index(b, blockRows))
                                        .getResult());
    return offsets;
  };
  SmallVector<OpFoldResult> unitBlockStrides(blockShape.size(),
                                             builder.getIndexAttr(1));
  auto blockType = RankedTensorType::get(blockShape, f32);
  auto blockSlice = [&](OpBuilder &b, Value output,
                        ArrayRef<OpFoldResult> offsets) -> Value {
    return tensor::ExtractSliceOp::create(b, loc, blockType, output, offsets,
                                          blockSizes, unitBlockStrides);
  };
  Value result;
  if (parallel && blocks >= 2 &&
      shape.m() * shape.filters * shape.k() >= kMinParallelIterations) {
    auto forall = scf::ForallOp::create(
        builder, loc, ArrayRef<OpFoldResult>{builder.getIndexAttr(blocks)},
        ValueRange{init}, std::nullopt,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value output = args.back();
          SmallVector<OpFoldResult> offsets = blockOffsets(b, args[0]);
          Value blockResult =
              computeBlock(b, args[0], blockSlice(b, output, offsets));
          auto inParallel = scf::InParallelOp::create(b, loc);
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(inParallel.getBody());
          tensor::ParallelInsertSliceOp::create(b, loc, blockResult, output,
                                                offsets, blockSizes,
                                                unitBlockStrides);
        });
    result = forall.getResult(0);
  } else {
    auto loop = scf::ForOp::create(
        builder, loc, index(builder, 0), index(builder, blocks),
        index(builder, 1), ValueRange{init},
        [&](OpBuilder &b, Location loc, Value block, ValueRange carried) {
          SmallVector<OpFoldResult> offsets = blockOffsets(b, block);
          Value blockResult =
              computeBlock(b, block, blockSlice(b, carried[0], offsets));
          scf::YieldOp::create(b, loc,
                               tensor::InsertSliceOp::create(
                                   b, loc, blockResult, carried[0], offsets,
                                   blockSizes, unitBlockStrides)
                                   .getResult());
        });
    result = loop.getResult(0);
  }
  if (shape.channelMajor)
    return tensor::ExpandShapeOp::create(
               builder, loc,
               RankedTensorType::get(
                   {shape.batch, shape.filters, shape.outH, shape.outW}, f32),
               result, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}})
        .getResult();
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  ReassociationIndices rows(resultType.getRank() - 1);
  std::iota(rows.begin(), rows.end(), 0);
  return tensor::ExpandShapeOp::create(
             builder, loc, resultType, result,
             ArrayRef<ReassociationIndices>{rows, {resultType.getRank() - 1}})
      .getResult();
}

/// The bf16 gradient [N, F, OH, OW] whose widened transpose the f32
/// filter-gradient operand `gradient` ([N, OH, OW, F]) is: the copy
/// convert-mp-to-linalg makes for one group, a linalg.generic over (g, n,
/// oh, ow, f), g of extent 1, writing [1, N, OH, OW, F] in order from
/// src[n, g·F + f, oh, ow] widened, collapsed to [N, OH, OW, F] and behind
/// its fusion barrier. Null otherwise.
static Value getChannelMajorGradient(Value gradient) {
  auto barrier = gradient.getDefiningOp<bufferization::AllocTensorOp>();
  auto collapse =
      barrier && barrier.getCopy()
          ? barrier.getCopy().getDefiningOp<tensor::CollapseShapeOp>()
          : nullptr;
  auto copy =
      collapse ? collapse.getSrc().getDefiningOp<linalg::GenericOp>() : nullptr;
  if (!copy || copy.getNumDpsInputs() != 1 || copy.getNumLoops() != 5 ||
      copy.getStaticLoopRanges()[0] != 1 ||
      getBF16Source(barrier.getCopy()) != copy.getDpsInputs()[0] ||
      collapse.getReassociationIndices() !=
          SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}, {4}})
    return {};
  MLIRContext *context = copy.getContext();
  SmallVector<AffineMap> maps = copy.getIndexingMapsArray();
  if (!maps[1].isIdentity())
    return {};
  // The group loop is 0: the input map then reads (n, f, oh, ow).
  SmallVector<AffineExpr> dims = {getAffineConstantExpr(0, context)};
  for (unsigned i = 1; i < 5; ++i)
    dims.push_back(getAffineDimExpr(i, context));
  SmallVector<AffineExpr> read;
  for (AffineExpr result : maps[0].getResults())
    read.push_back(simplifyAffineExpr(result.replaceDims(dims), 5, 0));
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
  if (read != SmallVector<AffineExpr>{d(1), d(4), d(2), d(3)})
    return {};
  return copy.getDpsInputs()[0];
}

std::optional<GradFilterShape>
bf16::matchImplicitGradFilter(linalg::GenericOp op) {
  std::optional<SmallVector<int64_t>> loopExtents =
      getImplicitProductExtents(op, /*numLoops=*/7, /*numParallel=*/4);
  if (!loopExtents)
    return std::nullopt;
  const SmallVector<int64_t> &extents = *loopExtents;
  MLIRContext *context = op.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (maps[1] != AffineMap::get(7, 0, {d(4), d(5), d(6), d(3)}, context) ||
      maps[2] != AffineMap::get(7, 0, {d(0), d(1), d(2), d(3)}, context) ||
      maps[0].getNumResults() != 4 || maps[0].getResult(0) != d(4) ||
      maps[0].getResult(1) != d(2))
    return std::nullopt;
  auto window = getWindowCoefficients(maps[0], {0, 5}, {1, 6});
  if (!window)
    return std::nullopt;
  const SmallVector<int64_t> &height = window->first, &width = window->second;
  if (width[6] != 1 && width[6] != 2)
    return std::nullopt;
  GradFilterShape shape;
  shape.input = op.getDpsInputs()[0];
  shape.gradient = op.getDpsInputs()[1];
  shape.inputBF16 = getBF16Source(shape.input);
  shape.gradientBF16 = getBF16Source(shape.gradient);
  if (!shape.inputBF16 || !shape.gradientBF16)
    return std::nullopt;
  shape.gradientChannelMajor = getChannelMajorGradient(shape.gradient);
  shape.kernelH = extents[0];
  shape.kernelW = extents[1];
  shape.channels = extents[2];
  shape.filters = extents[3];
  shape.batch = extents[4];
  shape.outH = extents[5];
  shape.outW = extents[6];
  shape.strideH = height[5];
  shape.strideW = width[6];
  shape.dilationH = height[0];
  shape.dilationW = width[1];
  shape.panelWidth = shape.filters % kTileColumns == 0 ? kTileColumns : kLanes;
  // Tiles of 8 (kh, kw, c) rows: twice as many tiles as 16 rows make (9 of
  // a 3x3 filter of 16 channels, shared 5/4 by two threads: 18 share
  // evenly), and measured faster on one thread too (the conv net's BF16
  // step, alternating runs: 18.65-18.75 against 19.07-20.20 ms).
  shape.tileRows = kTileRows * kTileColumns / shape.panelWidth / 2;
  if (shape.channels % kLanes || shape.filters % kLanes || shape.outW % 2)
    return std::nullopt;
  return shape;
}

Value bf16::buildGradFilterKernel(OpBuilder &builder, Location loc,
                                  linalg::GenericOp op,
                                  const GradFilterShape &shape, bool parallel,
                                  int64_t pairWordsBudget) {
  Type i32 = builder.getI32Type(), f32 = builder.getF32Type();
  auto index = [&](OpBuilder &b, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  int64_t pairs = shape.pairsPerImage(), rowPairs = shape.outW / 2;
  int64_t panels = shape.filters / shape.panelWidth;
  Value f32Padding =
      arith::ConstantOp::create(builder, loc, builder.getFloatAttr(f32, 0.0));

  // The result [KH·KW·C, F], from the op's zero fill.
  Value init = tensor::CollapseShapeOp::create(
      builder, loc, op.getDpsInits()[0],
      ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}});

  // B, every image's before the first: per (image, panel, oh, pixel pair),
  // the gradient's two rows of filters made words; from the bf16 [N, F, OH,
  // OW] gradient, per panel and 16 pixel pairs, the 16 filters' rows of 32
  // pixels read as words (pixel 2j in the low half), rotated (K = 2j to the
  // high half) and transposed. With `parallel`, one (image, panel) an
  // iteration: packed image by image, it would be a serial step between
  // each image's parallel loops.
  Value packedB = tensor::EmptyOp::create(
      builder, loc,
      ArrayRef<int64_t>{shape.batch, panels, pairs, shape.panelWidth}, i32);
  {
    Value gradientRows;
    if (shape.gradientChannelMajor)
      gradientRows = tensor::CollapseShapeOp::create(
          builder, loc, shape.gradientChannelMajor,
          ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
    int64_t elements = shape.batch * panels * pairs * shape.panelWidth;
    packedB = buildSliceNest(
        builder, loc, packedB, {shape.batch, panels},
        parallel && elements >= kMinParallelIterations,
        [&](OpBuilder &b, Location loc, ValueRange outer, Value slice) {
          Value image = outer[0];
          Value filter = arith::MulIOp::create(b, loc, outer[1],
                                               index(b, shape.panelWidth));
          if (gradientRows) {
            Value zero = arith::ConstantOp::create(
                b, loc, b.getFloatAttr(b.getBF16Type(), 0.0));
            auto blockType =
                VectorType::get({kLanes, 2 * kLanes}, b.getBF16Type());
            auto loop = scf::ForOp::create(
                b, loc, index(b, 0), index(b, llvm::divideCeil(pairs, kLanes)),
                index(b, 1), ValueRange{slice},
                [&](OpBuilder &b, Location loc, Value chunk,
                    ValueRange carried) {
                  Value firstPair =
                      arith::MulIOp::create(b, loc, chunk, index(b, kLanes));
                  Value firstPixel =
                      arith::MulIOp::create(b, loc, firstPair, index(b, 2));
                  Value block = vector::TransferReadOp::create(
                      b, loc, blockType, gradientRows,
                      ValueRange{image, filter, firstPixel}, zero,
                      ArrayRef<bool>{true, false});
                  Value transposed = buildRotatedPairWords(b, loc, block);
                  scf::YieldOp::create(b, loc,
                                       vector::TransferWriteOp::create(
                                           b, loc, transposed, carried[0],
                                           ValueRange{firstPair, index(b, 0)},
                                           ArrayRef<bool>{false, true})
                                           .getResult());
                });
            return loop.getResult(0);
          }
          auto rowType = VectorType::get({shape.panelWidth}, f32);
          SmallVector<Value> lower(2, index(b, 0)), steps(2, index(b, 1));
          SmallVector<Value> upper = {index(b, shape.outH), index(b, rowPairs)};
          scf::LoopNest nest = scf::buildLoopNest(
              b, loc, lower, upper, steps, ValueRange{slice},
              [&](OpBuilder &b, Location loc, ValueRange ivs,
                  ValueRange carried) {
                Value even = arith::MulIOp::create(b, loc, ivs[1], index(b, 2));
                Value odd = arith::AddIOp::create(b, loc, even, index(b, 1));
                auto row = [&](Value pixel) {
                  return vector::TransferReadOp::create(
                             b, loc, rowType, shape.gradient,
                             ValueRange{image, ivs[0], pixel, filter},
                             f32Padding, ArrayRef<bool>{true})
                      .getResult();
                };
                Value words = buildPairWords(b, loc, row(even), row(odd));
                Value pair = arith::AddIOp::create(
                    b, loc,
                    arith::MulIOp::create(b, loc, ivs[0], index(b, rowPairs)),
                    ivs[1]);
                return SmallVector<Value>{vector::TransferWriteOp::create(
                                              b, loc, words, carried[0],
                                              ValueRange{pair, index(b, 0)},
                                              ArrayRef<bool>{true})
                                              .getResult()};
              });
          return nest.results[0];
        });
  }

  // Images are taken in blocks whose pair words fit `pairWordsBudget` (the
  // most images, dividing N, that do; at least one): the block's words
  // first, then every tile continues its sums over the block's images in
  // order. With `parallel` that is two parallel loops a block, not two an
  // image, and the words, written by both threads, stay in cache while
  // every tile reads them.
  int64_t phases = 2 * shape.strideW;
  int64_t rows = (shape.outH - 1) * shape.strideH +
                 (shape.kernelH - 1) * shape.dilationH + 1;
  int64_t wordsPerRow =
      rowPairs + (shape.kernelW - 1) * shape.dilationW / phases + 1;
  int64_t chunks = llvm::divideCeil(wordsPerRow, kLanes);
  int64_t wordsPerImage = phases * shape.channels * rows * chunks * kLanes;
  int64_t blockImages = 1;
  for (int64_t d = 1; d <= shape.batch; ++d)
    if (shape.batch % d == 0 &&
        d * wordsPerImage * int64_t(sizeof(int32_t)) <= pairWordsBudget)
      blockImages = d;

  auto computeBlock = [&](OpBuilder &builder, Value firstImage, Value output) {
    // A's pair words: for each image, phase k < 2·sw, channel c and input row
    // h, word j holds input columns 2·sw·j + k (high half, the pair's first
    // pixel, K even) and 2·sw·j + k + sw (low half), from a vector of
    // 32·sw columns (beyond the tensor: zeros, never used) split into the
    // pixels' columns and those into the pairs' first and second. The pair
    // of pixels (2·jj, 2·jj + 1) of output row oh at (kh, kw, c) is then
    // the word [k, c, oh·sh + kh·dh, jj + q] with kw·dw = 2·sw·q + k: every
    // (kh, kw) of the image reads the same words, none is packed twice.
    Value pairWords = tensor::EmptyOp::create(
        builder, loc,
        ArrayRef<int64_t>{blockImages, phases, shape.channels, rows,
                          chunks * kLanes},
        i32);
    // With `parallel`, one (image, phase, channel) an iteration.
    {
      auto columnsType = VectorType::get({kLanes * phases}, f32);
      int64_t elements = blockImages * wordsPerImage;
      pairWords = buildSliceNest(
          builder, loc, pairWords, {blockImages, phases, shape.channels},
          parallel && elements >= kMinParallelIterations,
          [&](OpBuilder &b, Location loc, ValueRange ivsOfSlice, Value slice) {
            Value image =
                arith::AddIOp::create(b, loc, firstImage, ivsOfSlice[0]);
            ValueRange outer = ivsOfSlice.drop_front();
            SmallVector<Value> lower(2, index(b, 0)), steps(2, index(b, 1));
            SmallVector<Value> upper = {index(b, rows), index(b, chunks)};
            scf::LoopNest nest = scf::buildLoopNest(
                b, loc, lower, upper, steps, ValueRange{slice},
                [&](OpBuilder &b, Location loc, ValueRange ivs,
                    ValueRange carried) {
                  Value column = arith::AddIOp::create(
                      b, loc, outer[0],
                      arith::MulIOp::create(b, loc, ivs[1],
                                            index(b, kLanes * phases)));
                  Value columns = vector::TransferReadOp::create(
                      b, loc, columnsType, shape.input,
                      ValueRange{image, outer[1], ivs[0], column}, f32Padding,
                      ArrayRef<bool>{false});
                  if (shape.strideW == 2)
                    columns = vector::DeinterleaveOp::create(b, loc, columns)
                                  .getRes1();
                  auto halves = vector::DeinterleaveOp::create(b, loc, columns);
                  Value words = buildPairWords(b, loc, halves.getRes1(),
                                               halves.getRes2());
                  Value word =
                      arith::MulIOp::create(b, loc, ivs[1], index(b, kLanes));
                  return SmallVector<Value>{
                      vector::TransferWriteOp::create(b, loc, words, carried[0],
                                                      ValueRange{ivs[0], word},
                                                      ArrayRef<bool>{true})
                          .getResult()};
                });
            return nest.results[0];
          });
    }
    // B: an image's words (packedB above).
    auto wordsOfB = [&](OpBuilder &b, Value image) -> Value {
      return tensor::ExtractSliceOp::create(
          b, loc, RankedTensorType::get({panels, pairs, shape.panelWidth}, i32),
          packedB,
          ArrayRef<OpFoldResult>{image, b.getIndexAttr(0), b.getIndexAttr(0),
                                 b.getIndexAttr(0)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(panels),
                                 b.getIndexAttr(pairs),
                                 b.getIndexAttr(shape.panelWidth)},
          ArrayRef<OpFoldResult>(
              SmallVector<OpFoldResult>(4, b.getIndexAttr(1))));
    };
    // The tiles, each continuing its sums over the block's images' pairs,
    // image by image.
    SmallVector<OpFoldResult> sizes = {builder.getIndexAttr(shape.tileRows),
                                       builder.getIndexAttr(shape.panelWidth)};
    SmallVector<OpFoldResult> strides(2, builder.getIndexAttr(1));
    auto tileType =
        RankedTensorType::get({shape.tileRows, shape.panelWidth}, f32);
    auto computeTile = [&](OpBuilder &b, ValueRange ivs, Value output,
                           SmallVector<OpFoldResult> &offsets) {
      Value row =
          arith::MulIOp::create(b, loc, ivs[1], index(b, shape.tileRows));
      Value column =
          arith::MulIOp::create(b, loc, ivs[0], index(b, shape.panelWidth));
      offsets = {row, column};
      Value tile = tensor::ExtractSliceOp::create(b, loc, tileType, output,
                                                  offsets, sizes, strides);
      // The tile's rows are (kh, kw, c0 .. c0 + 15): one phase and offset.
      auto divide = [&](Value v, int64_t d) {
        return arith::DivUIOp::create(b, loc, v, index(b, d)).getResult();
      };
      auto remainder = [&](Value v, int64_t d) {
        return arith::RemUIOp::create(b, loc, v, index(b, d)).getResult();
      };
      auto scaled = [&](Value v, int64_t factor) {
        return arith::MulIOp::create(b, loc, v, index(b, factor)).getResult();
      };
      Value window = divide(row, shape.channels);
      Value firstChannel = remainder(row, shape.channels);
      Value kernelColumn =
          scaled(remainder(window, shape.kernelW), shape.dilationW);
      Value phase = remainder(kernelColumn, phases);
      Value wordOffset = divide(kernelColumn, phases);
      Value rowOffset = scaled(divide(window, shape.kernelW), shape.dilationH);
      auto images = scf::ForOp::create(
          b, loc, index(b, 0), index(b, blockImages), index(b, 1),
          ValueRange{tile},
          [&](OpBuilder &b, Location loc, Value i, ValueRange carried) {
            auto wordOfA = [&](OpBuilder &b, Location loc, Value pair,
                               int64_t r) {
              Value h = arith::AddIOp::create(
                  b, loc,
                  scaled(
                      arith::DivUIOp::create(b, loc, pair, index(b, rowPairs)),
                      shape.strideH),
                  rowOffset);
              Value word = arith::AddIOp::create(
                  b, loc,
                  arith::RemUIOp::create(b, loc, pair, index(b, rowPairs)),
                  wordOffset);
              Value channel =
                  arith::AddIOp::create(b, loc, firstChannel, index(b, r));
              return tensor::ExtractOp::create(
                         b, loc, pairWords,
                         ValueRange{i, phase, channel, h, word})
                  .getResult();
            };
            Value imageB =
                wordsOfB(b, arith::AddIOp::create(b, loc, firstImage, i));
            auto rowOfB = [&](OpBuilder &b, Location loc, Value pair,
                              int64_t column) {
              return readPackedRow(b, loc, imageB, ivs[0], pair, column);
            };
            scf::YieldOp::create(
                b, loc,
                buildPackedTile(b, loc, wordOfA, rowOfB, carried[0], pairs,
                                shape.tileRows, shape.panelWidth,
                                /*accumulate=*/true));
          });
      return images.getResult(0);
    };
    return buildTileNest(builder, loc, output,
                         {panels, shape.m() / shape.tileRows}, sizes, parallel,
                         [&](OpBuilder &b, Location, ValueRange ivs,
                             Value whole, SmallVector<OpFoldResult> &offsets) {
                           return computeTile(b, ivs, whole, offsets);
                         });
  };

  auto loop = scf::ForOp::create(
      builder, loc, index(builder, 0), index(builder, shape.batch),
      index(builder, blockImages), ValueRange{init},
      [&](OpBuilder &b, Location loc, Value firstImage, ValueRange carried) {
        scf::YieldOp::create(b, loc, computeBlock(b, firstImage, carried[0]));
      });
  return tensor::ExpandShapeOp::create(
             builder, loc, op.getResult(0).getType(), loop.getResult(0),
             ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}})
      .getResult();
}
