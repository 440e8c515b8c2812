#!/usr/bin/env python3
"""Correctness and throughput of MixedPrec's Tensor Core kernels on a GPU.

Two steps, so that the machine with the GPU needs neither MLIR nor the CUDA
toolkit:

  1. Where MixedPrec is built (mp-opt, and ptxas for cubins):

       run_gpu_checks.py build --out DIR [--mp-opt PATH] [--ptxas PATH]

     compiles the kernel set below with convert-mp-to-nvvm into DIR: sm_90a
     cubins (wgmma and mma.sync kernels) and sm_80/sm_89 PTX (loaded through
     the driver's JIT on newer GPUs), plus DIR/manifest.json describing each
     kernel (formats, layouts, tiles, threads, dynamic shared memory).

  2. On the GPU machine (Python 3 with torch; triton optional):

       run_gpu_checks.py run --kernels DIR [--sizes 256,1000,4096]
           [--repeat 20] [--markdown FILE] [--json FILE]

     loads each cubin/PTX with the CUDA driver API (ctypes, libcuda), runs the
     kernels on random operands of each size (ragged sizes included) stored
     in the kernel's format, and compares with torch.matmul in f32 (f64 for
     int8) on the same rounded operands (TF32 operands rounded with
     round-to-nearest-ties-away, as cvt.rna): the largest error relative to
     the largest reference magnitude must stay under the bound of the
     result format. It then times each kernel against torch.matmul (cuBLAS;
     torch._scaled_mm for FP8, torch._int_mm for int8) and a Triton matmul
     in the same run and prints TFLOP/s and the ratios; --markdown writes the
     table with the date and the machine for docs/performance.md.

The kernel ABI (see lib/Conversion/MPToNVVM/TensorCoreKernels.h):
kernel(A, B, C, M, N, K, strideA, strideB, strideC[, mapA, mapB]) with
pointers, i32 sizes and i64 batch strides; grid (ceil(N/block_n),
ceil(M/block_m), batch); the manifest's threads and dynamic shared memory.
The TMA kernels (mainloop "tma-warp-specialized") also take the device
addresses of two 128-byte CUtensorMaps, encoded here with
cuTensorMapEncodeTiled as the launcher encodes them.

Split-K kernels (labels `splitk_*`, manifest `split_k`): the GEMM kernel
takes a trailing i32 split count S and writes f32/s32 partials into a
workspace of S x M x N (grid z = S); the reduction kernel of the manifest's
`reduction` (same image) sums them in the order 0..S-1 and applies the
epilogue: reduce(W, C, M, N, S), grid (ceil(M*N/256), 1), 256 threads. They
run on the weight-gradient shapes of --split-k-shapes with --split-k
splits, are checked against torch.matmul within the same bounds, run twice
to check that the bits do not change, and are timed against cuBLAS and
against the same kernels with one split.
"""

import argparse
import ctypes
import datetime
import json
import math
import os
import platform
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

# (name, chip, instruction, lhs, rhs, acc, result, lhs K-major, rhs K-major,
#  rows aligned): the kernels built and checked. Element types are mp's.
KERNELS = [
    # sm_90a wgmma with the warp-specialized TMA main loop (the default where
    # it applies): producer warpgroup, mbarrier ring, 2 wgmma groups in
    # flight, 128x256 tiles; the kernels take two tensor maps.
    ("tma_f16", "sm_90a", "wgmma mainloop=tma-warp-specialized", "f16", "f16", "f32", "f16", True, True, True),
    ("tma_f16_acc16", "sm_90a", "wgmma mainloop=tma-warp-specialized", "f16", "f16", "f16", "f16", True, True, True),
    ("tma_bf16", "sm_90a", "wgmma mainloop=tma-warp-specialized", "bf16", "bf16", "f32", "bf16", True, True, True),
    ("tma_bf16_128x128", "sm_90a", "wgmma mainloop=tma-warp-specialized block-n=128", "bf16", "bf16", "f32", "bf16", True, True, True),
    ("tma_bf16_nn", "sm_90a", "wgmma mainloop=tma-warp-specialized", "bf16", "bf16", "f32", "bf16", True, False, True),
    ("tma_bf16_tt", "sm_90a", "wgmma mainloop=tma-warp-specialized", "bf16", "bf16", "f32", "bf16", False, True, True),
    ("tma_e4m3", "sm_90a", "wgmma mainloop=tma-warp-specialized", "f8E4M3FN", "f8E4M3FN", "f32", "bf16", True, True, True),
    ("tma_e4m3_e5m2", "sm_90a", "wgmma mainloop=tma-warp-specialized", "f8E4M3FN", "f8E5M2", "f32", "bf16", True, True, True),
    ("tma_s8", "sm_90a", "wgmma mainloop=tma-warp-specialized", "i8", "i8", "i32", "i32", True, True, True),
    # sm_90a wgmma with the cp.async main loop, both operands K-major ("TN",
    # the linear layer).
    ("wgmma_f16", "sm_90a", "wgmma mainloop=cp-async", "f16", "f16", "f32", "f16", True, True, True),
    ("wgmma_f16_acc16", "sm_90a", "wgmma mainloop=cp-async", "f16", "f16", "f16", "f16", True, True, True),
    ("wgmma_bf16", "sm_90a", "wgmma mainloop=cp-async", "bf16", "bf16", "f32", "bf16", True, True, True),
    ("wgmma_tf32", "sm_90a", "wgmma mainloop=cp-async", "f32", "f32", "f32", "f32", True, True, True),
    ("wgmma_e4m3", "sm_90a", "wgmma mainloop=cp-async", "f8E4M3FN", "f8E4M3FN", "f32", "bf16", True, True, True),
    ("wgmma_e4m3_e5m2", "sm_90a", "wgmma mainloop=cp-async", "f8E4M3FN", "f8E5M2", "f32", "bf16", True, True, True),
    ("wgmma_e5m2", "sm_90a", "wgmma mainloop=cp-async", "f8E5M2", "f8E5M2", "f32", "f32", True, True, True),
    ("wgmma_s8", "sm_90a", "wgmma mainloop=cp-async", "i8", "i8", "i32", "i32", True, True, True),
    # wgmma with M-/N-major 16-bit operands (transposed descriptors) and with
    # rows that are not 16-byte aligned (element copies).
    ("wgmma_bf16_nn", "sm_90a", "wgmma mainloop=cp-async", "bf16", "bf16", "f32", "bf16", True, False, True),
    ("wgmma_bf16_tt", "sm_90a", "wgmma mainloop=cp-async", "bf16", "bf16", "f32", "bf16", False, True, True),
    ("wgmma_bf16_unaligned", "sm_90a", "wgmma mainloop=cp-async", "bf16", "bf16", "f32", "bf16", True, True, False),
    # sm_90a mma.sync.
    ("mma_f16", "sm_90a", "mma-sync", "f16", "f16", "f32", "f16", True, True, True),
    ("mma_bf16", "sm_90a", "mma-sync", "bf16", "bf16", "f32", "bf16", True, True, True),
    ("mma_tf32", "sm_90a", "mma-sync", "f32", "f32", "f32", "f32", True, True, True),
    ("mma_e4m3_e5m2", "sm_90a", "mma-sync", "f8E4M3FN", "f8E5M2", "f32", "bf16", True, True, True),
    ("mma_s8", "sm_90a", "mma-sync", "i8", "i8", "i32", "i32", True, True, True),
    # sm_80 / sm_89 PTX, JIT-compiled by the driver: every fragment path.
    ("sm80_bf16_nn", "sm_80", "mma-sync", "bf16", "bf16", "f32", "bf16", True, False, True),
    ("sm80_bf16_tt", "sm_80", "mma-sync", "bf16", "bf16", "f32", "bf16", False, True, True),
    ("sm80_tf32_nn", "sm_80", "mma-sync", "f32", "f32", "f32", "f32", True, False, True),
    ("sm80_s8_tt", "sm_80", "mma-sync", "i8", "i8", "i32", "i32", False, True, True),
    ("sm80_f16_unaligned", "sm_80", "mma-sync", "f16", "f16", "f32", "f16", True, True, False),
    ("sm89_e4m3", "sm_89", "mma-sync", "f8E4M3FN", "f8E4M3FN", "f32", "bf16", True, True, True),
    ("sm89_e5m2_e4m3_tn", "sm_89", "mma-sync", "f8E5M2", "f8E4M3FN", "f32", "f32", False, False, True),
    # Split-K (docs/GPU.md, "Split-K"): weight gradients dW = dY^T X (A
    # M-contiguous, B N-contiguous) and a K-major pair, on each main loop.
    ("splitk_tma_bf16_tn", "sm_90a", "wgmma mainloop=tma-warp-specialized split-k=4", "bf16", "bf16", "f32", "f32", False, False, True),
    ("splitk_tma_bf16", "sm_90a", "wgmma mainloop=tma-warp-specialized split-k=4", "bf16", "bf16", "f32", "bf16", True, True, True),
    ("splitk_wgmma_f16_tn", "sm_90a", "wgmma mainloop=cp-async split-k=4", "f16", "f16", "f32", "f16", False, False, True),
    ("splitk_tma_e4m3", "sm_90a", "wgmma mainloop=tma-warp-specialized split-k=4", "f8E4M3FN", "f8E4M3FN", "f32", "f32", True, True, True),
    ("splitk_sm80_bf16_tn", "sm_80", "mma-sync split-k=4", "bf16", "bf16", "f32", "f32", False, False, True),
    ("splitk_sm89_e5m2_e4m3_tn", "sm_89", "mma-sync split-k=4", "f8E5M2", "f8E4M3FN", "f32", "f32", False, False, True),
]

BYTES = {"f16": 2, "bf16": 2, "f32": 4, "i8": 1, "i32": 4, "f8E4M3FN": 1, "f8E5M2": 1}


# ----------------------------------------------------------------------------
# build
# ----------------------------------------------------------------------------


def kernel_mlir(lhs, rhs, acc, result, lhs_k, rhs_k, aligned, split=False):
    """An mp.matmul whose lowering yields the wanted kernel (the kernel itself
    does not depend on the sizes, only on whether rows are 16-byte aligned;
    split-K kernels need a K of several slices)."""
    m, n = 128, 128
    k = 4096 if split else 64 if aligned else 62
    lhs_type = f"tensor<{m}x{k}x{lhs}>" if lhs_k else f"tensor<{k}x{m}x{lhs}>"
    rhs_type = f"tensor<{n}x{k}x{rhs}>" if rhs_k else f"tensor<{k}x{n}x{rhs}>"
    if not aligned and not lhs_k:
        raise ValueError("unaligned kernels are built K-major")
    flags = ("" if lhs_k else " transpose_lhs") + (" transpose_rhs" if rhs_k else "")
    compute = " compute tf32" if lhs == "f32" else ""
    return (f"func.func @k(%a: {lhs_type}, %b: {rhs_type}) -> tensor<{m}x{n}x{result}> {{\n"
            f"  %y = mp.matmul %a, %b{flags} acc({acc}){compute} : {lhs_type}, {rhs_type}"
            f" -> tensor<{m}x{n}x{result}>\n  return %y : tensor<{m}x{n}x{result}>\n}}\n")


def build(args):
    from ptxas_report import (KERNELS_TO_PTX, ROOT, extract_ptx, find_tool,
                              parse_kernel_descriptions)
    mp_opt = find_tool("mp-opt", args.mp_opt, [os.path.join(ROOT, "build", "bin")])
    ptxas = find_tool("ptxas", args.ptxas, ["/usr/local/cuda/bin"])
    os.makedirs(args.out, exist_ok=True)
    manifest = []
    with tempfile.TemporaryDirectory() as scratch:
        for (label, chip, instruction, lhs, rhs, acc, result, lhs_k, rhs_k,
             aligned) in KERNELS:
            path = os.path.join(scratch, f"{label}.mlir")
            with open(path, "w") as f:
                f.write(kernel_mlir(lhs, rhs, acc, result, lhs_k, rhs_k, aligned,
                                    split="split-k" in instruction))
            converted = subprocess.run(
                [mp_opt, path,
                 f"--convert-mp-to-nvvm=chip={chip} instruction={instruction}"],
                capture_output=True, text=True, check=True).stdout
            descriptions = parse_kernel_descriptions(converted)
            # Split-K: the GEMM kernel and the reduction kernel (same module).
            reductions = [key for key, value in descriptions.items()
                          if value.get("kind") == "split_k_reduction"]
            (name, description), = [(key, value) for key, value in descriptions.items()
                                    if key not in reductions]
            if reductions:
                description = dict(description, reduction=reductions[0])
            lowered = subprocess.run(
                [mp_opt, "-", f"--pass-pipeline={KERNELS_TO_PTX}"],
                input=converted, capture_output=True, text=True, check=True).stdout
            ptx = extract_ptx(lowered)[0]
            ptx_file = f"{label}.ptx"
            with open(os.path.join(args.out, ptx_file), "w") as f:
                f.write(ptx)
            entry = dict(description, label=label, name=name, ptx=ptx_file,
                         lhs_type=lhs, rhs_type=rhs, acc=acc, result=result)
            if chip == "sm_90a":
                cubin_file = f"{label}.cubin"
                subprocess.run([ptxas, f"-arch={chip}", os.path.join(args.out, ptx_file),
                                "-o", os.path.join(args.out, cubin_file)], check=True)
                entry["cubin"] = cubin_file
            manifest.append(entry)
            print(f"built {label}: {name}")
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump({"kernels": manifest}, f, indent=1)
    print(f"wrote {len(manifest)} kernels and manifest.json to {args.out}")
    return 0


# ----------------------------------------------------------------------------
# run (GPU)
# ----------------------------------------------------------------------------


class Driver:
    """The few CUDA driver API calls needed to load and launch a kernel."""

    MAX_DYNAMIC_SHARED_SIZE_BYTES = 8

    def __init__(self):
        self.lib = ctypes.CDLL("libcuda.so.1")

    def check(self, status, what):
        if status != 0:
            name = ctypes.c_char_p()
            self.lib.cuGetErrorName(status, ctypes.byref(name))
            raise RuntimeError(f"{what} failed: {name.value.decode() if name.value else status}")

    def version(self):
        version = ctypes.c_int()
        self.check(self.lib.cuDriverGetVersion(ctypes.byref(version)), "cuDriverGetVersion")
        return f"{version.value // 1000}.{version.value % 1000 // 10}"

    def load(self, image, name, shared_bytes):
        module = ctypes.c_void_p()
        self.check(self.lib.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(image)),
                   f"cuModuleLoadData({name})")
        function = ctypes.c_void_p()
        self.check(self.lib.cuModuleGetFunction(ctypes.byref(function), module,
                                                name.encode()), "cuModuleGetFunction")
        self.check(self.lib.cuFuncSetAttribute(function, self.MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                               ctypes.c_int(shared_bytes)),
                   "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)")
        return function

    def encode_tensor_map(self, data_type, address, dims, strides, box):
        """cuTensorMapEncodeTiled of a rank-len(dims) tile map with the
        128-byte swizzle, 256-byte L2 promotion and zero fill, as the
        launcher's (TensorCoreKernels.cpp); returns its 128 bytes."""
        rank = len(dims)
        storage = ctypes.create_string_buffer(128 + 64)
        offset = (-ctypes.addressof(storage)) % 64  # CUtensorMap is 64-byte aligned
        tensor_map = ctypes.c_void_p(ctypes.addressof(storage) + offset)
        self.check(self.lib.cuTensorMapEncodeTiled(
            tensor_map, ctypes.c_int(data_type), ctypes.c_uint32(rank),
            ctypes.c_void_p(address), (ctypes.c_uint64 * rank)(*dims),
            (ctypes.c_uint64 * (rank - 1))(*strides), (ctypes.c_uint32 * rank)(*box),
            (ctypes.c_uint32 * rank)(*([1] * rank)), ctypes.c_int(0),
            ctypes.c_int(3), ctypes.c_int(3), ctypes.c_int(0)),
            "cuTensorMapEncodeTiled")
        return storage.raw[offset:offset + 128]

    def launch(self, function, grid, block, shared_bytes, stream, args):
        values = [value for value in args]
        pointers = (ctypes.c_void_p * len(values))(
            *[ctypes.cast(ctypes.byref(v), ctypes.c_void_p) for v in values])
        self.check(self.lib.cuLaunchKernel(
            function, grid[0], grid[1], grid[2], block, 1, 1, shared_bytes,
            ctypes.c_void_p(stream), pointers, None), "cuLaunchKernel")


def torch_dtype(torch, element):
    return {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32,
            "i8": torch.int8, "i32": torch.int32,
            "f8E4M3FN": getattr(torch, "float8_e4m3fn", None),
            "f8E5M2": getattr(torch, "float8_e5m2", None)}[element]


def round_tf32(torch, x):
    """cvt.rna.tf32.f32 on finite f32 values."""
    bits = x.contiguous().view(torch.int32)
    return ((bits + 0x1000) & ~0x1FFF).view(torch.float32)


def make_operand(torch, element, rows, cols, generator):
    """A random rows × cols operand stored in `element` and its f32/f64 value."""
    if element == "i8":
        stored = torch.randint(-128, 128, (rows, cols), dtype=torch.int8,
                               device="cuda", generator=generator)
        return stored, stored.to(torch.float64)
    values = torch.randn((rows, cols), device="cuda", generator=generator)
    if element == "f32":
        return values, round_tf32(torch, values)
    stored = values.to(torch_dtype(torch, element))
    return stored, stored.to(torch.float32)


def problem_size(kernel, size):
    """M, N, K near `size` for `kernel`: M and N not multiples of the block
    (ragged edges: N = size + 24 when size is a multiple of 128), and the
    contiguous dimension of each operand a multiple of 16 bytes where the
    kernel copies rows with 16-byte cp.async, or deliberately not where it
    copies element by element."""
    m, n, k = size, size + 24 if size % 128 == 0 else size, size
    per_chunk = {d: 16 // BYTES[kernel[t]] for d, t in (("lhs", "lhs_type"), ("rhs", "rhs_type"))}

    def align(x, side):
        return x - x % per_chunk[side]

    if kernel["lhs_rows_aligned"] and kernel["rhs_rows_aligned"]:
        k = align(k, "lhs")
        if not kernel["lhs_k_contiguous"]:
            m = align(m, "lhs")
        if not kernel["rhs_k_contiguous"]:
            n = align(n, "rhs")
    elif k % per_chunk["lhs"] == 0:
        k -= 1
    return m, n, k


# CUtensorMapDataType per element type (cuda.h).
TENSOR_MAP_TYPES = {"f16": 6, "bf16": 9, "i8": 0, "f8E4M3FN": 0, "f8E5M2": 0}


def tensor_map_arguments(torch, driver, kernel, a_arg, b_arg, m, n, k):
    """The two device tensor maps a TMA kernel takes (3-D: contiguous
    dimension, other dimension, batch 1; box from the manifest), kept alive
    in the returned tensors."""
    maps = []
    for lhs, operand in ((True, a_arg), (False, b_arg)):
        side = "lhs" if lhs else "rhs"
        element = kernel[f"{side}_type"]
        mn = m if lhs else n
        inner, outer = (k, mn) if kernel[f"{side}_k_contiguous"] else (mn, k)
        width = BYTES[element]
        box = kernel[f"{side}_tma_box"] + [1]
        encoded = driver.encode_tensor_map(
            TENSOR_MAP_TYPES[element], operand.data_ptr(), [inner, outer, 1],
            [inner * width, inner * outer * width], box)
        maps.append(torch.frombuffer(bytearray(encoded), dtype=torch.uint8).to("cuda"))
    return maps


def error_bound(kernel, k):
    """Largest accepted error relative to the largest reference magnitude."""
    if kernel["result"] == "i32":
        return 0.0
    if kernel["acc"] == "f16":
        return 5e-2
    return {"f32": 1e-4, "f16": 2e-3, "bf16": 1.6e-2}[kernel["result"]]


def run(args):
    try:
        import torch
    except ImportError:
        sys.exit("error: the run step needs torch (with CUDA)")
    if not torch.cuda.is_available():
        sys.exit("error: torch sees no CUDA device")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.cuda.init()
    torch.zeros(1, device="cuda")  # creates the primary context
    driver = Driver()
    try:
        import triton
        import triton_matmul
    except Exception as error:  # noqa: BLE001 - optional
        triton = None
        triton_error = str(error)
    with open(os.path.join(args.kernels, "manifest.json")) as f:
        manifest = json.load(f)["kernels"]
    capability = torch.cuda.get_device_capability()
    sizes = [int(x) for x in args.sizes.split(",")]
    split_shapes = [tuple(int(v) for v in x.split("x")) for x in args.split_k_shapes.split(",")]
    generator = torch.Generator(device="cuda")
    generator.manual_seed(0)
    stream = torch.cuda.current_stream().cuda_stream
    rows = []
    failed = False
    for kernel in manifest:
        if args.only and not re.search(args.only, kernel["label"]):
            continue
        if kernel["chip"] == "sm_90a" and capability != (9, 0):
            print(f"skip {kernel['label']}: sm_90a cubin on sm_{capability[0]}{capability[1]}")
            continue
        if any(torch_dtype(torch, t) is None for t in (kernel["lhs_type"], kernel["rhs_type"])):
            print(f"skip {kernel['label']}: this torch has no FP8 dtypes")
            continue
        if "cubin" in kernel:
            image = open(os.path.join(args.kernels, kernel["cubin"]), "rb").read()
        else:
            image = open(os.path.join(args.kernels, kernel["ptx"]), "rb").read() + b"\0"
        function = driver.load(image, kernel["name"], kernel["shared_memory_bytes"])
        split = kernel.get("split_k", False)
        reduction = driver.load(image, kernel["reduction"], 0) if split else None
        block_m, block_n, _ = kernel["block"]
        for shape in (split_shapes if split else sizes):
            m, n, k = shape if split else problem_size(kernel, shape)
            a_stored, a_value = make_operand(torch, kernel["lhs_type"], m, k, generator)
            b_stored, b_value = make_operand(torch, kernel["rhs_type"], n, k, generator)
            # The kernel's layouts: A is M×K or K×M, B is N×K or K×N.
            a_arg = a_stored if kernel["lhs_k_contiguous"] else a_stored.t().contiguous()
            b_arg = b_stored if kernel["rhs_k_contiguous"] else b_stored.t().contiguous()
            c = torch.zeros((m, n), dtype=torch_dtype(torch, kernel["result"]), device="cuda")
            splits = args.split_k if split else 1
            # Split-K: the partials of each split in a workspace (the
            # launcher's), C written by the reduction kernel.
            workspace = torch.empty((splits * m * n,), device="cuda",
                                    dtype=torch.int32 if kernel["acc"] == "i32" else torch.float32)
            output = workspace if split else c
            launch_args = [ctypes.c_void_p(a_arg.data_ptr()), ctypes.c_void_p(b_arg.data_ptr()),
                           ctypes.c_void_p(output.data_ptr()), ctypes.c_int32(m), ctypes.c_int32(n),
                           ctypes.c_int32(k), ctypes.c_int64(m * k), ctypes.c_int64(k * n),
                           ctypes.c_int64(m * n)]
            tensor_maps = []
            if "lhs_tma_box" in kernel:  # TMA kernels
                tensor_maps = tensor_map_arguments(torch, driver, kernel, a_arg, b_arg, m, n, k)
                launch_args += [ctypes.c_void_p(t.data_ptr()) for t in tensor_maps]

            def launch_with(count):
                grid = (math.ceil(n / block_n), math.ceil(m / block_m), count if split else 1)
                extra = [ctypes.c_int32(count)] if split else []
                driver.launch(function, grid, kernel["threads"],
                              kernel["shared_memory_bytes"], stream, launch_args + extra)
                if split:
                    driver.launch(reduction, (math.ceil(m * n / 256), 1, 1), 256, 0, stream,
                                  [ctypes.c_void_p(workspace.data_ptr()),
                                   ctypes.c_void_p(c.data_ptr()), ctypes.c_int32(m),
                                   ctypes.c_int32(n), ctypes.c_int32(count)])

            def ours():
                launch_with(splits)

            ours()
            torch.cuda.synchronize()
            deterministic = None
            if split:
                first = c.clone()
                ours()
                torch.cuda.synchronize()
                deterministic = torch.equal(first, c)
            precision = torch.float64 if kernel["result"] == "i32" else torch.float32
            reference = torch.matmul(a_value.to(precision), b_value.to(precision).t())
            scale = reference.abs().max().item() or 1.0
            error = (c.to(torch.float64) - reference.to(torch.float64)).abs().max().item() / scale
            bound = error_bound(kernel, k)
            ok = error <= bound and deterministic is not False
            failed |= not ok
            row = {"kernel": kernel["label"], "name": kernel["name"], "m": m, "n": n, "k": k,
                   "error": error, "bound": bound, "ok": ok}
            if split:
                row["splits"] = splits
                row["deterministic"] = deterministic
            if not args.no_timing:
                flops = 2.0 * m * n * k
                row["ours"] = flops / time_ms(torch, ours, args.repeat) / 1e9
                if split:
                    row["ours_1_split"] = flops / time_ms(
                        torch, lambda: launch_with(1), args.repeat) / 1e9
                vendor = vendor_matmul(torch, kernel, a_stored, b_stored, c)
                row["cublas"] = flops / time_ms(torch, vendor, args.repeat) / 1e9 if vendor else None
                tri = triton_matmul.make(kernel, a_stored, b_stored, c) if triton else None
                row["triton"] = flops / time_ms(torch, tri, args.repeat) / 1e9 if tri else None
            rows.append(row)
            print(format_row(row), flush=True)
    if triton is None:
        print(f"note: no Triton comparison ({triton_error})")
    header = describe_machine(torch, driver, triton)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(markdown(rows, header))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": header, "rows": rows}, f, indent=1)
    print("FAILED" if failed else "all results within their bounds")
    return 1 if failed else 0


def time_ms(torch, function, repeat):
    """Median milliseconds of `function` over `repeat` launches (CUDA events)."""
    if function is None:
        return None
    for _ in range(3):
        function()
    times = []
    for _ in range(repeat):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        function()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return times[len(times) // 2]


def vendor_matmul(torch, kernel, a, b, c):
    """torch's own matmul for the format (cuBLAS / cuBLASLt), or None."""
    lhs = kernel["lhs_type"]
    try:
        if lhs in ("f16", "bf16"):
            a_t, b_t = a, b.t()
            return lambda: torch.matmul(a_t, b_t)
        if lhs == "f32":
            def tf32():
                torch.backends.cuda.matmul.allow_tf32 = True
                torch.matmul(a, b.t())
                torch.backends.cuda.matmul.allow_tf32 = False
            return tf32
        if lhs == "i8":
            torch._int_mm(a, b.t())
            return lambda: torch._int_mm(a, b.t())
        one = torch.ones((), device="cuda")
        out_dtype = torch_dtype(torch, kernel["result"])
        torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=out_dtype)
        return lambda: torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one,
                                        out_dtype=out_dtype)
    except Exception as error:  # noqa: BLE001 - not every torch has every op
        print(f"note: no vendor matmul for {kernel['label']}: {error}")
        return None


def format_row(row):
    text = (f"{row['kernel']:<22} {row['m']:>5}x{row['n']:>5}x{row['k']:>5} "
            f"err {row['error']:.2e} (bound {row['bound']:.0e}) "
            f"{'ok' if row['ok'] else 'FAIL'}")
    if "splits" in row:
        text += f"  {row['splits']} splits, {'same bits twice' if row['deterministic'] else 'BITS CHANGED'}"
    if "ours" in row:
        text += f"  {row['ours']:7.1f} TFLOP/s"
        if row.get("ours_1_split"):
            text += f"  1 split {row['ours_1_split']:7.1f} ({row['ours'] / row['ours_1_split']:.2f}x)"
        for other in ("cublas", "triton"):
            if row.get(other):
                text += f"  {other} {row[other]:7.1f} ({row['ours'] / row[other]:.2f}x)"
    return text


def describe_machine(torch, driver, triton):
    return {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "gpu": torch.cuda.get_device_name(),
        "driver": driver.version(),
        "torch": torch.__version__,
        "triton": getattr(triton, "__version__", None),
        "host": platform.node(),
    }


def markdown(rows, machine):
    lines = [
        f"Measured {machine['date']} on {machine['gpu']} (driver {machine['driver']}, "
        f"torch {machine['torch']}, triton {machine['triton']}).",
        "",
        "| kernel | M×N×K | max rel. error | bound | ok | TFLOP/s | cuBLAS | ratio | Triton | ratio |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        def cell(key):
            return f"{r[key]:.1f}" if r.get(key) else "n/a"
        def ratio(key):
            return f"{r['ours'] / r[key]:.2f}" if r.get(key) and r.get("ours") else "n/a"
        lines.append(f"| {r['kernel']} | {r['m']}×{r['n']}×{r['k']} | {r['error']:.2e} | "
                     f"{r['bound']:.0e} | {'yes' if r['ok'] else '**no**'} | {cell('ours')} | "
                     f"{cell('cublas')} | {ratio('cublas')} | {cell('triton')} | {ratio('triton')} |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    b = commands.add_parser("build", help="compile the kernels (needs mp-opt, ptxas)")
    b.add_argument("--out", required=True)
    b.add_argument("--mp-opt", dest="mp_opt")
    b.add_argument("--ptxas")
    r = commands.add_parser("run", help="check and time the kernels (needs a GPU, torch)")
    r.add_argument("--kernels", required=True, help="the directory `build` wrote")
    r.add_argument("--sizes", default="256,1000,1024,2048,4093,4096,8192",
                   help="comma-separated M = K (N is M + 24 for multiples of 128)")
    r.add_argument("--split-k-shapes", default="256x256x8192,768x768x8192,1024x1024x65536",
                   help="comma-separated MxNxK of the split-K kernels (weight gradients)")
    r.add_argument("--split-k", type=int, default=4,
                   help="the split count the split-K kernels run with")
    r.add_argument("--repeat", type=int, default=20)
    r.add_argument("--only", help="regular expression on kernel labels")
    r.add_argument("--no-timing", action="store_true")
    r.add_argument("--markdown")
    r.add_argument("--json")
    args = parser.parse_args()
    return build(args) if args.command == "build" else run(args)


if __name__ == "__main__":
    sys.exit(main())
