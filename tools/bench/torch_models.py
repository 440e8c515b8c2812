#!/usr/bin/python3
"""ms/step of mixedprec.torch.Trainer against PyTorch eager on the same
machine in one run, per model of the conformance suite
(test/Integration/Torch/Inputs/models.py), in FP32 and BF16 (Trainer
compute_type="bf16" against torch.autocast("cpu", dtype=torch.bfloat16)),
with the Trainer's compile time and the ratio.

    PYTHONPATH=build/python_packages tools/bench/torch_models.py \\
        [--models gpt,vit] [--steps N] [--threads N] [--opt-level N] \\
        [--cpu-pipeline-options=...]

Each mode runs N steps (after one warm-up step) of both, interleaved, on the
same batches, both on --threads threads (default 1: machine.set_torch_threads,
PyTorch's pool and OpenBLAS's, and the Trainer's `threads`); prints figures (ms/step wall-clock and CPU, the
ratio of PyTorch's to ours, the compile's wall and CPU time: import, the
passes and the JIT; the 1-minute load average after the run), never asserts.
"""

import argparse
import copy
import os
import sys
import time
import warnings

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "test", "Integration", "Torch", "Inputs"))
import models  # noqa: E402
from models import MODELS  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine import cpu_name, set_torch_threads, time_side_by_side  # noqa: E402

import mixedprec.torch as mpt  # noqa: E402


def bench(name, mode, steps, cpu_options, threads, opt_level):
    torch.manual_seed(0)
    spec = MODELS[name](dropout=False)
    model = spec.model.train()
    reference = copy.deepcopy(model)
    optimizer = spec.optimizer(model)
    ref_optimizer = spec.optimizer(reference)
    generator = torch.Generator().manual_seed(1)
    batches = [spec.make_batch(generator) for _ in range(steps + 1)]
    start, cpu_start = time.time(), time.process_time()
    step = mpt.import_train_step(model, *batches[0], spec.loss, optimizer)
    trainer = mpt.Trainer(step, compute_type="bf16" if mode.startswith("bf16") else "f32",
                          cpu_pipeline_options=cpu_options, threads=threads,
                          opt_level=opt_level)
    compile_seconds, compile_cpu = time.time() - start, time.process_time() - cpu_start

    autocast = mode == "bf16"
    if autocast:
        # torch 1.13's CPU autocast cannot train every model in BF16
        # (mobilenet_v2: ReLU6's backward has no BFloat16 kernel); PyTorch
        # FP32 is then the side-by-side run, marked "bf16*".
        trial = copy.deepcopy(reference)
        try:
            models.torch_step(spec, trial, spec.optimizer(trial), *batches[0], True)
        except RuntimeError as error:
            autocast = False
            mode = "bf16*"
            print(f"{name}: PyTorch autocast BF16 fails ({str(error).splitlines()[0]}); "
                  "bf16* rows time PyTorch FP32", flush=True)

    def torch_step(x, y):
        return models.torch_step(spec, reference, ref_optimizer, x, y, autocast)

    ours, theirs, _, ours_cpu, theirs_cpu = time_side_by_side(trainer, torch_step, batches,
                                                              with_cpu=True,
                                                              threads=threads)
    print(f"{name:20s} {mode:5s} {ours:9.2f} {theirs:9.2f} {theirs / ours:7.2f}x "
          f"{ours_cpu:9.2f} {theirs_cpu:9.2f} {theirs_cpu / ours_cpu:7.2f}x "
          f"{compile_seconds:9.1f} {compile_cpu:9.1f}  {os.getloadavg()[0]:.1f}", flush=True)


def main():
    warnings.filterwarnings("ignore", category=UserWarning)
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default="transformer_encoder_layer,vit,gpt")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--modes", default="fp32,bf16")
    parser.add_argument("--cpu-pipeline-options", default="")
    parser.add_argument("--threads", type=int, default=1,
                        help="threads of both PyTorch and the Trainer")
    parser.add_argument("--opt-level", type=int, default=2,
                        help="LLVM optimisation level of the JIT-compiled step")
    args = parser.parse_args()
    set_torch_threads(torch, args.threads)
    print(f"CPU: {cpu_name()}, {os.cpu_count()} cores; torch {torch.__version__}; "
          f"{args.threads} threads each; JIT -O{args.opt_level}")
    print(f"{'model':20s} {'mode':5s} {'ms/step':>9s} {'torch':>9s} {'speedup':>8s} "
          f"{'CPU ms':>9s} {'torch':>9s} {'speedup':>8s} "
          f"{'compile s':>9s} {'(CPU s)':>9s}  load")
    for name in args.models.split(","):
        for mode in args.modes.split(","):
            bench(name, mode, args.steps, args.cpu_pipeline_options, args.threads,
                  args.opt_level)


if __name__ == "__main__":
    main()
