"""Compares a data-parallel mp-run with a single-process one on the same
global batches: every saved parameter within an absolute tolerance, and the
loss of every step within a relative tolerance.

usage: compare_runs.py SINGLE_DIR SINGLE_JSON DP_DIR DP_JSON TOLERANCE
"""
import glob
import json
import os
import sys

import numpy as np

single_dir, single_json, dp_dir, dp_json, tolerance = sys.argv[1:]
tolerance = float(tolerance)

names = sorted(os.path.basename(p) for p in glob.glob(single_dir + "/arg*.npy"))
assert names, "no parameters saved"
worst = 0.0
for name in names:
    a = np.load(os.path.join(single_dir, name))
    b = np.load(os.path.join(dp_dir, name))
    assert a.shape == b.shape, name
    worst = max(worst, float(np.abs(a.astype(np.float64) - b).max()))
print("parameters: %d, max |difference| %.3g" % (len(names), worst))
print("parameters within %g: %s" % (tolerance, worst <= tolerance))

single = json.load(open(single_json))["steps"]
dp = json.load(open(dp_json))["steps"]
assert len(single) == len(dp)
relative = max(abs(s["loss"] - d["loss"]) / abs(s["loss"])
               for s, d in zip(single, dp))
print("losses: %d steps, max relative difference %.3g" % (len(dp), relative))
print("losses within %g: %s" % (tolerance, relative <= tolerance))
