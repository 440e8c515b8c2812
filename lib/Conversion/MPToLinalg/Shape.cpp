//===- Shape.cpp - Shape mp ops to linalg and tensor ops ------------------===//
//
// transpose → linalg.transpose; reshape → tensor.collapse_shape/expand_shape;
// broadcast → collapse of the size-1 dimensions that broadcast, then
// linalg.broadcast; concat → tensor.concat; slice → tensor.extract_slice;
// embedding → a linalg.generic gathering rows with tensor.extract;
// stop_gradient → its operand. The element type is never inspected, so
// integer tensors (labels, masks) lower like float ones. Their
// gradients: slice_grad → tensor.insert_slice into zeros; embedding_grad →
// an scf.for over the indices adding each gradient row into an f32 table
// (repeated indices accumulate in f32), rounded once to the result type.
// No arithmetic rounds here except embedding_grad's final rounding.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"
#include "Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mp/Dialect/MP/IR/MPOps.h"

using namespace mlir;
using namespace mlir::mp;
using namespace mlir::mp::lowering;

namespace {
struct TransposeOpLowering : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = op.getResult().getType();
    Value init = createEmptyTensor(rewriter, op.getLoc(), resultType.getShape(),
                                   resultType.getElementType());
    rewriter.replaceOp(op, linalg::TransposeOp::create(rewriter, op.getLoc(),
                                                       adaptor.getInput(), init,
                                                       op.getPermutation())
                               .getResult());
    return success();
  }
};

struct ReshapeOpLowering : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op,
                       reshapeTensor(rewriter, op.getLoc(), adaptor.getInput(),
                                     op.getResult().getType().getShape()));
    return success();
  }
};

struct BroadcastOpLowering : OpConversionPattern<BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = op.getResult().getType();
    MappedOperand input = broadcastOperand(rewriter, loc, adaptor.getInput(),
                                           resultType.getShape());
    // The dimensions the (collapsed) input does not have are added.
    SmallVector<int64_t> added;
    for (int64_t dim = 0; dim < resultType.getRank(); ++dim)
      if (!input.map.isFunctionOfDim(dim))
        added.push_back(dim);
    if (added.empty()) {
      rewriter.replaceOp(op, input.tensor);
      return success();
    }
    Value init = createEmptyTensor(rewriter, loc, resultType.getShape(),
                                   resultType.getElementType());
    rewriter.replaceOp(op, linalg::BroadcastOp::create(
                               rewriter, loc, input.tensor, init, added)
                               .getResult());
    return success();
  }
};

struct ConcatOpLowering : OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (adaptor.getInputs().size() == 1) {
      rewriter.replaceOp(op, adaptor.getInputs().front());
      return success();
    }
    rewriter.replaceOp(op, tensor::ConcatOp::create(
                               rewriter, op.getLoc(), op.getResult().getType(),
                               op.getDim(), adaptor.getInputs())
                               .getResult());
    return success();
  }
};

struct SliceOpLowering : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, tensor::ExtractSliceOp::create(
                               rewriter, op.getLoc(), op.getResult().getType(),
                               adaptor.getInput(), ValueRange{}, ValueRange{},
                               ValueRange{}, op.getOffsets(), op.getSizes(),
                               op.getStrides())
                               .getResult());
    return success();
  }
};

struct SliceGradOpLowering : OpConversionPattern<SliceGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SliceGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = op.getResult().getType();
    Value zeros = createZeroTensor(rewriter, op.getLoc(), resultType.getShape(),
                                   resultType.getElementType());
    rewriter.replaceOp(op, tensor::InsertSliceOp::create(
                               rewriter, op.getLoc(), adaptor.getGradOutput(),
                               zeros, ValueRange{}, ValueRange{}, ValueRange{},
                               op.getOffsets(), op.getSizes(), op.getStrides())
                               .getResult());
    return success();
  }
};

/// mp.stop_gradient only matters to mp-autodiff: forward the operand.
struct StopGradientOpLowering : OpConversionPattern<StopGradientOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(StopGradientOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getInput());
    return success();
  }
};

/// Converts an element of an index tensor to `index`.
Value toIndex(OpBuilder &b, Location loc, Value value) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), value);
}

struct EmbeddingOpLowering : OpConversionPattern<EmbeddingOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(EmbeddingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = op.getResult().getType();
    Value table = adaptor.getTable();
    unsigned rank = resultType.getRank();
    // Loops (s..., d): the index tensor is read at (s...), the table at
    // (indices[s...], d) inside the payload.
    MappedOperand indices =
        projectedOperand(adaptor.getIndices(), rank, {rank - 1});
    Value result =
        buildElementwise(
            rewriter, loc, {indices}, TypeRange{resultType},
            [&](OpBuilder &b, Location loc, ValueRange in,
                ValueRange) -> SmallVector<Value> {
              Value row = toIndex(b, loc, in[0]);
              Value column = linalg::IndexOp::create(b, loc, rank - 1);
              return {tensor::ExtractOp::create(b, loc, table,
                                                ValueRange{row, column})};
            },
            resultType.getElementType())
            .front();
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct EmbeddingGradOpLowering : OpConversionPattern<EmbeddingGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(EmbeddingGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = op.getResult().getType();
    auto indicesType = op.getIndices().getType();
    int64_t numRows = resultType.getDimSize(0);
    int64_t width = resultType.getDimSize(1);
    int64_t numIndices = indicesType.getNumElements();
    Value gradRows = reshapeTensor(rewriter, loc, adaptor.getGradOutput(),
                                   {numIndices, width});
    Value indices =
        reshapeTensor(rewriter, loc, adaptor.getIndices(), {numIndices});
    Type f32 = rewriter.getF32Type();
    Value table = createZeroTensor(rewriter, loc, {numRows, width}, f32);

    Value lower = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value upper = arith::ConstantIndexOp::create(rewriter, loc, numIndices);
    Value step = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto loop = scf::ForOp::create(
        rewriter, loc, lower, upper, step, ValueRange{table},
        [&](OpBuilder &b, Location loc, Value i, ValueRange iterArgs) {
          Value acc = iterArgs.front();
          Value row = toIndex(
              b, loc,
              tensor::ExtractOp::create(b, loc, indices, ValueRange{i}));
          SmallVector<OpFoldResult> sizes{b.getIndexAttr(1),
                                          b.getIndexAttr(width)};
          SmallVector<OpFoldResult> unitStrides(2, b.getIndexAttr(1));
          SmallVector<OpFoldResult> tableOffsets{row, b.getIndexAttr(0)};
          SmallVector<OpFoldResult> gradOffsets{i, b.getIndexAttr(0)};
          Value current = tensor::ExtractSliceOp::create(
              b, loc, acc, tableOffsets, sizes, unitStrides);
          Value grad = tensor::ExtractSliceOp::create(
              b, loc, gradRows, gradOffsets, sizes, unitStrides);
          // Accumulates into the row in place (it is the generic's init).
          SmallVector<utils::IteratorType> iterators(
              2, utils::IteratorType::parallel);
          Value sum = buildGeneric(b, loc, {identityOperand(grad)},
                                   {identityOperand(current)}, iterators, f32,
                                   [](OpBuilder &b, Location loc, ValueRange in,
                                      ValueRange out) -> SmallVector<Value> {
                                     return {arith::AddFOp::create(
                                         b, loc, out[0], in[0])};
                                   })
                          .front();
          Value updated = tensor::InsertSliceOp::create(
              b, loc, sum, acc, tableOffsets, sizes, unitStrides);
          scf::YieldOp::create(b, loc, updated);
        });
    rewriter.replaceOp(
        op, roundTensor(rewriter, loc, loop.getResult(0), resultType));
    return success();
  }
};
} // namespace

void lowering::populateShapePatterns(RewritePatternSet &patterns) {
  patterns.add<TransposeOpLowering, ReshapeOpLowering, BroadcastOpLowering,
               ConcatOpLowering, SliceOpLowering, SliceGradOpLowering,
               EmbeddingOpLowering, EmbeddingGradOpLowering,
               StopGradientOpLowering>(patterns.getContext());
}
