"""Data and checks of data-parallel-dropout.test: Inputs/../../Inputs/
dropout_step.mlir (loss = sum(dropout(w * x, 0.5)), SGD lr 0.1) on 2
processes, 3 steps, one sample per process per step.

  dropout_streams.py data DIR         DIR/arg2.npy (6 samples) and DIR/w/arg0.npy
  dropout_streams.py check DIR JSON SEED

`check` recomputes every process's mask with the Python Philox
(Integration/Inputs/philox.py): process r draws from the state
[SEED XOR (r << 32), 64·(step − 1)]; the reported loss is the group's mean of
the per-process losses, and the final parameters follow from the averaged
gradients; it also says whether the two processes' masks differ.
"""

import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', 'Inputs'))
import philox  # noqa: E402

N, STEPS, RANKS = 64, 3, 2


def inputs():
    w = (np.arange(N, dtype=np.float32) % 5 + 1) * np.float32(0.25)
    x = (np.arange(STEPS * RANKS * N, dtype=np.float32).reshape(-1, N) % 9
         + 1).astype(np.float32)
    return w, x


def main():
    w, x = inputs()
    directory = sys.argv[2]
    if sys.argv[1] == 'data':
        os.makedirs(os.path.join(directory, 'w'), exist_ok=True)
        np.save(os.path.join(directory, 'arg2.npy'), x)
        np.save(os.path.join(directory, 'w', 'arg0.npy'), w)
        return 0
    with open(sys.argv[3]) as f:
        run = json.load(f)
    seed = int(sys.argv[4])
    failures = 0
    for k, step in enumerate(run['steps']):
        losses, grads, masks = [], [], []
        for r in range(RANKS):
            keep = philox.dropout_keep(seed ^ (r << 32), N * k, N, 0.5)
            sample = x[k * RANKS + r]
            masks.append(keep)
            losses.append(np.sum(np.where(keep, w * sample * np.float32(2),
                                          np.float32(0)), dtype=np.float64))
            grads.append(np.where(keep, sample * np.float32(2), np.float32(0)))
        want = float(np.mean(losses))
        rel = abs(step["loss"] - want) / abs(want)
        failures += rel > 1e-6
        # SGD as torch.optim's: param.add_(grad, alpha=-lr), one fused
        # multiply-add (the f32 product is exact in f64).
        average = np.float32(0.5) * grads[0] + np.float32(0.5) * grads[1]
        w = (w.astype(np.float64) + np.float64(np.float32(-0.1)) *
             average.astype(np.float64)).astype(np.float32)
        print(f"step {step['step']}: loss is the mean over the per-process "
              f"streams (rel {rel:.0e} <= 1e-6): {rel <= 1e-6}; masks of "
              f"rank 0 and 1 differ: {bool(np.any(masks[0] != masks[1]))}")
    final = np.load(os.path.join(directory, 'out', 'arg0.npy'))
    close = bool(np.allclose(final, w, rtol=1e-6, atol=0))
    failures += not close
    print(f'final parameters as the averaged per-stream gradients give: {close}')
    return 1 if failures else 0


if __name__ == '__main__':
    raise SystemExit(main())
