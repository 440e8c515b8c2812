"""What the PyTorch benchmarks share: the machine they ran on, and the timing
of a MixedPrec Trainer beside PyTorch on the same batches."""

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


def time_side_by_side(trainer, torch_step, batches):
    """Steps `trainer` and `torch_step(x, y)` (which returns PyTorch's loss)
    alternately over `batches`, the first one a warm-up, and returns
    (our ms/step, PyTorch's ms/step, the largest relative loss difference)."""
    ours = theirs = worst = 0.0
    for i, (x, y) in enumerate(batches):
        t0 = time.perf_counter()
        loss = trainer.step(x, y)["loss"]
        t1 = time.perf_counter()
        ref = float(torch_step(x, y))
        t2 = time.perf_counter()
        worst = max(worst, abs(loss - ref) / abs(ref))
        if i > 0:
            ours += t1 - t0
            theirs += t2 - t1
    steps = max(len(batches) - 1, 1)
    return ours / steps * 1e3, theirs / steps * 1e3, worst
