"""NumPy reference of the MLP train step of mlp_classifier.mlir.

    mlp_reference.py make-inputs DIR   writes DIR/init/argN.npy (parameters,
                                       PyTorch-style uniform init) and
                                       DIR/data/arg13.npy, arg14.npy (3
                                       batches of inputs and labels)
    mlp_reference.py check DIR STEPS   runs STEPS steps in float32 NumPy and
                                       compares the losses in DIR/run.json and
                                       the parameters in DIR/final/ with them

The reference is written the way PyTorch computes the step (F.linear,
F.relu, F.cross_entropy, torch.optim.Adam), all in float32.
"""

import json
import os
import sys

import numpy as np

BATCH, IN, HIDDEN, OUT = 64, 784, 256, 10
LR, BETA1, BETA2, EPS = 1e-3, 0.9, 0.999, 1e-8
PARAM_SHAPES = [(HIDDEN, IN), (HIDDEN,), (OUT, HIDDEN), (OUT,)]


def make_inputs(root):
    rng = np.random.default_rng(7)
    os.makedirs(os.path.join(root, "init"), exist_ok=True)
    os.makedirs(os.path.join(root, "data"), exist_ok=True)
    fan_in = [IN, IN, HIDDEN, HIDDEN]
    for i, (shape, fan) in enumerate(zip(PARAM_SHAPES, fan_in)):
        bound = 1 / np.sqrt(fan)
        value = rng.uniform(-bound, bound, shape).astype(np.float32)
        np.save(os.path.join(root, "init", "arg%d.npy" % i), value)
    x = rng.uniform(0, 1, (3 * BATCH, IN)).astype(np.float32)
    labels = rng.integers(0, OUT, 3 * BATCH).astype(np.int64)
    np.save(os.path.join(root, "data", "arg13.npy"), x)
    np.save(os.path.join(root, "data", "arg14.npy"), labels)


def step(params, state, t, x, labels):
    w1, b1, w2, b2 = params
    h_pre = x @ w1.T + b1
    h = np.maximum(h_pre, np.float32(0))
    logits = h @ w2.T + b2
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_softmax = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    loss = -log_softmax[np.arange(BATCH), labels].mean()

    softmax = np.exp(log_softmax)
    onehot = np.zeros_like(softmax)
    onehot[np.arange(BATCH), labels] = 1
    dlogits = (softmax - onehot) / np.float32(BATCH)
    dw2 = dlogits.T @ h
    db2 = dlogits.sum(axis=0)
    dh_pre = (dlogits @ w2) * (h_pre > 0)
    dw1 = dh_pre.T @ x
    db1 = dh_pre.sum(axis=0)

    new_params, new_state = [], []
    for p, g, (m, v) in zip(params, [dw1, db1, dw2, db2], state):
        m = np.float32(BETA1) * m + np.float32(1 - BETA1) * g
        v = np.float32(BETA2) * v + np.float32(1 - BETA2) * g * g
        m_hat = m / np.float32(1 - BETA1 ** t)
        v_hat = v / np.float32(1 - BETA2 ** t)
        p = p - np.float32(LR) * m_hat / (np.sqrt(v_hat) + np.float32(EPS))
        new_params.append(p.astype(np.float32))
        new_state.append((m, v))
    return float(loss), new_params, new_state


def check(root, steps):
    params = [np.load(os.path.join(root, "init", "arg%d.npy" % i))
              for i in range(4)]
    state = [(np.zeros_like(p), np.zeros_like(p)) for p in params]
    x = np.load(os.path.join(root, "data", "arg13.npy"))
    labels = np.load(os.path.join(root, "data", "arg14.npy"))
    run = json.load(open(os.path.join(root, "run.json")))
    failures = 0
    for t in range(1, steps + 1):
        rows = slice((t - 1) * BATCH, t * BATCH)
        loss, params, state = step(params, state, t, x[rows], labels[rows])
        got = run["steps"][t - 1]["loss"]
        ok = abs(got - loss) <= 1e-5 * abs(loss)
        failures += not ok
        print("step %d loss mp-run %.7f numpy %.7f %s"
              % (t, got, loss, "ok" if ok else "MISMATCH"))
    # Adam's first updates are lr * g / (|g| + eps): where a gradient
    # element is a sum that nearly cancels, a different summation order
    # (BLAS versus mp-run's tiles) changes it relatively much, and the
    # update by a fraction of lr. Parameters must agree to 1% of lr.
    for i, p in enumerate(params):
        saved = np.load(os.path.join(root, "final", "arg%d.npy" % i))
        error = np.abs(saved - p).max()
        ok = saved.dtype == np.float32 and error <= 0.01 * LR
        failures += not ok
        print("param %d max abs difference %.3g %s"
              % (i, error, "ok" if ok else "MISMATCH"))
    print("REFERENCE %s" % ("MATCHES" if failures == 0 else "DIFFERS"))


if __name__ == "__main__":
    if sys.argv[1] == "make-inputs":
        make_inputs(sys.argv[2])
    else:
        check(sys.argv[2], int(sys.argv[3]))
