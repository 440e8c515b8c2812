//===- Reductions.cpp - Reductions and normalisations to linalg -----------===//
//
// Lowers reduce_sum/mean/max, softmax, log_softmax, layer_norm and rms_norm
// to linalg.generic reductions with f32 accumulators, followed by one
// elementwise linalg.generic that rounds each result once to the input's
// type. Softmax subtracts the maximum along its dimension before exp;
// normalisations compute their statistics (mean, biased variance, mean
// square) in f32 whatever the input type. `keepdims` reshapes the reduced
// tensor with tensor.expand_shape.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"
#include "Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mp/Dialect/MP/IR/MPOps.h"

#include <limits>

using namespace mlir;
using namespace mlir::mp;
using namespace mlir::mp::lowering;

namespace {
/// The accumulation of a reduce op: initial value and combiner, in f32.
double getInitialValue(ReduceMaxOp) {
  return -std::numeric_limits<double>::infinity();
}
double getInitialValue(Operation *) { return 0.0; }
Value combine(ReduceMaxOp, OpBuilder &b, Location loc, Value acc, Value x) {
  return arith::MaximumFOp::create(b, loc, acc, x);
}
Value combine(Operation *, OpBuilder &b, Location loc, Value acc, Value x) {
  return arith::AddFOp::create(b, loc, acc, x);
}

/// Lowers reduce_sum, reduce_mean and reduce_max: an f32 reduction, then (for
/// a mean, or to round to a narrower type) an elementwise generic, then the
/// keepdims reshape.
template <typename OpTy> struct ReduceOpLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    auto resultType = cast<RankedTensorType>(op.getResult().getType());
    SmallVector<int64_t> dims(op.getDims());
    llvm::sort(dims);
    Value init = createF32Constant(rewriter, loc, getInitialValue(op));
    Value reduced =
        buildReduction(rewriter, loc, {identityOperand(input)},
                       inputType.getShape(), dims, {init},
                       [&](OpBuilder &b, Location loc, ValueRange in,
                           ValueRange acc) -> SmallVector<Value> {
                         return {combine(op, b, loc, acc[0], in[0])};
                       })
            .front();
    auto reducedType = cast<RankedTensorType>(reduced.getType());
    int64_t count = 1;
    for (int64_t dim : dims)
      count *= inputType.getDimSize(dim);
    bool isMean = std::is_same_v<OpTy, ReduceMeanOp>;
    auto roundedType = RankedTensorType::get(reducedType.getShape(),
                                             resultType.getElementType());
    if (isMean)
      reduced = buildMean(rewriter, loc, reduced, count, roundedType);
    else
      reduced = roundTensor(rewriter, loc, reduced, roundedType);
    rewriter.replaceOp(
        op, reshapeTensor(rewriter, loc, reduced, resultType.getShape()));
    return success();
  }
};

/// Lowers softmax (exp(x − max)/Σ) and log_softmax (x − max − log Σ) to the
/// f32 statistics and one elementwise generic.
template <typename OpTy> struct SoftmaxOpLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    int64_t dim = op.getDim();
    unsigned rank = type.getRank();
    SoftmaxStatistics stats = buildSoftmaxStatistics(rewriter, loc, input, dim);
    Value result =
        buildElementwise(
            rewriter, loc,
            {identityOperand(input), projectedOperand(stats.max, rank, {dim}),
             projectedOperand(stats.sumExp, rank, {dim})},
            TypeRange{type},
            [](OpBuilder &b, Location loc, ValueRange in,
               ValueRange) -> SmallVector<Value> {
              Value shifted = arith::SubFOp::create(b, loc, in[0], in[1]);
              if constexpr (std::is_same_v<OpTy, SoftmaxOp>)
                return {arith::DivFOp::create(
                    b, loc, math::ExpOp::create(b, loc, shifted), in[2])};
              return {arith::SubFOp::create(
                  b, loc, shifted, math::LogOp::create(b, loc, in[2]))};
            })
            .front();
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Lowers layer_norm and rms_norm: f32 statistics over [axis, rank), then
/// one elementwise generic normalising, scaling and shifting in f32.
template <typename OpTy> struct NormOpLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    constexpr bool centered = std::is_same_v<OpTy, LayerNormOp>;
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    NormStatistics stats =
        buildNormStatistics(rewriter, loc, input, op.getAxis(),
                            op.getEps().convertToDouble(), centered);

    SmallVector<MappedOperand> inputs{identityOperand(input)};
    stats.appendOperands(inputs);
    Value weight = adaptor.getWeight();
    Value bias;
    if constexpr (centered)
      bias = adaptor.getBias();
    if (weight)
      inputs.push_back(
          broadcastOperand(rewriter, loc, weight, type.getShape()));
    if (bias)
      inputs.push_back(broadcastOperand(rewriter, loc, bias, type.getShape()));

    Value result =
        buildElementwise(rewriter, loc, inputs, TypeRange{type},
                         [&](OpBuilder &b, Location loc, ValueRange in,
                             ValueRange) -> SmallVector<Value> {
                           unsigned numStatistics = stats.getNumOperands();
                           Value y = stats.normalize(
                               b, loc, in[0], in.slice(1, numStatistics));
                           unsigned next = 1 + numStatistics;
                           if (weight)
                             y = arith::MulFOp::create(b, loc, y, in[next++]);
                           if (bias)
                             y = arith::AddFOp::create(b, loc, y, in[next++]);
                           return {y};
                         })
            .front();
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void lowering::populateReductionPatterns(RewritePatternSet &patterns) {
  patterns.add<ReduceOpLowering<ReduceSumOp>, ReduceOpLowering<ReduceMeanOp>,
               ReduceOpLowering<ReduceMaxOp>, SoftmaxOpLowering<SoftmaxOp>,
               SoftmaxOpLowering<LogSoftmaxOp>, NormOpLowering<LayerNormOp>,
               NormOpLowering<RMSNormOp>>(patterns.getContext());
}
