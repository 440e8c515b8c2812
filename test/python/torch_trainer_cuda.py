# mixedprec.torch.Trainer(device="cuda") on the simulated CUDA driver
# (test/lib/CudaSim; each launch run by tools/bench/ptx_sim.py): an MLP
# (16-32-10, batch 8, Adam) imported from PyTorch and trained in BF16 AMP
# with the step device-resident (every op a kernel, the state in device
# memory between steps). With sequential full reductions the losses and the
# state_dict() equal the CPU Trainer's (vectorize=false: the CPU's
# reduction order) bit for bit, the optimizer state and predict()'s f32
# logits within the bounds below (f32 sums in another order); with
# the default tree reductions the loss is within the two orders' bound
# (2 (n - 1) u + 2u relative for the n = 8 per-sample losses: 9.6e-7; see
# docs/GPU.md) and the parameters are still equal; weights loaded with
# load_state_dict reach the device. Steps are queued: the
# step's result is read when looked at, after the next step was queued.
# Each step's batch goes in through page-locked memory: the simulated
# driver's counts at exit show 2 copies a step (the input and the target)
# from page-locked memory, 4 steps on two device Trainers, and 4
# page-locked allocations per Trainer (two batch slots, two staging slots).
# Errors: no CUDA driver, an unknown device, f32 matmuls (no Tensor Core
# format), CPU options on the device.
#
# About 10 s a step in the simulator.
# REQUIRES: torch
# RUN: env MP_CUDA_SIM_STATS=1 %python %s %mp_cuda_sim 2>&1 | FileCheck %s

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs"))
from errors import fails  # noqa: E402

import torch
import torch.nn as nn

import mixedprec.torch as mpt

simulator = sys.argv[1]
torch.manual_seed(0)
loss_fn = nn.CrossEntropyLoss()
xs = torch.randn(3, 8, 16)
ys = torch.randint(0, 10, (3, 8))


def imported():
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 10))
    return mpt.import_train_step(model, xs[0], ys[0], loss_fn,
                                 torch.optim.Adam(model.parameters(), lr=1e-2))


os.environ["MP_CUDA_DRIVER"] = os.path.join(os.path.dirname(simulator), "no-such-libcuda.so")
# CHECK: no driver: DeviceError device error: --device=cuda needs the NVIDIA driver ({{.*}}no-such-libcuda.so)
fails("no driver", lambda: mpt.Trainer(imported(), compute_type="bf16", device="cuda"))
# CHECK: unknown device: ValueError device: 'tpu' is not 'cpu' or 'cuda'
fails("unknown device", lambda: mpt.Trainer(imported(), compute_type="bf16", device="tpu"))
# CHECK: cpu options: ValueError cpu_pipeline_options applies to device='cpu'
fails("cpu options", lambda: mpt.Trainer(imported(), compute_type="bf16", device="cuda",
                                         cpu_pipeline_options="vectorize=false"))
os.environ["MP_CUDA_DRIVER"] = simulator
# CHECK: f32 on the device: CompileError pass failure: lowering the module failed
fails("f32 on the device", lambda: mpt.Trainer(imported(), device="cuda",
                                               gpu_pipeline_options="binary-format=isa"))

cpu = mpt.Trainer(imported(), compute_type="bf16", cpu_pipeline_options="vectorize=false")
cpu_out = [cpu.step(x, y) for x, y in zip(xs, ys)]
gpu = mpt.Trainer(imported(), compute_type="bf16", device="cuda",
                  gpu_pipeline_options="chip=sm_80 binary-format=isa sequential-reductions=true")
first = gpu.step(xs[0], ys[0])
second = gpu.step(xs[1], ys[1])
# Both steps are queued and nothing was read yet.
# CHECK: queued: step 1 pending True, step 2 pending True
print("queued: step 1 pending %s, step 2 pending %s" % (not first.ready, not second.ready))
gpu_out = [first, second, gpu.step(xs[2], ys[2])]
for i, (a, b) in enumerate(zip(cpu_out, gpu_out)):
    print("step %d loss %r skipped %s scale %s: %s" % (
        i + 1, b["loss"], b["skipped"], b["loss_scale"],
        "equal" if dict(a) == dict(b) else "FAIL cpu %r" % (a,)))
# CHECK: step 1 loss {{.*}} skipped False scale None: equal
# CHECK: step 2 loss {{.*}}: equal
# CHECK: step 3 loss {{.*}}: equal


def same(a, b):
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, torch.Tensor):
        return a.dtype == b.dtype and torch.equal(a, b)
    return a == b


# CHECK: state_dict: equal
print("state_dict:", "equal" if same(cpu.state_dict(), gpu.state_dict()) else "FAIL")
# The moments are f32 sums of f32 gradients: the last layer's bias gradient
# (a sum over the n = 8 samples of the softmax's gradient, whose expf is
# libdevice's on the device) may differ in its last bits; each tensor is
# within 2 (n - 1) u of its largest magnitude, the other entries equal.
cpu_opt, gpu_opt = cpu.optimizer_state_dict(), gpu.optimizer_state_dict()
worst = 0.0
for position, entry in cpu_opt["state"].items():
    for key, value in entry.items():
        other = gpu_opt["state"][position][key]
        scale = value.abs().max().item() or 1.0
        worst = max(worst, (value - other).abs().max().item() / scale)
bound = 2 * 7 * 2.0 ** -24
# CHECK: optimizer_state_dict: within 2 (n - 1) u
print("optimizer_state_dict:", "within 2 (n - 1) u" if worst <= bound and
      cpu_opt["param_groups"] == gpu_opt["param_groups"] else "FAIL %g" % worst)
# predict's f32 logits: the Tensor Core sums the K = 32 products of an
# output in another order than the CPU's loop (within an mma instruction),
# so each logit is within 2 (K - 1) u sum |h_k w_k| + |b| of the CPU's.
state = cpu.state_dict()
w1, b1, w2, b2 = (state[k].double() for k in ("0.weight", "0.bias", "2.weight", "2.bias"))
h = torch.relu(xs[1].double() @ w1.t() + b1)
magnitude = h.abs() @ w2.abs().t() + b2.abs()
gap = (cpu.predict(xs[1]).double() - gpu.predict(xs[1]).double()).abs()
# CHECK: predict: within 2 (K - 1) u
print("predict:", "within 2 (K - 1) u" if bool((gap <= 2 * 31 * 2.0 ** -24 * magnitude).all())
      else "FAIL %g" % gap.max().item())
# load_state_dict on the device: the loaded weights reach the device buffers
# (the next step's loss is the CPU Trainer's after the same load).
torch.manual_seed(2)
weights = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 10)).state_dict()
for trainer in (cpu, gpu):
    trainer.load_state_dict(weights)
after = [float(t.step(xs[0], ys[0])["loss"]) for t in (cpu, gpu)]
# CHECK: load_state_dict on the device: equal
print("load_state_dict on the device:", "equal" if after[0] == after[1] and
      after[0] != cpu_out[0]["loss"] else "FAIL %r" % after)
gpu.close()

# The default tree reductions: one step.
tree = mpt.Trainer(imported(), compute_type="bf16", device="cuda",
                   gpu_pipeline_options="chip=sm_80 binary-format=isa")
out = tree.step(xs[0], ys[0])
gap = abs(out["loss"] - cpu_out[0]["loss"]) / cpu_out[0]["loss"]
# CHECK: tree loss: within 9.6e-7
print("tree loss:", "within 9.6e-7" if gap <= 9.6e-7 else "FAIL %g" % gap)
reference = mpt.Trainer(imported(), compute_type="bf16", cpu_pipeline_options="vectorize=false")
reference.step(xs[0], ys[0])
# CHECK: tree parameters: equal
print("tree parameters:", "equal" if same(reference.state_dict(), tree.state_dict()) else "FAIL")
# CHECK-NOT: FAIL
tree.close()
sys.stdout.flush()
# Every batch went in through the page-locked staging: 5 device steps (3,
# the one after load_state_dict, the tree's) of 2 data arguments each.
# CHECK: mp-cuda-sim: {{.*}}; copies: {{[0-9]+}} pageable host to device, 10 pinned host to device, {{.*}}; 8 cuMemHostAlloc
