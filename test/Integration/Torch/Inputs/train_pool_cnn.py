#!/usr/bin/env python3
"""PyTorch reference of the train step of pool_cnn.mlir.

    train_pool_cnn.py make-inputs DIR   writes DIR/init/argN.npy (parameters)
                                        and DIR/data/arg4.npy, arg5.npy
                                        (STEPS batches of inputs and [B, T]
                                        labels)
    train_pool_cnn.py check DIR STEPS   trains the same model with
                                        torch.optim.SGD for STEPS steps and
                                        compares the losses in DIR/run.json
                                        and the parameters in DIR/final/
    train_pool_cnn.py check-loss DIR STEPS JSON RTOL
                                        compares only the losses in JSON (a
                                        mixed-precision run) with PyTorch's
                                        f32 ones, within RTOL

The model is the mp step written with torch.nn.functional (relu6, max_pool2d,
hardswish, avg_pool2d, leaky_relu, adaptive_avg_pool2d, cross entropy over
labels reshaped from [B, T] to [B·T]), all in float32. The pooling and
activation ops match PyTorch bit for bit on their own; conv2d and linear sum
in another order, so losses agree to 1e-5 relative and parameters to 1e-6
(measured over 5 steps: 1e-7 relative and 1.2e-7).
"""

import json
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

BATCH, STEPS_MAX, LR = 8, 5, 0.5
SHAPES = [(4, 1, 3, 3), (4,), (5, 4), (5,)]


def make_inputs(root):
    rng = np.random.default_rng(3)
    os.makedirs(os.path.join(root, "init"), exist_ok=True)
    os.makedirs(os.path.join(root, "data"), exist_ok=True)
    for i, shape in enumerate(SHAPES):
        value = rng.uniform(-0.6, 0.6, shape).astype(np.float32)
        np.save(os.path.join(root, "init", "arg%d.npy" % i), value)
    x = rng.normal(0, 2, (STEPS_MAX * BATCH, 1, 12, 12)).astype(np.float32)
    labels = rng.integers(0, 5, (STEPS_MAX * BATCH, 2)).astype(np.int64)
    np.save(os.path.join(root, "data", "arg4.npy"), x)
    np.save(os.path.join(root, "data", "arg5.npy"), labels)


def forward(params, x, labels):
    w1, b1, w2, b2 = params
    h = F.relu6(F.conv2d(x, w1, b1, padding=1))
    h = F.hardswish(F.max_pool2d(h, 3, stride=2, padding=1))
    h = F.leaky_relu(F.avg_pool2d(h, 2), 0.1)
    h = F.adaptive_avg_pool2d(h, (2, 1)).reshape(BATCH, 4, 2).transpose(1, 2)
    logits = F.linear(h.reshape(BATCH * 2, 4), w2, b2)
    return F.cross_entropy(logits, labels.reshape(BATCH * 2))


def train(root, steps):
    """PyTorch's f32 losses of the first `steps` steps and the parameters
    after them."""
    params = [torch.tensor(np.load(os.path.join(root, "init", "arg%d.npy" % i)),
                           requires_grad=True) for i in range(4)]
    optimizer = torch.optim.SGD(params, lr=LR)
    x = torch.tensor(np.load(os.path.join(root, "data", "arg4.npy")))
    labels = torch.tensor(np.load(os.path.join(root, "data", "arg5.npy")))
    losses = []
    for t in range(steps):
        rows = slice(t * BATCH, (t + 1) * BATCH)
        optimizer.zero_grad()
        loss = forward(params, x[rows], labels[rows])
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses, [p.detach().numpy() for p in params]


def check_loss(root, steps, path, rtol):
    run = json.load(open(path))
    failures = 0
    for t, want in enumerate(train(root, steps)[0]):
        got = run["steps"][t]["loss"]
        ok = abs(got - want) <= rtol * abs(want)
        failures += not ok
        print("step %d loss mp-run %.7f torch f32 %.7f %s"
              % (t + 1, got, want, "ok" if ok else "MISMATCH"))
    print("LOSSES %s" % ("MATCH" if failures == 0 else "DIFFER"))


def check(root, steps):
    run = json.load(open(os.path.join(root, "run.json")))
    losses, params = train(root, steps)
    failures = 0
    for t, want in enumerate(losses):
        got = run["steps"][t]["loss"]
        ok = abs(got - want) <= 1e-5 * abs(want)
        failures += not ok
        print("step %d loss mp-run %.7f torch %.7f %s"
              % (t + 1, got, want, "ok" if ok else "MISMATCH"))
    for i, p in enumerate(params):
        saved = np.load(os.path.join(root, "final", "arg%d.npy" % i))
        error = np.abs(saved - p).max()
        ok = saved.dtype == np.float32 and error <= 1e-6
        failures += not ok
        print("param %d max abs difference %.3g %s"
              % (i, error, "ok" if ok else "MISMATCH"))
    print("REFERENCE %s" % ("MATCHES" if failures == 0 else "DIFFERS"))


if __name__ == "__main__":
    if sys.argv[1] == "make-inputs":
        make_inputs(sys.argv[2])
    elif sys.argv[1] == "check-loss":
        check_loss(sys.argv[2], int(sys.argv[3]), sys.argv[4], float(sys.argv[5]))
    else:
        check(sys.argv[2], int(sys.argv[3]))
