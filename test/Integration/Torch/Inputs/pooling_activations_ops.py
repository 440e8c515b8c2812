#!/usr/bin/env python3
"""Pooling, selection, comparison, the activations of MPActivationOps.td and
integer shape ops against PyTorch with torch_compare: forward and backward in
f32, f16 and bf16 (f16/bf16: PyTorch's f32 computation rounded once, which
is what mp computes).

Bounds. Bit for bit: max_pool2d (forward and gradient, with ties from relu
zeros and small integers, NaN and -inf windows, padding, dilation and
ceil_mode), avg_pool2d and adaptive_avg_pool2d (the f32 window sum in
PyTorch's row-major order and its divisor rule; the gradients' f32 sums in
its window order), select, compare, stop_gradient, clamp (relu6, hardtanh,
inclusive and exclusive gradients at the bounds), hardswish, hardsigmoid,
leaky_relu and abs, with inputs at every kink (±3, ±0, the clamp bounds) and
NaN. silu and erf use exp/erf, whose f32 libm results differ from PyTorch's
vectorised ones by a few ulps: within 4e-6 relative (f32) and one ulp of the
type for f16/bf16 (1e-3, 8e-3 relative). Cross entropy over flattened integer
labels: the existing loss's bound (1e-5)."""

import torch
import torch.nn.functional as F

from torch_compare import OpCheck, main

torch.manual_seed(0)
NAN = float('nan')
INF = float('inf')
checks = []


def t4(shape, name):
    return 'tensor<' + 'x'.join(str(d) for d in shape) + f'x{name}>'


def with_kinks(n, dtype, kinks):
    """n values: the kinks first, then random values around them."""
    base = torch.tensor(kinks, dtype=torch.float32)
    rest = torch.randn(n - len(kinks)) * 4
    return torch.cat([base, rest]).reshape(4, n // 4).to(dtype)


for dtype, name in ((torch.float32, 'f32'), (torch.float16, 'f16'),
                    (torch.bfloat16, 'bf16')):
    ulp = {'f32': 4e-6, 'f16': 1e-3, 'bf16': 8e-3}[name]

    # max_pool2d: random values, ties after relu, small integers (many ties).
    shape = (2, 3, 9, 9)
    inputs = {
        'random': torch.randn(shape),
        'relu ties': torch.relu(torch.randn(shape)),
        'integer ties': torch.randint(-2, 3, shape).float(),
    }
    for label, x in inputs.items():
        x = x.to(dtype)
        checks.append(OpCheck(
            f'max_pool2d k3 s2 p1 {label} {name}',
            lambda x: F.max_pool2d(x, 3, stride=2, padding=1),
            f'{{out0}} = mp.max_pool2d {{in0}} kernel [3, 3] stride [2, 2] padding [1, 1] : {t4(shape, name)}',
            [x]))
        checks.append(OpCheck(
            f'max_pool2d dilation ceil_mode {label} {name}',
            lambda x: F.max_pool2d(x, (3, 2), stride=(2, 1), padding=(1, 0),
                                   dilation=(2, 1), ceil_mode=True),
            f'{{out0}} = mp.max_pool2d {{in0}} kernel [3, 2] stride [2, 1] padding [1, 0] dilation [2, 1] ceil_mode : {t4(shape, name)}',
            [x]))
        checks.append(OpCheck(
            f'max_pool2d k2 ceil_mode overlap {label} {name}',
            lambda x: F.max_pool2d(x, 3, stride=2, ceil_mode=True),
            f'{{out0}} = mp.max_pool2d {{in0}} kernel [3, 3] stride [2, 2] ceil_mode : {t4(shape, name)}',
            [x]))

    # NaN (the last NaN of a window gets the gradient) and all -inf windows.
    x = torch.randint(-2, 3, (1, 2, 6, 6)).float()
    x[0, 0, 0, 1] = NAN
    x[0, 0, 1, 0] = NAN
    x[0, 0, 2:4, 2:4] = -INF
    x[0, 1, 0:2, 0:2] = -INF
    x = x.to(dtype)
    checks.append(OpCheck(
        f'max_pool2d NaN -inf {name}',
        lambda x: F.max_pool2d(x, 2, stride=2),
        f'{{out0}} = mp.max_pool2d {{in0}} kernel [2, 2] : {t4((1, 2, 6, 6), name)}',
        [x]))

    # avg_pool2d: count_include_pad, ceil_mode windows past the padding,
    # divisor_override.
    shape = (2, 3, 7, 7)
    x = torch.randn(shape).to(dtype)
    t = t4(shape, name)
    checks.append(OpCheck(
        f'avg_pool2d k3 s2 p1 {name}',
        lambda x: F.avg_pool2d(x, 3, stride=2, padding=1),
        f'{{out0}} = mp.avg_pool2d {{in0}} kernel [3, 3] stride [2, 2] padding [1, 1] : {t}',
        [x]))
    checks.append(OpCheck(
        f'avg_pool2d ceil_mode count_include_pad {name}',
        lambda x: F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True),
        f'{{out0}} = mp.avg_pool2d {{in0}} kernel [3, 3] stride [2, 2] padding [1, 1] ceil_mode : {t}',
        [x]))
    checks.append(OpCheck(
        f'avg_pool2d ceil_mode exclude pad {name}',
        lambda x: F.avg_pool2d(x, (3, 2), stride=(2, 2), padding=(1, 1),
                               ceil_mode=True, count_include_pad=False),
        f'{{out0}} = mp.avg_pool2d {{in0}} kernel [3, 2] stride [2, 2] padding [1, 1] ceil_mode count_include_pad false : {t}',
        [x]))
    checks.append(OpCheck(
        f'avg_pool2d divisor_override {name}',
        lambda x: F.avg_pool2d(x, 2, stride=1, divisor_override=3),
        f'{{out0}} = mp.avg_pool2d {{in0}} kernel [2, 2] stride [1, 1] divisor 3 : {t}',
        [x]))

    # adaptive_avg_pool2d: overlapping uneven windows, and a global pool.
    x = torch.randn(2, 3, 7, 5).to(dtype)
    checks.append(OpCheck(
        f'adaptive_avg_pool2d 7x5 to 3x2 {name}',
        lambda x: F.adaptive_avg_pool2d(x, (3, 2)),
        f'{{out0}} = mp.adaptive_avg_pool2d {{in0}} output_size [3, 2] : {t4((2, 3, 7, 5), name)}',
        [x]))
    # The global pool is PyTorch's mean over H·W, whose summation order mp
    # does not reproduce: within 1e-6 relative in f32; its gradient (dy/(H·W))
    # is exact.
    x = torch.randn(2, 4, 6, 6).to(dtype)
    checks.append(OpCheck(
        f'adaptive_avg_pool2d global {name}',
        lambda x: F.adaptive_avg_pool2d(x, 1),
        f'{{out0}} = mp.adaptive_avg_pool2d {{in0}} output_size [1, 1] : {t4((2, 4, 6, 6), name)}',
        [x], bound=(1e-6, 1e-7) if name == 'f32' else 'exact', grad_bound='exact'))

    # Activations: at their kinks (exactly ±3, ±0, the clamp bounds, NaN) in
    # a 3x4 tensor, which PyTorch's CPU computes with its scalar kernels
    # (the reference semantics, shared with its CUDA kernels; its vectorised
    # CPU kernels differ for hardswish at x = 3 and for NaN in hardswish and
    # hardtanh), and on random values in a 4x8 tensor (the vectorised path).
    kinks = torch.tensor([-4.0, -3.0, -1.0, -0.0, 0.0, 1.0, 3.0, 6.0, 7.0, NAN,
                          -6.0, 0.5]).reshape(3, 4).to(dtype)
    dense = (torch.randn(4, 8) * 4).to(dtype)
    for shape, x in (((3, 4), kinks), ((4, 8), dense)):
        t = t4(shape, name)
        label_shape = 'kinks' if shape == (3, 4) else 'random'
        for label, fn, body in (
            ('relu6', F.relu6, 'mp.clamp {in0} min 0.0 max 6.0 hardtanh'),
            ('hardtanh', F.hardtanh, 'mp.clamp {in0} min -1.0 max 1.0 hardtanh'),
            ('clamp', lambda x: torch.clamp(x, 0.0, 6.0), 'mp.clamp {in0} min 0.0 max 6.0'),
            ('clamp min', lambda x: torch.clamp(x, min=-1.0), 'mp.clamp {in0} min -1.0'),
            ('clamp max', lambda x: torch.clamp(x, max=3.0), 'mp.clamp {in0} max 3.0'),
            ('hardswish', F.hardswish, 'mp.hardswish {in0}'),
            ('hardsigmoid', F.hardsigmoid, 'mp.hardsigmoid {in0}'),
            ('leaky_relu', lambda x: F.leaky_relu(x, 0.2), 'mp.leaky_relu {in0} negative_slope 0.2'),
            ('leaky_relu default', F.leaky_relu, 'mp.leaky_relu {in0}'),
            ('abs', torch.abs, 'mp.abs {in0}'),
        ):
            checks.append(OpCheck(f'{label} {label_shape} {name}', fn,
                                  f'{{out0}} = {body} : {t}', [x]))
        for label, fn, body in (('silu', F.silu, 'mp.silu {in0}'),
                                ('erf', torch.erf, 'mp.erf {in0}')):
            checks.append(OpCheck(f'{label} {label_shape} {name}', fn,
                                  f'{{out0}} = {body} : {t}', [x], bound=(ulp, ulp)))
    t = t4((4, 8), name)

    # select with broadcasting of all three operands.
    c = torch.rand(4, 1) > 0.5
    a = torch.randn(4, 8).to(dtype)
    b = torch.randn(8).to(dtype)
    checks.append(OpCheck(
        f'select broadcast {name}', torch.where,
        f'{{out0}} = mp.select {{in0}}, {{in1}}, {{in2}} : tensor<4x1xi1>, {t}, tensor<8x{name}>',
        [c, a, b]))

    # compare: every predicate, with NaN and ±0 among the operands.
    a = torch.tensor([1.0, NAN, -0.0, 2.0, 3.0, NAN, 0.0, -1.0]).repeat(4, 1).to(dtype)
    b = torch.tensor([1.0, 1.0, 0.0, 3.0, 2.0, NAN, -0.0, -1.0]).to(dtype)
    for predicate in ('eq', 'ne', 'lt', 'le', 'gt', 'ge'):
        checks.append(OpCheck(
            f'compare {predicate} {name}', getattr(torch, predicate),
            f'{{out0}} = mp.compare {predicate}, {{in0}}, {{in1}} : {t}, tensor<8x{name}>',
            [a, b], grad=False))

    # stop_gradient: x · detach(x) has gradient dy · x.
    x = torch.randn(4, 8).to(dtype)
    checks.append(OpCheck(
        f'stop_gradient {name}', lambda x: x * x.detach(),
        f'%c = mp.stop_gradient {{in0}} : {t}\n'
        f'  {{out0}} = mp.mul {{in0}}, %c : {t}, {t}',
        [x]))

# Integer compare, select of integers.
i = torch.randint(-3, 3, (4, 8))
j = torch.randint(-3, 3, (8,))
for predicate in ('eq', 'lt', 'ge'):
    checks.append(OpCheck(
        f'compare {predicate} i64', getattr(torch, predicate),
        f'{{out0}} = mp.compare {predicate}, {{in0}}, {{in1}} : tensor<4x8xi64>, tensor<8xi64>',
        [i, j], grad=False))
b1 = torch.rand(4, 8) > 0.5
b2 = torch.rand(8) > 0.5
for predicate in ('lt', 'ge'):
    checks.append(OpCheck(
        f'compare {predicate} i1', getattr(torch, predicate),
        f'{{out0}} = mp.compare {predicate}, {{in0}}, {{in1}} : tensor<4x8xi1>, tensor<8xi1>',
        [b1, b2], grad=False))
checks.append(OpCheck(
    'select i32', torch.where,
    '{out0} = mp.select {in0}, {in1}, {in2} : tensor<4x8xi1>, tensor<4x8xi32>, tensor<8xi32>',
    [torch.rand(4, 8) > 0.5, i.int(), j.int()], grad=False))

# Labels [B, T] flattened to [B·T] for cross entropy over [B·T, C] logits.
logits = torch.randn(2, 3, 5)
labels = torch.randint(0, 5, (2, 3))
checks.append(OpCheck(
    'cross_entropy flattened labels f32',
    lambda lg, lb: F.cross_entropy(lg.reshape(6, 5), lb.reshape(6)),
    '%l = mp.reshape {in0} : tensor<2x3x5xf32> to tensor<6x5xf32>\n'
    '  %t = mp.reshape {in1} : tensor<2x3xi64> to tensor<6xi64>\n'
    '  {out0} = mp.cross_entropy %l, %t : tensor<6x5xf32>, tensor<6xi64>',
    [logits, labels], bound=(1e-5, 1e-6)))
# Integer transpose, slice, concat and broadcast (forward only: no gradient).
m = torch.rand(4, 8) > 0.5
checks.append(OpCheck(
    'integer shape ops',
    lambda lb, m, k: (lb.reshape(6), m.t(), lb[:, 1:3], torch.cat([k, k]),
                      k.broadcast_to(3, 8)),
    '{out0} = mp.reshape {in0} : tensor<2x3xi64> to tensor<6xi64>\n'
    '  {out1} = mp.transpose {in1} perm [1, 0] : tensor<4x8xi1>\n'
    '  {out2} = mp.slice {in0} offsets [0, 1] sizes [2, 2] strides [1, 1] : tensor<2x3xi64>\n'
    '  {out3} = mp.concat {in2}, {in2} dim 0 : tensor<8xi32>, tensor<8xi32>\n'
    '  {out4} = mp.broadcast {in2} : tensor<8xi32> to tensor<3x8xi32>',
    [labels, m, j.int()], grad=False))
main(checks)
