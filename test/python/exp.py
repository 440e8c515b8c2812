# mp-expand-tanh{exp=true}, the f32 exp of mp-cpu-pipeline (f64 arithmetic
# rounded once): mp.exp and mp.sigmoid compiled vectorised and with
# vectorize=false give the same bits on a sample of every binade of f32
# (every 4099th bit pattern of each sign, the patterns near the overflow
# and underflow thresholds, the special values); exp is correctly rounded on
# that sample (float64's exp rounded to f32 as the exact value), also where
# glibc's expf is not (0x1.5b3126p-8: exact 1.0053... lies 0.4994 ulp above
# 0x1.015c1cp+0, glibc gives 0x1.015c1ep+0); overflow, gradual underflow
# and the special values are IEEE's.
# REQUIRES: numpy
# RUN: %python %s | FileCheck %s

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
from tanh_engine import near, pad, run_elementwise  # noqa: E402


positive = np.concatenate([
    np.arange(0, 0x7F800000, 4099, dtype=np.uint32),
    near(88.72284, 1 << 10), near(103.97208, 1 << 10), near(87.33655, 1 << 10),
    np.array([0, 1, 0x7F7FFFFF, 0x7F800000, 0x7FC00000, 0x7F800001],
             dtype=np.uint32)])
bits = np.concatenate([positive, positive | np.uint32(0x80000000),
                       np.array([0x3BAD9893], np.uint32)])  # 0x1.5b3126p-8
bits = pad(bits)
x = bits.view(np.float32)

(vector_exp, vector_sigmoid), (scalar_exp, scalar_sigmoid) = run_elementwise(
    ["mp.exp %x", "mp.sigmoid %x"], x, ["", "vectorize=false"])
print("values:", len(x))
print("exp identical:", np.array_equal(vector_exp.view(np.uint32),
                                       scalar_exp.view(np.uint32)))
print("sigmoid identical:", np.array_equal(vector_sigmoid.view(np.uint32),
                                           scalar_sigmoid.view(np.uint32)))
# CHECK: values:
# CHECK-NEXT: exp identical: True
# CHECK-NEXT: sigmoid identical: True

with np.errstate(over="ignore", under="ignore", invalid="ignore"):
    exact = np.exp(x.astype(np.float64)).astype(np.float32)
finite = ~np.isnan(x)
wrong = np.flatnonzero(vector_exp[finite].view(np.uint32) !=
                       exact[finite].view(np.uint32))
print("exp correctly rounded:", len(wrong) == 0,
      [float(v).hex() for v in x[finite][wrong][:4]])
# CHECK-NEXT: exp correctly rounded: True []

hard = int(np.flatnonzero(bits == 0x3BAD9893)[0])
print("hard case:", float(vector_exp[hard]).hex())
# CHECK-NEXT: hard case: 0x1.015c1c0000000p+0

special = np.array([0x0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000,
                    0x42B17217, 0x42B17218, 0xC2CFF1B4, 0xC2CFF1B5,
                    0xC2AEAC50], np.uint32)
index = [int(np.flatnonzero(bits == s)[0]) for s in special]
print("specials:", " ".join(float(v).hex() for v in vector_exp[index]))
print("nan bits:", hex(vector_exp[index[4]].view(np.uint32)))
# exp(±0) = 1, exp(inf) = inf, exp(-inf) = 0, the default NaN; 88.72283
# has the largest finite exp, 88.72284 overflows; -103.97207 gives the
# smallest subnormal, -103.97208 0; -87.33655 a subnormal just below the
# smallest normal.
# CHECK-NEXT: specials: 0x1.0000000000000p+0 0x1.0000000000000p+0 inf 0x0.0p+0 nan 0x1.ffff080000000p+127 inf 0x1.0000000000000p-149 0x0.0p+0 0x1.ffff980000000p-127
# CHECK-NEXT: nan bits: 0x7fc00000
