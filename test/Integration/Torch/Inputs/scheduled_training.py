#!/usr/bin/env python3
"""End to end: a train step written with mixedprec.TrainStep (a linear
layer, cross entropy with ignore_index and label smoothing, clip_grad_norm,
SGD with momentum, dampening and weight decay, a MultiStepLR schedule) run
for 12 steps by mp-run, against PyTorch from the same weights and batches
(nn.functional.linear, F.cross_entropy, clip_grad_norm_, torch.optim.SGD with
foreach=False, the group's lr set to MultiStepLR's closed form before each
step, which equals torch's stepped MultiStepLR here).

The schedule counter (lr_scheduler.last_epoch) and the step counter are
threaded by mp-run through mp.updates. Bound: the loss reductions and the
2-norm of the clip sum in another order than PyTorch (Inputs/losses.py), so
the parameters stay within rtol 1e-5 / atol 1e-6 of PyTorch's over the 12
steps, and the losses within rtol 1e-5.

Usage: scheduled_training.py build DIR      (writes step.mlir, data, init)
       scheduled_training.py check DIR      (compares DIR/run.json, DIR/out)
"""

import json
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

STEPS, BATCH, IN, CLASSES = 12, 8, 6, 5
LR, MOMENTUM, DAMPENING, WD = 0.5, 0.9, 0.3, 1e-3
MILESTONES, GAMMA = [3, 7], 0.5
MAX_NORM, IGNORE, SMOOTHING = 0.5, 4, 0.1


def build(directory):
    import mixedprec
    step = mixedprec.TrainStep("train_step")
    w = step.param("w", (CLASSES, IN))
    b = step.param("b", (CLASSES,))
    x = step.input("x", (BATCH, IN))
    y = step.input("y", (BATCH,), "i64")
    loss = step.cross_entropy(step.linear(x, w, b), y, ignore_index=IGNORE,
                              label_smoothing=SMOOTHING)
    text = step.build(loss, mixedprec.SGD(LR, momentum=MOMENTUM, dampening=DAMPENING,
                                          weight_decay=WD),
                      lr_scheduler=mixedprec.MultiStepLR(MILESTONES, GAMMA),
                      clip_grad_norm=MAX_NORM)
    with open(os.path.join(directory, "step.mlir"), "w") as f:
        f.write(text)
    rng = np.random.default_rng(3)
    # Arguments: w, b, w/b momentum buffers, step, last_epoch, x, y.
    os.makedirs(os.path.join(directory, "data"), exist_ok=True)
    os.makedirs(os.path.join(directory, "init"), exist_ok=True)
    np.save(os.path.join(directory, "data", "arg6.npy"),
            rng.standard_normal((STEPS * BATCH, IN)).astype(np.float32) * 2)
    np.save(os.path.join(directory, "data", "arg7.npy"),
            rng.integers(0, CLASSES, STEPS * BATCH).astype(np.int64))
    np.save(os.path.join(directory, "init", "arg0.npy"),
            rng.standard_normal((CLASSES, IN)).astype(np.float32))
    np.save(os.path.join(directory, "init", "arg1.npy"),
            rng.standard_normal(CLASSES).astype(np.float32))


def check(directory):
    x = np.load(os.path.join(directory, "data", "arg6.npy"))
    y = np.load(os.path.join(directory, "data", "arg7.npy"))
    w = torch.nn.Parameter(torch.from_numpy(np.load(os.path.join(directory, "init", "arg0.npy"))))
    b = torch.nn.Parameter(torch.from_numpy(np.load(os.path.join(directory, "init", "arg1.npy"))))
    opt = torch.optim.SGD([w, b], lr=LR, momentum=MOMENTUM, dampening=DAMPENING,
                          weight_decay=WD, foreach=False)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(opt, MILESTONES, GAMMA)
    losses = []
    for i in range(STEPS):
        xb = torch.from_numpy(x[i * BATCH:(i + 1) * BATCH])
        yb = torch.from_numpy(y[i * BATCH:(i + 1) * BATCH])
        opt.zero_grad()
        loss = F.cross_entropy(F.linear(xb, w, b), yb, ignore_index=IGNORE,
                               label_smoothing=SMOOTHING)
        loss.backward()
        torch.nn.utils.clip_grad_norm_([w, b], MAX_NORM)
        opt.step()
        scheduler.step()
        losses.append(loss.item())
    run = json.load(open(os.path.join(directory, "run.json")))
    got_losses = np.array([s["loss"] for s in run["steps"]])
    ok = np.allclose(got_losses, losses, rtol=1e-5, atol=0)
    print("losses %s (max relative error %.2e)" % (
        "match" if ok else "DIFFER",
        np.max(np.abs(got_losses - losses) / np.abs(losses))))
    for index, param in ((0, w), (1, b)):
        got = np.load(os.path.join(directory, "out", "arg%d.npy" % index))
        want = param.detach().numpy()
        close = np.allclose(got, want, rtol=1e-5, atol=1e-6)
        ok &= close
        print("arg%d %s (max error %.2e)" % (index, "matches" if close else "DIFFERS",
                                             np.max(np.abs(got - want))))
    print("lr after %d steps: %g" % (STEPS, opt.param_groups[0]["lr"]))
    print("MATCHES TORCH" if ok else "DIFFERS FROM TORCH")
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(sys.argv[2])
        sys.exit(0)
    sys.exit(check(sys.argv[2]))
