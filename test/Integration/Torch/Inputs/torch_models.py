#!/usr/bin/env python3
"""The PyTorch conformance suite: a model of models.py imported with
mixedprec.torch and trained with mixedprec.torch.Trainer beside PyTorch, from
the same initial weights on the same batches.

    torch_models.py MODEL MODE [--steps N] [--reference f64]

MODE:
  fp32      dropout off; per-step losses within 1e-5 relative of PyTorch's,
            every parameter and buffer after the run within 1e-4 relative
            (max over elements of |mp - torch|, over the tensor's max |torch|,
            a running mean over its running standard deviation; entries
            whose gradient is zero in exact arithmetic, such as an attention
            key bias, are left out and counted: rounding noise is their
            gradient, which Adam scales to ±lr per step)
  bf16      mp-mixed-precision-pipeline{compute-type=bf16} against
            torch.autocast("cpu", dtype=torch.bfloat16) (PyTorch FP32 with
            --bf16-against-fp32); losses within --bound relative (default
            5e-2)
  f16       compute-type=f16 (dynamic loss scaling, GradScaler semantics)
            against PyTorch FP32 (its CPU autocast has no float16): losses
            within --bound relative; no step skipped at the initial scale
  dropout   dropout on (p > 0): the loss over the last 20% of the steps
            falls below its first value like PyTorch's (both must fall by
            --bound relative, default 0.1)
`--reference f64` compares against PyTorch run in float64 from the same
weights (the exact computation, up to f64 rounding) instead of PyTorch's
float32 run, with the same bounds: for a model whose f32 trajectory picks a
side of an activation's kink by rounding (mobilenet_v3_small, docs/PyTorch.md).
`--check-f32` (with `--reference f64`) also trains PyTorch float32 and holds mp
to the bounds against it too wherever that run is within half the bounds of
float64 on this host (PyTorch's float32 trajectory depends on the ISA oneDNN
picks for its convolutions); `--data-seed` picks the batches.
Prints one line per step and `MODEL MODE: ok ...` or `... FAIL ...`; exits 1
on failure.
"""

import argparse
import copy
import os
import sys
import time
import warnings

import torch

sys.path.insert(0, os.path.dirname(__file__))
import models  # noqa: E402
from models import MODELS  # noqa: E402

import mixedprec.torch as mpt  # noqa: E402


def relative_error(got, want, scale=None):
    scale = scale or want.abs().max().item()
    diff = (got.double() - want.double()).abs().max().item()
    return diff / scale if scale > 0 else diff


def compare_state(state, reference_state, grad_max, problems):
    """The largest relative error of a floating-point tensor of `state`
    against `reference_state` (state_dicts), where, and how many entries
    were left out; integer buffers must be equal (else a line in
    `problems`)."""
    worst, where, excluded = 0.0, None, 0
    largest_grad = max(g.max() for g in grad_max.values())
    for name, want in reference_state.items():
        if not want.is_floating_point():
            if not torch.equal(state[name], want):
                problems.append(f"{name}: {state[name]} vs {want}")
            continue
        got = state[name]
        scale = None
        if name in grad_max:
            # Entries whose gradient is zero in exact arithmetic get
            # rounding noise as gradient (the key bias of attention:
            # softmax is shift invariant; a batch-norm bias feeding
            # another batch norm; the taps of a 3×3 convolution that only
            # ever see padding have exactly 0), which Adam scales up to
            # ±lr per step in both: entries whose largest gradient is
            # below 1e-6 of the model's largest are left out (and
            # counted).
            live = grad_max[name] > 1e-6 * largest_grad
            excluded += int((~live).sum())
            got, want = got[live], want[live]
            if want.numel() == 0:
                continue
        elif name.endswith("running_mean"):
            # A running mean is compared on the scale of its running
            # standard deviation (a channel fed by a zero-mean
            # convolution has a mean of pure rounding noise).
            var = reference_state[name[:-len("mean")] + "var"]
            scale = max(want.abs().max().item(), var.max().sqrt().item())
        error = relative_error(got, want, scale)
        if error > worst:
            worst, where = error, name
    return worst, where, excluded


def _with_lr(optimizer, lr):
    for group in optimizer.param_groups:
        group["lr"] = group["initial_lr"] = lr
    return optimizer


def main():
    # SequentialLR steps its schedulers with an epoch argument, which warns.
    warnings.filterwarnings("ignore", category=UserWarning)
    parser = argparse.ArgumentParser()
    parser.add_argument("model", choices=sorted(MODELS))
    parser.add_argument("mode", choices=["fp32", "bf16", "f16", "dropout"])
    parser.add_argument("--steps", type=int, default=None)
    parser.add_argument("--opt-level", type=int, default=2,
                        help="LLVM optimisation level of the JIT-compiled step")
    parser.add_argument("--bound", type=float, default=None)
    parser.add_argument("--torch-noise", action="store_true",
                        help="also train PyTorch on 2 threads and report its own differences")
    parser.add_argument("--torch-f64", action="store_true",
                        help="also train PyTorch in float64 and report how far PyTorch's and "
                             "MixedPrec's f32 runs are from it")
    parser.add_argument("--reference", choices=["f32", "f64"], default="f32",
                        help="PyTorch's precision for the comparison (fp32 mode)")
    parser.add_argument("--check-f32", action="store_true",
                        help="with --reference f64: also train PyTorch float32 and require mp "
                             "within the bounds of it wherever PyTorch's float32 run is itself "
                             "within the bounds of float64 (a sharp reference on this host)")
    parser.add_argument("--bf16-against-fp32", action="store_true",
                        help="bf16 mode: compare against PyTorch FP32 instead of its CPU "
                             "autocast (which cannot train mobilenet_v2 in torch 1.13: "
                             "ReLU6's backward has no BFloat16 kernel)")
    parser.add_argument("--lr", type=float, default=None,
                        help="the optimizer's learning rate instead of the model's")
    parser.add_argument("--data-seed", type=int, default=1,
                        help="seed of the batches (the weights always come from seed 0)")
    parser.add_argument("--cpu-pipeline-options", default="",
                        help="e.g. vectorize=false: compiles much faster, runs slower")
    args = parser.parse_args()
    if args.reference == "f64" and args.mode != "fp32":
        parser.error("--reference f64 compares FP32 runs only")
    if args.check_f32 and args.reference != "f64":
        parser.error("--check-f32 needs --reference f64")
    steps = args.steps or {"fp32": 10, "bf16": 50, "f16": 50, "dropout": 200}[args.mode]
    bound = args.bound or {"fp32": 1e-5, "bf16": 5e-2, "f16": 5e-2, "dropout": 0.1}[args.mode]

    # PyTorch's reductions (batch norm over 1×1 maps) depend on its thread
    # count; mp follows its one-thread order.
    torch.set_num_threads(1)
    torch.manual_seed(0)
    spec = MODELS[args.model](dropout=args.mode == "dropout")
    model = spec.model.train()
    reference = copy.deepcopy(model)
    if args.reference == "f64":
        reference.double()
    initial = copy.deepcopy(model) if args.torch_noise else None
    exact = copy.deepcopy(model).double() if args.torch_f64 else None
    single = copy.deepcopy(model) if args.check_f32 else None
    if args.lr is not None:
        make_optimizer = spec.optimizer
        spec.optimizer = lambda m: _with_lr(make_optimizer(m), args.lr)
    optimizer = spec.optimizer(model)
    scheduler = spec.scheduler(optimizer) if spec.scheduler else None
    ref_optimizer = spec.optimizer(reference)
    ref_scheduler = spec.scheduler(ref_optimizer) if spec.scheduler else None

    generator = torch.Generator().manual_seed(args.data_seed)
    batches = [spec.make_batch(generator) for _ in range(steps)]
    inputs, target = batches[0]

    start = time.time()
    step = mpt.import_train_step(model, inputs, target, spec.loss, optimizer, scheduler)
    imported, cpu_start = time.time(), time.process_time()
    compute_type = {"fp32": "f32", "dropout": "f32"}.get(args.mode, args.mode)
    trainer = mpt.Trainer(step, compute_type=compute_type,
                          cpu_pipeline_options=args.cpu_pipeline_options,
                          opt_level=args.opt_level)
    compiled, compile_cpu = time.time(), time.process_time() - cpu_start
    print(f"import {imported - start:.1f} s, compile {compiled - imported:.1f} s "
          f"({compile_cpu:.1f} s CPU)")

    def torch_step(module, optimizer, scheduler, x, y):
        if next(module.parameters()).dtype == torch.float64 and x.is_floating_point():
            x = x.double()
        autocast = args.mode == "bf16" and not args.bf16_against_fp32
        return models.torch_step(spec, module, optimizer, x, y, autocast, scheduler)

    worst = 0.0
    ours, theirs = [], []
    skipped = 0
    grad_max = {}
    for i, (x, y) in enumerate(batches):
        out = trainer.step(x, y)
        skipped += out["skipped"]
        loss = torch_step(reference, ref_optimizer, ref_scheduler, x, y)
        for name, p in reference.named_parameters():
            if p.grad is not None:
                g = p.grad.detach().abs()
                grad_max[name] = torch.maximum(grad_max[name], g) if name in grad_max else g
        error = abs(out["loss"] - loss.item()) / abs(loss.item())
        worst = max(worst, error)
        ours.append(out["loss"])
        theirs.append(loss.item())
        print(f"step {i + 1}: mp {out['loss']:.7g} torch {loss.item():.7g} "
              f"rel {error:.1e}{' skipped' if out['skipped'] else ''}")

    def against(module, threads, label):
        """Trains `module` (a copy of the initial model) through the same
        batches on `threads` threads, prints how far PyTorch's run and ours
        are from it and returns those figures: {who: (max loss difference,
        max parameter/buffer difference, where)}."""
        torch.set_num_threads(threads)
        optimizer = spec.optimizer(module)
        scheduler = spec.scheduler(optimizer) if spec.scheduler else None
        losses = [torch_step(module, optimizer, scheduler, x, y).item() for x, y in batches]
        state = module.state_dict()
        figures = {}
        for who, ran, ran_state in ((f"PyTorch {args.reference}", theirs, reference.state_dict()),
                                    ("mp", ours, trainer.state_dict())):
            loss_error = max(abs(a - b) / abs(b) for a, b in zip(ran, losses))
            param_error, param_where, _ = compare_state(ran_state, state, grad_max, [])
            figures[who] = (loss_error, param_error, param_where)
            print(f"{who} against PyTorch {label}: max loss difference {loss_error:.1e}, max "
                  f"parameter/buffer difference {param_error:.1e} ({param_where})")
        return figures

    if args.torch_noise:
        # PyTorch against itself: the same run on two threads (another
        # summation order in some kernels) shows how far rounding
        # differences alone carry the trajectory.
        against(initial, 2, "on 2 threads")
    if args.torch_f64:
        # PyTorch in float64 from the same weights: how far f32 rounding
        # alone (PyTorch's or ours) carries the trajectory. An activation
        # input within rounding of a kink of its derivative (hardswish at
        # ±3) picks a side by rounding: then the f32 runs differ by a
        # whole gradient term there.
        against(exact, 1, "f64")

    problems = []
    if args.check_f32:
        # PyTorch's float32 trajectory depends on the host: oneDNN picks
        # its convolution kernels by ISA (on an AVX-512 host they round
        # differently from its AVX2 ones), and either may take the other
        # side of an activation's kink from float64 (docs/PyTorch.md). mp
        # must be within the bounds of PyTorch float32 wherever that run is
        # within half of them of float64 (then an mp run within half of
        # them of float64 is within them of it, whichever way each rounds).
        figures32 = against(single, 1, "f32")
        f64_loss, f64_param, f64_where = figures32["PyTorch f64"]
        mp_loss, mp_param, mp_where = figures32["mp"]
        if f64_loss <= bound / 2 and f64_param <= 1e-4 / 2:
            print("PyTorch f32 is a sharp reference on this host: compared")
            if mp_loss > bound or mp_param > 1e-4:
                problems.append(f"against PyTorch f32: loss {mp_loss:.1e}, parameter "
                                f"{mp_param:.1e} at {mp_where}")
        else:
            print(f"PyTorch f32 is {f64_loss:.1e} / {f64_param:.1e} ({f64_where}) from "
                  "float64 on this host: not a sharp reference, not compared")
    figures = f"max loss error {worst:.1e}"
    if args.mode == "dropout":
        tail = max(1, steps // 5)
        ours_drop = 1 - sum(ours[-tail:]) / tail / ours[0]
        theirs_drop = 1 - sum(theirs[-tail:]) / tail / theirs[0]
        figures = f"loss fell {ours_drop:.1%} (torch {theirs_drop:.1%})"
        if ours_drop < bound or theirs_drop < bound:
            problems.append(f"the loss did not fall by {bound:.0%}")
    elif worst > bound:
        problems.append(f"loss error {worst:.1e} > {bound:.0e}")
    if args.mode == "fp32":
        state = trainer.state_dict()
        worst_param, where, excluded = compare_state(state, reference.state_dict(), grad_max,
                                                     problems)
        figures += f", max parameter/buffer error {worst_param:.1e} ({where})"
        if excluded:
            figures += f", {excluded} entries with zero gradient left out"
        if worst_param > 1e-4:
            problems.append(f"parameter error {worst_param:.1e} > 1e-4 at {where}")
    if args.mode == "f16":
        figures += f", {skipped} skipped"
        if skipped:
            problems.append(f"{skipped} steps skipped")
    print(f"{args.model} {args.mode}: {'FAIL ' + '; '.join(problems) if problems else 'ok'} "
          f"({figures}; compile {compiled - imported:.1f} s, {compile_cpu:.1f} s CPU)")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
