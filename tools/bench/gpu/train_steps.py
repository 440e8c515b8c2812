#!/usr/bin/env python3
"""Device-resident train steps on a GPU against PyTorch CUDA AMP.

Two phases, like run_gpu_checks.py:

  1. Where MixedPrec is built (mp-opt, mp-run, ptxas):

       train_steps.py build --out DIR [--build BUILD] [--chip sm_90a]
           [--models mlp,block-small,block-gpt2] [--modes FP32,BF16,FP16,FP8]

     lowers each model in each mode with mp-mixed-precision-pipeline and
     `mp-run --device=cuda --gpu-pipeline='chip=CHIP' --emit-library`
     (mp-gpu-pipeline, device-resident) into DIR/NAME/{step.so,manifest.json}
     and lists them in DIR/steps.json. The step libraries need neither MLIR
     nor LLVM where they run (docs/MpRun.md, "Step libraries").

  2. Where the GPU is (Python 3, numpy, torch with CUDA):

       train_steps.py run --steps-dir DIR [--steps N] [--check-steps K]
           [--only REGEX] [--markdown FILE] [--json FILE]

     for each library: the same initial parameters (PyTorch's default init
     of the same model, seed 0) and the same batches (numpy, seed 1) for
     ours (tools/bench/gpu/aot_step.py: ctypes, the library's CUDA runtime
     wrappers over libcuda.so.1) and for PyTorch eager on CUDA; K steps of
     each compare the losses (the largest relative difference), then N
     steps of each are timed (wall clock around N queued steps between two
     synchronisations; all batches on the device before the clock starts,
     the losses left on the device until it stops). Prints a table of
     ms/step, the ratio PyTorch/ours (> 1: ours faster) and the loss
     difference; --markdown/--json write it for docs/performance.md.

Models (the PyTorch definitions of tools/bench/cpu_scale.py, reused):
  mlp          docs/examples/mlp_train_step.mlir (784-256-10, batch 64,
               Adam; PyTorch: Linear-ReLU-Linear, torch.optim.Adam)
  mlp-tiny     test/Integration/GPU/Inputs/mlp_16_32_10.mlir (16-32-10,
               batch 8): not built by default; small enough for a dry run of
               `run` on the simulated driver (--torch-device cpu)
  block-small  the transformer block of tools/bench/autocast_casts.py at
               its own sizes (batch 2, sequence 16, d_model 64, 4 heads,
               MLP 256, vocabulary 512; AdamW; cpu_scale.torch_block)
  block-gpt2   the same block at GPT-2-small sizes (batch 8, sequence 1024,
               d_model 768, 12 heads, MLP 3072, vocabulary 50304)

Modes (ours: mp-mixed-precision-pipeline options; PyTorch):
  FP32  compute-type=f32, its matmuls on TF32 Tensor Cores
        (mp-gpu-pipeline format=tf32: no Tensor Core instruction multiplies
        IEEE f32); PyTorch FP32 with torch.backends.cuda.matmul.allow_tf32
  BF16  compute-type=bf16; torch.autocast("cuda", dtype=torch.bfloat16)
  FP16  compute-type=f16 (dynamic loss scaling, init 65536, growth interval
        2000); torch.autocast(dtype=torch.float16) + torch.cuda.amp.GradScaler
        with the same scale parameters
  FP8   compute-type=bf16 fp8=delayed (hybrid E4M3/E5M2, amax history 1024;
        the MLP with fp8-include-first-last=true, else it has no FP8 layer);
        PyTorch has no FP8 training in eager: the row compares against the
        PyTorch BF16 AMP run, marked "vs BF16"

Exit status 1 when a library fails to run or a loss is not finite; the
figures are printed, never asserted.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

MODES = {
    "FP32": ("compute-type=f32", "format=tf32"),
    "BF16": ("compute-type=bf16", ""),
    "FP16": ("compute-type=f16", ""),
    "FP8": ("compute-type=bf16 fp8=delayed", ""),
}
BLOCK_SIZES = {
    "block-small": dict(B=2, S=16, D=64, H=4, F=256, V=512),
    "block-gpt2": dict(B=8, S=1024, D=768, H=12, F=3072, V=50304),
}
MLP_SHAPES = {
    "mlp": dict(batch=64, inputs=784, hidden=256, classes=10),
    "mlp-tiny": dict(batch=8, inputs=16, hidden=32, classes=10),
}
MLP_SOURCES = {
    "mlp": os.path.join(ROOT, "docs", "examples", "mlp_train_step.mlir"),
    "mlp-tiny": os.path.join(ROOT, "test", "Integration", "GPU", "Inputs",
                             "mlp_16_32_10.mlir"),
}


# ---------------------------------------------------------------------------
# build


def model_source(model, tmp):
    """The f32 mp-level train step of `model` (a path)."""
    if model in MLP_SOURCES:
        return MLP_SOURCES[model]
    import autocast_casts
    dims = BLOCK_SIZES[model]
    path = os.path.join(tmp, model + ".mlir")
    with open(path, "w") as f:
        f.write(autocast_casts.generate(
            1, dims=dims, labels_2d=True,
            attention_scale=(dims["D"] // dims["H"]) ** -0.5))
    return path


def build(args):
    mp_opt = os.path.join(args.build, "bin", "mp-opt")
    mp_run = os.path.join(args.build, "bin", "mp-run")
    os.makedirs(args.out, exist_ok=True)
    entries = []
    for model in args.models.split(","):
        source = model_source(model, args.out)
        for mode in args.modes.split(","):
            mixed_options, gpu_options = MODES[mode]
            if mode == "FP8" and model in MLP_SOURCES:
                mixed_options += " fp8-include-first-last=true"
            name = f"{model}-{mode.lower()}"
            directory = os.path.join(args.out, name)
            mixed = os.path.join(args.out, name + ".mlir")
            pipeline = " ".join(o for o in (f"chip={args.chip}", gpu_options,
                                            args.gpu_pipeline) if o)
            start = time.time()
            subprocess.run([mp_opt, source, "--mp-mixed-precision-pipeline="
                            + mixed_options, "-o", mixed], check=True)
            subprocess.run([mp_run, mixed, "--device=cuda",
                            "--gpu-pipeline=" + pipeline,
                            "--emit-library=" + directory], check=True,
                           stdout=subprocess.DEVNULL)
            os.remove(os.path.join(directory, "step.o"))
            size = os.path.getsize(os.path.join(directory, "step.so"))
            print(f"{name:20s} {size / 1e6:7.2f} MB  {time.time() - start:6.1f} s"
                  f"  (mp-mixed-precision-pipeline{{{mixed_options}}}, "
                  f"mp-gpu-pipeline{{{pipeline}}})", flush=True)
            entries.append(dict(name=name, model=model, mode=mode,
                                library=name, mixed_precision=mixed_options,
                                gpu_pipeline=pipeline,
                                dims=BLOCK_SIZES.get(model,
                                                     MLP_SHAPES.get(model))))
    with open(os.path.join(args.out, "steps.json"), "w") as f:
        json.dump({"chip": args.chip, "steps": entries}, f, indent=2)
    total = sum(os.path.getsize(os.path.join(d, n))
                for d, _, names in os.walk(args.out) for n in names)
    print(f"{args.out}: {len(entries)} step libraries, {total / 2**20:.1f} MiB "
          "in all (carry it to the GPU machine)")
    return 0


# ---------------------------------------------------------------------------
# run


def torch_model(torch, entry):
    """The PyTorch model of `entry`, its parameters in the step's order, and
    its optimizer (the step's hyperparameters)."""
    torch.manual_seed(0)
    if entry["model"] in MLP_SHAPES:
        d = entry["dims"]
        model = torch.nn.Sequential(
            torch.nn.Linear(d["inputs"], d["hidden"]), torch.nn.ReLU(),
            torch.nn.Linear(d["hidden"], d["classes"]))
        params = list(model.parameters())
        optimizer = lambda ps: torch.optim.Adam(ps, lr=1e-3)
        return model, params, optimizer
    from cpu_scale import torch_block
    d = entry["dims"]
    model = torch_block(torch, d["B"], d["S"], d["D"], d["H"], d["F"], d["V"])
    m = model
    params = [m.emb.weight, m.ln1.weight, m.ln1.bias]
    for linear in (m.q, m.k, m.v, m.o):
        params += [linear.weight, linear.bias]
    params += [m.ln2.weight, m.ln2.bias, m.fc1.weight, m.fc1.bias,
               m.fc2.weight, m.fc2.bias, m.head.weight]

    def optimizer(ps):
        # mp.adamw of autocast_casts: weight decay 0.1 on matrices only.
        return torch.optim.AdamW(
            [{"params": [p for p in ps if p.dim() == 2], "weight_decay": 0.1},
             {"params": [p for p in ps if p.dim() != 2], "weight_decay": 0.0}],
            lr=3e-4, betas=(0.9, 0.95), eps=1e-8)
    return model, params, optimizer


def make_batches(np, entry, count):
    """`count` batches (lists of arrays in the order of the step's data
    arguments: inputs, labels), numpy seed 1."""
    random = np.random.default_rng(1)
    d = entry["dims"]
    batches = []
    for _ in range(count):
        if entry["model"] in MLP_SHAPES:
            batches.append([random.standard_normal((d["batch"], d["inputs"]),
                                                   dtype=np.float32),
                            random.integers(0, d["classes"], d["batch"])])
        else:
            batches.append([random.integers(0, d["V"], (d["B"], d["S"])),
                            random.integers(0, d["V"], (d["B"], d["S"]))])
    return batches


class TorchStep:
    """One PyTorch CUDA eager train step of `mode`."""

    def __init__(self, torch, entry, mode, device):
        self.torch = torch
        model, params, optimizer = torch_model(torch, entry)
        self.initial = [p.detach().cpu().numpy().copy() for p in params]
        # Module.to() moves the parameters' data: `params` stay theirs.
        self.model = model.to(device)
        self.optimizer = optimizer(params)
        self.mode = mode
        self.device = device
        torch.backends.cuda.matmul.allow_tf32 = mode == "FP32"
        torch.backends.cudnn.allow_tf32 = mode == "FP32"
        self.scaler = (torch.cuda.amp.GradScaler(init_scale=65536.0,
                                                 growth_interval=2000)
                       if mode == "FP16" else None)
        self.block = entry["model"] not in MLP_SHAPES

    def __call__(self, x, y):
        torch = self.torch
        self.optimizer.zero_grad(set_to_none=True)
        dtype = {"BF16": torch.bfloat16, "FP16": torch.float16}.get(self.mode)
        with torch.autocast(self.device, dtype=dtype or torch.bfloat16,
                            enabled=dtype is not None):
            logits = self.model(x)
        loss = torch.nn.functional.cross_entropy(
            logits.float(), y.view(-1) if self.block else y)
        if self.scaler:
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            self.scaler.update()
        else:
            loss.backward()
            self.optimizer.step()
        return loss.detach()


def time_torch(torch, step, batches, repeat):
    """ms/step of `repeat` queued PyTorch steps and their losses."""
    losses = []
    sync = torch.cuda.synchronize if step.device == "cuda" else (lambda: None)
    sync()
    start = time.perf_counter()
    for k in range(repeat):
        losses.append(step(*batches[k % len(batches)]))
    sync()
    seconds = (time.perf_counter() - start) / repeat
    return seconds * 1e3, [float(l) for l in losses]


def run_entry(np, torch, StepLibrary, directory, entry, args):
    mode = entry["mode"]
    reference_mode = "BF16" if mode == "FP8" else mode
    ours = StepLibrary(os.path.join(directory, entry["library"]), args.cuda_driver)
    theirs = TorchStep(torch, entry, reference_mode, args.torch_device)
    param_args = [a for a in ours.arguments if a["role"] == "param"]
    if [tuple(a["shape"]) for a in param_args] != [p.shape for p in theirs.initial]:
        raise ValueError(f"{entry['name']}: the step's parameters "
                         f"{[a['shape'] for a in param_args]} are not the "
                         f"PyTorch model's {[p.shape for p in theirs.initial]}")
    ours.initialize({a["index"]: p for a, p in zip(param_args, theirs.initial)})
    data = ours.data_arguments()
    batches = make_batches(np, entry, args.batches)
    cuda = [[torch.from_numpy(np.asarray(v)).to(args.torch_device)
             for v in batch] for batch in batches]
    # Agreement: the first K steps of both on the same batches.
    our_losses, their_losses, skipped = [], [], 0
    for k in range(args.check_steps):
        batch = batches[k % len(batches)]
        loss, _, was_skipped = ours.step(dict(zip(data, batch)))
        our_losses.append(loss)
        skipped += was_skipped
        their_losses.append(float(theirs(*cuda[k % len(cuda)])))
    finite = all(np.isfinite(our_losses))
    diff = max((abs(a - b) / max(abs(b), 1e-30)
                for a, b in zip(our_losses, their_losses)), default=0.0)
    # Timing: warm-up, then N queued steps of each.
    ours.time_steps([dict(zip(data, b)) for b in batches], args.warmup)
    seconds, _ = ours.time_steps([dict(zip(data, b)) for b in batches], args.steps)
    time_torch(torch, theirs, cuda, args.warmup)
    their_ms, _ = time_torch(torch, theirs, cuda, args.steps)
    return dict(name=entry["name"], model=entry["model"], mode=mode,
                reference="PyTorch " + reference_mode +
                (" (vs BF16)" if mode == "FP8" else ""),
                ours_ms=seconds * 1e3, torch_ms=their_ms,
                ratio=their_ms / (seconds * 1e3),
                loss_rel_diff=diff, skipped=skipped,
                first_loss=[our_losses[0], their_losses[0]] if our_losses else None,
                last_loss=[our_losses[-1], their_losses[-1]] if our_losses else None,
                finite=bool(finite))


def markdown(rows, device):
    lines = [f"Device: {device}", "",
             "| step | mode | ours ms/step | PyTorch ms/step | PyTorch / ours "
             "| max rel. loss diff | reference |",
             "|---|---|---:|---:|---:|---:|---|"]
    for r in rows:
        lines.append(f"| {r['model']} | {r['mode']} | {r['ours_ms']:.3f} | "
                     f"{r['torch_ms']:.3f} | {r['ratio']:.2f}x | "
                     f"{r['loss_rel_diff']:.2e} | {r['reference']} |")
    return "\n".join(lines) + "\n"


def run(args):
    import numpy as np
    import torch
    from aot_step import StepLibrary
    if args.torch_device == "cuda" and not torch.cuda.is_available():
        print("train_steps.py run: torch sees no CUDA device", file=sys.stderr)
        return 1
    with open(os.path.join(args.steps_dir, "steps.json")) as f:
        listing = json.load(f)
    device = (torch.cuda.get_device_name(0) if args.torch_device == "cuda"
              else f"{args.cuda_driver} (ours), PyTorch on the CPU")
    print(f"{device}; PyTorch {torch.__version__}; libraries for "
          f"{listing['chip']}; {args.check_steps} checked and {args.steps} "
          "timed steps each")
    print(f"{'step':22s} {'ours ms':>9s} {'PyTorch ms':>10s} {'ratio':>7s} "
          f"{'loss diff':>10s}  reference")
    rows, failed = [], False
    for entry in listing["steps"]:
        if args.only and not re.search(args.only, entry["name"]):
            continue
        try:
            row = run_entry(np, torch, StepLibrary, args.steps_dir, entry, args)
        except Exception as error:  # one library's failure is reported
            print(f"{entry['name']:22s} FAILED: {error}", flush=True)
            failed = True
            continue
        failed |= not row["finite"]
        rows.append(row)
        if args.torch_device == "cuda":
            torch.cuda.empty_cache()
        print(f"{row['name']:22s} {row['ours_ms']:9.3f} {row['torch_ms']:10.3f} "
              f"{row['ratio']:6.2f}x {row['loss_rel_diff']:10.2e}  "
              f"{row['reference']}{'' if row['finite'] else '  NOT FINITE'}"
              f"{'  (%d skipped)' % row['skipped'] if row['skipped'] else ''}",
              flush=True)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(markdown(rows, device))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": device, "torch": torch.__version__,
                       "chip": listing["chip"], "rows": rows}, f, indent=2)
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    b = commands.add_parser("build", help="lower the steps into libraries "
                            "(needs mp-opt, mp-run, ptxas)")
    b.add_argument("--out", required=True)
    b.add_argument("--build", default=os.environ.get(
        "MP_BUILD_DIR", os.path.join(ROOT, "build")))
    b.add_argument("--chip", default="sm_90a")
    b.add_argument("--models", default="mlp,block-small,block-gpt2")
    b.add_argument("--modes", default="FP32,BF16,FP16,FP8")
    b.add_argument("--gpu-pipeline", default="",
                   help="more mp-gpu-pipeline options for every step")
    r = commands.add_parser("run", help="check and time the steps against "
                            "PyTorch (needs a GPU, torch, numpy)")
    r.add_argument("--steps-dir", required=True)
    r.add_argument("--steps", type=int, default=50, help="timed steps")
    r.add_argument("--warmup", type=int, default=5)
    r.add_argument("--check-steps", type=int, default=10,
                   help="steps whose losses are compared")
    r.add_argument("--batches", type=int, default=4,
                   help="distinct batches, cycled")
    r.add_argument("--only", help="REGEX of the step names to run")
    r.add_argument("--cuda-driver", help="default: libcuda.so.1")
    r.add_argument("--torch-device", default="cuda",
                   help="where PyTorch runs: cuda, or cpu for a dry run of "
                        "libraries built with --models mlp-tiny --chip sm_80 "
                        "--gpu-pipeline=binary-format=isa on the simulated "
                        "driver (--cuda-driver build/lib/libmp_cuda_sim.so)")
    r.add_argument("--markdown")
    r.add_argument("--json")
    args = parser.parse_args()
    return build(args) if args.command == "build" else run(args)


if __name__ == "__main__":
    sys.exit(main())
