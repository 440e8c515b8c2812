#!/usr/bin/env python3
"""Checks FP8 quantisation with a per-tensor scale, as mp-fp8-scaling emits
it, bit for bit on the CPU.

For each case a scale s = mp.fp8_scale(history, old scale) is computed,
a table of f32 values x is quantised, q = mp.cast (mp.scale x by s) saturate,
and dequantised, d = mp.scale (mp.cast q to f32) by mp.div(1, s). The printed
bits of s, q and d are compared with an exact reference: the scale formula
(fp8_max / max(history)) / 2^margin in f32, keeping the old scale when the
amax is 0 or not finite; products and quotients rounded once to f32; FP8
rounding from float_conversions.py (nearest even, saturating). The tables
hold values that become FP8 subnormals or round to 0 after scaling, values
that saturate at 448 (E4M3FN) or 57344 (E5M2) because they exceed the
history's amax, infinities and NaN (which stays NaN: E4M3FN has no
infinity, and the saturating cast keeps NaN). The last cases add current
scaling's power_of_two (the scale rounded down to a power of two) and
amax_epsilon (max(amax, eps) in f32; a NaN amax still keeps the scale).

Usage: fp8_round_trip.py MP_OPT "LOWERING FLAGS" "MLIR_RUNNER COMMAND"
Prints one line per case; exits 1 on a mismatch.
"""

import math
import os
import struct
import sys
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from float_conversions import (F32, Format, f32_bits, int_list,  # noqa
                               print_functions, run)

E4M3 = Format('f8E4M3FN', 4, 3, True)
E5M2 = Format('f8E5M2', 5, 2, False)
INF, NAN = float('inf'), float('nan')


def f32(value):
    """Rounds a double to f32 (once: the double results of one f32 operation
    on f32 inputs round to the same f32 as the operation itself)."""
    return struct.unpack('<f', struct.pack('<f', value))[0]


def bits(value):
    return f32_bits(value) if value == value else 0x7FC00000


# (name, format, mnemonic, history, old scale, margin, table)
CASES = [
    ('e4m3 scale 448/2', E4M3, 'e4m3', [2.0, 0.5, 0.0, 1.0], 1.0, 0,
     [0.0, -0.0, 1.0, -1.3, 2.0, 2.1, 10.0, -10.0, 0.5, 1e-05, -3e-05,
      1e-06, 8.7e-06, 7.7e-03, 0.3333333, INF, -INF, NAN]),
    ('e4m3 margin 1', E4M3, 'e4m3', [0.75, 3.0, 0.0, 0.0], 1.0, 1,
     [3.0, 3.5, 6.0, 7.0, -6.5, 0.1, 2e-05, 4e-05, 1e-06, NAN]),
    ('e5m2 scale 57344/4', E5M2, 'e5m2', [4.0, 1.0, 0.0, 0.0], 1.0, 0,
     [4.0, 4.2, 5.0, -100.0, 1.0, 1e-09, 5e-09, 3e-09, 1.5e-08, -2.5e-07,
      0.7, INF, -INF, NAN]),
    ('amax 0 keeps the scale', E4M3, 'e4m3', [0.0, 0.0, 0.0, 0.0], 3.0, 0,
     [1.0, 100.0, 150.0, 1e-03]),
    ('amax NaN keeps the scale', E5M2, 'e5m2', [1.0, NAN, 2.0, 0.0], 3.0, 0,
     [1.0, 20000.0, 30000.0, 1e-06]),
    # Current scaling with Transformer Engine's QParams (power_2_scale,
    # amax_epsilon): (name, ..., table, epsilon, power of two).
    ('e4m3 power of two', E4M3, 'e4m3', [3.0], 1.0, 0,
     [1.0, 3.0, 2.5, -0.7, 1e-04, NAN], 0.0, True),
    ('e5m2 amax epsilon', E5M2, 'e5m2', [1e-30], 1.0, 0,
     [1e-30, 1e-3, 2e-3, -5e-4, 1e-09], 1e-3, False),
    ('e4m3 zero amax, epsilon, power of two', E4M3, 'e4m3', [0.0], 1.0, 0,
     [0.0, 1e-3, 3e-3, 5e-3], 3e-3, True),
    ('e4m3 NaN amax, epsilon', E4M3, 'e4m3', [NAN], 3.0, 0,
     [1.0, 100.0, 150.0], 1.0, True),
]
MAX = {'e4m3': 448.0, 'e5m2': 57344.0}


def f32_list(values):
    return int_list([bits(v) for v in values], 32)


def build_module():
    lines = ['func.func private @printMemrefI32(memref<*xi32>)']
    sizes = {1}
    body = []
    for k, case in enumerate(CASES):
        _, fmt, mnemonic, history, old, margin, table = case[:7]
        epsilon, power_of_two = case[7:] or (0.0, False)
        options = (f' amax_epsilon({epsilon!r})' if epsilon else '') + \
            (' power_of_two' if power_of_two else '')
        n, h = len(table), len(history)
        sizes.add(n)
        t8 = f'tensor<{n}x{fmt.name}>'
        body += [
            f'  %hi{k} = arith.constant dense<{f32_list(history)}> : tensor<{h}xi32>',
            f'  %h{k} = arith.bitcast %hi{k} : tensor<{h}xi32> to tensor<{h}xf32>',
            f'  %o{k} = arith.constant dense<{old!r}> : tensor<f32>',
            f'  %s{k} = mp.fp8_scale %h{k}, %o{k} format {mnemonic}{options} '
            f'{{margin = {margin} : i64}} : tensor<{h}xf32>',
            f'  %xi{k} = arith.constant dense<{f32_list(table)}> : tensor<{n}xi32>',
            f'  %x{k} = arith.bitcast %xi{k} : tensor<{n}xi32> to tensor<{n}xf32>',
            f'  %xs{k} = mp.scale %x{k} by %s{k} : tensor<{n}xf32>',
            f'  %q{k} = mp.cast %xs{k} saturate : tensor<{n}xf32> to {t8}',
            f'  %qf{k} = mp.cast %q{k} : {t8} to tensor<{n}xf32>',
            f'  %one{k} = arith.constant dense<1.0> : tensor<f32>',
            f'  %inv{k} = mp.div %one{k}, %s{k} : tensor<f32>, tensor<f32>',
            f'  %d{k} = mp.scale %qf{k} by %inv{k} : tensor<{n}xf32>',
            f'  %sr{k} = tensor.expand_shape %s{k} [] output_shape [1] : '
            f'tensor<f32> into tensor<1xf32>',
            f'  %sb{k} = arith.bitcast %sr{k} : tensor<1xf32> to tensor<1xi32>',
            f'  call @print1(%sb{k}) : (tensor<1xi32>) -> ()',
            f'  %qb{k} = arith.bitcast %q{k} : {t8} to tensor<{n}xi8>',
            f'  %qp{k} = arith.extui %qb{k} : tensor<{n}xi8> to tensor<{n}xi32>',
            f'  call @print{n}(%qp{k}) : (tensor<{n}xi32>) -> ()',
            f'  %db{k} = arith.bitcast %d{k} : tensor<{n}xf32> to tensor<{n}xi32>',
            f'  call @print{n}(%db{k}) : (tensor<{n}xi32>) -> ()',
        ]
    lines += print_functions(sizes)
    lines += ['func.func @main() {'] + body + ['  return', '}']
    return '\n'.join(lines) + '\n'


def reference_scale(history, old, margin, mnemonic, epsilon=0.0,
                    power_of_two=False):
    amax = NAN if any(v != v for v in history) else max(history)
    if amax == amax:
        amax = max(amax, f32(epsilon))
    if amax == 0 or amax != amax or amax == INF:
        return old
    scale = f32(f32(MAX[mnemonic] / amax) / 2.0 ** margin)
    if abs(scale) == INF:
        return old
    if power_of_two:
        # The largest power of two not above the scale (a normal f32).
        scale = math.ldexp(1.0, math.frexp(scale)[1] - 1)
    return scale


def main():
    outputs = run(*sys.argv[1:4], build_module())
    if len(outputs) != 3 * len(CASES):
        sys.exit(f'expected {3 * len(CASES)} printed tensors, got {len(outputs)}')
    failures = 0
    for k, case in enumerate(CASES):
        name, fmt, mnemonic, history, old, margin, table = case[:7]
        got_scale, got_codes, got_values = outputs[3 * k:3 * k + 3]
        scale = reference_scale(history, old, margin, mnemonic, *case[7:])
        inverse = f32(1.0 / scale)
        mismatches = []
        if got_scale != [bits(scale)]:
            mismatches.append(f'scale {got_scale[0]:#010x}, expected {scale!r}')
        saturated = subnormal = nan = 0
        for x, code, value_bits in zip(table, got_codes, got_values):
            product = f32(x * scale)
            expected = fmt.round(*F32.decode(bits(product)), True)
            if expected is None:  # NaN: any NaN of either sign
                ok = fmt.decode(code)[0] == 'nan' and \
                    F32.decode(value_bits)[0] == 'nan'
                nan += 1
            else:
                kind, q, negative = fmt.decode(expected)
                dequantised = f32(float(q) * inverse) * (-1 if negative else 1)
                ok = code == expected and value_bits == bits(dequantised)
                magnitude = expected & (fmt.sign_bit - 1)
                saturated += magnitude == fmt.max_code and \
                    abs(product) > float(q)
                subnormal += 0 < magnitude < (1 << fmt.m)
            if not ok:
                mismatches.append(f'{x!r} -> code {code:#x} value '
                                  f'{value_bits:#010x}, expected {expected}')
        print(f'{name}: scale {scale!r}, {len(table)} values '
              f'({saturated} saturated, {subnormal} subnormal, {nan} NaN), '
              f'{len(mismatches)} mismatches')
        for line in mismatches[:10]:
            print('  ' + line)
        failures += len(mismatches)
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()
