#!/usr/bin/env python3
"""A functional simulator of the PTX that MixedPrec's Tensor Core kernels use.

No GPU is needed: each thread of a block is interpreted on its own, and the
collective instructions (bar.sync, ldmatrix, mma.sync, wgmma.mma_async) run
once every thread they involve has reached them. The semantics follow the
PTX ISA: the mma.sync fragment layouts of m16n8k16 (f16, bf16), m16n8k8
(tf32) and m16n8k32 (s8, e4m3, e5m2); ldmatrix .x4 with and without .trans;
wgmma's shared-memory matrix descriptors with the canonical K-major and
MN-major layouts and the 128-byte swizzle; its D fragment layout; Blackwell's
Tensor Memory (128 lanes of 512 32-bit columns: tcgen05.alloc / dealloc,
tcgen05.ld / st with the 32x32b shape and the lane quarter each warp may
access), tcgen05.mma (cta_group::1, kinds f16, tf32, f8f6f4, i8: the
instruction descriptor's types, transposes, M and N, the tcgen05 format of the
shared-memory descriptors, the accumulator at lane i, column j for M = 128)
and the mbarriers it commits to (init, phases, try_wait.parity; a
tcgen05.commit covers every tcgen05 operation its thread issued before it,
so seeing its phase complete runs those and the ones of earlier commits to
any mbarrier, in issue order); sm_120a's
block-scaled mma.sync (m16n8k32 kind::mxf8f6f4 scale_vec::1X with FP8/FP6/FP4
in 8-bit containers, m16n8k64 kind::mxf4 / mxf4nvf4 with packed FP4, ue8m0
and ue4m3 scale vectors and their byte-id / thread-id selectors; see
BLOCK_SCALE_DOC below).

The stmatrix epilogue of the sm_90a kernels: stmatrix .x1/.x2/.x4 (and
.trans) m8n8 b16, and bar.warp.sync (full mask) as a warp collective.

Hopper's asynchronous copies and MMAs: cp.async.bulk.tensor (TMA, tile mode,
1-3 dimensions, the 128-byte swizzle, zero fill out of bounds) reading the
simulator's 128-byte tensor-map encoding (TENSOR_MAP_LAYOUT below) and
completing on an mbarrier's transaction count (mbarrier.arrive.expect_tx,
complete_tx); plain mbarrier.arrive; setmaxnreg (range and the 64K-register
budget of the block checked); and wgmma groups in flight: with `late` copies
a TMA copy lands only once every thread has stalled (so reading a stage
before its mbarrier phase completes reads stale data), and a wgmma group
stays in flight until a wgmma.wait_group retires it: reading or writing its
accumulator registers meanwhile, or overwriting the shared memory it reads,
stops the simulation with an error.

sm_100a's block-scaled tcgen05.mma (kind::mxf8f6f4.block_scale.block32 on
FP8, kind::mxf4.block_scale.block32 and kind::mxf4nvf4.block_scale.block16 /
.block32 on packed FP4) with its scale factors in Tensor Memory, and
tcgen05.cp.cta_group::1.32x128b.warpx4, which stages them there; see
TCGEN05_BLOCK_SCALE_DOC below.

FP8 wgmma accumulation (see FP8_WGMMA_DOC below): by default each FP8
wgmma instruction adds its K products, exactly, to the accumulator and rounds
once to f32; FP8_WGMMA_ACCUMULATOR_BITS (None by default) models Hopper's
reduced-precision FP8 accumulation instead.

tcgen05.mma runs asynchronously: with `late` copies an MMA reads shared
memory only once a thread has seen the mbarrier phase it was committed to
complete (so a kernel that refills a stage before waiting computes a wrong
result), and tcgen05.ld while an MMA is still pending is an error.

cp.async copies are delayed until a cp.async.wait_group retires their group
(`late`, default) or applied at issue (`early`), and threads run either in
turn to their next collective (`round-robin`) or warp by warp, each as far as
it can (`warps`): a kernel that reads a stage before waiting for it, or
refills a stage another warp still reads, computes a wrong result in one of
the modes.

The generated one-element-per-thread kernels of the device-resident step
(mp-gpu-pipeline{device-resident}) and the libdevice code linked into them:
`.func` definitions and `call.uni` with `.param` call sequences (each call a
new register frame); f64 add/sub/mul/fma/div/sqrt/rcp/neg/abs/min/max;
fma and the directed roundings (.rz/.rm/.rp) of add/sub/mul/fma computed
exactly and rounded once (round_dyadic); .ftz on f32; ex2.approx,
sqrt.approx and rcp.approx.ftz.f64, whose bits the ISA leaves unspecified
(see their handlers for the value chosen); cvt between f32, f64 and
integers with .rn/.rz/.rm/.rp, .rni/.rzi/.rmi/.rpi, .sat and .ftz; setp on
f16, bf16 (each decoded in its format), f32 (.ftz too) and f64; bfe as
the ISA defines it (signed fields sign-extend).

Only the instruction forms LLVM's NVPTX back end emits for these kernels are
supported; anything else stops the simulation with an error naming the
instruction. The simulator is meant for small problems (seconds per block).

Speed (issue 17): each instruction is decoded once (Instruction: its opcode
parts, and for the frequent simple forms a function that runs it, see
fast_path; immediates and addresses are parsed once), and with NumPy
(Debian's python3-numpy, optional) a matrix instruction's sums run as array
operations (accumulate) and its fragments and shared-memory operands are
gathered as arrays. The results are the same bits as the element-by-element
definition, which stays as the fallback: the sums keep its order and its
double roundings, operands holding a NaN take the scalar path, and without
NumPy, or with a Python whose sum() is compensated (3.12+), the scalar code
runs. The GPU simulator tests take a half to a third of the time they
took (tools/bench/gpu/README.md).

Used by tools/bench/check_kernels_on_cpu.py and ptx_sim_launch.py; standard
library only, NumPy when present.
"""

import math
import operator
import re
import struct

try:
    import numpy as _np
except ImportError:  # the scalar paths compute the same bits, slower
    _np = None

MASK = {8: 0xFF, 16: 0xFFFF, 32: 0xFFFFFFFF, 64: 0xFFFFFFFFFFFFFFFF}


class SimulationError(Exception):
    pass


# ----------------------------------------------------------------------------
# Number formats
# ----------------------------------------------------------------------------


_U16, _U32, _U64 = struct.Struct("<H"), struct.Struct("<I"), struct.Struct("<Q")
_F16, _F32, _F64 = struct.Struct("<e"), struct.Struct("<f"), struct.Struct("<d")


def f32_from_bits(bits):
    return _F32.unpack(_U32.pack(bits & 0xFFFFFFFF))[0]


def bits_from_f32(value):
    try:
        return _U32.unpack(_F32.pack(value))[0]
    except OverflowError:
        return 0x7F800000 if value > 0 else 0xFF800000


def round_f32(value):
    return f32_from_bits(bits_from_f32(value))


def f16_from_bits(bits):
    return _F16.unpack(_U16.pack(bits & 0xFFFF))[0]


def bits_from_f16(value):
    """Round to nearest even (struct does), overflow to infinity."""
    try:
        return _U16.unpack(_F16.pack(value))[0]
    except OverflowError:
        return 0x7C00 if value > 0 else 0xFC00


def bf16_from_bits(bits):
    return f32_from_bits((bits & 0xFFFF) << 16)


def bits_from_bf16(value):
    bits = bits_from_f32(value)
    if (bits & 0x7F800000) == 0x7F800000 and bits & 0x7FFFFF:
        return ((bits >> 16) | 0x40) & 0xFFFF
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF


def tf32_rna_bits(bits):
    """cvt.rna.tf32.f32: round to 10 mantissa bits, ties away from zero."""
    if (bits & 0x7F800000) == 0x7F800000:
        return bits & 0xFFFFE000 | (0x1000 if bits & 0x7FFFFF else 0)
    return ((bits + 0x1000) & 0xFFFFE000) & MASK[32]


def f64_from_bits(bits):
    return _F64.unpack(_U64.pack(bits & 0xFFFFFFFFFFFFFFFF))[0]


def bits_from_f64(value):
    return _U64.unpack(_F64.pack(value))[0]


# IEEE binary formats: (significand bits with the hidden one, exponent of the
# smallest normal, exponent of the largest finite).
F32_FORMAT, F64_FORMAT = (24, -126, 127), (53, -1022, 1023)


def dyadic(value):
    """A finite float as (n, e) with value = n * 2**e exactly."""
    mantissa, exponent = math.frexp(value)
    return int(mantissa * (1 << 53)), exponent - 53


def round_dyadic(n, e, mode, fmt):
    """n * 2**e rounded once to the format fmt in PTX rounding mode `mode`
    (rn: nearest even, rz: toward zero, rm: toward -inf, rp: toward +inf),
    with gradual underflow and IEEE overflow; returned as a Python float
    (exact: both formats fit in a double). An exact zero is +0."""
    if n == 0:
        return 0.0
    precision, emin, emax = fmt
    negative, magnitude = n < 0, abs(n)
    leading = e + magnitude.bit_length() - 1
    quantum = max(leading, emin) - (precision - 1)
    if e >= quantum:
        m = magnitude << (e - quantum)
        inexact = False
    else:
        shift = quantum - e
        m, rest = magnitude >> shift, magnitude & ((1 << shift) - 1)
        half = 1 << (shift - 1)
        inexact = rest != 0
        if mode == "rn":
            m += rest > half or (rest == half and m & 1)
        elif mode == ("rm" if negative else "rp"):
            m += inexact
        elif mode not in ("rz", "rm", "rp"):
            raise SimulationError(f"unknown rounding mode {mode}")
    if m.bit_length() - 1 + quantum > emax:
        away = mode == "rn" or mode == ("rm" if negative else "rp")
        result = math.inf if away else math.ldexp((1 << precision) - 1,
                                                  emax - precision + 1)
    else:
        result = math.ldexp(m, quantum)
    return -result if negative else result


def round_exact(terms, mode, fmt):
    """Rounds the exact sum of `terms` (lists of finite float factors: each
    term is their exact product) once to fmt; None when a factor is not
    finite (the caller then takes the IEEE double result, whose special
    values are the same)."""
    pieces = []
    for factors in terms:
        if not all(math.isfinite(x) for x in factors):
            return None
        n, e = 1, 0
        for x in factors:
            xn, xe = dyadic(x)
            n, e = n * xn, e + xe
        pieces.append((n, e))
    total_e = min(e for _, e in pieces)
    total_n = sum(n << (e - total_e) for n, e in pieces)
    if total_n == 0:
        # IEEE 754 6.3: an exact zero sum is +0 (-0 rounding toward -inf)
        # unless every term is a zero of the same sign.
        signs = {math.copysign(1.0, math.prod(factors)) for factors in terms}
        if len(signs) == 1 and all(0.0 in factors for factors in terms):
            return next(iter(signs)) * 0.0
        return -0.0 if mode == "rm" else 0.0
    return round_dyadic(total_n, total_e, mode, fmt)


def flush_subnormal(value, fmt):
    """.ftz: a subnormal of fmt becomes a zero of the same sign."""
    if value and abs(value) < 2.0 ** fmt[1]:
        return math.copysign(0.0, value)
    return value


def _fp8_table(exponent_bits, mantissa_bits, finite_only):
    bias = (1 << (exponent_bits - 1)) - 1
    table = []
    for bits in range(256):
        sign = -1.0 if bits & 0x80 else 1.0
        exponent = (bits >> mantissa_bits) & ((1 << exponent_bits) - 1)
        mantissa = bits & ((1 << mantissa_bits) - 1)
        if finite_only and exponent == (1 << exponent_bits) - 1 and mantissa == (
            1 << mantissa_bits
        ) - 1:
            table.append(math.nan)
        elif not finite_only and exponent == (1 << exponent_bits) - 1:
            table.append(math.nan if mantissa else sign * math.inf)
        elif exponent == 0:
            table.append(sign * mantissa * 2.0 ** (1 - bias - mantissa_bits))
        else:
            table.append(
                sign * (1 + mantissa / (1 << mantissa_bits)) * 2.0 ** (exponent - bias)
            )
    return table


E4M3 = _fp8_table(4, 3, finite_only=True)
E5M2 = _fp8_table(5, 2, finite_only=False)

# Element decoders of the multiplicand types, by PTX type name.
DECODE = {
    "f16": (2, f16_from_bits),
    "bf16": (2, bf16_from_bits),
    # The Tensor Core reads the top 19 bits of a tf32 operand.
    "tf32": (4, lambda bits: f32_from_bits(bits & 0xFFFFE000)),
    "s8": (1, lambda bits: bits - 256 if bits & 0x80 else bits),
    "e4m3": (1, lambda bits: E4M3[bits]),
    "e5m2": (1, lambda bits: E5M2[bits]),
    "u8": (1, lambda bits: bits),
}

# tcgen05.mma: the A/B type of an instruction descriptor's code, per kind.
TCGEN05_TYPES = {
    "f16": {0: "f16", 1: "bf16"},
    "tf32": {2: "tf32"},
    "f8f6f4": {0: "e4m3", 1: "e5m2"},
    "i8": {0: "u8", 1: "s8"},
}
TMEM_LANES, TMEM_COLUMNS = 128, 512

# The simulator's encoding of a CUtensorMap (128 bytes, little-endian), which
# the simulated CUDA driver's mgpuTensorMapEncodeTiled writes and
# cp.async.bulk.tensor reads: the layout of docs/GPU.md ("Tensor maps"),
# with the arrays shrunk to rank 3 so that it fits in 128 bytes (the full
# rank-5 arrays take 144):
#   u64 global address, u32 rank (1-3), u32 element bytes,
#   u64 dims[3] (elements, innermost first), u64 strides_bytes[2] (of dims
#   1 and 2), u32 box[3], u32 element_strides[3], u32 interleave,
#   u32 swizzle (CUtensorMapSwizzle: 0 none, 3 = 128 bytes),
#   u32 l2promotion, u32 oobfill (0: zeros), zero padding to 128 bytes.
TENSOR_MAP_LAYOUT = struct.Struct("<QII3Q2Q3I3I4I")
TENSOR_MAP_BYTES = 128


def pack_tensor_map(address, element_bytes, dims, strides_bytes, box,
                    element_strides=None, interleave=0, swizzle=3,
                    l2promotion=0, oobfill=0):
    """The 128 bytes of a tensor map of rank len(dims) <= 3."""
    rank = len(dims)
    if not 1 <= rank <= 3 or len(strides_bytes) != rank - 1 or len(box) != rank:
        raise SimulationError(f"tensor map of rank {rank}: dims {dims}, strides "
                              f"{strides_bytes}, box {box}")
    pad = lambda values, n: list(values) + [0] * (n - len(values))
    data = TENSOR_MAP_LAYOUT.pack(
        address, rank, element_bytes, *pad(dims, 3), *pad(strides_bytes, 2),
        *pad(box, 3), *pad(element_strides or [1] * rank, 3), interleave,
        swizzle, l2promotion, oobfill)
    return data + bytes(TENSOR_MAP_BYTES - len(data))


def unpack_tensor_map(data):
    fields = TENSOR_MAP_LAYOUT.unpack_from(data)
    address, rank, element_bytes = fields[:3]
    if not 1 <= rank <= 3:
        raise SimulationError(f"tensor map of rank {rank} (the simulator "
                              "encodes ranks 1-3)")
    return {"address": address, "rank": rank, "element_bytes": element_bytes,
            "dims": list(fields[3:3 + rank]),
            "strides": list(fields[6:6 + rank - 1]),
            "box": list(fields[8:8 + rank]),
            "element_strides": list(fields[11:11 + rank]),
            "interleave": fields[14], "swizzle": fields[15],
            "l2promotion": fields[16], "oobfill": fields[17]}


class WgmmaGroups:
    """The wgmma groups of one warpgroup not yet retired: the operations of
    the open (uncommitted) group, then the committed groups, oldest first.
    An operation is (group id, its operand matrices as read at issue, how to
    re-read them)."""

    def __init__(self):
        self.open = []
        self.committed = []
        self.next_id = 0


_DECODE_TABLES = {}
_DECODE_ARRAYS = {}


def decode_array(ptx_type):
    """split_elements' table of an 8- or 16-bit type as a NumPy array (the
    same doubles, or ints)."""
    if ptx_type not in _DECODE_ARRAYS:
        split_elements(0, ptx_type)  # builds the table
        _DECODE_ARRAYS[ptx_type] = _np.array(_DECODE_TABLES[ptx_type])
    return _DECODE_ARRAYS[ptx_type]
_MMA_POSITIONS = {}
_WGMMA_POSITIONS = {}


def wgmma_positions(count):
    """NumPy index arrays (thread of the warpgroup x register) of the row and
    column of each of the `count` f32/s32 accumulator registers of a wgmma
    (m64), as wgmma_scalar places them."""
    if count not in _WGMMA_POSITIONS:
        lane = _np.arange(128)[:, None]
        i = _np.arange(count)[None, :]
        warp, g, t = lane // 32, (lane % 32) // 4, lane % 4
        _WGMMA_POSITIONS[count] = (16 * warp + g + 8 * ((i % 4) // 2),
                                   8 * (i // 4) + 2 * t + i % 2)
    return _WGMMA_POSITIONS[count]


def mma_index(operand, per, count):
    """mma_positions as NumPy arrays of rows and columns (lane, register,
    element) and the number of distinct positions; cached."""
    key = ("index", operand, per, count)
    if key not in _MMA_POSITIONS:
        index = _np.array(mma_positions(operand, per, count))
        rows, cols = index[..., 0], index[..., 1]
        _MMA_POSITIONS[key] = rows, cols, len(set(zip(rows.ravel().tolist(),
                                                         cols.ravel().tolist())))
    return _MMA_POSITIONS[key]


def mma_positions(operand, per, count):
    """The (row, column) of A (operand "a") or the (k, column) of B ("b")
    of each element (per of them per register) of the `count` fragment
    registers of each lane of an m16n8 mma.sync, as mma_sync defines them."""
    key = (operand, per, count)
    if key not in _MMA_POSITIONS:
        lanes = []
        for lane in range(32):
            g, t = lane // 4, lane % 4
            registers = []
            for i in range(count):
                positions = []
                for j in range(per):
                    if operand == "a":
                        if per == 2:
                            positions.append((g + 8 * (i % 2), 2 * t + j + 8 * (i // 2)))
                        elif per == 1:
                            positions.append((g + 8 * (i % 2), t + 4 * (i // 2)))
                        else:
                            positions.append((g + 8 * (i % 2), 4 * t + j + 16 * (i // 2)))
                    else:
                        if per == 2:
                            kk = 2 * t + j + 8 * i
                        elif per == 1:
                            kk = t + 4 * i
                        else:
                            kk = 4 * t + j + 16 * i
                        positions.append((kk, g))
                registers.append(positions)
            lanes.append(registers)
        _MMA_POSITIONS[key] = lanes
    return _MMA_POSITIONS[key]


def split_elements(word, ptx_type):
    """The elements packed in a 32-bit fragment register, low to high (8-
    and 16-bit types through a table of every bit pattern's decode, built
    once)."""
    width, decode = DECODE[ptx_type]
    if width == 4:
        return [decode(word & MASK[32])]
    table = _DECODE_TABLES.get(ptx_type)
    if table is None:
        table = _DECODE_TABLES[ptx_type] = [decode(x) for x in range(1 << (8 * width))]
    if width == 2:
        return [table[word & 0xFFFF], table[(word >> 16) & 0xFFFF]]
    return [table[word & 0xFF], table[(word >> 8) & 0xFF],
            table[(word >> 16) & 0xFF], table[(word >> 24) & 0xFF]]


# ----------------------------------------------------------------------------
# Vectorised sums of the matrix instructions
# ----------------------------------------------------------------------------

# NumPy computes the matrix instructions' sums, with the same operations in
# the same order as the scalar definition `old + sum(a * b for ...)`: each
# product rounded to double, added one after the other to a sum that starts
# at +0 (Python's sum() of floats up to 3.11 adds sequentially; 3.12's is
# compensated, and the scalar path then stays the definition), then added to
# the old accumulator. Operands with a NaN take the scalar path, so that a
# NaN's payload cannot depend on the order SIMD code adds two NaNs in.
VECTOR_SUMS = _np is not None and sum([1e16, 1.0, -1e16]) == 0.0


def accumulate(old, A, B, integer):
    """[[old[i][j] + sum(A[i][x] * B[j][x] for x in range(k))]] (A: m x k,
    B: n x k, old: m x n) as a NumPy array with exactly the scalar
    definition's values (int64 for integer operands), or None where the
    scalar path must compute it."""
    if not VECTOR_SUMS:
        return None
    dtype = _np.int64 if integer else _np.float64
    try:
        a = _np.array(A, dtype=dtype)
        b = _np.array(B, dtype=dtype)
        c = _np.array(old, dtype=dtype)
    except (TypeError, ValueError, OverflowError):
        return None
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[1] \
            or c.shape != (a.shape[0], b.shape[0]):
        return None
    if not integer and (_np.isnan(a).any() or _np.isnan(b).any()
                        or _np.isnan(c).any()):
        return None
    acc = _np.zeros(c.shape, dtype)
    with _np.errstate(all="ignore"):
        for x in range(a.shape[1]):
            acc += _np.multiply.outer(a[:, x], b[:, x])
        return c + acc


def f32_bits_array(totals):
    """bits_from_f32 of each double of the array `totals`, as nested lists
    of ints; NumPy casts them where no value is a NaN (the same bits)."""
    if _np.isnan(totals).any():
        return [[bits_from_f32(x) for x in row] for row in totals.tolist()]
    with _np.errstate(all="ignore"):
        return totals.astype(_np.float32).view(_np.uint32).tolist()


# ----------------------------------------------------------------------------
# Parsing
# ----------------------------------------------------------------------------


class Instruction:
    """One statement; `parts` (the opcode split at its dots), whether it
    is a collective or an mbarrier.try_wait, and for the most frequent
    simple forms a function that runs it (`fast`, see fast_path) are
    decoded once, here, instead of at every execution."""

    __slots__ = ("guard", "negated", "opcode", "operands", "text", "parts",
                 "collective", "try_wait", "fast")

    def __init__(self, guard, negated, opcode, operands, text):
        self.guard = guard
        self.negated = negated
        self.opcode = opcode
        self.operands = operands
        self.text = text
        self.parts = opcode.split(".")
        self.collective = opcode.startswith(COLLECTIVE_PREFIXES)
        self.try_wait = opcode.startswith("mbarrier.try_wait")
        self.fast = fast_path(self)


# The opcodes of execute's integer_op, float64_op and float_op branches.
INTEGER_OPS = ("add", "sub", "mul", "mad", "min", "max", "shl", "shr", "and", "or",
               "xor", "not", "neg", "bfe", "div", "rem")
FLOAT_TYPES = ("f32", "f64", "f16", "bf16")
FLOAT64_OPS = ("add", "sub", "mul", "fma", "max", "min", "neg", "abs", "rcp", "div",
               "sqrt")
FLOAT_OPS = ("add", "sub", "mul", "fma", "max", "min", "neg", "abs", "ex2", "rcp",
             "div", "sqrt", "copysign")


def delegate(parts):
    """The BlockSimulator method (integer_op, float64_op, float_op, setp,
    cvt) that execute's if-chain calls for an opcode, None for the opcodes
    it handles otherwise; so that fast_path's function can call it
    directly."""
    base = parts[0]
    if base == "selp" or (base in INTEGER_OPS and parts[-1] not in FLOAT_TYPES):
        return "integer_op"
    if base == "setp":
        return "setp"
    if base == "cvt":
        return "cvt"
    if base in FLOAT64_OPS and parts[-1] == "f64":
        return "float64_op"
    if base in FLOAT_OPS:
        return "float_op"
    return None


INTEGER_BINARY = {"add": operator.add, "sub": operator.sub, "and": operator.and_,
                  "or": operator.or_, "xor": operator.xor}
INTEGER_COMPARISONS = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt,
                       "le": operator.le, "gt": operator.gt, "ge": operator.ge,
                       "lo": operator.lt, "ls": operator.le, "hi": operator.gt,
                       "hs": operator.ge}
INTEGER_TYPES = {f"{kind}{bits}": bits for kind in "bus" for bits in (8, 16, 32, 64)}


SPECIAL_REGISTERS = ("%tid.x", "%tid.y", "%tid.z", "%ntid.x", "%ctaid.x",
                     "%ctaid.y", "%ctaid.z")


def operand_source(operand, bits):
    """How fast_path's functions read an operand: (True, name) for a
    register (read from the thread's registers), (False, value) for an
    immediate (BlockSimulator.value's result, computed once), and
    (True, None) for anything else (special registers, symbols: read
    through BlockSimulator.value)."""
    if operand.startswith("%"):
        return (True, None) if operand in SPECIAL_REGISTERS else (True, operand)
    constant = immediate(operand)
    if constant is None:
        return True, None
    kind, number = constant
    return False, number if kind == "float" else number & MASK[bits]


def fast_path(ins):
    """A function (simulator, thread) that runs `ins` exactly as
    BlockSimulator.execute does (the same results; an operand is read
    through BlockSimulator.value, with its errors, unless it is a register
    that is set while no wgmma accumulator is in flight, or an immediate),
    for the simplest forms of the most frequent opcodes: bra, mov of one
    register or immediate, the integer add/sub/and/or/xor/shl/shr, setp on
    integers, cvt between integers and cvt f32 to f16/bf16; None for every
    other instruction (execute runs those)."""
    parts, o = ins.parts, ins.operands
    base = parts[0]
    if base == "bra" and o:
        target = o[0]

        def run(sim, thread):
            thread.pc = sim.kernel.labels[target]
        return run
    if base == "mov" and len(parts) == 2 and len(o) == 2 \
            and not o[0].startswith("{") and not o[1].startswith("{") \
            and bits_of(parts[1]) in MASK:
        width = bits_of(parts[1])
        mask, destination, x = MASK[width], o[0], o[1]
        x_reg, x_value = operand_source(x, width)

        def run(sim, thread):
            regs = thread.regs
            if not x_reg:
                regs[destination] = x_value & mask
            elif thread.wgmma_inflight or x_value not in regs:
                regs[destination] = sim.value(thread, x, width) & mask
            else:
                regs[destination] = regs[x_value] & mask
            thread.pc += 1
        return run
    method = delegate(parts)
    if method is not None:
        # Straight to the method execute's branch for the opcode calls.
        def run(sim, thread):
            getattr(sim, method)(thread, ins, parts)
            thread.pc += 1
        fallback = run
    else:
        fallback = None
    if base in ("and", "or", "xor", "not") and len(parts) == 2 \
            and parts[1] == "pred" and len(o) == (2 if base == "not" else 3):
        destination, x = o[0], o[1]
        y = o[2] if base != "not" else None
        combine = {"and": lambda a, b: a and b, "or": lambda a, b: a or b,
                   "xor": operator.ne, "not": lambda a, b: not a}[base]

        def run(sim, thread):
            a = bool(sim.value(thread, x))
            b = bool(sim.value(thread, y)) if y is not None else None
            thread.regs[destination] = 1 if combine(a, b) else 0
            thread.pc += 1
        return run
    if base == "selp" and len(parts) == 2 and len(o) == 4 and parts[1] != "pred" \
            and bits_of(parts[1]) in MASK:
        width = 64 if parts[1].endswith("64") else 32 if parts[1] != "b16" else 16
        destination, x, y, condition = o

        def run(sim, thread):
            value = sim.value
            thread.regs[destination] = value(thread, x, width) \
                if value(thread, condition) else value(thread, y, width)
            thread.pc += 1
        return run
    if base in ("mul", "mad") and len(parts) == 3 and parts[1] in ("lo", "wide") \
            and parts[2] in INTEGER_TYPES and len(o) == (3 if base == "mul" else 4):
        width = INTEGER_TYPES[parts[2]]
        wide = parts[1] == "wide"
        if wide and 2 * width not in MASK:
            return fallback
        mask = MASK[2 * width] if wide else MASK[width]
        # integer_op: mul.wide multiplies the signed values of .s types;
        # mul.lo, mad.lo and mad.wide the unsigned ones.
        to_signed = base == "mul" and wide and parts[2][0] == "s"
        destination, x, y = o[0], o[1], o[2]
        z = o[3] if base == "mad" else None

        def run(sim, thread):
            value = sim.value
            a, b = value(thread, x, width), value(thread, y, width)
            if to_signed:
                a, b = signed(a, width), signed(b, width)
            product = a * b if z is None else a * b + value(thread, z, width)
            thread.regs[destination] = product & mask
            thread.pc += 1
        return run
    if base in ("min", "max") and len(parts) == 2 and len(o) == 3 \
            and parts[1] in INTEGER_TYPES:
        width = INTEGER_TYPES[parts[1]]
        mask, (destination, x, y) = MASK[width], o
        is_signed, choose = parts[1][0] == "s", min if base == "min" else max

        def run(sim, thread):
            a, b = sim.value(thread, x, width), sim.value(thread, y, width)
            if is_signed:
                a, b = signed(a, width), signed(b, width)
            thread.regs[destination] = choose(a, b) & mask
            thread.pc += 1
        return run
    binary = len(parts) == 2 and len(o) == 3 and parts[1] in INTEGER_TYPES \
        and (base in INTEGER_BINARY or base in ("shl", "shr"))
    compare = base == "setp" and len(parts) == 3 and len(o) == 3 \
        and parts[1] in INTEGER_COMPARISONS and parts[2] in INTEGER_TYPES \
        and parts[2] != "b8"  # setp.b8 is unsupported (execute says so)
    if binary or compare:
        width = INTEGER_TYPES[parts[-1]]
        mask, (destination, x, y) = MASK[width], o
        # shl and shr read their shift as 32 bits.
        y_width = 32 if base in ("shl", "shr") else width
        x_reg, x_value = operand_source(x, width)
        y_reg, y_value = operand_source(y, y_width)
        is_signed = parts[-1][0] == "s"
        if base == "setp":
            function = INTEGER_COMPARISONS[parts[1]]
            if is_signed:
                def compute(a, b):
                    return 1 if function(signed(a, width), signed(b, width)) else 0
            else:
                def compute(a, b):
                    return 1 if function(a, b) else 0
        elif base in INTEGER_BINARY:
            function = INTEGER_BINARY[base]

            def compute(a, b):
                return function(a, b) & mask
        elif base == "shl":
            def compute(a, shift):
                return (a << shift if shift < width else 0) & mask
        elif is_signed:
            def compute(a, shift):
                return (signed(a, width) >> min(shift, width - 1)) & mask
        else:
            def compute(a, shift):
                return (a >> shift if shift < width else 0) & mask

        def run(sim, thread):
            regs = thread.regs
            if thread.wgmma_inflight or (x_reg and x_value not in regs) \
                    or (y_reg and y_value not in regs):
                a, b = sim.value(thread, x, width), sim.value(thread, y, y_width)
            else:
                a = regs[x_value] if x_reg else x_value
                b = regs[y_value] if y_reg else y_value
            regs[destination] = compute(a, b)
            thread.pc += 1
        return run
    if base == "cvt" and len(parts) >= 3 and len(o) >= 2:
        destination_type, source_type = parts[-2], parts[-1]
        destination, x = o[0], o[1]
        if destination_type in ("u64", "s64", "u32", "s32", "u16", "s16") \
                and source_type in INTEGER_TYPES and source_type[0] in "us":
            source_bits = INTEGER_TYPES[source_type]
            source_mask = MASK[source_bits]
            mask = MASK[int(destination_type[1:])]
            if source_type[0] == "s":
                def convert(value):
                    return signed(value & source_mask, source_bits) & mask
            else:
                def convert(value):
                    return value & source_mask & mask
        elif source_type == "f32" and destination_type in ("f16", "bf16"):
            encode = bits_from_f16 if destination_type == "f16" else bits_from_bf16

            def convert(value):
                return encode(f32_from_bits(value))
        else:
            return fallback
        x_reg, x_value = operand_source(x, 64)

        def run(sim, thread):
            regs = thread.regs
            if not x_reg:
                value = x_value
            elif thread.wgmma_inflight or x_value not in regs:
                value = sim.value(thread, x, 64)
            else:
                value = regs[x_value]
            regs[destination] = convert(value)
            thread.pc += 1
        return run
    return fallback


def bits_of(type_name, _cache={}):
    """The bits of a PTX type name (b32: 32; 32 when it names none)."""
    try:
        return _cache[type_name]
    except KeyError:
        bits = _cache[type_name] = int(re.sub(r"\D", "", type_name) or 32)
        return bits


def immediate(operand, _cache={}):
    """The value of an immediate operand (0f/0d float bits, decimal or hex,
    possibly negative) before masking, None if it is not one; cached."""
    try:
        return _cache[operand]
    except KeyError:
        pass
    if re.match(r"^0[fF][0-9a-fA-F]{8}$", operand) \
            or re.match(r"^0[dD][0-9a-fA-F]{16}$", operand):
        result = ("float", int(operand[2:], 16))
    elif re.match(r"^-?(0x[0-9a-fA-F]+|\d+)$", operand):
        result = ("int", int(operand, 0))
    else:
        result = None
    _cache[operand] = result
    return result


def address_operand(operand, _cache={}):
    """[base+offset] as (base operand, offset), None if unsupported; cached."""
    try:
        return _cache[operand]
    except KeyError:
        pass
    inner = operand.strip("[]").replace(" ", "")
    match = re.match(r"^([%\w$.]+)(?:\+(-?\d+))?$", inner)
    result = (match.group(1), int(match.group(2) or 0)) if match else None
    _cache[operand] = result
    return result


class Kernel:
    def __init__(self, name, params):
        self.name = name
        self.params = params  # [(ptx type, name)]
        self.instructions = []
        self.labels = {}
        self.functions = {}  # name: (first instruction, params, returns)


def split_operands(text):
    operands, depth, current = [], 0, ""
    for c in text:
        if c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
        if c == "," and depth == 0:
            operands.append(current.strip())
            current = ""
        else:
            current += c
    if current.strip():
        operands.append(current.strip())
    return operands


def parse_ptx(text):
    """Returns {kernel name: Kernel} and the shared symbols of the module."""
    text = re.sub(r"//[^\n]*", "", text)
    kernels = {}
    shared_symbols = re.findall(r"\.shared\s+(?:\.align\s+\d+\s+)?\.b8\s+(\w+)\[", text)
    for match in re.finditer(r"\.entry\s+(\w+)\s*\((.*?)\)[^{]*\{", text, re.S):
        params = re.findall(r"\.param\s+\.(\w+)\s+(?:\.ptr\s+\.align\s+\d+\s+)?(\w+)",
                            match.group(2))
        kernel = Kernel(match.group(1), params)
        # The body ends at the brace matching the one after the header
        # (inline-asm scopes nest inside).
        depth, end = 1, match.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            end += 1
        _parse_body(text[match.end() : end - 1], kernel)
        kernels[kernel.name] = kernel
    functions = _parse_functions(text)
    for kernel in kernels.values():
        for function in functions:
            _append_function(kernel, function)
    return kernels, shared_symbols


def parse_globals(text):
    """The module-scope `.global` and `.const` variables of a module (a
    constant global of mp-gpu-pipeline{device-resident}: `.global .align 64
    .b8 name[16] = {0, 0, 128, 63, ...};`) as [(name, alignment, initial
    bytes)], zeros where there is no initializer. The driver places each in
    device memory when it loads the module; `mov.b64 %rd, name` gives its
    address."""
    text = re.sub(r"//[^\n]*", "", text)
    # Module scope only: drop the bodies of kernels and functions.
    scope, depth = [], 0
    for c in text:
        if c == "{" and depth == 0 and not re.search(r"=\s*$", "".join(scope[-8:])):
            depth = 1
            continue
        if depth:
            depth += {"{": 1, "}": -1}.get(c, 0)
            continue
        scope.append(c)
    variables = []
    for statement in "".join(scope).split(";"):
        # Directives without a semicolon (.version, .target) end at a line.
        statement = re.sub(r"^(?:\s*\.(?:version|target|address_size)[^\n]*\n)*",
                           "", statement)
        match = re.match(
            r"^\s*(?:\.(?:visible|weak|extern)\s+)?\.(global|const)\s+"
            r"(?:\.align\s+(\d+)\s+)?\.([busf])(\d+)\s+(\w+)\s*"
            r"(?:\[(\d+)\])?\s*(?:=\s*(.*))?$", statement, re.S)
        if not match:
            if re.match(r"^\s*(?:\.\w+\s+)*\.(global|const)\s", statement):
                raise SimulationError("unsupported module variable: " +
                                      " ".join(statement.split()))
            continue
        if statement.lstrip().startswith(".extern"):
            raise SimulationError(f"extern module variable {match.group(5)}")
        kind, width = match.group(3), int(match.group(4))
        count = int(match.group(6) or 1)
        size = width // 8
        data = bytearray(size * count)
        if match.group(7):
            values = split_operands(match.group(7).strip().strip("{}"))
            if len(values) > count:
                raise SimulationError(f"{len(values)} initial values for "
                                      f"{match.group(5)}[{count}]")
            for i, value in enumerate(values):
                value = value.strip()
                if re.match(r"^0[fFdD][0-9a-fA-F]+$", value):
                    bits = int(value[2:], 16)
                elif re.match(r"^-?(0x[0-9a-fA-F]+|\d+)[uU]?$", value):
                    bits = int(value.rstrip("uU"), 0)
                else:
                    raise SimulationError(f"unsupported initial value {value} "
                                          f"of {match.group(5)}")
                if kind == "f" and not value.startswith("0"):
                    raise SimulationError(f"unsupported initial value {value} "
                                          f"of {match.group(5)}")
                data[i * size:(i + 1) * size] = (bits & MASK[width]).to_bytes(
                    size, "little")
        variables.append((match.group(5), int(match.group(2) or size), bytes(data)))
    return variables


def _parse_body(body, kernel):
    """Appends the instructions and labels of a kernel or function body."""
    for statement in _statements(body):
        statement = statement.strip()
        if not statement:
            continue
        label = re.match(r"^(\$?\w+):$", statement)
        if label:
            kernel.labels[label.group(1)] = len(kernel.instructions)
            continue
        if statement.startswith("."):
            continue  # .reg, .shared declarations
        guard, negated = None, False
        guard_match = re.match(r"^@(!?)(%?\w+)\s+(.*)$", statement, re.S)
        if guard_match:
            negated = guard_match.group(1) == "!"
            guard = guard_match.group(2)
            statement = guard_match.group(3)
        parts = statement.split(None, 1)
        opcode = parts[0]
        operands = split_operands(parts[1]) if len(parts) > 1 else []
        kernel.instructions.append(
            Instruction(guard, negated, opcode, operands, statement)
        )


def _parse_functions(text):
    """The `.func` definitions of a module (libdevice's internal functions
    such as __internal_accurate_pow) as Kernel objects whose params are the
    formal parameters; `returns` lists the formal return parameters."""
    functions = []
    for match in re.finditer(
            r"\.func\s+(?:\(([^)]*)\)\s*)?(\w+)\s*\(([^)]*)\)\s*\{", text):
        function = Kernel(match.group(2), re.findall(
            r"\.param\s+\.(\w+)\s+(?:\.align\s+\d+\s+)?(\w+)", match.group(3)))
        function.returns = re.findall(r"\.param\s+\.\w+\s+(\w+)",
                                      match.group(1) or "")
        depth, end = 1, match.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            end += 1
        _parse_body(text[match.end() : end - 1], function)
        functions.append(function)
    return functions


def _append_function(kernel, function):
    """Places a function's instructions after the kernel's: `call` jumps to
    kernel.functions[name] = (first instruction, formal parameter names,
    formal return names)."""
    start = len(kernel.instructions)
    kernel.instructions.extend(function.instructions)
    for label, index in function.labels.items():
        if label in kernel.labels:
            raise SimulationError(f"label {label} of function {function.name} "
                                  f"repeats one of kernel {kernel.name}")
        kernel.labels[label] = start + index
    kernel.functions[function.name] = (
        start, [name for _, name in function.params], function.returns)


def _statements(body):
    """Splits a kernel body into labels and `;`-terminated statements, keeping
    vector operands `{...}` whole and dropping the braces of inline-asm
    scopes."""
    statements, current, depth = [], "", 0
    i = 0
    while i < len(body):
        c = body[i]
        if c == "{":
            # A vector operand follows an opcode or a comma on the same
            # statement; a scope brace starts a statement.
            if current.strip():
                depth += 1
                current += c
            i += 1
            continue
        if c == "}":
            if depth:
                depth -= 1
                current += c
            i += 1
            continue
        if c == ";" and depth == 0:
            statements.append(current)
            current = ""
        elif c == "\n" and depth == 0 and re.match(r"^\s*\$?\w+:\s*$", current):
            statements.append(current.strip())
            current = ""
        else:
            current += c
        i += 1
    statements.append(current)
    result = []
    for statement in statements:
        statement = statement.strip()
        # A label may precede a statement on the same "statement".
        while True:
            label = re.match(r"^(\$?\w+):\s*(.*)$", statement, re.S)
            if not label:
                break
            result.append(label.group(1) + ":")
            statement = label.group(2).strip()
        result.append(statement)
    return result


# ----------------------------------------------------------------------------
# Memory
# ----------------------------------------------------------------------------


class GlobalMemory:
    """Buffers at fixed, 256-byte aligned device addresses."""

    def __init__(self):
        self.buffers = []  # (base, bytearray)
        self.next = 0x10000000

    def allocate(self, data):
        base = self.next
        self.buffers.append((base, bytearray(data)))
        self.next += (max(len(data), 1) + 0xFFFFF) & ~0xFFFFF
        return base

    def locate(self, address, size):
        for base, data in self.buffers:
            if base <= address and address + size <= base + len(data):
                return data, address - base
        raise SimulationError(f"global access of {size} bytes at {address:#x} is "
                              "out of bounds")

    def read(self, address, size):
        data, offset = self.locate(address, size)
        return bytes(data[offset : offset + size])

    def write(self, address, payload):
        data, offset = self.locate(address, len(payload))
        data[offset : offset + len(payload)] = payload

    def buffer(self, base):
        for start, data in self.buffers:
            if start == base:
                return data
        raise KeyError(base)


class SharedMemory:
    def __init__(self, size):
        self.data = bytearray(size)

    def read(self, address, size):
        if address < 0 or address + size > len(self.data):
            raise SimulationError(
                f"shared access of {size} bytes at {address} beyond {len(self.data)}")
        return bytes(self.data[address : address + size])

    def write(self, address, payload):
        if address < 0 or address + len(payload) > len(self.data):
            raise SimulationError(
                f"shared access of {len(payload)} bytes at {address} beyond "
                f"{len(self.data)}")
        self.data[address : address + len(payload)] = payload


def to_int(value, bits):
    return int.from_bytes(value, "little") & MASK[bits]


def signed(value, bits):
    value &= MASK[bits]
    return value - (1 << bits) if value >> (bits - 1) else value


# ----------------------------------------------------------------------------
# Threads and blocks
# ----------------------------------------------------------------------------


class Thread:
    __slots__ = ("tid", "regs", "pc", "waiting", "done", "groups", "open_group",
                 "mma_queue", "wgmma_inflight", "frames", "param_space")

    def __init__(self, tid):
        self.tid = tid
        self.regs = {}
        self.pc = 0
        self.waiting = None  # the collective opcode the thread waits at
        self.done = False
        self.groups = []  # committed cp.async groups, oldest first
        self.open_group = []
        self.mma_queue = []  # tcgen05.mma issued, not yet committed
        # wgmma accumulator registers of groups not yet retired: register ->
        # the group's index in the warpgroup's WgmmaGroups.
        self.wgmma_inflight = {}
        self.frames = []  # calls: (return pc, caller registers, caller params)
        self.param_space = {}  # .param variables of call sequences


COLLECTIVE_PREFIXES = ("bar.sync", "ldmatrix", "mma.sync", "wgmma.mma_async",
                       "wgmma.fence", "wgmma.commit_group", "wgmma.wait_group",
                       "tcgen05.alloc", "tcgen05.dealloc", "tcgen05.ld",
                       "tcgen05.st", "stmatrix", "bar.warp.sync")


class MBarrier:
    """An mbarrier object: `phase` phases have completed; `ops[i]` are the
    numbers of the tcgen05.commits to phase i whose operations may not have
    run yet (BlockSimulator.committed)."""

    def __init__(self, count):
        self.count = count
        self.pending = count
        self.phase = 0
        self.ops = {}
        self.tx = 0  # expected transaction bytes not yet completed
        self.transactions = []  # TMA copies not yet landed (late mode)

    def arrive(self, count=1):
        """An arrive-on: completes the phase once every arrival and every
        expected transaction byte is in."""
        if self.pending < count:
            raise SimulationError(f"mbarrier arrive of {count} with {self.pending} "
                                  "pending arrivals")
        self.pending -= count
        self.try_complete()

    def try_complete(self):
        if self.pending == 0 and self.tx == 0:
            self.phase += 1
            self.pending = self.count

    def complete(self, parity):
        """try_wait.parity: whether the phase of that parity completed, i.e.
        the current (incomplete) phase has the other parity."""
        return self.phase % 2 != parity


class BlockSimulator:
    def __init__(self, kernel, shared_symbols, memory, params, block_dim,
                 block_idx, grid_dim, shared_bytes, cp_async="late",
                 schedule="round-robin", global_symbols=None):
        self.kernel = kernel
        self.memory = memory
        self.shared = SharedMemory(shared_bytes)
        self.symbols = {name: 0 for name in shared_symbols}
        # Module variables (parse_globals): name -> device address.
        self.symbols.update(global_symbols or {})
        self.params = dict(zip([name for _, name in kernel.params], params))
        self.block_dim = block_dim
        self.block_idx = block_idx
        self.grid_dim = grid_dim
        self.cp_async = cp_async
        self.schedule = schedule
        self.threads = [Thread(t) for t in range(block_dim)]
        self.executed = 0
        self.tmem = [[0] * TMEM_COLUMNS for _ in range(TMEM_LANES)]
        self.tmem_allocations = {}  # first column: columns
        self.mbarriers = {}  # shared address: MBarrier
        # tcgen05 commits not run yet: (commit number, operations), in order.
        self.committed = []
        self.commit_count = 0
        self.wgmma_groups = {}  # first thread of a warpgroup: WgmmaGroups
        self.max_registers = {}  # first thread of a warpgroup: setmaxnreg

    # -- operands ------------------------------------------------------------

    def value(self, thread, operand, bits=32):
        # Fast path: a register that is set (no special register ever is)
        # with no wgmma accumulator in flight.
        if not thread.wgmma_inflight:
            result = thread.regs.get(operand)
            if result is not None:
                return result
        if operand.startswith("%"):
            if operand in ("%tid.x",):
                return thread.tid
            if operand == "%ctaid.x":
                return self.block_idx[0]
            if operand == "%ctaid.y":
                return self.block_idx[1]
            if operand == "%ctaid.z":
                return self.block_idx[2]
            if operand in ("%tid.y", "%tid.z"):
                return 0
            if operand == "%ntid.x":
                return self.block_dim
            if thread.wgmma_inflight and operand in thread.wgmma_inflight:
                raise SimulationError(
                    f"thread {thread.tid} reads {operand}, an accumulator of a "
                    "wgmma group still in flight (missing wgmma.wait_group)")
            try:
                return thread.regs[operand]
            except KeyError:
                raise SimulationError(f"read of unset register {operand}")
        if operand in thread.regs:  # inline-asm local registers (p)
            return thread.regs[operand]
        if operand in self.symbols:
            return self.symbols[operand]
        constant = immediate(operand)
        if constant is not None:
            kind, number = constant
            return number if kind == "float" else number & MASK[bits]
        raise SimulationError(f"unsupported operand {operand}")

    @staticmethod
    def check_alignment(address, size, what):
        if address % size:
            raise SimulationError(f"misaligned {what}: {size}-byte access at "
                                  f"{address:#x}")

    def address(self, thread, operand):
        decoded = address_operand(operand)
        if decoded is None:
            raise SimulationError(f"unsupported address {operand}")
        base = self.value(thread, decoded[0], 64)
        return (base + decoded[1]) & MASK[64]

    # -- execution -----------------------------------------------------------

    def run(self, max_steps=50_000_000):
        instructions = self.kernel.instructions
        warps = [self.threads[i : i + 32] for i in range(0, self.block_dim, 32)]
        while True:
            progressed = False
            # Round robin: every thread runs to its next collective in turn.
            # Warp by warp: each warp runs as far as it can before the next
            # one starts, so a missing barrier shows up as a race.
            for group in ([self.threads] if self.schedule == "round-robin" else warps):
                while True:
                    ran = False
                    for thread in group:
                        if not thread.done and not thread.waiting:
                            self.run_thread(thread, instructions)
                            ran = True
                    released = self.release_groups(group, 32)
                    progressed |= ran or released
                    if not (ran or released) or self.schedule == "round-robin":
                        break
            if all(t.done for t in self.threads):
                return
            released = self.release_barrier()
            released |= self.release_groups(self.threads, 128)
            released |= self.release_mbarrier_waits()
            if not progressed and not released:
                states = {(t.pc, t.waiting, t.done) for t in self.threads}
                raise SimulationError(f"deadlock: thread states {sorted(states)[:8]}")
            if self.executed > max_steps:
                raise SimulationError("step limit exceeded")

    def run_thread(self, thread, instructions):
        while not thread.done:
            instruction = instructions[thread.pc]
            if instruction.guard is not None:
                predicate = self.value(thread, instruction.guard)
                if bool(predicate) == instruction.negated:
                    thread.pc += 1
                    continue
            if instruction.collective:
                thread.waiting = instruction.opcode
                return
            if instruction.try_wait and not self.mbarrier_ready(
                    thread, instruction):
                thread.waiting = "mbarrier.try_wait"
                return
            self.executed += 1
            if instruction.fast is not None:
                instruction.fast(self, thread)
            else:
                self.execute(thread, instruction)

    def release_barrier(self):
        live = [t for t in self.threads if not t.done]
        if live and all(t.waiting and t.waiting.startswith("bar.sync") for t in live):
            for t in live:
                t.waiting = None
                t.pc += 1
            return True
        return False

    def release_groups(self, threads, size):
        """Runs the warp (size 32) or warpgroup (128) collectives that every
        thread of an aligned group within `threads` has reached."""
        released = False
        for first in range(0, len(threads), size):
            group = threads[first : first + size]
            if len(group) < size or group[0].tid % size:
                continue
            opcodes = {t.waiting for t in group}
            pcs = {t.pc for t in group}
            if len(opcodes) != 1 or len(pcs) != 1 or None in opcodes:
                continue
            opcode = next(iter(opcodes))
            if opcode.startswith(("bar.sync", "mbarrier")):
                continue
            if (128 if opcode.startswith("wgmma") else 32) != size:
                continue
            self.execute_collective(group, self.kernel.instructions[group[0].pc])
            for t in group:
                t.waiting = None
                t.pc += 1
            released = True
        return released

    # -- scalar instructions -------------------------------------------------

    def execute(self, thread, ins):
        op = ins.opcode
        o = ins.operands
        regs = thread.regs
        parts = ins.parts
        base = parts[0]
        next_pc = thread.pc + 1

        if base == "bra":
            thread.pc = self.kernel.labels[o[0]]
            return
        if base == "ret":
            if thread.frames:
                self.return_from_call(thread)
            else:
                thread.done = True
            return
        if base == "call":
            self.call(thread, ins)
            return
        if base == "mov":
            width = bits_of(parts[1])
            if o[0].startswith("{"):  # unpack into equal parts, low first
                targets = split_operands(o[0].strip("{}"))
                part = width // len(targets)
                value = self.value(thread, o[1], width)
                for i, target in enumerate(targets):
                    regs[target] = (value >> (part * i)) & MASK[part]
            elif o[1].startswith("{"):  # pack
                sources = split_operands(o[1].strip("{}"))
                part = width // len(sources)
                regs[o[0]] = sum((self.value(thread, x, part) & MASK[part]) << (part * i)
                                 for i, x in enumerate(sources))
            else:
                regs[o[0]] = self.value(thread, o[1], width) & MASK[width]
        elif base == "ld" and parts[1] == "param":
            width = bits_of(parts[-1])
            name = o[1].strip("[]")
            if name in thread.param_space:
                regs[o[0]] = thread.param_space[name] & MASK[width]
            else:
                regs[o[0]] = self.params[name] & MASK[width]
        elif base == "st" and parts[1] == "param":
            name = o[0].strip("[]")
            if "+" in name:
                raise SimulationError(f"unsupported instruction: {ins.text}")
            thread.param_space[name] = self.value(thread, o[1], bits_of(parts[-1])) \
                & MASK[bits_of(parts[-1])]
        elif base == "cvta":
            regs[o[0]] = self.value(thread, o[1], 64)
        elif base == "selp" or (base in INTEGER_OPS and parts[-1] not in FLOAT_TYPES):
            self.integer_op(thread, ins, parts)
        elif base == "prmt" and parts[1:] == ["b32"]:
            self.prmt(thread, ins)
        elif base == "setp":
            self.setp(thread, ins, parts)
        elif base == "cvt":
            self.cvt(thread, ins, parts)
        elif base == "ld":
            space = parts[1]
            vector = next((p for p in parts[2:] if len(p) == 2 and p[0] == "v"
                           and p[1] in "0123456789"), None)
            width = bits_of(parts[-1])
            address = self.address(thread, o[1])
            memory = self.shared if space == "shared" else self.memory
            self.check_alignment(address, width // 8 * (int(vector[1:]) if vector else 1),
                                 ins.opcode)
            if vector:
                count = int(vector[1:])
                targets = split_operands(o[0].strip("{}"))
                data = memory.read(address, count * width // 8)
                for i, target in enumerate(targets):
                    regs[target] = to_int(data[i * width // 8 : (i + 1) * width // 8], width)
            else:
                regs[o[0]] = to_int(memory.read(address, width // 8), width)
        elif base == "st":
            space = parts[1]
            vector = next((p for p in parts[2:] if len(p) == 2 and p[0] == "v"
                           and p[1] in "0123456789"), None)
            width = bits_of(parts[-1])
            address = self.address(thread, o[0])
            memory = self.shared if space == "shared" else self.memory
            self.check_alignment(address, width // 8 * (int(vector[1:]) if vector else 1),
                                 ins.opcode)
            if vector:
                sources = split_operands(o[1].strip("{}"))
                payload = b"".join(
                    (self.value(thread, s, width) & MASK[width]).to_bytes(width // 8, "little")
                    for s in sources)
            else:
                payload = (self.value(thread, o[1], width) & MASK[width]).to_bytes(
                    width // 8, "little")
            memory.write(address, payload)
        elif op.startswith("cp.async.cg.shared.global"):
            destination = self.address(thread, o[0])
            source = self.address(thread, o[1])
            size = int(o[2])
            self.check_alignment(destination, size, "cp.async destination")
            self.check_alignment(source, size, "cp.async source")
            valid = self.value(thread, o[3]) if len(o) > 3 else size
            payload = (self.memory.read(source, valid) if valid else b"") + bytes(size - valid)
            if self.cp_async == "early":
                self.shared.write(destination, payload)
            else:
                thread.open_group.append((destination, payload))
        elif op == "cp.async.commit_group":
            thread.groups.append(thread.open_group)
            thread.open_group = []
        elif op == "cp.async.wait_group":
            keep = int(o[0])
            while len(thread.groups) > keep:
                for destination, payload in thread.groups.pop(0):
                    self.shared.write(destination, payload)
        elif op.startswith(("fence.proxy.async", "fence.mbarrier_init",
                            "tcgen05.fence", "tcgen05.wait",
                            "tcgen05.relinquish_alloc_permit")):
            pass  # tcgen05.ld/st complete when they execute here
        elif op.startswith("mbarrier.init"):
            address = self.address(thread, o[0])
            self.check_alignment(address, 8, "mbarrier")
            self.mbarriers[address] = MBarrier(self.value(thread, o[1]))
        elif op.startswith("mbarrier.try_wait.parity"):
            # run_thread only gets here once the phase has completed.
            barrier = self.mbarrier(thread, o[1])
            self.run_committed_mmas(barrier)
            regs[o[0]] = 1
        elif op.startswith("cp.async.bulk.tensor"):
            self.tma_load(thread, ins)
        elif op.startswith("mbarrier.arrive"):
            self.mbarrier_arrive(thread, ins)
        elif op.startswith("setmaxnreg"):
            self.setmaxnreg(thread, ins)
        elif op.startswith("tcgen05.mma") and ".block_scale" in op:
            self.issue_tcgen05_mma_block_scale(thread, ins)
        elif op.startswith("tcgen05.mma"):
            self.issue_tcgen05_mma(thread, ins)
        elif op.startswith("tcgen05.cp"):
            self.issue_tcgen05_cp(thread, ins)
        elif op.startswith("tcgen05.commit"):
            if ".mbarrier::arrive::one." not in op or "cta_group::1" not in op:
                raise SimulationError(f"unsupported instruction: {ins.text}")
            barrier = self.mbarrier(thread, o[0])
            if barrier.pending <= 0:
                raise SimulationError("tcgen05.commit to an mbarrier whose phase "
                                      "has no pending arrival")
            # A commit tracks every tcgen05 operation the thread issued before
            # it: seeing its phase complete runs those and all committed
            # earlier (to any mbarrier), in issue order.
            self.committed.append((self.commit_count, thread.mma_queue))
            barrier.ops.setdefault(barrier.phase, []).append(self.commit_count)
            self.commit_count += 1
            thread.mma_queue = []
            barrier.pending -= 1
            if barrier.pending == 0:
                barrier.phase += 1
                barrier.pending = barrier.count
        elif base in FLOAT64_OPS and parts[-1] == "f64":
            self.float64_op(thread, ins, parts)
        elif base in FLOAT_OPS:
            self.float_op(thread, ins, parts)
        else:
            raise SimulationError(f"unsupported instruction: {ins.text}")
        thread.pc = next_pc

    def integer_op(self, thread, ins, parts):
        base = parts[0]
        o = ins.operands
        regs = thread.regs
        type_name = parts[-1]
        width = bits_of(type_name) if type_name != "pred" else 1
        if type_name == "pred":
            a = bool(self.value(thread, o[1]))
            b = bool(self.value(thread, o[2])) if len(o) > 2 else None
            result = {"or": lambda: a or b, "and": lambda: a and b,
                      "xor": lambda: a != b, "not": lambda: not a}[base]()
            regs[o[0]] = 1 if result else 0
            return
        is_signed = type_name.startswith("s")
        v = lambda x, w=width: self.value(thread, x, w)
        mask = MASK[width]
        if base == "selp":
            width = 64 if type_name.endswith("64") else 32 if type_name != "b16" else 16
            v = lambda x: self.value(thread, x, width)
            regs[o[0]] = v(o[1]) if self.value(thread, o[3]) else v(o[2])
            return
        if base == "bfe":
            value, start, length = v(o[1]), v(o[2], 32) & 0xFF, v(o[3], 32) & 0xFF
            field = (value >> start) & ((1 << length) - 1) if start < width else 0
            if is_signed and length:  # the field's top bit (or the sign) extends
                top = min(start + length, width) - 1
                if (value >> top) & 1:
                    field |= mask ^ ((1 << max(top - start + 1, 0)) - 1)
            regs[o[0]] = field & mask
            return
        if base == "mul" and parts[1] == "wide":
            a, b = v(o[1]), v(o[2])
            if is_signed:
                a, b = signed(a, width), signed(b, width)
            regs[o[0]] = (a * b) & MASK[2 * width]
            return
        if base == "mul" and parts[1] == "hi":
            a, b = v(o[1]), v(o[2])
            if is_signed:
                a, b = signed(a, width), signed(b, width)
            regs[o[0]] = ((a * b) >> width) & mask
            return
        if base == "mad":
            a, b, c = v(o[1]), v(o[2]), v(o[3])
            if parts[1] == "wide":
                regs[o[0]] = (a * b + c) & MASK[2 * width]
            else:
                regs[o[0]] = (a * b + c) & mask
            return
        a = v(o[1])
        b = v(o[2]) if len(o) > 2 else None
        if base == "add":
            result = a + b
        elif base == "sub":
            result = a - b
        elif base == "mul":
            result = a * b
        elif base in ("min", "max"):
            if is_signed:
                a, b = signed(a, width), signed(b, width)
            result = min(a, b) if base == "min" else max(a, b)
        elif base == "shl":
            shift = self.value(thread, o[2], 32)
            result = a << shift if shift < width else 0
        elif base == "shr":
            shift = self.value(thread, o[2], 32)
            if is_signed:
                result = signed(a, width) >> min(shift, width - 1)
            else:
                result = a >> shift if shift < width else 0
        elif base == "and":
            result = a & b
        elif base == "or":
            result = a | b
        elif base == "xor":
            result = a ^ b
        elif base == "not":
            result = ~a
        elif base == "neg":
            result = -a
        elif base in ("div", "rem"):
            if is_signed:
                a, b = signed(a, width), signed(b, width)
                q = int(a / b)
                result = q if base == "div" else a - q * b
            else:
                result = a // b if base == "div" else a % b
        else:
            raise SimulationError(f"unsupported instruction: {ins.text}")
        regs[o[0]] = result & mask

    def prmt(self, thread, ins):
        """prmt.b32 d, a, b, c (default mode): byte i of d is byte c[4i+2:4i]
        of {b, a} (a the low word), replicated from its sign bit when
        c[4i+3] is set."""
        o = ins.operands
        value = lambda x: self.value(thread, x.rstrip("U"))
        pool = value(o[2]) << 32 | value(o[1])
        selector = value(o[3])
        result = 0
        for i in range(4):
            nibble = (selector >> (4 * i)) & 0xF
            byte = (pool >> (8 * (nibble & 7))) & 0xFF
            if nibble & 8:
                byte = 0xFF if byte & 0x80 else 0
            result |= byte << (8 * i)
        thread.regs[o[0]] = result

    def setp(self, thread, ins, parts):
        comparison, type_name = parts[1], parts[-1]
        o = ins.operands
        width = bits_of(type_name)
        a = self.value(thread, o[1], width)
        b = self.value(thread, o[2], width)
        if type_name[0] in "fb" and type_name not in ("b16", "b32", "b64"):
            # Each operand decoded in its own format: a 16-bit register of
            # setp.f16 (LLVM folds extf, max/min, truncf of f16 into it) or
            # setp.bf16 is no f32 bit pattern.
            decode = {"f16": f16_from_bits, "bf16": bf16_from_bits,
                      "f32": f32_from_bits, "f64": f64_from_bits}.get(type_name)
            if decode is None or "x2" in parts:
                raise SimulationError(f"unsupported instruction: {ins.text}")
            a, b = decode(a), decode(b)
            if "ftz" in parts:  # .ftz (f32 only): subnormal inputs are zeros
                a, b = flush_subnormal(a, F32_FORMAT), flush_subnormal(b, F32_FORMAT)
            unordered = math.isnan(a) or math.isnan(b)
            table = {"eq": a == b, "ne": a != b and not unordered, "lt": a < b,
                     "le": a <= b, "gt": a > b, "ge": a >= b, "num": not unordered,
                     "nan": unordered, "equ": unordered or a == b,
                     "neu": unordered or a != b, "ltu": unordered or a < b,
                     "leu": unordered or a <= b, "gtu": unordered or a > b,
                     "geu": unordered or a >= b}
        else:
            if type_name.startswith("s"):
                a, b = signed(a, width), signed(b, width)
            table = {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b,
                     "gt": a > b, "ge": a >= b, "lo": a < b, "ls": a <= b,
                     "hi": a > b, "hs": a >= b}
        thread.regs[o[0]] = 1 if table[comparison] else 0

    def cvt(self, thread, ins, parts):
        o = ins.operands
        regs = thread.regs
        modifiers = parts[1:-2]
        destination, source = parts[-2], parts[-1]
        value = self.value(thread, o[1], 64)
        if destination in ("u64", "s64", "u32", "s32", "u16", "s16") and source[0] in "us":
            source_bits = int(source[1:])
            value &= MASK[source_bits]
            if source[0] == "s":
                value = signed(value, source_bits)
            regs[o[0]] = value & MASK[int(destination[1:])]
        elif destination == "tf32" and source == "f32":
            regs[o[0]] = tf32_rna_bits(value)
        elif destination == "f16" and source == "f32":
            regs[o[0]] = bits_from_f16(f32_from_bits(value))
        elif destination == "bf16" and source == "f32":
            regs[o[0]] = bits_from_bf16(f32_from_bits(value))
        elif destination == "f32" and source == "f16":
            regs[o[0]] = bits_from_f32(f16_from_bits(value))
        elif destination == "f32" and source == "bf16":
            regs[o[0]] = (value & 0xFFFF) << 16
        elif destination[0] == "f" or source[0] == "f":
            regs[o[0]] = self.cvt_float(ins, modifiers, destination, source, value)
        else:
            raise SimulationError(f"unsupported conversion: {ins.text} {modifiers}")

    def cvt_float(self, ins, modifiers, destination, source, value):
        """cvt between f32, f64 and integers (PTX ISA, "cvt"): .rn/.rz/.rm/.rp
        round a float result once, .rni/.rzi/.rmi/.rpi round to an integer
        (a float-to-integer conversion saturates, NaN gives 0), .sat clamps
        a float result to [0, 1] (NaN to 0), .ftz flushes f32 subnormals."""
        formats = {"f32": F32_FORMAT, "f64": F64_FORMAT}
        ftz = "ftz" in modifiers
        rounding = next((m for m in modifiers if m.startswith("r")), None)
        if source in formats:
            x = (f64_from_bits if source == "f64" else f32_from_bits)(value)
            if ftz and source == "f32":
                x = flush_subnormal(x, F32_FORMAT)
        elif source[0] in "us":
            bits = int(source[1:])
            x = signed(value, bits) if source[0] == "s" else value & MASK[bits]
        else:
            raise SimulationError(f"unsupported conversion: {ins.text}")
        integral = rounding in ("rni", "rzi", "rmi", "rpi")
        if integral and math.isfinite(x):
            x = math.copysign(float({"rni": round, "rzi": math.trunc, "rmi": math.floor,
                                     "rpi": math.ceil}[rounding](x)), x)
        if destination[0] in "us":
            if not integral:
                raise SimulationError(f"unsupported conversion: {ins.text}")
            bits = int(destination[1:])
            low, high = ((-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
                         if destination[0] == "s" else (0, (1 << bits) - 1))
            result = 0 if math.isnan(x) else int(min(max(x, low), high))
            return result & MASK[bits]
        fmt = formats.get(destination)
        if fmt is None:
            raise SimulationError(f"unsupported conversion: {ins.text}")
        if isinstance(x, int):
            x = round_dyadic(x, 0, rounding or "rn", fmt)
        elif math.isfinite(x) and x:
            x = round_dyadic(*dyadic(x), "rn" if integral else rounding or "rn", fmt)
        if "sat" in modifiers:
            x = 0.0 if math.isnan(x) else min(max(x, 0.0), 1.0)
        if ftz and destination == "f32":
            x = flush_subnormal(x, F32_FORMAT)
        return bits_from_f64(x) if destination == "f64" else bits_from_f32(x)

    def call(self, thread, ins):
        """call[.uni] (returns), name, (arguments): a new register frame; the
        callee's formal parameters get the caller's .param arguments."""
        match = re.match(r"^call(?:\.uni)?\s+(?:\(([^)]*)\)\s*,\s*)?(\w+)"
                         r"\s*(?:,\s*\(([^)]*)\))?\s*$", ins.text, re.S)
        if not match or match.group(2) not in self.kernel.functions:
            raise SimulationError(f"unsupported call: {ins.text}")
        start, formals, returns = self.kernel.functions[match.group(2)]
        names = lambda group: [x.strip() for x in (group or "").split(",") if x.strip()]
        actuals, results = names(match.group(3)), names(match.group(1))
        if len(actuals) != len(formals) or len(results) != len(returns):
            raise SimulationError(f"call with {len(actuals)} arguments and "
                                  f"{len(results)} results: {ins.text}")
        try:
            callee = {f: thread.param_space[a] for f, a in zip(formals, actuals)}
        except KeyError as missing:
            raise SimulationError(f"call argument {missing} not stored: {ins.text}")
        thread.frames.append((thread.pc + 1, thread.regs, thread.param_space,
                              list(zip(results, returns))))
        thread.regs, thread.param_space, thread.pc = {}, callee, start

    def return_from_call(self, thread):
        pc, regs, caller, results = thread.frames.pop()
        for result, formal in results:
            if formal not in thread.param_space:
                raise SimulationError(f"return without a value in {formal}")
            caller[result] = thread.param_space[formal]
        thread.regs, thread.param_space, thread.pc = regs, caller, pc

    def float64_op(self, thread, ins, parts):
        """f64 arithmetic: add/sub/mul/fma with .rn/.rz/.rm/.rp (rounded once,
        exactly), div.rn, sqrt.rn, rcp.rn, neg, abs, min, max and
        rcp.approx.ftz.f64. PTX ISA: rcp.approx.ftz.f64 takes the top 32 bits
        of its operand (the low 32 bits ignored), computes an approximate
        reciprocal and returns it with the low 32 bits zeroed, subnormals
        flushed to zero; the bits of the approximation are not specified:
        here the reciprocal of the truncated operand is rounded to nearest
        and then truncated to its top 32 bits."""
        o = ins.operands
        base = parts[0]
        f = lambda x: f64_from_bits(self.value(thread, x, 64))
        mode = next((m for m in parts[1:-1] if m in ("rn", "rz", "rm", "rp")), "rn")
        if base in ("add", "sub", "mul") and mode == "rn":
            a, b = f(o[1]), f(o[2])  # Python's double arithmetic rounds to nearest
            result = a + b if base == "add" else a - b if base == "sub" else a * b
        elif base in ("add", "sub", "mul", "fma"):
            result = self.float_rounded(ins, base, mode, f, F64_FORMAT)
        elif mode != "rn":
            raise SimulationError(f"unsupported instruction: {ins.text}")
        elif base == "div":
            a, b = f(o[1]), f(o[2])
            result = (a / b if b else math.copysign(math.inf, a) * math.copysign(1, b)
                      if a and not math.isnan(a) else math.nan)
        elif base == "sqrt":
            a = f(o[1])
            result = math.sqrt(a) if a >= 0 else math.nan
        elif base == "rcp" and "approx" in parts:
            a = flush_subnormal(f64_from_bits(self.value(thread, o[1], 64)
                                              & 0xFFFFFFFF00000000), F64_FORMAT)
            result = 1 / a if a else math.copysign(math.inf, a)
            if math.isfinite(result):
                result = flush_subnormal(f64_from_bits(
                    bits_from_f64(result) & 0xFFFFFFFF00000000), F64_FORMAT)
        elif base == "rcp":
            a = f(o[1])
            result = 1 / a if a else math.copysign(math.inf, a)
        elif base == "neg":
            result = -f(o[1])
        elif base == "abs":
            result = abs(f(o[1]))
        elif base in ("max", "min"):
            a, b = f(o[1]), f(o[2])
            if math.isnan(a) or math.isnan(b):
                result = b if math.isnan(a) else a
            else:
                result = max(a, b) if base == "max" else min(a, b)
        else:
            raise SimulationError(f"unsupported instruction: {ins.text}")
        thread.regs[o[0]] = bits_from_f64(result)

    def float_op(self, thread, ins, parts):
        o = ins.operands
        base = parts[0]
        f = lambda x: f32_from_bits(self.value(thread, x))
        if parts[-1] in ("f16", "bf16") and parts[-2] == "f32" and base in (
                "add", "sub", "fma"):
            # Mixed precision (sm_100+): add/sub.f32.f16 d, a, c and
            # fma.f32.f16 d, a, b, c with a (and b) f16 or bf16, c f32.
            narrow = f16_from_bits if parts[-1] == "f16" else bf16_from_bits
            h = lambda x: narrow(self.value(thread, x))
            if base == "fma":
                result = h(o[1]) * h(o[2]) + f(o[3])
            else:
                result = h(o[1]) + (f(o[2]) if base == "add" else -f(o[2]))
            thread.regs[o[0]] = bits_from_f32(result)
            return
        if parts[-1] != "f32":
            raise SimulationError(f"unsupported instruction: {ins.text}")
        if "ftz" in parts:
            f = lambda x: flush_subnormal(f32_from_bits(self.value(thread, x)),
                                          F32_FORMAT)
        mode = next((m for m in parts[1:-1] if m in ("rn", "rz", "rm", "rp")), "rn")
        if base in ("add", "sub", "mul", "fma") and (mode != "rn" or base == "fma"):
            result = self.float_rounded(ins, base, mode, f, F32_FORMAT)
        elif mode != "rn":
            raise SimulationError(f"unsupported instruction: {ins.text}")
        elif base == "ex2":
            result = self.ex2_f32(f(o[1]))
        elif base == "sqrt":
            result = self.sqrt_f32(f(o[1]))
        elif base == "add":
            result = f(o[1]) + f(o[2])
        elif base == "sub":
            result = f(o[1]) - f(o[2])
        elif base == "mul":
            result = f(o[1]) * f(o[2])
        elif base == "fma":
            result = f(o[1]) * f(o[2]) + f(o[3])
        elif base in ("max", "min"):
            a, b = f(o[1]), f(o[2])
            if math.isnan(a) or math.isnan(b):
                result = math.nan if "NaN" in parts else (b if math.isnan(a) else a)
            else:
                result = max(a, b) if base == "max" else min(a, b)
        elif base == "neg":
            result = -f(o[1])
        elif base == "abs":
            result = abs(f(o[1]))
        elif base == "div":
            a, b = f(o[1]), f(o[2])
            result = (a / b if b else math.copysign(math.inf, a) * math.copysign(1, b)
                      if a else math.nan)
        elif base == "rcp":
            a = f(o[1])
            result = 1 / a if a else math.copysign(math.inf, a)
        elif base == "copysign":  # copysign.f32 d, a, b: |b| with the sign of a
            result = math.copysign(f(o[2]), f(o[1]))
        else:
            raise SimulationError(f"unsupported instruction: {ins.text}")
        if "ftz" in parts:
            result = flush_subnormal(round_f32(result), F32_FORMAT)
        thread.regs[o[0]] = bits_from_f32(result)

    @staticmethod
    def float_rounded(ins, base, mode, f, fmt):
        """add/sub/mul with .rz/.rm/.rp and fma (any mode) on f32 or f64: the
        exact result rounded once to fmt (no double rounding through a
        double)."""
        o = ins.operands
        a, b = f(o[1]), f(o[2])
        if base == "sub":
            b = -b
        terms = ([[a, b], [f(o[3])]] if base == "fma" else
                 [[a, b]] if base == "mul" else [[a], [b]])
        result = round_exact(terms, mode, fmt)
        if result is None:
            result = (a * b + f(o[3]) if base == "fma" else
                      a * b if base == "mul" else a + b)
        return result

    @staticmethod
    def ex2_f32(a):
        """ex2.approx(.ftz).f32: 2**a. The ISA bounds the error (and gives
        ex2(-inf) = +0, ex2(+inf) = +inf, NaN for NaN) but not the bits:
        here 2**a computed in double and rounded once to f32, the correctly
        rounded value except where 2**a lies within about 2**-29 ulp of a
        tie between two f32 values."""
        if math.isnan(a):
            return math.nan
        try:
            return 2.0 ** a
        except OverflowError:
            return math.inf

    @staticmethod
    def sqrt_f32(a):
        """sqrt.rn.f32 and sqrt.approx(.ftz).f32: sqrt.rn rounds to nearest;
        the ISA bounds sqrt.approx's error but not its bits: here it is the
        correctly rounded value too (the double square root rounded to f32
        is correctly rounded)."""
        if math.isnan(a) or a < 0:
            return math.nan
        return math.sqrt(a)

    # -- mbarriers and tcgen05.mma -------------------------------------------

    def mbarrier(self, thread, operand):
        address = self.address(thread, operand)
        try:
            return self.mbarriers[address]
        except KeyError:
            raise SimulationError(f"mbarrier at {address} used before "
                                  "mbarrier.init")

    def mbarrier_ready(self, thread, ins):
        if not ins.opcode.startswith("mbarrier.try_wait.parity"):
            raise SimulationError(f"unsupported instruction: {ins.text}")
        barrier = self.mbarrier(thread, ins.operands[1])
        return barrier.complete(self.value(thread, ins.operands[2]) & 1)

    def release_mbarrier_waits(self):
        released = self.land_tma_copies()
        for thread in self.threads:
            if thread.waiting == "mbarrier.try_wait" and self.mbarrier_ready(
                    thread, self.kernel.instructions[thread.pc]):
                thread.waiting = None  # re-executes the try_wait
                released = True
        return released

    def run_committed_mmas(self, barrier):
        """Runs the operations of the commits to every completed phase of
        `barrier` and of every commit before them (in issue order)."""
        commits = [c for p in sorted(p for p in barrier.ops if p < barrier.phase)
                   for c in barrier.ops.pop(p)]
        if not commits:
            return
        last = max(commits)
        while self.committed and self.committed[0][0] <= last:
            for operation in self.committed.pop(0)[1]:
                self.run_tcgen05_operation(operation)

    def issue_tcgen05_mma(self, thread, ins):
        parts = ins.opcode.split(".")
        if "cta_group::1" not in parts or len(ins.operands) != 5:
            raise SimulationError(f"unsupported tcgen05.mma: {ins.text}")
        kind = next((p[len("kind::"):] for p in parts if p.startswith("kind::")), None)
        if kind not in TCGEN05_TYPES or any(
                p.startswith(("block_scale", "ws", "sp")) for p in parts):
            raise SimulationError(f"unsupported tcgen05.mma: {ins.text}")
        o = ins.operands
        operation = (kind, self.value(thread, o[0].strip("[]")),
                     self.value(thread, o[1], 64), self.value(thread, o[2], 64),
                     self.value(thread, o[3]), bool(self.value(thread, o[4])))
        if self.cp_async == "early":
            self.tcgen05_mma(*operation)
        else:
            thread.mma_queue.append(operation)

    def tcgen05_mma(self, kind, d_address, desc_a, desc_b, idesc, enable_d):
        if idesc & 0x7:
            raise SimulationError("sparse tcgen05.mma is not simulated")
        d_type = {1: "f32", 2: "s32"}.get((idesc >> 4) & 3)
        types = TCGEN05_TYPES[kind]
        a_code, b_code = (idesc >> 7) & 7, (idesc >> 10) & 7
        if d_type is None or a_code not in types or b_code not in types:
            raise SimulationError(f"instruction descriptor {idesc:#x} is not valid "
                                  f"for kind::{kind}")
        if (kind == "i8") != (d_type == "s32"):
            raise SimulationError(f"kind::{kind} with a {d_type} accumulator")
        a_type, b_type = types[a_code], types[b_code]
        trans_a, trans_b = (idesc >> 15) & 1, (idesc >> 16) & 1
        n = ((idesc >> 17) & 0x3F) << 3
        m = ((idesc >> 24) & 0x1F) << 4
        if m != 128 or n % 16 or not 16 <= n <= 256:
            raise SimulationError(f"tcgen05.mma shape M={m} N={n} is not simulated "
                                  "(cta_group::1 M=128 only)")
        k = 32 // DECODE[a_type][0]
        A = self.read_descriptor(desc_a, a_type, m, k, trans_a, tcgen05=True)
        B = self.read_descriptor(desc_b, b_type, n, k, trans_b, tcgen05=True)
        lane, column = d_address >> 16, d_address & 0xFFFF
        self.check_tmem(lane, column, m, n, "tcgen05.mma accumulator")
        integer = d_type == "s32"
        if integer:
            old = [[signed(x, 32) if enable_d else 0
                    for x in self.tmem[lane + i][column:column + n]] for i in range(m)]
        else:
            old = [[f32_from_bits(x) if enable_d else 0.0
                    for x in self.tmem[lane + i][column:column + n]] for i in range(m)]
        totals = accumulate(old, A, B, integer)
        if totals is not None:  # the same sums, at once (accumulate)
            values = (totals & MASK[32]).tolist() if integer else f32_bits_array(totals)
            for i in range(m):
                self.tmem[lane + i][column:column + n] = values[i]
            return
        for i in range(m):
            row = self.tmem[lane + i]
            a_row = A[i]
            for j in range(n):
                total = sum(map(operator.mul, a_row, B[j]))
                if d_type == "s32":
                    old = signed(row[column + j], 32) if enable_d else 0
                    row[column + j] = int(old + total) & MASK[32]
                else:
                    old = f32_from_bits(row[column + j]) if enable_d else 0.0
                    row[column + j] = bits_from_f32(old + total)

    def run_tcgen05_operation(self, operation):
        """Runs a queued tcgen05 operation: a tcgen05.mma's operands, or a
        handler followed by its arguments (tcgen05.cp, block-scaled MMAs)."""
        if callable(operation[0]):
            operation[0](*operation[1:])
        else:
            self.tcgen05_mma(*operation)

    def queue_tcgen05_operation(self, thread, operation):
        """tcgen05.mma and tcgen05.cp of one thread run in issue order, at
        issue (`early`) or once a commit's mbarrier phase is seen."""
        if self.cp_async == "early":
            self.run_tcgen05_operation(operation)
        else:
            thread.mma_queue.append(operation)

    def issue_tcgen05_cp(self, thread, ins):
        parts = ins.opcode.split(".")
        if parts[1:] != ["cp", "cta_group::1", "32x128b", "warpx4"] \
                or len(ins.operands) != 2:
            raise SimulationError(f"unsupported tcgen05.cp: {ins.text}")
        self.queue_tcgen05_operation(thread, (
            self.tcgen05_cp, self.value(thread, ins.operands[0].strip("[]")),
            self.value(thread, ins.operands[1], 64)))

    def tcgen05_cp(self, taddr, descriptor):
        """tcgen05.cp.32x128b.warpx4: see TCGEN05_BLOCK_SCALE_DOC."""
        if (descriptor >> 46) & 0x7 != 1 or (descriptor >> 49) & 0x7 \
                or (descriptor >> 52) & 1 or (descriptor >> 53) & 0xFF \
                or (descriptor >> 61) & 0x7:
            raise SimulationError(f"tcgen05.cp descriptor {descriptor:#x}: only "
                                  "version 1 without swizzle is simulated")
        start = (descriptor & 0x3FFF) << 4
        stride = ((descriptor >> 32) & 0x3FFF) << 4
        lane, column = taddr >> 16, taddr & 0xFFFF
        if lane:
            raise SimulationError(f"tcgen05.cp.warpx4 to lane {lane} (must be 0)")
        self.check_tmem(0, column, TMEM_LANES, 4, "tcgen05.cp")
        for r in range(32):
            data = self.shared.read(start + (r // 8) * stride + (r % 8) * 16, 16)
            for quarter in range(4):
                row = self.tmem[32 * quarter + r]
                for c in range(4):
                    row[column + c] = int.from_bytes(data[4 * c:4 * c + 4], "little")

    def issue_tcgen05_mma_block_scale(self, thread, ins):
        parts = ins.opcode.split(".")
        kind = next((p[len("kind::"):] for p in parts if p.startswith("kind::")), None)
        block = next((p for p in parts if p in ("block16", "block32")), None)
        if "cta_group::1" not in parts or len(ins.operands) != 7 \
                or (kind, block) not in TCGEN05_SCALE_VECTORS \
                or any(p.startswith(("ws", "sp", "scale_vec")) for p in parts):
            raise SimulationError(f"unsupported tcgen05.mma: {ins.text}")
        o = ins.operands
        self.queue_tcgen05_operation(thread, (
            self.tcgen05_mma_block_scale, kind, block,
            self.value(thread, o[0].strip("[]")), self.value(thread, o[1], 64),
            self.value(thread, o[2], 64), self.value(thread, o[3]),
            self.value(thread, o[4].strip("[]")),
            self.value(thread, o[5].strip("[]")), bool(self.value(thread, o[6]))))

    def tcgen05_mma_block_scale(self, kind, block, d_address, desc_a, desc_b,
                                idesc, sfa_address, sfb_address, enable_d):
        """A block-scaled tcgen05.mma: see TCGEN05_BLOCK_SCALE_DOC."""
        types, k, packed = TCGEN05_BLOCK_SCALE_TYPES[kind]
        count, scale_types = TCGEN05_SCALE_VECTORS[(kind, block)]
        a_code, b_code = (idesc >> 7) & 7, (idesc >> 10) & 7
        s_type = "ue8m0" if (idesc >> 23) & 1 else "ue4m3"
        sf_ids = ((idesc >> 29) & 3, (idesc >> 4) & 3)
        trans_a, trans_b = (idesc >> 15) & 1, (idesc >> 16) & 1
        n = ((idesc >> 17) & 0x3F) << 3
        m = ((idesc >> 24) & 0x1F) << 4
        if idesc & 0xF or idesc >> 31 or a_code not in types or b_code not in types \
                or s_type not in scale_types or (packed and (trans_a or trans_b)):
            raise SimulationError(f"instruction descriptor {idesc:#x} is not valid "
                                  f"for kind::{kind}.block_scale.{block}")
        if any(sf % count or sf + count > 4 for sf in sf_ids):
            raise SimulationError(f"kind::{kind}.block_scale.{block}: scale-factor "
                                  f"ids {sf_ids} (blocks of {count} scales)")
        if m != 128 or n % 16 or not 16 <= n <= 256:
            raise SimulationError(f"tcgen05.mma shape M={m} N={n} is not simulated "
                                  "(cta_group::1 M=128 only)")

        def operand(descriptor, code, rows, transposed):
            if not packed and types[code] in F8F6F4_PADDED:
                # FP6 / FP4 under kind::mxf8f6f4: 16 elements packed from the
                # first bit of each 16-byte chunk, the rest padding (.b6x16_p32,
                # .b4x16_p64); K-major only.
                bits, table = F8F6F4_PADDED[types[code]]
                if transposed:
                    raise SimulationError(f"kind::{kind}: {types[code]} operands "
                                          "are K-major only")
                data = self.read_descriptor(descriptor, "u8", rows, k, 0,
                                            tcgen05=True)
                result = []
                for row in data:
                    values = []
                    for chunk in range(0, k, 16):
                        word = int.from_bytes(bytes(row[chunk:chunk + 16]), "little")
                        values += [table[(word >> (bits * e)) & ((1 << bits) - 1)]
                                   for e in range(16)]
                    result.append(values)
                return result
            if not packed:
                return self.read_descriptor(descriptor, types[code], rows, k,
                                            transposed, tcgen05=True)
            data = self.read_descriptor(descriptor, "u8", rows, k // 2, 0,
                                        tcgen05=True)
            return [[E2M1[(byte >> (4 * h)) & 0xF] for byte in row for h in (0, 1)]
                    for row in data]

        def scales(address, rows, sf):
            lane, column = address >> 16, address & 0xFFFF
            if lane:
                raise SimulationError(f"tcgen05.mma scale factors at lane {lane} "
                                      "(must be 0)")
            self.check_tmem(0, column, TMEM_LANES, -(-rows // 32),
                            "tcgen05.mma scale factors")
            result = []
            for r in range(rows):
                words = {self.tmem[r % 32 + 32 * q][column + r // 32] for q in range(4)}
                if len(words) != 1:
                    raise SimulationError(
                        f"tcgen05.mma scale factors of row {r} differ across "
                        "the four lane quarters (column "
                        f"{column + r // 32}, lanes {r % 32} + 32q)")
                word = words.pop()
                result.append([decode_block_scale((word >> (8 * (sf + v))) & 0xFF,
                                                  s_type) for v in range(count)])
            return result

        A = operand(desc_a, a_code, m, trans_a)
        B = operand(desc_b, b_code, n, trans_b)
        scale_a = scales(sfa_address, m, sf_ids[0])
        scale_b = scales(sfb_address, n, sf_ids[1])
        lane, column = d_address >> 16, d_address & 0xFFFF
        self.check_tmem(lane, column, m, n, "tcgen05.mma accumulator")
        length = k // count
        for i in range(m):
            row = self.tmem[lane + i]
            a_row = [A[i][x] * scale_a[i][x // length] for x in range(k)]
            for j in range(n):
                terms = [f32_from_bits(row[column + j]) if enable_d else 0.0] + [
                    a_row[x] * B[j][x] * scale_b[j][x // length] for x in range(k)]
                try:
                    total = math.fsum(terms)
                except (ValueError, OverflowError):  # inf - inf, overflow
                    total = sum(terms)
                row[column + j] = bits_from_f32(total)

    def check_tmem(self, lane, column, lanes, columns, what):
        inside = any(first <= column and column + columns <= first + size
                     for first, size in self.tmem_allocations.items())
        if lane + lanes > TMEM_LANES or not inside:
            raise SimulationError(f"{what}: lanes {lane}..{lane + lanes - 1}, "
                                  f"columns {column}..{column + columns - 1} are "
                                  "not allocated Tensor Memory")

    def mmas_in_flight(self):
        return any(t.mma_queue for t in self.threads) or bool(self.committed)

    def tcgen05_alloc(self, warp, ins):
        if ".cta_group::1." not in ins.opcode:
            raise SimulationError(f"unsupported tcgen05.alloc: {ins.text}")
        columns = self.value(warp[0], ins.operands[1])
        if columns < 32 or columns > TMEM_COLUMNS or columns & (columns - 1):
            raise SimulationError(f"tcgen05.alloc of {columns} columns")
        # The highest free range, so that a kernel ignoring the address fails.
        for first in range(TMEM_COLUMNS - columns, -1, -columns):
            if all(first + columns <= f or f + c <= first
                   for f, c in self.tmem_allocations.items()):
                break
        else:
            raise SimulationError("Tensor Memory exhausted")
        self.tmem_allocations[first] = columns
        address = self.address(warp[0], ins.operands[0])
        self.check_alignment(address, 4, "tcgen05.alloc destination")
        self.shared.write(address, first.to_bytes(4, "little"))

    def tcgen05_dealloc(self, warp, ins):
        address = self.value(warp[0], ins.operands[0])
        columns = self.value(warp[0], ins.operands[1])
        if address >> 16 or self.tmem_allocations.get(address) != columns:
            raise SimulationError(f"tcgen05.dealloc of {columns} columns at "
                                  f"{address:#x} that were not allocated")
        del self.tmem_allocations[address]

    def tcgen05_ld_st(self, warp, ins, load):
        parts = ins.opcode.split(".")
        if "32x32b" not in parts or parts[-1] != "b32" or "pack::16b" in parts \
                or "unpack::16b" in parts:
            raise SimulationError(f"unsupported instruction: {ins.text}")
        repeat = int(next(p for p in parts if re.match(r"^x\d+$", p))[1:])
        registers = split_operands(ins.operands[0 if load else 1].strip("{}"))
        address_operand = ins.operands[1 if load else 0].strip("[]")
        address = self.value(warp[0], address_operand)
        if any(self.value(t, address_operand) != address for t in warp):
            raise SimulationError(f"{ins.opcode}: the address differs across the warp")
        lane, column = address >> 16, address & 0xFFFF
        quarter = warp[0].tid // 32 % 4
        if lane != 32 * quarter:
            raise SimulationError(f"{ins.opcode}: warp {warp[0].tid // 32} may access "
                                  f"lanes {32 * quarter}..{32 * quarter + 31}, "
                                  f"not from lane {lane}")
        self.check_tmem(lane, column, 32, repeat, ins.opcode)
        if load and self.mmas_in_flight():
            raise SimulationError("tcgen05.ld of Tensor Memory while a tcgen05.mma "
                                  "is in flight (missing mbarrier wait)")
        for i, thread in enumerate(warp):
            row = self.tmem[lane + i]
            for j, register in enumerate(registers):
                if load:
                    thread.regs[register] = row[column + j]
                else:
                    row[column + j] = self.value(thread, register) & MASK[32]

    # -- TMA, mbarrier transactions, setmaxnreg, wgmma groups ----------------

    def tma_load(self, thread, ins):
        """cp.async.bulk.tensor.Nd.shared::cluster.global.tile
        .mbarrier::complete_tx::bytes [dst], [tensorMap, {coordinates}], [mbar]
        (also .shared::cta): copies the box at the coordinates, completing
        its bytes on the mbarrier."""
        op = ins.opcode
        if (".global.tile." not in op and not op.endswith(".global")) or \
                "complete_tx::bytes" not in op or "multicast" in op or \
                "cache_hint" in op or "im2col" in op or len(ins.operands) != 3:
            raise SimulationError(f"unsupported instruction: {ins.text}")
        destination = self.address(thread, ins.operands[0])
        map_operand, coordinates = split_operands(ins.operands[1].strip("[]"))
        coordinates = [signed(self.value(thread, c.strip()), 32)
                       for c in split_operands(coordinates.strip("{}"))]
        tensor_map = unpack_tensor_map(
            self.memory.read(self.value(thread, map_operand, 64), TENSOR_MAP_BYTES))
        barrier = self.mbarrier(thread, ins.operands[2])
        rank = tensor_map["rank"]
        if len(coordinates) != rank or int(op.split(".")[4][0]) != rank:
            raise SimulationError(f"{op}: {len(coordinates)} coordinates for a "
                                  f"tensor map of rank {rank}")
        width = tensor_map["element_bytes"]
        box, dims = tensor_map["box"], tensor_map["dims"]
        if tensor_map["element_strides"] != [1] * rank or tensor_map["interleave"] \
                or tensor_map["oobfill"] or tensor_map["swizzle"] not in (0, 3):
            raise SimulationError(f"unsupported tensor map {tensor_map}")
        row_bytes = box[0] * width
        swizzle = tensor_map["swizzle"] == 3
        self.check_alignment(destination, 1024 if swizzle else 128,
                             "cp.async.bulk.tensor destination")
        if swizzle and row_bytes > 128:
            raise SimulationError(f"a 128-byte swizzled box row of {row_bytes} bytes")
        strides = [width] + tensor_map["strides"]
        box, dims = box + [1] * (3 - rank), dims + [1] * (3 - rank)
        coordinates = coordinates + [0] * (3 - rank)
        strides = strides + [0] * (3 - rank)
        writes = []
        row = 0
        for i2 in range(box[2]):
            for i1 in range(box[1]):
                c1, c2 = coordinates[1] + i1, coordinates[2] + i2
                data = bytearray(row_bytes)
                if 0 <= c1 < dims[1] and 0 <= c2 < dims[2]:
                    first = max(coordinates[0], 0)
                    last = min(coordinates[0] + box[0], dims[0])
                    if first < last:
                        source = (tensor_map["address"] + first * width + c1 * strides[1]
                                  + c2 * strides[2])
                        offset = (first - coordinates[0]) * width
                        data[offset:offset + (last - first) * width] = \
                            self.memory.read(source, (last - first) * width)
                base = destination + row * row_bytes
                if swizzle:
                    for chunk in range(0, row_bytes, 16):
                        address = base + chunk
                        address ^= ((address >> 7) & 7) << 4
                        writes.append((address, bytes(data[chunk:chunk + 16])))
                else:
                    writes.append((base, bytes(data)))
                row += 1
        transaction = (writes, row * row_bytes)
        if self.cp_async == "early":
            self.land_transaction(barrier, transaction)
        else:
            barrier.transactions.append(transaction)

    def land_transaction(self, barrier, transaction):
        writes, size = transaction
        for address, payload in writes:
            self.shared.write(address, payload)
        barrier.tx -= size
        barrier.try_complete()

    def land_tma_copies(self):
        """Lands every TMA copy in flight (late mode: once all threads have
        run as far as they can)."""
        landed = False
        for barrier in self.mbarriers.values():
            while barrier.transactions:
                self.land_transaction(barrier, barrier.transactions.pop(0))
                landed = True
        return landed

    def mbarrier_arrive(self, thread, ins):
        """mbarrier.arrive[.expect_tx][.release.cta].shared[::cta].b64
        state, [addr][, count or tx count]."""
        op, o = ins.opcode, ins.operands
        if any(x in op for x in ("arrive_drop", "noComplete", "shared::cluster")):
            raise SimulationError(f"unsupported instruction: {ins.text}")
        position = next(i for i, x in enumerate(o) if x.startswith("["))
        barrier = self.mbarrier(thread, o[position])
        extra = self.value(thread, o[position + 1]) if len(o) > position + 1 else None
        if position and o[0] != "_":
            thread.regs[o[0]] = barrier.phase
        if ".expect_tx" in op:
            if extra is None:
                raise SimulationError(f"{op} without a transaction count")
            barrier.tx += extra
            barrier.arrive(1)
        else:
            barrier.arrive(1 if extra is None else extra)

    def setmaxnreg(self, thread, ins):
        count = self.value(thread, ins.operands[0])
        if not 24 <= count <= 256 or count % 8:
            raise SimulationError(f"{ins.opcode} {count}: the count must be a "
                                  "multiple of 8 from 24 to 256")
        self.max_registers[thread.tid // 128 * 128] = count
        total = 128 * sum(self.max_registers.values())
        if total > 65536:
            raise SimulationError(f"setmaxnreg: the warpgroups ask for {total} "
                                  "registers, more than the 65536 of an SM")

    def wgmma_track(self, warpgroup, d_regs, operands):
        """Marks the accumulator registers of a wgmma just issued as in
        flight in the warpgroup's open group, with the operand matrices it
        read (re-read when the group retires)."""
        groups = self.wgmma_groups.setdefault(warpgroup[0].tid, WgmmaGroups())
        groups.open.append(operands)
        for thread in warpgroup:
            for reg in d_regs:
                thread.wgmma_inflight[reg] = groups.next_id

    def wgmma_release_registers(self, warpgroup, d_regs):
        """An in-flight accumulator may feed the next wgmma (the same
        registers, chained): that read is not a hazard."""
        for thread in warpgroup:
            for reg in d_regs:
                thread.wgmma_inflight.pop(reg, None)

    def wgmma_commit(self, warpgroup):
        groups = self.wgmma_groups.setdefault(warpgroup[0].tid, WgmmaGroups())
        groups.committed.append((groups.next_id, groups.open))
        groups.open = []
        groups.next_id += 1
        # Registers of the operations just committed keep their group id.

    def wgmma_wait(self, warpgroup, keep):
        """wgmma.wait_group keep: retires the oldest committed groups until at
        most `keep` are pending; a group's shared-memory operands must not
        have changed since it was issued."""
        groups = self.wgmma_groups.setdefault(warpgroup[0].tid, WgmmaGroups())
        while len(groups.committed) > keep:
            group_id, operations = groups.committed.pop(0)
            for reread, matrices in operations:
                if reread() != matrices:
                    raise SimulationError(
                        f"warpgroup {warpgroup[0].tid // 128}: shared memory a "
                        "wgmma group read was overwritten before "
                        "wgmma.wait_group retired the group")
            for thread in warpgroup:
                for reg in [r for r, g in thread.wgmma_inflight.items() if g == group_id]:
                    del thread.wgmma_inflight[reg]

    # -- collectives ---------------------------------------------------------

    def execute_collective(self, group, ins):
        op = ins.opcode
        self.executed += len(group)
        if op.startswith("ldmatrix"):
            self.ldmatrix(group, ins)
        elif op.startswith("mma.sync") and ".block_scale" in op:
            self.mma_sync_block_scale(group, ins)
        elif op.startswith("mma.sync"):
            self.mma_sync(group, ins)
        elif op.startswith("wgmma.mma_async"):
            self.wgmma(group, ins)
        elif op.startswith("wgmma.fence"):
            pass
        elif op.startswith("wgmma.commit_group"):
            self.wgmma_commit(group)
        elif op.startswith("wgmma.wait_group"):
            self.wgmma_wait(group, int(ins.operands[0]))

        elif op.startswith("tcgen05.alloc"):
            self.tcgen05_alloc(group, ins)
        elif op.startswith("tcgen05.dealloc"):
            self.tcgen05_dealloc(group, ins)
        elif op.startswith("tcgen05.ld"):
            self.tcgen05_ld_st(group, ins, load=True)
        elif op.startswith("tcgen05.st"):
            self.tcgen05_ld_st(group, ins, load=False)
        elif op.startswith("stmatrix"):
            self.stmatrix(group, ins)
        elif op.startswith("bar.warp.sync"):
            self.bar_warp_sync(group, ins)
        else:
            raise SimulationError(f"unsupported collective: {ins.text}")

    def ldmatrix(self, warp, ins):
        parts = ins.opcode.split(".")
        if "x4" not in parts or "m8n8" not in parts or "b16" not in parts:
            raise SimulationError(f"unsupported ldmatrix: {ins.text}")
        transpose = "trans" in parts
        targets = split_operands(ins.operands[0].strip("{}"))
        # Matrix q: rows addressed by lanes 8q .. 8q + 7, 8 b16 elements each.
        matrices = []
        for q in range(4):
            rows = []
            for r in range(8):
                row_address = self.address(warp[8 * q + r], ins.operands[1])
                self.check_alignment(row_address, 16, "ldmatrix row")
                data = self.shared.read(row_address, 16)
                rows.append([int.from_bytes(data[2 * c : 2 * c + 2], "little")
                             for c in range(8)])
            matrices.append(rows)
        for lane, thread in enumerate(warp):
            g, t = lane // 4, lane % 4
            for q in range(4):
                m = matrices[q]
                if transpose:
                    low, high = m[2 * t][g], m[2 * t + 1][g]
                else:
                    low, high = m[g][2 * t], m[g][2 * t + 1]
                thread.regs[targets[q]] = low | high << 16

    def stmatrix(self, warp, ins):
        """stmatrix.sync.aligned.m8n8.x1/x2/x4[.trans].shared.b16: matrix q's
        rows are at the addresses of lanes 8q .. 8q + 7; lane l's register q
        holds row l / 4, columns 2 (l % 4) and + 1 (the ldmatrix fragment),
        or with .trans that row's transpose (column l / 4, rows 2 (l % 4)
        and + 1)."""
        parts = ins.opcode.split(".")
        count = next((int(p[1:]) for p in parts if p in ("x1", "x2", "x4")), None)
        if "m8n8" not in parts or "b16" not in parts or count is None:
            raise SimulationError(f"unsupported stmatrix: {ins.text}")
        transpose = "trans" in parts
        sources = split_operands(ins.operands[1].strip("{}"))
        for q in range(count):
            rows = [[0] * 8 for _ in range(8)]
            for lane, thread in enumerate(warp):
                g, t = lane // 4, lane % 4
                word = self.value(thread, sources[q])
                for h in range(2):
                    element = (word >> (16 * h)) & 0xFFFF
                    if transpose:
                        rows[2 * t + h][g] = element
                    else:
                        rows[g][2 * t + h] = element
            for r in range(8):
                row_address = self.address(warp[8 * q + r], ins.operands[0])
                self.check_alignment(row_address, 16, "stmatrix row")
                self.shared.write(row_address, b"".join(
                    e.to_bytes(2, "little") for e in rows[r]))

    def bar_warp_sync(self, warp, ins):
        """bar.warp.sync with the full mask: the warp's threads wait for each
        other (shared-memory writes before it are visible after it)."""
        if self.value(warp[0], ins.operands[0]) & MASK[32] != MASK[32]:
            raise SimulationError(f"bar.warp.sync with a partial mask: {ins.text}")

    def fragment_words(self, threads, registers):
        """[[value(thread, register) for register in registers] for thread in
        threads], each register set and out of any wgmma group read directly
        (value() reads, and reports, the others)."""
        words = []
        for thread in threads:
            regs = thread.regs
            if thread.wgmma_inflight.keys().isdisjoint(registers) \
                    and all(reg in regs for reg in registers):
                words.append([regs[reg] for reg in registers])
            else:
                words.append([self.value(thread, reg) for reg in registers])
        return words

    def mma_sync_operands(self, warp, a_regs, b_regs, c_regs, a_type, b_type,
                          c_type, A, B, C):
        """Fills A, B and C from the fragments as mma_sync's layouts define
        them (mma_positions), the registers read lane by lane (A's, B's,
        C's); 8- and 16-bit elements are split and decoded by NumPy."""
        words = self.fragment_words(warp, a_regs + b_regs + c_regs)
        array = None
        if VECTOR_SUMS and len(words) == 32:
            try:
                array = _np.array(words, dtype=_np.int64)
            except OverflowError:  # not a 32-bit register: the loop reads it
                pass
        first = 0
        for operand, regs, ptx_type, matrix in (("a", a_regs, a_type, A),
                                                 ("b", b_regs, b_type, B)):
            width = DECODE[ptx_type][0]
            per = 4 // width
            positions = mma_positions(operand, per, len(regs))
            if array is not None and width < 4 \
                    and 32 * len(regs) * per == len(matrix) * len(matrix[0]):
                bits = 8 * width
                fragment = array[:, first:first + len(regs), None]
                elements = (fragment >> (bits * _np.arange(per))) & ((1 << bits) - 1)
                table = decode_array(ptx_type)
                dense = _np.empty((len(matrix), len(matrix[0])), table.dtype)
                rows, cols, distinct = mma_index(operand, per, len(regs))
                if distinct == dense.size and rows.max() < dense.shape[0] \
                        and cols.max() < dense.shape[1]:
                    dense[rows, cols] = table[elements]
                    matrix[:] = dense.tolist()
                    first += len(regs)
                    continue
            for lane, lane_words in enumerate(words):
                for word, places in zip(lane_words[first:first + len(regs)],
                                        positions[lane]):
                    for (row, col), x in zip(places, split_elements(word, ptx_type)):
                        matrix[row][col] = x
            first += len(regs)
        for lane, lane_words in enumerate(words):
            g, t = lane // 4, lane % 4
            for i, word in enumerate(lane_words[first:]):
                if c_type == "f16":
                    for j in range(2):
                        C[g + 8 * i][2 * t + j] = f16_from_bits(word >> (16 * j))
                else:
                    row, col = g + 8 * (i // 2), 2 * t + i % 2
                    C[row][col] = (signed(word, 32) if c_type == "s32"
                                   else f32_from_bits(word))

    def mma_sync(self, warp, ins):
        parts = ins.opcode.split(".")
        shape = parts[3]
        d_type, a_type, b_type, c_type = parts[6], parts[7], parts[8], parts[9]
        m, n, k = map(int, re.match(r"m(\d+)n(\d+)k(\d+)", shape).groups())
        d_regs, a_regs, b_regs, c_regs = (split_operands(x.strip("{}"))
                                          for x in ins.operands)
        A = [[None] * k for _ in range(m)]
        B = [[None] * n for _ in range(k)]
        C = [[None] * n for _ in range(m)]
        self.mma_sync_operands(warp, a_regs, b_regs, c_regs, a_type, b_type,
                               c_type, A, B, C)
        totals = accumulate(C, A, list(zip(*B)), d_type == "s32")
        if totals is not None:
            # The same sums, computed at once (accumulate).
            if d_type == "f16":
                values = [[bits_from_f16(x) for x in row] for row in totals.tolist()]
            elif d_type == "s32":
                values = (totals & MASK[32]).tolist()
            else:
                values = f32_bits_array(totals)
            for lane, thread in enumerate(warp):
                g, t = lane // 4, lane % 4
                for i, reg in enumerate(d_regs):
                    if d_type == "f16":
                        row = values[g + 8 * i]
                        thread.regs[reg] = row[2 * t] | row[2 * t + 1] << 16
                    else:
                        thread.regs[reg] = values[g + 8 * (i // 2)][2 * t + i % 2]
            return
        for lane, thread in enumerate(warp):
            g, t = lane // 4, lane % 4
            if d_type == "f16":
                for i, reg in enumerate(d_regs):
                    word = 0
                    for j in range(2):
                        row, col = g + 8 * i, 2 * t + j
                        total = C[row][col] + sum(A[row][x] * B[x][col] for x in range(k))
                        word |= bits_from_f16(total) << (16 * j)
                    thread.regs[reg] = word
            else:
                for i, reg in enumerate(d_regs):
                    row, col = g + 8 * (i // 2), 2 * t + i % 2
                    total = C[row][col] + sum(A[row][x] * B[x][col] for x in range(k))
                    thread.regs[reg] = (int(total) & MASK[32] if d_type == "s32"
                                        else bits_from_f32(total))

    def mma_sync_block_scale(self, warp, ins):
        """mma.sync ... .block_scale (sm_120a); see BLOCK_SCALE_DOC."""
        parts = ins.opcode.split(".")
        shape = next(p for p in parts if p.startswith("m16n8k"))
        kind = next(p[len("kind::"):] for p in parts if p.startswith("kind::"))
        vector = next((p[len("scale_vec::"):] for p in parts
                       if p.startswith("scale_vec::")),
                      {"mxf8f6f4": "1X", "mxf4": "2X"}.get(kind))
        d_type, a_type, b_type, c_type, s_type = parts[-5:]
        k = int(shape[len("m16n8k"):])
        valid = {("mxf8f6f4", 32, "1X", "ue8m0"), ("mxf4", 64, "2X", "ue8m0"),
                 ("mxf4nvf4", 64, "2X", "ue8m0"), ("mxf4nvf4", 64, "4X", "ue8m0"),
                 ("mxf4nvf4", 64, "4X", "ue4m3")}
        packed = kind != "mxf8f6f4"
        if (kind, k, vector, s_type) not in valid or d_type != "f32" \
                or c_type != "f32" or (packed and (a_type, b_type) != ("e2m1", "e2m1")) \
                or a_type not in BLOCK_SCALED_CONTAINERS \
                or b_type not in BLOCK_SCALED_CONTAINERS:
            raise SimulationError(f"unsupported block-scaled mma: {ins.text}")
        o = ins.operands
        d_regs, a_regs, b_regs, c_regs = (split_operands(x.strip("{}")) for x in o[:4])
        count = int(vector[0])  # scale vector: K blocks per instruction
        A = [[None] * k for _ in range(16)]
        B = [[None] * 8 for _ in range(k)]
        C = [[None] * 8 for _ in range(16)]
        for lane, thread in enumerate(warp):
            g, t = lane // 4, lane % 4
            for i, reg in enumerate(a_regs):
                for j, x in enumerate(block_scaled_elements(
                        self.value(thread, reg), a_type, packed)):
                    if packed:  # 8 nibbles: K 8t + j + 32 (i / 2)
                        A[g + 8 * (i % 2)][8 * t + j + 32 * (i // 2)] = x
                    else:  # 4 bytes: K 4t + j + 16 (i / 2)
                        A[g + 8 * (i % 2)][4 * t + j + 16 * (i // 2)] = x
            for i, reg in enumerate(b_regs):
                for j, x in enumerate(block_scaled_elements(
                        self.value(thread, reg), b_type, packed)):
                    B[(8 * t + j + 32 * i) if packed else (4 * t + j + 16 * i)][g] = x
            for i, reg in enumerate(c_regs):
                C[g + 8 * (i // 2)][2 * t + i % 2] = f32_from_bits(self.value(thread, reg))
        selectors = []
        for data, ids in ((o[4], o[5]), (o[6], o[7])):
            byte_id, thread_id = (self.value(warp[0], x.strip(), 16)
                                  for x in split_operands(ids.strip("{}")))
            for thread in warp[1:]:
                if tuple(self.value(thread, x.strip(), 16) for x in
                         split_operands(ids.strip("{}"))) != (byte_id, thread_id):
                    raise SimulationError(f"{ins.opcode}: byte-id/thread-id differ "
                                          "across the warp")
            if byte_id + count > 4 or byte_id % count:
                raise SimulationError(f"{ins.opcode}: byte-id {byte_id} with "
                                      f"scale_vec::{vector}")
            selectors.append((data, byte_id, thread_id))
        (a_data, a_byte, a_thread), (b_data, b_byte, b_thread) = selectors
        if a_thread > 1 or b_thread > 3:
            raise SimulationError(f"{ins.opcode}: thread-id {a_thread} (A) / "
                                  f"{b_thread} (B) out of range")
        # SF_A of row r: lane 4 (r % 8) + 2 thread-id-a + r / 8; SF_B of
        # column c: lane 4c + thread-id-b; scale v in byte byte-id + v.
        def scales(lane, data, first):
            word = self.value(warp[lane], data)
            return [decode_block_scale((word >> (8 * (first + v))) & 0xFF, s_type)
                    for v in range(count)]
        scale_a = [scales(4 * (r % 8) + 2 * a_thread + r // 8, a_data, a_byte)
                   for r in range(16)]
        scale_b = [scales(4 * c + b_thread, b_data, b_byte) for c in range(8)]
        block = k // count
        for lane, thread in enumerate(warp):
            g, t = lane // 4, lane % 4
            for i, reg in enumerate(d_regs):
                row, col = g + 8 * (i // 2), 2 * t + i % 2
                terms = [C[row][col]] + [
                    A[row][x] * scale_a[row][x // block] * B[x][col]
                    * scale_b[col][x // block] for x in range(k)]
                try:
                    total = math.fsum(terms)
                except (ValueError, OverflowError):  # inf - inf, overflow
                    total = sum(terms)
                thread.regs[reg] = bits_from_f32(total)

    def wgmma(self, warpgroup, ins):
        parts = ins.opcode.split(".")
        m, n, k = map(int, re.match(r"m(\d+)n(\d+)k(\d+)", parts[4]).groups())
        d_type, a_type, b_type = parts[5], parts[6], parts[7]
        o = ins.operands
        d_regs = split_operands(o[0].strip("{}"))
        leader = warpgroup[0]
        desc_a = self.value(leader, o[1], 64)
        desc_b = self.value(leader, o[2], 64)
        for thread in warpgroup[1:]:
            if (self.value(thread, o[1], 64), self.value(thread, o[2], 64)) != (desc_a, desc_b):
                raise SimulationError("wgmma descriptors differ across the warpgroup")
        scale_d = self.value(leader, o[3])
        immediates = [int(x) for x in o[4:]]
        trans_a = trans_b = 0
        if len(immediates) >= 4:
            trans_a, trans_b = immediates[2], immediates[3]
        fp8 = a_type in ("e4m3", "e5m2")
        A = self.read_descriptor(desc_a, a_type, m, k, trans_a)  # A[m][k]
        B = self.read_descriptor(desc_b, b_type, n, k, trans_b)  # B[n][k]
        self.wgmma_release_registers(warpgroup, d_regs)
        if (fp8 and FP8_WGMMA_ACCUMULATOR_BITS is not None) or not \
                self.wgmma_vector(warpgroup, d_regs, d_type, scale_d, m, n, A, B):
            self.wgmma_scalar(warpgroup, d_regs, d_type, scale_d, k, fp8, A, B)
        reread = lambda: (self.read_descriptor(desc_a, a_type, m, k, trans_a),
                          self.read_descriptor(desc_b, b_type, n, k, trans_b))
        self.wgmma_track(warpgroup, d_regs, (reread, (A, B)))

    def wgmma_vector(self, warpgroup, d_regs, d_type, scale_d, m, n, A, B):
        """wgmma_scalar's results for f32 and s32 accumulators, the fragments
        gathered and scattered by NumPy and the sums done by accumulate;
        False (nothing written) where it leaves them to wgmma_scalar: f16
        accumulators, and accumulators holding a NaN."""
        if not VECTOR_SUMS or d_type not in ("f32", "s32") or len(warpgroup) != 128 \
                or 64 * len(d_regs) != 32 * n or m != 64:
            return False
        integer = d_type == "s32"
        rows, cols = wgmma_positions(len(d_regs))
        words = _np.array(self.fragment_words(warpgroup, d_regs), dtype=_np.uint32)
        old = _np.zeros((m, n), _np.int64 if integer else _np.float64)
        if scale_d:
            if integer:
                old[rows, cols] = words.view(_np.int32)
            else:
                if ((words & 0x7F800000) == 0x7F800000).any():
                    # Infinities and NaNs: the scalar path decodes them.
                    return False
                old[rows, cols] = words.view(_np.float32)
        totals = accumulate(old, A, B, integer)
        if totals is None:
            return False
        if integer:
            values = totals & MASK[32]
        else:
            values = _np.array(f32_bits_array(totals), dtype=_np.int64)
        for thread, row in zip(warpgroup, values[rows, cols].tolist()):
            thread.regs.update(zip(d_regs, row))
        return True

    def wgmma_scalar(self, warpgroup, d_regs, d_type, scale_d, k, fp8, A, B):
        """Adds A B^T to the accumulator fragments of the warpgroup, one
        element at a time (the definition; see accumulate)."""
        for lane_in_group, thread in enumerate(warpgroup):
            warp, lane = lane_in_group // 32, lane_in_group % 32
            g, t = lane // 4, lane % 4
            for i, reg in enumerate(d_regs):
                if d_type == "f16":
                    word = 0
                    for h in range(2):
                        row = 16 * warp + g + 8 * (i % 2)
                        col = 8 * (i // 2) + 2 * t + h
                        old = f16_from_bits(self.value(thread, reg) >> (16 * h)) if scale_d else 0.0
                        total = old + sum(A[row][x] * B[col][x] for x in range(k))
                        word |= bits_from_f16(total) << (16 * h)
                    thread.regs[reg] = word
                else:
                    row = 16 * warp + g + 8 * ((i % 4) // 2)
                    col = 8 * (i // 4) + 2 * t + i % 2
                    value = self.value(thread, reg)
                    if d_type == "s32":
                        old = signed(value, 32) if scale_d else 0
                        total = old + sum(A[row][x] * B[col][x] for x in range(k))
                        thread.regs[reg] = int(total) & MASK[32]
                    else:
                        old = f32_from_bits(value) if scale_d else 0.0
                        total = old + sum(A[row][x] * B[col][x] for x in range(k))
                        if fp8 and FP8_WGMMA_ACCUMULATOR_BITS is not None:
                            total = truncate_significand(
                                total, FP8_WGMMA_ACCUMULATOR_BITS)
                        thread.regs[reg] = bits_from_f32(total)

    def read_descriptor_vector(self, start, leading, stride, ptx_type, rows,
                               depth, transposed):
        """read_descriptor's matrix of an 8- or 16-bit type, its addresses
        computed by NumPy and its elements decoded through split_elements'
        table; None (the loop then reads it, and reports a bad address)
        where an element lies outside shared memory."""
        width = DECODE[ptx_type][0]
        per_chunk = 16 // width
        mn = _np.arange(rows, dtype=_np.int64)[:, None]
        kk = _np.arange(depth, dtype=_np.int64)[None, :]
        if not transposed:
            offset = ((mn % 8) * 8 * per_chunk + (kk % per_chunk)
                      + (kk // per_chunk) * per_chunk) * width + (mn // 8) * stride
        else:
            offset = ((mn % per_chunk) + ((mn // per_chunk) % 8) * per_chunk
                      + (kk % 8) * 8 * per_chunk) * width \
                + (mn // (8 * per_chunk)) * leading + (kk // 8) * stride
        address = start + offset
        address ^= ((address >> 7) & 7) << 4  # Swizzle<3,4,3>
        data = self.shared.data
        if address.min() < 0 or address.max() + width > len(data):
            return None
        memory = _np.frombuffer(data, dtype=_np.uint8)
        bits = memory[address].astype(_np.int64)
        if width == 2:
            bits |= memory[address + 1].astype(_np.int64) << 8
        return decode_array(ptx_type)[bits].tolist()

    def read_descriptor(self, descriptor, ptx_type, rows, depth, transposed,
                        tcgen05=False):
        """Reads a rows × depth (MN × K) operand through a wgmma matrix
        descriptor (PTX ISA, "Matrix Descriptor Format" and canonical
        layouts), or a tcgen05 shared-memory descriptor (the same fields plus
        the version 0b001 in bits 46-48, the leading-dimension mode in bit 52
        and a 3-bit swizzle mode in bits 61-63, 2 = 128 bytes)."""
        start = (descriptor & 0x3FFF) << 4
        leading = ((descriptor >> 16) & 0x3FFF) << 4
        stride = ((descriptor >> 32) & 0x3FFF) << 4
        base_offset = (descriptor >> 49) & 0x7
        if tcgen05:
            if (descriptor >> 46) & 0x7 != 1 or (descriptor >> 52) & 1 \
                    or (descriptor >> 53) & 0xFF:
                raise SimulationError(f"tcgen05 descriptor {descriptor:#x}: version "
                                      "must be 1, leading-dimension mode 0")
            swizzle = 1 if (descriptor >> 61) & 0x7 == 2 else 0
        else:
            swizzle = (descriptor >> 62) & 0x3
        if swizzle != 1 or base_offset != 0:
            raise SimulationError("only the 128-byte swizzle with base offset 0 "
                                  "is simulated")
        width, decode = DECODE[ptx_type]
        per_chunk = 16 // width  # T
        if VECTOR_SUMS and width < 4:
            matrix = self.read_descriptor_vector(start, leading, stride, ptx_type,
                                                 rows, depth, transposed)
            if matrix is not None:
                return matrix
        matrix = [[None] * depth for _ in range(rows)]
        for mn in range(rows):
            for kk in range(depth):
                if not transposed:
                    # K-major: ((8,m),(T,2k)):((8T,SBO),(1,T)) in elements.
                    offset = ((mn % 8) * 8 * per_chunk + (kk % per_chunk)
                              + (kk // per_chunk) * per_chunk) * width
                    offset += (mn // 8) * stride
                else:
                    # MN-major: ((T,8,m),(8,k)):((1,T,LBO),(8T,SBO)).
                    offset = ((mn % per_chunk) + ((mn // per_chunk) % 8) * per_chunk
                              + (kk % 8) * 8 * per_chunk) * width
                    offset += (mn // (8 * per_chunk)) * leading + (kk // 8) * stride
                address = start + offset
                address ^= ((address >> 7) & 7) << 4  # Swizzle<3,4,3>
                bits = int.from_bytes(self.shared.read(address, width), "little")
                matrix[mn][kk] = decode(bits)
        return matrix


# ----------------------------------------------------------------------------
# Block-scaled mma.sync (sm_120a)
# ----------------------------------------------------------------------------

BLOCK_SCALE_DOC = """
D = (A · SF_A) (B · SF_B) + C with f32 C and D (m16n8 C fragments as for
mma.sync). A and B fragments: m16n8k32 kind::mxf8f6f4 as the 8-bit m16n8k32
forms (register i of A: row g + 8 (i % 2), K 16 (i / 2) + 4t + byte; of B:
column g, K 16 i + 4t + byte) with E2M1 in bits 2..5 and E2M3/E3M2 in bits
0..5 of each byte (other bits must be 0); m16n8k64 kind::mxf4 / mxf4nvf4
with packed E2M1 (register i of A: row g + 8 (i % 2), K 32 (i / 2) + 8t +
nibble; of B: column g, K 32 i + 8t + nibble; nibble 0 lowest). Scales: the
scale_vec::NX vector of row r of A is bytes byte-id-a .. + N - 1 of
scale-a-data in lane 4 (r % 8) + 2 thread-id-a + r / 8; that of column c of
B is in lane 4c + thread-id-b; byte v scales K block v (K / N elements).
ue8m0 is 2^(x - 127) (0xFF NaN), ue4m3 an E4M3 value with the sign bit 0.
The products are summed exactly and rounded once to f32.
"""


FP8_WGMMA_DOC = """
What the simulator computes for wgmma.mma_async with e4m3/e5m2 operands and
an f32 accumulator. The PTX ISA does not specify the precision of this
accumulation, and Hopper's is known to be lower than f32 (DeepSeek-V3's
report measured about 14 significand bits retained; CUTLASS's FP8 kernels and
DeepGEMM therefore add the wgmma accumulator into f32 registers every few
instructions, which the kernels' fp8-promote-interval does). Neither mode
below is the hardware's bit pattern:

  - FP8_WGMMA_ACCUMULATOR_BITS = None (default): each instruction adds its
    K = 32 products, each exact, to the old accumulator in double and rounds
    the sum once to f32 (round to nearest even). With the small operands
    the checks use, every sum is exact, so any accumulation order and any
    promotion interval give the same bits as the definition of the op.
  - FP8_WGMMA_ACCUMULATOR_BITS = b: the same sum is then truncated (rounded
    toward zero) to b significand bits before being written back, once per
    instruction: a model of an accumulator that keeps fewer bits than f32,
    under which a long K loses low-order bits unless the kernel promotes.
    Promotion's own add.f32 into the second accumulator rounds as f32 does.
"""

FP8_WGMMA_ACCUMULATOR_BITS = None


def truncate_significand(value, bits):
    """`value` rounded toward zero to `bits` significand bits (finite)."""
    if value == 0 or not math.isfinite(value):
        return value
    mantissa, exponent = math.frexp(value)  # value = mantissa * 2**exponent
    scale = 2.0 ** bits
    return math.ldexp(math.trunc(mantissa * scale) / scale, exponent)


def _narrow_table(exponent_bits, mantissa_bits):
    """The values of a finite-only FP6/FP4 format (no NaN, no infinity)."""
    bias = (1 << (exponent_bits - 1)) - 1
    table = []
    for bits in range(1 << (1 + exponent_bits + mantissa_bits)):
        sign = -1.0 if bits >> (exponent_bits + mantissa_bits) else 1.0
        exponent = (bits >> mantissa_bits) & ((1 << exponent_bits) - 1)
        mantissa = bits & ((1 << mantissa_bits) - 1)
        if exponent == 0:
            table.append(sign * mantissa * 2.0 ** (1 - bias - mantissa_bits))
        else:
            table.append(sign * (1 + mantissa / (1 << mantissa_bits))
                         * 2.0 ** (exponent - bias))
    return table


E2M1 = _narrow_table(2, 1)
E2M3 = _narrow_table(2, 3)
E3M2 = _narrow_table(3, 2)
# The operand formats of block-scaled mma: (bits, values, bit position in an
# 8-bit container).
BLOCK_SCALED_CONTAINERS = {
    "e4m3": (8, E4M3, 0), "e5m2": (8, E5M2, 0), "e2m3": (6, E2M3, 0),
    "e3m2": (6, E3M2, 0), "e2m1": (4, E2M1, 2)}


def block_scaled_elements(word, ptx_type, packed):
    """The elements of one block-scaled fragment register, lowest K first:
    8 packed E2M1 nibbles, or 4 bytes (8-bit containers)."""
    if packed:
        return [E2M1[(word >> (4 * i)) & 0xF] for i in range(8)]
    bits, table, shift = BLOCK_SCALED_CONTAINERS[ptx_type]
    elements = []
    for i in range(4):
        byte = (word >> (8 * i)) & 0xFF
        value = (byte >> shift) & ((1 << bits) - 1)
        if value << shift != byte:
            raise SimulationError(f"{ptx_type} element in an 8-bit container with "
                                  f"padding bits set: {byte:#04x}")
        elements.append(table[value])
    return elements


def decode_block_scale(bits, s_type):
    if s_type == "ue8m0":
        return math.nan if bits == 0xFF else 2.0 ** (bits - 127)
    if bits & 0x80:
        raise SimulationError(f"ue4m3 scale {bits:#04x} with the sign bit set")
    return E4M3[bits]


# ----------------------------------------------------------------------------
# Block-scaled tcgen05.mma (sm_100a)
# ----------------------------------------------------------------------------

TCGEN05_BLOCK_SCALE_DOC = """
D = (A · SF_A) (B · SF_B) + D (D f32 in Tensor Memory, M = 128, N a
multiple of 16 up to 256, as tcgen05.mma). A and B through tcgen05
shared-memory descriptors (128-byte swizzle): kind::mxf8f6f4 on E4M3/E5M2
(codes 0, 1; K = 32) and on E2M3, E3M2, E2M1 (codes 3, 4, 5; K-major, in
the padded form of the PTX ISA's "Packing format used for matrix A and B by
.kind::mxf8f6f4 in Shared Memory", TMA's .b6x16_p32 / .b4x16_p64: each
16-byte chunk holds 16 elements packed from its first bit, element e at
bits 6e (4e) little-endian, then 32 (64) bits of padding that are
ignored), kind::mxf4 / mxf4nvf4 on packed E2M1 (code 1, two
per byte, the lower K in the low nibble; K = 64, K-major only). The
instruction descriptor (CUTLASS InstrDescriptorBlockScaled): B's
scale-factor id in bits 4-5, A and B types in 7-9 and 10-12, transposes in
15 and 16, N >> 3 in 17-22, the scale type in bit 23 (1 = UE8M0, 0 =
UE4M3), M >> 4 in 24-28, A's scale-factor id in 29-30; bits 0-3 and 31
(sparsity, K size) must be 0. Scale vectors: .block32 of mxf8f6f4 1 scale
per row, of mxf4 / mxf4nvf4 2, .block16 (mxf4nvf4) 4; the id must be a
multiple of that count. The scale of row r of A (row j of B, i.e. column j
of the product) for K block v of the instruction is byte id + v of Tensor
Memory column (scale address) + r / 32, lane r % 32 + 32q; the four lane
quarters q must hold the same word (the layout of CUTLASS's tmem_sf_frg and
Triton's tensorMemoryScalesToLinearLayout, which tcgen05.cp .warpx4
writes). Products summed exactly, rounded once to f32.

tcgen05.cp.cta_group::1.32x128b.warpx4 [taddr], desc: the 32 rows of 16
bytes of a shared-memory matrix without swizzle (row r at start + (r / 8) *
stride-byte-offset + 16 (r % 8)) to lanes 0..31 of 4 columns from taddr's
(lane 0), replicated in lanes 32..63, 64..95 and 96..127 (CUTLASS
SM100_UTCCP_4x32dp128bit: 32 datapaths x 128 bits, broadcast to 4).
It runs in order with the thread's tcgen05.mma (queued the same way).
"""

# kind: (A/B type codes, K per instruction, packed FP4)
TCGEN05_BLOCK_SCALE_TYPES = {
    "mxf8f6f4": ({0: "e4m3", 1: "e5m2", 3: "e2m3", 4: "e3m2", 5: "e2m1"}, 32,
                 False),
    "mxf4": ({1: "e2m1"}, 64, True),
    "mxf4nvf4": ({1: "e2m1"}, 64, True),
}
# kind::mxf8f6f4's sub-byte operands in shared memory: (bits, decoding).
F8F6F4_PADDED = {"e2m3": (6, E2M3), "e3m2": (6, E3M2), "e2m1": (4, E2M1)}
# (kind, block size): (scales per row per instruction, scale types)
TCGEN05_SCALE_VECTORS = {
    ("mxf8f6f4", "block32"): (1, {"ue8m0"}),
    ("mxf4", "block32"): (2, {"ue8m0"}),
    ("mxf4nvf4", "block32"): (2, {"ue8m0"}),
    ("mxf4nvf4", "block16"): (4, {"ue8m0", "ue4m3"}),
}


def simulate_grid(kernel, shared_symbols, memory, params, block_dim, grid,
                  shared_bytes, cp_async="late", schedule="round-robin",
                  blocks=None, global_symbols=None):
    """Runs every block of `grid` (or the listed `blocks`); `global_symbols`
    gives the device address of each module variable."""
    executed = 0
    all_blocks = [(x, y, z) for z in range(grid[2]) for y in range(grid[1])
                  for x in range(grid[0])]
    for block in blocks or all_blocks:
        simulator = BlockSimulator(kernel, shared_symbols, memory, params,
                                   block_dim, block, grid, shared_bytes, cp_async,
                                   schedule, global_symbols)
        simulator.run()
        executed += simulator.executed
    return executed
