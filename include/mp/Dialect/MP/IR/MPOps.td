//===- MPOps.td - Operations of the mp dialect -------------*- tablegen -*-===//
//
// Operations of a training step: linear algebra, elementwise math,
// reductions and normalisation, shape manipulation, losses, explicit
// backward operations, precision control and training (gradients and
// optimizers). All operations are pure functions of builtin tensors.
//
//===----------------------------------------------------------------------===//

#ifndef MP_DIALECT_MP_IR_MPOPS_TD
#define MP_DIALECT_MP_IR_MPOPS_TD

include "mp/Dialect/MP/IR/MPDialect.td"
include "mp/Dialect/MP/IR/MPEnums.td"
include "mp/Dialect/MP/IR/MPInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

/// The floating-point storage formats of mixed-precision training.
defvar MP_FloatTypes = [F32, F16, BF16, F8E4M3FN, F8E5M2];

def MP_FloatTensor : StaticShapeTensorOf<MP_FloatTypes>;
/// The block-scaled formats (MX, NVFP4): FP4, FP6 and the E8M0 scale type.
/// Only mp.cast and the ops of MPBlockScaledOps.td accept them.
defvar MP_NarrowFloatTypes = [F4E2M1FN, F6E2M3FN, F6E3M2FN, F8E8M0FNU];
def MP_CastTensor : StaticShapeTensorOf<!listconcat(MP_FloatTypes,
                                                    MP_NarrowFloatTypes)>;
/// The values shape, selection and comparison ops accept: the float formats
/// and the integer types of labels, indices and masks (never differentiated).
def MP_ValueTensor : StaticShapeTensorOf<!listconcat(MP_FloatTypes,
                                                     [I1, I32, I64])>;
/// A condition or mask: a tensor of i1.
def MP_BoolTensor : StaticShapeTensorOf<[I1]>;
/// Labels and indices.
def MP_IndexTensor : StaticShapeTensorOf<[I32, I64]>;
/// Operands of a matrix multiplication: the float formats and int8.
def MP_MatmulOperandTensor : StaticShapeTensorOf<!listconcat(MP_FloatTypes, [I8])>;
def MP_MatmulResultTensor : StaticShapeTensorOf<[F32, F16, BF16, I32]>;

def MP_F32Scalar : 0DTensorOf<[F32]>,
    BuildableType<"::mlir::RankedTensorType::get({}, $_builder.getF32Type())">;
def MP_I32Scalar : 0DTensorOf<[I32]>,
    BuildableType<"::mlir::RankedTensorType::get({}, $_builder.getI32Type())">;
def MP_I1Scalar : 0DTensorOf<[I1]>,
    BuildableType<"::mlir::RankedTensorType::get({}, $_builder.getI1Type())">;
def MP_StepTensor : 0DTensorOf<[I32, I64]>;
/// A 1-d f32 tensor: an amax history.
def MP_F32Vector : TensorRankOf<[F32], [1]>;

def MP_FloatTypeAttr : TypeAttrOf<AnyType>;

/// Ops that state their gradient (see MPInterfaces.td and MPGradients.cpp).
defvar MP_Differentiable = DeclareOpInterfaceMethods<MP_DifferentiableOpInterface>;

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

class MP_MatmulLikeOp<string mnemonic>
    : MP_Op<mnemonic, [Pure, MP_Differentiable]> {
  let arguments = (ins
    MP_MatmulOperandTensor:$lhs,
    MP_MatmulOperandTensor:$rhs,
    UnitAttr:$transpose_lhs,
    UnitAttr:$transpose_rhs,
    MP_FloatTypeAttr:$acc_type,
    DefaultValuedAttr<MP_ComputeModeAttr, "::mlir::mp::ComputeMode::ieee">:$compute
  );
  let results = (outs MP_MatmulResultTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`transpose_lhs` $transpose_lhs^)? (`transpose_rhs` $transpose_rhs^)?
    `acc` `(` $acc_type `)` (`compute` `` $compute^)? attr-dict
    `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def MP_MatmulOp : MP_MatmulLikeOp<"matmul"> {
  let summary = "matrix multiplication with a stated accumulation type";
  let description = [{
    `result = op(lhs) × op(rhs)` for rank-2 operands, where `op` transposes
    the operand when `transpose_lhs`/`transpose_rhs` is set. Products are
    summed in `acc_type` and the sum is rounded once to the result element
    type — the D = A×B + C of a Tensor Core with C = 0. Float operands share
    one element type; `acc_type` is f32, or f16 for f16 operands (never
    narrower than the operands). int8 operands accumulate in i32 and give an
    i32 result. `compute tf32` rounds f32 operands to TF32 first.

    ```mlir
    %y = mp.matmul %x, %w transpose_rhs acc(f32)
        : tensor<64x784xf16>, tensor<256x784xf16> -> tensor<64x256xf16>
    ```
  }];
}

def MP_BatchMatmulOp : MP_MatmulLikeOp<"batch_matmul"> {
  let summary = "batched matrix multiplication";
  let description = [{
    `mp.matmul` applied independently to each matrix of rank-N operands
    (N >= 3): the leading N-2 dimensions are batch dimensions, equal in both
    operands and in the result; transpose flags apply to the last two.

    ```mlir
    %s = mp.batch_matmul %q, %k transpose_rhs acc(f32)
        : tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16> -> tensor<2x4x16x16xf16>
    ```
  }];
}

def MP_LinearOp : MP_Op<"linear", [Pure, MP_Differentiable]> {
  let summary = "affine layer x·Wᵀ + b";
  let description = [{
    PyTorch's `F.linear`: `input` has shape `[..., in]`, `weight` `[out, in]`,
    the optional `bias` `[out]`; the result has shape `[..., out]`. Products
    accumulate in `acc_type`; the bias is added to the accumulated value,
    which is then rounded once to the result element type. The bias has the
    result's element type; input and weight share theirs.

    ```mlir
    %h = mp.linear %x, %w, %b acc(f32)
        : (tensor<64x784xf16>, tensor<256x784xf16>, tensor<256xf16>) -> tensor<64x256xf16>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$input, MP_FloatTensor:$weight,
                       Optional<MP_FloatTensor>:$bias,
                       MP_FloatTypeAttr:$acc_type);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? `acc` `(` $acc_type `)` attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

class MP_ConvAttrs {
  dag convAttrs = (ins
    DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
    DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$padding,
    DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilation,
    DefaultValuedAttr<I64Attr, "1">:$groups
  );
}

def MP_Conv2DOp : MP_Op<"conv2d", [Pure, MP_Differentiable]>, MP_ConvAttrs {
  let summary = "2-d convolution in NCHW layout";
  let description = [{
    PyTorch's `F.conv2d`: `input` is `[N, C, H, W]`, `filter` is
    `[F, C/groups, KH, KW]`, the optional `bias` is `[F]`. `strides`,
    `padding` (zeros on both sides) and `dilation` have one entry per spatial
    dimension. The result is `[N, F, OH, OW]` with
    `OH = (H + 2·padding[0] − dilation[0]·(KH − 1) − 1) / strides[0] + 1`
    (likewise OW). Products accumulate in `acc_type`.

    ```mlir
    %y = mp.conv2d %x, %w acc(f32) {padding = array<i64: 1, 1>}
        : (tensor<8x3x32x32xf16>, tensor<16x3x3x3xf16>) -> tensor<8x16x32x32xf16>
    ```
  }];
  let arguments = !con((ins MP_FloatTensor:$input, MP_FloatTensor:$filter,
                            Optional<MP_FloatTensor>:$bias,
                            MP_FloatTypeAttr:$acc_type), convAttrs);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $filter (`,` $bias^)? `acc` `(` $acc_type `)` attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

class MP_BinaryOp<string mnemonic, string formula, list<Trait> traits = []>
    : MP_Op<mnemonic, !listconcat([Pure, InferTypeOpAdaptor, MP_Differentiable],
                                  traits)> {
  let summary = "elementwise " # formula # " with broadcasting";
  let description = [{
    Computes `}] # formula # [{` elementwise in the operands' element type,
    rounding each result to it. The operands share one element type and their
    shapes broadcast with the dialect's NumPy rule; the result has the
    broadcast shape.

    ```mlir
    %z = mp.}] # mnemonic # [{ %x, %y : tensor<4x8xf32>, tensor<8xf32>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$lhs, MP_FloatTensor:$rhs);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)";
}

def MP_AddOp : MP_BinaryOp<"add", "lhs + rhs", [Commutative]>;
def MP_SubOp : MP_BinaryOp<"sub", "lhs − rhs">;
def MP_MulOp : MP_BinaryOp<"mul", "lhs × rhs", [Commutative]>;
def MP_DivOp : MP_BinaryOp<"div", "lhs ÷ rhs">;
def MP_PowOp : MP_BinaryOp<"pow", "lhs ^ rhs">;
def MP_MaximumOp : MP_BinaryOp<"maximum", "max(lhs, rhs) (NaN propagates)",
                               [Commutative]>;
def MP_MinimumOp : MP_BinaryOp<"minimum", "min(lhs, rhs) (NaN propagates)",
                               [Commutative]>;

class MP_UnaryOp<string mnemonic, string formula, list<Trait> traits = []>
    : MP_Op<mnemonic, !listconcat([Pure, SameOperandsAndResultType,
                                   MP_Differentiable], traits)> {
  let summary = "elementwise " # formula;
  let description = [{
    Computes `}] # formula # [{` elementwise in the operand's element type,
    rounding each result to it.

    ```mlir
    %y = mp.}] # mnemonic # [{ %x : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$input);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def MP_NegOp : MP_UnaryOp<"neg", "−x">;
def MP_ReluOp : MP_UnaryOp<"relu", "max(x, 0)">;
def MP_TanhOp : MP_UnaryOp<"tanh", "tanh(x)">;
def MP_SigmoidOp : MP_UnaryOp<"sigmoid", "1 / (1 + exp(−x))">;
def MP_ExpOp : MP_UnaryOp<"exp", "exp(x)">;
def MP_LogOp : MP_UnaryOp<"log", "log(x) (natural)">;
def MP_SqrtOp : MP_UnaryOp<"sqrt", "√x">;
def MP_RsqrtOp : MP_UnaryOp<"rsqrt", "1 / √x">;

def MP_GeluOp : MP_Op<"gelu", [Pure, SameOperandsAndResultType,
                               MP_Differentiable]> {
  let summary = "Gaussian error linear unit";
  let description = [{
    GELU with the formula chosen by `approximate` (`none`: exact, with erf;
    `tanh`: the tanh approximation), as PyTorch's `F.gelu`.

    ```mlir
    %y = mp.gelu %x approximate tanh : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$input,
      DefaultValuedAttr<MP_GeluApproximationAttr,
                        "::mlir::mp::GeluApproximation::none">:$approximate);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`approximate` `` $approximate^)? attr-dict `:` type($input)
  }];
}

//===----------------------------------------------------------------------===//
// Reductions and normalisation
//===----------------------------------------------------------------------===//

class MP_ReduceOp<string mnemonic, string what>
    : MP_Op<mnemonic, [Pure, InferTypeOpAdaptor, MP_Differentiable]> {
  let summary = what # " over the given dimensions";
  let description = [{
    Reduces `input` over `dims` (distinct, in range, in any order) computing
    the }] # what # [{. With `keepdims` the reduced dimensions stay as size 1;
    without it they are removed. Float inputs narrower than f32 are
    accumulated in f32 and the result is rounded once to the input type.

    ```mlir
    %s = mp.}] # mnemonic # [{ %x dims [1] keepdims : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$input, DenseI64ArrayAttr:$dims,
                       UnitAttr:$keepdims);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = [{
    $input `dims` $dims (`keepdims` $keepdims^)? attr-dict `:` type($input)
  }];
}

def MP_ReduceSumOp : MP_ReduceOp<"reduce_sum", "sum">;
def MP_ReduceMeanOp : MP_ReduceOp<"reduce_mean", "arithmetic mean">;
def MP_ReduceMaxOp : MP_ReduceOp<"reduce_max", "maximum (NaN propagates)">;

class MP_SoftmaxLikeOp<string mnemonic, string formula>
    : MP_Op<mnemonic, [Pure, SameOperandsAndResultType, MP_Differentiable]> {
  let summary = formula # " along one dimension";
  let description = [{
    Computes `}] # formula # [{` along `dim`, numerically stabilised by
    subtracting the maximum along `dim` first.

    ```mlir
    %p = mp.}] # mnemonic # [{ %x dim 1 : tensor<4x10xf32>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$input, I64Attr:$dim);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = "$input `dim` $dim attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def MP_SoftmaxOp : MP_SoftmaxLikeOp<"softmax", "exp(x) / Σ exp(x)">;
def MP_LogSoftmaxOp
    : MP_SoftmaxLikeOp<"log_softmax", "x − log Σ exp(x)">;

def MP_LayerNormOp
    : MP_Op<"layer_norm", [Pure, AttrSizedOperandSegments,
                           AllTypesMatch<["input", "result"]>,
                           MP_Differentiable]> {
  let summary = "layer normalisation over the trailing dimensions";
  let description = [{
    Normalises `input` over the dimensions `[axis, rank)`:
    `(x − mean) / sqrt(var + eps) · weight + bias`, with the biased variance,
    as PyTorch's `F.layer_norm` with `normalized_shape = input.shape[axis:]`.
    `weight` and `bias` are optional; each has the normalised shape and the
    input's element type. Statistics are computed in f32 for narrower inputs.

    ```mlir
    %y = mp.layer_norm %x weight %g bias %b axis 2 eps 1.0e-05
        : (tensor<2x8x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x8x64xf32>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$input, Optional<MP_FloatTensor>:$weight,
                       Optional<MP_FloatTensor>:$bias, I64Attr:$axis,
                       F64Attr:$eps);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`weight` $weight^)? (`bias` $bias^)? `axis` $axis `eps` $eps
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def MP_RMSNormOp
    : MP_Op<"rms_norm", [Pure, AllTypesMatch<["input", "result"]>,
                         MP_Differentiable]> {
  let summary = "root-mean-square normalisation over the trailing dimensions";
  let description = [{
    `x / sqrt(mean(x²) + eps) · weight` over the dimensions `[axis, rank)`,
    as PyTorch's `F.rms_norm`. `weight` is optional, with the normalised shape
    and the input's element type.

    ```mlir
    %y = mp.rms_norm %x weight %g axis 1 eps 1.0e-06
        : (tensor<8x64xf32>, tensor<64xf32>) -> tensor<8x64xf32>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$input, Optional<MP_FloatTensor>:$weight,
                       I64Attr:$axis, F64Attr:$eps);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`weight` $weight^)? `axis` $axis `eps` $eps attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shape
//===----------------------------------------------------------------------===//

def MP_TransposeOp : MP_Op<"transpose", [Pure, InferTypeOpAdaptor,
                                         MP_Differentiable]> {
  let summary = "permute the dimensions of a tensor";
  let description = [{
    `result.shape[i] = input.shape[permutation[i]]`; `permutation` is a
    permutation of `[0, rank)`.

    Integer tensors (i1, i32, i64: labels, masks) are accepted too; they
    carry no gradient.

    ```mlir
    %t = mp.transpose %x perm [1, 0] : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins MP_ValueTensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs MP_ValueTensor:$result);
  let assemblyFormat = "$input `perm` $permutation attr-dict `:` type($input)";
}

def MP_ReshapeOp : MP_Op<"reshape", [Pure, MP_Differentiable]> {
  let summary = "reinterpret a tensor with another shape";
  let description = [{
    Row-major reshape: the elements in row-major order are unchanged; the
    element type and the number of elements are preserved.

    Integer tensors (i1, i32, i64: labels, masks) are accepted too; they
    carry no gradient.

    ```mlir
    %r = mp.reshape %x : tensor<4x8xf32> to tensor<32xf32>
    ```
  }];
  let arguments = (ins MP_ValueTensor:$input);
  let results = (outs MP_ValueTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def MP_BroadcastOp : MP_Op<"broadcast", [Pure, MP_Differentiable]> {
  let summary = "broadcast a tensor to a shape";
  let description = [{
    Expands `input` to the result shape with the dialect's NumPy rule (the
    input shape must broadcast to the result shape exactly), as
    `torch.broadcast_to`.

    Integer tensors (i1, i32, i64: labels, masks) are accepted too; they
    carry no gradient.

    ```mlir
    %b = mp.broadcast %x : tensor<8xf32> to tensor<4x8xf32>
    ```
  }];
  let arguments = (ins MP_ValueTensor:$input);
  let results = (outs MP_ValueTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def MP_ConcatOp : MP_Op<"concat", [Pure, InferTypeOpAdaptor,
                                   MP_Differentiable]> {
  let summary = "concatenate tensors along one dimension";
  let description = [{
    Joins one or more tensors of one element type and rank along `dim`;
    every other dimension must agree.

    Integer tensors (i1, i32, i64: labels, masks) are accepted too; they
    carry no gradient.

    ```mlir
    %c = mp.concat %a, %b dim 1 : tensor<4x8xf32>, tensor<4x2xf32>
    ```
  }];
  let arguments = (ins Variadic<MP_ValueTensor>:$inputs, I64Attr:$dim);
  let results = (outs MP_ValueTensor:$result);
  let assemblyFormat = "$inputs `dim` $dim attr-dict `:` type($inputs)";
}

def MP_SliceOp : MP_Op<"slice", [Pure, InferTypeOpAdaptor,
                                 MP_Differentiable]> {
  let summary = "extract a strided box of a tensor";
  let description = [{
    `result[i] = input[offsets + i · strides]` for `0 <= i < sizes`, per
    dimension; strides are positive and the box lies inside the input.

    Integer tensors (i1, i32, i64: labels, masks) are accepted too; they
    carry no gradient.

    ```mlir
    %s = mp.slice %x offsets [0, 2] sizes [4, 4] strides [1, 1] : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins MP_ValueTensor:$input, DenseI64ArrayAttr:$offsets,
                       DenseI64ArrayAttr:$sizes, DenseI64ArrayAttr:$strides);
  let results = (outs MP_ValueTensor:$result);
  let assemblyFormat = [{
    $input `offsets` $offsets `sizes` $sizes `strides` $strides attr-dict
    `:` type($input)
  }];
}

def MP_EmbeddingOp : MP_Op<"embedding", [Pure, InferTypeOpAdaptor,
                                         MP_Differentiable]> {
  let summary = "look up rows of a table by index";
  let description = [{
    `table` is `[V, D]`; `indices` is an integer tensor of any shape `S` with
    values in `[0, V)`; the result is `[S..., D]` with
    `result[s, :] = table[indices[s], :]`.

    ```mlir
    %e = mp.embedding %table[%ids] : tensor<1000x64xf32>, tensor<2x16xi64>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$table, MP_IndexTensor:$indices);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = [{
    $table `[` $indices `]` attr-dict `:` type($table) `,` type($indices)
  }];
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

def MP_CrossEntropyOp : MP_Op<"cross_entropy", [Pure, InferTypeOpAdaptor,
                                                MP_Differentiable]> {
  let summary = "mean softmax cross entropy of logits against class labels";
  let description = [{
    `logits` is `[N, C]`, `labels` is `[N]` with values in `[0, C)` or equal
    to `ignore_index` (default −100, PyTorch's); the result is the 0-d mean,
    over the K rows whose label is not `ignore_index`, of
    `(1 − ε)·(−log_softmax(logits)[n, label_n]) + ε·mean_c(−log_softmax(logits)[n, c])`
    with `ε = label_smoothing` in [0, 1] (default 0): PyTorch's
    `F.cross_entropy(reduction="mean", ignore_index=, label_smoothing=)`,
    computed as PyTorch 1.13 does:
    `(1 − ε)·nll + (Σ_n −Σ_c log_softmax[n, c] / K)·(ε / C)`. With every
    label ignored (K = 0) the result is NaN, as PyTorch's. Statistics are
    computed in f32 and the result rounded once to the logits' element type.
    PyTorch's K-dimensional form is accepted too: `[N, C, d...]` logits
    with `[N, d...]` labels, the mean over every kept position.

    Autocast: fp32 (PyTorch's CUDA autocast fp32 list holds cross_entropy).

    ```mlir
    %l = mp.cross_entropy %logits, %labels : tensor<64x10xf32>, tensor<64xi64>
    %s = mp.cross_entropy %logits, %labels {ignore_index = 0 : i64,
        label_smoothing = 1.0e-01 : f64} : tensor<64x10xf32>, tensor<64xi64>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$logits, MP_IndexTensor:$labels,
                       DefaultValuedAttr<I64Attr, "-100">:$ignore_index,
                       DefaultValuedAttr<F64Attr, "0.0">:$label_smoothing);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = [{
    $logits `,` $labels attr-dict `:` type($logits) `,` type($labels)
  }];
  let hasVerifier = 1;
}

def MP_MSEOp : MP_Op<"mse", [Pure, InferTypeOpAdaptor,
                              AllTypesMatch<["input", "target"]>,
                              MP_Differentiable]> {
  let summary = "mean squared error";
  let description = [{
    The 0-d mean over all elements of `(input − target)²`, in their element
    type (PyTorch's `F.mse_loss` with `reduction="mean"`).

    ```mlir
    %l = mp.mse %y, %t : tensor<64x1xf32>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$input, MP_FloatTensor:$target);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = "$input `,` $target attr-dict `:` type($input)";
}

//===----------------------------------------------------------------------===//
// Backward operations of an explicit joint graph
//===----------------------------------------------------------------------===//

def MP_ReluGradOp : MP_Op<"relu_grad", [Pure, SameOperandsAndResultType]> {
  let summary = "gradient of relu";
  let description = [{
    `grad_output` where `input > 0`, else 0 (PyTorch's threshold_backward).

    ```mlir
    %dx = mp.relu_grad %dy, %x : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$grad_output, MP_FloatTensor:$input);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = "$grad_output `,` $input attr-dict `:` type($input)";
}

def MP_GeluGradOp : MP_Op<"gelu_grad", [Pure, SameOperandsAndResultType]> {
  let summary = "gradient of gelu";
  let description = [{
    `grad_output · gelu'(input)` for the chosen formula.

    ```mlir
    %dx = mp.gelu_grad %dy, %x approximate tanh : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$grad_output, MP_FloatTensor:$input,
      DefaultValuedAttr<MP_GeluApproximationAttr,
                        "::mlir::mp::GeluApproximation::none">:$approximate);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = [{
    $grad_output `,` $input (`approximate` `` $approximate^)? attr-dict
    `:` type($input)
  }];
}

class MP_MinMaxGradOp<string mnemonic, string which>
    : MP_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let summary = "gradients of elementwise " # which;
  let description = [{
    Routes `grad_output` to the operand that was selected by `mp.}] # which #
    [{`; where the operands are equal each gets half, as in PyTorch. Both
    results have the shape of `grad_output` (the broadcast shape);
    reducing them to the operand shapes is a separate `mp.reduce_sum`.

    ```mlir
    %da, %db = mp.}] # mnemonic # [{ %dy, %a, %b
        : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$grad_output, MP_FloatTensor:$lhs,
                       MP_FloatTensor:$rhs);
  let results = (outs MP_FloatTensor:$lhs_grad, MP_FloatTensor:$rhs_grad);
  let assemblyFormat = [{
    $grad_output `,` $lhs `,` $rhs attr-dict `:` type($grad_output) `,`
    type($lhs) `,` type($rhs)
  }];
}

def MP_MaximumGradOp : MP_MinMaxGradOp<"maximum_grad", "maximum">;
def MP_MinimumGradOp : MP_MinMaxGradOp<"minimum_grad", "minimum">;

def MP_ReduceMaxGradOp : MP_Op<"reduce_max_grad", [Pure,
    AllTypesMatch<["grad_output", "output"]>,
    AllTypesMatch<["input", "result"]>]> {
  let summary = "gradient of reduce_max";
  let description = [{
    Distributes `grad_output` (shaped like `output = reduce_max(input)` with
    the same `dims`/`keepdims`) evenly over the positions of `input` that
    equal the maximum (PyTorch's `amax` backward).

    ```mlir
    %dx = mp.reduce_max_grad %dy, %x, %m dims [1] : tensor<4xf32>, tensor<4x8xf32>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$grad_output, MP_FloatTensor:$input,
                       MP_FloatTensor:$output, DenseI64ArrayAttr:$dims,
                       UnitAttr:$keepdims);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = [{
    $grad_output `,` $input `,` $output `dims` $dims (`keepdims` $keepdims^)?
    attr-dict `:` type($grad_output) `,` type($input)
  }];
  let hasVerifier = 1;
}

class MP_SoftmaxLikeGradOp<string mnemonic, string formula>
    : MP_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = "gradient of " # !subst("_grad", "", mnemonic);
  let description = [{
    Given `output` (the forward result) and `grad_output`, computes
    `}] # formula # [{` along `dim`.

    ```mlir
    %dx = mp.}] # mnemonic # [{ %dy, %y dim 1 : tensor<4x10xf32>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$grad_output, MP_FloatTensor:$output,
                       I64Attr:$dim);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = [{
    $grad_output `,` $output `dim` $dim attr-dict `:` type($output)
  }];
  let hasVerifier = 1;
}

def MP_SoftmaxGradOp : MP_SoftmaxLikeGradOp<"softmax_grad",
    "y · (dy − Σ dy·y)">;
def MP_LogSoftmaxGradOp : MP_SoftmaxLikeGradOp<"log_softmax_grad",
    "dy − exp(y) · Σ dy">;

def MP_LayerNormGradOp : MP_Op<"layer_norm_grad", [Pure,
    AllTypesMatch<["grad_output", "input", "input_grad"]>]> {
  let summary = "gradients of layer_norm";
  let description = [{
    Gradients of `mp.layer_norm` (same `axis`, `eps`, optional `weight`) with
    respect to its input, weight and bias. `weight_grad` and `bias_grad`
    have the normalised shape; they are produced even when the forward had
    no weight or bias (then they are simply unused).

    ```mlir
    %dx, %dg, %db = mp.layer_norm_grad %dy, %x weight %g axis 1 eps 1.0e-05
        : (tensor<8x64xf32>, tensor<8x64xf32>, tensor<64xf32>)
        -> (tensor<8x64xf32>, tensor<64xf32>, tensor<64xf32>)
    ```
  }];
  let arguments = (ins MP_FloatTensor:$grad_output, MP_FloatTensor:$input,
                       Optional<MP_FloatTensor>:$weight, I64Attr:$axis,
                       F64Attr:$eps);
  let results = (outs MP_FloatTensor:$input_grad, MP_FloatTensor:$weight_grad,
                      MP_FloatTensor:$bias_grad);
  let assemblyFormat = [{
    $grad_output `,` $input (`weight` $weight^)? `axis` $axis `eps` $eps
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def MP_RMSNormGradOp : MP_Op<"rms_norm_grad", [Pure,
    AllTypesMatch<["grad_output", "input", "input_grad"]>]> {
  let summary = "gradients of rms_norm";
  let description = [{
    Gradients of `mp.rms_norm` (same `axis`, `eps`, optional `weight`) with
    respect to its input and weight; `weight_grad` has the normalised shape.

    ```mlir
    %dx, %dg = mp.rms_norm_grad %dy, %x weight %g axis 1 eps 1.0e-06
        : (tensor<8x64xf32>, tensor<8x64xf32>, tensor<64xf32>)
        -> (tensor<8x64xf32>, tensor<64xf32>)
    ```
  }];
  let arguments = (ins MP_FloatTensor:$grad_output, MP_FloatTensor:$input,
                       Optional<MP_FloatTensor>:$weight, I64Attr:$axis,
                       F64Attr:$eps);
  let results = (outs MP_FloatTensor:$input_grad, MP_FloatTensor:$weight_grad);
  let assemblyFormat = [{
    $grad_output `,` $input (`weight` $weight^)? `axis` $axis `eps` $eps
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def MP_CrossEntropyGradOp : MP_Op<"cross_entropy_grad", [Pure,
    AllTypesMatch<["logits", "result"]>]> {
  let summary = "gradient of cross_entropy with respect to the logits";
  let description = [{
    `(softmax(logits) − (1 − ε)·onehot(labels) − ε/C) · grad_output / K` on
    the rows (positions, in the K-dimensional form) whose label is not
    `ignore_index` and 0 on the others, where
    `grad_output` is the 0-d gradient of the mean loss, K the number of rows
    not ignored and ε `label_smoothing` (attributes as in
    `mp.cross_entropy`).

    ```mlir
    %dlogits = mp.cross_entropy_grad %dl, %logits, %labels
        : (tensor<f32>, tensor<64x10xf32>, tensor<64xi64>) -> tensor<64x10xf32>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$grad_output, MP_FloatTensor:$logits,
                       MP_IndexTensor:$labels,
                       DefaultValuedAttr<I64Attr, "-100">:$ignore_index,
                       DefaultValuedAttr<F64Attr, "0.0">:$label_smoothing);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = [{
    $grad_output `,` $logits `,` $labels attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def MP_Conv2DGradInputOp : MP_Op<"conv2d_grad_input", [Pure]>, MP_ConvAttrs {
  let summary = "gradient of conv2d with respect to its input";
  let description = [{
    The transposed convolution of `grad_output` (`[N, F, OH, OW]`) with
    `filter`, giving a result of the forward input's shape (stated by the
    result type, since strided convolutions lose it). Attributes as in
    `mp.conv2d`.

    ```mlir
    %dx = mp.conv2d_grad_input %dy, %w acc(f32) {padding = array<i64: 1, 1>}
        : (tensor<8x16x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x3x32x32xf32>
    ```
  }];
  let arguments = !con((ins MP_FloatTensor:$grad_output, MP_FloatTensor:$filter,
                            MP_FloatTypeAttr:$acc_type), convAttrs);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = [{
    $grad_output `,` $filter `acc` `(` $acc_type `)` attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def MP_Conv2DGradFilterOp : MP_Op<"conv2d_grad_filter", [Pure]>, MP_ConvAttrs {
  let summary = "gradient of conv2d with respect to its filter";
  let description = [{
    Correlates the forward `input` with `grad_output`, giving a result of the
    filter's shape (stated by the result type). Attributes as in
    `mp.conv2d`.

    ```mlir
    %dw = mp.conv2d_grad_filter %dy, %x acc(f32) {padding = array<i64: 1, 1>}
        : (tensor<8x16x32x32xf32>, tensor<8x3x32x32xf32>) -> tensor<16x3x3x3xf32>
    ```
  }];
  let arguments = !con((ins MP_FloatTensor:$grad_output, MP_FloatTensor:$input,
                            MP_FloatTypeAttr:$acc_type), convAttrs);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = [{
    $grad_output `,` $input `acc` `(` $acc_type `)` attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def MP_SliceGradOp : MP_Op<"slice_grad", [Pure]> {
  let summary = "gradient of slice";
  let description = [{
    Scatters `grad_output` into a zero tensor of the result type (the sliced
    input's type) at the box given by `offsets`, `sizes` and `strides`.

    ```mlir
    %dx = mp.slice_grad %dy offsets [0, 2] sizes [4, 4] strides [1, 1]
        : tensor<4x4xf32> to tensor<4x8xf32>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$grad_output, DenseI64ArrayAttr:$offsets,
                       DenseI64ArrayAttr:$sizes, DenseI64ArrayAttr:$strides);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = [{
    $grad_output `offsets` $offsets `sizes` $sizes `strides` $strides attr-dict
    `:` type($grad_output) `to` type($result)
  }];
  let hasVerifier = 1;
}

def MP_EmbeddingGradOp : MP_Op<"embedding_grad", [Pure]> {
  let summary = "gradient of embedding with respect to the table";
  let description = [{
    Sums the rows of `grad_output` (`[S..., D]`) into a zero table of the
    result type (`[V, D]`) at the rows named by `indices` (`S`); repeated
    indices accumulate.

    ```mlir
    %dt = mp.embedding_grad %dy, %ids
        : (tensor<2x16x64xf32>, tensor<2x16xi64>) -> tensor<1000x64xf32>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$grad_output, MP_IndexTensor:$indices);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = [{
    $grad_output `,` $indices attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Precision
//===----------------------------------------------------------------------===//

def MP_CastOp : MP_Op<"cast", [Pure, SameOperandsAndResultShape,
                               MP_Differentiable]> {
  let summary = "convert a float tensor to another float format";
  let description = [{
    Converts every element to the result element type with round to nearest,
    ties to even (IEEE 754 `convertFormat`). Values beyond the target's range
    become infinity (f16, bf16, f8E5M2) or NaN (f8E4M3FN, which has no
    infinity). With `saturate` (only for an FP8, FP6, FP4 or E8M0 target),
    finite values beyond the range clamp to the largest finite value of that
    sign (448 for E4M3FN, 57344 for E5M2) and infinities too; NaN stays NaN.

    The block-scaled formats need `saturate` (PTX's `.satfinite`):
    - f4E2M1FN (±6), f6E2M3FN (±7.5), f6E3M2FN (±28) have no infinity and
      no NaN: round to nearest even, clamp to ±max, and NaN becomes +max.
    - f8E8M0FNU (an unsigned power of two 2^(c−127), c = 0..254; c = 255 is
      NaN; no zero, no sign) is a scale type and rounds **up**: for a
      non-NaN `x`, the result is 2^⌈log2 |x|⌉ clamped to [2^-127, 2^127]
      (the sign is ignored; ±0 and |x| ≤ 2^-127 give 2^-127, ±infinity
      2^127); NaN gives NaN (0xFF). On the f32 bits (exponent field E,
      mantissa M of |x|): c = E + 1 when M ≠ 0, E < 254 and not
      (E = 0 and M ≤ 2^22), else c = E — Transformer Engine's
      `float_to_e8m0`, the result of `cvt.rp.satfinite.ue8m0x2.f32`.
    Conversions from FP4 and FP6 to the wider formats, and from E8M0 to f32
    and bf16, are exact; E8M0 to f16 or FP8 rounds as from f32. Stochastic
    rounding to the narrow formats is `mp.stochastic_cast`.

    A cast to the same type folds away; `cast(cast(x))` folds only when the
    inner cast is exact (a widening), so `f32 → f16 → f32` is kept.

    ```mlir
    %h = mp.cast %x : tensor<4x8xf32> to tensor<4x8xf16>
    %q = mp.cast %x saturate : tensor<4x8xf32> to tensor<4x8xf8E4M3FN>
    ```
  }];
  let arguments = (ins MP_CastTensor:$input, UnitAttr:$saturate);
  let results = (outs MP_CastTensor:$result);
  let assemblyFormat = [{
    $input (`saturate` $saturate^)? attr-dict `:` type($input) `to` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// True when every value of `from` is exactly representable in `to`.
    static bool isExactConversion(::mlir::Type from, ::mlir::Type to);
  }];
}

def MP_ScaleOp : MP_Op<"scale", [Pure, AllTypesMatch<["input", "result"]>,
                                 MP_Differentiable]> {
  let summary = "multiply a tensor by a scalar factor";
  let description = [{
    `input × factor`, with the product formed in f32 and rounded once to the
    input's element type. Loss scaling multiplies the loss by S, unscaling
    multiplies gradients by 1/S, FP8 quantisation multiplies by its scale.
    Scaling by the constant 1 folds away.

    ```mlir
    %sl = mp.scale %loss by %s : tensor<f32>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$input, MP_F32Scalar:$factor);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = "$input `by` $factor attr-dict `:` type($input)";
  let hasFolder = 1;
}

def MP_AllFiniteOp : MP_Op<"all_finite", [Pure]> {
  let summary = "whether every element of every operand is finite";
  let description = [{
    A 0-d i1 tensor, true when no element of any operand is infinite or NaN.
    `found_inf` of PyTorch's GradScaler is its negation.

    ```mlir
    %ok = mp.all_finite %g0, %g1 : tensor<256x784xf32>, tensor<256xf32>
    ```
  }];
  let arguments = (ins Variadic<MP_FloatTensor>:$inputs);
  let results = (outs MP_I1Scalar:$result);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs)";
  let hasVerifier = 1;
}

def MP_UpdateLossScaleOp
    : MP_Op<"update_loss_scale", [Pure, InferTypeOpAdaptor]> {
  let summary = "dynamic loss-scale update (GradScaler, Megatron hysteresis)";
  let description = [{
    One step of dynamic loss scaling, exactly PyTorch's
    `torch._amp_update_scale_` when `hysteresis` is 1:

    - `found_inf`: the growth tracker becomes 0 and the scale becomes
      `max(scale × backoff_factor, min_scale)`;
    - otherwise the tracker counts up; when it reaches `growth_interval` it
      becomes 0 and the scale becomes `min(scale × growth_factor, max_scale)`
      if that is finite (else the scale is kept).

    With `hysteresis` > 1 (Megatron-LM's DynamicGradScaler) the op takes and
    returns a hysteresis counter: an overflow decrements it and backs the
    scale off only when it reaches 0; a growth resets it to `hysteresis`.
    Products are formed in f32. `min_scale` and `max_scale` are optional.

    ```mlir
    %s1, %t1 = mp.update_loss_scale %s, %t, %found_inf
        {growth_interval = 2000 : i64}
    ```
  }];
  let arguments = (ins MP_F32Scalar:$scale, MP_I32Scalar:$growth_tracker,
                       MP_I1Scalar:$found_inf,
                       Optional<MP_I32Scalar>:$hysteresis_tracker,
                       DefaultValuedAttr<F64Attr, "2.0">:$growth_factor,
                       DefaultValuedAttr<F64Attr, "0.5">:$backoff_factor,
                       DefaultValuedAttr<I64Attr, "2000">:$growth_interval,
                       DefaultValuedAttr<I64Attr, "1">:$hysteresis,
                       OptionalAttr<F64Attr>:$min_scale,
                       OptionalAttr<F64Attr>:$max_scale);
  let results = (outs MP_F32Scalar:$new_scale, MP_I32Scalar:$new_growth_tracker,
                      Optional<MP_I32Scalar>:$new_hysteresis_tracker);
  let assemblyFormat = [{
    $scale `,` $growth_tracker `,` $found_inf (`hysteresis_tracker` $hysteresis_tracker^)?
    attr-dict
  }];
  let hasVerifier = 1;
}

def MP_AmaxOp : MP_Op<"amax", [Pure]> {
  let summary = "largest absolute value of a tensor";
  let description = [{
    `max(|x|)` over the elements that are not NaN, from 0 (so a tensor of
    NaNs gives 0), as a 0-d f32 tensor: Transformer Engine's amax kernels
    (`fmaxf` / `__hmax` reductions, which ignore NaN). An infinite element
    gives +inf. FP8 scaling records it per tensor.

    ```mlir
    %a = mp.amax %x : tensor<64x256xbf16>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$input);
  let results = (outs MP_F32Scalar:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def MP_AmaxHistoryPushOp : MP_Op<"amax_history_push",
    [Pure, AllTypesMatch<["history", "result"]>]> {
  let summary = "record an amax in a rolling history";
  let description = [{
    Returns `[amax, history[0], ..., history[n−2]]`: index 0 holds the most
    recent amax and the oldest entry drops out (Transformer Engine's rolling
    amax history).

    ```mlir
    %h1 = mp.amax_history_push %h, %a : tensor<1024xf32>
    ```
  }];
  let arguments = (ins MP_F32Vector:$history, MP_F32Scalar:$amax);
  let results = (outs MP_F32Vector:$result);
  let assemblyFormat = "$history `,` $amax attr-dict `:` type($history)";
  let hasVerifier = 1;
}

def MP_FP8ScaleOp : MP_Op<"fp8_scale", [Pure]> {
  let summary = "FP8 scaling factor from an amax history";
  let description = [{
    Transformer Engine's delayed-scaling formula: `amax` is the maximum of
    `history` (`amax_compute = max`) or its entry 0 (`most_recent`); the new
    scale is `(fp8_max / amax) / 2^margin` with `fp8_max` 448 for E4M3 and
    57344 for E5M2; when `amax` is 0 or not finite, or the new scale is not
    finite, `scale` is returned unchanged. Computed in f32.

    Transformer Engine's current-scaling options (its `QParams`):
    `amax_epsilon` (>= 0, rounded to f32) raises a smaller amax to it first
    (`max(amax, eps)`; NaN stays NaN), and `power_of_two` rounds a new scale
    down to a power of two (its mantissa bits cleared), so that scaling is
    exact; a new scale below 2^-126 (only with a large margin) then counts
    as not usable, and the kept `scale` is returned as it is.

    ```mlir
    %s1 = mp.fp8_scale %h, %s format e4m3 : tensor<1024xf32>
    %s2 = mp.fp8_scale %a, %one format e5m2 amax_epsilon(1.0e-12) power_of_two
        : tensor<1xf32>
    ```
  }];
  let arguments = (ins MP_F32Vector:$history, MP_F32Scalar:$scale,
                       MP_FP8FormatAttr:$format,
                       DefaultValuedAttr<I64Attr, "0">:$margin,
                       DefaultValuedAttr<MP_AmaxComputeAttr,
                           "::mlir::mp::AmaxCompute::max">:$amax_compute,
                       DefaultValuedAttr<F64Attr, "0.0">:$amax_epsilon,
                       UnitAttr:$power_of_two);
  let results = (outs MP_F32Scalar:$result);
  let assemblyFormat = [{
    $history `,` $scale `format` `` $format
    (`amax_compute` `` $amax_compute^)?
    (`amax_epsilon` `(` $amax_epsilon^ `)`)? (`power_of_two` $power_of_two^)?
    attr-dict `:` type($history)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Training
//===----------------------------------------------------------------------===//

def MP_GradOp : MP_Op<"grad", [Pure, InferTypeOpAdaptor]> {
  let summary = "gradients of a scalar loss with respect to values";
  let description = [{
    The differentiation boundary: result `i` is `∂loss/∂values[i]` and has
    the type of `values[i]`. `loss` is a 0-d float tensor; `values` are float
    tensors defined before this op (function arguments or results of earlier
    ops). `mp-autodiff` replaces this op by explicit backward operations;
    `mp-loss-scaling` scales the loss that reaches it.

    ```mlir
    %dw1, %db1 = mp.grad %loss wrt %w1, %b1
        : tensor<f32>, tensor<256x784xf32>, tensor<256xf32>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$loss, Variadic<MP_FloatTensor>:$values);
  let results = (outs Variadic<MP_FloatTensor>:$gradients);
  let assemblyFormat = [{
    $loss `wrt` $values attr-dict `:` type($loss) `,` type($values)
  }];
}

/// A run-time learning rate: a 0-d f32 tensor, or f64 to keep a schedule's
/// double-precision value (PyTorch's Python float) for Adam's step size.
def MP_LRScalar : 0DTensorOf<[F32, F64]>;

def MP_SGDOp : MP_Op<"sgd", [Pure, InferTypeOpAdaptor, AttrSizedOperandSegments,
                              AllTypesMatch<["param", "grad"]>]> {
  let summary = "one step of SGD with momentum, dampening and weight decay";
  let description = [{
    PyTorch's `torch.optim.SGD` for one parameter (its single-tensor path,
    `foreach=False`, in the same order of operations), in the parameter's
    type: `g = maximize ? −grad : grad`, `g = g + weight_decay·param`; with
    `momentum` ≠ 0: `buf = g` on the first step, afterwards
    `buf = momentum·buf + (1 − dampening)·g`, and
    `g = nesterov ? g + momentum·buf : buf`; then `param − lr·g`.
    The products with a coefficient and their sums (`a + α·b`, PyTorch's
    `add(alpha=)`) are fused multiply-adds, as PyTorch's vectorised CPU
    kernels and CUDA compute them; coefficients are rounded to f32 once.

    With `momentum` ≠ 0 the buffer operand is required and its new value
    returned. The first step is the one whose `step` operand (the 1-based
    number of this update, docs/TrainStep.md's `step` state) is 1; `step` is
    required when `dampening` ≠ 0. Without it every step uses the second
    rule, which is exact on the first step only for a buffer initialised to
    zeros with `dampening` 0 (then `momentum·0 + g = g`).

    The learning rate is the `lr` attribute or the `lr(...)` operand (a 0-d
    f32 or f64 tensor, e.g. from a schedule; rounded to f32 as PyTorch
    rounds its Python float), exactly one of them. `param`, `grad` and
    `momentum_buffer` share one type.

    ```mlir
    %p1, %buf1 = mp.sgd %p, %g momentum_buffer %buf step(%t : tensor<i64>)
        {lr = 1.0e-01 : f64, momentum = 9.0e-01 : f64, dampening = 5.0e-01 : f64}
        : tensor<256xf32>, tensor<256xf32>
    %p2 = mp.sgd %p, %g lr(%lr : tensor<f32>) : tensor<256xf32>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$param, MP_FloatTensor:$grad,
                       Optional<MP_FloatTensor>:$momentum_buffer,
                       Optional<MP_StepTensor>:$step,
                       Optional<MP_LRScalar>:$learning_rate,
                       OptionalAttr<F64Attr>:$lr,
                       DefaultValuedAttr<F64Attr, "0.0">:$momentum,
                       DefaultValuedAttr<F64Attr, "0.0">:$dampening,
                       DefaultValuedAttr<F64Attr, "0.0">:$weight_decay,
                       UnitAttr:$nesterov, UnitAttr:$maximize);
  let results = (outs MP_FloatTensor:$new_param,
                      Optional<MP_FloatTensor>:$new_momentum_buffer);
  let assemblyFormat = [{
    $param `,` $grad (`momentum_buffer` $momentum_buffer^)?
    (`step` `(` $step^ `:` type($step) `)`)?
    (`lr` `(` $learning_rate^ `:` type($learning_rate) `)`)? attr-dict
    `:` type($param) (`,` type($momentum_buffer)^)?
  }];
  let hasVerifier = 1;
}

class MP_AdamLikeOp<string mnemonic, string decay, string defaultDecay>
    : MP_Op<mnemonic, [Pure, InferTypeOpAdaptor, AttrSizedOperandSegments,
        AllTypesMatch<["param", "grad", "exp_avg", "exp_avg_sq"]>,
        OptionalTypesMatchWith<"max_exp_avg_sq has the parameter type",
                               "param", "max_exp_avg_sq", "$_self">]> {
  let description = [{
    PyTorch's `torch.optim.}] # !if(!eq(mnemonic, "adam"), "Adam", "AdamW") #
    [{` for one parameter (its single-tensor path, `foreach=False`, in the
    same order of operations), in the parameter's type. `step` is the
    1-based number of this update (the caller increments it).
    `g = maximize ? −grad : grad`. }] # decay # [{
    `m = β1·m + (1 − β1)·g`, `v = β2·v + (1 − β2)·g·g`; with the
    `amsgrad` operand (state `adam.max_exp_avg_sq`, returned updated)
    `v̂ = max(max_exp_avg_sq, v)` (NaN propagates), else `v̂ = v`;
    `denom = sqrt(v̂) / sqrt(1 − β2^step) + eps`,
    `param += (−lr / (1 − β1^step))·m / denom`.
    As PyTorch: the bias corrections, `sqrt(1 − β2^step)` and the step size
    `lr / (1 − β1^step)` are computed in f64 (Python floats) and rounded to
    f32 once; `a + α·b` and `v + ((1 − β2)·g)·g` are fused multiply-adds
    (PyTorch's vectorised CPU kernels and CUDA).

    The learning rate is the `lr` attribute or the `lr(...)` operand (a 0-d
    f32 or f64 tensor, e.g. from a schedule), not both; with neither it is
    1e-3 (torch's default). An f64 operand keeps the schedule's double value
    in the step size, as PyTorch does; an f32 one is extended exactly.
    Returns the new parameter, `exp_avg` (m), `exp_avg_sq` (v) and, with
    `amsgrad`, the new `max_exp_avg_sq`.

    ```mlir
    %p1, %m1, %v1 = mp.}] # mnemonic # [{ %p, %g, %m, %v, %step {lr = 1.0e-03 : f64}
        : tensor<256xf32>, tensor<i64>
    %p2, %m2, %v2, %vmax2 = mp.}] # mnemonic # [{ %p, %g, %m, %v, %step amsgrad %vmax
        lr(%lr : tensor<f64>) {maximize} : tensor<256xf32>, tensor<i64>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$param, MP_FloatTensor:$grad,
                       MP_FloatTensor:$exp_avg, MP_FloatTensor:$exp_avg_sq,
                       MP_StepTensor:$step,
                       Optional<MP_FloatTensor>:$max_exp_avg_sq,
                       Optional<MP_LRScalar>:$learning_rate,
                       OptionalAttr<F64Attr>:$lr,
                       DefaultValuedAttr<F64Attr, "0.9">:$beta1,
                       DefaultValuedAttr<F64Attr, "0.999">:$beta2,
                       DefaultValuedAttr<F64Attr, "1.0e-8">:$eps,
                       DefaultValuedAttr<F64Attr, defaultDecay>:$weight_decay,
                       UnitAttr:$maximize);
  let results = (outs MP_FloatTensor:$new_param, MP_FloatTensor:$new_exp_avg,
                      MP_FloatTensor:$new_exp_avg_sq,
                      Optional<MP_FloatTensor>:$new_max_exp_avg_sq);
  let assemblyFormat = [{
    $param `,` $grad `,` $exp_avg `,` $exp_avg_sq `,` $step
    (`amsgrad` $max_exp_avg_sq^)?
    (`lr` `(` $learning_rate^ `:` type($learning_rate) `)`)? attr-dict
    `:` type($param) `,` type($step)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The learning-rate attribute's value, 1e-3 when neither it nor the
    /// operand is given, none with the operand.
    std::optional<double> getLrConstant() {
      if (getLearningRate())
        return std::nullopt;
      return getLrAttr() ? getLrAttr().getValueAsDouble() : 1.0e-3;
    }
  }];
}

def MP_AdamOp : MP_AdamLikeOp<"adam",
    "L2 weight decay: `g = grad + weight_decay·param`.", "0.0"> {
  let summary = "one step of Adam";
}

def MP_AdamWOp : MP_AdamLikeOp<"adamw",
    "Decoupled weight decay: `param = param·(1 − lr·weight_decay)` first, `g = grad`.",
    "1.0e-2"> {
  let summary = "one step of AdamW (decoupled weight decay)";
}

include "mp/Dialect/MP/IR/MPRandomOps.td"
include "mp/Dialect/MP/IR/MPNormOps.td"
include "mp/Dialect/MP/IR/MPActivationOps.td"
include "mp/Dialect/MP/IR/MPPoolingOps.td"
include "mp/Dialect/MP/IR/MPTrainingOps.td"
include "mp/Dialect/MP/IR/MPBlockScaledOps.td"

#endif // MP_DIALECT_MP_IR_MPOPS_TD
