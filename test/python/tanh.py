# mp-expand-tanh, the f32 tanh of mp-cpu-pipeline (and of the GPU kernels):
# mp.tanh and tanh GELU compiled vectorised and with vectorize=false give
# the same bits on a sample of every binade of f32 (every 4099th bit
# pattern of each sign, every pattern near the branch points 0.875 and 9.5,
# and the special values), and tanh is within 1.03 ulp of the exact value
# (float64's tanh rounded to the f32 grid: the bound docs/Lowering.md states
# for every f32).
# REQUIRES: numpy
# RUN: %python %s | FileCheck %s

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
from tanh_engine import near, pad, tanh_and_gelu  # noqa: E402


positive = np.concatenate([
    np.arange(0, 0x7F800000, 4099, dtype=np.uint32),
    near(0.875, 1 << 14), near(9.5, 1 << 10), near(9.0109, 1 << 10),
    np.array([0, 1, 0x7F7FFFFF, 0x7F800000, 0x7FC00000, 0x7F800001],
             dtype=np.uint32)])
bits = np.concatenate([positive, positive | np.uint32(0x80000000)])
bits = pad(bits)
x = bits.view(np.float32)


(vector_tanh, vector_gelu), (scalar_tanh, scalar_gelu) = tanh_and_gelu(
    x, ["", "vectorize=false"])
print("values:", len(x))
print("tanh identical:", np.array_equal(vector_tanh.view(np.uint32),
                                        scalar_tanh.view(np.uint32)))
print("gelu identical:", np.array_equal(vector_gelu.view(np.uint32),
                                        scalar_gelu.view(np.uint32)))
# CHECK: values:
# CHECK-NEXT: tanh identical: True
# CHECK-NEXT: gelu identical: True

finite = np.isfinite(x)
exact = np.tanh(x[finite].astype(np.float64))
grid = np.abs(exact).astype(np.float32)
# The ulp of the f32 binade the exact value lies in (the one below a power
# of two when the exact value is just under it).
below = grid.astype(np.float64) > np.abs(exact)
ulp = np.where(below, grid - np.nextafter(grid, np.float32(0)),
               np.nextafter(grid, np.float32(np.inf)) - grid).astype(np.float64)
ulp = np.maximum(ulp, 2.0 ** -149)
error = np.abs(vector_tanh[finite].astype(np.float64) - exact) / ulp
print("tanh within 1.03 ulp:", error.max() <= 1.03,
      "correctly rounded: %.1f%%" % (100 * np.mean(
          vector_tanh[finite] == exact.astype(np.float32))))
# CHECK-NEXT: tanh within 1.03 ulp: True correctly rounded: {{9[0-9]\.[0-9]}}%

special = np.array([0x0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000,
                    0x7F7FFFFF, 0x80000001], np.uint32).view(np.float32)
index = [int(np.flatnonzero(bits == s.view(np.uint32))[0]) for s in special]
print("specials:", " ".join(float(v).hex() for v in vector_tanh[index]))
# CHECK-NEXT: specials: 0x0.0p+0 -0x0.0p+0 0x1.0000000000000p+0 -0x1.0000000000000p+0 nan 0x1.0000000000000p+0 -0x1.0000000000000p-149
