# mixedprec.torch.Trainer: an imported step compiled once and trained in
# process (the C API's engine). FP32 against PyTorch on the same batches:
# losses within 1e-5 relative, parameters within 1e-4 of each tensor's largest
# magnitude; state_dict() loads into the torch module, whose eval predictions
# then equal trainer.predict(); a step leaves no cyclic garbage;
# optimizer_state_dict() loads into the torch optimizer and training goes on
# there as it would have; an optimizer that has stepped before the import goes
# on in the Trainer, with a frozen (requires_grad=False) parameter; BF16 and
# FP16 AMP (loss scale reported) train to within 2e-2 of the FP32 losses;
# batch-norm running statistics updated in process like PyTorch's;
# load_state_dict like torch.nn.Module's (a BF16 step after it equals one
# imported from the loaded model, bit for bit); the same bits on 1 and 2
# threads, and all cores by default. Errors: wrong batch shapes, unsupported
# modules.
# REQUIRES: torch
# RUN: %python %s | FileCheck %s

import copy
import gc
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

import mixedprec.torch as mpt

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.fc = nn.Linear(4 * 6 * 6, 5)

    def forward(self, x):
        return self.fc(torch.flatten(F.relu(self.conv(x)), 1))


model = Net()
reference = copy.deepcopy(model)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-3)
ref_optimizer = torch.optim.SGD(reference.parameters(), lr=0.05, momentum=0.9,
                                weight_decay=1e-3)
loss_fn = nn.CrossEntropyLoss()
xs = torch.randn(10, 8, 1, 6, 6)
ys = torch.randint(0, 5, (10, 8))

def torch_step(module, opt, x, y):
    """One PyTorch train step; returns the loss."""
    opt.zero_grad()
    loss = loss_fn(module(x), y)
    loss.backward()
    opt.step()
    return loss.item()


step = mpt.import_train_step(model, xs[0], ys[0], loss_fn, optimizer)
trainer = mpt.Trainer(step)
worst = 0.0
for x, y in zip(xs, ys):
    out = trainer.step(x, y)
    loss = torch_step(reference, ref_optimizer, x, y)
    worst = max(worst, abs(out["loss"] - loss) / abs(loss))
    assert out["skipped"] is False and out["loss_scale"] is None
# CHECK: fp32 losses: ok
print("fp32 losses:", "ok" if worst <= 1e-5 else f"FAIL {worst}")

# A step leaves no cyclic garbage (the collector's full passes cost tens of
# milliseconds in a torch process): the buffers swapped by feed_back keep
# their descriptors, and descriptor types are made once per rank.
garbage_free = mpt.Trainer(step)
garbage_free.step(xs[0], ys[0])
gc.collect()
gc.disable()
for x, y in zip(xs[:3], ys[:3]):
    garbage_free.step(x, y)
# CHECK: cyclic garbage of 3 steps: 0
print("cyclic garbage of 3 steps:", gc.collect())
gc.enable()

state = trainer.state_dict()
print("state keys:", list(state) == list(reference.state_dict()))
# CHECK: state keys: True
param_error = max(((state[k] - v).abs().max() / v.abs().max()).item()
                  for k, v in reference.state_dict().items())
# CHECK: fp32 params: ok
print("fp32 params:", "ok" if param_error <= 1e-4 else f"FAIL {param_error}")

loaded = Net()
loaded.load_state_dict(state)
loaded.eval()
x = xs[0]
diff = (loaded(x) - trainer.predict(x)).abs().max().item()
# CHECK: predict matches the loaded module: ok
print("predict matches the loaded module:", "ok" if diff <= 1e-5 else f"FAIL {diff}")

# The optimizer state goes back into torch: one more step there equals one
# more step of the reference.
resumed = torch.optim.SGD(loaded.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-3)
resumed.load_state_dict(trainer.optimizer_state_dict())
loaded.train()
for module, opt in ((loaded, resumed), (reference, ref_optimizer)):
    torch_step(module, opt, xs[1], ys[1])
resume_error = max((a - b).abs().max().item()
                   for a, b in zip(loaded.parameters(), reference.parameters()))
# CHECK: optimizer state resumes in torch: ok
print("optimizer state resumes in torch:", "ok" if resume_error <= 1e-5 else
      f"FAIL {resume_error}")

# load_state_dict, as torch.nn.Module's: the reference's state goes in bit
# for bit (and comes back out), strict key checks, shape checks, and nothing
# written on an error.
trainer.load_state_dict(reference.state_dict())
state = trainer.state_dict()
# CHECK: load_state_dict round trip: True
print("load_state_dict round trip:",
      all(torch.equal(state[k], v) for k, v in reference.state_dict().items()))
partial = {k: v for k, v in reference.state_dict().items() if k != "fc.bias"}
for bad in (partial, dict(reference.state_dict(), extra=torch.zeros(1)),
            dict(reference.state_dict(), **{"fc.weight": torch.zeros(5, 3)})):
    try:
        trainer.load_state_dict(bad)
    except RuntimeError as error:
        print("RuntimeError:", error)
# CHECK: RuntimeError: Error(s) in loading state_dict for Trainer:
# CHECK-NEXT: Missing key(s) in state_dict: "fc.bias".
# CHECK: RuntimeError: Error(s) in loading state_dict for Trainer:
# CHECK-NEXT: Unexpected key(s) in state_dict: "extra".
# CHECK: RuntimeError: Error(s) in loading state_dict for Trainer:
# CHECK-NEXT: size mismatch for fc.weight: copying a param with shape torch.Size([5, 3]) from checkpoint, the shape in current model is torch.Size([5, 144]).
print("after the errors:", all(torch.equal(trainer.state_dict()[k], v)
                               for k, v in reference.state_dict().items()))
# CHECK: after the errors: True
# CHECK: non-strict: ['fc.bias'] []
print("non-strict:", *trainer.load_state_dict(partial, strict=False))


# A buffer the forward only reads is a constant of the compiled step.
class Shifted(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.register_buffer("shift", torch.ones(3))

    def forward(self, x):
        return self.fc(x + self.shift)


shifted = Shifted()
shifted_trainer = mpt.Trainer(mpt.import_train_step(
    shifted, torch.randn(4, 3), torch.randint(0, 2, (4,)), loss_fn,
    torch.optim.SGD(shifted.parameters(), lr=0.1)), cpu_pipeline_options="vectorize=false")
shifted_trainer.load_state_dict(shifted.state_dict())
try:
    shifted_trainer.load_state_dict(dict(shifted.state_dict(), shift=torch.zeros(3)))
except RuntimeError as error:
    print("RuntimeError:", error)
# CHECK: RuntimeError: Error(s) in loading state_dict for Trainer:
# CHECK-NEXT: shift is a constant of the compiled step (a buffer its forward never writes) and cannot change: import the model with this value instead.


# BF16 AMP with stored bf16 working copies (master_weights="stored-copy",
# Apex O2): loading a model's weights refreshes the copies the step
# computes with, so that a step after it is the step of a Trainer imported
# from that model, bit for bit (stale copies give other losses).
def bf16_trainer(net):
    return mpt.Trainer(mpt.import_train_step(
        net, xs[0], ys[0], loss_fn, torch.optim.SGD(net.parameters(), lr=0.05)),
        compute_type="bf16", master_weights="stored-copy",
        cpu_pipeline_options="vectorize=false")


torch.manual_seed(3)
source, other = Net(), Net()
fresh, reloaded = bf16_trainer(source), bf16_trainer(other)
reloaded.load_state_dict(source.state_dict())
steps = [(fresh.step(x, y)["loss"], reloaded.step(x, y)["loss"]) for x, y in zip(xs[:2], ys[:2])]
# CHECK: bf16 after load_state_dict: True True
print("bf16 after load_state_dict:", all(a == b for a, b in steps),
      all(torch.equal(fresh.state_dict()[k], v) for k, v in reloaded.state_dict().items()))

# Mixed precision: same batches from the same initial weights.
def train(compute_type):
    torch.manual_seed(0)
    net = Net()
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-3)
    amp = mpt.Trainer(mpt.import_train_step(net, xs[0], ys[0], loss_fn, opt),
                      compute_type=compute_type)
    return [amp.step(x, y) for x, y in zip(xs, ys)]


fp32 = train("f32")
for compute_type in ("bf16", "f16"):
    outs = train(compute_type)
    gap = max(abs(a["loss"] - b["loss"]) for a, b in zip(outs, fp32))
    print(compute_type, "losses", "ok" if gap <= 2e-2 else f"FAIL {gap}",
          "scale", outs[-1]["loss_scale"])
# CHECK: bf16 losses ok scale None
# CHECK: f16 losses ok scale 65536.0

# An optimizer that has already stepped imports its state (Adam's moments
# and step count, SGD's momentum buffer and the dampening's step counter),
# and `requires_grad=False` parameters stay frozen: two steps in torch, then
# the Trainer goes on from there as torch does.
def resumed(make_optimizer):
    torch.manual_seed(0)
    net = Net()
    net.conv.weight.requires_grad_(False)
    opt = make_optimizer(net)
    for x, y in zip(xs[:2], ys[:2]):
        torch_step(net, opt, x, y)
    ref = copy.deepcopy(net)
    ref_opt = make_optimizer(ref)
    ref_opt.load_state_dict(opt.state_dict())
    run = mpt.Trainer(mpt.import_train_step(net, xs[2], ys[2], loss_fn, opt))
    losses = 0.0
    for x, y in zip(xs[2:6], ys[2:6]):
        out = run.step(x, y)
        loss = torch_step(ref, ref_opt, x, y)
        losses = max(losses, abs(out["loss"] - loss) / abs(loss))
    state = run.state_dict()
    params = max(((state[k] - v).abs().max() / v.abs().max()).item()
                 for k, v in ref.state_dict().items())
    frozen = torch.equal(state["conv.weight"], net.conv.weight)
    return "ok" if losses <= 1e-5 and params <= 1e-4 else f"FAIL {losses} {params}", frozen


for label, make in (("adam", lambda m: torch.optim.Adam(m.parameters(), lr=1e-2)),
                    ("sgd dampening", lambda m: torch.optim.SGD(
                        m.parameters(), lr=0.05, momentum=0.9, dampening=0.5,
                        weight_decay=1e-3))):
    print(f"{label} resumed after 2 steps, frozen conv.weight:", *resumed(make))
# CHECK: adam resumed after 2 steps, frozen conv.weight: ok True
# CHECK: sgd dampening resumed after 2 steps, frozen conv.weight: ok True

# Threads: 0 (the default) is all cores, as mixedprec.run's and mp-run's
# --threads (OMP_NUM_THREADS where set: lit sets 1); every thread count
# gives the bits of one thread (losses and the trained state, FP32 and BF16
# AMP, a convolution and a batch norm, whose reductions OpenMP must not
# reorder).
def train_threads(compute_type, threads):
    torch.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                        nn.Flatten(), nn.Linear(4 * 6 * 6, 5))
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-3)
    run = mpt.Trainer(mpt.import_train_step(net, xs[0], ys[0], loss_fn, opt),
                      compute_type=compute_type, threads=threads)
    losses = [run.step(x, y)["loss"] for x, y in zip(xs[:4], ys[:4])]
    return run, losses, [v.numpy().tobytes() for v in run.state_dict().values()]


for compute_type in ("f32", "bf16"):
    one, losses_1, state_1 = train_threads(compute_type, 1)
    two, losses_2, state_2 = train_threads(compute_type, 2)
    print(compute_type, "threads", repr(one.cpu_pipeline_options), repr(two.cpu_pipeline_options),
          "identical:", losses_1 == losses_2, state_1 == state_2)
# CHECK: f32 threads '' 'threads=2' identical: True True
# CHECK: bf16 threads '' 'threads=2' identical: True True
saved = os.environ.get("OMP_NUM_THREADS")
os.environ["OMP_NUM_THREADS"] = "3"
print("default threads:", repr(mpt.Trainer(step).cpu_pipeline_options),
      repr(mpt.Trainer(step, cpu_pipeline_options="vectorize=false threads=2")
           .cpu_pipeline_options))
os.environ["OMP_NUM_THREADS"] = saved or "1"
# CHECK: default threads: 'threads=3' 'vectorize=false threads=2'

# Batch norm: the running statistics are forward state the Trainer updates
# every step (torch 1.13's native_batch_norm schema does not say it writes
# them); after 3 steps they, the count and eval predictions match PyTorch.
bn_net = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1, bias=False), nn.BatchNorm2d(4),
                       nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 5))
bn_reference = copy.deepcopy(bn_net)
bn_trainer = mpt.Trainer(mpt.import_train_step(
    bn_net, xs[0], ys[0], loss_fn, torch.optim.SGD(bn_net.parameters(), lr=0.05)),
    cpu_pipeline_options="vectorize=false")
bn_optimizer = torch.optim.SGD(bn_reference.parameters(), lr=0.05)
for x, y in zip(xs[:3], ys[:3]):
    bn_trainer.step(x, y)
    torch_step(bn_reference, bn_optimizer, x, y)
bn_state = bn_trainer.state_dict()
bn_error = max(((bn_state[f"1.{k}"] - getattr(bn_reference[1], k)).abs().max()
                / getattr(bn_reference[1], k).abs().max()).item()
               for k in ("running_mean", "running_var"))
bn_reference.eval()
bn_predict = (bn_reference(xs[4]) - bn_trainer.predict(xs[4])).abs().max().item()
# CHECK: batch norm statistics: ok 3 ok
print("batch norm statistics:", "ok" if bn_error <= 1e-5 else f"FAIL {bn_error}",
      int(bn_state["1.num_batches_tracked"]), "ok" if bn_predict <= 1e-5 else
      f"FAIL {bn_predict}")

try:
    trainer.step(xs[0][:4], ys[0][:4])
except ValueError as error:
    print("ValueError:", error)
# CHECK: ValueError: argument {{[0-9]+}} of @train_step has shape (8, 1, 6, 6), got (4, 1, 6, 6)


class Unsupported(nn.Module):
    def forward(self, x):
        return torch.cumsum(x, 1)


try:
    mpt.import_train_step(nn.Sequential(nn.Linear(3, 3), Unsupported()), torch.randn(2, 3),
                          torch.randn(2, 3), nn.MSELoss(),
                          torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=0.1))
except mpt.UnsupportedError as error:
    print("UnsupportedError:", error)
# CHECK: UnsupportedError: parameters not in the optimizer: 0.weight, 0.bias

model = nn.Sequential(nn.Linear(3, 3), Unsupported())
try:
    mpt.import_train_step(model, torch.randn(2, 3), torch.randn(2, 3), nn.MSELoss(),
                          torch.optim.SGD(model.parameters(), lr=0.1))
except mpt.UnsupportedError as error:
    print("UnsupportedError:", error)
# CHECK: UnsupportedError: aten.cumsum: no mp counterpart
# CHECK-NEXT: at {{.*}}torch_trainer.py:[[#]]: return torch.cumsum(x, 1)
