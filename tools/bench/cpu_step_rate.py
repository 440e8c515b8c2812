#!/usr/bin/python3
"""Steps per second of the MLP train step in mp-run: FP32 against f16 and
bf16 automatic mixed precision, measured in one run.

    tools/bench/cpu_step_rate.py [--mp-run PATH] [--steps N] [--repeats R]

Runs docs/examples/mlp_train_step.mlir (784-256-10, batch 64, Adam) on
Fashion-MNIST in three modes, R times each, interleaved, and reports for each
mode the best time per step spent in the compiled step (mp-run's
"compute_seconds": data loading and bookkeeping excluded) and its ratio to
FP32. The modes:

    FP32       the step as written
    f16-AMP    mp-mixed-precision-pipeline{compute-type=f16}: f16 autocast,
               f32 master weights, dynamic loss scaling
    bf16-AMP   mp-mixed-precision-pipeline{compute-type=bf16}: bf16 autocast,
               f32 master weights

Prints figures, never asserts: the target (an AMP step no more than 3x slower
than an FP32 step) is for the reader to compare.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODES = [
    ("FP32", None),
    ("f16-AMP", "mp-mixed-precision-pipeline{compute-type=f16}"),
    ("bf16-AMP", "mp-mixed-precision-pipeline{compute-type=bf16}"),
]


def default_mp_run():
    build = os.environ.get("MP_BUILD_DIR", os.path.join(ROOT, "build"))
    return os.path.join(build, "bin", "mp-run")


def run_mode(mp_run, pipeline, steps, data):
    with tempfile.TemporaryDirectory() as tmp:
        trajectory = os.path.join(tmp, "run.json")
        command = [mp_run, os.path.join(ROOT, "docs/examples/mlp_train_step.mlir"),
                   "--data=" + data, "--steps=%d" % steps, "--print-every=0",
                   "--json=" + trajectory]
        if pipeline:
            command.append("--pipeline=" + pipeline)
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        run = json.load(open(trajectory))
    return run["compute_seconds"] / steps, run["run_seconds"] / steps


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mp-run", default=default_mp_run())
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--data", default="fashion-mnist",
                        help="mp-run --data (default fashion-mnist)")
    args = parser.parse_args()
    if not os.path.exists(args.mp_run):
        sys.exit("no mp-run at %s (build it, or give --mp-run)" % args.mp_run)

    best = {name: (float("inf"), float("inf")) for name, _ in MODES}
    for _ in range(args.repeats):
        for name, pipeline in MODES:
            compute, total = run_mode(args.mp_run, pipeline, args.steps, args.data)
            best[name] = (min(best[name][0], compute), min(best[name][1], total))

    print("MLP 784-256-10 train step (batch 64, Adam), %d steps, best of %d"
          % (args.steps, args.repeats))
    print("%-9s  %12s  %10s  %12s  %s"
          % ("mode", "ms/step", "steps/s", "vs FP32", "(with data: ms/step)"))
    fp32 = best["FP32"][0]
    for name, _ in MODES:
        compute, total = best[name]
        print("%-9s  %12.3f  %10.1f  %11.2fx  (%.3f)"
              % (name, 1e3 * compute, 1 / compute, compute / fp32, 1e3 * total))


if __name__ == "__main__":
    main()
