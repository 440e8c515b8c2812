#!/usr/bin/env python3
"""mp.conv2d (im2col + matrix products, lib/Conversion/MPToLinalg/
LinearAlgebra.cpp) against torch.nn.functional.conv2d, forward and, through
mp-autodiff, both gradients (mp.conv2d_grad_input, mp.conv2d_grad_filter)
and the bias gradient: grouped, depthwise (groups = channels, multipliers 1
and 2), strided (input gradients per phase: strides 2 and 3, with dilation
and 1x1 kernels), padded, dilated and rectangular cases, and convolutions
with at least 8 filters per group (pixel-major products), in f32, and two
grouped strided cases in f16 and bf16.

Bounds: PyTorch's CPU convolution sums each output element in another order
than mp (which sums over (c, kh, kw), c outermost, for the forward and the
input gradient, and over (n, oh, ow) for the filter gradient), so f32
results agree to rounding: relative and absolute 1e-5. f16/bf16: mp extends the operands, accumulates in
f32 and rounds once, as the reference (PyTorch in f32, rounded once) does;
the sums differ in order only, so results are equal or 1 ulp apart (bounds
1e-3 for f16, 8e-3 for bf16, relative and absolute)."""

import torch
import torch.nn.functional as F

from torch_compare import OpCheck, main

torch.manual_seed(0)
NAMES = {torch.float32: 'f32', torch.float16: 'f16', torch.bfloat16: 'bf16'}
BOUNDS = {torch.float32: (1e-5, 1e-5), torch.float16: (1e-3, 1e-3),
          torch.bfloat16: (8e-3, 8e-3)}


def ty(shape, dtype):
    return 'tensor<' + 'x'.join(str(s) for s in shape) + 'x' + NAMES[dtype] + '>'


def conv_check(name, x_shape, w_shape, dtype, stride=(1, 1), padding=(0, 0),
               dilation=(1, 1), groups=1, bias=True):
    x = torch.randn(*x_shape).to(dtype)
    w = (torch.randn(*w_shape) * 0.5).to(dtype)
    inputs = [x, w]
    out = F.conv2d(x.float(), w.float(), None, stride, padding, dilation, groups)
    operands = '{in0}, {in1}'
    types = [ty(x_shape, dtype), ty(w_shape, dtype)]
    if bias:
        b = torch.randn(w_shape[0]).to(dtype)
        inputs.append(b)
        operands += ', {in2}'
        types.append(ty(b.shape, dtype))
    attrs = (f'{{padding = array<i64: {padding[0]}, {padding[1]}>, '
             f'strides = array<i64: {stride[0]}, {stride[1]}>, '
             f'dilation = array<i64: {dilation[0]}, {dilation[1]}>, '
             f'groups = {groups} : i64}}')
    body = (f'{{out0}} = mp.conv2d {operands} acc(f32) {attrs} : '
            f'({", ".join(types)}) -> {ty(out.shape, dtype)}')

    def reference(*args):
        return F.conv2d(args[0], args[1], args[2] if bias else None, stride,
                        padding, dilation, groups)
    return OpCheck(f'{name} {NAMES[dtype]}', reference, body, inputs,
                   bound=BOUNDS[dtype])


checks = [
    conv_check('grouped s2 p1', (2, 4, 9, 9), (6, 2, 3, 3), torch.float32,
               stride=(2, 2), padding=(1, 1), groups=2),
    conv_check('depthwise p1', (2, 4, 8, 8), (4, 1, 3, 3), torch.float32,
               padding=(1, 1), groups=4),
    conv_check('depthwise x2 s2 d2 p2', (2, 3, 10, 10), (6, 1, 3, 3),
               torch.float32, stride=(2, 2), padding=(2, 2), dilation=(2, 2),
               groups=3),
    conv_check('rectangular s(2,1) p(0,1)', (1, 2, 7, 9), (3, 2, 2, 3),
               torch.float32, stride=(2, 1), padding=(0, 1), bias=False),
    conv_check('dense s1 p0', (3, 3, 6, 6), (5, 3, 3, 3), torch.float32),
    # At least 8 filters per group: pixel-major products (forward, and with
    # 8 input channels per group the input gradient too).
    conv_check('grouped x8 s2 p1', (2, 16, 9, 9), (16, 8, 3, 3),
               torch.float32, stride=(2, 2), padding=(1, 1), groups=2),
    conv_check('dense x10 d(1,2) p1', (2, 3, 7, 8), (10, 3, 3, 3),
               torch.float32, padding=(1, 1), dilation=(1, 2)),
    # Strided input gradients, computed per phase (stride 3, dilation with
    # and without a common factor with the stride, 1x1 projections, a
    # padding that crops the gradient).
    conv_check('grouped x8 s3 d2 p2', (2, 16, 11, 11), (6, 8, 3, 3),
               torch.float32, stride=(3, 3), padding=(2, 2), dilation=(2, 2),
               groups=2),
    conv_check('dense s(3,2) d(1,3) p(1,2) k(2,3)', (2, 3, 10, 11),
               (5, 3, 2, 3), torch.float32, stride=(3, 2), padding=(1, 2),
               dilation=(1, 3)),
    conv_check('dense x8 s2 d2 p1', (2, 8, 10, 10), (4, 8, 3, 3),
               torch.float32, stride=(2, 2), padding=(1, 1), dilation=(2, 2)),
    conv_check('1x1 x8 s2', (2, 8, 8, 8), (16, 8, 1, 1), torch.float32,
               stride=(2, 2), bias=False),
    conv_check('1x1 s3 p1', (1, 3, 7, 7), (4, 3, 1, 1), torch.float32,
               stride=(3, 3), padding=(1, 1)),
]
for dtype in (torch.float16, torch.bfloat16):
    checks.append(conv_check('grouped s2 p1', (2, 4, 9, 9), (6, 2, 3, 3), dtype,
                             stride=(2, 2), padding=(1, 1), groups=2))
    checks.append(conv_check('grouped x8 s2 p1', (2, 16, 9, 9), (16, 8, 3, 3),
                             dtype, stride=(2, 2), padding=(1, 1), groups=2))
main(checks)
