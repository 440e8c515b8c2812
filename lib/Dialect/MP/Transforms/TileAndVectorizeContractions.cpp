//===- TileAndVectorizeContractions.cpp - Contraction tiles ---------------===//
//
// The contractions of mp-tile-and-vectorize: the host's register tile (M rows
// of N-element vectors, accumulated over K one step at a time), the packing of
// a contraction's operands into contiguous panels (widened while packing where
// the payload only widens them), the transposed N·K operand of a small dot
// contraction, the fusion of exact f16 products into FMAs, and implicit-GEMM
// convolutions (their M and N loops, the loops that shift their input rows kept
// rolled, their input elements read one by one). Assumes linalg.generic
// operations on tensors with static shapes, generalised and not yet tiled
// (readStretchedElements: the vectorised tiles). Values are moved or widened
// exactly; the products and the order of every sum are unchanged.
//
//===----------------------------------------------------------------------===//

#include "TileAndVectorize.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace mlir::mp;
using namespace mlir::mp::tiling;

/// True when `value` is an f16 value widened to f32 or f64 (`arith.extf`).
static bool isWidenedHalf(Value value) {
  auto extension = value.getDefiningOp<arith::ExtFOp>();
  return extension && extension.getIn().getType().isF16() &&
         (extension.getType().isF32() || extension.getType().isF64());
}

void tiling::markExactProducts(linalg::GenericOp op) {
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

void tiling::fuseExactProducts(RewriterBase &rewriter, linalg::GenericOp op) {
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
    Value addend =
        sum.getLhs() == product.getResult() ? sum.getRhs() : sum.getLhs();
    rewriter.setInsertionPoint(sum);
    rewriter.replaceOpWithNewOp<math::FmaOp>(sum, product.getLhs(),
                                             product.getRhs(), addend);
    rewriter.eraseOp(product);
  }
}

SmallVector<int64_t> tiling::getHostMatmulTileSizes() {
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

std::optional<linalg::ContractionDimensions>
tiling::getMatmulDims(linalg::LinalgOp op) {
  if (!linalg::isaContractionOpInterface(op))
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.empty() || dims->n.empty() || dims->k.empty())
    return std::nullopt;
  return *dims;
}

std::optional<std::pair<unsigned, unsigned>>
tiling::getImplicitConvDims(linalg::LinalgOp op) {
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

void tiling::keepRolled(Operation *loop) {
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

SmallVector<unsigned> tiling::getRolledLoops(linalg::LinalgOp op, unsigned m) {
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

void tiling::transposeDotOperand(RewriterBase &rewriter, linalg::GenericOp op,
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
    Value transposed = linalg::TransposeOp::create(
                           rewriter, loc, operand->get(), init, permutation)
                           ->getResult(0);
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    maps[operand->getOperandNumber()] =
        AffineMap::get(map.getNumDims(), map.getNumSymbols(), results, context);
    rewriter.modifyOpInPlace(op, [&] {
      operand->set(transposed);
      op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
    return;
  }
}

FloatType tiling::getWidening(BlockArgument argument,
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
    return std::make_pair(tensor::ExpandShapeOp::create(
                              rewriter, loc, expandedType, value, groups)
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

bool tiling::packContraction(RewriterBase &rewriter, linalg::GenericOp &op,
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

LogicalResult tiling::TransposeOfBroadcastToStretch::matchAndRewrite(
    vector::TransposeOp transpose, PatternRewriter &rewriter) const {
  auto broadcast = transpose.getVector().getDefiningOp<vector::BroadcastOp>();
  if (!broadcast || transpose.getPermutation() != ArrayRef<int64_t>{1, 0})
    return failure();
  auto sourceType = dyn_cast<VectorType>(broadcast.getSourceType());
  VectorType resultType = transpose.getResultVectorType();
  if (!sourceType || sourceType.getRank() != 1 || sourceType.isScalable() ||
      resultType.isScalable() ||
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

void tiling::readStretchedElements(RewriterBase &rewriter, Value input) {
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
