//===- MPTrainingOps.td - Losses and gradient clipping -----*- tablegen -*-===//
//
// Ops of real models' training steps beyond the core set of MPOps.td: the
// negative log-likelihood loss (with its backward op) and gradient clipping
// by the total norm. Included from MPOps.td, whose type constraints it uses.
//
//===----------------------------------------------------------------------===//

#ifndef MP_DIALECT_MP_IR_MPTRAININGOPS_TD
#define MP_DIALECT_MP_IR_MPTRAININGOPS_TD

def MP_LossReduction : I32EnumAttr<"LossReduction",
    "how a loss reduces its per-element values", [
      I32EnumAttrCase<"none", 0>,
      I32EnumAttrCase<"mean", 1>,
      I32EnumAttrCase<"sum", 2>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::mp";
  let description = [{
    PyTorch's `reduction`: `none` keeps one value per sample (0 for an
    ignored target), `mean` divides the sum by the number of targets not
    ignored, `sum` sums.
  }];
}
def MP_LossReductionAttr
    : EnumAttr<MP_Dialect, MP_LossReduction, "loss_reduction">;

def MP_NLLLossOp : MP_Op<"nll_loss", [Pure, InferTypeOpAdaptor,
                                      MP_Differentiable]> {
  let summary = "negative log-likelihood loss of log-probabilities";
  let description = [{
    `input` is `[N, C]` log-probabilities (e.g. `mp.log_softmax`), `targets`
    is `[N]` with values in `[0, C)` or equal to `ignore_index` (default
    −100); PyTorch's K-dimensional form `[N, C, d...]` with `[N, d...]`
    targets is accepted too. The per-sample loss is `−input[n, target_n]`,
    0 for an ignored target; `reduction` (default `mean`) reduces it as
    PyTorch's `F.nll_loss`: `mean` over the targets not ignored (NaN when
    all are), `sum`, or `none` (a result of the targets' shape). Sums are formed in f32 and rounded
    once to the input's element type.

    Autocast: fp32 (PyTorch's CUDA autocast fp32 list holds nll_loss).

    ```mlir
    %l = mp.nll_loss %logp, %t : tensor<64x10xf32>, tensor<64xi64> -> tensor<f32>
    %v = mp.nll_loss %logp, %t reduction none {ignore_index = 0 : i64}
        : tensor<64x10xf32>, tensor<64xi64> -> tensor<64xf32>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$input, MP_IndexTensor:$targets,
                       DefaultValuedAttr<I64Attr, "-100">:$ignore_index,
                       DefaultValuedAttr<MP_LossReductionAttr,
                           "::mlir::mp::LossReduction::mean">:$reduction);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $targets (`reduction` `` $reduction^)? attr-dict
    `:` type($input) `,` type($targets) `->` type($result)
  }];
}

def MP_NLLLossGradOp : MP_Op<"nll_loss_grad", [Pure]> {
  let summary = "gradient of nll_loss with respect to its input";
  let description = [{
    A zero tensor of the result type (the input's, `[N, C]`) holding
    `−grad_output` (divided by the number of targets not ignored for
    `mean`; `grad_output[n]` for `none`) at `[n, target_n]` for every target
    not ignored. `grad_output` is 0-d for `mean` and `sum`, of the targets'
    shape for `none`; the K-dimensional form as in `mp.nll_loss`.
    Attributes as in `mp.nll_loss`.

    ```mlir
    %dx = mp.nll_loss_grad %dl, %t
        : (tensor<f32>, tensor<64xi64>) -> tensor<64x10xf32>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$grad_output, MP_IndexTensor:$targets,
                       DefaultValuedAttr<I64Attr, "-100">:$ignore_index,
                       DefaultValuedAttr<MP_LossReductionAttr,
                           "::mlir::mp::LossReduction::mean">:$reduction);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = [{
    $grad_output `,` $targets (`reduction` `` $reduction^)? attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def MP_ClipGradNormOp : MP_Op<"clip_grad_norm", [Pure, InferTypeOpAdaptor]> {
  let summary = "clip gradients by their total norm";
  let description = [{
    `torch.nn.utils.clip_grad_norm_` over the `gradients`: the total norm is
    the `norm_type` norm (2, or `inf`: the largest |g|) of the per-gradient
    norms, each computed in f32; `clip_coef = max_norm / (total_norm + 1e-6)`
    (in f32), clamped to at most 1; every gradient is multiplied by it and
    returned (in its own type), followed by the 0-d f32 total norm. A
    non-finite norm makes every result non-finite (NaN or ±inf coefficients),
    so under `mp-loss-scaling`, which also counts the total norm in its
    found_inf, the step is skipped.

    It runs after `mp.grad`, on gradients: it has no gradient of its own.
    Under `mp-loss-scaling` it sees the unscaled f32 gradients (GradScaler's
    `unscale_` before clipping). Autocast: none (it consumes gradients,
    which master weights keep in f32).

    ```mlir
    %c0, %c1, %norm = mp.clip_grad_norm %g0, %g1 max_norm 1.0
        : tensor<256x784xf32>, tensor<256xf32>
    %d0, %n2 = mp.clip_grad_norm %g0 max_norm 5.0e-01 norm_type inf
        : tensor<256x784xf32>
    ```
  }];
  let arguments = (ins Variadic<MP_FloatTensor>:$gradients, F64Attr:$max_norm,
                       UnitAttr:$inf_norm);
  let results = (outs Variadic<MP_FloatTensor>:$clipped,
                      MP_F32Scalar:$total_norm);
  let assemblyFormat = [{
    $gradients `max_norm` $max_norm (`norm_type` `inf` $inf_norm^)? attr-dict
    `:` type($gradients)
  }];
  let hasVerifier = 1;
}

#endif // MP_DIALECT_MP_IR_MPTRAININGOPS_TD
