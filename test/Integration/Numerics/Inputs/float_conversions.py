#!/usr/bin/env python3
"""Checks the float conversions of convert-mp-to-linalg bit for bit on the CPU.

mp.cast between f32 and f16, bf16, f8E5M2 and f8E4M3FN (plain and
saturating) is lowered with convert-mp-to-linalg and the CPU lowering given on
the command line, executed with mlir-runner, and every result is compared
with an exact reference computed here with fractions: round to nearest, ties
to the even encoding, over a table of f32 inputs (every value of each format,
the midpoints between neighbours and one f32 ulp either side of them, the
overflow thresholds, zeros, infinities, NaN, f32 subnormals and random
values). The extensions to f32 are checked for every encoding of each format.

Usage: float_conversions.py MP_OPT "LOWERING FLAGS" "MLIR_RUNNER COMMAND"
Prints one line per conversion with the number of mismatches; exits 1 if any.
"""

import bisect
import random
import re
import shlex
import struct
import subprocess
import sys
from fractions import Fraction


class Format:
    """A binary float format: exponent and mantissa widths, and whether it
    has infinities (IEEE-like) or only NaN at the all-ones code (the FN
    formats)."""

    def __init__(self, name, exponent_bits, mantissa_bits, finite_only):
        self.name = name
        self.e = exponent_bits
        self.m = mantissa_bits
        self.bits = 1 + exponent_bits + mantissa_bits
        self.bias = (1 << (exponent_bits - 1)) - 1
        self.finite_only = finite_only
        self.sign_bit = 1 << (self.bits - 1)
        top = (self.sign_bit - 2) if finite_only else \
            (((1 << exponent_bits) - 1) << mantissa_bits) - 1
        self.max_code = top
        # The code an overflow rounds to (its parity decides ties at the
        # threshold, as if the exponent were unbounded).
        self.overflow_code = top + 1
        self._values = None

    @property
    def values(self):
        """The non-negative finite values in increasing order; the code of
        values[i] is i."""
        if self._values is None:
            self._values = [self.decode(c)[1] for c in range(self.max_code + 1)]
        return self._values

    @property
    def overflow_value(self):
        """The value the overflow code would have with an unbounded exponent."""
        ulp = Fraction(2) ** (self.max_exponent() - self.m)
        return self.decode(self.max_code)[1] + ulp

    def max_exponent(self):
        top_field = (self.max_code >> self.m) & ((1 << self.e) - 1)
        return top_field - self.bias

    def decode(self, code):
        """(kind, value, negative): kind is 'finite', 'inf' or 'nan'."""
        negative = bool(code & self.sign_bit)
        magnitude = code & (self.sign_bit - 1)
        field = magnitude >> self.m
        mantissa = magnitude & ((1 << self.m) - 1)
        all_ones = (1 << self.e) - 1
        if self.finite_only:
            if magnitude == self.sign_bit - 1:
                return ('nan', None, negative)
        elif field == all_ones:
            return ('inf' if mantissa == 0 else 'nan', None, negative)
        if field == 0:
            value = Fraction(mantissa, 1 << self.m) * Fraction(2) ** (1 - self.bias)
        else:
            value = (1 + Fraction(mantissa, 1 << self.m)) * \
                Fraction(2) ** (field - self.bias)
        return ('finite', value, negative)

    def nan_code(self, negative):
        quiet = self.sign_bit - 1 if self.finite_only else \
            (((1 << self.e) - 1) << self.m) | (1 << (self.m - 1))
        return quiet | (self.sign_bit if negative else 0)

    def round(self, kind, value, negative, saturate):
        """The code of an f32 input (decoded), rounded to nearest even."""
        sign = self.sign_bit if negative else 0
        if kind == 'nan':
            return None  # any NaN of the right sign
        if kind == 'inf':
            if saturate:
                return self.max_code | sign
            return (self.nan_code(negative) if self.finite_only
                    else self.overflow_code) | sign
        # Nearest of the finite codes and the virtual overflow candidate.
        candidates = self.values
        i = bisect.bisect_left(candidates, value)
        options = []
        if i < len(candidates):
            options.append((candidates[i], i))
        else:
            options.append((self.overflow_value, self.overflow_code))
        if i > 0:
            options.append((candidates[i - 1], i - 1))
        options.sort(key=lambda o: (abs(o[0] - value), o[1] & 1))
        code = options[0][1]
        if code == self.overflow_code:
            if saturate:
                code = self.max_code
            elif self.finite_only:
                return self.nan_code(negative)
        return code | sign


FORMATS = [Format('f16', 5, 10, False), Format('bf16', 8, 7, False),
           Format('f8E5M2', 5, 2, False), Format('f8E4M3FN', 4, 3, True)]
F32 = Format('f32', 8, 23, False)


def f32_bits(x):
    return struct.unpack('<I', struct.pack('<f', x))[0]


def f32_of_fraction(value):
    """The f32 bits of an exactly representable non-negative fraction (of
    infinity when it exceeds the f32 range)."""
    if value >= Fraction(2) ** 128:
        return 0x7F800000
    return f32_bits(float(value))


def input_table():
    """f32 bit patterns to convert."""
    bits = set()
    rng = random.Random(5)
    for fmt in FORMATS:
        values = fmt.values + [fmt.overflow_value]
        # Every neighbour pair of the 8-bit formats; a sample (and the ends)
        # of the 16-bit ones.
        pairs = range(len(values) - 1)
        if len(pairs) > 2000:
            pairs = sorted(set(rng.sample(pairs, 2000)) |
                           set(range(40)) | set(pairs[-40:]))
        for i in pairs:
            lo, hi = values[i], values[i + 1]
            b = f32_of_fraction((lo + hi) / 2)
            bits.update({f32_of_fraction(lo), b, b - 1, b + 1,
                         f32_of_fraction(hi)})
        # Beyond the overflow threshold.
        b = f32_of_fraction(fmt.overflow_value * 2)
        bits.update({b, b + 1})
    bits.update({0, 0x00000001, 0x007FFFFF, 0x00800000, 0x7F7FFFFF,
                 0x7F800000, 0x7FC00000, 0x7F800001, 0x3F800000})
    for _ in range(3000):
        # Exponents around the narrow formats' ranges.
        exponent = rng.randint(127 - 30, 127 + 20)
        bits.add((exponent << 23) | rng.getrandbits(23))
    for _ in range(500):
        bits.add(rng.getrandbits(31))
    # Both signs.
    table = sorted(bits)
    return table + [b | 0x80000000 for b in table]


def int_list(values, width):
    """An MLIR dense literal of `width`-bit integers (signed spelling)."""
    half = 1 << (width - 1)
    return '[' + ', '.join(str(v - (1 << width) if v >= half else v)
                           for v in values) + ']'


def build_module(inputs):
    n = len(inputs)
    lines = [
        f'memref.global "public" @inputs : memref<{n}xi32> = '
        f'dense<{int_list(inputs, 32)}>',
        'func.func private @printMemrefI32(memref<*xi32>)',
    ]
    sizes = {n}
    body = [
        f'  %in_m = memref.get_global @inputs : memref<{n}xi32>',
        f'  %in_i = bufferization.to_tensor %in_m restrict : memref<{n}xi32> '
        f'to tensor<{n}xi32>',
        f'  %in = arith.bitcast %in_i : tensor<{n}xi32> to tensor<{n}xf32>',
    ]
    cases = []
    for fmt in FORMATS:
        for saturate in ([False, True] if fmt.bits == 8 else [False]):
            k = len(cases)
            sat = ' saturate' if saturate else ''
            t = f'tensor<{n}x{fmt.name}>'
            body += [
                f'  %r{k} = mp.cast %in{sat} : tensor<{n}xf32> to {t}',
                f'  %b{k} = arith.bitcast %r{k} : {t} to tensor<{n}xi{fmt.bits}>',
                f'  %p{k} = arith.extui %b{k} : tensor<{n}xi{fmt.bits}> to '
                f'tensor<{n}xi32>',
                f'  call @print{n}(%p{k}) : (tensor<{n}xi32>) -> ()',
            ]
            cases.append(('trunc', fmt, saturate))
    for fmt in FORMATS:
        count = 1 << fmt.bits
        sizes.add(count)
        k = len(cases)
        lines.append(f'memref.global "public" @codes{k} : memref<{count}xi{fmt.bits}> = '
                     f'dense<{int_list(range(count), fmt.bits)}>')
        t = f'tensor<{count}x{fmt.name}>'
        body += [
            f'  %cm{k} = memref.get_global @codes{k} : memref<{count}xi{fmt.bits}>',
            f'  %ci{k} = bufferization.to_tensor %cm{k} restrict : '
            f'memref<{count}xi{fmt.bits}> to tensor<{count}xi{fmt.bits}>',
            f'  %c{k} = arith.bitcast %ci{k} : tensor<{count}xi{fmt.bits}> to {t}',
            f'  %r{k} = mp.cast %c{k} : {t} to tensor<{count}xf32>',
            f'  %p{k} = arith.bitcast %r{k} : tensor<{count}xf32> to '
            f'tensor<{count}xi32>',
            f'  call @print{count}(%p{k}) : (tensor<{count}xi32>) -> ()',
        ]
        cases.append(('ext', fmt, False))
    lines += print_functions(sizes)
    lines += ['func.func @main() {'] + body + ['  return', '}']
    return '\n'.join(lines) + '\n', cases


def print_functions(sizes):
    """Lines of one `@print<N>` function per size N: prints a tensor<Nxi32>
    (bit patterns) with printMemrefI32."""
    lines = []
    for size in sorted(sizes):
        lines += [
            f'func.func @print{size}(%t: tensor<{size}xi32>) {{',
            f'  %m = bufferization.to_buffer %t : tensor<{size}xi32> to memref<{size}xi32>',
            f'  %u = memref.cast %m : memref<{size}xi32> to memref<*xi32>',
            '  call @printMemrefI32(%u) : (memref<*xi32>) -> ()',
            '  return',
            '}',
        ]
    return lines


def run(mp_opt, lowering, runner, module):
    lowered = subprocess.run(
        [mp_opt, '-', '--convert-mp-to-linalg'] + shlex.split(lowering),
        input=module, capture_output=True, text=True)
    if lowered.returncode != 0:
        sys.exit('mp-opt failed:\n' + lowered.stderr)
    result = subprocess.run(shlex.split(runner), input=lowered.stdout,
                            capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit('mlir-runner failed:\n' + result.stderr)
    return [[int(v) & 0xFFFFFFFF for v in m.group(1).split(',')]
            for m in re.finditer(r'^\[([^\]]*)\]', result.stdout, re.M)]


def main():
    mp_opt, lowering, runner = sys.argv[1:4]
    inputs = input_table()
    module, cases = build_module(inputs)
    outputs = run(mp_opt, lowering, runner, module)
    if len(outputs) != len(cases):
        sys.exit(f'expected {len(cases)} printed tensors, got {len(outputs)}')
    failures = 0
    for (kind, fmt, saturate), got in zip(cases, outputs):
        mismatches = []
        if kind == 'trunc':
            for bits, code in zip(inputs, got):
                decoded = F32.decode(bits)
                expected = fmt.round(*decoded, saturate)
                if expected is None:
                    # IEEE 754 leaves the sign of a converted NaN open.
                    ok = fmt.decode(code)[0] == 'nan'
                else:
                    ok = code == expected
                if not ok:
                    mismatches.append(f'{bits:#010x} -> {code:#x}, expected '
                                      f'{expected if expected is None else hex(expected)}')
            name = f'f32 -> {fmt.name}{" saturate" if saturate else ""}'
        else:
            for code, bits in enumerate(got):
                kind_, value, negative = fmt.decode(code)
                if kind_ == 'nan':
                    ok = F32.decode(bits)[0] == 'nan'
                    expected = 'NaN'
                else:
                    expected = 0x7F800000 if kind_ == 'inf' else f32_of_fraction(value)
                    expected |= 0x80000000 if negative else 0
                    ok = bits == expected
                if not ok:
                    mismatches.append(f'{code:#x} -> {bits:#010x}, expected {expected}')
            name = f'{fmt.name} -> f32'
        print(f'{name}: {len(got)} values, {len(mismatches)} mismatches')
        for line in mismatches[:10]:
            print('  ' + line)
        failures += len(mismatches)
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()
