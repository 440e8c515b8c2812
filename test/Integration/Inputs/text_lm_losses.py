#!/usr/bin/env python3
"""Compares the loss curves of mp-run --json runs of one language model:

    text_lm_losses.py REFERENCE.json NAME=RUN.json...

Prints, per run, the mean loss of the first and of the last 20 steps, and
checks that the reference's falls by at least 2 nats (ln 512 = 6.24 at the
start) and that every other run's final mean is within 0.01 nats of the
reference's (the stated bound of 16-bit AMP against FP32 on this model;
measured over 200 steps on GPL-3 with seed 0: final means 1.1e-4 (BF16)
and 1.7e-5 (FP16) from FP32, single steps at most 1.5e-3)."""

import json
import sys


def means(path):
    losses = [s["loss"] for s in json.load(open(path))["steps"]]
    return sum(losses[:20]) / 20, sum(losses[-20:]) / 20


def main():
    first, last = means(sys.argv[1])
    print(f"FP32  first {first:.3f}  last {last:.3f}")
    print(f"FP32 falls by 2 nats: {first - last >= 2.0}")
    for spec in sys.argv[2:]:
        name, path = spec.split("=", 1)
        f, l = means(path)
        print(f"{name:5s} first {f:.3f}  last {l:.3f}")
        print(f"{name} within 0.01 of FP32: {abs(l - last) <= 0.01}")


if __name__ == "__main__":
    main()
