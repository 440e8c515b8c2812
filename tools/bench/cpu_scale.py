#!/usr/bin/python3
"""The CPU path at real-model scale: code size and compile time per op, and
step times side by side with PyTorch, measured in one run.

    tools/bench/cpu_scale.py [--build DIR] [--layers 1,2,4,8,16]
        [--d-models 64,256] [--steps N] [--skip-scale] [--skip-steps]
        [--cpu-pipeline-options=OPTIONS] [--threads 1,2] [--modes FP32,BF16]
        [--models mlp,block,conv] [--repeats 3] [--conv-cpu-time]

Part 1, scale: for each d_model and N of the bench transformer of
tools/bench/autocast_casts.py (N pre-LayerNorm blocks, batch 2, sequence
16, 4 heads, MLP 4·d_model, vocabulary 512, AdamW; labels [2, 16]) after
mp-mixed-precision-pipeline (its defaults: f16 autocast, f32 master weights,
dynamic loss scaling, autodiff), prints the ops of the input, the bytes of
LLVM dialect mp-cpu-pipeline writes per input op, mp-cpu-pipeline's CPU
seconds, and mp-run's compile CPU seconds (lowering and JIT, its JSON's
compile_cpu_seconds) in total and per op, vectorised and with
vectorize=false, each the median of --repeats runs; then the least-squares
line compile = a + b·N and its R² per d_model. CPU seconds, not wall-clock
ones: this machine is shared.

Part 2, steps: ms/step of mp-run (the time in the compiled step: the
median of its JSON's per-step seconds after the first step, as PyTorch's
first, warm-up step is not timed either) and of PyTorch eager (Debian's python3-torch, the same
shapes and threads: machine.set_torch_threads, which bounds OpenBLAS's pool
too) for the MLP of
docs/examples/mlp_train_step.mlir (784-256-10, batch 64, Adam) and the bench
transformer block at d_model 256 / sequence 128 / batch 8 (1 layer), in
FP32, BF16 AMP (ours: mp-mixed-precision-pipeline{compute-type=bf16};
PyTorch: torch.autocast("cpu", dtype=torch.bfloat16)) and FP16 AMP (ours
only: PyTorch's CPU autocast has no f16), with the ratios. Both sides run
random data of the same shapes (the step time does not depend on the
values). The third model is the ResNet-style conv net of
tools/bench/conv_nets.py (`resnet`: conv-BN-ReLU blocks, batch 32,
1x28x28, Adam), imported from PyTorch and trained by mixedprec.torch.Trainer
in process (mp-cpu-pipeline with threads=N) alternately with PyTorch eager,
from the same initial weights on the same batches (conv_nets.measure; the
Python package of --build). --models picks the rows' models;
--conv-cpu-time times the conv net's rows by the process's CPU time only
(the CPU columns; the wall-clock ones are then "-"); its rows print the
median over --repeats runs (thread counts in turn) of each run's mean step.

With --threads 1,2 each row is run on each thread count (mp-run --threads,
machine.set_torch_threads), and `vs 1` is our 1-thread ms/step over this one's
(the speed-up of our threads); --modes picks the rows' modes. Every row
is run --repeats times (default 3), the thread counts in turn (1, 2, 1,
2, ...), each run of ours followed by PyTorch's, and prints medians (MLP
and block: of the steps of all runs; conv net: of the runs' mean steps):
on a machine shared with other tenants a neighbour's burst slows a
two-thread step most (both cores must be ours), and the alternation
spreads such bursts over every column. The last
three columns are CPU milliseconds per step (mp-run's per-step
cpu_seconds, of all its threads; PyTorch's: the calling thread's on one thread, since
its pool threads of an earlier two-thread row may still spin, the process's
otherwise) and their ratio: on one thread, the comparison a loaded machine
distorts less than wall-clock times.

Prints figures, never asserts. The compiler's own build type matters for
the compile times (a Debug -O0 mp-opt is several times slower than a
Release one); the JIT-compiled step is LLVM -O2 either way (mp-run's and the
Trainer's default opt level).
"""

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "bench"))
import autocast_casts  # noqa: E402
from machine import cpu_name, set_torch_threads  # noqa: E402


def build_type(build):
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            for line in f:
                if line.startswith("CMAKE_BUILD_TYPE:"):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def child_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(command, **kwargs):
    """Runs `command`; returns its CPU seconds."""
    start = child_cpu()
    subprocess.run(command, check=True, **kwargs)
    return child_cpu() - start


def count_ops(mp_opt, path):
    """The operations of the functions' bodies of `path`."""
    stats = subprocess.run([mp_opt, path, "--print-op-stats", "-o", "/dev/null"],
                           check=True, capture_output=True, text=True).stderr
    total = 0
    for name, count in re.findall(r"^\s*([\w.]+)\s*,\s*(\d+)", stats, re.M):
        if name not in ("builtin.module", "func.func", "func.return"):
            total += int(count)
    return total


def mp_run_json(mp_run, path, steps, options, tmp, extra=(), classes=512):
    """mp-run's --json trajectory of `steps` steps of `path` on random data,
    its labels in [0, `classes`) (the bench transformer's vocabulary)."""
    trajectory = os.path.join(tmp, "run.json")
    command = [mp_run, path, "--pipeline=none", "--steps=%d" % steps,
               "--print-every=0", "--num-classes=%d" % classes,
               "--json=" + trajectory]
    if options:
        command.append("--cpu-pipeline-options=" + options)
    subprocess.run(command + list(extra), check=True, stdout=subprocess.DEVNULL)
    with open(trajectory) as f:
        return json.load(f)


def step_times(run_json, count):
    """Wall-clock and CPU seconds of each step of an mp-run --json
    trajectory, its first step left out where mp-run timed each step (as
    PyTorch's warm-up step is: the first touches every buffer); else the
    mean step of the run, once."""
    timed = run_json["steps"][1:]
    if timed and all(step.get("seconds") is not None for step in timed):
        return ([step["seconds"] for step in timed],
                [step["cpu_seconds"] for step in timed])
    return ([run_json["compute_seconds"] / count],
            [run_json["compute_cpu_seconds"] / count])


def median_ms(seconds):
    """The median of `seconds`, in milliseconds."""
    return statistics.median(seconds) * 1e3


def fit(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if n < 2 or sxx == 0:
        return my, 0.0, 1.0
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    a = my - b * mx
    ss = sum((y - my) ** 2 for y in ys)
    res = sum((y - a - b * x) ** 2 for x, y in zip(xs, ys))
    return a, b, 1 - res / ss if ss else 1.0


def scale(args, tmp):
    mp_opt = os.path.join(args.build, "bin", "mp-opt")
    mp_run = os.path.join(args.build, "bin", "mp-run")
    base = args.cpu_pipeline_options
    scalar = (base + " " if base else "") + "vectorize=false"
    print("== Part 1: code size and compile time per input op "
          "(after mp-mixed-precision-pipeline)")
    print("%6s %3s %6s %10s %9s %9s %10s %9s %10s %9s" % (
        "d", "N", "ops", "bytes/op", "cpu-pipe", "ms/op", "mp-run",
        "ms/op", "scalar-run", "ratio"))
    for d in args.d_models:
        layers, compiles = [], []
        for n in args.layers:
            source = os.path.join(tmp, "step.mlir")
            with open(source, "w") as f:
                f.write(autocast_casts.generate(
                    n, dims=dict(D=d, F=4 * d), labels_2d=True))
            mixed = os.path.join(tmp, "mixed.mlir")
            subprocess.run([mp_opt, source, "--mp-mixed-precision-pipeline",
                            "-o", mixed], check=True)
            ops = count_ops(mp_opt, mixed)
            lowered = os.path.join(tmp, "lowered.mlir")
            pipeline = "--mp-cpu-pipeline" + ("=" + base if base else "")
            # Each time the median of --repeats runs (a neighbour's burst
            # inflates CPU seconds too).
            seconds = statistics.median(
                run([mp_opt, mixed, pipeline, "-o", lowered])
                for _ in range(args.repeats))
            size = os.path.getsize(lowered)
            compile_cpu = statistics.median(
                mp_run_json(mp_run, mixed, 1, base, tmp)["compile_cpu_seconds"]
                for _ in range(args.repeats))
            scalar_cpu = None
            if n == args.layers[0] or args.scalar_all:
                scalar_cpu = statistics.median(
                    mp_run_json(mp_run, mixed, 1, scalar,
                                tmp)["compile_cpu_seconds"]
                    for _ in range(args.repeats))
            layers.append(n)
            compiles.append(compile_cpu)
            print("%6d %3d %6d %10.0f %9.2f %9.2f %10.2f %9.2f %10s %9s" % (
                d, n, ops, size / ops, seconds, 1e3 * seconds / ops,
                compile_cpu, 1e3 * compile_cpu / ops,
                "%.2f" % scalar_cpu if scalar_cpu else "-",
                "%.2fx" % (compile_cpu / scalar_cpu) if scalar_cpu else "-"),
                flush=True)
        a, b, r2 = fit(layers, compiles)
        print("   d=%d: mp-run compile = %.2f + %.2f*N s, R^2 %.4f" % (d, a, b, r2))


def torch_block(torch, B, S, D, H, F, V):
    nn = torch.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(V, D)
            self.ln1, self.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)
            self.q, self.k, self.v, self.o = (nn.Linear(D, D) for _ in range(4))
            self.fc1, self.fc2 = nn.Linear(D, F), nn.Linear(F, D)
            self.head = nn.Linear(D, V, bias=False)

        def forward(self, ids):
            x = self.emb(ids)
            h = self.ln1(x)
            split = lambda t: t.view(B, S, H, D // H).transpose(1, 2)
            q, k, v = split(self.q(h)), split(self.k(h)), split(self.v(h))
            p = torch.softmax(q @ k.transpose(-1, -2) * (D // H) ** -0.5, dim=-1)
            a = (p @ v).transpose(1, 2).reshape(B, S, D)
            x = x + self.o(a)
            x = x + self.fc2(nn.functional.gelu(self.fc1(self.ln2(x)),
                                                approximate="tanh"))
            return self.head(x).view(B * S, V)

    return Block()


def torch_times(torch, model, make_batch, loss_fn, optimizer, mode, steps):
    """Wall-clock and CPU seconds of each step after a warm-up step. The CPU
    time is this thread's on one thread (PyTorch's idle pool threads of an
    earlier row may spin), the process's otherwise."""
    batches = [make_batch() for _ in range(steps + 1)]
    cpu_clock = (time.thread_time if torch.get_num_threads() == 1
                 else time.process_time)

    def step(x, y):
        optimizer.zero_grad()
        if mode == "BF16":
            with torch.autocast("cpu", dtype=torch.bfloat16):
                loss = loss_fn(model(x).float(), y)
        else:
            loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()

    step(*batches[0])
    wall, cpu = [], []
    for x, y in batches[1:]:
        start, cpu_start = time.perf_counter(), cpu_clock()
        step(x, y)
        wall.append(time.perf_counter() - start)
        cpu.append(cpu_clock() - cpu_start)
    return wall, cpu


def steps(args, tmp):
    import torch
    mp_opt = os.path.join(args.build, "bin", "mp-opt")
    mp_run = os.path.join(args.build, "bin", "mp-run")
    print("== Part 2: ms/step side by side, the same threads each "
          "(PyTorch %s)" % torch.__version__)
    print("%-34s %-5s %7s %9s %9s %8s %6s %9s %9s %8s" % (
        "model", "mode", "threads", "ours", "PyTorch", "ratio", "vs 1",
        "ours CPU", "PyT. CPU", "ratio"))
    B, S, D, H, F, V = 8, 128, 256, 4, 1024, 512
    block = os.path.join(tmp, "block.mlir")
    with open(block, "w") as f:
        f.write(autocast_casts.generate(
            1, dims=dict(B=B, S=S, D=D, H=H, F=F, V=V), labels_2d=True))
    models = [("MLP 784-256-10 b64 Adam",
               os.path.join(ROOT, "docs/examples/mlp_train_step.mlir"),
               args.steps * 10, "mlp"),
              ("block d256 s128 b8 AdamW", block, args.steps, "block")]
    for name, source, count, key in models:
        if key not in args.models:
            continue
        for mode, compute in (("FP32", "f32"), ("BF16", "bf16"),
                              ("FP16", "f16")):
            if mode not in args.modes:
                continue
            mixed = os.path.join(tmp, "mixed.mlir")
            subprocess.run([mp_opt, source, "--mp-mixed-precision-pipeline="
                            "compute-type=" + compute, "-o", mixed], check=True)
            # Per thread count: our and PyTorch's per-step wall and CPU
            # seconds over every repeat.
            times = {threads: ([], [], [], []) for threads in args.threads}
            for _ in range(args.repeats):
                for threads in args.threads:
                    set_torch_threads(torch, threads)
                    run_json = mp_run_json(
                        mp_run, mixed, count, args.cpu_pipeline_options, tmp,
                        extra=["--threads=%d" % threads],
                        classes=512 if key == "block" else 10)
                    ours, ours_cpu, theirs, theirs_cpu = times[threads]
                    wall, cpu = step_times(run_json, count)
                    ours += wall
                    ours_cpu += cpu
                    if mode != "FP16":
                        wall, cpu = torch_model_times(
                            torch, source == block, mode, count,
                            (B, S, D, H, F, V))
                        theirs += wall
                        theirs_cpu += cpu
            one = None
            for threads in args.threads:
                ours, ours_cpu, theirs, theirs_cpu = (
                    median_ms(seconds) if seconds else None
                    for seconds in times[threads])
                if threads == 1:
                    one = ours
                print_row(name, mode, threads, ours, theirs, one, ours_cpu,
                          theirs_cpu)
    if "conv" in args.models:
        conv_steps(args)


def print_row(name, mode, threads, ours, theirs, one, ours_cpu=None,
              theirs_cpu=None):
    """One row of Part 2: ms/step, ratios and CPU ms/step (PyTorch's `theirs`
    and the CPU times may be None, and the wall-clock times when the row is
    timed by CPU time only)."""
    print("%-34s %-5s %7d %9s %9s %8s %6s %9s %9s %8s" % (
        name, mode, threads, "%.2f" % ours if ours else "-",
        "%.2f" % theirs if theirs else "-",
        "%.2fx" % (theirs / ours) if theirs and ours else "-",
        "%.2fx" % (one / ours) if one and ours else "-",
        "%.2f" % ours_cpu if ours_cpu else "-",
        "%.2f" % theirs_cpu if theirs_cpu else "-",
        "%.2fx" % (theirs_cpu / ours_cpu) if theirs_cpu and ours_cpu else "-"),
        flush=True)


def conv_steps(args):
    """Part 2's rows of the conv net (conv_nets.measure, in process); with
    --conv-cpu-time timed by the process's CPU time (the CPU columns) instead
    of the wall clock."""
    sys.path.insert(0, os.path.join(args.build, "python_packages"))
    import conv_nets  # noqa: E402
    name = "resnet conv-BN-ReLU b32 Adam"
    clock = time.process_time if args.conv_cpu_time else time.perf_counter
    for mode in args.modes:
        # Per thread count: our and PyTorch's ms/step of each repeat.
        runs = {threads: ([], []) for threads in args.threads}
        for _ in range(args.repeats):
            for threads in args.threads:
                ours, theirs, _, _ = conv_nets.measure(
                    "resnet", mode.lower(), args.steps,
                    args.cpu_pipeline_options, threads, clock=clock)
                runs[threads][0].append(ours)
                if theirs is not None:
                    runs[threads][1].append(theirs)
        one = None
        for threads in args.threads:
            ours, theirs = (statistics.median(ms) if ms else None
                            for ms in runs[threads])
            if threads == 1:
                one = ours
            if args.conv_cpu_time:
                print_row(name, mode, threads, None, None, None, ours, theirs)
            else:
                print_row(name, mode, threads, ours, theirs, one)


def torch_model_times(torch, is_block, mode, count, dims):
    """PyTorch's per-step wall-clock and CPU seconds (torch_times) of the
    block (`is_block`) or the MLP."""
    B, S, D, H, F, V = dims
    torch.manual_seed(0)
    if is_block:
        model = torch_block(torch, B, S, D, H, F, V)
        optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4,
                                      betas=(0.9, 0.95))
        make_batch = lambda: (torch.randint(0, V, (B, S)),
                              torch.randint(0, V, (B * S,)))
    else:
        model = torch.nn.Sequential(
            torch.nn.Flatten(), torch.nn.Linear(784, 256),
            torch.nn.ReLU(), torch.nn.Linear(256, 10))
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        make_batch = lambda: (torch.randn(64, 784),
                              torch.randint(0, 10, (64,)))
    return torch_times(torch, model, make_batch,
                       torch.nn.functional.cross_entropy, optimizer, mode,
                       count)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.environ.get(
        "MP_BUILD_DIR", os.path.join(ROOT, "build")))
    parser.add_argument("--layers", default="1,2,4,8,16",
                        type=lambda s: [int(x) for x in s.split(",")])
    parser.add_argument("--d-models", default="64,256",
                        type=lambda s: [int(x) for x in s.split(",")])
    parser.add_argument("--steps", type=int, default=20,
                        help="steps of the block (the MLP runs 10x as many)")
    parser.add_argument("--scalar-all", action="store_true",
                        help="compile every N with vectorize=false too")
    parser.add_argument("--skip-scale", action="store_true")
    parser.add_argument("--conv-cpu-time", action="store_true",
                        help="time the conv net's rows by the process's CPU "
                             "time (a shared machine inflates wall-clock "
                             "times)")
    parser.add_argument("--skip-steps", action="store_true")
    parser.add_argument("--cpu-pipeline-options", default="")
    parser.add_argument("--threads", default="1",
                        type=lambda s: [int(x) for x in s.split(",")],
                        help="thread counts of Part 2's rows")
    parser.add_argument("--repeats", type=int, default=3,
                        help="runs of each row, the thread counts in turn; "
                             "the rows print medians (of the steps of all "
                             "runs; the conv net's: of the runs' means)")
    parser.add_argument("--modes", default="FP32,BF16,FP16",
                        type=lambda s: s.split(","))
    parser.add_argument("--models", default="mlp,block,conv",
                        type=lambda s: s.split(","),
                        help="Part 2's models: mlp, block, conv")
    args = parser.parse_args()
    print("CPU: %s, %d cores; build type of %s: %s" % (
        cpu_name(), os.cpu_count(), args.build, build_type(args.build)))
    with tempfile.TemporaryDirectory() as tmp:
        if not args.skip_scale:
            scale(args, tmp)
        if not args.skip_steps:
            steps(args, tmp)


if __name__ == "__main__":
    main()
