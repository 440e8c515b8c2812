//===- LinearAlgebra.cpp - Matmul-likes and convolutions to linalg --------===//
//
// Every contraction is one linalg op whose inputs keep their storage type and
// whose accumulator has `acc_type` (linalg extends the operands exactly, as a
// Tensor Core does), followed by one elementwise generic rounding to the
// result type when it differs:
//   matmul        → linalg.matmul (transposes as indexing_maps);
//   batch_matmul  → linalg.batch_matmul, batch dimensions collapsed to one;
//   linear        → linalg.matmul with the weight transposed, leading input
//                   dimensions collapsed; the bias is added to the
//                   accumulator before the single rounding;
//   conv2d        → zero padding (one scattering generic), im2col (one
//                   copying linalg.generic writing the matrix, no reshape
//                   and no copy after it) and linalg.matmul (groups 1)
//                   or linalg.batch_matmul over the groups (grouped and
//                   depthwise), then one generic that transposes the
//                   product to NCHW, adds the bias in the accumulator and
//                   rounds once. With at least 8 filters per group the
//                   product is pixel-major, im2colᵀ [N·OH·OW, C/G·KH·KW]
//                   times the filter [C/G·KH·KW, F/G], so that the operand
//                   the CPU pipeline vectorises is the small filter: when
//                   OW has a divisor P from 8 down to 4, the im2col is
//                   written in panels of P pixels [N·OH·OW/P, C/G·KH·KW, P]
//                   (the packed layout of the kernel's A operand: a tile of
//                   P rows reads one contiguous panel down K) and the
//                   product is a linalg.contract over (panel, pixel,
//                   filter, k), or, at unit width stride, no im2col is
//                   written: one generic reads the padded input directly
//                   (an implicit GEMM over (n, oh, owb, r, f, c, kh, kw));
//                   otherwise the im2col [C/G·KH·KW, N·OH·OW]
//                   is read transposed (rows of pixels, contiguous along
//                   ow). Narrower groups (depthwise) keep filter × im2col,
//                   vectorised along the pixels.
//                   Either way each output element is summed over (c, kh,
//                   kw), c outermost, as linalg.conv_2d_nchw_fchw does, so
//                   the orientation changes no bit and the contraction
//                   tiling and vectorisation of the CPU pipeline apply to
//                   convolutions;
//   conv2d_grad_input  → the transposed convolution: the gradient padded
//                   and convolved as above with the flipped,
//                   channel-transposed filter; with strides, one such
//                   convolution per phase (input positions ≡ (rh, rw) mod
//                   the strides) with the taps that reach gradient
//                   elements, scattered into the result, so the zeros the
//                   strides would put between the gradient's elements are
//                   never multiplied (each sum keeps the order of its
//                   nonzero terms);
//   conv2d_grad_filter → with at least 8 filters and 8 channels per group,
//                   no im2col: one generic reads the padded input directly
//                   (an implicit GEMM over ([g,] kh, kw, c, f, n, oh, ow),
//                   the channels its M rows, at any stride) times the
//                   transposed gradient [[G,] N, OH, OW, F/G]; otherwise
//                   im2col times the transposed gradient (at least 8
//                   filters per group) or the gradient times the transposed
//                   im2col, per group. Each is summed over (n, oh, ow), n
//                   outermost, and read back as FCHW by one rounding
//                   generic.
// FP8 operands are extended to the accumulator type once before the
// contraction (exact, so the result is the same as extending in the loop);
// so are the f16/bf16 operands of convolutions accumulating in f32, in the
// copies that make them (the padded input, im2col, filter matrix,
// transposed gradient).
// `compute tf32` first rounds the f32 operands to TF32 (10-bit mantissa,
// nearest with ties away from zero, as cvt.rna.tf32.f32) in integer
// arithmetic.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"
#include "Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mp/Dialect/MP/IR/MPOps.h"

#include <numeric>

using namespace mlir;
using namespace mlir::mp;
using namespace mlir::mp::lowering;

namespace {
/// Rounds the f32 values of `tensor` to TF32: ties away from zero on the 13
/// dropped mantissa bits; NaN and infinity are kept.
Value roundToTF32(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  return buildElementwise(
      b, loc, ValueRange{tensor}, type,
      [](OpBuilder &b, Location loc, ValueRange in,
         ValueRange) -> SmallVector<Value> {
        Value x = in[0];
        Type i32 = b.getI32Type();
        Value bits = arith::BitcastOp::create(b, loc, i32, x);
        Value half =
            arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0x1000));
        Value mask = arith::ConstantOp::create(
            b, loc, b.getI32IntegerAttr(static_cast<int32_t>(0xFFFFE000u)));
        Value rounded = arith::AndIOp::create(
            b, loc, arith::AddIOp::create(b, loc, bits, half), mask);
        Value result = arith::BitcastOp::create(b, loc, x.getType(), rounded);
        Value isNaN =
            arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
        return {arith::SelectOp::create(b, loc, isNaN, x, result)};
      });
}

/// Rounds the accumulator `acc` to `resultType` (a no-op when the element
/// types agree).
Value roundToResult(OpBuilder &b, Location loc, Value acc,
                    RankedTensorType resultType) {
  auto accType = cast<RankedTensorType>(acc.getType());
  if (accType.getElementType() == resultType.getElementType())
    return acc;
  auto roundedType =
      RankedTensorType::get(accType.getShape(), resultType.getElementType());
  return buildElementwise(
             b, loc, {identityOperand(acc)}, TypeRange{roundedType},
             [](OpBuilder &, Location, ValueRange in,
                ValueRange) -> SmallVector<Value> { return {in[0]}; },
             accType.getElementType())
      .front();
}

/// Adds `bias` (read with `biasMap`) to the accumulator in the accumulator's
/// type and rounds the sum once to `resultElementType`.
Value addBiasAndRound(OpBuilder &b, Location loc, Value acc, Value bias,
                      AffineMap biasMap, Type resultElementType) {
  auto accType = cast<RankedTensorType>(acc.getType());
  auto resultType =
      RankedTensorType::get(accType.getShape(), resultElementType);
  return buildElementwise(
             b, loc, {identityOperand(acc), {bias, biasMap}},
             TypeRange{resultType},
             [](OpBuilder &b, Location loc, ValueRange in,
                ValueRange) -> SmallVector<Value> {
               return {arith::AddFOp::create(b, loc, in[0], in[1])};
             },
             accType.getElementType())
      .front();
}

/// `tensor` with FP8 elements extended to `accType` once (exact), so that
/// the contraction's inner loop multiplies floats instead of decoding the
/// same FP8 operand bits M or N times; other tensors are returned as they are.
Value widenFP8Operand(OpBuilder &b, Location loc, Value tensor, Type accType) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (!isa<Float8E4M3FNType, Float8E5M2Type>(type.getElementType()))
    return tensor;
  return buildElementwise(
      b, loc, ValueRange{tensor}, type.clone(accType),
      [](OpBuilder &, Location, ValueRange in, ValueRange)
          -> SmallVector<Value> { return {in[0]}; },
      accType);
}

/// `op(lhs) × op(rhs)` of rank-2 (or, `batched`, rank-3) operands into a
/// zero accumulator of `accType`, with the transposes as indexing maps.
Value buildContraction(OpBuilder &b, Location loc, Value lhs, Value rhs,
                       bool transposeLhs, bool transposeRhs, Type accType,
                       bool batched) {
  lhs = widenFP8Operand(b, loc, lhs, accType);
  rhs = widenFP8Operand(b, loc, rhs, accType);
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  int64_t rank = lhsType.getRank();
  int64_t m = lhsType.getDimSize(rank - (transposeLhs ? 1 : 2));
  int64_t n = rhsType.getDimSize(rank - (transposeRhs ? 2 : 1));
  SmallVector<int64_t> shape;
  if (batched)
    shape.push_back(lhsType.getDimSize(0));
  shape.append({m, n});
  Value init = createZeroTensor(b, loc, shape, accType);

  MLIRContext *context = b.getContext();
  unsigned numLoops = batched ? 4 : 3;
  unsigned first = batched ? 1 : 0;
  AffineExpr dm = getAffineDimExpr(first, context);
  AffineExpr dn = getAffineDimExpr(first + 1, context);
  AffineExpr dk = getAffineDimExpr(first + 2, context);
  auto makeMap = [&](AffineExpr row, AffineExpr column) {
    SmallVector<AffineExpr> exprs;
    if (batched)
      exprs.push_back(getAffineDimExpr(0, context));
    exprs.append({row, column});
    return AffineMap::get(numLoops, 0, exprs, context);
  };
  SmallVector<AffineMap> maps{transposeLhs ? makeMap(dk, dm) : makeMap(dm, dk),
                              transposeRhs ? makeMap(dn, dk) : makeMap(dk, dn),
                              makeMap(dm, dn)};
  Operation *contraction;
  if (batched) {
    auto op =
        linalg::BatchMatmulOp::create(b, loc, TypeRange{init.getType()},
                                      ValueRange{lhs, rhs}, ValueRange{init});
    if (transposeLhs || transposeRhs)
      op.setIndexingMapsAttr(b.getAffineMapArrayAttr(maps));
    contraction = op;
  } else {
    auto op = linalg::MatmulOp::create(b, loc, TypeRange{init.getType()},
                                       ValueRange{lhs, rhs}, ValueRange{init});
    if (transposeLhs || transposeRhs)
      op.setIndexingMapsAttr(b.getAffineMapArrayAttr(maps));
    contraction = op;
  }
  return contraction->getResult(0);
}

/// Lowers matmul and batch_matmul.
template <typename OpTy>
struct MatmulLikeOpLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    constexpr bool batched = std::is_same_v<OpTy, BatchMatmulOp>;
    Location loc = op.getLoc();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    if (op.getCompute() == ComputeMode::tf32) {
      lhs = roundToTF32(rewriter, loc, lhs);
      rhs = roundToTF32(rewriter, loc, rhs);
    }
    auto resultType = cast<RankedTensorType>(op.getResult().getType());
    // Batch dimensions collapse into one for linalg.batch_matmul.
    auto collapseBatch = [&](Value value) {
      auto type = cast<RankedTensorType>(value.getType());
      ArrayRef<int64_t> shape = type.getShape();
      int64_t batch = 1;
      for (int64_t size : shape.drop_back(2))
        batch *= size;
      return reshapeTensor(rewriter, loc, value,
                           {batch, shape[shape.size() - 2], shape.back()});
    };
    if (batched) {
      lhs = collapseBatch(lhs);
      rhs = collapseBatch(rhs);
    }
    Value acc =
        buildContraction(rewriter, loc, lhs, rhs, op.getTransposeLhs(),
                         op.getTransposeRhs(), op.getAccType(), batched);
    Value result = roundToResult(rewriter, loc, acc, resultType);
    rewriter.replaceOp(
        op, reshapeTensor(rewriter, loc, result, resultType.getShape()));
    return success();
  }
};

struct LinearOpLowering : OpConversionPattern<LinearOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(LinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    auto resultType = op.getResult().getType();
    int64_t inFeatures = inputType.getShape().back();
    int64_t rows = inputType.getNumElements() / inFeatures;
    Value flat = reshapeTensor(rewriter, loc, input, {rows, inFeatures});
    Value acc = buildContraction(rewriter, loc, flat, adaptor.getWeight(),
                                 /*transposeLhs=*/false, /*transposeRhs=*/true,
                                 op.getAccType(), /*batched=*/false);
    Value result;
    if (Value bias = adaptor.getBias())
      result =
          addBiasAndRound(rewriter, loc, acc, bias,
                          AffineMap::get(2, 0, {rewriter.getAffineDimExpr(1)},
                                         rewriter.getContext()),
                          resultType.getElementType());
    else
      result =
          roundToResult(rewriter, loc, acc,
                        RankedTensorType::get(
                            cast<RankedTensorType>(acc.getType()).getShape(),
                            resultType.getElementType()));
    rewriter.replaceOp(
        op, reshapeTensor(rewriter, loc, result, resultType.getShape()));
    return success();
  }
};

/// A copy of `tensor` (bufferization.alloc_tensor copy(...) marked
/// mp.fusion_barrier) that linalg's reshape propagation and elementwise
/// fusion do not look through; mp-drop-fusion-barriers replaces it by
/// `tensor` again before bufferization, so that no copy is made. Without
/// it, the reshape between a copying generic (the filter gradient's
/// transposed dY) and its matrix product turns the product into a generic
/// with one loop per dimension of the copy, into which the copy is then
/// fused: a loop nest the CPU pipeline cannot vectorise. (buildIm2Col needs
/// none: it writes its matrix directly.)
Value buildFusionBarrier(OpBuilder &b, Location loc, Value tensor) {
  auto barrier = bufferization::AllocTensorOp::create(
      b, loc, cast<RankedTensorType>(tensor.getType()), ValueRange{}, tensor);
  barrier->setAttr(MPDialect::kFusionBarrierAttrName, b.getUnitAttr());
  return barrier.getResult();
}

/// `tensor` with FP8 elements extended to `accType` once (widenFP8Operand)
/// behind a fusion barrier (buildFusionBarrier): an operand of an implicit
/// product, a linalg.generic, into which linalg's elementwise fusion would
/// fold the widening, making it an operation on FP8 values, which the CPU
/// pipeline leaves as scalar loops. Other tensors are returned as they are.
Value widenFP8OperandOfGeneric(OpBuilder &b, Location loc, Value tensor,
                               Type accType) {
  Value widened = widenFP8Operand(b, loc, tensor, accType);
  return widened == tensor ? tensor : buildFusionBarrier(b, loc, widened);
}

/// The element type a convolution's operand copies (im2col, filter matrix,
/// transposed gradient) write for a contraction accumulating in `accType`:
/// f16 and bf16 become f32 when the accumulator is f32 (exact, and the
/// product extends its operands to the accumulator anyway, so the bits are
/// the same), so that the contraction's inner loop multiplies floats
/// instead of extending the same 16-bit elements once per use; other types
/// stay (FP8 operands are widened by buildContraction).
Type getConvOperandType(Type elementType, Type accType) {
  if (isa<Float16Type, BFloat16Type>(elementType) && accType.isF32())
    return accType;
  return elementType;
}

/// A copying linalg.generic over the identity of `shape`, reading `source`
/// with `map` (any affine map), its elements extended to `elementType`
/// (the source's by default).
Value buildCopy(OpBuilder &b, Location loc, Value source, AffineMap map,
                ArrayRef<int64_t> shape, Type elementType = {}) {
  if (!elementType)
    elementType = cast<RankedTensorType>(source.getType()).getElementType();
  return buildGeneric(
             b, loc, {{source, map}},
             {identityOperand(createEmptyTensor(b, loc, shape, elementType))},
             SmallVector<utils::IteratorType>(shape.size(),
                                              utils::IteratorType::parallel),
             elementType,
             [](OpBuilder &, Location, ValueRange in,
                ValueRange) -> SmallVector<Value> { return {in[0]}; })
      .front();
}

/// The filter of a convolution as an operand of its matrix product:
/// [G, F/G, C/G·KH·KW] (or [F, C/G·KH·KW] for one group), element (g, f,
/// (c, kh, kw)) read from `filter` at `filterMap`(g·F/G + f, c, kh, kw) —
/// or, `transposed`, [G, C/G·KH·KW, F/G] (the right operand of a
/// pixel-major product, buildConv2D), its elements of getConvOperandType
/// for `accType`. `filterShape` is the logical [F, C/G, KH, KW];
/// `filterMap` the identity or, for the input gradient, the flip of the
/// forward filter.
Value buildFilterMatrix(OpBuilder &b, Location loc, Value filter,
                        AffineMap filterMap, ArrayRef<int64_t> filterShape,
                        int64_t groups, bool transposed, Type accType) {
  MLIRContext *context = b.getContext();
  int64_t groupFilters = filterShape[0] / groups;
  int64_t kernelH = filterShape[2], kernelW = filterShape[3];
  unsigned numLoops = groups == 1 ? 2 : 3;
  AffineExpr f = getAffineDimExpr(numLoops - (transposed ? 1 : 2), context);
  AffineExpr k = getAffineDimExpr(numLoops - (transposed ? 2 : 1), context);
  if (groups != 1)
    f = getAffineDimExpr(0, context) * groupFilters + f;
  AffineMap logical = AffineMap::get(
      numLoops, 0,
      {f, k.floorDiv(kernelH * kernelW), (k.floorDiv(kernelW)) % kernelH,
       k % kernelW},
      context);
  int64_t patchSize = filterShape[1] * kernelH * kernelW;
  SmallVector<int64_t> shape;
  if (groups != 1)
    shape.push_back(groups);
  if (transposed)
    shape.append({patchSize, groupFilters});
  else
    shape.append({groupFilters, patchSize});
  Type elementType = getConvOperandType(
      cast<RankedTensorType>(filter.getType()).getElementType(), accType);
  return buildCopy(b, loc, filter, filterMap.compose(logical), shape,
                   elementType);
}

/// The payload of a generic that scatters `x` into a zero tensor (an output
/// map that does not index every element): `x` itself, written so that the
/// payload reads the zero `zero` it replaces, ordered(x, x) ? x : x + 0
/// (NaN stays NaN), so that the zero fill of the elements it does not write
/// stays (a payload that ignores its output lets linalg replace the fill by
/// an empty tensor). `zero` is converted to the type of `x`.
Value replaceScatteredZero(OpBuilder &b, Location loc, Value x, Value zero) {
  zero = convertFloat(b, loc, zero, x.getType());
  Value sum = arith::AddFOp::create(b, loc, x, zero);
  Value ordered =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ORD, x, x);
  return arith::SelectOp::create(b, loc, ordered, x, sum);
}

/// `input` (NCHW) padded with zeros by `padLow`/`padHigh` in each spatial
/// dimension (a negative padding crops: a tensor.extract_slice). One
/// copying generic whose output map scatters the input into a zero tensor
/// (the elements it does not index keep the zeros; its payload reads them,
/// so the fill stays): tensor.pad and strided tensor.insert_slice would
/// bufferize to memref.copy into a strided view, an element-by-element
/// runtime call, and a gathering generic vectorises into slow gathers. A
/// dimension padded after but not before is padded by one more zero before,
/// which the slice crops (a plain loop dimension in the output map would
/// have to be as long as the input's). With `elementType`, the padded
/// tensor has elements of that type (a widening of the input's, exact:
/// the f32 operands of an AMP convolution, getConvOperandType), written by
/// the scattering generic; a tensor that needs no padding keeps its own.
Value buildPadded(OpBuilder &b, Location loc, Value input,
                  ArrayRef<int64_t> padLow, ArrayRef<int64_t> padHigh,
                  Type elementType = {}) {
  auto inputType = cast<RankedTensorType>(input.getType());
  ArrayRef<int64_t> inputShape = inputType.getShape();
  SmallVector<int64_t> shape(inputShape), cropOffsets(4, 0), sizes(shape);
  bool scatter = false, crop = false;
  MLIRContext *context = b.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
  SmallVector<AffineExpr> outputIndices{d(0), d(1)};
  for (int i = 0; i < 2; ++i) {
    int64_t dim = 2 + i;
    int64_t high = std::max<int64_t>(padHigh[i], 0);
    int64_t low = std::max<int64_t>(padLow[i], high > 0 ? 1 : 0);
    shape[dim] = inputShape[dim] + low + high;
    outputIndices.push_back(d(dim) + low);
    scatter |= low > 0 || high > 0;
    cropOffsets[dim] = low - padLow[i];
    sizes[dim] = inputShape[dim] + padLow[i] + padHigh[i];
    crop |= cropOffsets[dim] > 0 || sizes[dim] != shape[dim];
  }
  if (!scatter || !elementType)
    elementType = inputType.getElementType();
  if (scatter) {
    Value zeros = createZeroTensor(b, loc, shape, elementType);
    input =
        buildGeneric(
            b, loc, {identityOperand(input)},
            {{zeros, AffineMap::get(4, 0, outputIndices, context)}},
            SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
            elementType,
            [](OpBuilder &b, Location loc, ValueRange in,
               ValueRange out) -> SmallVector<Value> {
              return {replaceScatteredZero(b, loc, in[0], out[0])};
            })
            .front();
  }
  if (!crop)
    return input;
  return tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get(sizes, elementType), input, ValueRange{},
      ValueRange{}, ValueRange{}, cropOffsets, sizes,
      SmallVector<int64_t>(4, 1));
}

/// The map of `exprs` over `numLoops` loops, led by the group loop d0 when
/// there is more than one group.
static AffineMap getGroupedMap(unsigned numLoops, int64_t groups,
                               ArrayRef<AffineExpr> exprs,
                               MLIRContext *context) {
  SmallVector<AffineExpr> results;
  if (groups != 1)
    results.push_back(getAffineDimExpr(0, context));
  results.append(exprs.begin(), exprs.end());
  return AffineMap::get(numLoops, 0, results, context);
}

/// The input map of an im2col copy over `numLoops` loops (the group loop
/// first when `groups` is not 1): (n, g·C/G + c, oh·sh + kh·dh, ow·sw +
/// kw·dw) for the output pixel (n, oh, ow) and the patch element (c, kh,
/// kw).
AffineMap getIm2ColInputMap(unsigned numLoops, int64_t groups,
                            int64_t groupChannels, AffineExpr n, AffineExpr c,
                            AffineExpr oh, AffineExpr ow, AffineExpr kh,
                            AffineExpr kw, ArrayRef<int64_t> strides,
                            ArrayRef<int64_t> dilation) {
  MLIRContext *context = n.getContext();
  AffineExpr channel =
      groups == 1 ? c : getAffineDimExpr(0, context) * groupChannels + c;
  return AffineMap::get(numLoops, 0,
                        {n, channel, oh * strides[0] + kh * dilation[0],
                         ow * strides[1] + kw * dilation[1]},
                        context);
}

/// Appends the group dimensions [G, C/G] (loops g, the first, and `c`) of
/// an im2col's window tensor when `groups` is not 1.
void appendGroupWindow(int64_t groups, int64_t groupChannels, AffineExpr c,
                       SmallVectorImpl<int64_t> &shape,
                       SmallVectorImpl<AffineExpr> &exprs) {
  if (groups == 1)
    return;
  shape.append({groups, groupChannels});
  exprs.append({getAffineDimExpr(0, c.getContext()), c});
}

/// A copying linalg.generic writing a new tensor of `shape` and
/// `elementType` at `outputMap` from `input` read at `inputMap` (extended
/// to `elementType`), its loops' extents completed by `window`, an empty
/// tensor read only for its shape at `windowMap` (the im2col copies).
Value buildWindowedCopy(OpBuilder &b, Location loc, Value input,
                        AffineMap inputMap, Value window, AffineMap windowMap,
                        ArrayRef<int64_t> shape, AffineMap outputMap,
                        Type elementType) {
  return buildGeneric(
             b, loc, {{input, inputMap}, {window, windowMap}},
             {{createEmptyTensor(b, loc, shape, elementType), outputMap}},
             SmallVector<utils::IteratorType>(outputMap.getNumDims(),
                                              utils::IteratorType::parallel),
             elementType,
             [](OpBuilder &, Location, ValueRange in,
                ValueRange) -> SmallVector<Value> { return {in[0]}; })
      .front();
}

/// The im2col matrices of the padded NCHW `input` (buildPadded) for a
/// convolution with `groups` groups, a `kernel` (KH, KW) and an output of
/// `outputSpatial` (OH, OW), one per group: col[g][(c, kh, kw)][(n, oh, ow)]
/// = input[n, g·C/G + c, oh·sh + kh·dh, ow·sw + kw·dw], a tensor
/// [G, C/G·KH·KW, N·OH·OW] — or, `transposed`, [G, N·OH·OW, C/G·KH·KW];
/// without the G dimension (and its loop) for one group. One copying
/// linalg.generic over the loops ([g,] c, kh, kw, n, oh, ow) (or ([g,] n,
/// oh, ow, c, kh, kw)) whose input map is affine and whose output map
/// linearises (c, kh, kw) and (n, oh, ow) into the matrix indices: no
/// reshape follows, so linalg's reshape propagation has nothing to push into
/// the product (which would turn it into a generic with one loop per
/// convolution dimension, the im2col fused in: the naive convolution loop
/// nest the CPU pipeline cannot vectorise), and the matrix is written once.
/// Loops that no operand indexes as a plain dimension (kh, kw, oh, ow, and
/// g and c when grouped) take their extents from a second input that is
/// only read for its shape, an empty tensor [[G, C/G,] KH, KW, OH, OW], as
/// the window operand of linalg's pooling ops. The matrix has elements of
/// getConvOperandType for `accType`.
Value buildIm2Col(OpBuilder &b, Location loc, Value input,
                  ArrayRef<int64_t> kernel, ArrayRef<int64_t> outputSpatial,
                  ArrayRef<int64_t> strides, ArrayRef<int64_t> dilation,
                  int64_t groups, bool transposed, Type accType) {
  auto inputType = cast<RankedTensorType>(input.getType());
  Type elementType =
      getConvOperandType(inputType.getElementType(), accType);
  int64_t batch = inputType.getDimSize(0);
  int64_t groupChannels = inputType.getDimSize(1) / groups;
  // Loop positions: the patch element (c, kh, kw) and the output pixel
  // (n, oh, ow), in the order of the result's dimensions, after g.
  unsigned first = groups == 1 ? 0 : 1;
  unsigned numLoops = first + 6;
  unsigned patch = first + (transposed ? 3 : 0);
  unsigned pixel = first + (transposed ? 0 : 3);
  MLIRContext *context = b.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
  AffineExpr c = d(patch), kh = d(patch + 1), kw = d(patch + 2),
             n = d(pixel), oh = d(pixel + 1), ow = d(pixel + 2);
  AffineMap inputMap = getIm2ColInputMap(numLoops, groups, groupChannels, n,
                                         c, oh, ow, kh, kw, strides, dilation);
  SmallVector<int64_t> windowShape;
  SmallVector<AffineExpr> windowExprs;
  appendGroupWindow(groups, groupChannels, c, windowShape, windowExprs);
  windowShape.append(
      {kernel[0], kernel[1], outputSpatial[0], outputSpatial[1]});
  windowExprs.append({kh, kw, oh, ow});
  Value window = createEmptyTensor(b, loc, windowShape,
                                   inputType.getElementType());

  AffineExpr patchIndex = (c * kernel[0] + kh) * kernel[1] + kw;
  AffineExpr pixelIndex = (n * outputSpatial[0] + oh) * outputSpatial[1] + ow;
  int64_t patchSize = groupChannels * kernel[0] * kernel[1];
  int64_t pixels = batch * outputSpatial[0] * outputSpatial[1];
  SmallVector<int64_t> matrixShape;
  SmallVector<AffineExpr> matrixIndices;
  if (groups != 1) {
    matrixShape.push_back(groups);
    matrixIndices.push_back(d(0));
  }
  if (transposed) {
    matrixShape.append({pixels, patchSize});
    matrixIndices.append({pixelIndex, patchIndex});
  } else {
    matrixShape.append({patchSize, pixels});
    matrixIndices.append({patchIndex, pixelIndex});
  }
  return buildWindowedCopy(
      b, loc, input, inputMap, window,
      AffineMap::get(numLoops, 0, windowExprs, context), matrixShape,
      AffineMap::get(numLoops, 0, matrixIndices, context), elementType);
}

/// Matrix products of a convolution with at least this many filters per
/// group are pixel-major (buildConv2D): the filters are the product's N
/// dimension, which the CPU pipeline vectorises, so fewer would leave the
/// vectors part empty.
constexpr int64_t kMinPixelMajorFilters = 8;

/// True when the products of a convolution with `groupFilters` filters per
/// group are pixel-major: output pixels as rows, filters as columns.
bool isPixelMajor(int64_t groupFilters) {
  return groupFilters >= kMinPixelMajorFilters;
}

/// The rows of the pixel panels of a pixel-major product (buildConv2D): the
/// largest divisor of the output width `outputWidth` from
/// kMaxPixelPanel down to kMinPixelPanel, or 0 when there is none (the
/// product then reads the im2col transposed). kMaxPixelPanel is the M tile
/// of mp-tile-and-vectorize's AVX-512 register tile, so that a tile's rows
/// are one panel.
constexpr int64_t kMaxPixelPanel = 8, kMinPixelPanel = 4;
int64_t getPixelPanel(int64_t outputWidth) {
  for (int64_t panel = kMaxPixelPanel; panel >= kMinPixelPanel; --panel)
    if (outputWidth % panel == 0)
      return panel;
  return 0;
}

/// The im2col of the padded NCHW `input` in the panel layout of a
/// pixel-major product: col[g][p][(c, kh, kw)][r] = input[n, g·C/G + c,
/// oh·sh + kh·dh, (owb·P + r)·sw + kw·dw] with the output pixel (n, oh, owb·P
/// + r) and panel p = (n·OH + oh)·OW/P + owb, a tensor [G, N·OH·OW/P,
/// C/G·KH·KW, P] (`panel` P divides OW; no G for one group). Each panel of P
/// pixels holds its patch elements one after the other, the P pixels of
/// each contiguous: the product's tile of P rows reads one contiguous panel
/// down K (the kernel's packed A layout) instead of P pixels of each of K
/// rows N·OH·OW elements apart. One copying linalg.generic over the loops
/// ([g,] n, oh, owb, c, kh, kw, r), the output in order, the innermost loop
/// along r (a row of P pixels, contiguous in the input at stride 1); the
/// loops not indexed plainly by the input take their extents from an empty
/// window tensor [[G, C/G,] OH, OW/P, KH, KW, P] (as buildIm2Col). Elements
/// of getConvOperandType for `accType`.
Value buildIm2ColPanels(OpBuilder &b, Location loc, Value input,
                        ArrayRef<int64_t> kernel,
                        ArrayRef<int64_t> outputSpatial,
                        ArrayRef<int64_t> strides, ArrayRef<int64_t> dilation,
                        int64_t groups, int64_t panel, Type accType) {
  auto inputType = cast<RankedTensorType>(input.getType());
  Type elementType = getConvOperandType(inputType.getElementType(), accType);
  int64_t batch = inputType.getDimSize(0);
  int64_t groupChannels = inputType.getDimSize(1) / groups;
  int64_t panelsPerRow = outputSpatial[1] / panel;
  unsigned first = groups == 1 ? 0 : 1;
  unsigned numLoops = first + 7;
  MLIRContext *context = b.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
  AffineExpr n = d(first), oh = d(first + 1), owb = d(first + 2),
             c = d(first + 3), kh = d(first + 4), kw = d(first + 5),
             r = d(first + 6);
  AffineMap inputMap =
      getIm2ColInputMap(numLoops, groups, groupChannels, n, c, oh,
                        owb * panel + r, kh, kw, strides, dilation);
  SmallVector<int64_t> windowShape;
  SmallVector<AffineExpr> windowExprs;
  appendGroupWindow(groups, groupChannels, c, windowShape, windowExprs);
  windowShape.append(
      {outputSpatial[0], panelsPerRow, kernel[0], kernel[1], panel});
  windowExprs.append({oh, owb, kh, kw, r});
  Value window =
      createEmptyTensor(b, loc, windowShape, inputType.getElementType());

  SmallVector<int64_t> matrixShape;
  SmallVector<AffineExpr> matrixIndices;
  if (groups != 1) {
    matrixShape.push_back(groups);
    matrixIndices.push_back(d(0));
  }
  matrixShape.append({batch * outputSpatial[0] * panelsPerRow,
                      groupChannels * kernel[0] * kernel[1], panel});
  matrixIndices.append({(n * outputSpatial[0] + oh) * panelsPerRow + owb,
                        (c * kernel[0] + kh) * kernel[1] + kw, r});
  return buildWindowedCopy(
      b, loc, input, inputMap, window,
      AffineMap::get(numLoops, 0, windowExprs, context), matrixShape,
      AffineMap::get(numLoops, 0, matrixIndices, context), elementType);
}

/// The pixel-major product of the panel im2col `col` [[G,] N·OH·OW/P, K, P]
/// (buildIm2ColPanels) and the transposed filter `matrix` [[G,] K, F/G]
/// into a zero accumulator of `accType`: one linalg.contract over ([g,] p,
/// r, f, k), acc[[g,] p, r, f] += col[[g,] p, k, r] · matrix[[g,] k, f], k
/// the reduction (the body of linalg.matmul: the operands extended to
/// `accType`, out + a·b), collapsed to the [[G,] N·OH·OW, F/G] of the
/// transposed-im2col product. A named operation, as the other products:
/// linalg's elementwise fusion would fuse the filter's copy into a generic,
/// whose gathering map is no contraction the CPU pipeline tiles. The pixels of
/// a panel are an M loop of their own, so mp-tile-and-vectorize's tile of
/// P rows reads the panel as it would a packed A.
Value buildPanelContraction(OpBuilder &b, Location loc, Value col,
                            Value matrix, Type accType) {
  col = widenFP8Operand(b, loc, col, accType);
  matrix = widenFP8Operand(b, loc, matrix, accType);
  auto colType = cast<RankedTensorType>(col.getType());
  auto matrixType = cast<RankedTensorType>(matrix.getType());
  bool batched = colType.getRank() == 4;
  unsigned first = batched ? 1 : 0;
  int64_t panels = colType.getDimSize(first);
  int64_t panel = colType.getDimSize(first + 2);
  int64_t filters = matrixType.getDimSize(first + 1);
  MLIRContext *context = b.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
  AffineExpr p = d(first), r = d(first + 1), f = d(first + 2),
             k = d(first + 3);
  unsigned numLoops = first + 4;
  auto makeMap = [&](ArrayRef<AffineExpr> exprs) {
    SmallVector<AffineExpr> results;
    if (batched)
      results.push_back(d(0));
    results.append(exprs.begin(), exprs.end());
    return AffineMap::get(numLoops, 0, results, context);
  };
  SmallVector<int64_t> shape;
  if (batched)
    shape.push_back(colType.getDimSize(0));
  shape.append({panels, panel, filters});
  Value init = createZeroTensor(b, loc, shape, accType);
  Value acc =
      linalg::ContractOp::create(
          b, loc, TypeRange{init.getType()}, ValueRange{col, matrix},
          ValueRange{init},
          b.getAffineMapArrayAttr({makeMap({p, k, r}), makeMap({k, f}),
                                   makeMap({p, r, f})}))
          .getResult(0);
  SmallVector<int64_t> collapsed;
  if (batched)
    collapsed.push_back(shape[0]);
  collapsed.append({panels * panel, filters});
  return reshapeTensor(b, loc, acc, collapsed);
}

/// The payload of the implicit convolution products (buildImplicitConv,
/// buildImplicitGradFilter): out + a·b, the product and the sum rounded
/// separately, as linalg.matmul's.
SmallVector<Value> multiplyAccumulate(OpBuilder &b, Location loc, ValueRange in,
                                      ValueRange out) {
  Value product = arith::MulFOp::create(b, loc, in[0], in[1]);
  return {arith::AddFOp::create(b, loc, out[0], product)};
}

/// The pixel-major product of a convolution with unit width stride read
/// directly from its padded NCHW `input` (buildPadded), no im2col (an
/// implicit GEMM): acc[[g,] n, oh, owb, r, f] += input[n, g·C/G + c, oh·sh +
/// kh·dh, owb·P + r + kw·dw] · w[[g,] c, kh, kw, f] over (c, kh, kw), c
/// outermost, the order of the im2col products, into a zero accumulator of
/// `accType`, with P = `panel` pixels of an output row, w the filter read
/// with `filterMap` copied to [[G,] C/G, KH, KW, F/G] (behind a fusion
/// barrier: fused into the product, the copy's read would be its gathering
/// map), the elements extended to `accType` in the payload (exact). One
/// linalg.generic over ([g,] n, oh, owb, r, f, c, kh, kw), collapsed to the
/// [[G,] N·OH·OW, F/G] of the other products. mp-tile-and-vectorize tiles it
/// as a contraction (getImplicitConvDims): a tile of the P pixels of a
/// panel, a row of filters each, reads P contiguous input elements per
/// (c, kh, kw) (one by one, its kw loop kept rolled: getRolledLoops), so
/// the product reads the padded input, 1/(KH·KW) of the im2col, and
/// nothing writes the im2col.
Value buildImplicitConv(OpBuilder &b, Location loc, Value input, Value filter,
                        AffineMap filterMap, ArrayRef<int64_t> filterShape,
                        ArrayRef<int64_t> outputSpatial,
                        ArrayRef<int64_t> strides, ArrayRef<int64_t> dilation,
                        int64_t groups, int64_t panel, Type accType) {
  input = widenFP8OperandOfGeneric(b, loc, input, accType);
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t batch = inputType.getDimSize(0);
  int64_t groupChannels = filterShape[1];
  int64_t groupFilters = filterShape[0] / groups;
  int64_t kernelH = filterShape[2], kernelW = filterShape[3];
  int64_t panelsPerRow = outputSpatial[1] / panel;
  MLIRContext *context = b.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };

  // w[[g,] c, kh, kw, f] = filter at filterMap(g·F/G + f, c, kh, kw).
  unsigned first = groups == 1 ? 0 : 1;
  AffineExpr filterIndex =
      groups == 1 ? d(3) : d(0) * groupFilters + d(first + 3);
  AffineMap logical = AffineMap::get(
      first + 4, 0, {filterIndex, d(first), d(first + 1), d(first + 2)},
      context);
  SmallVector<int64_t> weightShape;
  if (groups != 1)
    weightShape.push_back(groups);
  weightShape.append({groupChannels, kernelH, kernelW, groupFilters});
  Value weights = buildFusionBarrier(
      b, loc,
      widenFP8Operand(b, loc,
                      buildCopy(b, loc, filter, filterMap.compose(logical),
                                weightShape,
                                getConvOperandType(
                                    cast<RankedTensorType>(filter.getType())
                                        .getElementType(),
                                    accType)),
                      accType));

  // Loops ([g,] n, oh, owb, r, f, c, kh, kw).
  unsigned numLoops = first + 8;
  AffineExpr n = d(first), oh = d(first + 1), owb = d(first + 2),
             r = d(first + 3), f = d(first + 4), c = d(first + 5),
             kh = d(first + 6), kw = d(first + 7);
  AffineExpr channel = groups == 1 ? c : d(0) * groupChannels + c;
  auto withGroup = [&](ArrayRef<AffineExpr> exprs) {
    return getGroupedMap(numLoops, groups, exprs, context);
  };
  AffineMap inputMap = AffineMap::get(
      numLoops, 0,
      {n, channel, oh * strides[0] + kh * dilation[0],
       owb * panel + r + kw * dilation[1]},
      context);
  SmallVector<int64_t> accShape;
  if (groups != 1)
    accShape.push_back(groups);
  accShape.append(
      {batch, outputSpatial[0], panelsPerRow, panel, groupFilters});
  SmallVector<utils::IteratorType> iterators(numLoops,
                                             utils::IteratorType::parallel);
  for (unsigned i = numLoops - 3; i < numLoops; ++i)
    iterators[i] = utils::IteratorType::reduction;
  Value acc =
      buildGeneric(b, loc,
                   {{input, inputMap}, {weights, withGroup({c, kh, kw, f})}},
                   {{createZeroTensor(b, loc, accShape, accType),
                     withGroup({n, oh, owb, r, f})}},
                   iterators, accType, multiplyAccumulate)
          .front();
  SmallVector<int64_t> collapsed;
  if (groups != 1)
    collapsed.push_back(groups);
  collapsed.append({batch * outputSpatial[0] * outputSpatial[1], groupFilters});
  return reshapeTensor(b, loc, acc, collapsed);
}

/// Filter gradients with at least this many channels per group (and
/// kMinPixelMajorFilters filters) are implicit (buildImplicitGradFilter):
/// the channels are the M rows of the CPU pipeline's register tile (8 on
/// AVX-512 hosts), so fewer would leave the tile part empty.
constexpr int64_t kMinImplicitGradFilterChannels = 8;

/// The filter gradient of a convolution read directly from its padded NCHW
/// `input` (buildPadded), no im2col: acc[[g,] kh, kw, c, f] += input[n,
/// g·C/G + c, oh·sh + kh·dh, ow·sw + kw·dw] · dYᵀ[[g,] n, oh, ow, f] over
/// (n, oh, ow), n outermost (the order of the im2col product col · dYᵀ),
/// into a zero accumulator of `accType`, with `gradT` the transposed
/// gradient [[G,] N, OH, OW, F/G] (behind a fusion barrier: fused into the
/// product, the transposing copy's read would be its gathering map; FP8
/// elements already widened), the input's FP8 elements widened once
/// (widenFP8OperandOfGeneric) and other elements extended to `accType` in
/// the payload (exact), and `kernel` (KH, KW). One linalg.generic over ([g,]
/// kh, kw, c, f, n, oh, ow). mp-tile-and-vectorize tiles it as a contraction
/// (getImplicitConvDims): a tile of channels c, a row of filters each,
/// broadcasts per (n, oh, ow) one input element per channel (a column of
/// the padded input, as it reads a column of a matmul's A in place) and
/// reads one row of dYᵀ, so the product reads the padded input, 1/(KH·KW)
/// of the im2col, at any stride and dilation, and nothing writes the
/// im2col. Returns the accumulator [[G,] KH, KW, C/G, F/G] (no G for one
/// group).
Value buildImplicitGradFilter(OpBuilder &b, Location loc, Value input,
                              Value gradT, ArrayRef<int64_t> kernel,
                              int64_t groups, ArrayRef<int64_t> strides,
                              ArrayRef<int64_t> dilation, Type accType) {
  input = widenFP8OperandOfGeneric(b, loc, input, accType);
  int64_t groupChannels =
      cast<RankedTensorType>(input.getType()).getDimSize(1) / groups;
  int64_t groupFilters =
      cast<RankedTensorType>(gradT.getType()).getShape().back();
  MLIRContext *context = b.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
  // Loops ([g,] kh, kw, c, f, n, oh, ow).
  unsigned first = groups == 1 ? 0 : 1;
  unsigned numLoops = first + 7;
  AffineExpr kh = d(first), kw = d(first + 1), c = d(first + 2),
             f = d(first + 3), n = d(first + 4), oh = d(first + 5),
             ow = d(first + 6);
  AffineMap inputMap = getIm2ColInputMap(numLoops, groups, groupChannels, n, c,
                                         oh, ow, kh, kw, strides, dilation);
  auto withGroup = [&](ArrayRef<AffineExpr> exprs) {
    return getGroupedMap(numLoops, groups, exprs, context);
  };
  SmallVector<int64_t> accShape;
  if (groups != 1)
    accShape.push_back(groups);
  accShape.append({kernel[0], kernel[1], groupChannels, groupFilters});
  SmallVector<utils::IteratorType> iterators(numLoops,
                                             utils::IteratorType::parallel);
  for (unsigned i = numLoops - 3; i < numLoops; ++i)
    iterators[i] = utils::IteratorType::reduction;
  return buildGeneric(b, loc,
                      {{input, inputMap}, {gradT, withGroup({n, oh, ow, f})}},
                      {{createZeroTensor(b, loc, accShape, accType),
                        withGroup({kh, kw, c, f})}},
                      iterators, accType, multiplyAccumulate)
      .front();
}

/// A convolution of the NCHW `input` by a filter of logical shape
/// `filterShape` [F, C/G, KH, KW] read from `filter` with `filterMap`
/// (buildFilterMatrix), into a zero accumulator of `accType`, as im2col and
/// one matrix product per group (linalg.matmul for one group,
/// linalg.batch_matmul over the groups otherwise). With F/G of at least
/// kMinPixelMajorFilters the product is pixel-major: colᵀ [N·OH·OW,
/// C/G·KH·KW] times the transposed filter [C/G·KH·KW, F/G], so that the
/// operand the CPU pipeline vectorises along is the filters, not the
/// pixels; colᵀ is the im2col in panels of getPixelPanel(OW) pixels
/// (buildIm2ColPanels, buildPanelContraction) or, when OW has no such
/// divisor, a transposed read of col [C/G·KH·KW, N·OH·OW], whose copy
/// writes rows of pixels, contiguous along ow as the input is; else the
/// filter [F/G,
/// C/G·KH·KW] times col (depthwise and other narrow groups, vectorised along
/// the pixels). The input is first padded by `padLow`/`padHigh`
/// (buildPadded). Either way each output element is summed in the order of
/// linalg.conv_2d_nchw_fchw: over (c, kh, kw), c outermost, so the bits do
/// not depend on the orientation. Returns the
/// accumulator, [G, N·OH·OW, F/G] or [G, F/G, N·OH·OW] (no G for one group),
/// and sets `outputShape` to [N, F, OH, OW]; buildConvResult makes the NCHW
/// result.
Value buildConv2D(OpBuilder &b, Location loc, Value input, Value filter,
                  AffineMap filterMap, ArrayRef<int64_t> filterShape,
                  Type accType, ArrayRef<int64_t> strides,
                  ArrayRef<int64_t> dilation, int64_t groups,
                  ArrayRef<int64_t> padLow, ArrayRef<int64_t> padHigh,
                  SmallVectorImpl<int64_t> &outputShape) {
  auto inputType = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> kernel{filterShape[2], filterShape[3]};
  SmallVector<int64_t> outputSpatial;
  for (int i = 0; i < 2; ++i) {
    int64_t padded = inputType.getDimSize(2 + i) + padLow[i] + padHigh[i];
    outputSpatial.push_back(
        (padded - dilation[i] * (kernel[i] - 1) - 1) / strides[i] + 1);
  }
  outputShape.assign({inputType.getDimSize(0), filterShape[0],
                      outputSpatial[0], outputSpatial[1]});
  bool pixelMajor = isPixelMajor(filterShape[0] / groups);
  input = buildPadded(
      b, loc, input, padLow, padHigh,
      getConvOperandType(inputType.getElementType(), accType));
  if (int64_t panel = pixelMajor ? getPixelPanel(outputSpatial[1]) : 0) {
    if (strides[1] == 1)
      return buildImplicitConv(b, loc, input, filter, filterMap, filterShape,
                               outputSpatial, strides, dilation, groups, panel,
                               accType);
    Value col = buildIm2ColPanels(b, loc, input, kernel, outputSpatial,
                                  strides, dilation, groups, panel, accType);
    Value matrix = buildFilterMatrix(b, loc, filter, filterMap, filterShape,
                                     groups, /*transposed=*/true, accType);
    return buildPanelContraction(b, loc, col, matrix, accType);
  }
  Value col = buildIm2Col(b, loc, input, kernel, outputSpatial, strides,
                          dilation, groups, /*transposed=*/false, accType);
  Value matrix = buildFilterMatrix(b, loc, filter, filterMap, filterShape,
                                   groups, /*transposed=*/pixelMajor, accType);
  return buildContraction(b, loc, pixelMajor ? col : matrix,
                          pixelMajor ? matrix : col,
                          /*transposeLhs=*/pixelMajor,
                          /*transposeRhs=*/false, accType,
                          /*batched=*/groups != 1);
}

/// Where buildConvResult writes a convolution's result into a larger NCHW
/// tensor instead of a new one: element (n, f, oh, ow) goes to (n, f,
/// offset[0] + step[0]·oh, offset[1] + step[1]·ow) of `into` (one phase of
/// the input gradient of a strided convolution, buildPhasedGradInput); the
/// other elements of `into` keep their values.
struct ConvResultScatter {
  Value into;
  int64_t offset[2];
  int64_t step[2];
};

/// The NCHW result [N, F, OH, OW] (`outputShape`) of a convolution with
/// `groups` groups from its accumulator `acc` (buildConv2D, pixel-major or
/// not): one generic that reads it transposed, adds `bias` [F] (if any) in
/// the accumulator's type and rounds once to `resultElementType` — into a
/// new tensor, or with `scatter` into the elements of `scatter->into` that
/// it names (the payload reads the zero it replaces: replaceScatteredZero).
Value buildConvResult(OpBuilder &b, Location loc, Value acc, Value bias,
                      int64_t groups, ArrayRef<int64_t> outputShape,
                      Type resultElementType,
                      const ConvResultScatter *scatter = nullptr) {
  auto accType = cast<RankedTensorType>(acc.getType());
  int64_t batch = outputShape[0], groupFilters = outputShape[1] / groups;
  int64_t height = outputShape[2], width = outputShape[3];
  MLIRContext *context = b.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
  // Loops (n, [g,] f, oh, ow) over the result ([N, G, F/G, OH, OW] when
  // grouped), the accumulator read at ([g,] pixel, f) or ([g,] f, pixel),
  // pixel = (n, oh, ow).
  unsigned numLoops = groups == 1 ? 4 : 5;
  AffineExpr n = d(0), oh = d(numLoops - 2), ow = d(numLoops - 1);
  AffineExpr f = d(numLoops - 3);
  AffineExpr pixel = (n * height + oh) * width + ow;
  SmallVector<AffineExpr> accIndices;
  if (groups != 1)
    accIndices.push_back(d(1));
  if (isPixelMajor(groupFilters))
    accIndices.append({pixel, f});
  else
    accIndices.append({f, pixel});
  SmallVector<MappedOperand> inputs{
      {acc, AffineMap::get(numLoops, 0, accIndices, context)}};
  if (bias)
    inputs.push_back(
        {bias, AffineMap::get(numLoops, 0,
                              {groups == 1 ? f : d(1) * groupFilters + f},
                              context)});
  auto body = [](OpBuilder &b, Location loc, ValueRange in,
                 ValueRange) -> SmallVector<Value> {
    if (in.size() == 1)
      return {in[0]};
    return {arith::AddFOp::create(b, loc, in[0], in[1])};
  };
  SmallVector<int64_t> shape{batch};
  if (groups != 1)
    shape.push_back(groups);
  shape.append({groupFilters, height, width});
  if (!scatter) {
    Value result =
        buildElementwise(
            b, loc, inputs,
            TypeRange{RankedTensorType::get(shape, resultElementType)}, body,
            accType.getElementType())
            .front();
    return reshapeTensor(b, loc, result, outputShape);
  }
  // The loops' extents come from an empty tensor of the result's shape,
  // read only for its shape (the other maps do not name oh and ow plainly).
  size_t numInputs = inputs.size();
  inputs.push_back(identityOperand(
      createEmptyTensor(b, loc, shape, accType.getElementType())));
  auto intoType = cast<RankedTensorType>(scatter->into.getType());
  SmallVector<int64_t> intoShape(intoType.getShape());
  if (groups != 1)
    intoShape.insert(intoShape.begin() + 1, groups);
  intoShape[intoShape.size() - 3] = groupFilters;
  SmallVector<AffineExpr> intoIndices(
      llvm::map_range(llvm::seq<unsigned>(0, numLoops - 2), d));
  intoIndices.append({oh * scatter->step[0] + scatter->offset[0],
                      ow * scatter->step[1] + scatter->offset[1]});
  Value result =
      buildGeneric(
          b, loc, inputs,
          {{reshapeTensor(b, loc, scatter->into, intoShape),
            AffineMap::get(numLoops, 0, intoIndices, context)}},
          SmallVector<utils::IteratorType>(numLoops,
                                           utils::IteratorType::parallel),
          accType.getElementType(),
          [&](OpBuilder &b, Location loc, ValueRange in,
              ValueRange out) -> SmallVector<Value> {
            Value x = body(b, loc, in.take_front(numInputs), out).front();
            return {replaceScatteredZero(b, loc, x, out[0])};
          })
          .front();
  return reshapeTensor(b, loc, result, intoType.getShape());
}

struct Conv2DOpLowering : OpConversionPattern<Conv2DOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(Conv2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = op.getResult().getType();
    ArrayRef<int64_t> padding = op.getPadding();
    SmallVector<int64_t> outputShape;
    Value acc = buildConv2D(
        rewriter, loc, adaptor.getInput(), adaptor.getFilter(),
        rewriter.getMultiDimIdentityMap(4), op.getFilter().getType().getShape(),
        op.getAccType(), op.getStrides(), op.getDilation(), op.getGroups(),
        padding, padding, outputShape);
    rewriter.replaceOp(op, buildConvResult(rewriter, loc, acc,
                                           adaptor.getBias(), op.getGroups(),
                                           outputShape,
                                           resultType.getElementType()));
    return success();
  }
};

/// The taps of one phase of the input gradient of a strided convolution
/// along one spatial dimension (buildPhasedGradInput): the input positions
/// h = offset + stride·i, i < size, receive the gradient dY[i + first +
/// t·dilation] through the flipped filter's tap firstTap + t·tapStep, t <
/// taps, and no other (nonzero) gradient element.
struct GradInputPhase {
  int64_t offset = 0, size = 0;
  int64_t firstTap = 0, tapStep = 1, taps = 0;
  int64_t first = 0, dilation = 1;
};

/// The phase `offset` (< `stride`) of the transposed convolution along one
/// dimension: the gradient dilated by `stride` (zeros
/// between them) and padded by `padLow` before, convolved with a kernel of
/// `kernel` taps dilated by `dilation`, at the input positions ≡ `offset`
/// (mod `stride`) of `inputSize`. Tap kh reaches the dilated position
/// h + kh·dilation − padLow, a gradient element when it is a multiple of the
/// stride: for the taps kh ≡ kh₀ (mod stride / gcd(dilation, stride)), the
/// element (h − offset)/stride + (offset + kh₀·dilation − padLow)/stride +
/// t·dilation/gcd (elements out of range are buildConv2D's padding).
GradInputPhase getGradInputPhase(int64_t offset, int64_t stride,
                                 int64_t inputSize, int64_t kernel,
                                 int64_t dilation, int64_t padLow) {
  GradInputPhase phase;
  phase.offset = offset;
  phase.size = inputSize > offset ? (inputSize - offset + stride - 1) / stride
                                  : 0;
  int64_t gcd = std::gcd(dilation, stride);
  phase.tapStep = stride / gcd;
  phase.dilation = dilation / gcd;
  for (int64_t kh = 0; kh < kernel; ++kh) {
    int64_t position = offset + kh * dilation - padLow;
    if (((position % stride) + stride) % stride != 0)
      continue;
    if (phase.taps == 0) {
      phase.firstTap = kh;
      phase.first = position / stride; // exact
    }
    ++phase.taps;
  }
  return phase;
}

/// The input gradient of a convolution with `strides` other than 1, the
/// transposed convolution of `grad` [N, F, OH, OW] by the filter read with
/// `flipMap` (logical shape [C, F/G, KH, KW]), computed per phase without
/// the zeros the strides put between the gradient's elements: the input
/// positions (oh, ow) ≡ (rh, rw) (mod strides) receive the terms of the taps
/// whose dilated positions are gradient elements (getGradInputPhase), a
/// stride-1 convolution of `grad` (padded or cropped) with that subset of
/// the taps, dilated by dilation / gcd(dilation, stride), scattered into the
/// zero result (buildConvResult's scatter). Each element's nonzero terms are
/// summed in the order of the dilated convolution, over (f, kh, kw), f
/// outermost, kh and kw ascending; only products with the dilation's zeros
/// are left out, which change no bit of a sum (the accumulator starts at
/// +0 and so is never −0: adding ±0 leaves it as it is) unless a weight is
/// infinite or NaN (∞·0 is NaN). Phases without taps keep their zeros.
Value buildPhasedGradInput(OpBuilder &b, Location loc, Value grad,
                           Value filter, AffineMap flipMap,
                           ArrayRef<int64_t> filterShape, Type accType,
                           ArrayRef<int64_t> strides,
                           ArrayRef<int64_t> dilation, int64_t groups,
                           ArrayRef<int64_t> padLow,
                           RankedTensorType resultType) {
  auto gradType = cast<RankedTensorType>(grad.getType());
  MLIRContext *context = b.getContext();
  Value result = createZeroTensor(b, loc, resultType.getShape(),
                                  resultType.getElementType());
  for (int64_t rh = 0; rh < strides[0]; ++rh) {
    for (int64_t rw = 0; rw < strides[1]; ++rw) {
      GradInputPhase phases[2];
      for (int i = 0; i < 2; ++i)
        phases[i] = getGradInputPhase(
            i == 0 ? rh : rw, strides[i], resultType.getDimSize(2 + i),
            filterShape[2 + i], dilation[i], padLow[i]);
      if (phases[0].size == 0 || phases[1].size == 0 || phases[0].taps == 0 ||
          phases[1].taps == 0)
        continue;
      // The phase's taps of the flipped filter, and the gradient padded (or
      // cropped) so that a stride-1 convolution gives the phase's size.
      AffineExpr th = getAffineDimExpr(2, context);
      AffineExpr tw = getAffineDimExpr(3, context);
      AffineMap tapMap = AffineMap::get(
          4, 0,
          {getAffineDimExpr(0, context), getAffineDimExpr(1, context),
           th * phases[0].tapStep + phases[0].firstTap,
           tw * phases[1].tapStep + phases[1].firstTap},
          context);
      SmallVector<int64_t> phasePadLow, phasePadHigh, phaseDilation;
      for (const GradInputPhase &phase : phases) {
        int64_t i = &phase - phases;
        int64_t padded = phase.size + phase.dilation * (phase.taps - 1);
        phasePadLow.push_back(-phase.first);
        phasePadHigh.push_back(padded - gradType.getDimSize(2 + i) +
                               phase.first);
        phaseDilation.push_back(phase.dilation);
      }
      SmallVector<int64_t> outputShape;
      Value acc = buildConv2D(
          b, loc, grad, filter, flipMap.compose(tapMap),
          {filterShape[0], filterShape[1], phases[0].taps, phases[1].taps},
          accType, {1, 1}, phaseDilation, groups, phasePadLow, phasePadHigh,
          outputShape);
      ConvResultScatter scatter{result,
                                {phases[0].offset, phases[1].offset},
                                {strides[0], strides[1]}};
      result = buildConvResult(b, loc, acc, Value(), groups, outputShape,
                               resultType.getElementType(), &scatter);
    }
  }
  return result;
}

/// The input gradient: a convolution of the gradient with the flipped
/// filter, its input and output channels swapped within each group; with
/// strides, per phase (buildPhasedGradInput).
struct Conv2DGradInputOpLowering : OpConversionPattern<Conv2DGradInputOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(Conv2DGradInputOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = op.getResult().getType();
    auto gradType = op.getGradOutput().getType();
    auto filterType = op.getFilter().getType();
    ArrayRef<int64_t> strides = op.getStrides();
    ArrayRef<int64_t> padding = op.getPadding();
    ArrayRef<int64_t> dilation = op.getDilation();
    int64_t groups = op.getGroups();
    ArrayRef<int64_t> gradShape = gradType.getShape();

    // The filter flipped spatially with input and output channels swapped
    // within each group: w'[g·C/G + c, f, kh, kw] =
    // w[g·F/G + f, c, KH−1−kh, KW−1−kw].
    int64_t filters = filterType.getDimSize(0);
    int64_t groupChannels = filterType.getDimSize(1);
    int64_t groupFilters = filters / groups;
    int64_t kernelH = filterType.getDimSize(2),
            kernelW = filterType.getDimSize(3);
    int64_t channels = resultType.getDimSize(1);
    MLIRContext *context = rewriter.getContext();
    AffineExpr co = getAffineDimExpr(0, context);
    AffineExpr fi = getAffineDimExpr(1, context);
    AffineExpr kh = getAffineDimExpr(2, context);
    AffineExpr kw = getAffineDimExpr(3, context);
    AffineExpr sourceFilter =
        groups == 1 ? fi : co.floorDiv(groupChannels) * groupFilters + fi;
    AffineExpr sourceChannel = groups == 1 ? co : co % groupChannels;
    AffineMap flipMap = AffineMap::get(
        4, 0, {sourceFilter, sourceChannel, kernelH - 1 - kh, kernelW - 1 - kw},
        context);

    // The gradient, dilated by the strides, is padded so that a stride-1
    // convolution with the dilation of the forward one gives exactly the
    // input's spatial size.
    SmallVector<int64_t> padLow, padHigh;
    for (int i = 0; i < 2; ++i) {
      int64_t kernel = filterType.getDimSize(2 + i);
      padLow.push_back(dilation[i] * (kernel - 1) - padding[i]);
      padHigh.push_back(resultType.getDimSize(2 + i) -
                        (gradShape[2 + i] - 1) * strides[i] - 1 + padding[i]);
    }
    SmallVector<int64_t> filterShape{channels, groupFilters, kernelH, kernelW};
    if (strides[0] != 1 || strides[1] != 1) {
      rewriter.replaceOp(
          op, buildPhasedGradInput(rewriter, loc, adaptor.getGradOutput(),
                                   adaptor.getFilter(), flipMap, filterShape,
                                   op.getAccType(), strides, dilation, groups,
                                   padLow, resultType));
      return success();
    }
    SmallVector<int64_t> outputShape;
    Value acc = buildConv2D(rewriter, loc, adaptor.getGradOutput(),
                            adaptor.getFilter(), flipMap, filterShape,
                            op.getAccType(), {1, 1}, dilation, groups, padLow,
                            padHigh, outputShape);
    rewriter.replaceOp(op, buildConvResult(rewriter, loc, acc, Value(), groups,
                                           outputShape,
                                           resultType.getElementType()));
    return success();
  }
};

/// The filter gradient as one matrix product per group of the gradient and
/// the im2col of the padded input: dW[g][f][(c, kh, kw)] = Σ over (n, oh,
/// ow) of dY[n, g·F/G + f, oh, ow] · col[g][(c, kh, kw)][(n, oh, ow)],
/// summed in that order, n outermost, as the correlation loop nest (f, c,
/// kh, kw, n, oh, ow) does. The gradient is transposed to dYᵀ [G, N·OH·OW,
/// F/G]. With F/G of at least kMinPixelMajorFilters and C/G of at least
/// kMinImplicitGradFilterChannels no im2col is written: the product reads
/// the padded input in place (buildImplicitGradFilter, dYᵀ as [G, N, OH,
/// OW, F/G]) into [G, KH, KW, C/G, F/G]; with fewer channels it is col ·
/// dYᵀ [G, C/G·KH·KW, F/G] (the filters are the N dimension the CPU
/// pipeline vectorises, and the operand it packs is dYᵀ, F/G columns wide);
/// with fewer filters dYᵀᵀ · colᵀ [G, F/G, C/G·KH·KW] with the transposed
/// im2col (both operands with the reduction outermost: a row of outer
/// products per reduction step). One generic over the FCHW result reads the
/// accumulator at its (g, kh, kw, c, f), (g, k, f) or (g, f, k) and rounds
/// once.
struct Conv2DGradFilterOpLowering : OpConversionPattern<Conv2DGradFilterOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(Conv2DGradFilterOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = op.getResult().getType();
    auto gradType = op.getGradOutput().getType();
    ArrayRef<int64_t> padding = op.getPadding();
    int64_t groups = op.getGroups();
    ArrayRef<int64_t> gradShape = gradType.getShape();
    int64_t batch = gradShape[0];
    int64_t groupFilters = resultType.getDimSize(0) / groups;
    int64_t pixels = batch * gradShape[2] * gradShape[3];
    SmallVector<int64_t> kernel{resultType.getDimSize(2),
                                resultType.getDimSize(3)};
    bool pixelMajor = isPixelMajor(groupFilters);
    int64_t groupChannels = op.getInput().getType().getDimSize(1) / groups;
    bool implicit =
        pixelMajor && groupChannels >= kMinImplicitGradFilterChannels;

    Value input =
        buildPadded(rewriter, loc, adaptor.getInput(), padding, padding,
                    getConvOperandType(op.getInput().getType().getElementType(),
                                       op.getAccType()));
    Value col;
    if (!implicit)
      col = buildIm2Col(rewriter, loc, input, kernel, gradShape.drop_front(2),
                        op.getStrides(), op.getDilation(), groups,
                        /*transposed=*/!pixelMajor, op.getAccType());

    // dY [N, F, OH, OW] as [G, n, oh, ow, F/G], reshaped to [[G,] N, OH, OW,
    // F/G] (implicit) or [[G,] (n, oh, ow), F/G] (no G for one group).
    MLIRContext *context = rewriter.getContext();
    auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
    AffineMap gradMap = AffineMap::get(
        5, 0, {d(1), d(0) * groupFilters + d(4), d(2), d(3)}, context);
    Value gradT = buildCopy(
        rewriter, loc, adaptor.getGradOutput(), gradMap,
        {groups, batch, gradShape[2], gradShape[3], groupFilters},
        getConvOperandType(gradType.getElementType(), op.getAccType()));
    SmallVector<int64_t> gradMatrixShape;
    if (groups != 1)
      gradMatrixShape.push_back(groups);
    if (implicit)
      gradMatrixShape.append({batch, gradShape[2], gradShape[3], groupFilters});
    else
      gradMatrixShape.append({pixels, groupFilters});
    gradT = buildFusionBarrier(
        rewriter, loc,
        widenFP8Operand(rewriter, loc,
                        reshapeTensor(rewriter, loc, gradT, gradMatrixShape),
                        op.getAccType()));

    Value acc;
    if (implicit)
      acc = buildImplicitGradFilter(rewriter, loc, input, gradT, kernel, groups,
                                    op.getStrides(), op.getDilation(),
                                    op.getAccType());
    else if (pixelMajor)
      acc = buildContraction(rewriter, loc, col, gradT, /*transposeLhs=*/false,
                             /*transposeRhs=*/false, op.getAccType(),
                             /*batched=*/groups != 1);
    else
      acc = buildContraction(rewriter, loc, gradT, col, /*transposeLhs=*/true,
                             /*transposeRhs=*/false, op.getAccType(),
                             /*batched=*/groups != 1);

    // dW[f, c, kh, kw] = acc[[g,] kh, kw, c, f'], acc[[g,] k, f'] or acc[[g,]
    // f', k], g = f / (F/G), f' = f mod F/G, k = (c·KH + kh)·KW + kw.
    AffineExpr f = d(0), c = d(1), kh = d(2), kw = d(3);
    AffineExpr k = (c * kernel[0] + kh) * kernel[1] + kw;
    AffineExpr groupFilter = groups == 1 ? f : f % groupFilters;
    SmallVector<AffineExpr> accIndices;
    if (groups != 1)
      accIndices.push_back(f.floorDiv(groupFilters));
    if (implicit)
      accIndices.append({kh, kw, c, groupFilter});
    else if (pixelMajor)
      accIndices.append({k, groupFilter});
    else
      accIndices.append({groupFilter, k});
    Value result =
        buildElementwise(
            rewriter, loc, {{acc, AffineMap::get(4, 0, accIndices, context)}},
            TypeRange{resultType},
            [](OpBuilder &, Location, ValueRange in,
               ValueRange) -> SmallVector<Value> { return {in[0]}; },
            cast<RankedTensorType>(acc.getType()).getElementType())
            .front();
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void lowering::populateLinearAlgebraPatterns(RewritePatternSet &patterns) {
  patterns
      .add<MatmulLikeOpLowering<MatmulOp>, MatmulLikeOpLowering<BatchMatmulOp>,
           LinearOpLowering, Conv2DOpLowering, Conv2DGradInputOpLowering,
           Conv2DGradFilterOpLowering>(patterns.getContext());
}
