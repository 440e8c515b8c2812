#!/usr/bin/env python3
"""Checks the block-scaled formats bit for bit on the CPU against the exact
reference test/Integration/Inputs/block_scaled_reference.py.

One module is lowered with convert-mp-to-linalg and the CPU lowering given on
the command line and executed with mlir-runner; it prints every result as
i32 bit patterns (codes of the narrow formats, f32 bits), which are compared
with the reference:

- mp.cast saturate from f32 to f4E2M1FN, f6E2M3FN, f6E3M2FN (nearest even)
  and f8E8M0FNU (round up) over a table holding every value of the FP4/FP6
  formats, the midpoints of neighbours and one f32 ulp either side, the
  powers of two around the E8M0 range, f32 subnormals, zeros, infinities,
  NaN and random values; every encoding of each format back to f32 (and
  E8M0 to bf16, f4 to f8E4M3FN);
- mp.stochastic_cast to the five data formats, each input with random bits
  0, 2^32 − 1, random, and the two values either side of its rounding
  threshold 2^32 − ⌊f·2^32⌋;
- mp.block_quantize (data and scales) and mp.block_dequantize for MXFP8 (E4M3
  1×32, E5M2 32×1), MXFP6, MXFP4 (stochastic), NVFP4 (1×16, 16×16 and
  stochastic, E4M3 scales with a tensor scale, including scale overflow and
  underflow) and FP8 block scaling (1×128 and 128×128, f32 powers of two,
  unrounded f32 scales, an amax epsilon), with zero blocks, NaN and
  infinite blocks (a NaN element leaves its block's amax alone), tiny
  blocks (E8M0 scale 2^-127) and amaxes at and just above max·2^k; each
  scale type with each block shape from f32, bf16 and f16 inputs;
- mp.scaled_matmul for each scale type, transposed operands, mixed FP4 ×
  FP8, f32 and bf16 results;
- the ops of mp-fp8-scaling{recipe=nvfp4} around them: the tensor scale
  (ordinary, zero, NaN, infinite, subnormal and huge amaxes), the random
  Hadamard transform of a wgrad operand and its stochastic 1×16
  quantisation with the draws of mp.random_bits.

Usage: block_scaled.py MP_OPT "LOWERING FLAGS" "MLIR_RUNNER COMMAND"
                       [OTHER LOWERING FLAGS...]
Prints one line per check, then one line per further lowering (the same
checks, e.g. under mp-cpu-pipeline); exits 1 on a mismatch.
"""

import os
import random
import struct
import sys
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, '..', '..', 'Inputs'))
from float_conversions import int_list, print_functions, run  # noqa: E402
import block_scaled_reference as ref  # noqa: E402

E8M0_BITS = 8
WIDTH = {'f32': 32, 'bf16': 16, 'f8E8M0FNU': 8}
WIDTH.update({name: f.width for name, f in ref.DATA_FORMATS.items()})
FORMAT_OF = dict(ref.DATA_FORMATS)
FORMAT_OF['f32'] = ref.F32
FORMAT_OF['bf16'] = ref.BF16


def bits_of(x):
    return struct.unpack('<I', struct.pack('<f', x))[0]


def ref_value(bits):
    return ref.f32_from_bits(bits)


class Module:
    """Builds the test module: inputs, ops, and one printed tensor per
    expected list."""

    def __init__(self):
        self.lines = []
        self.sizes = set()
        self.checks = []  # (name, element type, expected codes/bits)
        self.count = 0

    def fresh(self):
        self.count += 1
        return f'%v{self.count}'

    def f32_input(self, values_bits, shape):
        n = len(values_bits)
        c, f = self.fresh(), self.fresh()
        self.lines += [
            f'  {c} = arith.constant dense<{int_list(values_bits, 32)}> : tensor<{n}xi32>',
            f'  {f} = arith.bitcast {c} : tensor<{n}xi32> to tensor<{n}xf32>']
        return self.reshape(f, [n], shape, 'f32')

    def int_input(self, values, shape, width):
        n = len(values)
        c = self.fresh()
        self.lines.append(f'  {c} = arith.constant dense<{int_list(values, width)}> : tensor<{n}xi{width}>')
        return self.reshape(c, [n], shape, f'i{width}')

    def narrow_input(self, codes, element):
        n = len(codes)
        w = WIDTH[element]
        c = self.int_input(codes, [n], w)
        r = self.fresh()
        self.lines.append(f'  {r} = arith.bitcast {c} : tensor<{n}xi{w}> to tensor<{n}x{element}>')
        return r

    def reshape(self, value, shape, new_shape, element):
        if list(shape) == list(new_shape):
            return value
        r = self.fresh()
        dims = 'x'.join(map(str, new_shape))
        groups = '[' + ', '.join(str(i) for i in range(len(new_shape))) + ']'
        self.lines.append(
            f'  {r} = tensor.expand_shape {value} [{groups}] output_shape '
            f'[{", ".join(map(str, new_shape))}] : tensor<{shape[0]}x{element}> '
            f'into tensor<{dims}x{element}>')
        return r

    def op(self, text):
        r = self.fresh()
        self.lines.append(f'  {r} = {text}')
        return r

    def op2(self, text):
        a, b = self.fresh(), self.fresh()
        self.lines.append(f'  {a}, {b} = {text}')
        return a, b

    def check(self, name, value, shape, element, expected):
        """Prints `value` (tensor<shape x element>) as i32 and records the
        expected codes (None: any NaN)."""
        n = 1
        for d in shape:
            n *= d
        self.sizes.add(n)
        flat = value
        t = f'tensor<{"x".join(map(str, shape))}x{element}>'
        if len(shape) > 1:
            flat = self.fresh()
            groups = '[' + ', '.join(str(i) for i in range(len(shape))) + ']'
            self.lines.append(f'  {flat} = tensor.collapse_shape {value} [{groups}] : {t} into tensor<{n}x{element}>')
        w = WIDTH[element]
        b = self.fresh()
        self.lines.append(f'  {b} = arith.bitcast {flat} : tensor<{n}x{element}> to tensor<{n}xi{w}>')
        p = b
        if w < 32:
            p = self.fresh()
            self.lines.append(f'  {p} = arith.extui {b} : tensor<{n}xi{w}> to tensor<{n}xi32>')
        self.lines.append(f'  call @print{n}({p}) : (tensor<{n}xi32>) -> ()')
        self.checks.append((name, element, expected))

    def text(self):
        lines = ['func.func private @printMemrefI32(memref<*xi32>)']
        lines += print_functions(self.sizes)
        lines += ['func.func @main() {'] + self.lines + ['  return', '}']
        return '\n'.join(lines) + '\n'


def is_nan(element, code):
    if element == 'f8E8M0FNU':
        return code == 0xFF
    return FORMAT_OF[element].decode(code) == ref.NAN


def expected_bits(value, element):
    """The code of a reference value in `element` (None for NaN)."""
    if value == ref.NAN:
        return None
    if element == 'f32':
        return ref.f32_bits(value)
    return FORMAT_OF[element].encode(*value)


# --------------------------------------------------------------------------
# Casts
# --------------------------------------------------------------------------

def cast_table():
    bits = set()
    rng = random.Random(19)
    for fmt in [ref.E2M1, ref.E2M3, ref.E3M2]:
        values = sorted({fmt.decode(c)[1] for c in range(fmt.sign_bit)})
        values.append(fmt.max + fmt.ulp(fmt.max))
        for lo, hi in zip(values, values[1:]):
            for v in (lo, (lo + hi) / 2, hi):
                b = ref.f32_bits(ref.f32_round((False, v)))
                bits.update({b, b - 1 if b else 0, b + 1})
    for k in range(-131, 129):
        b = ref.f32_bits(ref.f32_round((False, Fraction(2) ** k)))
        if b < 0x7F800000:
            bits.update({b, b + 1, max(b - 1, 0)})
    bits.update({0, 1, 0x003FFFFF, 0x00400000, 0x00400001, 0x007FFFFF,
                 0x00800000, 0x7F7FFFFF, 0x7F800000, 0x7FC00000, 0x7F800001,
                 0x7F000000, 0x7F000001})
    for _ in range(1500):
        bits.add(((rng.randint(127 - 12, 127 + 8)) << 23) | rng.getrandbits(23))
    for _ in range(300):
        bits.add(rng.getrandbits(31))
    table = sorted(b for b in bits if b <= 0x7FFFFFFF)
    return table + [b | 0x80000000 for b in table]


def add_casts(module):
    table = cast_table()
    n = len(table)
    x = module.f32_input(table, [n])
    values = [ref_value(b) for b in table]
    for fmt in [ref.E2M1, ref.E2M3, ref.E3M2]:
        r = module.op(f'mp.cast {x} saturate : tensor<{n}xf32> to tensor<{n}x{fmt.name}>')
        module.check(f'f32 -> {fmt.name} saturate', r, [n], fmt.name,
                     [fmt.round(v) for v in values])
    r = module.op(f'mp.cast {x} saturate : tensor<{n}xf32> to tensor<{n}xf8E8M0FNU>')
    module.check('f32 -> f8E8M0FNU saturate (round up)', r, [n], 'f8E8M0FNU',
                 [ref.e8m0_round_up(v) for v in values])

    # Every encoding back to f32.
    for fmt in [ref.E2M1, ref.E2M3, ref.E3M2]:
        count = 1 << fmt.width
        c = module.narrow_input(list(range(count)), fmt.name)
        r = module.op(f'mp.cast {c} : tensor<{count}x{fmt.name}> to tensor<{count}xf32>')
        module.check(f'{fmt.name} -> f32', r, [count], 'f32',
                     [ref.f32_bits(fmt.decode(code)) for code in range(count)])
    c = module.narrow_input(list(range(256)), 'f8E8M0FNU')
    r = module.op(f'mp.cast {c} : tensor<256xf8E8M0FNU> to tensor<256xf32>')
    module.check('f8E8M0FNU -> f32', r, [256], 'f32',
                 [expected_bits(ref.e8m0_value(code), 'f32') for code in range(256)])
    r = module.op(f'mp.cast {c} : tensor<256xf8E8M0FNU> to tensor<256xbf16>')
    module.check('f8E8M0FNU -> bf16', r, [256], 'bf16',
                 [expected_bits(ref.e8m0_value(code), 'bf16') for code in range(256)])
    c = module.narrow_input(list(range(16)), 'f4E2M1FN')
    r = module.op('mp.cast %s : tensor<16xf4E2M1FN> to tensor<16xf8E4M3FN>' % c)
    module.check('f4E2M1FN -> f8E4M3FN', r, [16], 'f8E4M3FN',
                 [ref.E4M3.encode(*ref.E2M1.decode(code)) for code in range(16)])


def add_stochastic_casts(module):
    rng = random.Random(7)
    for fmt in [ref.E4M3, ref.E5M2, ref.E2M3, ref.E3M2, ref.E2M1]:
        xs, rs = [], []
        candidates = [rng.getrandbits(32) for _ in range(300)]
        top = bits_of(float(fmt.max))
        candidates += [rng.randint(0x30000000, top + 0x1000000) for _ in range(400)]
        candidates += [0, 0x80000000, 1, 0x7F800000, 0xFF800000, 0x7FC00000,
                       top, top + 1, top - 1]
        for b in candidates:
            v = ref_value(b)
            rounds = [0, ref.TWO32 - 1, rng.getrandbits(32)]
            if v != ref.NAN and v[1] != ref.INF and v[1] < fmt.max:
                threshold = ref.TWO32 - fmt.stochastic_threshold(v)
                if threshold < ref.TWO32:
                    rounds += [threshold - 1, threshold]
            for r in rounds:
                xs.append(b)
                rs.append(r)
        n = len(xs)
        x = module.f32_input(xs, [n])
        r = module.int_input(rs, [n], 32)
        q = module.op(f'mp.stochastic_cast {x}, {r} : tensor<{n}xf32>, '
                      f'tensor<{n}xi32> to tensor<{n}x{fmt.name}>')
        expected = []
        for b, bits in zip(xs, rs):
            v = ref_value(b)
            code = fmt.round(v, random=bits)
            expected.append(None if fmt.decode(code) == ref.NAN else code)
        module.check(f'f32 -> {fmt.name} stochastic', q, [n], fmt.name, expected)


# --------------------------------------------------------------------------
# Block quantisation, dequantisation, matmul
# --------------------------------------------------------------------------

def random_values(rng, count, lo=-8, hi=8):
    """f32 bit patterns of values with log-uniform magnitudes in
    [2^lo, 2^hi) and random signs."""
    out = []
    for _ in range(count):
        magnitude = 2.0 ** rng.uniform(lo, hi)
        out.append(bits_of(magnitude if rng.random() < 0.5 else -magnitude))
    return out


def special_rows(rng, data_max, k):
    """Rows of k elements: normal, a zero block, NaN, infinity, tiny values,
    amax exactly max·2^3 and one ulp above it, a wide spread."""
    rows = [random_values(rng, k)]
    rows.append([0] * k)
    row = random_values(rng, k)
    row[3] = 0x7FC00000
    rows.append(row)
    row = random_values(rng, k)
    row[5] = 0xFF800000
    rows.append(row)
    rows.append(random_values(rng, k, -140, -126))
    row = random_values(rng, k, -4, 3)
    row[0] = bits_of(data_max * 8.0)
    rows.append(row)
    row = random_values(rng, k, -4, 3)
    row[1] = bits_of(data_max * 8.0) + 1
    rows.append(row)
    rows.append(random_values(rng, k, -30, 10))
    return rows


class Quantised:
    def __init__(self, data, scales, data_ref, scales_ref, shape, block,
                 fmt, scale_type, global_scale):
        self.data, self.scales = data, scales
        self.data_ref, self.scales_ref = data_ref, scales_ref
        self.shape, self.block = shape, block
        self.fmt, self.scale_type = fmt, scale_type
        self.global_scale = global_scale

    @property
    def scales_shape(self):
        return [n // b for n, b in zip(self.shape, self.block)]

    def types(self):
        t = 'x'.join(map(str, self.shape))
        s = 'x'.join(map(str, self.scales_shape))
        return (f'tensor<{t}x{self.fmt.name}>', f'tensor<{s}x{self.scale_type}>')

    def dequantized_ref(self):
        return ref.block_dequantize(self.data_ref, self.scales_ref, self.shape,
                                    self.block, self.fmt, self.scale_type,
                                    self.global_scale)


def global_scale_for(values):
    """Transformer Engine's NVFP4 tensor scale 448·6 / amax (1 for 0), in
    f32."""
    amax = ref.magnitude_max(values)
    if amax[1] == 0:
        return (False, Fraction(1))
    scale = ref.div((False, Fraction(448 * 6)), amax)
    return (False, min(scale[1], ref.FLT_MAX))


def quantize(module, name, bits, shape, block, fmt, scale_type,
             global_scale=None, random_bits=None, check=True, amax_epsilon=0,
             unrounded=False, input_type='f32'):
    values = [ref_value(b) for b in bits]
    x = module.f32_input(bits, shape)
    t = 'x'.join(map(str, shape))
    if input_type != 'f32':
        # The values are representable in input_type: the cast is exact.
        x = module.op(f'mp.cast {x} : tensor<{t}xf32> to tensor<{t}x{input_type}>')
    scales_shape = [n // b for n, b in zip(shape, block)]
    s = 'x'.join(map(str, scales_shape))
    extra = ''
    if global_scale is not None:
        g = module.op(f'arith.constant dense<{float(global_scale[1])!r}> : tensor<f32>')
        extra += f' global {g}'
    if random_bits is not None:
        r = module.int_input(random_bits, shape, 32)
        extra += f' random({r} : tensor<{t}xi32>)'
    if amax_epsilon:
        extra += f' amax_epsilon({float(amax_epsilon):.17e})'
    if unrounded:
        extra += ' unrounded_scales'
    data, scales = module.op2(
        f'mp.block_quantize {x}{extra} : tensor<{t}x{input_type}> -> '
        f'tensor<{t}x{fmt.name}>, tensor<{s}x{scale_type}>')
    data_ref, scales_ref = ref.block_quantize(values, shape, block, fmt,
                                              scale_type, global_scale,
                                              random_bits, amax_epsilon,
                                              not unrounded)
    q = Quantised(data, scales, data_ref, scales_ref, shape, block, fmt,
                  scale_type, global_scale)
    if not check:
        return q
    module.check(f'{name}: data', data, shape, fmt.name,
                 [None if fmt.decode(c) == ref.NAN else c for c in data_ref])
    if scale_type == 'f32':
        expected_scales = [expected_bits(v, 'f32') for v in scales_ref]
    elif scale_type == 'f8E4M3FN':
        expected_scales = [None if ref.E4M3.decode(c) == ref.NAN else c
                           for c in scales_ref]
    else:
        expected_scales = scales_ref
    module.check(f'{name}: scales', scales, scales_shape, scale_type,
                 expected_scales)
    dq_type = 'f32'
    extra = ''
    if global_scale is not None:
        extra = f' global {g}'
    d = module.op(f'mp.block_dequantize {data}, {scales}{extra} : '
                  f'tensor<{t}x{fmt.name}>, tensor<{s}x{scale_type}> -> '
                  f'tensor<{t}x{dq_type}>')
    module.check(f'{name}: dequantized', d, shape, dq_type,
                 [expected_bits(v, dq_type) for v in q.dequantized_ref()])
    return q


def add_block_cases(module):
    rng = random.Random(3)
    rows = special_rows(rng, 448.0, 64)
    quantize(module, 'mxfp8 e4m3 1x32', sum(rows, []), [len(rows), 64],
             [1, 32], ref.E4M3, 'f8E8M0FNU')
    cols = random_values(rng, 64 * 4, -12, 12)
    cols[5 * 4 + 1] = 0x7FC00000
    for i in range(32):
        cols[(32 + i) * 4 + 2] = 0
    quantize(module, 'mxfp8 e5m2 32x1', cols, [64, 4], [32, 1], ref.E5M2,
             'f8E8M0FNU')
    rows = special_rows(rng, 7.5, 32)
    quantize(module, 'mxfp6 e2m3 1x32', sum(rows, []), [len(rows), 32],
             [1, 32], ref.E2M3, 'f8E8M0FNU')
    rows = special_rows(rng, 28.0, 32)
    bits = sum(rows, [])
    quantize(module, 'mxfp6 e3m2 1x32 stochastic', bits, [len(rows), 32],
             [1, 32], ref.E3M2, 'f8E8M0FNU',
             random_bits=[rng.getrandbits(32) for _ in bits])
    rows = special_rows(rng, 6.0, 32)
    bits = sum(rows, [])
    quantize(module, 'mxfp4 1x32 stochastic', bits, [len(rows), 32], [1, 32],
             ref.E2M1, 'f8E8M0FNU',
             random_bits=[rng.getrandbits(32) for _ in bits])

    # NVFP4: a finite tensor (the tensor scale comes from its amax), one
    # block far smaller than the rest (its E4M3 scale underflows to 0).
    bits = random_values(rng, 4 * 64, -6, 6)
    bits[16:32] = random_values(rng, 16, -40, -36)
    bits[32:48] = [0] * 16
    g = global_scale_for([ref_value(b) for b in bits])
    quantize(module, 'nvfp4 1x16', bits, [4, 64], [1, 16], ref.E2M1,
             'f8E4M3FN', global_scale=g)
    # A tensor scale too large for some blocks: their scales saturate at 448.
    quantize(module, 'nvfp4 1x16 scale overflow', bits, [4, 64], [1, 16],
             ref.E2M1, 'f8E4M3FN', global_scale=(False, Fraction(2) ** 20))
    bits = random_values(rng, 32 * 32, -6, 6)
    g = global_scale_for([ref_value(b) for b in bits])
    quantize(module, 'nvfp4 16x16', bits, [32, 32], [16, 16], ref.E2M1,
             'f8E4M3FN', global_scale=g)
    bits = random_values(rng, 4 * 32, -6, 6)
    bits[7] = 0x7FC00000
    quantize(module, 'nvfp4 1x16 stochastic', bits, [4, 32], [1, 16],
             ref.E2M1, 'f8E4M3FN', global_scale=(False, Fraction(100)),
             random_bits=[rng.getrandbits(32) for _ in bits])

    # FP8 block scaling: f32 powers of two.
    rows = special_rows(rng, 448.0, 128)
    rows.append(random_values(rng, 128, 100, 127))
    quantize(module, 'fp8-block 1x128', sum(rows, []), [len(rows), 128],
             [1, 128], ref.E4M3, 'f32')
    bits = random_values(rng, 128 * 128, -10, 10)
    quantize(module, 'fp8-block 128x128', bits, [128, 128], [128, 128],
             ref.E4M3, 'f32')
    # TE's power_2_scale=False (NVTE_FP8_BLOCK_SCALING_FP32_SCALES=1):
    # scale = 448 / amax and its reciprocal, each rounded; the same special
    # rows, and blocks whose amax makes 448 / amax overflow (FLT_MAX) or
    # land in f32's subnormals (1 / FLT_MAX).
    rows = special_rows(rng, 448.0, 128)
    rows.append(random_values(rng, 128, 100, 127))
    rows.append(random_values(rng, 128, -149, -140))
    row = random_values(rng, 128, 100, 120)
    row[9] = 0x7F7FFFFF
    rows.append(row)
    quantize(module, 'fp8-block 1x128 unrounded', sum(rows, []),
             [len(rows), 128], [1, 128], ref.E4M3, 'f32', unrounded=True)
    bits = random_values(rng, 128 * 256, -10, 10)
    quantize(module, 'fp8-block 128x128 unrounded e5m2', bits, [128, 256],
             [128, 128], ref.E5M2, 'f32', unrounded=True)
    # TE's amax_epsilon: amaxes below it (a zero block, tiny blocks) are
    # raised to it, with and without power-of-two rounding; 1e-6 is not an
    # f32 value (it is rounded to f32 first).
    rows = [[0] * 128, random_values(rng, 128, -40, -30),
            random_values(rng, 128, -21, -19), random_values(rng, 128, -4, 4)]
    quantize(module, 'fp8-block 1x128 epsilon', sum(rows, []),
             [len(rows), 128], [1, 128], ref.E4M3, 'f32', amax_epsilon=1e-6)
    quantize(module, 'fp8-block 1x128 epsilon unrounded', sum(rows, []),
             [len(rows), 128], [1, 128], ref.E4M3, 'f32',
             amax_epsilon=2.0 ** -20, unrounded=True)
    # NaN elements leave their block's amax alone (TE's fmaxf): blocks with
    # one NaN, NaNs and an infinity, only NaNs, for each scale type.
    row = random_values(rng, 128, -4, 4)
    row[3] = row[70] = 0x7FC00000
    nan_inf = random_values(rng, 128, -4, 4)
    nan_inf[1] = 0xFFC00000
    nan_inf[100] = 0x7F800000
    rows = [row, nan_inf, [0x7FC00000] * 128]
    quantize(module, 'fp8-block 1x128 NaN blocks', sum(rows, []),
             [len(rows), 128], [1, 128], ref.E4M3, 'f32')
    quantize(module, 'mxfp8 e4m3 1x32 NaN blocks', sum(rows, []),
             [len(rows), 128], [1, 32], ref.E4M3, 'f8E8M0FNU')
    quantize(module, 'mxfp4 1x32 NaN blocks', sum(rows, []),
             [len(rows), 128], [1, 32], ref.E2M1, 'f8E8M0FNU')
    quantize(module, 'nvfp4 1x16 NaN blocks', sum(rows, []),
             [len(rows), 128], [1, 16], ref.E2M1, 'f8E4M3FN',
             global_scale=(False, Fraction(448 * 6, 4)))

    # MXFP8 2-D weights (TE's enable_2d_quantization): 32x32 tiles, one of
    # them zero (scale 2^-127), one with a NaN (scale 0xFF), one holding
    # FLT_MAX (scale 2^120, the largest a finite tile gets).
    bits = random_values(rng, 64 * 64, -12, 12)
    for i in range(32):
        for j in range(32):
            bits[i * 64 + 32 + j] = 0
    bits[40 * 64 + 3] = 0x7FC00000
    bits[50 * 64 + 40] = 0x7F7FFFFF
    quantize(module, 'mxfp8 e4m3 32x32', bits, [64, 64], [32, 32], ref.E4M3,
             'f8E8M0FNU')


def representable(bits, input_type):
    """f32 bit patterns rounded (towards zero) to values of input_type."""
    if input_type == 'bf16':
        return [b & 0xFFFF0000 for b in bits]
    if input_type == 'f16':
        out = []
        for b in bits:
            x = struct.unpack('<f', struct.pack('<I', b))[0]
            if x == x:
                x = struct.unpack('<e', struct.pack('<e', x))[0]
            out.append(bits_of(x) if x == x else b)
        return out
    return bits


def add_block_combinations(module):
    """Each scale type (E8M0, E4M3 with a tensor scale, f32) with each block
    shape the op takes (1x16, 1x32, 1x128, 16x1, 16x16, 32x32, 128x128) that
    the recipe cases above leave out, from f32, bf16 and f16 inputs; every
    tensor holds a NaN, and a zero block when it has more than one."""
    rng = random.Random(5)
    formats = {'f8E8M0FNU': ref.E4M3, 'f8E4M3FN': ref.E2M1, 'f32': ref.E5M2}
    covered = {('f8E8M0FNU', (1, 32)), ('f8E8M0FNU', (32, 32)),
               ('f8E4M3FN', (1, 16)), ('f8E4M3FN', (16, 16)),
               ('f32', (1, 128)), ('f32', (128, 128))}
    shapes = {(1, 16): [2, 64], (1, 32): [2, 64], (1, 128): [2, 256],
              (16, 1): [32, 4], (16, 16): [32, 32], (32, 32): [64, 32],
              (128, 128): [128, 128]}
    inputs = ['f32', 'bf16', 'f16']
    k = 0
    for scale_type, fmt in formats.items():
        for block, shape in shapes.items():
            if (scale_type, block) in covered:
                continue
            input_type = inputs[k % 3]
            k += 1
            n = shape[0] * shape[1]
            bits = random_values(rng, n, -12, 12)
            bits[1] = 0x7FC00000
            # The last block is zero (unless it is the only one).
            last = range(shape[0] - block[0], shape[0])
            if shape == list(block):
                last = []
            for i in last:
                for j in range(shape[1] - block[1], shape[1]):
                    bits[i * shape[1] + j] = 0
            bits = representable(bits, input_type)
            g = None
            if scale_type == 'f8E4M3FN':
                g = global_scale_for([ref_value(b) for b in bits])
            quantize(module, f'{scale_type} {block[0]}x{block[1]} '
                     f'{fmt.name} from {input_type}', bits, shape,
                     list(block), fmt, scale_type, global_scale=g,
                     input_type=input_type)


def scaled_matmul(module, name, a, b, transpose_a, transpose_b, result):
    ta, sa = a.types()
    tb, sb = b.types()
    m = a.shape[1] if transpose_a else a.shape[0]
    k = a.shape[0] if transpose_a else a.shape[1]
    n = b.shape[0] if transpose_b else b.shape[1]
    flags = (' transpose_lhs' if transpose_a else '') + \
        (' transpose_rhs' if transpose_b else '')
    y = module.op(f'mp.scaled_matmul {a.data} scales {a.scales}, {b.data} '
                  f'scales {b.scales}{flags} acc(f32) : {ta}, {sa}, {tb}, {sb} '
                  f'-> tensor<{m}x{n}x{result}>')
    # Without the tensor-level scales (the caller's alpha).
    da = ref.block_dequantize(a.data_ref, a.scales_ref, a.shape, a.block,
                              a.fmt, a.scale_type)
    db = ref.block_dequantize(b.data_ref, b.scales_ref, b.shape, b.block,
                              b.fmt, b.scale_type)
    product = ref.matmul(da, db, m, n, k, transpose_a, transpose_b)
    if result == 'bf16':
        expected = [None if v == ref.NAN else ref.BF16.round(v)
                    for v in product]
    else:
        expected = [expected_bits(v, 'f32') for v in product]
    module.check(f'{name}', y, [m, n], result, expected)


def add_matmuls(module):
    rng = random.Random(11)
    q = lambda *args, **kw: quantize(module, *args, check=False, **kw)  # noqa
    a = q('', random_values(rng, 4 * 64, -6, 6), [4, 64], [1, 32], ref.E4M3,
          'f8E8M0FNU')
    b = q('', random_values(rng, 8 * 64, -6, 6), [8, 64], [1, 32], ref.E4M3,
          'f8E8M0FNU')
    scaled_matmul(module, 'scaled_matmul mxfp8 x.w^T', a, b, False, True, 'f32')
    a4 = q('', random_values(rng, 4 * 64, -6, 6), [4, 64], [1, 32], ref.E2M1,
           'f8E8M0FNU')
    b8 = q('', random_values(rng, 64 * 8, -6, 6), [64, 8], [32, 1], ref.E5M2,
           'f8E8M0FNU')
    scaled_matmul(module, 'scaled_matmul mxf4 x mxf8 -> bf16', a4, b8, False,
                  False, 'bf16')
    at = q('', random_values(rng, 64 * 4, -6, 6), [64, 4], [32, 1], ref.E4M3,
           'f8E8M0FNU')
    scaled_matmul(module, 'scaled_matmul mxfp8 transpose_lhs', at, b8, True,
                  False, 'f32')
    x = q('', random_values(rng, 4 * 128, -6, 6), [4, 128], [1, 128],
          ref.E4M3, 'f32')
    w = q('', random_values(rng, 8 * 128, -6, 6), [8, 128], [1, 128],
          ref.E4M3, 'f32')
    scaled_matmul(module, 'scaled_matmul fp8-block 1x128', x, w, False, True,
                  'f32')
    bits = random_values(rng, 4 * 32, -6, 6)
    gx = global_scale_for([ref_value(v) for v in bits])
    x4 = q('', bits, [4, 32], [1, 16], ref.E2M1, 'f8E4M3FN', global_scale=gx)
    bits = random_values(rng, 32 * 16, -6, 6)
    gw = global_scale_for([ref_value(v) for v in bits])
    w4 = q('', bits, [32, 16], [16, 16], ref.E2M1, 'f8E4M3FN', global_scale=gw)
    scaled_matmul(module, 'scaled_matmul nvfp4 1x16 x 16x16', x4, w4, False,
                  False, 'f32')


def add_nvfp4_recipe(module):
    """The ops mp-fp8-scaling{recipe=nvfp4} builds around mp.block_quantize
    (test/Dialect/MP/mp-fp8-scaling-block.mlir pins them): the tensor scale
    from mp.amax, the random Hadamard transform of a wgrad operand, and its
    stochastic quantisation with mp.random_bits of an rng state, each against
    the reference (the bits from test/Integration/Inputs/philox.py)."""
    import philox
    rng = random.Random(19)
    f32 = 'tensor<f32>'

    def constant(value):
        return module.op(f'arith.constant dense<{value!r}> : {f32}')

    def global_scale(x, shape):
        t = 'x'.join(map(str, shape))
        amax = module.op(f'mp.amax {x} : tensor<{t}xf32>')
        largest = constant(float(ref.FLT_MAX))
        q = module.op(f'mp.div {constant(2688.0)}, {amax} : {f32}, {f32}')
        q = module.op(f'mp.minimum {q}, {largest} : {f32}, {f32}')
        nan = module.op(f'mp.compare ne, {q}, {q} : {f32}, {f32}')
        q = module.op(f'mp.select {nan}, {largest}, {q} : tensor<i1>, {f32}, {f32}')
        zero, one = constant(0.0), constant(1.0)
        z = module.op(f'mp.compare eq, {q}, {zero} : {f32}, {f32}')
        q = module.op(f'mp.select {z}, {one}, {q} : tensor<i1>, {f32}, {f32}')
        z = module.op(f'mp.compare eq, {amax}, {zero} : {f32}, {f32}')
        return module.op(f'mp.select {z}, {one}, {q} : tensor<i1>, {f32}, {f32}')

    # The tensor scale: an ordinary tensor, zeros, a NaN, an infinity, a
    # subnormal amax (448·6 / amax overflows: FLT_MAX), a huge amax.
    cases = [random_values(rng, 32, -6, 6), [0] * 32,
             random_values(rng, 31, -6, 6) + [0x7FC00000],
             random_values(rng, 31, -6, 6) + [0x7F800000],
             [1] * 32, random_values(rng, 31, -6, 6) + [0x7F000000]]
    for i, bits in enumerate(cases):
        x = module.f32_input(bits, [2, 16])
        g = global_scale(x, [2, 16])
        g = module.op(f'mp.reshape {g} : {f32} to tensor<1xf32>')
        expected = ref.nvfp4_global_scale([ref_value(b) for b in bits])
        module.check(f'nvfp4 tensor scale {i}', g, [1], 'f32',
                     [expected_bits(expected, 'f32')])

    # A wgrad operand [K, batch] = [4, 32]: the transform along the batch,
    # then 1x16 blocks with the tensor scale of the transformed tensor and
    # stochastic rounding with the draws of the state [seed, offset].
    rows, cols = 4, 32
    bits = random_values(rng, rows * cols, -6, 6)
    x = module.f32_input(bits, [rows, cols])
    h = module.f32_input([ref.f32_bits(v) for v in ref.rht_matrix()], [16, 16])
    r = module.op(f'mp.reshape {x} : tensor<{rows}x{cols}xf32> to tensor<8x16xf32>')
    r = module.op(f'mp.matmul {r}, {h} acc(f32) : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>')
    t = module.op(f'mp.reshape {r} : tensor<8x16xf32> to tensor<{rows}x{cols}xf32>')
    transformed = ref.random_hadamard([ref_value(b) for b in bits], rows, cols)
    module.check('nvfp4 random Hadamard transform', t, [rows, cols], 'f32',
                 [expected_bits(v, 'f32') for v in transformed])
    g = global_scale(t, [rows, cols])
    seed, offset = 0x5EED0019, 8
    state = module.int_input([seed, offset], [2], 64)
    draws, _ = module.op2(f'mp.random_bits {state} : tensor<{rows}x{cols}xi32>')
    data, scales = module.op2(
        f'mp.block_quantize {t} global {g} random({draws} : '
        f'tensor<{rows}x{cols}xi32>) : tensor<{rows}x{cols}xf32> -> '
        f'tensor<{rows}x{cols}xf4E2M1FN>, tensor<{rows}x2xf8E4M3FN>')
    random_bits = [int(b) for b in philox.draws(seed, offset, rows * cols)]
    g_ref = ref.nvfp4_global_scale(transformed)
    data_ref, scales_ref = ref.block_quantize(transformed, [rows, cols],
                                              [1, 16], ref.E2M1, 'f8E4M3FN',
                                              g_ref, random_bits)
    module.check('nvfp4 wgrad operand stochastic: data', data, [rows, cols],
                 'f4E2M1FN', data_ref)
    module.check('nvfp4 wgrad operand stochastic: scales', scales, [rows, 2],
                 'f8E4M3FN', scales_ref)


def compare(module, outputs, verbose):
    """Compares printed tensors with the expected codes; prints one line per
    check when `verbose`. Returns the number of mismatches."""
    if len(outputs) != len(module.checks):
        sys.exit(f'expected {len(module.checks)} printed tensors, got {len(outputs)}')
    failures = 0
    for (name, element, expected), got in zip(module.checks, outputs):
        mismatches = []
        nans = 0
        for i, (e, g) in enumerate(zip(expected, got)):
            if e is None:
                nans += 1
                ok = is_nan(element, g)
            else:
                ok = e == g
            if not ok:
                mismatches.append(f'[{i}] got {g:#x}, expected '
                                  f'{"NaN" if e is None else hex(e)}')
        if verbose or mismatches:
            print(f'{name}: {len(got)} values ({nans} NaN), '
                  f'{len(mismatches)} mismatches')
        for line in mismatches[:10]:
            print('  ' + line)
        failures += len(mismatches)
    return failures


def main():
    module = Module()
    add_casts(module)
    add_stochastic_casts(module)
    add_block_cases(module)
    add_block_combinations(module)
    add_matmuls(module)
    add_nvfp4_recipe(module)
    text = module.text()
    mp_opt, lowering, runner = sys.argv[1:4]
    failures = compare(module, run(mp_opt, lowering, runner, text), True)
    # Further lowerings (e.g. mp-cpu-pipeline, tiled and vectorised): the
    # same checks, one summary line each.
    for other in sys.argv[4:]:
        count = compare(module, run(mp_opt, other, runner, text), False)
        print(f'{other}: {len(module.checks)} tensors, {count} mismatches')
        failures += count
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()
