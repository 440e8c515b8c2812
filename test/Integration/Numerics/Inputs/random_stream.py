"""The random ops executed on the CPU against the independent Python
reference of the bit stream (Integration/Inputs/philox.py, docs/Random.md):

- Philox4x32-10 itself against Random123's known-answer vectors;
- mp.random_bits bit for bit, for states whose block number crosses the
  32-bit counter word and whose offset wraps around 2^64, and the new state;
- mp.random_uniform in f32, f16 and bf16, bit for bit;
- mp.dropout (f32, f16, bf16; several p) bit for bit: the mask, the scaled
  kept elements and the new state; mp.dropout_grad with the same state
  regenerates the forward's mask exactly;
- mp.random_normal against NumPy's f32 Box-Muller within a stated bound (the
  draws are exact; log/sqrt/cos/sin differ between math libraries);
- every output identical, bit for bit, under each lowering given (linalg to
  loops, mp-cpu-pipeline with and without tiling and vectorisation): the bits
  do not depend on tiling.

usage: random_stream.py MP_OPT RUNNER LOWERING [LOWERING...]
Each LOWERING is "PASSES|LOWER": mp-opt passes before the lowering (e.g.
"--convert-mp-to-linalg") and the lowering to LLVM.
"""

import os
import shlex
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', 'Inputs'))
import mp_exec  # noqa: E402
import philox  # noqa: E402

U64 = (1 << 64) - 1


def signed64(value):
    value &= U64
    return value - (1 << 64) if value >> 63 else value


def state_input(seed, offset):
    return (np.array([signed64(seed), signed64(offset)], dtype=np.int64), 'i64')


def f32_to(element, values):
    """f32 values rounded (nearest even) to `element`, as bit patterns."""
    return mp_exec.to_bits(np.asarray(values, dtype=np.float32), element).astype(np.int64)


class Check:
    """A case and the function that checks its printed outputs (lists of
    integers) and returns a description, or raises AssertionError."""

    def __init__(self, case, check):
        self.case = case
        self.check = check


def bits_check(seed, offset, shape):
    n = int(np.prod(shape))
    body = ('{out0}, {out1} = mp.random_bits {in0} : '
            + mp_exec.mlir_type(shape, 'i32'))
    case = mp_exec.Case('bits', [state_input(seed, offset)], body,
                        [(shape, 'i32'), ((2,), 'i64')])

    def check(printed):
        got = np.array(printed[0], dtype=np.int64) & 0xFFFFFFFF
        want = philox.draws(seed, offset, n).astype(np.int64)
        assert np.array_equal(got, want), f'bits differ: {got[:8]} vs {want[:8]}'
        new = [v & U64 for v in printed[1]]
        assert new == [seed & U64, philox.advanced(offset, n)], f'state {new}'
        return (f'random_bits seed={seed & U64:#x} offset={offset & U64:#x} '
                f'n={n}: {n} draws equal, state +{philox.advanced(offset, n) - offset & U64}')
    return Check(case, check)


def uniform_check(seed, offset, shape, element, low, high):
    n = int(np.prod(shape))
    body = (f'{{out0}}, {{out1}} = mp.random_uniform {{in0}} low({low!r}) '
            f'high({high!r}) : ' + mp_exec.mlir_type(shape, element))
    case = mp_exec.Case('uniform', [state_input(seed, offset)], body,
                        [(shape, element), ((2,), 'i64')])

    def check(printed):
        want = f32_to(element, philox.uniform(seed, offset, n, low, high))
        got = np.array(printed[0], dtype=np.int64) & (0xFFFFFFFF if element == 'f32' else 0xFFFF)
        assert np.array_equal(got, want), f'{element} uniform differs'
        assert [v & U64 for v in printed[1]] == [seed, philox.advanced(offset, n)]
        return f'random_uniform {element} [{low}, {high}) n={n}: bit-identical'
    return Check(case, check)


def dropout_check(seed, offset, shape, element, p, rng):
    n = int(np.prod(shape))
    x = rng.standard_normal(shape).astype(np.float32)
    dy = rng.standard_normal(shape).astype(np.float32)
    xs = mp_exec.from_bits(mp_exec.to_bits(x, element), element).astype(np.float32)
    dys = mp_exec.from_bits(mp_exec.to_bits(dy, element), element).astype(np.float32)
    t = mp_exec.mlir_type(shape, element)
    body = (f'{{out0}}, {{out1}} = mp.dropout {{in0}}, {{in1}} p({p!r}) : {t}\n'
            f'  {{out2}} = mp.dropout_grad {{in2}}, {{in1}} p({p!r}) : {t}')
    case = mp_exec.Case('dropout', [(xs, element), state_input(seed, offset),
                                    (dys, element)], body,
                        [(shape, element), ((2,), 'i64'), (shape, element)])
    keep = philox.dropout_keep(seed, offset, n, p).reshape(shape)
    scale = np.float32(1.0 / (1.0 - p))

    def check(printed):
        mask = 0xFFFFFFFF if element == 'f32' else 0xFFFF
        y = np.array(printed[0], dtype=np.int64).reshape(shape) & mask
        dx = np.array(printed[2], dtype=np.int64).reshape(shape) & mask
        # PyTorch's x · mask · scale, in f32.
        maskf = keep.astype(np.float32)
        want_y = f32_to(element, (xs * maskf) * scale)
        want_dx = f32_to(element, (dys * maskf) * scale)
        assert np.array_equal(y, want_y), f'dropout {element} p={p} differs'
        assert np.array_equal(dx, want_dx), f'dropout_grad {element} p={p} differs'
        assert [v & U64 for v in printed[1]] == [seed, philox.advanced(offset, n)]
        return (f'dropout {element} p={p} n={n}: mask, values and gradient '
                f'bit-identical ({int(keep.sum())} kept)')
    return Check(case, check)


def normal_check(seed, offset, n, mean, std, bound):
    body = (f'{{out0}}, {{out1}} = mp.random_normal {{in0}} mean({mean!r}) '
            f'std({std!r}) : tensor<{n}xf32>')
    case = mp_exec.Case('normal', [state_input(seed, offset)], body,
                        [((n,), 'f32'), ((2,), 'i64')])

    def check(printed):
        got = mp_exec.from_bits(printed[0], 'f32')
        want = philox.normal(seed, offset, n, mean, std).astype(np.float64)
        err = np.max(np.abs(got - want) / std)
        assert err <= bound, f'normal error {err} > {bound}'
        assert [v & U64 for v in printed[1]] == [seed, philox.advanced(offset, n)]
        return f'random_normal n={n}: max |error|/std = {err:.1e} <= {bound:g}'
    return Check(case, check)


def main():
    mp_opt, runner = sys.argv[1], sys.argv[2]
    lowerings = sys.argv[3:]
    failures = 0
    if philox.main():
        failures += 1
    rng = np.random.default_rng(15)
    checks = [
        bits_check(0, 0, (4,)),
        bits_check(0, 0, (3, 5)),
        bits_check(U64, 8, (2, 3, 5)),
        bits_check(0x123456789ABCDEF0, (1 << 34) - 8, (37,)),
        bits_check(5, U64 - 7, (16,)),
        uniform_check(7, 0, (7, 9), 'f32', -2.0, 3.0),
        uniform_check(7, 64, (7, 9), 'f16', -2.0, 3.0),
        uniform_check(7, 128, (7, 9), 'bf16', 0.0, 1.0),
    ]
    for p in (0.1, 0.5, 0.9):
        for element in ('f32', 'f16', 'bf16'):
            checks.append(dropout_check(1234, 4096, (16, 33), element, p, rng))
    checks.append(normal_check(99, 12, 1001, 0.0, 1.0, 1e-5))
    checks.append(normal_check(99, 12, 64, 3.0, 0.5, 1e-5))

    module = mp_exec.build_module([c.case for c in checks])
    runs = []
    for lowering in lowerings:
        passes, lower = lowering.split('|', 1)
        runs.append(mp_exec.run_module(mp_opt, lower, runner, module,
                                       shlex.split(passes)))
    # The first lowering against the reference.
    printed = iter(runs[0])
    for c in checks:
        outputs = [next(printed) for _ in c.case.outputs]
        try:
            print(c.check(outputs))
        except AssertionError as error:
            failures += 1
            print('MISMATCH', c.case.name, error)
    for lowering, run in zip(lowerings[1:], runs[1:]):
        same = run == runs[0]
        failures += not same
        print(f'{"identical" if same else "DIFFERENT"} outputs under '
              f'{lowering.split("|")[1].split()[0]} ({len(run)} tensors)')
    print(f'{failures} failures')
    return 1 if failures else 0


if __name__ == '__main__':
    raise SystemExit(main())
