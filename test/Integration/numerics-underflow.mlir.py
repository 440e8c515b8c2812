# Inputs and checks of numerics-underflow.mlir.
#   inputs DIR: DIR/arg1.npy (x, one batch)
#   check DIR:  compares the gradients (= -saved w) of the three runs
import os
import sys

import numpy as np

CASES = [("tiny", 1e-7), ("small", 1e-5)]

if sys.argv[1] == "inputs":
    x = np.random.default_rng(0).uniform(0.5, 1.0, (4, 16)).astype(np.float32)
    np.save(os.path.join(sys.argv[2], "arg1.npy"), x)
    sys.exit(0)

for name, c in CASES:
    def gradient(run):
        return -np.load(os.path.join(sys.argv[2], name, run, "arg0.npy")
                        ).astype(np.float64)
    reference, plain, scaled = map(gradient, ["f32", "f16", "scaled"])
    def relative_error(g):
        return float(np.abs(g - reference).max() / np.abs(reference).min())
    print("c = %g: f32 |dW| in [%.3e, %.3e]"
          % (c, np.abs(reference).min(), np.abs(reference).max()))
    if name == "tiny":
        print("c = %g: f16 without scaling: all zero %s"
              % (c, bool(np.all(plain == 0))))
    else:
        print("c = %g: f16 without scaling: max relative error %.4f, above 1%% %s"
              % (c, relative_error(plain), relative_error(plain) > 0.01))
    print("c = %g: f16 with S = 65536: all non-zero %s, max relative error "
          "%.5f, within 1%% %s"
          % (c, bool(np.all(scaled != 0)), relative_error(scaled),
             relative_error(scaled) < 0.01))
