"""The input gradient of strided convolutions (mp.conv2d_grad_input with
strides, lowered per phase without the zeros of the dilated gradient,
lib/Conversion/MPToLinalg/LinearAlgebra.cpp buildPhasedGradInput) against
the zero-dilated formulation it replaced, bit for bit: the same op with
stride 1 applied to the gradient dilated with zeros in NumPy (dY[i] at
position i·s, zeros between and after, to the length H + 2p − d(K−1) a
stride-1 convolution of H rows needs), which is what the lowering computed
before. Both sum each element's nonzero terms in the same order (over (f,
kh, kw), f outermost) and the products with the zeros add ±0 to an
accumulator that is never −0, so for finite weights every bit agrees.

Cases: strides 2, 3, 4 and rectangular (3, 2); padding; dilations with and
without a common factor with the stride (taps of every phase, or whole
phases without taps); even and 1x1 kernels; grouped, depthwise and
pixel-major (at least 8 channels per group) products; a padding larger than
the kernel's reach (the gradient cropped); in f32, and f16 and
bf16 operands accumulating in f32.

usage: conv_grad_input_phases.py MP_OPT RUNNER LOWERING [LOWERING...]
LOWERING is "PASSES|LOWER" as for vectorize_identity.py. Prints one line per
case and lowering, and the number of failures.
"""

import os
import shlex
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', 'Inputs'))
import mp_exec  # noqa: E402

# name, input [N, C, H, W], filter [F, C/G, KH, KW], strides, padding,
# dilation, groups
CASES = [
    ('s2 p1', (2, 4, 9, 9), (6, 4, 3, 3), (2, 2), (1, 1), (1, 1), 1),
    ('s3 p2 d2', (2, 3, 11, 11), (5, 3, 3, 3), (3, 3), (2, 2), (2, 2), 1),
    ('s2 d2 (phases without taps)', (1, 3, 10, 10), (4, 3, 3, 3), (2, 2),
     (1, 1), (2, 2), 1),
    ('s4 d2 k4 p3', (1, 2, 13, 13), (3, 2, 4, 4), (4, 4), (3, 3), (2, 2), 1),
    ('s(3,2) p(0,1) d(1,3) k(2,3)', (2, 3, 10, 11), (4, 3, 2, 3), (3, 2),
     (0, 1), (1, 3), 1),
    ('grouped x8 s2 p1', (2, 16, 9, 9), (6, 8, 3, 3), (2, 2), (1, 1), (1, 1),
     2),
    ('grouped x8 s3 p1 d2', (1, 16, 10, 10), (4, 8, 3, 3), (3, 3), (1, 1),
     (2, 2), 2),
    ('depthwise s2 d2 p2', (2, 4, 10, 10), (8, 1, 3, 3), (2, 2), (2, 2),
     (2, 2), 4),
    ('1x1 s2', (2, 8, 8, 8), (16, 8, 1, 1), (2, 2), (0, 0), (1, 1), 1),
    ('1x1 s3 grouped', (1, 6, 7, 7), (9, 2, 1, 1), (3, 3), (0, 0), (1, 1), 3),
    ('1x1 s2 p1 (cropped)', (1, 3, 6, 6), (4, 3, 1, 1), (2, 2), (1, 1), (1, 1),
     1),
]


def t(shape, element):
    return mp_exec.mlir_type(shape, element)


def make_case(name, x_shape, w_shape, strides, padding, dilation, groups, ct,
              rng):
    n, c, *spatial = x_shape
    f, _, *kernel = w_shape
    out = [(spatial[i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1)
           // strides[i] + 1 for i in range(2)]
    dy = rng.standard_normal((n, f, *out)).astype(np.float32)
    w = (rng.standard_normal(w_shape) / 2).astype(np.float32)
    if ct != 'f32':  # values of the compute type, so the casts are exact
        dy = mp_exec.from_bits(mp_exec.to_bits(dy, ct), ct).astype(np.float32)
        w = mp_exec.from_bits(mp_exec.to_bits(w, ct), ct).astype(np.float32)
    length = [spatial[i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1)
              for i in range(2)]
    dilated = np.zeros((n, f, *length), np.float32)
    dilated[:, :, ::strides[0], ::strides[1]][:, :, :out[0], :out[1]] = dy
    assert (dilated[:, :, ::strides[0], ::strides[1]][:, :, :out[0], :out[1]]
            == dy).all()
    dy_shape, dil_shape = (n, f, *out), (n, f, *length)
    lines = []
    operands = []
    for i, shape in enumerate((dy_shape, w_shape, dil_shape)):
        value = '{in%d}' % i
        if ct != 'f32':
            lines.append(f'%v{i} = mp.cast {value} : {t(shape, "f32")} to '
                         f'{t(shape, ct)}')
            value = f'%v{i}'
        operands.append(value)

    def grad_input(result, dy_value, shape, s):
        attrs = (f'padding = array<i64: {padding[0]}, {padding[1]}>, '
                 f'strides = array<i64: {s[0]}, {s[1]}>, '
                 f'dilation = array<i64: {dilation[0]}, {dilation[1]}>, '
                 f'groups = {groups} : i64')
        lines.append(f'{result} = mp.conv2d_grad_input {dy_value}, '
                     f'{operands[1]} acc(f32) {{{attrs}}} : '
                     f'({t(shape, ct)}, {t(w_shape, ct)}) -> '
                     f'{t(x_shape, ct)}')

    grad_input('{out0}', operands[0], dy_shape, strides)
    grad_input('{out1}', operands[2], dil_shape, (1, 1))
    inputs = [(dy, 'f32'), (w, 'f32'), (dilated, 'f32')]
    return mp_exec.Case(name, inputs, '\n  '.join(lines),
                        [(x_shape, ct), (x_shape, ct)])


def main():
    mp_opt, runner = sys.argv[1], sys.argv[2]
    lowerings = sys.argv[3:]
    rng = np.random.default_rng(17)
    cases = [(f'{spec[0]} {ct}', make_case(*spec, ct, rng))
             for ct in ('f32', 'f16', 'bf16') for spec in CASES]
    module = mp_exec.build_module([case for _, case in cases])
    failures = 0
    for lowering in lowerings:
        passes, lower = lowering.split('|', 1)
        printed = mp_exec.run_module(mp_opt, lower, runner, module,
                                     shlex.split(passes))
        for k, (name, case) in enumerate(cases):
            phased, dilated = printed[2 * k], printed[2 * k + 1]
            element = case.outputs[0][1]
            values = mp_exec.from_bits(phased, element)
            ok = (phased == dilated and np.isfinite(values).all()
                  and np.count_nonzero(values) > 0)
            failures += not ok
            print(f'{"ok" if ok else "FAIL"} {name} under {lower.split()[0]}')
    print(f'{failures} failures')
    return 1 if failures else 0


if __name__ == '__main__':
    raise SystemExit(main())
