//===- BlockScaled.cpp - Block-scaled ops to linalg -----------------------===//
//
// mp.stochastic_cast, mp.block_quantize, mp.block_dequantize and
// mp.scaled_matmul (MPBlockScaledOps.td) as linalg on tensors, exactly as
// specified there. A tensor with blocks b_k along its dimensions is read
// through tensor.expand_shape as the "blocked" shape where each blocked
// dimension n_k becomes [n_k / b_k, b_k]: a block's elements are then the
// inner dimensions, its scale is read with the projection that drops them,
// and every map is a projected permutation. Quantisation is a max-|x|
// reduction per block from 0 that ignores NaN (arith.maxnumf, Transformer
// Engine's fmaxf), an elementwise op on the amaxes
// giving the scales and the f32 encode factors, and an elementwise op on the
// blocked input (product, then mp.cast's saturating rounding or
// mp.stochastic_cast's); the narrow truncations and extensions are expanded
// later by mp-expand-fp8-conversions. mp.scaled_matmul is rewritten to the
// two dequantisations and an f32 mp.matmul, which is its definition.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"
#include "Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mp/Dialect/MP/IR/MPOps.h"
#include "llvm/ADT/APFloat.h"

#include <limits>

using namespace mlir;
using namespace mlir::mp;
using namespace mlir::mp::lowering;

namespace {
/// The blocked view of a tensor of shape `shape` with blocks `block`.
struct BlockedShape {
  /// The expanded shape: [n_k / b_k, b_k] for each blocked dimension.
  SmallVector<int64_t> shape;
  /// The reassociation of `shape` onto the original dimensions.
  SmallVector<ReassociationIndices> groups;
  /// The positions in `shape` of the block-inner dimensions.
  SmallVector<int64_t> innerDims;

  BlockedShape(ArrayRef<int64_t> original, ArrayRef<int64_t> block) {
    for (auto [n, b] : llvm::zip_equal(original, block)) {
      ReassociationIndices group{static_cast<int64_t>(shape.size())};
      if (b == 1) {
        shape.push_back(n);
      } else {
        shape.append({n / b, b});
        group.push_back(shape.size() - 1);
        innerDims.push_back(shape.size() - 1);
      }
      groups.push_back(group);
    }
  }

  /// `tensor` (of the original shape) in the blocked shape.
  Value expand(OpBuilder &b, Location loc, Value tensor) const {
    auto type = cast<RankedTensorType>(tensor.getType());
    return tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get(shape, type.getElementType()), tensor,
        groups);
  }
  /// `tensor` (of the blocked shape) in the original shape.
  Value collapse(OpBuilder &b, Location loc, Value tensor) const {
    return tensor::CollapseShapeOp::create(b, loc, tensor, groups);
  }
  /// A tensor of the scales' shape read at each element of the blocked
  /// iteration space.
  MappedOperand perBlock(Value scales) const {
    return projectedOperand(scales, shape.size(), innerDims);
  }
};

/// The largest finite value of a float type.
double largest(Type type) {
  return APFloat::getLargest(cast<FloatType>(type).getFloatSemantics())
      .convertToDouble();
}

/// `1 / max` of a data type, rounded to f32 (the quantisation multiplies by
/// it, as Transformer Engine's max_norm_rcp).
double reciprocalOfLargest(Type type) {
  return static_cast<double>(1.0f / static_cast<float>(largest(type)));
}

struct StochasticCastOpLowering : OpConversionPattern<StochasticCastOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(StochasticCastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = op.getResult().getType();
    Type target = resultType.getElementType();
    Value result = buildElementwise(
        rewriter, op.getLoc(), {adaptor.getInput(), adaptor.getRandomBits()},
        resultType,
        [&](OpBuilder &b, Location loc, ValueRange args,
            ValueRange) -> SmallVector<Value> {
          return {buildStochasticTruncation(b, loc, args[0], args[1], target)};
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct BlockQuantizeOpLowering : OpConversionPattern<BlockQuantizeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BlockQuantizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inputType = op.getInput().getType();
    auto scalesType = op.getScales().getType();
    Type dataElem = op.getData().getType().getElementType();
    Type scaleElem = scalesType.getElementType();
    BlockedShape blocked(inputType.getShape(), op.getBlockShape());
    Value input = blocked.expand(rewriter, loc, adaptor.getInput());

    // The amax of each block, in f32: maxnumf from 0 ignores NaN elements,
    // as Transformer Engine's fmaxf reductions do.
    Value amax =
        buildReduction(rewriter, loc, {identityOperand(input)}, blocked.shape,
                       blocked.innerDims, {createF32Constant(rewriter, loc, 0)},
                       [](OpBuilder &b, Location loc, ValueRange in,
                          ValueRange acc) -> SmallVector<Value> {
                         Value magnitude = math::AbsFOp::create(b, loc, in[0]);
                         return {arith::MaxNumFOp::create(b, loc, acc[0],
                                                          magnitude)};
                       })
            .front();

    // The scales and the f32 encode factors.
    Value global;
    if (adaptor.getGlobalScale())
      global = extractScalar(rewriter, loc, adaptor.getGlobalScale());
    auto f32Scales =
        RankedTensorType::get(scalesType.getShape(), rewriter.getF32Type());
    SmallVector<Value> scaleAndEncode = buildElementwise(
        rewriter, loc, {identityOperand(amax)}, {scalesType, f32Scales},
        [&](OpBuilder &b, Location loc, ValueRange args,
            ValueRange) -> SmallVector<Value> {
          return computeScale(b, loc, args[0], dataElem, scaleElem, global,
                              op.getAmaxEpsilon().convertToDouble(),
                              !op.getUnroundedScales());
        });

    // The data: x · encode, rounded once.
    SmallVector<MappedOperand> operands{identityOperand(input),
                                        blocked.perBlock(scaleAndEncode[1])};
    if (adaptor.getRandomBits())
      operands.push_back(identityOperand(
          blocked.expand(rewriter, loc, adaptor.getRandomBits())));
    auto blockedData = RankedTensorType::get(blocked.shape, dataElem);
    bool stochastic = static_cast<bool>(adaptor.getRandomBits());
    Value data =
        buildElementwise(
            rewriter, loc, operands, {blockedData},
            [&](OpBuilder &b, Location loc, ValueRange args,
                ValueRange) -> SmallVector<Value> {
              Value product = arith::MulFOp::create(b, loc, args[0], args[1]);
              if (stochastic)
                return {buildStochasticTruncation(b, loc, product, args[2],
                                                  dataElem)};
              return {buildSaturatingTruncation(b, loc, product, dataElem)};
            })
            .front();
    rewriter.replaceOp(op, {blocked.collapse(rewriter, loc, data),
                            scaleAndEncode[0]});
    return success();
  }

  /// The scale (of `scaleElem`) and the f32 encode factor of a block with
  /// amax `amax` (f32, not NaN), as mp.block_quantize specifies; `epsilon`
  /// and `powerOfTwo` apply to f32 scales.
  static SmallVector<Value> computeScale(OpBuilder &b, Location loc, Value amax,
                                         Type dataElem, Type scaleElem,
                                         Value global, double epsilon,
                                         bool powerOfTwo) {
    Value one = createF32Constant(b, loc, 1.0);
    Value fltMax =
        createF32Constant(b, loc, std::numeric_limits<float>::max());
    if (isa<Float8E8M0FNUType>(scaleElem)) {
      Value ratio = arith::MulFOp::create(
          b, loc, amax,
          createF32Constant(b, loc, reciprocalOfLargest(dataElem)));
      Value scale = buildSaturatingTruncation(b, loc, ratio, scaleElem);
      // 1 / 2^k is exact for every E8M0 value (and NaN for 0xFF).
      Value encode = arith::DivFOp::create(b, loc, one,
                                           convertFloat(b, loc, scale,
                                                        b.getF32Type()));
      return {scale, encode};
    }
    if (isa<Float8E4M3FNType>(scaleElem)) {
      Value ratio = arith::MulFOp::create(
          b, loc,
          arith::MulFOp::create(
              b, loc, amax,
              createF32Constant(b, loc, reciprocalOfLargest(dataElem))),
          global);
      Value scale = buildSaturatingTruncation(b, loc, ratio, scaleElem);
      Value encode = arith::MinimumFOp::create(
          b, loc,
          arith::DivFOp::create(b, loc, global,
                                convertFloat(b, loc, scale, b.getF32Type())),
          fltMax);
      return {scale, encode};
    }
    // f32 scales, Transformer Engine's compute_scale_from_amax: the amax
    // raised to epsilon; max / amax (FLT_MAX when infinite, 1 for a zero,
    // infinite or NaN amax), rounded down to a power of two unless the
    // scales are unrounded.
    if (epsilon != 0.0) {
      Value eps = createF32Constant(b, loc, static_cast<float>(epsilon));
      amax = arith::SelectOp::create(
          b, loc,
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, amax, eps),
          eps, amax);
    }
    Value inf =
        createF32Constant(b, loc, std::numeric_limits<float>::infinity());
    Value encode = arith::DivFOp::create(
        b, loc, createF32Constant(b, loc, largest(dataElem)), amax);
    encode = arith::SelectOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, encode, inf),
        fltMax, encode);
    Value unit = arith::OrIOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, amax,
                              createF32Constant(b, loc, 0.0)),
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UEQ, amax, inf));
    encode = arith::SelectOp::create(b, loc, unit, one, encode);
    if (powerOfTwo)
      encode = buildPowerOfTwoFloor(b, loc, encode);
    return {arith::DivFOp::create(b, loc, one, encode), encode};
  }
};

struct BlockDequantizeOpLowering : OpConversionPattern<BlockDequantizeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BlockDequantizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    BlockedShape blocked(op.getData().getType().getShape(),
                         op.getBlockShape());
    Value global;
    if (adaptor.getGlobalScale())
      global = extractScalar(rewriter, loc, adaptor.getGlobalScale());
    auto blockedResult = RankedTensorType::get(
        blocked.shape, op.getResult().getType().getElementType());
    // Data and scales reach the body in f32 (exact extensions).
    Value result =
        buildElementwise(
            rewriter, loc,
            {identityOperand(blocked.expand(rewriter, loc, adaptor.getData())),
             blocked.perBlock(adaptor.getScales())},
            {blockedResult},
            [&](OpBuilder &b, Location loc, ValueRange args,
                ValueRange) -> SmallVector<Value> {
              Value product = arith::MulFOp::create(b, loc, args[0], args[1]);
              if (global)
                product = arith::DivFOp::create(b, loc, product, global);
              return {product};
            })
            .front();
    rewriter.replaceOp(op, blocked.collapse(rewriter, loc, result));
    return success();
  }
};

struct ScaledMatmulOpLowering : OpConversionPattern<ScaledMatmulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ScaledMatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    auto dequantize = [&](Value data, Value scales) -> Value {
      auto type = cast<RankedTensorType>(data.getType());
      return BlockDequantizeOp::create(
          rewriter, loc, RankedTensorType::get(type.getShape(), f32), data,
          scales, /*global_scale=*/Value());
    };
    Value lhs = dequantize(adaptor.getLhs(), adaptor.getLhsScales());
    Value rhs = dequantize(adaptor.getRhs(), adaptor.getRhsScales());
    rewriter.replaceOpWithNewOp<MatmulOp>(op, op.getResult().getType(), lhs,
                                          rhs, op.getTransposeLhs(),
                                          op.getTransposeRhs(), f32);
    return success();
  }
};
} // namespace

void lowering::populateBlockScaledPatterns(RewritePatternSet &patterns) {
  patterns.add<StochasticCastOpLowering, BlockQuantizeOpLowering,
               BlockDequantizeOpLowering, ScaledMatmulOpLowering>(
      patterns.getContext());
}
