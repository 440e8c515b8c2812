"""Data and checks of Integration/dropout-skipped-step.test: the train step
Inputs/dropout_step.mlir (loss = sum(dropout(w * x, 0.5)), SGD lr 0.1) under
dynamic loss scaling, 3 steps: steps 1 and 2 have x ~ 1e34, whose scaled
gradients overflow (skipped), step 3 has x = 1.

  dropout_skipped_step.py data DIR      writes DIR/arg2.npy and DIR/w/arg0.npy
  dropout_skipped_step.py check DIR JSON SEED
  dropout_skipped_step.py same JSON JSON [JSON...]   losses equal bit for bit

`check` recomputes each step's mask with the Python Philox of
Inputs/philox.py from the state [SEED, 64·(step − 1)]: the rng state
advances on the skipped steps (step 2 does not repeat step 1's mask), the
losses match, and the final parameters changed exactly where step 3 kept
an element, by 0.1·2·x, and nowhere else.
"""

import json
import os
import sys

import numpy as np

import philox

N = 64


def inputs():
    w = (np.arange(N, dtype=np.float32) % 7 + 1) * np.float32(0.125)
    big = (np.arange(N, dtype=np.float32) + 1) * np.float32(1e32)
    x = np.stack([big, big[::-1].copy(), np.ones(N, np.float32)])
    return w, x.astype(np.float32)


def write(directory):
    w, x = inputs()
    os.makedirs(os.path.join(directory, 'w'), exist_ok=True)
    np.save(os.path.join(directory, 'arg2.npy'), x)
    np.save(os.path.join(directory, 'w', 'arg0.npy'), w)


def check(directory, json_path, seed):
    w, x = inputs()
    with open(json_path) as f:
        run = json.load(f)
    steps = run['steps']
    masks = [philox.dropout_keep(seed, N * k, N, 0.5) for k in range(3)]
    failures = 0
    for k, step in enumerate(steps):
        h = w * x[k]
        want = float(np.sum(np.where(masks[k], h * np.float32(2.0),
                                     np.float32(0)), dtype=np.float64))
        rel = abs(step['loss'] - want) / abs(want)
        # What a reverted state would give: the previous step's mask.
        stale = masks[k - 1] if k else None
        print(f"step {step['step']}: skipped={step['skipped']} loss matches "
              f"the mask of offset {N * k} (rel {rel:.0e} <= 1e-6): "
              f"{rel <= 1e-6}; kept {int(masks[k].sum())}"
              + (f"; differs from offset {N * (k - 1)}'s mask: "
                 f"{bool(np.any(masks[k] != stale))}" if k else ''))
        failures += rel > 1e-6
    final = np.load(os.path.join(directory, 'out', 'arg0.npy'))
    kept = masks[2]
    changed = final != w
    expected = w - np.float32(0.1) * (x[2] * np.float32(2.0))
    print(f'parameters changed exactly where step 3 kept: '
          f'{bool(np.array_equal(changed, kept))}; by 0.1*2*x there: '
          f'{bool(np.allclose(final[kept], expected[kept], rtol=1e-6, atol=0))}')
    failures += not np.array_equal(changed, kept)
    return failures


def main():
    if sys.argv[1] == 'data':
        write(sys.argv[2])
        return 0
    if sys.argv[1] == 'same':
        runs = []
        for path in sys.argv[2:]:
            with open(path) as f:
                runs.append([step['loss'] for step in json.load(f)['steps']])
        same = all(run == runs[0] for run in runs)
        print(f'{len(runs)} runs: losses {"identical" if same else "DIFFER"}')
        return 0 if same else 1
    return 1 if check(sys.argv[2], sys.argv[3], int(sys.argv[4])) else 0


if __name__ == '__main__':
    raise SystemExit(main())
