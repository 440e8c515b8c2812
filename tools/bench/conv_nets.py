#!/usr/bin/python3
"""ms/step of two convolutional nets trained by mixedprec.torch.Trainer (the
CPU pipeline, in process, one thread) against PyTorch eager on one thread,
in one run, on the same initial weights and batches (batch 32, 1x28x28
images, 10 classes, cross entropy, Adam lr 1e-3):

  small-cnn   conv 3x3 1->8, ReLU, conv 3x3 stride 2 8->16, ReLU,
              conv 3x3 stride 2 16->16, ReLU, flatten, linear 784->10
              (padding 1 everywhere)
  resnet      conv 3x3 1->16, BN, ReLU; two residual blocks (conv-BN-ReLU-
              conv-BN, + identity, ReLU) at 16 channels on 28x28; a block
              with stride 2 to 32 channels (1x1 stride-2 projection) on
              14x14; global average pool; linear 32->10
  depthwise   conv 3x3 1->16, ReLU; depthwise 3x3 (groups 16), ReLU;
              pointwise 1x1 16->32, ReLU; depthwise 3x3 stride 2 (groups
              32), ReLU; flatten; linear 6272->10 (mobilenet-style)

    PYTHONPATH=build/python_packages tools/bench/conv_nets.py \\
        [--models small-cnn,resnet,depthwise] [--steps N]
        [--modes fp32,bf16,fp16] [--cpu-pipeline-options=...] [--cpu-time]

Each row: our ms/step, PyTorch's, PyTorch's time over ours (the step-rate
ratio, > 1 when we are faster), the largest relative loss difference over
the steps, and the Trainer's compile seconds; fp16 rows (FP16 AMP) are ours
only, PyTorch's CPU autocast having no f16. tools/bench/cpu_scale.py's Part 2
runs `resnet` through measure(). Prints figures, never asserts.
"""

import argparse
import copy
import os
import sys
import time
import warnings

import torch
import torch.nn as nn

import mixedprec.torch as mpt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine import cpu_name, set_torch_threads, time_side_by_side  # noqa: E402


def small_cnn():
    return nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(),
        nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(16, 16, 3, stride=2, padding=1), nn.ReLU(),
        nn.Flatten(), nn.Linear(16 * 7 * 7, 10))


class Residual(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU()
        self.project = None
        if stride != 1 or cin != cout:
            self.project = nn.Sequential(
                nn.Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return self.relu(y + (x if self.project is None else self.project(x)))


def resnet():
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
        Residual(16, 16, 1), Residual(16, 16, 1), Residual(16, 32, 2),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))


def depthwise():
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
        nn.Conv2d(16, 16, 3, padding=1, groups=16), nn.ReLU(),
        nn.Conv2d(16, 32, 1), nn.ReLU(),
        nn.Conv2d(32, 32, 3, stride=2, padding=1, groups=32), nn.ReLU(),
        nn.Flatten(), nn.Linear(32 * 14 * 14, 10))


MODELS = {"small-cnn": small_cnn, "resnet": resnet, "depthwise": depthwise}
BATCH = 32


def measure(name, mode, steps, cpu_options="", threads=1,
            clock=time.perf_counter):
    """Trains model `name` for `steps` steps (after a warm-up step) in `mode`
    ("fp32", "bf16" or "fp16" AMP) with the Trainer (mp-cpu-pipeline options
    `cpu_options`) on `threads` threads (the Trainer's `threads`) and, alternately,
    PyTorch eager on `threads` threads from the same initial weights and
    batches. Returns (our ms/step, PyTorch's ms/step, the largest relative
    loss difference, the Trainer's compile seconds); PyTorch's figures are
    None in fp16 (its CPU autocast has no f16). Steps are timed by `clock`
    (machine.time_side_by_side)."""
    set_torch_threads(torch, threads)
    torch.manual_seed(0)
    model = MODELS[name]().train()
    reference = copy.deepcopy(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    ref_optimizer = torch.optim.Adam(reference.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    generator = torch.Generator().manual_seed(1)
    batches = [(torch.randn(BATCH, 1, 28, 28, generator=generator),
                torch.randint(0, 10, (BATCH,), generator=generator))
               for _ in range(steps + 1)]
    start = time.time()
    step = mpt.import_train_step(model, *batches[0], loss_fn, optimizer)
    trainer = mpt.Trainer(step, compute_type={"fp32": "f32", "bf16": "bf16",
                                              "fp16": "f16"}[mode],
                          cpu_pipeline_options=cpu_options, threads=threads)
    compile_seconds = time.time() - start
    if mode == "fp16":
        trainer.step(*batches[0])
        start = clock()
        for x, y in batches[1:]:
            trainer.step(x, y)
        ours = (clock() - start) / steps * 1e3
        return ours, None, None, compile_seconds

    def torch_step(x, y):
        ref_optimizer.zero_grad()
        if mode == "bf16":
            with torch.autocast("cpu", dtype=torch.bfloat16):
                loss = loss_fn(reference(x).float(), y)
        else:
            loss = loss_fn(reference(x), y)
        loss.backward()
        ref_optimizer.step()
        return float(loss)

    ours, theirs, worst = time_side_by_side(trainer, torch_step, batches, clock,
                                            threads=threads)
    return ours, theirs, worst, compile_seconds


def bench(name, mode, steps, cpu_options, clock):
    ours, theirs, worst, compile_seconds = measure(name, mode, steps, cpu_options,
                                                   clock=clock)
    if theirs is None:
        print(f"{name:10s} {mode:5s} {ours:9.2f} {'-':>9s} {'-':>8s} "
              f"{'-':>10s} {compile_seconds:9.1f}", flush=True)
        return
    print(f"{name:10s} {mode:5s} {ours:9.2f} {theirs:9.2f} {theirs / ours:7.2f}x "
          f"{worst:10.1e} {compile_seconds:9.1f}", flush=True)


def main():
    warnings.filterwarnings("ignore", category=UserWarning)
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default="small-cnn,resnet,depthwise")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--modes", default="fp32")
    parser.add_argument("--cpu-pipeline-options", default="")
    parser.add_argument("--cpu-time", action="store_true",
                        help="time steps by the process's CPU time (a shared "
                             "machine inflates wall-clock times)")
    args = parser.parse_args()
    clock = time.process_time if args.cpu_time else time.perf_counter
    set_torch_threads(torch, 1)
    print(f"CPU: {cpu_name()}, {os.cpu_count()} cores; torch {torch.__version__}, "
          f"{torch.get_num_threads()} thread; "
          f"{'CPU' if args.cpu_time else 'wall-clock'} ms")
    print(f"{'model':10s} {'mode':5s} {'ms/step':>9s} {'torch':>9s} {'rate':>8s} "
          f"{'loss diff':>10s} {'compile s':>9s}")
    for name in args.models.split(","):
        for mode in args.modes.split(","):
            bench(name, mode, args.steps, args.cpu_pipeline_options, clock)


if __name__ == "__main__":
    main()
