"""mixedprec: MixedPrec's mixed-precision compiler from Python (docs/Python.md).

    import mixedprec
    text = mixedprec.compile(step_text, compute_type="bf16")   # mp-mixed-precision-pipeline
    table = mixedprec.report(step_text)                        # precision report (dict)
    policy = mixedprec.Policy(compute_type="f16", deny=["mp.gelu"])
    result = mixedprec.run(text, steps=100, data=[x, labels])  # numpy in and out

The compiler is MixedPrec's C API (libMixedPrecCAPI.so) through ctypes;
`run` trains on the CPU in process (the C API's engine, the code mp-run
runs). The package needs only NumPy; `mixedprec.torch` (docs/PyTorch.md)
needs PyTorch, which `import mixedprec` never loads.
"""

from .builder import (SGD, Adam, AdamW, BuildError, CosineAnnealingLR, ExponentialLR,
                      LinearLR, LRScheduler, MultiStepLR, SequentialLR, StepLR, TrainStep,
                      Value, lr_schedule_ops)
from .compiler import (CompileError, DeviceError, FunctionSignature, Session, compile,
                       report, signature)
from .policy import Policy
from .runner import RunError, RunResult, run

__all__ = [
    "Adam", "AdamW", "BuildError", "CompileError", "CosineAnnealingLR", "DeviceError",
    "ExponentialLR",
    "FunctionSignature", "LRScheduler", "LinearLR", "MultiStepLR", "Policy", "RunError",
    "RunResult", "SGD", "SequentialLR", "Session", "StepLR", "TrainStep", "Value",
    "compile", "lr_schedule_ops", "report", "run", "signature",
]
