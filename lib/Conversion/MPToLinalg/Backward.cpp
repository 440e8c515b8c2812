//===- Backward.cpp - Explicit backward mp ops to linalg ------------------===//
//
// Lowers the gradients of a joint graph that are not elementwise, shape or
// convolution ops: maximum_grad/minimum_grad (PyTorch's routing, halves on
// ties), reduce_max_grad (gradient spread evenly over the maxima),
// softmax_grad, log_softmax_grad, layer_norm_grad, rms_norm_grad and
// cross_entropy_grad. Every statistic (row sums, counts, mean, 1/std) is an
// f32 reduction, every result one elementwise or reduction linalg.generic
// computing in f32 and rounding once to its type.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"
#include "Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mp/Dialect/MP/IR/MPOps.h"

using namespace mlir;
using namespace mlir::mp;
using namespace mlir::mp::lowering;

namespace {
/// The Σ over the reduced dimensions of `body`'s value, in f32.
Value sumOver(OpBuilder &b, Location loc, ArrayRef<MappedOperand> inputs,
              ArrayRef<int64_t> loopShape, ArrayRef<int64_t> reducedDims,
              function_ref<Value(OpBuilder &, Location, ValueRange)> term) {
  return buildReduction(
             b, loc, inputs, loopShape, reducedDims,
             {createF32Constant(b, loc, 0.0)},
             [&](OpBuilder &b, Location loc, ValueRange in,
                 ValueRange acc) -> SmallVector<Value> {
               return {arith::AddFOp::create(b, loc, acc[0], term(b, loc, in))};
             })
      .front();
}

/// Lowers maximum_grad and minimum_grad as PyTorch's backward of
/// maximum/minimum: on ties each operand gets half; otherwise the selected
/// operand (the one not beaten, so NaN operands keep their gradient) gets it.
template <typename OpTy>
struct MinMaxGradOpLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(adaptor.getGradOutput().getType());
    ArrayRef<int64_t> shape = type.getShape();
    // For maximum the lhs loses where lhs < rhs; for minimum where lhs > rhs.
    arith::CmpFPredicate lhsLoses = std::is_same_v<OpTy, MaximumGradOp>
                                        ? arith::CmpFPredicate::OLT
                                        : arith::CmpFPredicate::OGT;
    arith::CmpFPredicate rhsLoses = std::is_same_v<OpTy, MaximumGradOp>
                                        ? arith::CmpFPredicate::OGT
                                        : arith::CmpFPredicate::OLT;
    SmallVector<Value> results = buildElementwise(
        rewriter, loc,
        {identityOperand(adaptor.getGradOutput()),
         broadcastOperand(rewriter, loc, adaptor.getLhs(), shape),
         broadcastOperand(rewriter, loc, adaptor.getRhs(), shape)},
        TypeRange{type, type},
        [&](OpBuilder &b, Location loc, ValueRange in,
            ValueRange) -> SmallVector<Value> {
          Value grad = in[0], lhs = in[1], rhs = in[2];
          Value zero = createF32Constant(b, loc, 0.0);
          Value half = arith::MulFOp::create(b, loc, grad,
                                             createF32Constant(b, loc, 0.5));
          Value tie = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                            lhs, rhs);
          auto route = [&](arith::CmpFPredicate loses) -> Value {
            Value lost = arith::CmpFOp::create(b, loc, loses, lhs, rhs);
            Value untied = arith::SelectOp::create(b, loc, lost, zero, grad);
            return arith::SelectOp::create(b, loc, tie, half, untied);
          };
          return {route(lhsLoses), route(rhsLoses)};
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// reduce_max_grad: dy / count where x equals the maximum, else 0, count
/// being the number of maxima of the reduced group.
struct ReduceMaxGradOpLowering : OpConversionPattern<ReduceMaxGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ReduceMaxGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inputType = op.getInput().getType();
    ArrayRef<int64_t> shape = inputType.getShape();
    unsigned rank = inputType.getRank();
    SmallVector<int64_t> dims(op.getDims());
    llvm::sort(dims);
    // keepdims only adds size-1 dimensions: read the reduced values without
    // them.
    SmallVector<int64_t> reducedShape = dropDims(shape, dims);
    Value max = reshapeTensor(rewriter, loc, adaptor.getOutput(), reducedShape);
    Value gradOutput =
        reshapeTensor(rewriter, loc, adaptor.getGradOutput(), reducedShape);
    MappedOperand input = identityOperand(adaptor.getInput());
    Value count = sumOver(
        rewriter, loc, {input, projectedOperand(max, rank, dims)}, shape, dims,
        [](OpBuilder &b, Location loc, ValueRange in) {
          Value isMax = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                              in[0], in[1]);
          return arith::SelectOp::create(b, loc, isMax,
                                         createF32Constant(b, loc, 1.0),
                                         createF32Constant(b, loc, 0.0));
        });
    Value result =
        buildElementwise(
            rewriter, loc,
            {input, projectedOperand(max, rank, dims),
             projectedOperand(gradOutput, rank, dims),
             projectedOperand(count, rank, dims)},
            TypeRange{inputType},
            [](OpBuilder &b, Location loc, ValueRange in,
               ValueRange) -> SmallVector<Value> {
              Value isMax = arith::CmpFOp::create(
                  b, loc, arith::CmpFPredicate::OEQ, in[0], in[1]);
              Value share = arith::DivFOp::create(b, loc, in[2], in[3]);
              return {arith::SelectOp::create(b, loc, isMax, share,
                                              createF32Constant(b, loc, 0.0))};
            })
            .front();
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// softmax_grad: y·(dy − Σ dy·y); log_softmax_grad: dy − exp(y)·Σ dy.
template <typename OpTy>
struct SoftmaxGradOpLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    constexpr bool isSoftmax = std::is_same_v<OpTy, SoftmaxGradOp>;
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(adaptor.getOutput().getType());
    int64_t dim = op.getDim();
    unsigned rank = type.getRank();
    MappedOperand gradOutput = identityOperand(adaptor.getGradOutput());
    MappedOperand output = identityOperand(adaptor.getOutput());
    SmallVector<MappedOperand> summed{gradOutput};
    if (isSoftmax)
      summed.push_back(output);
    Value sum = sumOver(
        rewriter, loc, summed, type.getShape(), {dim},
        [](OpBuilder &b, Location loc, ValueRange in) {
          return isSoftmax
                     ? arith::MulFOp::create(b, loc, in[0], in[1]).getResult()
                     : in[0];
        });
    Value result =
        buildElementwise(
            rewriter, loc,
            {gradOutput, output, projectedOperand(sum, rank, {dim})},
            TypeRange{type},
            [](OpBuilder &b, Location loc, ValueRange in,
               ValueRange) -> SmallVector<Value> {
              Value dy = in[0], y = in[1], s = in[2];
              if constexpr (isSoftmax)
                return {arith::MulFOp::create(
                    b, loc, y, arith::SubFOp::create(b, loc, dy, s))};
              return {arith::SubFOp::create(
                  b, loc, dy,
                  arith::MulFOp::create(b, loc, math::ExpOp::create(b, loc, y),
                                        s))};
            })
            .front();
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// layer_norm_grad and rms_norm_grad. With x̂ the normalised input (x − mean)
/// · rstd (or x · rstd), g = dy · weight (or dy) and means over the normalised
/// dimensions: dx = rstd · (g − mean(g) − x̂ · mean(g · x̂)) for layer norm,
/// rstd · (g − x̂ · mean(g · x̂)) for RMS norm; dweight = Σ dy · x̂ and dbias =
/// Σ dy over the leading dimensions.
template <typename OpTy> struct NormGradOpLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    constexpr bool centered = std::is_same_v<OpTy, LayerNormGradOp>;
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    ArrayRef<int64_t> shape = type.getShape();
    int64_t axis = op.getAxis();
    unsigned rank = type.getRank();
    SmallVector<int64_t> leadDims =
        llvm::to_vector(llvm::seq<int64_t>(0, axis));
    NormStatistics stats = buildNormStatistics(
        rewriter, loc, input, axis, op.getEps().convertToDouble(), centered);
    ArrayRef<int64_t> normDims = stats.normDims;
    Value weight = adaptor.getWeight();

    // Operands in every generic below: dy, x, [mean], rstd, [weight] over the
    // full iteration space; the statistics are projected, the weight
    // broadcast along the leading dimensions.
    SmallVector<MappedOperand> operands{
        identityOperand(adaptor.getGradOutput()), identityOperand(input)};
    stats.appendOperands(operands);
    if (weight)
      operands.push_back(broadcastOperand(rewriter, loc, weight, shape));
    // Payload positions of rstd and of the weight in the layout above.
    unsigned numStatistics = stats.getNumOperands();
    unsigned rstdIndex = 1 + numStatistics;
    unsigned weightIndex = 2 + numStatistics;
    // x̂ and g from the payload arguments laid out as above.
    auto normalized = [&](OpBuilder &b, Location loc, ValueRange in) -> Value {
      return stats.normalize(b, loc, in[1], in.slice(2, numStatistics));
    };
    auto scaledGrad = [&](OpBuilder &b, Location loc, ValueRange in) -> Value {
      if (!weight)
        return in[0];
      return arith::MulFOp::create(b, loc, in[0], in[weightIndex]);
    };

    // Row sums Σ g and Σ g·x̂ over the normalised dimensions.
    Value zero = createF32Constant(rewriter, loc, 0.0);
    SmallVector<Value> initValues{zero};
    if (centered)
      initValues.push_back(zero);
    SmallVector<Value> rowSums = buildReduction(
        rewriter, loc, operands, shape, normDims, initValues,
        [&](OpBuilder &b, Location loc, ValueRange in,
            ValueRange acc) -> SmallVector<Value> {
          Value g = scaledGrad(b, loc, in);
          Value gx = arith::MulFOp::create(b, loc, g, normalized(b, loc, in));
          SmallVector<Value> sums{arith::AddFOp::create(b, loc, acc[0], gx)};
          if (centered)
            sums.push_back(arith::AddFOp::create(b, loc, acc[1], g));
          return sums;
        });

    SmallVector<MappedOperand> dxOperands(operands);
    for (Value sum : rowSums)
      dxOperands.push_back(projectedOperand(sum, rank, normDims));
    size_t sumsBegin = operands.size();
    Value inputGrad =
        buildElementwise(
            rewriter, loc, dxOperands, TypeRange{type},
            [&](OpBuilder &b, Location loc, ValueRange in,
                ValueRange) -> SmallVector<Value> {
              Value countValue =
                  createF32Constant(b, loc, static_cast<double>(stats.count));
              Value g = scaledGrad(b, loc, in);
              Value meanGx =
                  arith::DivFOp::create(b, loc, in[sumsBegin], countValue);
              Value d = arith::SubFOp::create(
                  b, loc, g,
                  arith::MulFOp::create(b, loc, normalized(b, loc, in),
                                        meanGx));
              if (centered)
                d = arith::SubFOp::create(
                    b, loc, d,
                    arith::DivFOp::create(b, loc, in[sumsBegin + 1],
                                          countValue));
              return {arith::MulFOp::create(b, loc, in[rstdIndex], d)};
            })
            .front();

    // Parameter gradients: sums over the leading dimensions.
    auto paramType = cast<RankedTensorType>(op.getWeightGrad().getType());
    SmallVector<Value> paramInits{zero};
    if (centered)
      paramInits.push_back(zero);
    // The weight is not needed here (it is the last operand).
    SmallVector<Value> paramSums = buildReduction(
        rewriter, loc, ArrayRef(operands).drop_back(weight ? 1 : 0), shape,
        leadDims, paramInits,
        [&](OpBuilder &b, Location loc, ValueRange in,
            ValueRange acc) -> SmallVector<Value> {
          Value dyx =
              arith::MulFOp::create(b, loc, in[0], normalized(b, loc, in));
          SmallVector<Value> sums{arith::AddFOp::create(b, loc, acc[0], dyx)};
          if (centered)
            sums.push_back(arith::AddFOp::create(b, loc, acc[1], in[0]));
          return sums;
        });
    SmallVector<Value> results{inputGrad};
    // The sums have the normalised shape already; round them to its type.
    for (Value sum : paramSums)
      results.push_back(roundTensor(rewriter, loc, sum, paramType));
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// cross_entropy_grad: (softmax(x) − onehot(label)) · dl / N.
} // namespace

void lowering::populateBackwardPatterns(RewritePatternSet &patterns) {
  patterns.add<MinMaxGradOpLowering<MaximumGradOp>,
               MinMaxGradOpLowering<MinimumGradOp>, ReduceMaxGradOpLowering,
               SoftmaxGradOpLowering<SoftmaxGradOp>,
               SoftmaxGradOpLowering<LogSoftmaxGradOp>,
               NormGradOpLowering<LayerNormGradOp>,
               NormGradOpLowering<RMSNormGradOp>>(patterns.getContext());
}
