#!/usr/bin/python3
"""GFLOP/s of the MLP's matmul shapes compiled by mp-cpu-pipeline (run by
mp-run) against NumPy with OpenBLAS, measured in one run.

    tools/bench/matmul_gflops.py [--mp-run PATH] [--iterations N]

The shapes are those of the 784-256-10 MLP's train step with batch 64 (the
forward x·W1ᵀ and its backward products), written as mp.matmul with the
transpose flags the step uses:

    fwd     x[64,784]   · W1[256,784]ᵀ  -> [64,256]
    dW1     dH[64,256]ᵀ · x[64,784]     -> [256,784]
    dX      dH[64,256]  · W1[256,784]   -> [64,784]
    fwd2    h[64,256]   · W2[10,256]ᵀ   -> [64,10]
    dW2     dY[64,10]ᵀ  · h[64,256]     -> [10,256]

For each shape mp-run times the compiled function alone over N calls (its
"compute_seconds"; one thread); NumPy times the same product (float32,
transposes as views) with OpenBLAS's default threads and with one thread.
Prints GFLOP/s and the ratios; never asserts (the target, at least 0.5x
OpenBLAS for f32, is for the reader to compare). f16 inputs accumulating in
f32 (the AMP matmul) are timed for mp-run only: NumPy has no such BLAS call.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# name, (lhs shape, rhs shape), transpose flags, (M, N, K)
SHAPES = [
    ("fwd", ((64, 784), (256, 784)), "transpose_rhs", (64, 256, 784)),
    ("dW1", ((64, 256), (64, 784)), "transpose_lhs", (256, 784, 64)),
    ("dX", ((64, 256), (256, 784)), "", (64, 784, 256)),
    ("fwd2", ((64, 256), (10, 256)), "transpose_rhs", (64, 10, 256)),
    ("dW2", ((64, 10), (64, 256)), "transpose_lhs", (10, 256, 64)),
]

NUMPY_TIMER = r"""
import sys, time, numpy as np
lhs_shape, rhs_shape, flags, iterations = eval(sys.argv[1])
rng = np.random.default_rng(0)
a = rng.standard_normal(lhs_shape).astype(np.float32)
b = rng.standard_normal(rhs_shape).astype(np.float32)
a = a.T if "transpose_lhs" in flags else a
b = b.T if "transpose_rhs" in flags else b
out = np.empty((a.shape[0], b.shape[1]), np.float32)
for _ in range(10):
    np.matmul(a, b, out=out)
best = float("inf")
for _ in range(5):
    start = time.perf_counter()
    for _ in range(iterations):
        np.matmul(a, b, out=out)
    best = min(best, (time.perf_counter() - start) / iterations)
print(best)
"""


def tensor(shape, element):
    return "tensor<%sx%s>" % ("x".join(map(str, shape)), element)


def matmul_module(lhs, rhs, flags, m, n, element):
    """A 'train step' whose only work is the product: the lhs is batch data,
    the rhs a parameter, the product an extra result; the loss is 0."""
    result = tensor((m, n), "f32")
    return """
func.func @bench(%%a: %s, %%b: %s {mp.param}) -> (tensor<f32> {mp.loss}, %s) {
  %%zero = arith.constant dense<0.0> : tensor<f32>
  %%c = mp.matmul %%a, %%b %s acc(f32) : %s, %s -> %s
  return %%zero, %%c : tensor<f32>, %s
}
""" % (tensor(lhs, element), tensor(rhs, element), result, flags,
       tensor(lhs, element), tensor(rhs, element), result, result)


def time_mp_run(mp_run, module, iterations, repeats=3):
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "bench.mlir")
        open(source, "w").write(module)
        best = float("inf")
        for _ in range(repeats):
            trajectory = os.path.join(tmp, "run.json")
            subprocess.run([mp_run, source, "--steps=%d" % iterations,
                            "--print-every=0", "--json=" + trajectory],
                           check=True, stdout=subprocess.DEVNULL)
            best = min(best, json.load(open(trajectory))["compute_seconds"]
                       / iterations)
    return best


def time_numpy(lhs, rhs, flags, iterations, threads):
    environment = dict(os.environ)
    if threads:
        environment["OPENBLAS_NUM_THREADS"] = str(threads)
    output = subprocess.run(
        ["/usr/bin/python3", "-c", NUMPY_TIMER,
         repr((lhs, rhs, flags, iterations))],
        check=True, capture_output=True, text=True, env=environment)
    return float(output.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    build = os.environ.get("MP_BUILD_DIR", os.path.join(ROOT, "build"))
    parser.add_argument("--mp-run", default=os.path.join(build, "bin", "mp-run"))
    parser.add_argument("--iterations", type=int, default=200)
    args = parser.parse_args()
    if not os.path.exists(args.mp_run):
        sys.exit("no mp-run at %s (build it, or give --mp-run)" % args.mp_run)
    blas = subprocess.run(
        ["/usr/bin/python3", "-c",
         "import numpy; numpy.show_config()"], capture_output=True, text=True)
    print("NumPy BLAS: %s" % ("OpenBLAS" if "openblas" in blas.stdout.lower()
                              else "not OpenBLAS (install libopenblas0)"))
    print("%-5s %-15s %9s %9s %9s %9s %8s %8s"
          % ("shape", "M x N x K", "mp f32", "mp f16", "np 1thr", "np all",
             "f32/1thr", "f32/all"))
    for name, (lhs, rhs), flags, (m, n, k) in SHAPES:
        flops = 2.0 * m * n * k
        gflops = lambda seconds: flops / seconds / 1e9
        ours = gflops(time_mp_run(
            args.mp_run, matmul_module(lhs, rhs, flags, m, n, "f32"),
            args.iterations))
        ours16 = gflops(time_mp_run(
            args.mp_run, matmul_module(lhs, rhs, flags, m, n, "f16"),
            args.iterations))
        single = gflops(time_numpy(lhs, rhs, flags, args.iterations, 1))
        default = gflops(time_numpy(lhs, rhs, flags, args.iterations, None))
        print("%-5s %-15s %9.1f %9.1f %9.1f %9.1f %7.2fx %7.2fx"
              % (name, "%dx%dx%d" % (m, n, k), ours, ours16, single, default,
                 ours / single, ours / default))
    print("GFLOP/s; mp-run is single-threaded; 'np all' uses OpenBLAS's "
          "default thread count (%d CPUs)" % os.cpu_count())


if __name__ == "__main__":
    main()
