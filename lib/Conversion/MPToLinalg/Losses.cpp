//===- Losses.cpp - Loss mp ops to linalg ---------------------------------===//
//
// cross_entropy: per-row softmax statistics (max, Σ exp(x − max)) in f32,
// then one reduction over the batch of log Σ + max − x[n, label[n]] (the
// logit of the label read with tensor.extract), divided by the batch size
// and rounded once to the logits' type. mse: one f32 reduction of
// (input − target)² over all elements, divided by their count and rounded
// once. Labels must lie in [0, C), as the op states; they are not checked at
// run time.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"
#include "Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mp/Dialect/MP/IR/MPOps.h"

using namespace mlir;
using namespace mlir::mp;
using namespace mlir::mp::lowering;

namespace {
struct CrossEntropyOpLowering : OpConversionPattern<CrossEntropyOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(CrossEntropyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value logits = adaptor.getLogits();
    int64_t batch = cast<RankedTensorType>(logits.getType()).getDimSize(0);
    SoftmaxStatistics stats =
        buildSoftmaxStatistics(rewriter, loc, logits, /*dim=*/1);
    Value zero = createF32Constant(rewriter, loc, 0.0);
    Value total =
        buildReduction(
            rewriter, loc,
            {identityOperand(stats.max), identityOperand(stats.sumExp),
             identityOperand(adaptor.getLabels())},
            {batch}, {0}, {zero},
            [&](OpBuilder &b, Location loc, ValueRange in,
                ValueRange acc) -> SmallVector<Value> {
              Value row = linalg::IndexOp::create(b, loc, 0);
              Value label =
                  arith::IndexCastOp::create(b, loc, b.getIndexType(), in[2]);
              Value logit =
                  convertFloat(b, loc,
                               tensor::ExtractOp::create(
                                   b, loc, logits, ValueRange{row, label}),
                               b.getF32Type());
              Value logSumExp = arith::AddFOp::create(
                  b, loc, math::LogOp::create(b, loc, in[1]), in[0]);
              Value term = arith::SubFOp::create(b, loc, logSumExp, logit);
              return {arith::AddFOp::create(b, loc, acc[0], term)};
            })
            .front();
    rewriter.replaceOp(
        op, buildMean(rewriter, loc, total, batch, op.getResult().getType()));
    return success();
  }
};

struct MSEOpLowering : OpConversionPattern<MSEOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MSEOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(adaptor.getInput().getType());
    Value zero = createF32Constant(rewriter, loc, 0.0);
    Value total =
        buildReduction(rewriter, loc,
                       {identityOperand(adaptor.getInput()),
                        identityOperand(adaptor.getTarget())},
                       type.getShape(),
                       llvm::to_vector(llvm::seq<int64_t>(0, type.getRank())),
                       {zero},
                       [](OpBuilder &b, Location loc, ValueRange in,
                          ValueRange acc) -> SmallVector<Value> {
                         Value d = arith::SubFOp::create(b, loc, in[0], in[1]);
                         Value sq = arith::MulFOp::create(b, loc, d, d);
                         return {arith::AddFOp::create(b, loc, acc[0], sq)};
                       })
            .front();
    rewriter.replaceOp(op,
                       buildMean(rewriter, loc, total, type.getNumElements(),
                                 op.getResult().getType()));
    return success();
  }
};
} // namespace

void lowering::populateLossPatterns(RewritePatternSet &patterns) {
  patterns.add<CrossEntropyOpLowering, MSEOpLowering>(patterns.getContext());
}
