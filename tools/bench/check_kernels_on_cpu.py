#!/usr/bin/env python3
"""Checks the numbers MixedPrec's Tensor Core kernels compute, without a GPU.

For each case (an mp matmul-like with its formats, layouts, shape, bias and
activation) this script writes the op to an .mlir file, lowers it with
`mp-opt --convert-mp-to-nvvm{chip=...}` and compiles the kernel to PTX, runs
the PTX on the CPU with tools/bench/ptx_sim.py (every block of the grid) on
random operands that the operand format represents exactly, and compares the
result with a reference computed in double precision from the same operands
and rounded once to the result type, as the CPU lowering does. Sums of the
small operands used are exact in f32, so results must match bit for bit,
except for tf32 (whose operands are rounded with cvt.rna first: the
reference rounds the same way, and the tolerance is one f32 ulp of the sum's
magnitude) and f16 accumulation (exact for the operand range used).

  check_kernels_on_cpu.py --chip sm_80 [--options "block-m=64 ..."]
      [--mp-opt PATH] [--thorough] [--replace-ptx 'OLD|NEW'] CASE...

A CASE is `op:lhs:rhs:acc:result[:flags]:MxNxK[xBATCH]` with op one of
matmul, batch_matmul, linear; lhs/rhs element types (f16, bf16, f32, i8,
f8E4M3FN, f8E5M2); flags a `+`-separated subset of tl (transpose_lhs), tr
(transpose_rhs), tf32 (compute tf32), bias (linear), and one of relu,
gelu, gelutanh (fused activations). Examples:

  matmul:bf16:bf16:f32:bf16:tr:72x40x80
  batch_matmul:f16:f16:f16:f16:tl:40x24x48x2
  linear:f16:f16:f32:f16:bias+relu:72x40x80

Block-scaled cases (sm_120a) are `scaled_matmul:lhs:rhs:scales:result[:flags]:
MxNxK` with lhs/rhs one of f8E4M3FN, f8E5M2, f6E2M3FN, f6E3M2FN, f4E2M1FN,
scales `e8m0x32` (MX) or `e4m3x16` (NVFP4), flags tr (transpose_rhs, which
the kernels need) and tiles (B's scales on 2-D tiles of block x block).
The reference follows mp.scaled_matmul's definition (the
CPU emulation's arithmetic, one f32 rounding per dequantisation, product
and sum, in increasing k); the operands (small values, scales 2^-1 .. 2^1 or
E4M3 0.5 .. 2) keep every step exact, so any summation order must give the
same bits. FP4/FP6 bytes carry random bits above the element (memory holds
one element per byte and nothing defines the rest), which the kernel must
ignore.

  scaled_matmul:f8E4M3FN:f4E2M1FN:e8m0x32:bf16:tr:40x24x96

FP8 promotion (wgmma, fp8-promote-interval): the flag `long` samples FP8
operands from positive values of 1 to 1.75 (multiples of 1/8 for E4M3, 1/4
for E5M2), whose sums over long K need more significand bits than over one
promotion window of 128; `--fp8-accumulator-bits 14` makes the simulator
truncate the FP8 wgmma accumulator to 14 bits per instruction (ptx_sim's
FP8_WGMMA_DOC), so an unpromoted kernel differs from the exact reference on
such a case and a promoted one does not.

Split-K (`--options split-k=S`, or auto): the module has the partial
kernel (`mp_tensor_core` `split_k`) and the reduction kernel; the case runs
both as the launcher does (the partials of the S splits of the launcher
call's `mp_split_k` into a workspace, then the reduction into C). The flag
`inexact` samples operands with full significands (uniform in [-1, 1],
rounded to the format), whose f32 sums depend on their order: C is then
compared with the reference within K·2^-24·Σ|a·b| plus one unit of the
result type. `--compare-unsplit` also lowers each split-K case with
split-k=1 and requires the split kernels run with one split to equal the
unsplit kernel bit for bit, and with S splits to differ from it by at most
2(K-1)·2^-24·Σ|a·b| per element (docs/GPU.md, "Split-K") plus one unit of
the result type.

Prints one line per case and exits with status 1 if one differs.
Standard library only; with NumPy the references' sums run as array
operations (ptx_sim.accumulate and the block-scaled loop's vector form),
with the same bits as the loops.
"""

import argparse
import codecs
import math
import os
import random
import re
import struct
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:  # the loops compute the same values, slower
    np = None

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ptx_sim  # noqa: E402
from ptxas_report import (KERNELS_TO_PTX, extract_ptx, find_tool,  # noqa: E402
                          parse_kernel_descriptions, ROOT)

WIDTH = {"f16": 2, "bf16": 2, "f32": 4, "i8": 1, "i32": 4, "f8E4M3FN": 1,
         "f8E5M2": 1}

# Block-scaled data formats: (value table, bits of the element in its byte).
NARROW = {"f8E4M3FN": (ptx_sim.E4M3, 8), "f8E5M2": (ptx_sim.E5M2, 8),
          "f6E2M3FN": (ptx_sim.E2M3, 6), "f6E3M2FN": (ptx_sim.E3M2, 6),
          "f4E2M1FN": (ptx_sim.E2M1, 4)}
SCALES = {"e8m0x32": ("f8E8M0FNU", 32), "e4m3x16": ("f8E4M3FN", 16)}


def encode(value, element):
    """The bytes of `value` (exactly representable) in `element`."""
    if element == "f16":
        return struct.pack("<H", ptx_sim.bits_from_f16(value))
    if element == "bf16":
        return struct.pack("<H", ptx_sim.bits_from_bf16(value))
    if element in ("f32",):
        return struct.pack("<f", value)
    if element in ("i8",):
        return struct.pack("<b", int(value))
    if element in ("i32",):
        return struct.pack("<i", int(value))
    table = ptx_sim.E4M3 if element == "f8E4M3FN" else ptx_sim.E5M2
    return bytes([table.index(value)])


def decode(data, element):
    if element == "f16":
        return ptx_sim.f16_from_bits(int.from_bytes(data, "little"))
    if element == "bf16":
        return ptx_sim.bf16_from_bits(int.from_bytes(data, "little"))
    if element == "f32":
        return struct.unpack("<f", data)[0]
    if element == "i32":
        return struct.unpack("<i", data)[0]
    raise ValueError(element)


def round_to(value, element):
    if element == "f32":
        return ptx_sim.round_f32(value)
    if element == "f16":
        return ptx_sim.f16_from_bits(ptx_sim.bits_from_f16(ptx_sim.round_f32(value)))
    if element == "bf16":
        return ptx_sim.bf16_from_bits(ptx_sim.bits_from_bf16(ptx_sim.round_f32(value)))
    return value


def sample(element, acc, rng, long_sums=False, inexact=False):
    """A random operand value the element type holds exactly."""
    if inexact and element in ("f16", "bf16"):
        return round_to(rng.uniform(-1, 1), element)
    if long_sums and element in ("f8E4M3FN", "f8E5M2"):
        step = 8 if element == "f8E4M3FN" else 4
        return rng.choice([x / step for x in range(step, 7 * step // 4 + 1)])
    if element == "i8":
        return rng.randint(-128, 127)
    if element == "f32":  # tf32: full f32 mantissas exercise cvt.rna
        return ptx_sim.round_f32(rng.uniform(-1, 1))
    if acc == "f16":  # keep f16 partial sums exact
        return rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0])
    return rng.choice([x / 4 for x in range(-8, 9)])


class Case:
    def __init__(self, text):
        fields = text.split(":")
        if len(fields) == 6:
            fields.insert(5, "")
        self.op, self.lhs, self.rhs, self.acc, self.result, flags, shape = fields
        self.flags = set(filter(None, flags.split("+")))
        dims = [int(x) for x in shape.split("x")]
        self.m, self.n, self.k = dims[:3]
        self.batch = dims[3] if len(dims) > 3 else 1
        self.text = text

    def scaled_mlir(self):
        scale_type, block = SCALES[self.acc]
        rows = block if "tiles" in self.flags else 1
        lhs_type = f"tensor<{self.m}x{self.k}x{self.lhs}>"
        lhs_scales = f"tensor<{self.m}x{self.k // block}x{scale_type}>"
        if "tr" in self.flags:
            rhs_type = f"tensor<{self.n}x{self.k}x{self.rhs}>"
            rhs_scales = f"tensor<{self.n // rows}x{self.k // block}x{scale_type}>"
        else:
            rhs_type = f"tensor<{self.k}x{self.n}x{self.rhs}>"
            rhs_scales = f"tensor<{self.k // block}x{self.n // rows}x{scale_type}>"
        result_type = f"tensor<{self.m}x{self.n}x{self.result}>"
        transpose = " transpose_rhs" if "tr" in self.flags else ""
        return (f"func.func @case(%a: {lhs_type}, %sa: {lhs_scales}, %b: {rhs_type}, "
                f"%sb: {rhs_scales}) -> {result_type} {{\n"
                f"  %y = mp.scaled_matmul %a scales %sa, %b scales %sb{transpose} "
                f"acc(f32) : {lhs_type}, {lhs_scales}, {rhs_type}, {rhs_scales} -> "
                f"{result_type}\n  return %y : {result_type}\n}}\n")

    def mlir(self):
        if self.op == "scaled_matmul":
            return self.scaled_mlir()
        b = f"{self.batch}x" if self.op == "batch_matmul" else ""
        tl, tr = "tl" in self.flags, "tr" in self.flags
        if self.op == "linear":
            lhs_type = f"tensor<{self.m}x{self.k}x{self.lhs}>"
            rhs_type = f"tensor<{self.n}x{self.k}x{self.rhs}>"
        else:
            lhs_type = f"tensor<{b}{self.k}x{self.m}x{self.lhs}>" if tl else \
                f"tensor<{b}{self.m}x{self.k}x{self.lhs}>"
            rhs_type = f"tensor<{b}{self.n}x{self.k}x{self.rhs}>" if tr else \
                f"tensor<{b}{self.k}x{self.n}x{self.rhs}>"
        result_type = f"tensor<{b}{self.m}x{self.n}x{self.result}>"
        args = [f"%a: {lhs_type}", f"%b: {rhs_type}"]
        if self.op == "linear":
            operands = "%a, %b"
            types = [lhs_type, rhs_type]
            if "bias" in self.flags:
                bias_type = f"tensor<{self.n}x{self.result}>"
                args.append(f"%c: {bias_type}")
                operands += ", %c"
                types.append(bias_type)
            op = (f"mp.linear {operands} acc({self.acc}) : "
                  f"({', '.join(types)}) -> {result_type}")
        else:
            flags = (" transpose_lhs" if tl else "") + (" transpose_rhs" if tr else "")
            compute = " compute tf32" if "tf32" in self.flags else ""
            op = (f"mp.{self.op} %a, %b{flags} acc({self.acc}){compute} : "
                  f"{lhs_type}, {rhs_type} -> {result_type}")
        activation = ""
        value = "%y"
        if "relu" in self.flags:
            activation = f"\n  %r = mp.relu %y : {result_type}"
            value = "%r"
        elif "gelu" in self.flags or "gelutanh" in self.flags:
            approximate = " approximate tanh" if "gelutanh" in self.flags else ""
            activation = f"\n  %r = mp.gelu %y{approximate} : {result_type}"
            value = "%r"
        return (f"func.func @case({', '.join(args)}) -> {result_type} {{\n"
                f"  %y = {op}{activation}\n  return {value} : {result_type}\n}}\n")


def tensor_maps(memory, description, case, a_address, b_address):
    """The device addresses of the TMA kernels' tensor maps of A and B, in
    the simulator's encoding, as the launcher makes them (TensorCoreKernels.h:
    dims (contiguous, other, batch), the box of the kernel description,
    the 128-byte swizzle)."""
    addresses = []
    for lhs, address in ((True, a_address), (False, b_address)):
        element = case.lhs if lhs else case.rhs
        width = 1 if element in NARROW else WIDTH[element]  # a byte per element
        k_contiguous = description["lhs_k_contiguous" if lhs else "rhs_k_contiguous"]
        mn = case.m if lhs else case.n
        inner, outer = (case.k, mn) if k_contiguous else (mn, case.k)
        box = description["lhs_tma_box" if lhs else "rhs_tma_box"]
        addresses.append(memory.allocate(ptx_sim.pack_tensor_map(
            address, width, [inner, outer, case.batch],
            [inner * width, inner * outer * width], box + [1])))
    return addresses


class Launch:
    """The kernels of a lowered case: the GEMM kernel and, with split-K, the
    reduction kernel and the launcher call's split count."""

    def __init__(self, converted, ptx):
        descriptions = parse_kernel_descriptions(converted)
        kernels, self.shared_symbols = ptx_sim.parse_ptx(ptx)
        self.reduction = None
        self.splits = 0
        for name, description in descriptions.items():
            if description.get("kind") == "split_k_reduction":
                self.reduction = kernels[name]
                self.reduction_name = name
            else:
                self.name, self.description = name, description
                self.kernel = kernels[name]
        if self.description.get("split_k"):
            self.splits = int(re.search(r"mp_split_k = (\d+)", converted).group(1))


def lower_case(case, args, mp_opt, scratch, extra_options=""):
    """Lowers `case` to PTX: (Launch, None), or (None, the error)."""
    path = os.path.join(scratch, "case.mlir")
    with open(path, "w") as f:
        f.write(case.mlir())
    options = f"chip={args.chip} {args.options} {extra_options}".strip()
    converted = subprocess.run(
        [mp_opt, path, f"--convert-mp-to-nvvm={options}"],
        capture_output=True, text=True)
    if converted.returncode:
        return None, f"convert-mp-to-nvvm failed: {converted.stderr.strip()}"
    lowered = subprocess.run(
        [mp_opt, "-", f"--pass-pipeline={KERNELS_TO_PTX}"],
        input=converted.stdout, capture_output=True, text=True)
    if lowered.returncode:
        return None, f"lowering failed: {lowered.stderr.strip()}"
    ptx = extract_ptx(lowered.stdout)[0]
    for replacement in args.replace_ptx:
        old, new = (codecs.decode(x, "unicode_escape")
                    for x in replacement.split("|", 1))
        if old not in ptx:
            return None, f"--replace-ptx: {old!r} is not in the PTX"
        ptx = ptx.replace(old, new)
    return Launch(converted.stdout, ptx), None


def run_case(case, args, mp_opt, scratch):
    launch, error = lower_case(case, args, mp_opt, scratch)
    if error:
        return False, error
    description = launch.description

    if case.op == "scaled_matmul":
        inputs, expected = scaled_operands(case)
        return simulate_and_compare(case, args, launch, inputs, expected,
                                    expected)

    rng = random.Random(hash(case.text) & 0xFFFF)
    batch, m, n, k = case.batch, case.m, case.n, case.k
    lhs_k = description["lhs_k_contiguous"]
    rhs_k = description["rhs_k_contiguous"]
    long_sums = "long" in case.flags
    inexact = "inexact" in case.flags
    A = [[[sample(case.lhs, case.acc, rng, long_sums, inexact) for _ in range(k)]
          for _ in range(m)] for _ in range(batch)]
    B = [[[sample(case.rhs, case.acc, rng, long_sums, inexact) for _ in range(n)]
          for _ in range(k)] for _ in range(batch)]
    bias = [sample(case.result, "f16", rng) for _ in range(n)] \
        if "bias" in case.flags else None

    def pack(rows, cols, get, element):
        return b"".join(encode(get(r, c), element) for r in range(rows)
                        for c in range(cols))
    a_bytes = b"".join(
        pack(m, k, lambda r, c: A[i][r][c], case.lhs) if lhs_k else
        pack(k, m, lambda r, c: A[i][c][r], case.lhs) for i in range(batch))
    b_bytes = b"".join(
        pack(n, k, lambda r, c: B[i][c][r], case.rhs) if rhs_k else
        pack(k, n, lambda r, c: B[i][r][c], case.rhs) for i in range(batch))

    tf32 = case.lhs == "f32"
    def operand(x):
        if tf32:
            return ptx_sim.f32_from_bits(ptx_sim.tf32_rna_bits(ptx_sim.bits_from_f32(x)))
        return x
    expected = []
    pre_activation = []
    magnitudes = []  # sum of |a * b| per element: the summation error scale
    for i in range(batch):
        # The sums (ptx_sim.accumulate: the same values as the sum() below,
        # computed at once; |a * b| = |a| |b| exactly).
        lhs = [[operand(x) for x in row] for row in A[i]]
        rhs = [[operand(B[i][x][c]) for x in range(k)] for c in range(n)]
        zeros = [[0] * n for _ in range(m)]
        integer = case.lhs == "i8"
        totals = ptx_sim.accumulate(zeros, lhs, rhs, integer)
        sizes = ptx_sim.accumulate(zeros, [[abs(x) for x in row] for row in lhs],
                                   [[abs(x) for x in row] for row in rhs], integer)
        if totals is not None and sizes is not None:
            totals, sizes = totals.tolist(), sizes.tolist()
        else:
            totals = sizes = None
        for r in range(m):
            for c in range(n):
                if totals is not None:
                    total = totals[r][c]
                    magnitudes.append(sizes[r][c])
                else:
                    total = sum(operand(A[i][r][x]) * operand(B[i][x][c])
                                for x in range(k))
                    magnitudes.append(sum(abs(operand(A[i][r][x]) * operand(B[i][x][c]))
                                          for x in range(k)))
                if case.result == "i32":
                    expected.append(((int(total) + 2**31) % 2**32) - 2**31)
                    continue
                if bias:
                    total += bias[c]
                value = round_to(total, case.result)
                pre_activation.append(value)
                if "relu" in case.flags:
                    value = max(value, 0.0)
                elif "gelu" in case.flags:
                    value = round_to(0.5 * value * (1 + math.erf(value / math.sqrt(2))),
                                     case.result)
                elif "gelutanh" in case.flags:
                    inner = math.sqrt(2 / math.pi) * (value + 0.044715 * value ** 3)
                    value = round_to(0.5 * value * (1 + math.tanh(inner)), case.result)
                expected.append(value)

    inputs = [a_bytes, b_bytes, None]
    if bias:
        inputs.append(b"".join(encode(x, case.result) for x in bias))
    if not launch.splits or not args.compare_unsplit:
        return simulate_and_compare(case, args, launch, inputs, expected,
                                    pre_activation, magnitudes)
    # Split-K against the unsplit kernel of the same op.
    unsplit, error = lower_case(case, args, mp_opt, scratch, "split-k=1")
    if error:
        return False, error
    outputs = {}
    for label, variant, splits in (("unsplit", unsplit, None),
                                   ("1 split", launch, 1),
                                   (f"{launch.splits} splits", launch, launch.splits)):
        ok, message, output = simulate_and_compare(
            case, args, variant, inputs, expected, pre_activation, magnitudes,
            splits=splits, keep_output=True)
        if not ok:
            return False, f"{label}: {message}"
        outputs[label] = output
    reference = outputs["unsplit"]
    width = WIDTH[case.result]
    if outputs["1 split"] != reference:
        return False, "split-K with 1 split differs from the unsplit kernel"
    split_output = outputs[f"{launch.splits} splits"]
    bits = {"f32": 23, "f16": 10, "bf16": 7}.get(case.result)
    worst = 0.0
    for index in range(len(expected)):
        got = decode(split_output[index * width:(index + 1) * width], case.result)
        want = decode(reference[index * width:(index + 1) * width], case.result)
        bound = 2 * (k - 1) * 2.0 ** -24 * magnitudes[index]
        if bits is not None and bits < 23:
            bound += 2.0 ** -bits * abs(want)
        if bits is None:
            bound = 0  # integer sums are exact in any order
        if not abs(got - want) <= bound:
            return False, (f"split-K C[{index}] = {got}, unsplit {want}: "
                           f"beyond the bound {bound}")
        if bound:
            worst = max(worst, abs(got - want) / bound)
    return True, (f"{message}; 1 split equal to unsplit bit for bit; "
                  f"{launch.splits} splits within {worst:.3f} of the bound")


def scaled_operands(case):
    """The buffers (A, B, C, scales of A, scales of B) and the expected result
    of a block-scaled case (see the module docstring)."""
    rng = random.Random(hash(case.text) & 0xFFFF)
    m, n, k = case.m, case.n, case.k
    scale_type, block = SCALES[case.acc]
    rows = block if "tiles" in case.flags else 1
    values = [0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 2.0, -2.0, 3.0, -3.0]

    def data(element, count):
        table, bits = NARROW[element]
        codes = [table.index(rng.choice(values)) for _ in range(count)]
        payload = bytes(c | (rng.randrange(256) >> bits << bits if bits < 8 else 0)
                        for c in codes)
        return [table[c] for c in codes], payload

    def scales(count):
        if scale_type == "f8E8M0FNU":
            codes = [rng.choice([126, 127, 128]) for _ in range(count)]
            return [2.0 ** (c - 127) for c in codes], bytes(codes)
        codes = [ptx_sim.E4M3.index(rng.choice([0.5, 0.75, 1.0, 1.5, 2.0]))
                 for _ in range(count)]
        return [ptx_sim.E4M3[c] for c in codes], bytes(codes)

    A, a_bytes = data(case.lhs, m * k)  # M x K
    B, b_bytes = data(case.rhs, n * k)  # N x K (transpose_rhs) or K x N
    SA, sa_bytes = scales(m * (k // block))
    SB, sb_bytes = scales((n // rows) * (k // block))
    tr = "tr" in case.flags

    def b_at(x, c):
        return B[c * k + x] if tr else B[x * n + c]

    def sb_at(x, c):
        blocks = k // block
        return SB[(c // rows) * blocks + x // block] if tr else \
            SB[(x // block) * (n // rows) + c // rows]
    f32 = ptx_sim.round_f32
    expected = []
    if np is not None and k % block == 0:
        # The loop below for every (r, c) at once: the same f32 roundings
        # (NumPy's cast rounds to nearest even as struct does) in the same
        # order.
        def f32v(x):
            return x.astype(np.float32).astype(np.float64)
        a_scaled = f32v(np.array(A).reshape(m, k) * np.repeat(
            np.array(SA).reshape(m, k // block), block, axis=1))
        b_scaled = f32v(np.array([[b_at(x, c) * sb_at(x, c) for c in range(n)]
                                  for x in range(k)]))
        totals = np.zeros((m, n))
        with np.errstate(all="ignore"):
            for x in range(k):
                totals = f32v(totals + f32v(np.multiply.outer(a_scaled[:, x],
                                                              b_scaled[x])))
        if not np.isnan(totals).any():
            expected = [round_to(total, case.result) for total in totals.ravel().tolist()]
            return [a_bytes, b_bytes, None, sa_bytes, sb_bytes], expected
    for r in range(m):
        for c in range(n):
            total = 0.0
            for x in range(k):
                a = f32(A[r * k + x] * SA[r * (k // block) + x // block])
                total = f32(total + f32(a * f32(b_at(x, c) * sb_at(x, c))))
            expected.append(round_to(total, case.result))
    return [a_bytes, b_bytes, None, sa_bytes, sb_bytes], expected


def simulate_and_compare(case, args, launch, inputs, expected, pre_activation,
                         magnitudes=None, splits=None, keep_output=False):
    """Runs the kernels of `launch` on `inputs` (the pointer arguments' bytes,
    None for C) and compares C with `expected`; split-K kernels with
    `splits` splits (default: the launcher call's). With `keep_output`,
    also returns C's bytes (of the last mode run)."""
    batch, m, n, k = case.batch, case.m, case.n, case.k
    name, description, kernel = launch.name, launch.description, launch.kernel
    shared_symbols = launch.shared_symbols
    splits = splits or launch.splits
    tf32 = case.lhs == "f32"
    inexact = "inexact" in case.flags
    failures = []
    output = b""
    modes = [("late", "round-robin"), ("early", "warps")] if args.thorough \
        else [("late", "round-robin")]
    for mode, schedule in modes:
        memory = ptx_sim.GlobalMemory()
        params = []
        for payload in inputs:
            if payload is None:
                c_address = memory.allocate(bytes(batch * m * n * WIDTH[case.result]))
                params.append(c_address)
            else:
                params.append(memory.allocate(payload))
        buffers = list(params)
        if splits:
            # The partials of every (batch, split): the launcher's workspace.
            workspace = memory.allocate(bytes(batch * splits * m * n * 4))
            params = [buffers[0], buffers[1], workspace]
        params += [m, n, k, m * k, k * n, m * n]
        if "lhs_tma_box" in description:  # TMA kernels (wgmma, tcgen05)
            # A and B are the first two pointer arguments.
            params += tensor_maps(memory, description, case, params[0], params[1])
        if splits:
            params.append(splits)
        block_m, block_n, _ = description["block"]
        grid = (-(-n // block_n), -(-m // block_m), batch * (splits or 1))
        try:
            ptx_sim.simulate_grid(kernel, shared_symbols, memory, params,
                                  description["threads"], grid,
                                  description["shared_memory_bytes"], mode, schedule)
            if splits:
                reduction_params = [workspace] + buffers[2:] + [m, n, splits]
                ptx_sim.simulate_grid(launch.reduction, shared_symbols, memory,
                                      reduction_params, 256,
                                      (-(-(m * n) // 256), batch, 1), 0, mode,
                                      schedule)
        except ptx_sim.SimulationError as error:
            failures.append(f"[{mode}, {schedule}] simulation stopped: {error}")
            continue
        output = bytes(memory.buffer(c_address))
        width = WIDTH[case.result]
        worst = 0.0
        mismatches = 0
        for index, want in enumerate(expected):
            got = decode(output[index * width:(index + 1) * width], case.result)
            tolerance = 0.0
            if tf32:
                tolerance = 2.0 ** -22 * max(1.0, abs(want)) * k
            if inexact:
                bits = {"f32": 23, "f16": 10, "bf16": 7}[case.result]
                tolerance = k * 2.0 ** -24 * magnitudes[index] + 2.0 ** -bits * abs(want)
            if "gelu" in case.flags or "gelutanh" in case.flags:
                # erf and tanh are f32 polynomial approximations on the GPU
                # (absolute errors of a few 1e-7): allow that times |x|, plus
                # one unit in the last place of the result type.
                bits = {"f32": 23, "f16": 10, "bf16": 7}[case.result]
                tolerance = max(tolerance, 2.0 ** -bits * abs(want)
                                + 2.0 ** -20 * abs(pre_activation[index]))
            error = abs(got - want)
            if not (error <= tolerance) and not (math.isnan(got) and math.isnan(want)):
                mismatches += 1
                if mismatches <= 3:
                    i, rest = divmod(index, m * n)
                    failures.append(f"[{mode}, {schedule}] C[{i}][{rest // n}][{rest % n}] = {got}, "
                                    f"expected {want}")
            worst = max(worst, error)
        if mismatches:
            failures.append(f"[{mode}, {schedule}] {mismatches} of {len(expected)} elements differ")
    summary = f"{name} grid {grid} threads {description['threads']}"
    if splits:
        summary += f" splits {splits}, {launch.reduction_name}"
    message = summary + ("" if not failures else "\n    " + "\n    ".join(failures))
    if keep_output:
        return not failures, message, output
    return not failures, message


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chip", required=True,
                        choices=["sm_80", "sm_86", "sm_89", "sm_90a", "sm_100a", "sm_120a"])
    parser.add_argument("--options", default="")
    parser.add_argument("--mp-opt", dest="mp_opt")
    parser.add_argument("--thorough", action="store_true",
                        help="also run with cp.async landing at issue and warps "
                             "scheduled one after the other (catches races)")
    parser.add_argument("--replace-ptx", action="append", default=[],
                        metavar="OLD|NEW",
                        help="replace OLD by NEW (with Python escapes such as "
                             "\\t) in the PTX before simulating "
                             "(breaks a kernel on purpose, to check that the "
                             "simulator catches it)")
    parser.add_argument("--fp8-accumulator-bits", type=int, default=None,
                        help="truncate the FP8 wgmma accumulator to this many "
                             "significand bits per instruction "
                             "(ptx_sim.FP8_WGMMA_DOC)")
    parser.add_argument("--compare-unsplit", action="store_true",
                        help="split-K cases: also run the unsplit kernel and "
                             "the split kernels with one split (see above)")
    parser.add_argument("cases", nargs="+")
    args = parser.parse_args()
    ptx_sim.FP8_WGMMA_ACCUMULATOR_BITS = args.fp8_accumulator_bits
    mp_opt = find_tool("mp-opt", args.mp_opt, [os.path.join(ROOT, "build", "bin")])
    status = 0
    with tempfile.TemporaryDirectory() as scratch:
        for text in args.cases:
            ok, message = run_case(Case(text), args, mp_opt, scratch)
            print(f"{'PASS' if ok else 'FAIL'} {text}: {message}")
            sys.stdout.flush()
            status |= not ok
    return status


if __name__ == "__main__":
    sys.exit(main())
