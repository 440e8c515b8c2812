# Checks the parameters numerics-stagnation.mlir saved.
import sys

import numpy as np

root = sys.argv[1]
w16 = np.load(root + "/f16/arg0.npy")
print("pure f16: dtype %s, w = %s" % (w16.dtype, w16))
print("pure f16 stagnates: %s" % bool(np.all(w16 == np.float16(1.0))))
w32 = np.load(root + "/master/arg0.npy")
error = float(np.abs(w32.astype(np.float64) - 0.999).max())
print("f32 master: dtype %s, max |w - 0.999| = %.3e" % (w32.dtype, error))
print("f32 master within 1e-4 of 0.999: %s" % (error < 1e-4))
