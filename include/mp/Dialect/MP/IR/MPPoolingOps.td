//===- MPPoolingOps.td - Pooling operations of mp ----------*- tablegen -*-===//
//
// 2-d max, average and adaptive average pooling in NCHW layout, with their
// explicit backward ops: PyTorch's F.max_pool2d, F.avg_pool2d and
// F.adaptive_avg_pool2d, including its output-size rule (ceil_mode), its
// window clipping and divisors, and the element a max-pooling gradient goes
// to. Included by MPOps.td, whose type constraints it uses.
//
//===----------------------------------------------------------------------===//

#ifndef MP_DIALECT_MP_IR_MPPOOLINGOPS_TD
#define MP_DIALECT_MP_IR_MPPOOLINGOPS_TD

/// The window attributes of max pooling, forward and backward.
class MP_MaxPoolAttrs {
  dag maxPoolAttrs = (ins
    DenseI64ArrayAttr:$kernel_size,
    OptionalAttr<DenseI64ArrayAttr>:$stride,
    DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$padding,
    DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilation,
    UnitAttr:$ceil_mode
  );
  string maxPoolFormat = [{
    `kernel` $kernel_size (`stride` $stride^)? (`padding` $padding^)?
    (`dilation` $dilation^)? (`ceil_mode` $ceil_mode^)? attr-dict
  }];
}

/// The window attributes of average pooling, forward and backward.
class MP_AvgPoolAttrs {
  dag avgPoolAttrs = (ins
    DenseI64ArrayAttr:$kernel_size,
    OptionalAttr<DenseI64ArrayAttr>:$stride,
    DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$padding,
    UnitAttr:$ceil_mode,
    DefaultValuedAttr<BoolAttr, "true">:$count_include_pad,
    OptionalAttr<I64Attr>:$divisor_override
  );
  string avgPoolFormat = [{
    `kernel` $kernel_size (`stride` $stride^)? (`padding` $padding^)?
    (`ceil_mode` $ceil_mode^)? (`count_include_pad` $count_include_pad^)?
    (`divisor` $divisor_override^)? attr-dict
  }];
}

def MP_MaxPool2DOp : MP_Op<"max_pool2d", [Pure, InferTypeOpAdaptor,
                                          MP_Differentiable]>, MP_MaxPoolAttrs {
  let summary = "2-d max pooling in NCHW layout";
  let description = [{
    PyTorch's `F.max_pool2d` on an `[N, C, H, W]` input. `kernel_size`,
    `stride` (default: the kernel size), `padding` and `dilation` have one
    entry per spatial dimension; padding is −inf and at most half the
    kernel size (`padding <= kernel / 2`, PyTorch 1.13's check, which uses
    the undilated kernel).
    The output is `[N, C, OH, OW]` with
    `OH = ⌊(H + 2·padding − dilation·(kernel − 1) − 1 + (ceil_mode ? stride − 1 : 0)) / stride⌋ + 1`,
    minus one when `ceil_mode` makes the last window start at or after
    `H + padding` (it must start inside the input or the left padding);
    likewise OW; both must be at least 1.

    Each output is the maximum of its window; a NaN in the window makes it
    NaN. Gradient (`mp.max_pool2d_grad`, PyTorch's CPU rule): each window's
    adjoint goes to one element: the last NaN of the window in row-major
    order if it has one, else the first element (row-major) holding the
    maximum; an all −inf window sends it to its first element inside the
    input.

    Autocast: clear (pooling is in none of PyTorch's CUDA autocast lists).

    ```mlir
    %y = mp.max_pool2d %x kernel [3, 3] stride [2, 2] padding [1, 1]
        : tensor<8x64x32x32xf16>
    ```
  }];
  let arguments = !con((ins MP_FloatTensor:$input), maxPoolAttrs);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = "$input " # maxPoolFormat # " `:` type($input)";
  let extraClassDeclaration = [{
    /// The stride: the attribute, or the kernel size when it is absent.
    ::llvm::SmallVector<int64_t> getEffectiveStride() {
      if (auto stride = getStride())
        return ::llvm::SmallVector<int64_t>(*stride);
      return ::llvm::SmallVector<int64_t>(getKernelSize());
    }
  }];
}

def MP_MaxPool2DGradOp : MP_Op<"max_pool2d_grad", [Pure,
    AllTypesMatch<["input", "result"]>]>, MP_MaxPoolAttrs {
  let summary = "gradient of max_pool2d";
  let description = [{
    Routes each element of `grad_output` (shaped like the `mp.max_pool2d`
    of `input` with the same attributes) to the element of its window that
    the forward selected (see `mp.max_pool2d`), recomputed from `input`: no
    index tensor is kept. Elements chosen by several overlapping windows sum
    their adjoints in f32, in the row-major order of the windows, rounded
    once to the input type. Autocast: clear, as its forward.

    ```mlir
    %dx = mp.max_pool2d_grad %dy, %x kernel [3, 3] stride [2, 2] padding [1, 1]
        : tensor<8x64x16x16xf16>, tensor<8x64x32x32xf16>
    ```
  }];
  let arguments = !con((ins MP_FloatTensor:$grad_output,
                            MP_FloatTensor:$input), maxPoolAttrs);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = "$grad_output `,` $input " # maxPoolFormat #
                       " `:` type($grad_output) `,` type($input)";
  let hasVerifier = 1;
  let extraClassDeclaration = MP_MaxPool2DOp.extraClassDeclaration;
}

def MP_AvgPool2DOp : MP_Op<"avg_pool2d", [Pure, InferTypeOpAdaptor,
                                          MP_Differentiable]>, MP_AvgPoolAttrs {
  let summary = "2-d average pooling in NCHW layout";
  let description = [{
    PyTorch's `F.avg_pool2d` on an `[N, C, H, W]` input: `kernel_size`,
    `stride` (default: the kernel size) and zero `padding` (at most half the
    kernel size) per spatial dimension; the output shape follows
    `mp.max_pool2d`'s rule with dilation 1. Each output is the sum of its
    window (in f32, row-major) divided by `divisor_override` when given, else
    by the window's size clipped to the padded input (`count_include_pad`,
    the default; windows that `ceil_mode` extends past the padding count
    only their part inside it) or, with `count_include_pad false`, by the
    number of its elements inside the input; then rounded once. Gradient
    (`mp.avg_pool2d_grad`): each window's adjoint divided by the same
    divisor is added to every element of the window inside the input.

    Autocast: clear (pooling is in none of PyTorch's CUDA autocast lists).

    ```mlir
    %y = mp.avg_pool2d %x kernel [2, 2] ceil_mode count_include_pad false
        : tensor<8x64x7x7xf32>
    ```
  }];
  let arguments = !con((ins MP_FloatTensor:$input), avgPoolAttrs);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = "$input " # avgPoolFormat # " `:` type($input)";
  let extraClassDeclaration = MP_MaxPool2DOp.extraClassDeclaration;
}

def MP_AvgPool2DGradOp : MP_Op<"avg_pool2d_grad", [Pure]>, MP_AvgPoolAttrs {
  let summary = "gradient of avg_pool2d";
  let description = [{
    Spreads each element of `grad_output` (shaped like the `mp.avg_pool2d`
    of the result type with the same attributes), divided by its window's
    divisor, over the window's elements inside the input; contributions sum
    in f32 in the row-major order of the windows and are rounded once. Autocast: clear, as its forward.

    ```mlir
    %dx = mp.avg_pool2d_grad %dy kernel [2, 2] : tensor<8x64x3x3xf32> to tensor<8x64x7x7xf32>
    ```
  }];
  let arguments = !con((ins MP_FloatTensor:$grad_output), avgPoolAttrs);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = "$grad_output " # avgPoolFormat #
                       " `:` type($grad_output) `to` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = MP_MaxPool2DOp.extraClassDeclaration;
}

def MP_AdaptiveAvgPool2DOp : MP_Op<"adaptive_avg_pool2d",
    [Pure, InferTypeOpAdaptor, MP_Differentiable]> {
  let summary = "2-d adaptive average pooling in NCHW layout";
  let description = [{
    PyTorch's `F.adaptive_avg_pool2d`: the `[N, C, H, W]` input becomes
    `[N, C, OH, OW]` with `output_size = [OH, OW]` (each at least 1). Output
    row `i` averages the input rows `[⌊i·H/OH⌋, ⌈(i+1)·H/OH⌉)`, likewise
    columns; the window sum is formed in f32 (row-major) and divided by the
    window height, then by its width (PyTorch's order), then rounded once.
    For `output_size = [1, 1]` PyTorch computes `mean` over H·W instead: the
    sum is divided once by H·W (its summation order is not reproduced).
    Gradient (`mp.adaptive_avg_pool2d_grad`): each window's adjoint divided
    the same way is added to each of its elements.

    Autocast: clear (pooling is in none of PyTorch's CUDA autocast lists).

    ```mlir
    %y = mp.adaptive_avg_pool2d %x output_size [1, 1] : tensor<8x512x7x7xf32>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$input,
                       DenseI64ArrayAttr:$output_size);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = [{
    $input `output_size` $output_size attr-dict `:` type($input)
  }];
}

def MP_AdaptiveAvgPool2DGradOp : MP_Op<"adaptive_avg_pool2d_grad", [Pure]> {
  let summary = "gradient of adaptive_avg_pool2d";
  let description = [{
    Spreads each element of `grad_output` (`[N, C, OH, OW]`; the output size
    is its spatial shape), divided by its window's height and then width (by
    H·W for the output size [1, 1], as the forward),
    over the window's elements of the result (`[N, C, H, W]`, the forward
    input's type); contributions sum in f32 in the row-major order of the
    windows and are rounded once. Autocast: clear, as its forward.

    ```mlir
    %dx = mp.adaptive_avg_pool2d_grad %dy : tensor<8x512x1x1xf32> to tensor<8x512x7x7xf32>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$grad_output);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = [{
    $grad_output attr-dict `:` type($grad_output) `to` type($result)
  }];
  let hasVerifier = 1;
}

#endif // MP_DIALECT_MP_IR_MPPOOLINGOPS_TD
