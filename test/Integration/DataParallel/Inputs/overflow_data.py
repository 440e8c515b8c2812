"""Writes npy data for linear_step.mlir (arguments 2 and 3) to DIR: 6 global
batches of 8 samples in file order, N(0, 1) features and labels in [0, 4);
sample 20, which belongs to process 1's half of the third global batch,
has every feature 100, so that its f16 backward overflows (100 · S/4 · dp
exceeds 65504 at S = 65536) while its forward stays finite.

usage: overflow_data.py DIR
"""
import os
import sys

import numpy as np

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(0)
x = rng.standard_normal((48, 16)).astype(np.float32)
x[20, :] = 100.0
y = rng.integers(0, 4, size=48).astype(np.int64)
np.save(os.path.join(out, "arg2.npy"), x)
np.save(os.path.join(out, "arg3.npy"), y)
