//===- MPNormOps.td - Batch normalisation ------------------*- tablegen -*-===//
//
// Batch normalisation with running statistics, as PyTorch's
// `F.batch_norm` / `nn.BatchNorm1d/2d`, and its explicit backward op
// (PyTorch's native_batch_norm_backward). Included from MPOps.td, which
// provides the type constraints and the differentiable-op interface.
//
//===----------------------------------------------------------------------===//

#ifndef MP_DIALECT_MP_IR_MPNORMOPS_TD
#define MP_DIALECT_MP_IR_MPNORMOPS_TD

def MP_BatchNormMode : I32EnumAttr<"BatchNormMode",
    "which statistics a batch norm normalises with", [
      I32EnumAttrCase<"training", 0>,
      I32EnumAttrCase<"eval", 1>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::mp";
  let description = [{
    `training`: the statistics of the batch (biased variance), and the
    running statistics are updated. `eval`: the running statistics, which
    are returned unchanged. PyTorch's `module.train()` / `module.eval()`.
  }];
}
def MP_BatchNormModeAttr
    : EnumAttr<MP_Dialect, MP_BatchNormMode, "batch_norm_mode">;

/// The per-channel running statistics: [C] f32 whatever the input type.
def MP_F32StatTensor : TensorRankOf<[F32], [1]>;
/// num_batches_tracked.
def MP_I64Scalar : 0DTensorOf<[I64]>;

def MP_BatchNormOp
    : MP_Op<"batch_norm", [Pure, AttrSizedOperandSegments, InferTypeOpAdaptor,
                           MP_Differentiable]> {
  let summary = "batch normalisation with running statistics";
  let description = [{
    Normalises each channel `c` of an `[N, C]` or `[N, C, H, W]` input over
    the other dimensions, as PyTorch's `F.batch_norm`:
    `y = (x − mean[c]) / sqrt(var[c] + eps) · weight[c] + bias[c]`.
    `weight` and `bias` (the affine parameters, each optional) are `[C]`
    tensors of the input's element type or f32; `running_mean`,
    `running_var` are `[C]` f32 tensors and `num_batches_tracked` a
    `tensor<i64>`, whatever the input type (cuDNN and PyTorch AMP keep the
    statistics in f32). The last three results are the new statistics; the
    train step returns them through `mp.updates` to the state arguments of
    kinds `bn.running_mean`, `bn.running_var` and `bn.num_batches_tracked`
    (forward state: mp-loss-scaling does not revert it on a skipped step).

    `mode training`: `mean` and `var` are the batch mean and the biased
    batch variance, in f32 (n = N·H·W values per channel; more than one is
    required), and
    `new_running_mean = momentum · mean + (1 − momentum) · running_mean`,
    `new_running_var = momentum · var · n/(n − 1) + (1 − momentum) · running_var`,
    `new_num_batches_tracked = num_batches_tracked + 1`.
    With `cumulative_average` (PyTorch's `momentum=None`) the factor is
    `1 / new_num_batches_tracked` instead of `momentum`, a cumulative
    average. `mode eval`: `mean` and `var` are the running statistics, and
    the statistics results equal the operands.

    The arithmetic is PyTorch 1.13's CPU kernel's, so that f32 results are
    bit-identical to it: for H·W > 1 the channel sums accumulate in f64 (the
    mean is rounded to f32, the variance sums f32 squares (x − mean)² in
    f64); for H·W = 1 they accumulate in f32 with fused multiply-adds;
    `y = fma(x, α, β)` with `α = rstd · weight`, `β = fma(−mean, α, bias)`,
    each rounded once to the input type. Autocast leaves the op as it is
    (it is in none of PyTorch's CUDA autocast lists, and cuDNN runs it in
    the input type with f32 statistics). Its gradient is
    `mp.batch_norm_grad`; the statistics have none.

    ```mlir
    %y, %rm1, %rv1, %n1 = mp.batch_norm %x weight %g bias %b
        stats(%rm, %rv, %n) training eps 1.0e-05 momentum 1.000000e-01
        : (tensor<8x4x5x5xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
           tensor<4xf32>, tensor<i64>)
        -> (tensor<8x4x5x5xf16>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
    ```
  }];
  let arguments = (ins MP_FloatTensor:$input, Optional<MP_FloatTensor>:$weight,
                       Optional<MP_FloatTensor>:$bias,
                       MP_F32StatTensor:$running_mean,
                       MP_F32StatTensor:$running_var,
                       MP_I64Scalar:$num_batches_tracked,
                       MP_BatchNormModeAttr:$mode,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$eps,
                       DefaultValuedAttr<F64Attr, "0.1">:$momentum,
                       UnitAttr:$cumulative_average);
  let results = (outs MP_FloatTensor:$result,
                      MP_F32StatTensor:$new_running_mean,
                      MP_F32StatTensor:$new_running_var,
                      MP_I64Scalar:$new_num_batches_tracked);
  let assemblyFormat = [{
    $input (`weight` $weight^)? (`bias` $bias^)?
    `stats` `(` $running_mean `,` $running_var `,` $num_batches_tracked `)`
    `` $mode (`eps` $eps^)? (`momentum` $momentum^)?
    (`cumulative_average` $cumulative_average^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def MP_BatchNormGradOp : MP_Op<"batch_norm_grad", [Pure,
    AllTypesMatch<["grad_output", "input", "input_grad"]>]> {
  let summary = "gradients of batch_norm";
  let description = [{
    Gradients of `mp.batch_norm` (same `mode`, `eps`, optional `weight`)
    with respect to its input, weight and bias, as PyTorch's
    `native_batch_norm_backward`. With `rstd` the forward's
    1/sqrt(var + eps), `Σ` the sum over the n values of a channel,
    `dy` the output gradient and `w` the weight (1 without one):
    `bias_grad = Σ dy`, `weight_grad = Σ dy·(x − mean) · rstd`, and in
    training mode `input_grad = (dy − Σdy/n − (x − mean)·k) · rstd · w` with
    `k = Σ dy·(x − mean) · rstd² / n`; in eval mode (the statistics are
    constants) `input_grad = dy · rstd · w`. The batch statistics are
    recomputed from `input` as the forward computes them; `running_mean`
    and `running_var` (the forward's operands) are read only in eval mode.
    Sums are in f32. `weight_grad` and `bias_grad` are `[C]` tensors of the
    input's element type or f32 (the types of the forward's weight and
    bias).

    ```mlir
    %dx, %dg, %db = mp.batch_norm_grad %dy, %x weight %g stats(%rm, %rv)
        training eps 1.0e-05
        : (tensor<8x4xf32>, tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>,
           tensor<4xf32>) -> (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>)
    ```
  }];
  let arguments = (ins MP_FloatTensor:$grad_output, MP_FloatTensor:$input,
                       Optional<MP_FloatTensor>:$weight,
                       MP_F32StatTensor:$running_mean,
                       MP_F32StatTensor:$running_var,
                       MP_BatchNormModeAttr:$mode,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$eps);
  let results = (outs MP_FloatTensor:$input_grad, MP_FloatTensor:$weight_grad,
                      MP_FloatTensor:$bias_grad);
  let assemblyFormat = [{
    $grad_output `,` $input (`weight` $weight^)?
    `stats` `(` $running_mean `,` $running_var `)` `` $mode (`eps` $eps^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // MP_DIALECT_MP_IR_MPNORMOPS_TD
