#!/usr/bin/env python3
"""A small conv net with batch norm trained by mp-run and by PyTorch from the
same initial weights and batches.

The model is one list of layers, LAYERS: each layer class writes its part of
the mp train step (forward ops, parameters, forward state) and builds the
equivalent torch.nn module, so a layer (max pooling, dropout, ...) is added
in one place for both sides.

  make DIR [--overflow-step K] [--steps N]
      writes DIR/model.mlir (@train_step: forward, cross entropy, mp.grad,
      SGD; @predict: the eval-mode classifier taking the parameters and the
      batch-norm running statistics), DIR/init/argN.npy (the parameters),
      DIR/data/argN.npy (the samples of each data argument: N batches, 20
      by default, drawn in file order by --shuffle=false; the label is the
      argmax of fixed random projections of the image, a learnable task)
      and DIR/data/eval_{inputs,labels}.npy. With --overflow-step K the
      logits are multiplied by a data argument `boost` that is 1 except at
      step K, where it is 1e30 (the f16 logits overflow, as in
      numerics-dynamic-loss-scaling.mlir).
  check DIR RUN.json FINAL_DIR [--amp --overflow-step K]
      replays the training in PyTorch (torch.nn modules, torch.optim.SGD,
      model.train(); then model.eval() for the accuracy) and compares the
      losses (relative 1e-5; measured over 20 steps ≤ 2.2e-7), the final
      parameters (relative 1e-5, absolute 1e-6; measured ≤ 1.2e-7), the
      batch-norm running statistics (relative 1e-6, absolute 1e-6; measured
      ≤ 5.1e-7 absolute: the batch means and variances are sums of
      8·28·28 = 6272 terms, which mp-cpu-pipeline adds in order, the scalar
      loops' order even when vectorised, while PyTorch adds them in blocks),
      num_batches_tracked
      exactly, and the number of correctly classified eval samples exactly.
      With --amp (FP16 autocast, dynamic loss scaling) step K is replayed as
      GradScaler does: the forward runs (running statistics and
      num_batches_tracked advance), the optimizer step is skipped; mp-run
      must report it skipped with every parameter bit-identical, the rest is
      compared with FP16 bounds (relative 1e-3 for losses; parameters
      relative 1e-2, absolute 5e-3; statistics relative 1e-2, absolute 2e-3;
      measured over 6 steps: ≤ 2.2e-4 relative on the losses, ≤ 2.8e-3
      absolute on the conv weights, ≤ 1.2e-3 on the statistics: FP16
      convolutions and linears against PyTorch's f32 training, which drift
      further apart over more steps, so that test runs 6), and the final
      statistics must differ (beyond those bounds; measured 2.3e-2) from
      those of a replay in which step K's forward is not counted, as
      mp-loss-scaling reverting them would give.

--fashion-mnist (with make and check) trains on the first images of
Fashion-MNIST (1x28x28) instead of the synthetic 1x8x8 task.

Adding a layer: a class with `emit(builder, x, shape, training)` (appends
its mp ops, declares its parameters with `builder.param` and its forward
state with `builder.state`, returns the result and its shape) and
`torch(shape)` (the equivalent module; its parameters in the order `emit`
declares them), then an entry in LAYERS.
"""

import copy
import gzip
import json
import os
import sys

import numpy as np
import torch

BATCH = 8
STEPS = 20
CLASSES = 10
IMAGE = (1, 8, 8)
LR = 0.1
# Fashion-MNIST: a step size at which 20 steps train smoothly (at 0.1 the
# loss jumps to 11 at step 2 and rounding differences grow).
LR_FASHION_MNIST = 0.02
EVAL_SAMPLES = 64


class Builder:
    """Accumulates the mp train step: arguments, forward ops, names."""

    def __init__(self):
        self.params = []   # (name, shape)
        self.states = []   # (name, shape, element, kind)
        self.lines = []
        self.counter = 0

    def fresh(self, stem):
        self.counter += 1
        return f'%{stem}{self.counter}'

    def param(self, stem, shape):
        name = f'%{stem}{len(self.params)}'
        self.params.append((name, shape))
        return name

    def state(self, stem, shape, element, kind):
        name = f'%{stem}{len(self.states)}'
        self.states.append((name, shape, element, kind))
        return name


def ttype(shape, element='f32'):
    return 'tensor<' + ''.join(f'{d}x' for d in shape) + element + '>'


class Conv2d:
    def __init__(self, out_channels, kernel, padding):
        self.out, self.k, self.pad = out_channels, kernel, padding

    def emit(self, b, x, shape, training):
        n, c, h, w = shape
        filt = b.param('conv_w', (self.out, c, self.k, self.k))
        bias = b.param('conv_b', (self.out,))
        oh, ow = h + 2 * self.pad - self.k + 1, w + 2 * self.pad - self.k + 1
        out_shape = (n, self.out, oh, ow)
        y = b.fresh('conv')
        b.lines.append(
            f'{y} = mp.conv2d {x}, {filt}, {bias} acc(f32) '
            f'{{padding = array<i64: {self.pad}, {self.pad}>}} : '
            f'({ttype(shape)}, {ttype((self.out, c, self.k, self.k))}, '
            f'{ttype((self.out,))}) -> {ttype(out_shape)}')
        return y, out_shape

    def torch(self, shape):
        return torch.nn.Conv2d(shape[1], self.out, self.k, padding=self.pad)


class BatchNorm:
    def __init__(self, momentum=0.1, eps=1e-5):
        self.momentum, self.eps = momentum, eps

    def emit(self, b, x, shape, training):
        c = shape[1]
        weight = b.param('bn_w', (c,))
        bias = b.param('bn_b', (c,))
        rm = b.state('rm', (c,), 'f32', 'bn.running_mean')
        rv = b.state('rv', (c,), 'f32', 'bn.running_var')
        count = b.state('nbt', (), 'i64', 'bn.num_batches_tracked')
        y = b.fresh('bn')
        s = ttype((c,))
        mode = 'training' if training else 'eval'
        b.lines.append(
            f'{y}, {rm}_new, {rv}_new, {count}_new = mp.batch_norm {x} '
            f'weight {weight} bias {bias} stats({rm}, {rv}, {count}) {mode} '
            f'eps {self.eps:.6e} momentum {self.momentum:.6e} : ({ttype(shape)}, '
            f'{s}, {s}, {s}, {s}, tensor<i64>) -> ({ttype(shape)}, {s}, {s}, '
            f'tensor<i64>)')
        return y, shape

    def torch(self, shape):
        return torch.nn.BatchNorm2d(shape[1], eps=self.eps,
                                    momentum=self.momentum)


class ReLU:
    def emit(self, b, x, shape, training):
        y = b.fresh('relu')
        b.lines.append(f'{y} = mp.relu {x} : {ttype(shape)}')
        return y, shape

    def torch(self, shape):
        return torch.nn.ReLU()


class MaxPool2d:
    def __init__(self, kernel, stride, padding):
        self.k, self.stride, self.pad = kernel, stride, padding

    def emit(self, b, x, shape, training):
        n, c, h, w = shape
        size = lambda d: (d + 2 * self.pad - self.k) // self.stride + 1  # noqa: E731
        out = (n, c, size(h), size(w))
        y = b.fresh('pool')
        b.lines.append(
            f'{y} = mp.max_pool2d {x} kernel [{self.k}, {self.k}] stride '
            f'[{self.stride}, {self.stride}] padding [{self.pad}, {self.pad}] : '
            f'{ttype(shape)}')
        return y, out

    def torch(self, shape):
        return torch.nn.MaxPool2d(self.k, self.stride, self.pad)


class Dropout:
    """mp.dropout on the step's rng state (forward state with no torch
    counterpart); p = 0 for the exact comparison (the identity, folded)."""

    def __init__(self, p):
        self.p = p

    def emit(self, b, x, shape, training):
        if not training:
            return x, shape
        rng = b.state('rng', (2,), 'i64', 'rng')
        y = b.fresh('drop')
        b.lines.append(f'{y}, {rng}_new = mp.dropout {x}, {rng} p({self.p!r}) : '
                       f'{ttype(shape)}')
        return y, shape

    def torch(self, shape):
        return torch.nn.Dropout(self.p)


class Flatten:
    def emit(self, b, x, shape, training):
        out = (shape[0], int(np.prod(shape[1:])))
        y = b.fresh('flat')
        b.lines.append(f'{y} = mp.reshape {x} : {ttype(shape)} to {ttype(out)}')
        return y, out

    def torch(self, shape):
        return torch.nn.Flatten()


class Linear:
    def __init__(self, out_features):
        self.out = out_features

    def emit(self, b, x, shape, training):
        weight = b.param('fc_w', (self.out, shape[1]))
        bias = b.param('fc_b', (self.out,))
        out = (shape[0], self.out)
        y = b.fresh('fc')
        b.lines.append(
            f'{y} = mp.linear {x}, {weight}, {bias} acc(f32) : ({ttype(shape)}, '
            f'{ttype((self.out, shape[1]))}, {ttype((self.out,))}) -> '
            f'{ttype(out)}')
        return y, out

    def torch(self, shape):
        return torch.nn.Linear(shape[1], self.out)


# The model. Layers are added here (both sides follow).
LAYERS = [Conv2d(4, 3, 1), BatchNorm(), ReLU(), MaxPool2d(3, 2, 1), Dropout(0.0),
          Flatten(), Linear(CLASSES)]


def trace(training):
    """Emits the forward of LAYERS; returns the builder, the logits and the
    shape at each layer's input."""
    b = Builder()
    x, shape = '%x', (BATCH,) + IMAGE
    shapes = []
    for layer in LAYERS:
        shapes.append(shape)
        x, shape = layer.emit(b, x, shape, training)
    return b, x, shapes


def train_step(overflow):
    b, logits, _ = trace(training=True)
    args = [f'{n}: {ttype(s)} {{mp.param}}' for n, s in b.params]
    args += [f'{n}: {ttype(s, e)} {{mp.state = "{k}"}}' for n, s, e, k in b.states]
    args += [f'%x: {ttype((BATCH,) + IMAGE)}', f'%labels: {ttype((BATCH,), "i64")}']
    body = list(b.lines)
    logit_type = ttype((BATCH, CLASSES))
    if overflow:
        args.append(f'%boost: {ttype((BATCH, 1))}')
        body.append(f'%boosted = mp.mul {logits}, %boost : {logit_type}, '
                    f'{ttype((BATCH, 1))}')
        logits = '%boosted'
    body.append(f'%loss = mp.cross_entropy {logits}, %labels : {logit_type}, '
                f'{ttype((BATCH,), "i64")}')
    grads = [f'%d{n[1:]}' for n, _ in b.params]
    body.append(f'{", ".join(grads)} = mp.grad %loss wrt '
                f'{", ".join(n for n, _ in b.params)} : tensor<f32>, '
                f'{", ".join(ttype(s) for _, s in b.params)}')
    results, values = ['tensor<f32> {mp.loss}'], ['%loss']
    for i, ((n, s), g) in enumerate(zip(b.params, grads)):
        body.append(f'{n}_new = mp.sgd {n}, {g} {{lr = {LR!r} : f64}} : {ttype(s)}')
        results.append(f'{ttype(s)} {{mp.updates = {i} : i64}}')
        values.append(f'{n}_new')
    for j, (n, s, e, _) in enumerate(b.states):
        results.append(f'{ttype(s, e)} {{mp.updates = {len(b.params) + j} : i64}}')
        values.append(f'{n}_new')
    types = [r.split(' {')[0] for r in results]
    body.append(f'return {", ".join(values)} : {", ".join(types)}')
    return ('func.func @train_step(\n    ' + ',\n    '.join(args) + ')\n    -> ('
            + ',\n        '.join(results) + ') {\n  ' + '\n  '.join(body) + '\n}\n')


def predict():
    b, logits, _ = trace(training=False)
    args = [f'{n}: {ttype(s)} {{mp.param}}' for n, s in b.params]
    args += [f'{n}: {ttype(s, e)} {{mp.state = "{k}"}}' for n, s, e, k in b.states]
    args.append(f'%x: {ttype((BATCH,) + IMAGE)}')
    logit_type = ttype((BATCH, CLASSES))
    return ('func.func @predict(\n    ' + ',\n    '.join(args) + ') -> '
            + logit_type + ' {\n  ' + '\n  '.join(b.lines)
            + f'\n  return {logits} : {logit_type}\n}}\n')


def torch_model():
    _, _, shapes = trace(training=True)
    return torch.nn.Sequential(*[layer.torch(shape)
                                 for layer, shape in zip(LAYERS, shapes)])


def torch_params(model):
    """The model's parameters in the order of the mp train step's."""
    return [p for p in model.parameters()]


def torch_stats(model):
    """The batch-norm buffers in the order of the mp state arguments (None
    for the rng state of a dropout, which torch has no buffer for)."""
    out = []
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            out += [m.running_mean, m.running_var, m.num_batches_tracked]
        elif isinstance(m, torch.nn.Dropout):
            out.append(None)
    return out


FASHION_MNIST = False
DATA_DIR = '/usr/share/datasets/fashion-mnist'


def fashion_mnist(split, n):
    """The first n images of a Fashion-MNIST split (Debian
    dataset-fashion-mnist), [n, 1, 28, 28] in [0, 1], and their labels."""
    def read(name):
        path = os.path.join(DATA_DIR, name)
        opener = gzip.open if os.path.exists(path + '.gz') else open
        with opener(path + '.gz' if os.path.exists(path + '.gz') else path, 'rb') as f:
            data = f.read()
        dims = data[3]
        shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], 'big') for i in range(dims)]
        return np.frombuffer(data, np.uint8, offset=4 + 4 * dims).reshape(shape)
    images = read(f'{split}-images-idx3-ubyte')[:n].astype(np.float32) / 255
    labels = read(f'{split}-labels-idx1-ubyte')[:n].astype(np.int64)
    return images.reshape(n, 1, 28, 28), labels


def make(d, overflow_step, steps):
    os.makedirs(os.path.join(d, 'init'), exist_ok=True)
    os.makedirs(os.path.join(d, 'data'), exist_ok=True)
    with open(os.path.join(d, 'model.mlir'), 'w') as f:
        f.write('// Generated by bn_train.py from LAYERS.\n')
        f.write(train_step(overflow_step is not None))
        f.write(predict())
    torch.manual_seed(0)
    model = torch_model()
    params = torch_params(model)
    for i, p in enumerate(params):
        np.save(os.path.join(d, 'init', f'arg{i}.npy'), p.detach().numpy())
    first_data = len(params) + len(torch_stats(model))
    rng = np.random.default_rng(1)
    n = BATCH * steps
    # A learnable task: the label is the argmax of fixed random projections
    # of the image.
    projection = rng.standard_normal((CLASSES, int(np.prod(IMAGE))))

    def labels(images):
        return np.argmax(images.reshape(len(images), -1) @ projection.T,
                         axis=1).astype(np.int64)
    if FASHION_MNIST:
        x, y = fashion_mnist('train', n)
    else:
        x = (rng.standard_normal((n,) + IMAGE) * 2 + 0.5).astype(np.float32)
        y = labels(x)
    np.save(os.path.join(d, 'data', f'arg{first_data}.npy'), x)
    np.save(os.path.join(d, 'data', f'arg{first_data + 1}.npy'), y)
    if overflow_step is not None:
        boost = np.ones((n, 1), np.float32)
        boost[(overflow_step - 1) * BATCH:overflow_step * BATCH] = 1e30
        np.save(os.path.join(d, 'data', f'arg{first_data + 2}.npy'), boost)
    if FASHION_MNIST:
        ex, ey = fashion_mnist('t10k', EVAL_SAMPLES)
    else:
        ex = (rng.standard_normal((EVAL_SAMPLES,) + IMAGE) * 2 + 0.5).astype(np.float32)
        ey = labels(ex)
    np.save(os.path.join(d, 'data', 'eval_inputs.npy'), ex)
    np.save(os.path.join(d, 'data', 'eval_labels.npy'), ey)


def close(got, want, rtol, atol):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    err = np.abs(got - want)
    return bool(np.all(err <= atol + rtol * np.abs(want))), float(err.max())


def check(d, run_json, final_dir, amp, overflow_step):
    torch.manual_seed(0)
    model = torch_model()
    params = torch_params(model)
    for i, p in enumerate(params):
        p.data = torch.from_numpy(np.load(os.path.join(d, 'init', f'arg{i}.npy')))
    first_data = len(params) + len(torch_stats(model))
    x = torch.from_numpy(np.load(os.path.join(d, 'data', f'arg{first_data}.npy')))
    y = torch.from_numpy(np.load(os.path.join(d, 'data', f'arg{first_data + 1}.npy')))
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    run = json.load(open(run_json))
    steps = run['steps']
    ok = True
    loss_rtol = 1e-3 if amp else 1e-5
    param_tol = (1e-2, 5e-3) if amp else (1e-5, 1e-6)
    stat_tol = (1e-2, 2e-3) if amp else (1e-6, 1e-6)
    model.train()
    # `reverted`: the model had the overflow step been reverted (its forward
    # not counted in the statistics), run from then on with the parameters
    # of `model`: the check must tell the two apart.
    reverted = None
    for step in range(1, len(steps) + 1):
        batch = slice((step - 1) * BATCH, step * BATCH)
        optimizer.zero_grad()
        if amp and step == overflow_step:
            reverted = copy.deepcopy(model)
        elif reverted is not None:
            for shadow, p in zip(reverted.parameters(), model.parameters()):
                shadow.data = p.detach().clone()
            with torch.no_grad():
                reverted(x[batch])
        logits = model(x[batch])
        record = steps[step - 1]
        if amp and step == overflow_step:
            # GradScaler: the scaled gradients are not finite, the step is
            # skipped; the forward (and the running statistics) ran.
            good = record['skipped'] and record['unchanged']
            print(f'step {step} skipped {record["skipped"]} unchanged '
                  f'{record["unchanged"]} {"ok" if good else "MISMATCH"}')
            ok &= good
            continue
        loss = torch.nn.functional.cross_entropy(logits, y[batch])
        loss.backward()
        optimizer.step()
        good, err = close(record['loss'], loss.item(), loss_rtol, 0.0)
        good &= not record['skipped']
        print(f'step {step} loss {record["loss"]:.7g} (torch {loss.item():.7g}, '
              f'relative error {err / abs(loss.item()):.2g}) '
              f'{"ok" if good else "MISMATCH"}')
        ok &= good
    for i, p in enumerate(params):
        got = np.load(os.path.join(final_dir, f'arg{i}.npy'))
        good, err = close(got, p.detach().numpy(), *param_tol)
        print(f'param {i} max error {err:.3g} {"ok" if good else "MISMATCH"}')
        ok &= good
    for j, s in enumerate(torch_stats(model)):
        if s is None:
            continue
        got = np.load(os.path.join(final_dir, f'arg{len(params) + j}.npy'))
        if s.dtype == torch.int64:
            good, err = bool(np.all(got == s.numpy())), 0.0
            print(f'state {j} {got} (torch {s.numpy()}) {"ok" if good else "MISMATCH"}')
        else:
            good, err = close(got, s.numpy(), *stat_tol)
            print(f'state {j} max error {err:.3g} {"ok" if good else "MISMATCH"}')
        ok &= good
    if reverted is not None:
        for j, s in enumerate(torch_stats(reverted)):
            if s is None:
                continue
            got = np.load(os.path.join(final_dir, f'arg{len(params) + j}.npy'))
            same, err = close(got, s.detach().numpy(), *stat_tol)
            print(f'state {j} if step {overflow_step} were reverted: max error '
                  f'{err:.3g} {"MISMATCH (indistinguishable)" if same else "ok"}')
            ok &= not same
    if 'eval' in run:
        model.eval()
        ex = torch.from_numpy(np.load(os.path.join(d, 'data', 'eval_inputs.npy')))
        ey = torch.from_numpy(np.load(os.path.join(d, 'data', 'eval_labels.npy')))
        with torch.no_grad():
            correct = int((model(ex).argmax(1) == ey).sum())
        got = run['eval']['correct']
        good = got == correct or amp
        print(f'eval correct {got} (torch {correct}) {"ok" if good else "MISMATCH"}')
        ok &= good
    print('REFERENCE MATCHES' if ok else 'REFERENCE DIFFERS')
    sys.exit(0 if ok else 1)


def main():
    global FASHION_MNIST, IMAGE, LR
    mode, d = sys.argv[1], sys.argv[2]
    if '--fashion-mnist' in sys.argv:
        FASHION_MNIST, IMAGE, LR = True, (1, 28, 28), LR_FASHION_MNIST
    overflow = None
    if '--overflow-step' in sys.argv:
        overflow = int(sys.argv[sys.argv.index('--overflow-step') + 1])
    steps = STEPS
    if '--steps' in sys.argv:
        steps = int(sys.argv[sys.argv.index('--steps') + 1])
    if mode == 'make':
        make(d, overflow, steps)
    else:
        check(d, sys.argv[3], sys.argv[4], '--amp' in sys.argv, overflow)


if __name__ == '__main__':
    main()
