//===- MPActivationOps.td - Selection, comparison, activations -*- tablegen -*-===//
//
// Selection (`mp.select`), comparison (`mp.compare`), `mp.stop_gradient`,
// and the activations and math functions of torchvision and GPT-style
// models: clamp (relu6, hardtanh), silu, hardswish, hardsigmoid, leaky_relu,
// erf and abs, with their explicit backward ops. Each gradient equals
// PyTorch's (tools/autograd/derivatives.yaml and its CPU kernels), including
// the side each takes at a kink, which every description states. Included by
// MPOps.td, whose type constraints and op classes it uses.
//
//===----------------------------------------------------------------------===//

#ifndef MP_DIALECT_MP_IR_MPACTIVATIONOPS_TD
#define MP_DIALECT_MP_IR_MPACTIVATIONOPS_TD

//===----------------------------------------------------------------------===//
// Selection and comparison
//===----------------------------------------------------------------------===//

def MP_SelectOp : MP_Op<"select", [Pure, InferTypeOpAdaptor,
                                   MP_Differentiable]> {
  let summary = "choose elementwise between two tensors by a condition";
  let description = [{
    `result = condition ? true_value : false_value` elementwise, as
    `torch.where`. The three operands broadcast with the dialect's NumPy rule
    to the result shape; `true_value` and `false_value` share one element type
    (a float format, i1, i32 or i64), the result's.

    Gradient (PyTorch's `where` backward): the result's adjoint flows to
    `true_value` where the condition holds and to `false_value` where it does
    not (zero elsewhere), each summed back to its operand's shape; the
    condition has none. A constant splat condition folds to the chosen
    operand when that has the result type.

    Autocast: promote (in none of PyTorch's CUDA autocast lists; `torch.where`
    promotes its operands to a common type).

    ```mlir
    %y = mp.select %mask, %x, %zero : tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32>
    ```
  }];
  let arguments = (ins MP_BoolTensor:$condition, MP_ValueTensor:$true_value,
                       MP_ValueTensor:$false_value);
  let results = (outs MP_ValueTensor:$result);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:`
    type($condition) `,` type($true_value) `,` type($false_value)
  }];
  let hasFolder = 1;
}

def MP_CompareOp : MP_Op<"compare", [Pure, InferTypeOpAdaptor]> {
  let summary = "elementwise comparison with broadcasting";
  let description = [{
    `lhs <predicate> rhs` elementwise as an i1 tensor of the broadcast shape
    (NumPy rule), as `torch.eq`, `ne`, `lt`, `le`, `gt` and `ge`. The operands
    share one element type: a float format (compared exactly, −0 equal to +0;
    a NaN operand makes `ne` true and every other predicate false, as in
    PyTorch) or i32, i64 (signed) or i1 (false < true, as `torch.bool`). No
    gradient: the result is a boolean.

    Autocast: promote (in none of PyTorch's CUDA autocast lists; comparisons
    promote their operands to a common type).

    ```mlir
    %m = mp.compare gt, %x, %zero : tensor<4x8xf32>, tensor<f32>
    ```
  }];
  let arguments = (ins MP_ComparePredicateAttr:$predicate,
                       MP_ValueTensor:$lhs, MP_ValueTensor:$rhs);
  let results = (outs MP_BoolTensor:$result);
  let assemblyFormat = [{
    `` $predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)
  }];
}

def MP_StopGradientOp : MP_Op<"stop_gradient",
                              [Pure, SameOperandsAndResultType]> {
  let summary = "identity that blocks gradients";
  let description = [{
    Returns its operand unchanged, as `tensor.detach()`: mp-autodiff treats
    the result as a constant (no derivative flows through it to the operand,
    and what only feeds it is not differentiated). It never folds away;
    convert-mp-to-linalg forwards the operand.

    Autocast: clear (`detach` is in none of PyTorch's CUDA autocast lists).

    ```mlir
    %c = mp.stop_gradient %x : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins MP_ValueTensor:$input);
  let results = (outs MP_ValueTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

//===----------------------------------------------------------------------===//
// Activations and math
//===----------------------------------------------------------------------===//

def MP_ClampOp : MP_Op<"clamp", [Pure, SameOperandsAndResultType,
                                 MP_Differentiable]> {
  let summary = "clamp to [min, max] (relu6, hardtanh)";
  let description = [{
    `min(max(x, min), max)` elementwise with the bounds rounded to f32, as
    `torch.clamp`: either bound may be absent (not both); NaN stays NaN; with
    `min` > `max` every element becomes `max`. `relu6` is `min 0.0 max 6.0
    hardtanh` and `F.hardtanh` is `min -1.0 max 1.0 hardtanh`.

    Gradient at the bounds: without `hardtanh`, PyTorch's clamp_backward —
    the adjoint passes where `min <= x <= max` (inclusive; a NaN input gets
    0). With `hardtanh` (relu6, hardtanh), PyTorch's hardtanh_backward — it
    is 0 where `x <= min` or `x >= max` (exclusive), and a NaN input passes
    it, as PyTorch's CUDA and scalar CPU kernels (its vectorised CPU kernel
    gives a NaN input 0).

    Autocast: clear (clamp, relu6 and hardtanh are in none of PyTorch's CUDA
    autocast lists).

    ```mlir
    %y = mp.clamp %x min 0.0 max 6.0 hardtanh : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$input, OptionalAttr<F64Attr>:$min,
                       OptionalAttr<F64Attr>:$max, UnitAttr:$hardtanh);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`min` $min^)? (`max` $max^)? (`hardtanh` $hardtanh^)? attr-dict
    `:` type($input)
  }];
  let hasVerifier = 1;
}

def MP_SiluOp : MP_UnaryOp<"silu", "x · sigmoid(x)"> {
  let description = [{
    `x / (1 + exp(−x))` elementwise (SiLU / swish, `F.silu`), computed in f32
    and rounded once to the operand's type. Gradient (PyTorch's
    silu_backward): `dy · s · (1 + x · (1 − s))` with `s = sigmoid(x)`; no
    kink.

    Autocast: clear (in none of PyTorch's CUDA autocast lists).

    ```mlir
    %y = mp.silu %x : tensor<4x8xf32>
    ```
  }];
}

def MP_HardswishOp : MP_UnaryOp<"hardswish", "x · relu6(x + 3) / 6"> {
  let description = [{
    `x · min(max(x + 3, 0), 6) / 6` elementwise (`F.hardswish`), in f32,
    rounded once. Gradient (PyTorch's hardswish_backward, its CUDA and
    scalar CPU kernels): 0 for `x < −3`, `dy · (x / 3 + 0.5)` for
    `−3 <= x <= 3` (so −0.5·dy at x = −3 and 1.5·dy at x = 3: both kinks take
    the inner side), `dy` for `x > 3` and for NaN. PyTorch's vectorised CPU
    kernel differs at x = 3 (dy) and for NaN (NaN).

    Autocast: clear (in none of PyTorch's CUDA autocast lists).

    ```mlir
    %y = mp.hardswish %x : tensor<4x8xf32>
    ```
  }];
}

def MP_HardsigmoidOp : MP_UnaryOp<"hardsigmoid", "relu6(x + 3) / 6"> {
  let description = [{
    `min(max(x + 3, 0), 6) / 6` elementwise (`F.hardsigmoid`), in f32,
    rounded once. Gradient (PyTorch's hardsigmoid_backward): `dy / 6` (as
    `dy · (1/6)`) for `−3 < x < 3` and 0 elsewhere: both kinks take the
    outer side (0 at x = ±3), and a NaN input gets 0.

    Autocast: clear (in none of PyTorch's CUDA autocast lists).

    ```mlir
    %y = mp.hardsigmoid %x : tensor<4x8xf32>
    ```
  }];
}

def MP_ErfOp : MP_UnaryOp<"erf", "erf(x)"> {
  let description = [{
    The error function elementwise (`torch.erf`), the f32 function rounded
    once. Gradient: `dy · 2/√π · exp(−x²)`.

    Autocast: clear (PyTorch's CUDA fp32 list has `erfinv`, not `erf`).

    ```mlir
    %y = mp.erf %x : tensor<4x8xf32>
    ```
  }];
}

def MP_AbsOp : MP_UnaryOp<"abs", "|x|"> {
  let description = [{
    The absolute value elementwise (`torch.abs`; exact). Gradient (PyTorch's
    `grad · sgn(x)`): `dy · sign(x)`, so 0 at x = ±0 and 0 for a NaN input.

    Autocast: clear (in none of PyTorch's CUDA autocast lists).

    ```mlir
    %y = mp.abs %x : tensor<4x8xf32>
    ```
  }];
}

def MP_LeakyReluOp : MP_Op<"leaky_relu", [Pure, SameOperandsAndResultType,
                                          MP_Differentiable]> {
  let summary = "leaky rectified linear unit";
  let description = [{
    `x > 0 ? x : x · negative_slope` elementwise (`F.leaky_relu`, default
    slope 0.01), the product formed in f32 and rounded once. Gradient
    (PyTorch's leaky_relu_backward): `x > 0 ? dy : dy · negative_slope`, so
    x = 0 and NaN take the negative side.

    Autocast: clear (in none of PyTorch's CUDA autocast lists).

    ```mlir
    %y = mp.leaky_relu %x negative_slope 2.0e-01 : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$input,
                       DefaultValuedAttr<F64Attr, "0.01">:$negative_slope);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`negative_slope` $negative_slope^)? attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Backward operations of the activations
//===----------------------------------------------------------------------===//

class MP_ActivationGradOp<string mnemonic, string forward, string formula>
    : MP_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = "gradient of " # forward;
  let description = [{
    `}] # formula # [{` elementwise, from the adjoint `grad_output` and the
    forward's `input`, computed in f32 and rounded once (see `mp.}] #
    forward # [{` for the side taken at each kink). Autocast: clear, as its
    forward.

    ```mlir
    %dx = mp.}] # mnemonic # [{ %dy, %x : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$grad_output, MP_FloatTensor:$input);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = "$grad_output `,` $input attr-dict `:` type($input)";
}

def MP_SiluGradOp : MP_ActivationGradOp<"silu_grad", "silu",
    "dy · s · (1 + x · (1 − s)), s = sigmoid(x)">;
def MP_HardswishGradOp : MP_ActivationGradOp<"hardswish_grad", "hardswish",
    "x < −3 ? 0 : x <= 3 ? dy · (x / 3 + 0.5) : dy">;
def MP_HardsigmoidGradOp : MP_ActivationGradOp<"hardsigmoid_grad",
    "hardsigmoid", "−3 < x < 3 ? dy · (1/6) : 0">;
def MP_ErfGradOp : MP_ActivationGradOp<"erf_grad", "erf",
    "dy · 2/√π · exp(−x²)">;
def MP_AbsGradOp : MP_ActivationGradOp<"abs_grad", "abs", "dy · sign(x)">;

def MP_ClampGradOp : MP_Op<"clamp_grad", [Pure, SameOperandsAndResultType]> {
  let summary = "gradient of clamp";
  let description = [{
    `grad_output` where `input` lies within the bounds, else 0: inclusive
    (`min <= x <= max`, clamp_backward) or, with `hardtanh`, exclusive
    (`min < x < max`, hardtanh_backward). Bounds as in `mp.clamp`. Autocast: clear, as its forward.

    ```mlir
    %dx = mp.clamp_grad %dy, %x min 0.0 max 6.0 hardtanh : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$grad_output, MP_FloatTensor:$input,
                       OptionalAttr<F64Attr>:$min, OptionalAttr<F64Attr>:$max,
                       UnitAttr:$hardtanh);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = [{
    $grad_output `,` $input (`min` $min^)? (`max` $max^)?
    (`hardtanh` $hardtanh^)? attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

def MP_LeakyReluGradOp : MP_Op<"leaky_relu_grad",
                               [Pure, SameOperandsAndResultType]> {
  let summary = "gradient of leaky_relu";
  let description = [{
    `input > 0 ? grad_output : grad_output · negative_slope` elementwise
    (PyTorch's leaky_relu_backward), in f32, rounded once. Autocast: clear, as its forward.

    ```mlir
    %dx = mp.leaky_relu_grad %dy, %x negative_slope 2.0e-01 : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$grad_output, MP_FloatTensor:$input,
                       DefaultValuedAttr<F64Attr, "0.01">:$negative_slope);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = [{
    $grad_output `,` $input (`negative_slope` $negative_slope^)? attr-dict
    `:` type($input)
  }];
  let hasVerifier = 1;
}

#endif // MP_DIALECT_MP_IR_MPACTIVATIONOPS_TD
