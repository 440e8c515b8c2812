"""What the PyTorch benchmarks share: the machine they ran on, and the timing
of a MixedPrec Trainer beside PyTorch on the same batches."""

import ctypes
import os
import platform
import time


def cpu_name():
    """The CPU's model name (/proc/cpuinfo), else what platform says."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def loaded_openblas():
    """The OpenBLAS libraries this process has loaded (PyTorch's BLAS on
    Debian: libblas.so.3 of openblas-pthread, with its own thread pool)."""
    paths = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split()
            if len(fields) >= 6 and "openblas" in os.path.basename(fields[-1]):
                paths.add(fields[-1])
    return sorted(paths)


def set_torch_threads(torch, threads):
    """Runs PyTorch on `threads` threads: its intra-op pool
    (torch.set_num_threads) and OpenBLAS's pool, which Debian's
    python3-torch calls for f32 matmuls and which torch.set_num_threads
    leaves at one thread per core (so a "one-thread" PyTorch matmul ran on
    every core, and a two-thread step oversubscribed them)."""
    torch.set_num_threads(threads)
    for path in loaded_openblas():
        library = ctypes.CDLL(path)
        if hasattr(library, "openblas_set_num_threads"):
            library.openblas_set_num_threads(threads)


def time_side_by_side(trainer, torch_step, batches, clock=time.perf_counter,
                      with_cpu=False, threads=1):
    """Steps `trainer` and `torch_step(x, y)` (which returns PyTorch's loss)
    over `batches`, the first one a warm-up, and returns (our ms/step,
    PyTorch's ms/step, the largest relative loss difference), timed by
    `clock` (wall-clock by default; time.process_time gives the process's
    CPU time, what a shared machine inflates least); with `with_cpu` also
    the process's CPU ms/step of each (all its threads).

    On one thread the two step alternately. On more (`threads`), all of our
    steps run first and then all of PyTorch's, a pause between: each side's
    idle threads spin for a while after its parallel loops (LLVM's OpenMP
    runtime 200 ms, PyTorch's GNU OpenMP and OpenBLAS pools theirs), so
    alternating steps ran each side beside the other's spinning threads (on
    2 cores: our conv step 20.6 ms instead of 12.9 alone, PyTorch's 25.5
    instead of 13.3)."""
    def timed(step, x, y):
        t0, c0 = clock(), time.process_time()
        value = float(step(x, y))
        return value, clock() - t0, time.process_time() - c0

    def ours_step(x, y):
        return trainer.step(x, y)["loss"]

    # Per side: [loss, wall, cpu] of each step.
    if threads > 1:
        our_steps = [timed(ours_step, x, y) for x, y in batches]
        time.sleep(0.5)
        their_steps = [timed(torch_step, x, y) for x, y in batches]
    else:
        our_steps, their_steps = [], []
        for x, y in batches:
            our_steps.append(timed(ours_step, x, y))
            their_steps.append(timed(torch_step, x, y))
    losses = [loss for loss, _, _ in our_steps]
    refs = [ref for ref, _, _ in their_steps]
    # Wall and CPU seconds after each side's first step (a warm-up).
    ours = sum(wall for _, wall, _ in our_steps[1:])
    ours_cpu = sum(cpu for _, _, cpu in our_steps[1:])
    theirs = sum(wall for _, wall, _ in their_steps[1:])
    theirs_cpu = sum(cpu for _, _, cpu in their_steps[1:])
    worst = max(abs(loss - ref) / abs(ref) for loss, ref in zip(losses, refs))
    steps = max(len(batches) - 1, 1)
    result = (ours / steps * 1e3, theirs / steps * 1e3, worst)
    if with_cpu:
        result += (ours_cpu / steps * 1e3, theirs_cpu / steps * 1e3)
    return result
