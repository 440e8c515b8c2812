#!/usr/bin/env python3
"""mp.batch_norm against F.batch_norm (PyTorch 1.13, CPU): NCHW and [N, C]
inputs, with and without affine parameters, training and eval mode, f32,
f16 and bf16; the output, the new running statistics and num_batches_tracked
after one call, and the gradients of the input, weight and bias.

Bounds. f32: bit-identical (output, running statistics and the input,
weight and bias gradients): mp's lowering follows PyTorch's CPU kernels'
arithmetic (forward: f64 channel sums for H·W > 1, f32 sums with FMAs for
H·W = 1, y = fma(x, α, β); backward: the channels-last kernel's f32 sums
for H·W = 1, otherwise per-image 8-lane vector sums added in f64; see
lib/Conversion/MPToLinalg/BatchNorm.cpp). PyTorch runs on one thread here
(its H·W = 1 sums depend on the thread count). The shapes cover 1×1 and
2×2 maps (resnet18's last stages at 32×32 input), 4×4 (whole 8-lane
vectors), 5×5 (a partial last vector) and [N, C].
f16/bf16: the output is PyTorch's f32 function rounded once (harness
`upcast`), within 1 ulp of the type (the f32 values mp rounds differ from
PyTorch's f32 path by a few f32 ulps; measured: all identical); the running
statistics stay f32 and are compared with PyTorch's f32 statistics of the
same (widened) input, bit for bit; gradients within 2 ulps of the type."""

import torch
import torch.nn.functional as F

from torch_compare import OpCheck, main

torch.manual_seed(0)
torch.set_num_threads(1)
EPS = 1e-5
checks = []


def stats_type(c):
    return f'tensor<{c}xf32>'


def bn_body(x_type, c, affine, mode, extra=''):
    """The mp body: {in0} x, then [{in1} weight, {in2} bias], running mean,
    running var, count; results y, new mean, new var, new count."""
    s = stats_type(c)
    if affine:
        operands = '{in0} weight {in1} bias {in2} stats({in3}, {in4}, {in5})'
        types = f'{x_type}, {s}, {s}, {s}, {s}, tensor<i64>'
    else:
        operands = '{in0} stats({in1}, {in2}, {in3})'
        types = f'{x_type}, {s}, {s}, tensor<i64>'
    return (f'{{out0}}, {{out1}}, {{out2}}, {{out3}} = mp.batch_norm {operands} '
            f'{mode}{extra} : ({types}) -> ({x_type}, {s}, {s}, tensor<i64>)')


def torch_bn(affine, training, momentum=0.1, cumulative=False):
    def fn(x, *rest):
        if affine:
            w, b, rm, rv, n = rest
        else:
            (rm, rv, n), w, b = rest, None, None
        rm, rv = rm.detach().clone(), rv.detach().clone()
        m = momentum
        if training and cumulative:
            m = 1.0 / float(n + 1)
        y = F.batch_norm(x, rm, rv, w, b, training=training, momentum=m, eps=EPS)
        return y, rm, rv, n + 1 if training else n
    return fn


# The low types on the first two shapes only (the other shapes exercise the
# f32 backward's summation paths).
for shape in ((8, 4, 5, 5), (16, 6), (8, 12, 1, 1), (8, 6, 2, 2), (4, 3, 4, 4)):
    c = shape[1]
    low_types = len(shape) == 2 or shape[2] == 5
    for affine in (True, False):
        for training in (True, False):
            mode = 'training' if training else 'eval'
            for dtype, name in ((torch.float32, 'f32'), (torch.float16, 'f16'),
                                (torch.bfloat16, 'bf16')):
                if dtype != torch.float32 and not low_types:
                    continue
                x = (torch.randn(*shape) * 2 + 0.5).to(dtype)
                w = torch.randn(c)
                b = torch.randn(c)
                rm = torch.randn(c) * 0.1
                rv = torch.rand(c) + 0.5
                n = torch.tensor(3, dtype=torch.int64)
                x_type = f'tensor<{"x".join(map(str, shape))}x{name}>'
                params = [w, b] if affine else []
                inputs = [x] + params + [rm, rv, n]
                label = (f'batch_norm {"x".join(map(str, shape))} '
                         f'{"affine" if affine else "plain"} {mode} {name}')
                grad_inputs = list(range(1 + len(params)))
                if dtype == torch.float32:
                    checks.append(OpCheck(label, torch_bn(affine, training),
                                          bn_body(x_type, c, affine, mode), inputs,
                                          grad_inputs=grad_inputs, bound='exact'))
                    continue
                ulp = {'f16': 1e-3, 'bf16': 8e-3}[name]
                # The output and gradients, against PyTorch's f32 function
                # rounded once; the statistics results are not compared here
                # (the harness would round PyTorch's f32 statistics to the
                # low type).
                body = bn_body(x_type, c, affine, mode).replace(
                    '{out1}, {out2}, {out3}', '%s1, %s2, %s3')
                checks.append(OpCheck(
                    label, lambda *a, f=torch_bn(affine, training): f(*a)[0],
                    body, inputs, grad_inputs=grad_inputs,
                    bound=(ulp, ulp), grad_bound=(2 * ulp, 2 * ulp)))
                if training:
                    body = bn_body(x_type, c, affine, mode).replace(
                        '{out0}, {out1}, {out2}, {out3}',
                        '%y, {out0}, {out1}, {out2}')
                    checks.append(OpCheck(
                        label + ' statistics',
                        lambda x, *a, f=torch_bn(affine, training):
                            f(x.float(), *a)[1:],
                        body, inputs, grad=False, upcast=False))

# momentum=None: the cumulative average with factor 1/(num_batches_tracked+1);
# and another momentum.
x = torch.randn(8, 4, 5, 5)
rm, rv = torch.randn(4), torch.rand(4) + 0.5
n = torch.tensor(3, dtype=torch.int64)
checks.append(OpCheck('batch_norm cumulative_average f32',
                      torch_bn(False, True, cumulative=True),
                      bn_body('tensor<8x4x5x5xf32>', 4, False, 'training',
                              ' cumulative_average'),
                      [x, rm, rv, n], grad=False))
checks.append(OpCheck('batch_norm momentum 0.3 f32',
                      torch_bn(False, True, momentum=0.3),
                      bn_body('tensor<16x6xf32>', 6, False, 'training',
                              ' momentum 0.3'),
                      [torch.randn(16, 6), torch.randn(6), torch.rand(6) + 0.5, n],
                      grad=False))
main(checks)
