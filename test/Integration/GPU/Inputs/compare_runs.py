"""Compares two mp-run trajectories (--json) and final parameters (--save).

    compare_runs.py A.json A_DIR B.json B_DIR [--loss-rtol R] [--param-atol T]

Prints, per step, both losses and whether they are equal bit for bit (or
within the relative bound R) with the loss scale it ran with and its
skipped flag (both must be equal), and per saved argument the largest absolute
difference (within T; 0 asks for equality bit for bit), then MATCH or
MISMATCH. Used by the --device=cuda tests on the simulated driver against
--device=cpu. numpy for the .npy files.
"""

import argparse
import json
import os
import sys

import numpy as np


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("a_json")
    parser.add_argument("a_dir")
    parser.add_argument("b_json")
    parser.add_argument("b_dir")
    parser.add_argument("--loss-rtol", type=float, default=0.0)
    parser.add_argument("--param-atol", type=float, default=0.0)
    args = parser.parse_args()
    a, b = (json.load(open(path)) for path in (args.a_json, args.b_json))
    ok = len(a["steps"]) == len(b["steps"])
    print(f"devices {a['device']} {b['device']}")
    for sa, sb in zip(a["steps"], b["steps"]):
        la, lb = sa["loss"], sb["loss"]
        same = np.float64(la).tobytes() == np.float64(lb).tobytes()
        good = same or abs(la - lb) <= args.loss_rtol * abs(la)
        # The loss scale each step ran with and the skip decision: equal.
        state = (sa["skipped"] == sb["skipped"] and
                 sa.get("loss_scale") == sb.get("loss_scale"))
        ok &= good and state
        print(f"step {sa['step']} loss {la:.9g} {lb:.9g} "
              f"{'equal' if same else 'differs'} {'ok' if good else 'FAIL'}"
              f" scale {sa.get('loss_scale')} skipped {sa['skipped']}"
              f"{'' if state else ' FAIL'}")
    names = sorted(os.listdir(args.a_dir))
    ok &= names == sorted(os.listdir(args.b_dir)) and bool(names)
    for name in names:
        x = np.load(os.path.join(args.a_dir, name))
        y = np.load(os.path.join(args.b_dir, name))
        same = x.dtype == y.dtype and x.tobytes() == y.tobytes()
        diff = float(np.max(np.abs(x.astype(np.float64) - y.astype(np.float64)),
                            initial=0.0))
        good = same or (args.param_atol > 0 and diff <= args.param_atol)
        ok &= good
        print(f"{name} max |diff| {diff:.3g} "
              f"{'equal' if same else 'differs'} {'ok' if good else 'FAIL'}")
    print("MATCH" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
