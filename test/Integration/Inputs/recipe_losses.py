#!/usr/bin/env python3
"""Compares the loss curves of mp-run --json runs of one model trained with
different low-precision recipes (mp-fp8-scaling's recipe=...):

    recipe_losses.py --window=N --within=B REFERENCE=REF.json NAME=RUN.json...

Prints the mean loss of the first and of the last N steps of each run, then
for every run after the first whether its final mean is within B of the
reference's and whether its loss fell over the run. The bound is the test's
statement of how close a recipe trains to its reference; tests choose it
from measured differences (their comments give them).
"""

import json
import sys


def means(path, window):
    losses = [s["loss"] for s in json.load(open(path))["steps"]]
    if len(losses) < 2 * window:
        sys.exit(f"{path}: {len(losses)} steps, fewer than 2 x {window}")
    return sum(losses[:window]) / window, sum(losses[-window:]) / window


def main():
    window, within = 10, None
    runs = []
    for argument in sys.argv[1:]:
        if argument.startswith("--window="):
            window = int(argument.split("=", 1)[1])
        elif argument.startswith("--within="):
            within = float(argument.split("=", 1)[1])
        else:
            runs.append(argument.split("=", 1))
    if within is None or len(runs) < 2:
        sys.exit(__doc__)
    (reference, path), others = runs[0], runs[1:]
    first, last = means(path, window)
    print(f"{reference:10s} first {first:.4f}  last {last:.4f}")
    for name, path in others:
        f, l = means(path, window)
        print(f"{name:10s} first {f:.4f}  last {l:.4f}  "
              f"difference {l - last:+.4f}")
        print(f"{name} falls: {l < f}")
        print(f"{name} within {within:g} of {reference}: "
              f"{abs(l - last) <= within}")


if __name__ == "__main__":
    main()
