//===- BatchNorm.cpp - batch_norm and batch_norm_grad to linalg -----------===//
//
// Lowers mp.batch_norm and mp.batch_norm_grad with the arithmetic of PyTorch
// 1.13's CPU kernels (aten/src/ATen/native/Normalization.cpp and
// native/cpu/batch_norm_kernel.cpp), so that f32 results are bit-identical
// to F.batch_norm on the CPU:
//  - batch statistics per channel c over the n = N·H·W values: when H·W > 1
//    the sums accumulate in f64 (mean = f32(Σx / n), var_sum = f32(Σ f64(
//    (x − mean)²)) with the square rounded to f32); when H·W = 1 (an [N, C]
//    input) they accumulate in f32, var_sum by fused multiply-adds;
//  - rstd = f32(1 / sqrt(f64(var_sum / n) + eps)) in training,
//    1 / sqrt(running_var + f32(eps)) in f32 in eval mode;
//  - running statistics in f32 with the factor m = f32(momentum) (or
//    f32(1 / count) for a cumulative average):
//    m·mean + (1 − m)·running_mean, and f32(f64(m)·f64(var_sum / (n − 1)) +
//    f64((1 − m)·running_var)) for the variance (PyTorch's double
//    accumulation type);
//  - y = fma(x, α, β), α = rstd·weight, β = fma(−mean, α, bias), rounded
//    once to the input type (f16/bf16 inputs are extended to f32).
// The backward recomputes the statistics the same way (in eval mode rstd is
// f32(1 / sqrt(f64(running_var) + eps))) and follows PyTorch's backward
// kernels (AVX2, 8 f32 lanes, and its GCC build's FMA contraction):
//  - H·W = 1 (its channels-last kernel; one thread): Σdy and
//    dotp = Σ(x − mean)·dy in f32 over the samples, dotp by FMAs;
//    grad_mean = Σdy / n, k = dotp·rstd·rstd / n, weight gradient dotp·rstd
//    in f32;
//  - H·W > 1: per sample and channel, f32 vector sums over the H·W values
//    (fewer than 8: sequential, products rounded; else per lane by FMAs and
//    the lanes added as a tree), those added over the samples in f64;
//    grad_mean = f32(Σdy / n) and weight gradient f32(dotp·rstd) in f64,
//    k = f32(dotp)·rstd·rstd / n in f32;
//  - dx = fma(−(x − mean), k, dy − grad_mean)·rstd·w (eval: dy·rstd·w).
// f32 gradients are then bit-identical to PyTorch's with one thread
// (torch.set_num_threads(1); more threads split the H·W = 1 sums).
// mp-tile-and-vectorize keeps every one of these sums in its order and
// vectorises across independent ones: the f64 statistics across channels,
// the per-lane sums across the 8 lanes, 4 channels at a time.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"
#include "Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mp/Dialect/MP/IR/MPOps.h"

using namespace mlir;
using namespace mlir::mp;
using namespace mlir::mp::lowering;

namespace {
/// The iteration space of a batch norm: the input's shape, the channel
/// dimension 1 kept and the others reduced.
struct ChannelSpace {
  ArrayRef<int64_t> shape;
  SmallVector<int64_t> reducedDims;
  int64_t channels;
  /// Values per channel (n) and values per channel and sample (H·W).
  int64_t count;
  int64_t spatial;

  explicit ChannelSpace(RankedTensorType type) : shape(type.getShape()) {
    for (int64_t i = 0, e = type.getRank(); i < e; ++i)
      if (i != 1)
        reducedDims.push_back(i);
    channels = shape[1];
    count = type.getNumElements() / std::max<int64_t>(channels, 1);
    spatial = count / std::max<int64_t>(shape[0], 1);
  }

  unsigned rank() const { return shape.size(); }
  /// A [C] tensor read at each element of the input's iteration space.
  MappedOperand perChannel(Value tensor) const {
    return projectedOperand(tensor, rank(), reducedDims);
  }
};

/// A [C] tensor read with the identity map in a 1-d per-channel generic.
MappedOperand channelOperand(Value tensor) { return identityOperand(tensor); }

/// A per-channel linalg.generic over [C]: its inputs reach `body` unconverted
/// (the payload chooses between f32 and f64), each result is converted to
/// the element type of its `resultTypes` entry.
SmallVector<Value> buildPerChannel(OpBuilder &b, Location loc,
                                   ArrayRef<MappedOperand> inputs,
                                   TypeRange resultTypes, GenericBodyFn body) {
  SmallVector<MappedOperand> inits;
  for (Type type : resultTypes) {
    auto tensorType = cast<RankedTensorType>(type);
    inits.push_back(identityOperand(createEmptyTensor(
        b, loc, tensorType.getShape(), tensorType.getElementType())));
  }
  return buildGeneric(b, loc, inputs, inits, {utils::IteratorType::parallel},
                      Type(), body);
}

Value extF64(OpBuilder &b, Location loc, Value value) {
  return arith::ExtFOp::create(b, loc, b.getF64Type(), value);
}
Value truncF32(OpBuilder &b, Location loc, Value value) {
  return arith::TruncFOp::create(b, loc, b.getF32Type(), value);
}
Value f64Constant(OpBuilder &b, Location loc, double value) {
  return createFloatConstant(b, loc, b.getF64Type(), value);
}

/// `value` extended to f32 when it is a narrower float.
Value toF32(OpBuilder &b, Location loc, Value value) {
  return convertFloat(b, loc, value, b.getF32Type());
}

/// The per-channel statistics a batch norm normalises with, [C] f32: the
/// mean and rstd, and in training mode the sum of squared deviations.
struct BatchStatistics {
  Value mean;
  Value rstd;
  Value varSum;
};

/// The batch statistics of `input` in PyTorch's CPU order (see the file
/// header).
BatchStatistics buildBatchStatistics(OpBuilder &b, Location loc, Value input,
                                     const ChannelSpace &space, double eps) {
  Type f32 = b.getF32Type();
  auto channelType = RankedTensorType::get({space.channels}, f32);
  // PyTorch's [N, C] (H·W = 1) kernel accumulates in f32, the others in
  // its accumulation type for float, f64.
  bool wide = space.spatial > 1;
  Type accType = wide ? Type(b.getF64Type()) : f32;
  Value zero = createFloatConstant(b, loc, accType, 0.0);
  Value sum =
      buildReduction(b, loc, {identityOperand(input)}, space.shape,
                     space.reducedDims, {zero},
                     [&](OpBuilder &b, Location loc, ValueRange in,
                         ValueRange acc) -> SmallVector<Value> {
                       Value x = wide ? extF64(b, loc, in[0]) : in[0];
                       return {arith::AddFOp::create(b, loc, acc[0], x)};
                     })
          .front();
  int64_t n = space.count;
  Value mean =
      buildPerChannel(b, loc, {channelOperand(sum)}, TypeRange{channelType},
                      [&](OpBuilder &b, Location loc, ValueRange in,
                          ValueRange) -> SmallVector<Value> {
                        Value divisor = createFloatConstant(b, loc, accType, n);
                        return {arith::DivFOp::create(b, loc, in[0], divisor)};
                      })
          .front();
  Value squares =
      buildReduction(
          b, loc, {identityOperand(input), space.perChannel(mean)}, space.shape,
          space.reducedDims, {zero},
          [&](OpBuilder &b, Location loc, ValueRange in,
              ValueRange acc) -> SmallVector<Value> {
            Value d = arith::SubFOp::create(b, loc, in[0], in[1]);
            if (!wide)
              return {math::FmaOp::create(b, loc, d, d, acc[0])};
            Value sq = arith::MulFOp::create(b, loc, d, d);
            return {arith::AddFOp::create(b, loc, acc[0], extF64(b, loc, sq))};
          })
          .front();
  SmallVector<Value> stats = buildPerChannel(
      b, loc, {channelOperand(squares)}, TypeRange{channelType, channelType},
      [&](OpBuilder &b, Location loc, ValueRange in,
          ValueRange) -> SmallVector<Value> {
        Value varSum = wide ? truncF32(b, loc, in[0]) : in[0];
        Value var =
            arith::DivFOp::create(b, loc, varSum, createF32Constant(b, loc, n));
        // InvStd<double>: 1 / sqrt(var + eps), 0 when var and eps are 0.
        Value shifted = arith::AddFOp::create(b, loc, extF64(b, loc, var),
                                              f64Constant(b, loc, eps));
        Value rstd =
            arith::DivFOp::create(b, loc, f64Constant(b, loc, 1.0),
                                  math::SqrtOp::create(b, loc, shifted));
        if (eps == 0.0) {
          Value isZero =
              arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, var,
                                    createF32Constant(b, loc, 0.0));
          rstd = arith::SelectOp::create(b, loc, isZero,
                                         f64Constant(b, loc, 0.0), rstd);
        }
        return {varSum, truncF32(b, loc, rstd)};
      });
  return {mean, stats[1], stats[0]};
}

/// The eval-mode statistics: the running mean and
/// rstd = 1 / sqrt(running_var + eps), in f32 with f32(eps) (PyTorch's
/// forward), or in f64 rounded once when `wide` (its backward kernels).
BatchStatistics buildRunningStatistics(OpBuilder &b, Location loc,
                                       Value runningMean, Value runningVar,
                                       double eps, bool wide) {
  auto type = cast<RankedTensorType>(runningVar.getType());
  Value rstd =
      buildPerChannel(b, loc, {channelOperand(runningVar)}, TypeRange{type},
                      [&](OpBuilder &b, Location loc, ValueRange in,
                          ValueRange) -> SmallVector<Value> {
                        Value var = wide ? extF64(b, loc, in[0]) : in[0];
                        Type accType = var.getType();
                        Value shifted = arith::AddFOp::create(
                            b, loc, var,
                            createFloatConstant(b, loc, accType, eps));
                        return {arith::DivFOp::create(
                            b, loc, createFloatConstant(b, loc, accType, 1.0),
                            math::SqrtOp::create(b, loc, shifted))};
                      })
          .front();
  return {runningMean, rstd, Value()};
}

/// The statistics of `mode` (`wide`: see buildRunningStatistics).
BatchStatistics buildStatistics(OpBuilder &b, Location loc, BatchNormMode mode,
                                Value input, Value runningMean,
                                Value runningVar, const ChannelSpace &space,
                                double eps, bool wide) {
  if (mode == BatchNormMode::training)
    return buildBatchStatistics(b, loc, input, space, eps);
  return buildRunningStatistics(b, loc, runningMean, runningVar, eps, wide);
}

struct BatchNormOpLowering : OpConversionPattern<BatchNormOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BatchNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    ChannelSpace space(type);
    double eps = op.getEps().convertToDouble();
    bool training = op.getMode() == BatchNormMode::training;
    Value runningMean = adaptor.getRunningMean();
    Value runningVar = adaptor.getRunningVar();
    Value count = adaptor.getNumBatchesTracked();
    BatchStatistics stats =
        buildStatistics(rewriter, loc, op.getMode(), input, runningMean,
                        runningVar, space, eps, /*wide=*/false);
    Type f32 = rewriter.getF32Type();
    auto channelType = RankedTensorType::get({space.channels}, f32);

    // α = rstd·weight, β = fma(−mean, α, bias).
    SmallVector<MappedOperand> paramInputs{channelOperand(stats.mean),
                                           channelOperand(stats.rstd)};
    Value weight = adaptor.getWeight();
    Value bias = adaptor.getBias();
    if (weight)
      paramInputs.push_back(channelOperand(weight));
    if (bias)
      paramInputs.push_back(channelOperand(bias));
    SmallVector<Value> terms = buildPerChannel(
        rewriter, loc, paramInputs, TypeRange{channelType, channelType},
        [&](OpBuilder &b, Location loc, ValueRange in,
            ValueRange) -> SmallVector<Value> {
          unsigned next = 2;
          Value alpha = in[1];
          if (weight)
            alpha =
                arith::MulFOp::create(b, loc, alpha, toF32(b, loc, in[next++]));
          Value shift =
              bias ? toF32(b, loc, in[next++]) : createF32Constant(b, loc, 0.0);
          Value negMean = arith::NegFOp::create(b, loc, in[0]);
          return {alpha, math::FmaOp::create(b, loc, negMean, alpha, shift)};
        });
    Value result =
        buildElementwise(
            rewriter, loc,
            {identityOperand(input), space.perChannel(terms[0]),
             space.perChannel(terms[1])},
            TypeRange{type},
            [](OpBuilder &b, Location loc, ValueRange in,
               ValueRange) -> SmallVector<Value> {
              return {math::FmaOp::create(b, loc, in[0], in[1], in[2])};
            })
            .front();
    if (!training) {
      rewriter.replaceOp(op, {result, runningMean, runningVar, count});
      return success();
    }

    // num_batches_tracked + 1, and the averaging factor.
    Value oldCount = extractScalar(rewriter, loc, count);
    Value newCount = arith::AddIOp::create(
        rewriter, loc, oldCount,
        arith::ConstantIntOp::create(rewriter, loc, rewriter.getI64Type(), 1));
    Value factor;
    if (op.getCumulativeAverage()) {
      // PyTorch: momentum = 1.0 / float(num_batches_tracked) in double,
      // then static_cast<float>.
      Value asDouble = arith::SIToFPOp::create(rewriter, loc,
                                               rewriter.getF64Type(), newCount);
      factor = truncF32(rewriter, loc,
                        arith::DivFOp::create(rewriter, loc,
                                              f64Constant(rewriter, loc, 1.0),
                                              asDouble));
    } else {
      factor =
          createF32Constant(rewriter, loc, op.getMomentum().convertToDouble());
    }
    int64_t n = space.count;
    SmallVector<Value> running = buildPerChannel(
        rewriter, loc,
        {channelOperand(stats.mean), channelOperand(stats.varSum),
         channelOperand(runningMean), channelOperand(runningVar)},
        TypeRange{channelType, channelType},
        [&](OpBuilder &b, Location loc, ValueRange in,
            ValueRange) -> SmallVector<Value> {
          Value keep = arith::SubFOp::create(
              b, loc, createF32Constant(b, loc, 1.0), factor);
          Value mean = arith::AddFOp::create(
              b, loc, arith::MulFOp::create(b, loc, factor, in[0]),
              arith::MulFOp::create(b, loc, keep, in[2]));
          Value unbiased = arith::DivFOp::create(
              b, loc, in[1], createF32Constant(b, loc, n - 1));
          Value var = arith::AddFOp::create(
              b, loc,
              arith::MulFOp::create(b, loc, extF64(b, loc, factor),
                                    extF64(b, loc, unbiased)),
              extF64(b, loc, arith::MulFOp::create(b, loc, keep, in[3])));
          return {mean, truncF32(b, loc, var)};
        });
    rewriter.replaceOp(op, {result, running[0], running[1],
                            wrapScalar(rewriter, loc, newCount)});
    return success();
  }
};

/// Float lanes of PyTorch's CPU vectors (`Vectorized<float>` with AVX2).
constexpr int64_t kVectorLanes = 8;

/// The per-channel sums of a batch norm backward: Σ dy and
/// Σ dy·(x − mean), [C], f64 when `wide` (per-image partial sums), else f32.
struct GradientSums {
  Value sumDy;
  Value dotp;
  bool wide;
};

/// Σ dy and Σ (x − mean)·dy per channel in the order of PyTorch's CPU
/// backward kernels (see the file header).
GradientSums buildGradientSums(OpBuilder &b, Location loc, Value gradOutput,
                               Value input, Value mean,
                               const ChannelSpace &space) {
  if (space.spatial == 1) {
    // The channels-last kernel ([N, C] and N×C×1×1): f32 sums over the
    // samples, the dot product by fused multiply-adds.
    Value zero = createF32Constant(b, loc, 0.0);
    SmallVector<Value> sums = buildReduction(
        b, loc,
        {identityOperand(gradOutput), identityOperand(input),
         space.perChannel(mean)},
        space.shape, space.reducedDims, {zero, zero},
        [](OpBuilder &b, Location loc, ValueRange in,
           ValueRange acc) -> SmallVector<Value> {
          Value centered = arith::SubFOp::create(b, loc, in[1], in[2]);
          return {arith::AddFOp::create(b, loc, acc[0], in[0]),
                  math::FmaOp::create(b, loc, centered, in[0], acc[1])};
        });
    return {sums[0], sums[1], false};
  }

  // The contiguous kernel: per sample and channel, f32 vector sums over the
  // S = H·W values (below one vector: sequentially, products rounded;
  // otherwise lane l sums the values l, l + 8, ... by multiply-adds, the
  // last partial vector included, and the 8 lanes are added as a tree); the
  // per-image sums are then added over the samples in f64.
  int64_t batch = space.shape[0], channels = space.channels;
  int64_t spatial = space.spatial;
  SmallVector<int64_t> imageShape{batch, channels, spatial};
  Value dy = reshapeTensor(b, loc, gradOutput, imageShape);
  Value x = reshapeTensor(b, loc, input, imageShape);
  // −0 is the identity of the f32 additions (x + −0 = x for every x).
  Value negZero = createF32Constant(b, loc, -0.0);
  SmallVector<Value> partial;
  if (spatial < kVectorLanes) {
    partial = buildReduction(
        b, loc,
        {identityOperand(dy), identityOperand(x),
         projectedOperand(mean, 3, {0, 2})},
        imageShape, {2}, {negZero, negZero},
        [](OpBuilder &b, Location loc, ValueRange in,
           ValueRange acc) -> SmallVector<Value> {
          Value centered = arith::SubFOp::create(b, loc, in[1], in[2]);
          Value product = arith::MulFOp::create(b, loc, centered, in[0]);
          return {arith::AddFOp::create(b, loc, acc[0], in[0]),
                  arith::AddFOp::create(b, loc, acc[1], product)};
        });
  } else {
    // Zero padding to whole vectors adds ±0 to the lanes past the tail.
    int64_t vectors = llvm::divideCeil(spatial, kVectorLanes);
    int64_t padded = vectors * kVectorLanes;
    SmallVector<int64_t> laneShape{batch, channels, vectors, kVectorLanes};
    auto toLanes = [&](Value tensor) {
      if (padded != spatial) {
        Type element =
            cast<RankedTensorType>(tensor.getType()).getElementType();
        SmallVector<OpFoldResult> low(3, b.getIndexAttr(0));
        SmallVector<OpFoldResult> high{b.getIndexAttr(0), b.getIndexAttr(0),
                                       b.getIndexAttr(padded - spatial)};
        tensor = tensor::PadOp::create(
            b, loc, RankedTensorType::get({batch, channels, padded}, element),
            tensor, low, high, createFloatConstant(b, loc, element, 0.0));
      }
      return reshapeTensor(b, loc, tensor, laneShape);
    };
    SmallVector<Value> lanes = buildReduction(
        b, loc,
        {identityOperand(toLanes(dy)), identityOperand(toLanes(x)),
         projectedOperand(mean, 4, {0, 2, 3})},
        laneShape, {2}, {negZero, negZero},
        [](OpBuilder &b, Location loc, ValueRange in,
           ValueRange acc) -> SmallVector<Value> {
          Value centered = arith::SubFOp::create(b, loc, in[1], in[2]);
          return {arith::AddFOp::create(b, loc, acc[0], in[0]),
                  math::FmaOp::create(b, loc, centered, in[0], acc[1])};
        });
    // ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7)): the 128-, 64- and
    // 32-bit shuffles of vec_reduce_all.
    for (Value laneSums : lanes) {
      SmallVector<MappedOperand> laneOperands;
      auto sliceType = RankedTensorType::get({batch, channels}, b.getF32Type());
      for (int64_t lane = 0; lane < kVectorLanes; ++lane)
        laneOperands.push_back(identityOperand(tensor::ExtractSliceOp::create(
            b, loc, sliceType, laneSums, ValueRange{}, ValueRange{},
            ValueRange{}, ArrayRef<int64_t>{0, 0, lane},
            ArrayRef<int64_t>{batch, channels, 1},
            ArrayRef<int64_t>{1, 1, 1})));
      partial.push_back(
          buildElementwise(b, loc, laneOperands, TypeRange{sliceType},
                           [](OpBuilder &b, Location loc, ValueRange l,
                              ValueRange) -> SmallVector<Value> {
                             auto add = [&](Value lhs, Value rhs) -> Value {
                               return arith::AddFOp::create(b, loc, lhs, rhs);
                             };
                             return {
                                 add(add(add(l[0], l[4]), add(l[2], l[6])),
                                     add(add(l[1], l[5]), add(l[3], l[7])))};
                           })
              .front());
    }
  }
  Value zero = f64Constant(b, loc, 0.0);
  SmallVector<Value> sums = buildReduction(
      b, loc, {identityOperand(partial[0]), identityOperand(partial[1])},
      {batch, channels}, {0}, {zero, zero},
      [](OpBuilder &b, Location loc, ValueRange in,
         ValueRange acc) -> SmallVector<Value> {
        return {arith::AddFOp::create(b, loc, acc[0], extF64(b, loc, in[0])),
                arith::AddFOp::create(b, loc, acc[1], extF64(b, loc, in[1]))};
      });
  return {sums[0], sums[1], true};
}

struct BatchNormGradOpLowering : OpConversionPattern<BatchNormGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BatchNormGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    Value gradOutput = adaptor.getGradOutput();
    auto type = cast<RankedTensorType>(input.getType());
    ChannelSpace space(type);
    bool training = op.getMode() == BatchNormMode::training;
    double eps = op.getEps().convertToDouble();
    // The backward kernels compute the eval-mode rstd in f64.
    BatchStatistics stats = buildStatistics(
        rewriter, loc, op.getMode(), input, adaptor.getRunningMean(),
        adaptor.getRunningVar(), space, eps, /*wide=*/true);
    Type f32 = rewriter.getF32Type();
    auto channelType = RankedTensorType::get({space.channels}, f32);
    GradientSums sums =
        buildGradientSums(rewriter, loc, gradOutput, input, stats.mean, space);

    // Per channel: the projection factor k = f32(dotp)·rstd·rstd / n, the
    // mean gradient Σdy / n, the weight gradient dotp·rstd and the bias
    // gradient Σdy; with f64 sums the last three are computed in f64 and
    // rounded once.
    Value weight = adaptor.getWeight();
    auto weightGradType = cast<RankedTensorType>(op.getWeightGrad().getType());
    auto biasGradType = cast<RankedTensorType>(op.getBiasGrad().getType());
    SmallVector<MappedOperand> channelInputs{channelOperand(stats.rstd),
                                             channelOperand(sums.sumDy),
                                             channelOperand(sums.dotp)};
    if (weight)
      channelInputs.push_back(channelOperand(weight));
    int64_t n = space.count;
    SmallVector<Value> coefficients = buildPerChannel(
        rewriter, loc, channelInputs,
        TypeRange{channelType, channelType, channelType, weightGradType,
                  biasGradType},
        [&](OpBuilder &b, Location loc, ValueRange in,
            ValueRange) -> SmallVector<Value> {
          Value rstd = in[0], sumDy = in[1], dotp = in[2];
          Value w =
              weight ? toF32(b, loc, in[3]) : createF32Constant(b, loc, 1.0);
          Value dotpF32 = sums.wide ? truncF32(b, loc, dotp) : dotp;
          Value k = arith::DivFOp::create(
              b, loc,
              arith::MulFOp::create(
                  b, loc, arith::MulFOp::create(b, loc, dotpF32, rstd), rstd),
              createF32Constant(b, loc, n));
          Value wideRstd = sums.wide ? extF64(b, loc, rstd) : rstd;
          Value gradMean = arith::DivFOp::create(
              b, loc, sumDy, createFloatConstant(b, loc, sumDy.getType(), n));
          Value weightGrad = arith::MulFOp::create(b, loc, dotp, wideRstd);
          if (sums.wide) {
            gradMean = truncF32(b, loc, gradMean);
            weightGrad = truncF32(b, loc, weightGrad);
            sumDy = truncF32(b, loc, sumDy);
          }
          return {w, k, gradMean, weightGrad, sumDy};
        });

    SmallVector<MappedOperand> dxInputs{
        identityOperand(gradOutput), identityOperand(input),
        space.perChannel(stats.mean), space.perChannel(stats.rstd)};
    for (Value coefficient : ArrayRef<Value>(coefficients).take_front(3))
      dxInputs.push_back(space.perChannel(coefficient));
    Value inputGrad =
        buildElementwise(
            rewriter, loc, dxInputs, TypeRange{type},
            [&](OpBuilder &b, Location loc, ValueRange in,
                ValueRange) -> SmallVector<Value> {
              Value dy = in[0], x = in[1], mean = in[2], rstd = in[3],
                    w = in[4], k = in[5], gradMean = in[6];
              Value d = dy;
              if (training) {
                // (dy − Σdy/n) − (x − mean)·k, contracted as PyTorch's
                // GCC build does.
                Value centered = arith::SubFOp::create(b, loc, x, mean);
                d = math::FmaOp::create(
                    b, loc, arith::NegFOp::create(b, loc, centered), k,
                    arith::SubFOp::create(b, loc, dy, gradMean));
              }
              return {arith::MulFOp::create(
                  b, loc, arith::MulFOp::create(b, loc, d, rstd), w)};
            })
            .front();
    rewriter.replaceOp(op, {inputGrad, coefficients[3], coefficients[4]});
    return success();
  }
};
} // namespace

void lowering::populateBatchNormPatterns(RewritePatternSet &patterns) {
  patterns.add<BatchNormOpLowering, BatchNormGradOpLowering>(
      patterns.getContext());
}
