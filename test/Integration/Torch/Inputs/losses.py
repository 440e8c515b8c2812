#!/usr/bin/env python3
"""mp.cross_entropy (ignore_index, label_smoothing), mp.nll_loss (mean, sum,
none), both also in PyTorch's K-dimensional form, and mp.clip_grad_norm against PyTorch with torch_compare: forward and,
for the losses, backward through mp-autodiff, in f32 and with f16/bf16
inputs (PyTorch's f32 computation rounded once to the low type).

Bounds. The losses reduce over the batch in another order than PyTorch
(nll_loss sums with a cascade of partial sums, log_softmax rounds each
log-probability to f32 before nll_loss reads it, where mp forms
log Σ exp + max − x in one expression): f32 results within 4 f32 ulps
(rtol 5e-7) of PyTorch's; gradients, (softmax − target)·dl / K formed in
another order than log_softmax_backward, within rtol 1e-6 / atol 1e-8. f16
and bf16 results are the f32 value rounded once, so they match PyTorch's
rounded f32 value except where the f32 values round differently (then one
ulp of the low type). All-ignored targets give NaN as PyTorch. nll_loss
reads single log-probabilities: reduction none and its gradient are exact.

clip_grad_norm: the infinity norm and everything computed from it are
exact; the 2-norm sums squares sequentially in f32 where PyTorch's
vectorised norm kernel accumulates 8 lanes with fused multiply-adds, so the
norm is within rtol 1e-6 and the clipped gradients within rtol 2e-6 (when
clipping is inactive the coefficient is exactly 1 and they are exact).
"""

import torch
import torch.nn.functional as F

from torch_compare import OpCheck, main

torch.manual_seed(0)
N, C = 16, 10
checks = []


def labels(ignored=(), ignore_index=-100):
    y = torch.randint(0, C, (N,))
    for i in ignored:
        y[i] = ignore_index
    return y


F32 = (5e-7, 0.0)
GRAD = (1e-6, 1e-8)
ULP = {'f16': (1e-3, 1e-5), 'bf16': (8e-3, 1e-4)}
for dtype, name in ((torch.float32, 'f32'), (torch.float16, 'f16'),
                    (torch.bfloat16, 'bf16')):
    t = f'tensor<{N}x{C}x{name}>'
    bound = F32 if name == 'f32' else ULP[name]
    grad_bound = GRAD if name == 'f32' else ULP[name]
    variants = [('', {}, labels()),
                (' ignore_index', {}, labels(ignored=(1, 5, 6))),
                (' label_smoothing', {'label_smoothing': 0.1}, labels()),
                (' ignore_index label_smoothing', {'label_smoothing': 0.3, 'ignore_index': 2},
                 labels(ignored=(0, 3), ignore_index=2))]
    if name != 'f32':
        variants = variants[3:]
    for suffix, kwargs, y in variants:
        attrs = []
        if 'ignore_index' in kwargs:
            attrs.append(f'ignore_index = {kwargs["ignore_index"]} : i64')
        if 'label_smoothing' in kwargs:
            attrs.append(f'label_smoothing = {kwargs["label_smoothing"]} : f64')
        attr = ' {' + ', '.join(attrs) + '}' if attrs else ''
        x = (torch.randn(N, C) * 3).to(dtype)
        checks.append(OpCheck(
            f'cross_entropy{suffix} {name}',
            lambda x, y, kw=kwargs: F.cross_entropy(x, y, **kw),
            f'{{out0}} = mp.cross_entropy {{in0}}, {{in1}}{attr} : {t}, tensor<{N}xi64>',
            [x, y], bound=bound, grad_bound=grad_bound))

# Every target ignored: NaN loss (0/0) as PyTorch; the gradient is NaN on
# both sides too (dl/0).
y = torch.full((N,), -100)
checks.append(OpCheck(
    'cross_entropy all ignored f32', lambda x, y: F.cross_entropy(x, y),
    f'{{out0}} = mp.cross_entropy {{in0}}, {{in1}} : tensor<{N}x{C}xf32>, tensor<{N}xi64>',
    [torch.randn(N, C), y], bound='exact'))
checks.append(OpCheck(
    'cross_entropy all ignored label_smoothing f32',
    lambda x, y: F.cross_entropy(x, y, label_smoothing=0.2),
    f'{{out0}} = mp.cross_entropy {{in0}}, {{in1}} {{label_smoothing = 0.2 : f64}} : '
    f'tensor<{N}x{C}xf32>, tensor<{N}xi64>',
    [torch.randn(N, C), y], bound='exact'))

# nll_loss on log-probabilities.
for reduction, shape in (('mean', ''), ('sum', ''), ('none', f'{N}x')):
    for dtype, name in ((torch.float32, 'f32'), (torch.bfloat16, 'bf16')):
        if name == 'bf16' and reduction != 'mean':
            continue
        logp = torch.log_softmax(torch.randn(N, C), 1).to(dtype)
        y = labels(ignored=(2, 9))
        exact = reduction == 'none'
        bound = 'exact' if exact else (F32 if name == 'f32' else ULP[name])
        text = '' if reduction == 'mean' else f' reduction {reduction}'
        checks.append(OpCheck(
            f'nll_loss {reduction} {name}',
            lambda x, y, r=reduction: F.nll_loss(x, y, reduction=r),
            f'{{out0}} = mp.nll_loss {{in0}}, {{in1}}{text} : tensor<{N}x{C}x{name}>, '
            f'tensor<{N}xi64> -> tensor<{shape}{name}>',
            [logp, y], bound=bound,
            grad_bound='exact' if exact or reduction == 'sum' else
            (GRAD if name == 'f32' else ULP[name])))
checks.append(OpCheck(
    'nll_loss ignore_index 0 f32', lambda x, y: F.nll_loss(x, y, ignore_index=0),
    f'{{out0}} = mp.nll_loss {{in0}}, {{in1}} {{ignore_index = 0 : i64}} : '
    f'tensor<{N}x{C}xf32>, tensor<{N}xi64> -> tensor<f32>',
    [torch.log_softmax(torch.randn(N, C), 1), labels()], bound=F32, grad_bound=GRAD))


# PyTorch's K-dimensional form: [N, C, d1, d2] logits with [N, d1, d2]
# labels (the positions flattened, classes last).
xk = torch.randn(4, C, 3, 2) * 2
yk = torch.randint(0, C, (4, 3, 2))
yk[0, 1, 1] = -100
yk[3, 0, 0] = -100
checks.append(OpCheck(
    'cross_entropy K-dim ignore_index label_smoothing f32',
    lambda x, y: F.cross_entropy(x, y, label_smoothing=0.2),
    f'{{out0}} = mp.cross_entropy {{in0}}, {{in1}} {{label_smoothing = 0.2 : f64}} : '
    f'tensor<4x{C}x3x2xf32>, tensor<4x3x2xi64>',
    [xk, yk], bound=F32, grad_bound=GRAD))
logpk = torch.log_softmax(xk, 1)
checks.append(OpCheck(
    'nll_loss K-dim none f32', lambda x, y: F.nll_loss(x, y, reduction='none'),
    f'{{out0}} = mp.nll_loss {{in0}}, {{in1}} reduction none : tensor<4x{C}x3x2xf32>, '
    f'tensor<4x3x2xi64> -> tensor<4x3x2xf32>',
    [logpk, yk], bound='exact'))
checks.append(OpCheck(
    'nll_loss K-dim mean f32', lambda x, y: F.nll_loss(x, y),
    f'{{out0}} = mp.nll_loss {{in0}}, {{in1}} : tensor<4x{C}x3x2xf32>, '
    f'tensor<4x3x2xi64> -> tensor<f32>',
    [logpk, yk], bound=F32, grad_bound=GRAD))


def clip(max_norm, norm_type):
    def fn(*grads):
        grads = [g.detach().clone() for g in grads]
        params = []
        for g in grads:
            p = torch.zeros_like(g, requires_grad=True)
            p.grad = g
            params.append(p)
        total = torch.nn.utils.clip_grad_norm_(params, max_norm, norm_type)
        return tuple(p.grad for p in params) + (total,)
    return fn


g0, g1 = torch.randn(8, 16), torch.randn(24) * 0.1
types = 'tensor<8x16xf32>, tensor<24xf32>'
for max_norm, norm_type, state in ((1.0, 2.0, 'active'), (100.0, 2.0, 'inactive'),
                                   (0.5, float('inf'), 'active'),
                                   (10.0, float('inf'), 'inactive')):
    inf = norm_type == float('inf')
    text = ' norm_type inf' if inf else ''
    exact = inf
    checks.append(OpCheck(
        f'clip_grad_norm {"inf" if inf else "2"} {state}', clip(max_norm, norm_type),
        f'{{out0}}, {{out1}}, {{out2}} = mp.clip_grad_norm {{in0}}, {{in1}} '
        f'max_norm {max_norm}{text} : {types}',
        [g0, g1], grad=False,
        bound='exact' if exact else (2e-6, 0.0) if state == 'active' else (1e-6, 0.0)))

main(checks)
