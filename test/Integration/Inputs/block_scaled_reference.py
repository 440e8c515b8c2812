"""An independent reference of the block-scaled formats of the mp dialect
(MPBlockScaledOps.td, mp.cast's narrow formats), in exact rational
arithmetic with fractions: every value is a Fraction, every f32 operation is
the exact result rounded once to f32 by `F32.round`, and each narrow format
rounds by the arithmetic definition (nearest even, or the stochastic rule
with given random bits), not by bit manipulation. It shares no code with
the compiler.

Values are ('nan',) for NaN and (negative, magnitude) otherwise, the
magnitude a Fraction or INF.
"""

import struct
from fractions import Fraction

INF = float('inf')
NAN = ('nan',)
TWO32 = 1 << 32


def floor_log2(x):
    """The k with 2^k <= x < 2^(k+1), for a positive Fraction."""
    p, q = x.numerator, x.denominator
    k = p.bit_length() - q.bit_length()
    if (p << -k if k < 0 else p) < (q << k if k > 0 else q):
        k -= 1
    return k


def pow2(k):
    return Fraction(1 << k) if k >= 0 else Fraction(1, 1 << -k)


def round_half_even(q):
    n, r = divmod(q.numerator, q.denominator)
    if 2 * r > q.denominator or (2 * r == q.denominator and n % 2 == 1):
        n += 1
    return n


class Format:
    """A binary float format. kind: 'ieee' (infinities, NaN at exponent all
    ones), 'fn' (E4M3FN: only S.1111.111 is NaN), 'finite' (FP6/FP4: no
    NaN, no infinity)."""

    def __init__(self, name, e, m, kind):
        self.name, self.e, self.m, self.kind = name, e, m, kind
        self.width = 1 + e + m
        self.bias = (1 << (e - 1)) - 1
        self.emin = 1 - self.bias
        top_field = (1 << e) - 1 if kind != 'ieee' else (1 << e) - 2
        top_mantissa = (1 << m) - 1 if kind != 'fn' else (1 << m) - 2
        self.max = (1 + Fraction(top_mantissa, 1 << m)) * \
            Fraction(2) ** (top_field - self.bias)
        self.sign_bit = 1 << (self.width - 1)

    def ulp(self, x):
        """The spacing of the format at the positive value x (its binade)."""
        exponent = max(floor_log2(x), self.emin) if x > 0 else self.emin
        return pow2(exponent - self.m)

    def decode(self, code):
        negative = bool(code & self.sign_bit)
        magnitude = code & (self.sign_bit - 1)
        field, mantissa = magnitude >> self.m, magnitude & ((1 << self.m) - 1)
        if self.kind == 'fn' and magnitude == self.sign_bit - 1:
            return NAN
        if self.kind == 'ieee' and field == (1 << self.e) - 1:
            return NAN if mantissa else (negative, INF)
        if field == 0:
            value = Fraction(mantissa << max(self.emin, 0), 1 << (self.m + max(-self.emin, 0)))
        else:
            value = Fraction((1 << self.m) | mantissa, 1 << self.m) * \
                pow2(field - self.bias)
        return (negative, value)

    def encode(self, negative, value):
        """The code of an exactly representable finite magnitude."""
        if value == 0:
            magnitude = 0
        else:
            k = floor_log2(value)
            if k < self.emin:
                magnitude = int(value / pow2(self.emin - self.m))
            else:
                mantissa = (value / pow2(k) - 1) * (1 << self.m)
                assert mantissa.denominator == 1
                magnitude = ((k + self.bias) << self.m) | int(mantissa)
        return magnitude | (self.sign_bit if negative else 0)

    def nan_code(self):
        if self.kind == 'fn':
            return self.sign_bit - 1
        return (((1 << self.e) - 1) << self.m) | (1 << (self.m - 1))

    def round(self, value, saturate=True, random=None):
        """The code of `value` rounded to nearest even (or stochastically with
        the 32-bit `random`), saturating at ±max. NaN: the NaN code, or +max
        for the 'finite' formats."""
        if value == NAN:
            return self.encode(False, self.max) if self.kind == 'finite' \
                else self.nan_code()
        negative, x = value
        if x is INF or x >= self.max:
            assert saturate or self.kind == 'finite'
            return self.encode(negative, self.max)
        ulp = self.ulp(x)
        q = x / ulp
        if random is None:
            n = round_half_even(q)
        else:
            n = q.numerator // q.denominator
            fraction = q - n
            if (fraction * TWO32).__floor__() + random >= TWO32:
                n += 1
        rounded = n * ulp
        if rounded > self.max:
            rounded = self.max
        return self.encode(negative, rounded)

    def stochastic_threshold(self, value):
        """⌊f·2^32⌋ of a finite in-range value (the random bits r round it up
        exactly when r >= 2^32 − this)."""
        negative, x = value
        q = x / self.ulp(x)
        return ((q - (q.numerator // q.denominator)) * TWO32).__floor__()


F32 = Format('f32', 8, 23, 'ieee')
F16 = Format('f16', 5, 10, 'ieee')
BF16 = Format('bf16', 8, 7, 'ieee')
E4M3 = Format('f8E4M3FN', 4, 3, 'fn')
E5M2 = Format('f8E5M2', 5, 2, 'ieee')
E2M3 = Format('f6E2M3FN', 2, 3, 'finite')
E3M2 = Format('f6E3M2FN', 3, 2, 'finite')
E2M1 = Format('f4E2M1FN', 2, 1, 'finite')
DATA_FORMATS = {f.name: f for f in [E4M3, E5M2, E2M3, E3M2, E2M1]}
FLT_MAX = F32.max


def f32_round(value):
    """An exact value rounded once to f32 (nearest even, overflow to
    infinity), as a value."""
    if value == NAN:
        return NAN
    negative, x = value
    if x is INF:
        return value
    ulp = F32.ulp(x) if x > 0 else F32.ulp(Fraction(0))
    n = round_half_even(x / ulp) if x > 0 else 0
    rounded = n * ulp
    top = F32.max + pow2(127 - 23 - 1)
    if rounded >= top or rounded > F32.max:
        return (negative, INF)
    return (negative, rounded)


def f32_from_bits(bits):
    exponent = (bits >> 23) & 0xFF
    if exponent == 0xFF:
        return NAN if bits & 0x7FFFFF else (bool(bits >> 31), INF)
    return F32.decode(bits)


def f32_bits(value):
    if value == NAN:
        return 0x7FC00000
    negative, x = value
    sign = 0x80000000 if negative else 0
    if x is INF:
        return 0x7F800000 | sign
    return F32.encode(negative, x)


def f32_of_float(x):
    return f32_from_bits(struct.unpack('<I', struct.pack('<f', x))[0])


# f32 arithmetic: exact result, one rounding.
def mul(a, b):
    if NAN in (a, b):
        return NAN
    (na, xa), (nb, xb) = a, b
    if (xa is INF and xb == 0) or (xb is INF and xa == 0):
        return NAN
    x = INF if xa is INF or xb is INF else xa * xb
    return f32_round((na != nb, x))


def div(a, b):
    if NAN in (a, b):
        return NAN
    (na, xa), (nb, xb) = a, b
    if (xa is INF and xb is INF) or (xa == 0 and xb == 0):
        return NAN
    if xb == 0 or xa is INF:
        return (na != nb, INF)
    if xb is INF:
        return (na != nb, Fraction(0))
    return f32_round((na != nb, xa / xb))


def add(a, b):
    if NAN in (a, b):
        return NAN
    (na, xa), (nb, xb) = a, b
    if xa is INF or xb is INF:
        if xa is INF and xb is INF and na != nb:
            return NAN
        return (na, INF) if xa is INF else (nb, INF)
    total = (-xa if na else xa) + (-xb if nb else xb)
    if total == 0:
        return (na and nb, Fraction(0))
    return f32_round((total < 0, abs(total)))


def magnitude_max(values):
    """max |x| over the f32 values that are not NaN, from 0 (Transformer
    Engine's fmaxf reductions: NaN is ignored, all-NaN gives 0)."""
    return (False, max([Fraction(0)] + [v[1] for v in values if v != NAN]))


# E8M0: 2^(c - 127), c = 0..254; 255 is NaN.
def e8m0_round_up(value):
    """mp.cast to f8E8M0FNU: 2^ceil(log2 |x|) clamped to [2^-127, 2^127]."""
    if value == NAN:
        return 0xFF
    x = value[1]
    if x is INF:
        return 254
    if x <= pow2(-127):
        return 0
    k = floor_log2(x)
    if pow2(k) != x:
        k += 1
    return min(k + 127, 254)


def e8m0_value(code):
    return NAN if code == 0xFF else (False, pow2(code - 127))


def reciprocal_of_max(fmt):
    """1/max rounded to f32."""
    return f32_round((False, 1 / fmt.max))


def block_scale(amax, data_format, scale_type, global_scale=None,
                amax_epsilon=0, power_of_two=True):
    """(scale code or f32 value, encode factor) of a block: the rules of
    mp.block_quantize (f32 scales: Transformer Engine's
    compute_scale_from_amax with its epsilon and power_2_scale)."""
    rcp = reciprocal_of_max(data_format)
    one = (False, Fraction(1))
    if scale_type == 'f8E8M0FNU':
        code = e8m0_round_up(mul(amax, rcp))
        return code, div(one, e8m0_value(code))
    if scale_type == 'f8E4M3FN':
        t = mul(mul(amax, rcp), global_scale)
        code = E4M3.round(t)
        encode = div(global_scale, E4M3.decode(code))
        if encode != NAN and encode[1] > FLT_MAX:
            encode = (encode[0], FLT_MAX)
        return code, encode
    # f32 scales.
    eps = f32_round((False, Fraction(amax_epsilon)))
    if amax[1] < eps[1]:
        amax = eps
    if amax[1] == 0 or amax[1] is INF:
        encode = one
    else:
        encode = div((False, data_format.max), amax)
        if encode[1] is INF:
            encode = (False, FLT_MAX)
        if power_of_two:
            encode = (False, Fraction(2) ** floor_log2(encode[1]))
    return div(one, encode), encode


def decode_scale(scale, scale_type):
    if scale_type == 'f8E8M0FNU':
        return e8m0_value(scale)
    if scale_type == 'f8E4M3FN':
        return E4M3.decode(scale)
    return scale


def blocks(shape, block):
    """Yields (block index, [flat element indices]) of a row-major tensor."""
    import itertools
    counts = [n // b for n, b in zip(shape, block)]
    strides = [1] * len(shape)
    for k in range(len(shape) - 2, -1, -1):
        strides[k] = strides[k + 1] * shape[k + 1]
    for index in itertools.product(*[range(c) for c in counts]):
        elements = []
        for inner in itertools.product(*[range(b) for b in block]):
            position = [i * b + j for i, b, j in zip(index, block, inner)]
            elements.append(sum(p * s for p, s in zip(position, strides)))
        yield index, elements


def block_quantize(values, shape, block, data_format, scale_type,
                   global_scale=None, random=None, amax_epsilon=0,
                   power_of_two=True):
    """(data codes, scales) of mp.block_quantize on the flat row-major f32
    values of `shape`; scales are codes (E8M0, E4M3) or f32 values."""
    data = [None] * len(values)
    scales = []
    for _, elements in blocks(shape, block):
        amax = magnitude_max([values[i] for i in elements])
        scale, encode = block_scale(amax, data_format, scale_type,
                                    global_scale, amax_epsilon, power_of_two)
        scales.append(scale)
        for i in elements:
            product = mul(values[i], encode)
            data[i] = data_format.round(
                product, random=None if random is None else random[i])
    return data, scales


def block_dequantize(data, scales, shape, block, data_format, scale_type,
                     global_scale=None):
    """The f32 values of mp.block_dequantize."""
    result = [None] * len(data)
    for k, (_, elements) in enumerate(blocks(shape, block)):
        scale = decode_scale(scales[k], scale_type)
        for i in elements:
            value = mul(data_format.decode(data[i]), scale)
            if global_scale is not None:
                value = div(value, global_scale)
            result[i] = value
    return result


def matmul(a, b, m, n, k, transpose_a=False, transpose_b=False):
    """f32 matmul of flat row-major f32 values, summing in increasing k from
    +0 (each product rounded, then each sum)."""
    result = []
    for i in range(m):
        for j in range(n):
            acc = (False, Fraction(0))
            for p in range(k):
                x = a[p * m + i] if transpose_a else a[i * k + p]
                y = b[j * k + p] if transpose_b else b[p * n + j]
                acc = add(acc, mul(x, y))
            result.append(acc)
    return result


# The pieces of mp-fp8-scaling's recipe=nvfp4 (Transformer Engine's
# NVFP4BlockScaling) around mp.block_quantize.

# TE's fixed sign vector of the weight-gradient random Hadamard transform.
RHT_SIGNS = [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1]


def rht_matrix():
    """diag(signs) · H16 / 4 (Sylvester's Hadamard matrix: entry (i, j) is
    (-1)^popcount(i & j)), row-major, exact."""
    return [(RHT_SIGNS[i] * (-1) ** bin(i & j).count('1') < 0, Fraction(1, 4))
            for i in range(16) for j in range(16)]


def random_hadamard(values, rows, cols):
    """Each group of 16 consecutive elements of the row-major f32 tensor
    [rows, cols] times rht_matrix(), an f32 matmul of the [rows·cols/16, 16]
    view (sums in increasing index from +0)."""
    return matmul(values, rht_matrix(), rows * cols // 16, 16, 16)


def nvfp4_global_scale(values):
    """TE's compute_global_encode_scaling_factor_FP4 in f32: 448·6 / amax
    (the amax ignores NaN elements), then fminf(·, FLT_MAX), then 1 when the
    amax or the scale is 0."""
    amax = magnitude_max(values)
    scale = div((False, Fraction(448 * 6)), amax)
    if scale[1] is INF or scale[1] > FLT_MAX:
        scale = (False, FLT_MAX)
    if amax[1] == 0 or scale[1] == 0:
        return (False, Fraction(1))
    return scale
