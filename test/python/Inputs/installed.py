import os
import sys

import mixedprec
from mixedprec import _capi, runner

prefix = os.path.realpath(sys.argv[1])
print("library in prefix:", os.path.realpath(_capi.library_path()).startswith(prefix + "/"))
print("mp-run in prefix:", os.path.realpath(runner.mp_run_path()).startswith(prefix + "/"))
step = mixedprec.TrainStep()
w = step.param("w", (2, 3))
x = step.input("x", (4, 3))
labels = step.input("labels", (4,), "i64")
text = mixedprec.compile(step.build(step.cross_entropy(step.linear(x, w), labels),
                                    mixedprec.SGD(lr=0.1)), compute_type="bf16")
print("compiled:", "mp.grad" not in text)
print("trained: %d steps" % len(mixedprec.run(text, steps=2).losses))
