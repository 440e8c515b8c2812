#!/usr/bin/env python3
"""Checks for nvfp4-rng-stream.test: the rng streams of a train step with
dropout and mp-fp8-scaling's nvfp4 recipe (Inputs/dropout_nvfp4_step.mlir).

    rng_streams.py SEED A.json B.json SAVE_DIR DROPOUT_ARG NVFP4_ARG STEPS

Prints whether the two mp-run --json runs (same --seed) have the same losses
bit for bit; the rng states mp-run --save wrote after STEPS steps (the seed
word is --seed in both, the offsets advanced by each stream's draws per
step); and how many of the first draws of the dropout's stream (key SEED)
and of the recipe's (SEED with the top bit flipped, the key the pass builds)
are equal, from the independent Philox reference philox.py.
"""

import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import philox  # noqa: E402


def main():
    seed = int(sys.argv[1])
    runs = [[s["loss"] for s in json.load(open(p))["steps"]]
            for p in sys.argv[2:4]]
    save, dropout_arg, nvfp4_arg = sys.argv[4], sys.argv[5], sys.argv[6]
    steps = int(sys.argv[7])
    print(f"steps: {len(runs[0])}, same losses: {runs[0] == runs[1]}")
    for name, arg in (("dropout", dropout_arg), ("nvfp4", nvfp4_arg)):
        state = np.load(os.path.join(save, f"arg{arg}.npy")).view(np.uint64)
        print(f"{name} state: seed {int(state[0])}, "
              f"{int(state[1]) // steps} draws per step")
    count = 4096
    dropout = philox.draws(seed, 0, count)
    nvfp4 = philox.draws(seed ^ (1 << 63), 0, count)
    print(f"equal draws of the two streams: {int((dropout == nvfp4).sum())} "
          f"of {count}")


if __name__ == "__main__":
    main()
