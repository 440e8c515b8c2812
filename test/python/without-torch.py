# `import mixedprec` keeps working without PyTorch: with torch and
# torchvision made unimportable, the package imports, builds, compiles and
# trains a step in process (mixedprec.run); only `import mixedprec.torch`
# fails, with an ImportError that names the Debian package to install.
# REQUIRES: numpy
# RUN: %python %s | FileCheck %s

import importlib.abc
import sys


class NoTorch(importlib.abc.MetaPathFinder):
    """Makes torch, torchvision and their submodules unimportable, as on a
    machine without python3-torch."""

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("torch", "torchvision", "functorch"):
            raise ModuleNotFoundError(f"No module named '{name}'", name=name)
        return None


sys.meta_path.insert(0, NoTorch())
for name in list(sys.modules):
    if name.split(".")[0] in ("torch", "torchvision", "functorch"):
        del sys.modules[name]

import numpy as np  # noqa: E402

import mixedprec  # noqa: E402

step = mixedprec.TrainStep()
w = step.param("w", (3, 4))
x = step.input("x", (8, 4))
t = step.input("t", (8, 3))
pred = step.linear(x, w)
text = step.build(step.mse(pred, t), mixedprec.SGD(lr=0.1), predict=pred)
rng = np.random.default_rng(0)
X = rng.normal(size=(8, 4)).astype(np.float32)
T = rng.normal(size=(8, 3)).astype(np.float32)
result = mixedprec.run(mixedprec.compile(text, compute_type="bf16"), steps=3, data=[X, T],
                       shuffle=False)
print("torch loaded:", "torch" in sys.modules)
print("trained:", len(result.losses), "steps, falling:", bool(result.losses[-1] < result.losses[0]))
# CHECK: torch loaded: False
# CHECK-NEXT: trained: 3 steps, falling: True

try:
    import mixedprec.torch  # noqa: E402,F401
except ImportError as error:
    print(type(error).__name__ + ":", error)
# CHECK-NEXT: ImportError: mixedprec.torch needs PyTorch 1.13 or later (Debian: python3-torch, python3-torchvision)
