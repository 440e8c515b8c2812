#!/usr/bin/python3
"""The CPU matmul kernels of mp-cpu-pipeline side by side with PyTorch.

    tools/bench/cpu_matmul.py [--build DIR] [--cpu-pipeline-options=OPTIONS]
        [--threads N] [--cpu-time] [--dtype f32|bf16]

Times one f32 contraction at a time, JIT-compiled in process by the Python
engine (mixedprec.compiler: mp-cpu-pipeline, then the JIT at -O2) and called
on numpy arrays, against PyTorch eager on the same arrays and threads
(machine.set_torch_threads: PyTorch's pool and OpenBLAS's): the linear layer's A·Bᵀ (mp.linear) at the
transformer block's shapes (1024 tokens, d_model 256, MLP 1024), a plain
A·B, and the weight gradient's Aᵀ·B. Prints ms, GFLOP/s, the ratio and the
largest difference from PyTorch's result (a rounding difference: PyTorch
sums in another order); never asserts. Each is called once first, then 5
times. With `--dtype bf16` the operands are bf16 and the products f32
(what an AMP step's contractions are: mp-bf16-dot-products' kernel where
the host has AVX512_BF16), against PyTorch's bf16 matmul (oneDNN) on the
same values.
"""

import argparse
import ctypes
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "bench"))
from machine import cpu_name, set_torch_threads  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--build", default=os.environ.get("MP_BUILD_DIR", os.path.join(ROOT, "build")))
parser.add_argument("--cpu-pipeline-options", default="")
parser.add_argument("--threads", type=int, default=1)
parser.add_argument("--dtype", choices=("f32", "bf16"), default="f32",
                    help="element type of the operands (bf16: products in f32)")
parser.add_argument("--cpu-time", action="store_true",
                    help="time by the process's CPU time (one thread: what a "
                    "loaded machine does not inflate) instead of wall-clock time")
args = parser.parse_args()
clock = time.process_time if args.cpu_time else time.perf_counter
sys.path.insert(0, os.path.join(args.build, "python_packages"))
from mixedprec.compiler import Session, memref_descriptor  # noqa: E402
import torch  # noqa: E402

set_torch_threads(torch, args.threads)
opts = args.cpu_pipeline_options
if args.threads != 1:
    opts = (opts + " threads=%d" % args.threads).strip()
print("CPU: %s; %d thread(s); mp-cpu-pipeline{%s}; %s time; %s operands" % (
    cpu_name(), args.threads, opts, "CPU" if args.cpu_time else "wall-clock", args.dtype))
bf16 = args.dtype == "bf16"
T = "bf16" if bf16 else "f32"


def storage(a):
    """`a` (f32) as the operand storage: bf16 bits (the high halves) as
    uint16 with --dtype bf16."""
    return (a.view(np.uint32) >> 16).astype(np.uint16) if bf16 else a


def as_torch(a):
    """The torch tensor of operand storage `a`."""
    if not bf16:
        return torch.from_numpy(a)
    return torch.from_numpy((a.astype(np.uint32) << 16).view(np.float32)).bfloat16()
cases = [("linear", 1024, 256, 1024), ("linear", 1024, 1024, 256), ("matmul", 1024, 256, 1024), ("matmulT_A", 256, 1024, 1024)]
if bf16:  # mp.linear adds a bias; its bf16 form rounds: the bare A·Bᵀ instead.
    cases = [("matmulT_B", 1024, 256, 1024), ("matmulT_B", 1024, 1024, 256), ("matmul", 1024, 256, 1024), ("matmulT_A", 256, 1024, 1024)]
rng = np.random.default_rng(0)
for kind, M, K, N in cases:
    if kind == "linear":
        text = f"""func.func @f(%x: tensor<{M}x{K}xf32>, %w: tensor<{N}x{K}xf32>, %b: tensor<{N}xf32>) -> tensor<{M}x{N}xf32> {{
  %y = mp.linear %x, %w, %b acc(f32) : (tensor<{M}x{K}xf32>, tensor<{N}x{K}xf32>, tensor<{N}xf32>) -> tensor<{M}x{N}xf32>
  return %y : tensor<{M}x{N}xf32> }}"""
        arrays = [rng.random((M, K)).astype(np.float32), rng.random((N, K)).astype(np.float32), rng.random(N).astype(np.float32)]
        tf = lambda: torch.nn.functional.linear(ta[0], ta[1], ta[2])
    else:  # linalg.matmul: A·B, A·Bᵀ, or Aᵀ·B (the weight gradient dW = dYᵀ X)
        a_shape, b_shape, a_map, b_map, tf = {
            "matmul": ((M, K), (K, N), "(m, k)", "(k, n)", lambda: ta[0] @ ta[1]),
            "matmulT_B": ((M, K), (N, K), "(m, k)", "(n, k)", lambda: ta[0] @ ta[1].t()),
            "matmulT_A": ((K, M), (K, N), "(k, m)", "(k, n)", lambda: ta[0].t() @ ta[1]),
        }[kind]
        ta_type = "tensor<%dx%dx%s>" % (a_shape + (T,))
        tb_type = "tensor<%dx%dx%s>" % (b_shape + (T,))
        text = f"""func.func @f(%x: {ta_type}, %w: {tb_type}) -> tensor<{M}x{N}xf32> {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{M}x{N}xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<{M}x{N}xf32>) -> tensor<{M}x{N}xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> {a_map}>, affine_map<(m, n, k) -> {b_map}>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %w : {ta_type}, {tb_type}) outs(%i : tensor<{M}x{N}xf32>) -> tensor<{M}x{N}xf32>
  return %y : tensor<{M}x{N}xf32> }}"""
        arrays = [storage(rng.random(a_shape).astype(np.float32)),
                  storage(rng.random(b_shape).astype(np.float32))]
    ta = [as_torch(a) for a in arrays]
    s = Session(); m = s.parse(text); e = m.engine(opts)
    out = np.zeros((M, N), np.float32)
    descs = [memref_descriptor(a) for a in arrays + [out]]
    ptrs = (ctypes.c_void_p * len(descs))(*[ctypes.cast(ctypes.pointer(d), ctypes.c_void_p) for d in descs])
    e.invoke("f", ptrs)
    ref = tf().float().numpy()
    err = np.abs(out - ref).max()
    reps = 5
    t0 = clock()
    for _ in range(reps): e.invoke("f", ptrs)
    ours = (clock() - t0) / reps * 1e3
    tf(); t0 = clock()
    for _ in range(reps): tf()
    theirs = (clock() - t0) / reps * 1e3
    gf = 2 * M * N * K / 1e6
    print(f"{kind:10s} M{M} K{K} N{N}: ours {ours:7.2f} ms ({gf/ours:5.1f} GF/s)  torch {theirs:7.2f} ms ({gf/theirs:5.1f} GF/s) ratio {theirs/ours:.2f}x  maxerr {err:.2g}", flush=True)
    e.close(); m.close(); s.close()
