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
//   conv2d        → tensor.pad + linalg.conv_2d_nchw_fchw (groups 1) or
//                   linalg.conv_2d_ngchw_gfchw (grouped), bias as for linear;
//   conv2d_grad_input  → the transposed convolution: the gradient dilated by
//                   the strides (tensor.insert_slice into zeros), padded, and
//                   convolved with the flipped, channel-transposed filter;
//   conv2d_grad_filter → one linalg.generic correlating the padded input
//                   with the gradient.
// FP8 operands are extended to the accumulator type once before the
// contraction (exact, so the result is the same as extending in the loop).
// `compute tf32` first rounds the f32 operands to TF32 (10-bit mantissa,
// nearest with ties away from zero, as cvt.rna.tf32.f32) in integer
// arithmetic.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"
#include "Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mp/Dialect/MP/IR/MPOps.h"

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

/// A convolution of the NCHW `input` by the FCHW `filter` (F = output
/// channels, C = input channels / groups) into a zero accumulator of
/// `accType`. The input is padded with zeros by `padLow`/`padHigh` per
/// spatial dimension (cropped where negative).
Value buildConv2D(OpBuilder &b, Location loc, Value input, Value filter,
                  Type accType, ArrayRef<int64_t> strides,
                  ArrayRef<int64_t> dilation, int64_t groups,
                  ArrayRef<int64_t> padLow, ArrayRef<int64_t> padHigh) {
  auto inputType = cast<RankedTensorType>(input.getType());
  auto filterType = cast<RankedTensorType>(filter.getType());
  SmallVector<int64_t> shape(inputType.getShape());
  // Crop first where a padding is negative, then pad.
  SmallVector<int64_t> cropOffsets(4, 0), cropSizes(shape);
  SmallVector<int64_t> low(4, 0), high(4, 0);
  bool crop = false, pad = false;
  for (int i = 0; i < 2; ++i) {
    int64_t dim = 2 + i;
    if (padLow[i] < 0) {
      cropOffsets[dim] = -padLow[i];
      cropSizes[dim] += padLow[i];
      crop = true;
    } else if (padLow[i] > 0) {
      low[dim] = padLow[i];
      pad = true;
    }
    if (padHigh[i] < 0) {
      cropSizes[dim] += padHigh[i];
      crop = true;
    } else if (padHigh[i] > 0) {
      high[dim] = padHigh[i];
      pad = true;
    }
  }
  if (crop) {
    input = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get(cropSizes, inputType.getElementType()),
        input, ValueRange{}, ValueRange{}, ValueRange{}, cropOffsets, cropSizes,
        SmallVector<int64_t>(4, 1));
    shape = cropSizes;
  }
  if (pad) {
    for (int dim = 2; dim < 4; ++dim)
      shape[dim] += low[dim] + high[dim];
    Value zero = createFloatConstant(b, loc, inputType.getElementType(), 0.0);
    SmallVector<OpFoldResult> lowSizes, highSizes;
    for (int dim = 0; dim < 4; ++dim) {
      lowSizes.push_back(b.getIndexAttr(low[dim]));
      highSizes.push_back(b.getIndexAttr(high[dim]));
    }
    input = tensor::PadOp::create(
        b, loc, RankedTensorType::get(shape, inputType.getElementType()), input,
        lowSizes, highSizes, zero);
  }

  int64_t batch = shape[0], channels = shape[1];
  int64_t filters = filterType.getDimSize(0);
  SmallVector<int64_t> outputSpatial;
  for (int i = 0; i < 2; ++i) {
    int64_t kernel = filterType.getDimSize(2 + i);
    outputSpatial.push_back(
        (shape[2 + i] - dilation[i] * (kernel - 1) - 1) / strides[i] + 1);
  }
  auto stridesAttr = b.getI64TensorAttr(strides);
  auto dilationsAttr = b.getI64TensorAttr(dilation);
  if (groups == 1) {
    Value init = createZeroTensor(
        b, loc, {batch, filters, outputSpatial[0], outputSpatial[1]}, accType);
    return linalg::Conv2DNchwFchwOp::create(
               b, loc, TypeRange{init.getType()}, ValueRange{input, filter},
               ValueRange{init}, stridesAttr, dilationsAttr)
        .getResult(0);
  }
  // Grouped: [N, G, C/G, H, W] by [G, F/G, C/G, KH, KW].
  Value groupedInput = reshapeTensor(
      b, loc, input, {batch, groups, channels / groups, shape[2], shape[3]});
  Value groupedFilter =
      reshapeTensor(b, loc, filter,
                    {groups, filters / groups, filterType.getDimSize(1),
                     filterType.getDimSize(2), filterType.getDimSize(3)});
  Value init = createZeroTensor(
      b, loc,
      {batch, groups, filters / groups, outputSpatial[0], outputSpatial[1]},
      accType);
  Value result = linalg::Conv2DNgchwGfchwOp::create(
                     b, loc, TypeRange{init.getType()},
                     ValueRange{groupedInput, groupedFilter}, ValueRange{init},
                     stridesAttr, dilationsAttr)
                     .getResult(0);
  return reshapeTensor(b, loc, result,
                       {batch, filters, outputSpatial[0], outputSpatial[1]});
}

struct Conv2DOpLowering : OpConversionPattern<Conv2DOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(Conv2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = op.getResult().getType();
    ArrayRef<int64_t> padding = op.getPadding();
    Value acc = buildConv2D(
        rewriter, loc, adaptor.getInput(), adaptor.getFilter(), op.getAccType(),
        op.getStrides(), op.getDilation(), op.getGroups(), padding, padding);
    Value result;
    if (Value bias = adaptor.getBias())
      result =
          addBiasAndRound(rewriter, loc, acc, bias,
                          AffineMap::get(4, 0, {rewriter.getAffineDimExpr(1)},
                                         rewriter.getContext()),
                          resultType.getElementType());
    else
      result = roundToResult(rewriter, loc, acc, resultType);
    rewriter.replaceOp(op, result);
    return success();
  }
};

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

    // Dilate the gradient by the strides: zeros between its elements.
    Value grad = adaptor.getGradOutput();
    if (strides[0] > 1 || strides[1] > 1) {
      SmallVector<int64_t> dilatedShape{gradShape[0], gradShape[1],
                                        (gradShape[2] - 1) * strides[0] + 1,
                                        (gradShape[3] - 1) * strides[1] + 1};
      Value zeros = createZeroTensor(rewriter, loc, dilatedShape,
                                     gradType.getElementType());
      grad = tensor::InsertSliceOp::create(
          rewriter, loc, grad, zeros, ValueRange{}, ValueRange{}, ValueRange{},
          SmallVector<int64_t>(4, 0), gradShape,
          SmallVector<int64_t>{1, 1, strides[0], strides[1]});
    }

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
    auto flippedType =
        RankedTensorType::get({channels, groupFilters, kernelH, kernelW},
                              filterType.getElementType());
    Value flipped =
        buildElementwise(
            rewriter, loc, {{adaptor.getFilter(), flipMap}},
            TypeRange{flippedType},
            [](OpBuilder &, Location, ValueRange in,
               ValueRange) -> SmallVector<Value> { return {in[0]}; },
            filterType.getElementType())
            .front();

    // A stride-1 convolution with the dilation of the forward one; the
    // padding makes its output exactly the input's spatial size.
    SmallVector<int64_t> padLow, padHigh;
    for (int i = 0; i < 2; ++i) {
      int64_t kernel = filterType.getDimSize(2 + i);
      padLow.push_back(dilation[i] * (kernel - 1) - padding[i]);
      padHigh.push_back(resultType.getDimSize(2 + i) -
                        (gradShape[2 + i] - 1) * strides[i] - 1 + padding[i]);
    }
    Value acc = buildConv2D(rewriter, loc, grad, flipped, op.getAccType(),
                            {1, 1}, dilation, groups, padLow, padHigh);
    rewriter.replaceOp(op, roundToResult(rewriter, loc, acc, resultType));
    return success();
  }
};

struct Conv2DGradFilterOpLowering : OpConversionPattern<Conv2DGradFilterOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(Conv2DGradFilterOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = op.getResult().getType();
    auto inputType = op.getInput().getType();
    ArrayRef<int64_t> strides = op.getStrides();
    ArrayRef<int64_t> padding = op.getPadding();
    ArrayRef<int64_t> dilation = op.getDilation();
    int64_t groups = op.getGroups();
    Type accType = op.getAccType();

    Value input = adaptor.getInput();
    if (padding[0] > 0 || padding[1] > 0) {
      SmallVector<int64_t> shape(inputType.getShape());
      shape[2] += 2 * padding[0];
      shape[3] += 2 * padding[1];
      SmallVector<OpFoldResult> pads{
          rewriter.getIndexAttr(0), rewriter.getIndexAttr(0),
          rewriter.getIndexAttr(padding[0]), rewriter.getIndexAttr(padding[1])};
      input = tensor::PadOp::create(
          rewriter, loc,
          RankedTensorType::get(shape, inputType.getElementType()), input, pads,
          pads,
          createFloatConstant(rewriter, loc, inputType.getElementType(), 0.0));
    }

    // Loops (f, c, kh, kw, n, oh, ow); the input channel of filter f is
    // (f floordiv F/G)·C/G + c.
    MLIRContext *context = rewriter.getContext();
    auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
    int64_t groupFilters = resultType.getDimSize(0) / groups;
    int64_t groupChannels = resultType.getDimSize(1);
    AffineExpr channel =
        groups == 1 ? d(1) : d(0).floorDiv(groupFilters) * groupChannels + d(1);
    AffineMap gradMap = AffineMap::get(7, 0, {d(4), d(0), d(5), d(6)}, context);
    AffineMap inputMap =
        AffineMap::get(7, 0,
                       {d(4), channel, d(5) * strides[0] + d(2) * dilation[0],
                        d(6) * strides[1] + d(3) * dilation[1]},
                       context);
    AffineMap outputMap =
        AffineMap::get(7, 0, {d(0), d(1), d(2), d(3)}, context);
    Value init =
        createZeroTensor(rewriter, loc, resultType.getShape(), accType);
    SmallVector<utils::IteratorType> iterators(4,
                                               utils::IteratorType::parallel);
    iterators.append(3, utils::IteratorType::reduction);
    Value acc =
        buildGeneric(rewriter, loc,
                     {{adaptor.getGradOutput(), gradMap}, {input, inputMap}},
                     {{init, outputMap}}, iterators, accType,
                     [](OpBuilder &b, Location loc, ValueRange in,
                        ValueRange out) -> SmallVector<Value> {
                       Value product =
                           arith::MulFOp::create(b, loc, in[0], in[1]);
                       return {arith::AddFOp::create(b, loc, out[0], product)};
                     })
            .front();
    rewriter.replaceOp(op, roundToResult(rewriter, loc, acc, resultType));
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
