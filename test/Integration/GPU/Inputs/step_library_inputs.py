"""Writes seeded initial parameters and batches for a step library.

    step_library_inputs.py LIBRARY_DIR OUT_DIR STEPS

Reads LIBRARY_DIR/manifest.json (mp-run --emit-library) and writes
OUT_DIR/init/argN.npy for every parameter (uniform in [-0.5, 0.5)) and
OUT_DIR/data/argN.npy for every data argument (STEPS batches stacked along
dimension 0: N(0, 1) floats, integers in [0, 10)), in the dtypes mp-run's
--load and --data=npy read (f32 for bf16). numpy seed 5.
"""

import json
import os
import sys

import numpy as np


def main():
    library, out, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(os.path.join(library, "manifest.json")) as f:
        manifest = json.load(f)
    random = np.random.default_rng(5)
    for sub in ("init", "data"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    for a in manifest["arguments"]:
        shape, dtype = a["shape"], a["dtype"]
        if a["role"] == "param":
            values = random.uniform(-0.5, 0.5, shape).astype(np.float32)
            np.save(os.path.join(out, "init", f"arg{a['index']}.npy"), values)
        elif a["role"] == "data":
            stacked = [steps * shape[0]] + shape[1:]
            if dtype.startswith("f") or dtype == "bf16":
                values = random.standard_normal(stacked).astype(np.float32)
            else:
                values = random.integers(0, 10, stacked).astype(np.int64)
            np.save(os.path.join(out, "data", f"arg{a['index']}.npy"), values)
    return 0


if __name__ == "__main__":
    sys.exit(main())
