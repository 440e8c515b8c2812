"""Statistics of the random ops executed on the CPU (mp-cpu-pipeline):

- mp.dropout of 2^16 ones for p in {0.05, 0.1, 0.3, 0.5, 0.7, 0.9}: the number
  of kept elements within 5 binomial standard deviations of N·(1 − p), every
  kept element exactly f32(1/(1 − p)), every other +0; successive dropouts
  (state threaded) draw different masks whose overlap is also binomial;
- mp.random_uniform [−1, 3): the sample mean and variance within 5 standard
  errors of 1 and 4/3, min >= −1, max < 3;
- mp.random_normal (mean 2, std 0.5): the sample mean, variance and the
  fraction within one std within 5 standard errors.

usage: random_statistics.py MP_OPT LOWERING RUNNER
"""

import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', 'Inputs'))
import mp_exec  # noqa: E402

N = 1 << 16
PS = (0.05, 0.1, 0.3, 0.5, 0.7, 0.9)


def main():
    mp_opt, lowering, runner = sys.argv[1:4]
    state = (np.array([2024, 0], dtype=np.int64), 'i64')
    ones = (np.ones(N, dtype=np.float32), 'f32')
    t = f'tensor<{N}xf32>'
    cases = []
    for p in PS:
        cases.append(mp_exec.Case(
            f'dropout {p}', [ones, state],
            f'{{out0}}, %s1 = mp.dropout {{in0}}, {{in1}} p({p!r}) : {t}\n'
            f'  {{out1}}, %s2 = mp.dropout {{in0}}, %s1 p({p!r}) : {t}',
            [((N,), 'f32'), ((N,), 'f32')]))
    cases.append(mp_exec.Case(
        'uniform', [state],
        f'{{out0}}, %s1 = mp.random_uniform {{in0}} low(-1.0) high(3.0) : {t}',
        [((N,), 'f32')]))
    cases.append(mp_exec.Case(
        'normal', [state],
        f'{{out0}}, %s1 = mp.random_normal {{in0}} mean(2.0) std(0.5) : {t}',
        [((N,), 'f32')]))
    results = mp_exec.execute(cases, mp_opt, lowering, runner)
    failures = 0

    def report(ok, text):
        nonlocal failures
        failures += not ok
        print(('' if ok else 'FAIL ') + text)

    for p, (first, second) in zip(PS, results):
        scale = float(np.float32(1.0 / (1.0 - p)))
        sigma = math.sqrt(N * p * (1 - p))
        for name, y in (('first', first), ('second', second)):
            kept = int(np.count_nonzero(y))
            z = (kept - N * (1 - p)) / sigma
            values_ok = bool(np.all((y == scale) | ((y == 0) & ~np.signbit(y))))
            report(abs(z) <= 5 and values_ok,
                   f'dropout p={p} {name}: kept {kept}/{N}, '
                   f'|z| = {abs(z):.2f} <= 5, kept values exactly '
                   f'f32(1/(1-p)), others +0: {values_ok}')
        # Independent masks: both kept with probability (1 - p)².
        both = int(np.count_nonzero((first != 0) & (second != 0)))
        q = (1 - p) ** 2
        z = (both - N * q) / math.sqrt(N * q * (1 - q))
        report(abs(z) <= 5, f'dropout p={p} successive masks: both kept '
               f'{both}, |z| = {abs(z):.2f} <= 5')

    [u] = results[len(PS)]
    mean_z = (u.mean() - 1.0) / math.sqrt(16 / 12 / N)
    # Var of the sample variance of U(a, b): (μ4 − σ⁴)/N, μ4 = (b−a)⁴/80.
    var = 16 / 12
    var_z = (u.var() - var) / math.sqrt((256 / 80 - var ** 2) / N)
    report(abs(mean_z) <= 5 and abs(var_z) <= 5 and u.min() >= -1 and u.max() < 3,
           f'uniform [-1, 3): mean |z| = {abs(mean_z):.2f}, variance '
           f'|z| = {abs(var_z):.2f} <= 5, range ok')
    [n] = results[len(PS) + 1]
    mean_z = (n.mean() - 2.0) / (0.5 / math.sqrt(N))
    var_z = (n.var() - 0.25) / (0.25 * math.sqrt(2 / N))
    inside = np.mean(np.abs(n - 2.0) < 0.5)
    p1 = math.erf(1 / math.sqrt(2))
    in_z = (inside - p1) / math.sqrt(p1 * (1 - p1) / N)
    report(max(abs(mean_z), abs(var_z), abs(in_z)) <= 5,
           f'normal (2, 0.5): mean |z| = {abs(mean_z):.2f}, variance '
           f'|z| = {abs(var_z):.2f}, within one std |z| = {abs(in_z):.2f} <= 5')
    print(f'{failures} failures')
    return 1 if failures else 0


if __name__ == '__main__':
    raise SystemExit(main())
