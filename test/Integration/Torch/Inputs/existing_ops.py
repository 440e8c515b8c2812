#!/usr/bin/env python3
"""Ops that existed before the PyTorch comparisons, checked against PyTorch
with torch_compare: the harness itself is exercised on f32, f16 and bf16
forward and backward. Bounds: f32 elementwise ops are exact where PyTorch's
CPU kernel computes the same f32 formula (relu, mul, add); transcendental
functions are within a few f32 ulps (libm vs PyTorch's vectorised
SLEEF-style kernels); f16/bf16 results are the f32 function rounded once,
which PyTorch's CPU kernels also do for these ops, so they match bit for bit
except where the f32 values round differently (then 1 ulp of the type)."""

import torch
import torch.nn.functional as F

from torch_compare import OpCheck, main

torch.manual_seed(0)
checks = []
for dtype, name in ((torch.float32, 'f32'), (torch.float16, 'f16'),
                    (torch.bfloat16, 'bf16')):
    x = torch.randn(4, 8).to(dtype)
    y = torch.randn(8).to(dtype)
    t = f'tensor<4x8x{name}>'
    checks.append(OpCheck(f'relu {name}', F.relu,
                          f'{{out0}} = mp.relu {{in0}} : {t}', [x]))
    ulp = {'f32': 1e-6, 'f16': 1e-3, 'bf16': 8e-3}[name]
    # The broadcast operand's gradient: mp rounds dy·x to the type, then sums
    # in f32 and rounds once; PyTorch (upcast) rounds only the sum.
    checks.append(OpCheck(f'mul broadcast {name}', torch.mul,
                          f'{{out0}} = mp.mul {{in0}}, {{in1}} : {t}, tensor<8x{name}>',
                          [x, y], grad_bound=(4 * ulp, 4 * ulp)))
    checks.append(OpCheck(f'sigmoid {name}', torch.sigmoid,
                          f'{{out0}} = mp.sigmoid {{in0}} : {t}', [x],
                          bound=(ulp, ulp)))
main(checks)
