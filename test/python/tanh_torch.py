# tanh and tanh GELU of mp-cpu-pipeline (mp-expand-tanh) against PyTorch's
# CPU kernels (torch.tanh, F.gelu(approximate="tanh"), Sleef's 1-ulp tanh)
# on every 65537th f32 bit pattern of each sign and on 2^18 values spread
# over [-12, 12]: tanh within 2 ulp of PyTorch's (ours is within 1.03 ulp of
# the exact tanh, PyTorch's within 1), GELU within 2^-23·|x| + 1 ulp of the
# result (the difference of the tanh, scaled by x/2, and of one rounding),
# the bounds docs/Lowering.md states.
# REQUIRES: torch
# RUN: %python %s | FileCheck %s

import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
from tanh_engine import pad, tanh_and_gelu  # noqa: E402

torch.set_num_threads(1)
positive = np.arange(0, 0x7F800000, 65537, dtype=np.uint32)
x = np.concatenate([positive.view(np.float32), -positive.view(np.float32),
                    np.linspace(-12, 12, 1 << 18, dtype=np.float32)])
x = pad(x)
[(tanh, gelu)] = tanh_and_gelu(x, [""])

tx = torch.from_numpy(x)
torch_tanh = torch.tanh(tx).numpy()
torch_gelu = torch.nn.functional.gelu(tx, approximate="tanh").numpy()


def ulp(values):
    a = np.abs(values)
    return np.maximum(np.nextafter(a, np.float32(np.inf)) - a,
                      np.float32(2.0 ** -149)).astype(np.float64)


tanh_error = np.abs(tanh.astype(np.float64) - torch_tanh) / ulp(torch_tanh)
print("values: %d, tanh max %.2f ulp from PyTorch's, %.1f%% identical" % (
    len(x), tanh_error.max(), 100 * np.mean(tanh == torch_tanh)))
print("tanh within 2 ulp:", tanh_error.max() <= 2)
# CHECK: values: {{[0-9]+}}, tanh max {{[0-9.]+}} ulp from PyTorch's
# CHECK-NEXT: tanh within 2 ulp: True

finite = np.isfinite(torch_gelu)
gelu_error = np.abs(gelu.astype(np.float64) - torch_gelu)[finite]
bound = (2.0 ** -23 * np.abs(x.astype(np.float64)) + ulp(torch_gelu))[finite]
print("gelu within 2^-23*|x| + 1 ulp: %s (%.1f%% identical)" % (
    bool(np.all(gelu_error <= bound)), 100 * np.mean(gelu == torch_gelu)))
print("gelu non-finite alike:", np.array_equal(np.isnan(gelu), np.isnan(torch_gelu))
      and np.array_equal(gelu[~finite & ~np.isnan(gelu)],
                         torch_gelu[~finite & ~np.isnan(torch_gelu)]))
# CHECK-NEXT: gelu within 2^-23*|x| + 1 ulp: True
# CHECK-NEXT: gelu non-finite alike: True
