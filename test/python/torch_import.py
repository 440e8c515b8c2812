# mixedprec.torch.import_train_step: torch modules, losses and optimizers as
# mp train steps, trained with mixedprec.run (mp-run) from the module's own
# initial weights on the same batches as PyTorch. FP32 losses agree within
# 1e-5 relative for 5 steps and the final parameters within 1e-4 of each
# tensor's largest magnitude. Covered: param groups, nesterov, weight decay,
# dampening, maximize, amsgrad, CosineAnnealingLR and SequentialLR(LinearLR,
# StepLR) imported from torch's scheduler objects, cross entropy with
# label_smoothing and ignore_index, NLLLoss, a traced loss, batch norm with
# max pooling, relu6 and hardswish, tied embeddings and attention.
# REQUIRES: torch
# RUN: %python %s | FileCheck %s

import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import mixedprec
import mixedprec.torch as mpt

STEPS = 5
# SequentialLR steps its schedulers with an epoch argument, which warns.
warnings.filterwarnings("ignore", category=UserWarning)


def torch_losses(model, optimizer, loss_fn, batches, scheduler=None):
    losses = []
    for x, y in batches:
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        losses.append(loss.item())
    return losses


def check(name, make_model, make_optimizer, loss_fn, x_fn, y_fn, batch=8, torch_loss=None,
          make_scheduler=None):
    torch.manual_seed(0)
    model = make_model()
    xs = x_fn(STEPS * batch)
    ys = y_fn(STEPS * batch)
    optimizer = make_optimizer(model)
    step = mpt.import_train_step(model, xs[:batch], ys[:batch], loss_fn, optimizer,
                                 make_scheduler(optimizer) if make_scheduler else None)
    initial = [a.value.numpy() for a in step.arguments if a.role == "param"]
    result = mixedprec.run(step.mlir, STEPS, data=[xs.numpy(), ys.numpy()],
                           params=initial, shuffle=False)
    reference = model
    optimizer = make_optimizer(reference)
    scheduler = make_scheduler(optimizer) if make_scheduler else None
    batches = [(xs[i * batch:(i + 1) * batch], ys[i * batch:(i + 1) * batch])
               for i in range(STEPS)]
    want = torch_losses(reference, optimizer, torch_loss or loss_fn, batches, scheduler)
    loss_error = max(abs(a - b) / abs(b) for a, b in zip(result.losses, want))
    final = dict(reference.named_parameters())
    param_error = max(
        np.max(np.abs(got - final[n].detach().numpy())) /
        max(np.max(np.abs(final[n].detach().numpy())), 1e-30)
        for n, got in zip(step.param_names, result.params))
    ok = loss_error <= 1e-5 and param_error <= 1e-4
    print(f"{name}: {'ok' if ok else 'FAIL'} losses {loss_error:.1e} params {param_error:.1e}")


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
        self.conv2 = nn.Conv2d(4, 8, 3, stride=2, padding=1, bias=False)
        self.head = nn.Linear(8 * 4 * 4, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = torch.tanh(self.conv2(x))
        return self.head(torch.flatten(x, 1))


class TinyDecoder(nn.Module):
    """Tied embedding, layer norm, causal attention written with matmul and an
    additive mask buffer (a constant), GELU MLP."""

    def __init__(self, vocab=16, d=8, t=6):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.ln = nn.LayerNorm(d)
        # No bias: the key bias has no gradient (softmax is shift invariant),
        # and Adam scales its rounding noise up to ±lr (docs/PyTorch.md).
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.mlp = nn.Linear(d, d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.head.weight = self.wte.weight
        mask = torch.full((t, t), float("-inf")).triu(1)
        self.register_buffer("mask", mask)
        self.d = d

    def forward(self, ids):
        x = self.wte(ids)
        q, k, v = self.qkv(self.ln(x)).split(self.d, dim=2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / self.d ** 0.5) + self.mask
        x = x + att.softmax(-1) @ v
        x = x + F.gelu(self.mlp(x), approximate="tanh")
        return self.head(x)


mlp = lambda: nn.Sequential(nn.Flatten(), nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 3))  # noqa: E731
labels = lambda classes, *shape: lambda n: torch.randint(0, classes, (n,) + shape)  # noqa: E731
normal = lambda *shape: lambda n: torch.randn((n,) + shape)  # noqa: E731

# CHECK: mlp adam: ok
check("mlp adam", mlp, lambda m: torch.optim.Adam(m.parameters(), lr=1e-2),
      nn.CrossEntropyLoss(), normal(3, 4), labels(3))
# CHECK: mlp sgd param groups: ok
check("mlp sgd param groups", mlp,
      lambda m: torch.optim.SGD([{"params": m[1].parameters(), "weight_decay": 1e-2},
                                 {"params": m[3].parameters(), "lr": 0.05}],
                                lr=0.1, momentum=0.9, nesterov=True),
      nn.CrossEntropyLoss(), normal(3, 4), labels(3))
# CHECK: mlp mse adamw: ok
check("mlp mse adamw", mlp, lambda m: torch.optim.AdamW(m.parameters(), lr=1e-2),
      nn.MSELoss(), normal(12), normal(3))
# CHECK: cnn sgd: ok
check("cnn sgd", SmallCNN, lambda m: torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9),
      nn.CrossEntropyLoss(), normal(1, 8, 8), labels(10))
# CHECK: traced loss: ok
check("traced loss", mlp, lambda m: torch.optim.SGD(m.parameters(), lr=0.1),
      lambda out, y: ((out - y) ** 2).mean(), normal(12), normal(3))
# CHECK: tiny decoder adamw: ok
check("tiny decoder adamw", TinyDecoder,
      lambda m: torch.optim.AdamW(m.parameters(), lr=1e-2, weight_decay=0.1),
      nn.CrossEntropyLoss(), labels(16, 6), labels(16, 6), batch=2,
      # A language-model loss: logits [B, T, V] against targets [B, T]
      # are flattened to [B·T, V] and [B·T].
      torch_loss=lambda out, y: F.cross_entropy(out.flatten(0, 1), y.flatten()))


class BNPool(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(3, 2, 1)
        self.head = nn.Linear(4 * 4 * 4, 10)

    def forward(self, x):
        x = self.pool(F.relu6(self.bn(self.conv(x))))
        return self.head(F.hardswish(torch.flatten(x, 1)))


# CHECK: batch norm, pooling, cosine schedule: ok
check("batch norm, pooling, cosine schedule", BNPool,
      lambda m: torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9, dampening=0.1,
                                weight_decay=1e-4),
      nn.CrossEntropyLoss(label_smoothing=0.1), normal(1, 8, 8), labels(10),
      make_scheduler=lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=4))
# CHECK: warmup and cosine, amsgrad, ignore_index: ok
check("warmup and cosine, amsgrad, ignore_index", mlp,
      lambda m: torch.optim.Adam(m.parameters(), lr=1e-2, amsgrad=True),
      nn.CrossEntropyLoss(ignore_index=1), normal(12), labels(3),
      make_scheduler=lambda o: torch.optim.lr_scheduler.SequentialLR(
          o, [torch.optim.lr_scheduler.LinearLR(o, start_factor=0.1, total_iters=2),
              torch.optim.lr_scheduler.StepLR(o, step_size=2, gamma=0.5)], milestones=[2]))
# CHECK: nll loss, maximize: ok
check("nll loss, maximize",
      lambda: nn.Sequential(nn.Linear(12, 3), nn.LogSoftmax(dim=1)),
      lambda m: torch.optim.SGD(m.parameters(), lr=0.1, maximize=True), nn.NLLLoss(),
      normal(12), labels(3))
