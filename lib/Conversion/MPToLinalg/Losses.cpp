//===- Losses.cpp - Loss mp ops to linalg ---------------------------------===//
//
// cross_entropy: per-row softmax statistics (max, Σ exp(x − max)) in f32,
// then one reduction over the batch of log Σ + max − x[n, label[n]] (the
// logit of the label read with tensor.extract) and of the count of labels
// that are not ignore_index, the sum divided by the count; with label
// smoothing a second f32 reduction over [N, C] of log Σ exp − x on the kept
// rows, combined as PyTorch 1.13 does; the loss is rounded once to the
// logits' type. nll_loss: the same reduction of −input[n, target[n]] (or its
// elementwise form for reduction none). mse: one f32 reduction of
// (input − target)² over all elements, divided by their count and rounded
// once. PyTorch's K-dimensional form ([N, C, d...] with [N, d...] labels) is
// flattened to [N·d..., C] and [N·d...] first (linalg.transpose and a
// collapse) and gradients are brought back to [N, C, d...]. Labels must lie
// in [0, C) or equal ignore_index, as the ops state;
// they are not checked at run time (an ignored label reads row 0, unused).
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

/// Whether `label` (an integer scalar) is not `ignoreIndex`.
static Value isKept(OpBuilder &b, Location loc, Value label,
                    int64_t ignoreIndex) {
  return arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ne, label,
      arith::ConstantOp::create(b, loc,
                                b.getIntegerAttr(label.getType(), ignoreIndex)));
}

/// `label` as an index, 0 when it is ignored (`kept` false), so that reading
/// row `label` stays in bounds.
static Value safeIndex(OpBuilder &b, Location loc, Value label, Value kept) {
  Value index = arith::IndexCastOp::create(b, loc, b.getIndexType(), label);
  return arith::SelectOp::create(b, loc, kept, index,
                                 arith::ConstantIndexOp::create(b, loc, 0));
}

/// 1.0 when `kept`, else 0.0 (f32).
static Value keptCount(OpBuilder &b, Location loc, Value kept) {
  return arith::SelectOp::create(b, loc, kept, createF32Constant(b, loc, 1.0),
                                 createF32Constant(b, loc, 0.0));
}

/// PyTorch's K-dimensional form `[N, C, d...]` as `[N·d..., C]` (classes
/// last, rows in the row-major order of (n, d...)) by a linalg.transpose and
/// a collapse; a rank-2 value is returned as it is.
static Value flattenClasses(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rank = type.getRank();
  if (rank <= 2)
    return value;
  SmallVector<int64_t> permutation{0};
  for (int64_t d = 2; d < rank; ++d)
    permutation.push_back(d);
  permutation.push_back(1);
  SmallVector<int64_t> shape;
  for (int64_t d : permutation)
    shape.push_back(type.getDimSize(d));
  Value transposed =
      linalg::TransposeOp::create(
          b, loc, value,
          createEmptyTensor(b, loc, shape, type.getElementType()), permutation)
          ->getResult(0);
  int64_t classes = type.getDimSize(1);
  return reshapeTensor(b, loc, transposed,
                       {type.getNumElements() / classes, classes});
}

/// The inverse of flattenClasses: `[M, C]` back to `type` (`[N, C, d...]`).
static Value unflattenClasses(OpBuilder &b, Location loc, Value value,
                              RankedTensorType type) {
  int64_t rank = type.getRank();
  if (rank <= 2)
    return value;
  SmallVector<int64_t> shape{type.getDimSize(0)};
  llvm::append_range(shape, type.getShape().drop_front(2));
  shape.push_back(type.getDimSize(1));
  Value expanded = reshapeTensor(b, loc, value, shape);
  SmallVector<int64_t> permutation{0, rank - 1};
  for (int64_t d = 1; d < rank - 1; ++d)
    permutation.push_back(d);
  return linalg::TransposeOp::create(
             b, loc, expanded,
             createEmptyTensor(b, loc, type.getShape(), type.getElementType()),
             permutation)
      ->getResult(0);
}

/// `[N, d...]` labels (or per-sample values) as one `[N·d...]` tensor.
static Value flattenSamples(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  return reshapeTensor(b, loc, value, {type.getNumElements()});
}

/// The number of labels (a 1-d tensor) that are not `ignoreIndex`, as an f32
/// scalar.
static Value buildKeptCount(OpBuilder &b, Location loc, Value labels,
                               int64_t ignoreIndex) {
  auto type = cast<RankedTensorType>(labels.getType());
  return extractScalar(
      b, loc,
      buildReduction(b, loc, {identityOperand(labels)}, type.getShape(), {0},
                     {createF32Constant(b, loc, 0.0)},
                     [&](OpBuilder &b, Location loc, ValueRange in,
                         ValueRange acc) -> SmallVector<Value> {
                       return {arith::AddFOp::create(
                           b, loc, acc[0],
                           keptCount(b, loc,
                                     isKept(b, loc, in[0], ignoreIndex)))};
                     })
          .front());
}

namespace {
struct CrossEntropyOpLowering : OpConversionPattern<CrossEntropyOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(CrossEntropyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value logits = flattenClasses(b, loc, adaptor.getLogits());
    Value labels = flattenSamples(b, loc, adaptor.getLabels());
    auto type = cast<RankedTensorType>(logits.getType());
    int64_t batch = type.getDimSize(0), classes = type.getDimSize(1);
    int64_t ignoreIndex = op.getIgnoreIndex();
    double smoothing = op.getLabelSmoothing().convertToDouble();
    SoftmaxStatistics stats = buildSoftmaxStatistics(b, loc, logits, /*dim=*/1);
    // Per row: log Σ exp(x) = log Σ exp(x − max) + max.
    auto logSumExp = [](OpBuilder &b, Location loc, Value max, Value sumExp) {
      return arith::AddFOp::create(b, loc, math::LogOp::create(b, loc, sumExp),
                                   max);
    };
    Value zero = createF32Constant(b, loc, 0.0);
    // Σ over kept rows of log Σ exp − x[n, label], and the kept count.
    SmallVector<Value> sums = buildReduction(
        b, loc,
        {identityOperand(stats.max), identityOperand(stats.sumExp),
         identityOperand(labels)},
        {batch}, {0}, {zero, zero},
        [&](OpBuilder &b, Location loc, ValueRange in,
            ValueRange acc) -> SmallVector<Value> {
          Value row = linalg::IndexOp::create(b, loc, 0);
          Value kept = isKept(b, loc, in[2], ignoreIndex);
          Value logit = convertFloat(
              b, loc,
              tensor::ExtractOp::create(
                  b, loc, logits,
                  ValueRange{row, safeIndex(b, loc, in[2], kept)}),
              b.getF32Type());
          Value term = arith::SubFOp::create(
              b, loc, logSumExp(b, loc, in[0], in[1]), logit);
          return {arith::AddFOp::create(
                      b, loc, acc[0],
                      arith::SelectOp::create(b, loc, kept, term,
                                              createF32Constant(b, loc, 0.0))),
                  arith::AddFOp::create(b, loc, acc[1],
                                        keptCount(b, loc, kept))};
        });
    Value count = extractScalar(b, loc, sums[1]);
    // nll = Σ / K (0/0 = NaN when every label is ignored, as PyTorch).
    Value loss =
        arith::DivFOp::create(b, loc, extractScalar(b, loc, sums[0]), count);
    if (smoothing != 0.0) {
      // Σ over kept rows of −Σ_c log_softmax[n, c] = Σ_c (log Σ exp − x).
      Value smooth = extractScalar(
          b, loc,
          buildReduction(
              b, loc,
              {identityOperand(logits), projectedOperand(stats.max, 2, {1}),
               projectedOperand(stats.sumExp, 2, {1}),
               projectedOperand(labels, 2, {1})},
              {batch, classes}, {0, 1}, {zero},
              [&](OpBuilder &b, Location loc, ValueRange in,
                  ValueRange acc) -> SmallVector<Value> {
                Value term = arith::SubFOp::create(
                    b, loc, logSumExp(b, loc, in[1], in[2]), in[0]);
                return {arith::AddFOp::create(
                    b, loc, acc[0],
                    arith::SelectOp::create(
                        b, loc, isKept(b, loc, in[3], ignoreIndex), term,
                        createF32Constant(b, loc, 0.0)))};
              })
              .front());
      // (1 − ε)·nll + (smooth / K)·(ε / C), the coefficients rounded to f32.
      loss = arith::AddFOp::create(
          b, loc,
          arith::MulFOp::create(b, loc,
                                createF32Constant(b, loc, 1.0 - smoothing),
                                loss),
          arith::MulFOp::create(
              b, loc, arith::DivFOp::create(b, loc, smooth, count),
              createF32Constant(b, loc,
                                smoothing / static_cast<double>(classes))));
    }
    Type resultElement = op.getResult().getType().getElementType();
    rewriter.replaceOp(
        op, wrapScalar(b, loc, convertFloat(b, loc, loss, resultElement)));
    return success();
  }
};

struct NLLLossOpLowering : OpConversionPattern<NLLLossOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(NLLLossOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value input = flattenClasses(b, loc, adaptor.getInput());
    Value targets = flattenSamples(b, loc, adaptor.getTargets());
    int64_t batch = cast<RankedTensorType>(input.getType()).getDimSize(0);
    int64_t ignoreIndex = op.getIgnoreIndex();
    auto resultType = op.getResult().getType();
    // −input[n, target_n] (f32), 0 for an ignored target.
    auto term = [&](OpBuilder &b, Location loc, Value target) {
      Value kept = isKept(b, loc, target, ignoreIndex);
      Value value = convertFloat(
          b, loc,
          tensor::ExtractOp::create(
              b, loc, input,
              ValueRange{linalg::IndexOp::create(b, loc, 0),
                         safeIndex(b, loc, target, kept)}),
          b.getF32Type());
      return std::make_pair(
          arith::SelectOp::create(b, loc, kept,
                                  arith::NegFOp::create(b, loc, value),
                                  createF32Constant(b, loc, 0.0))
              .getResult(),
          kept);
    };
    if (op.getReduction() == LossReduction::none) {
      Value perSample =
          buildElementwise(
              b, loc, {identityOperand(targets)},
              TypeRange{RankedTensorType::get({batch},
                                              resultType.getElementType())},
              [&](OpBuilder &b, Location loc, ValueRange in,
                  ValueRange) -> SmallVector<Value> {
                return {term(b, loc, in[0]).first};
              })
              .front();
      rewriter.replaceOp(
          op, reshapeTensor(b, loc, perSample, resultType.getShape()));
      return success();
    }
    Value zero = createF32Constant(b, loc, 0.0);
    SmallVector<Value> sums = buildReduction(
        b, loc, {identityOperand(targets)}, {batch}, {0}, {zero, zero},
        [&](OpBuilder &b, Location loc, ValueRange in,
            ValueRange acc) -> SmallVector<Value> {
          auto [value, kept] = term(b, loc, in[0]);
          return {arith::AddFOp::create(b, loc, acc[0], value),
                  arith::AddFOp::create(b, loc, acc[1],
                                        keptCount(b, loc, kept))};
        });
    Value loss = extractScalar(b, loc, sums[0]);
    if (op.getReduction() == LossReduction::mean)
      loss = arith::DivFOp::create(b, loc, loss,
                                   extractScalar(b, loc, sums[1]));
    rewriter.replaceOp(
        op, wrapScalar(b, loc,
                       convertFloat(b, loc, loss,
                                    resultType.getElementType())));
    return success();
  }
};

/// (softmax − (1 − ε)·onehot − ε/C)·dl / K on kept rows, 0 on ignored ones.
struct CrossEntropyGradOpLowering : OpConversionPattern<CrossEntropyGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(CrossEntropyGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value logits = flattenClasses(rewriter, loc, adaptor.getLogits());
    Value labels = flattenSamples(rewriter, loc, adaptor.getLabels());
    auto type = cast<RankedTensorType>(logits.getType());
    int64_t classes = type.getDimSize(1);
    int64_t ignoreIndex = op.getIgnoreIndex();
    double smoothing = op.getLabelSmoothing().convertToDouble();
    SoftmaxStatistics stats =
        buildSoftmaxStatistics(rewriter, loc, logits, /*dim=*/1);
    Value count = buildKeptCount(rewriter, loc, labels, ignoreIndex);
    MLIRContext *context = rewriter.getContext();
    MappedOperand gradOutput{adaptor.getGradOutput(),
                             AffineMap::get(2, 0, {}, context)};
    double off = smoothing / static_cast<double>(classes);
    Value result =
        buildElementwise(
            rewriter, loc,
            {identityOperand(logits), projectedOperand(stats.max, 2, {1}),
             projectedOperand(stats.sumExp, 2, {1}),
             projectedOperand(labels, 2, {1}), gradOutput},
            TypeRange{type},
            [&](OpBuilder &b, Location loc, ValueRange in,
                ValueRange) -> SmallVector<Value> {
              Value probability = arith::DivFOp::create(
                  b, loc,
                  math::ExpOp::create(
                      b, loc, arith::SubFOp::create(b, loc, in[0], in[1])),
                  in[2]);
              Value column = arith::IndexCastOp::create(
                  b, loc, in[3].getType(), linalg::IndexOp::create(b, loc, 1));
              Value isLabel = arith::CmpIOp::create(
                  b, loc, arith::CmpIPredicate::eq, column, in[3]);
              Value target = arith::SelectOp::create(
                  b, loc, isLabel,
                  createF32Constant(b, loc, 1.0 - smoothing + off),
                  createF32Constant(b, loc, off));
              Value d = arith::SubFOp::create(b, loc, probability, target);
              Value scaled = arith::MulFOp::create(b, loc, d, in[4]);
              Value gradient = arith::DivFOp::create(b, loc, scaled, count);
              return {arith::SelectOp::create(
                  b, loc, isKept(b, loc, in[3], ignoreIndex), gradient,
                  createF32Constant(b, loc, 0.0))};
            })
            .front();
    rewriter.replaceOp(op, unflattenClasses(rewriter, loc, result,
                                            op.getResult().getType()));
    return success();
  }
};

/// −dl (÷ K for mean, dl[n] for none) at [n, target_n] of kept rows.
struct NLLLossGradOpLowering : OpConversionPattern<NLLLossGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(NLLLossGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = op.getResult().getType();
    int64_t classes = resultType.getDimSize(1);
    auto type = RankedTensorType::get(
        {resultType.getNumElements() / classes, classes},
        resultType.getElementType());
    Value targets = flattenSamples(rewriter, loc, adaptor.getTargets());
    int64_t ignoreIndex = op.getIgnoreIndex();
    LossReduction reduction = op.getReduction();
    Value count;
    if (reduction == LossReduction::mean)
      count = buildKeptCount(rewriter, loc, targets, ignoreIndex);
    MLIRContext *context = rewriter.getContext();
    MappedOperand gradOutput =
        reduction == LossReduction::none
            ? projectedOperand(
                  flattenSamples(rewriter, loc, adaptor.getGradOutput()), 2,
                  {1})
            : MappedOperand{adaptor.getGradOutput(),
                            AffineMap::get(2, 0, {}, context)};
    Value result =
        buildElementwise(rewriter, loc,
                         {projectedOperand(targets, 2, {1}), gradOutput},
                         TypeRange{type},
            [&](OpBuilder &b, Location loc, ValueRange in,
                ValueRange) -> SmallVector<Value> {
              Value column = arith::IndexCastOp::create(
                  b, loc, in[0].getType(), linalg::IndexOp::create(b, loc, 1));
              Value hit = arith::AndIOp::create(
                  b, loc,
                  arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        column, in[0]),
                  isKept(b, loc, in[0], ignoreIndex));
              Value gradient = arith::NegFOp::create(b, loc, in[1]);
              if (count)
                gradient = arith::DivFOp::create(b, loc, gradient, count);
              return {arith::SelectOp::create(b, loc, hit, gradient,
                                              createF32Constant(b, loc, 0.0))};
            })
            .front();
    rewriter.replaceOp(op, unflattenClasses(rewriter, loc, result, resultType));
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
  patterns.add<CrossEntropyOpLowering, CrossEntropyGradOpLowering,
               NLLLossOpLowering, NLLLossGradOpLowering, MSEOpLowering>(patterns.getContext());
}
