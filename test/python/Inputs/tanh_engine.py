"""mp.tanh and tanh GELU compiled in process (mixedprec.compiler) and run on
an f32 array, for test/python/tanh.py and tanh_torch.py."""

import ctypes

import numpy as np

from mixedprec.compiler import Session, memref_descriptor

N = 1 << 16
TEXT = f"""
func.func @f(%x: tensor<{N}xf32>) -> (tensor<{N}xf32>, tensor<{N}xf32>) {{
  %t = mp.tanh %x : tensor<{N}xf32>
  %g = mp.gelu %x approximate tanh : tensor<{N}xf32>
  return %t, %g : tensor<{N}xf32>, tensor<{N}xf32>
}}"""


def pad(x):
    """`x` with zeros appended up to a multiple of the compiled size."""
    return np.concatenate([x, np.zeros(-len(x) % N, x.dtype)])


def tanh_and_gelu(x, options_list):
    """For each mp-cpu-pipeline options string, (tanh(x), gelu(x)) of the
    compiled function; len(x) must be a multiple of N."""
    session = Session()
    module = session.parse(TEXT)
    results = []
    for options in options_list:
        engine = module.engine(options)
        tanh, gelu = np.empty_like(x), np.empty_like(x)
        for start in range(0, len(x), N):
            buffers = [np.ascontiguousarray(x[start:start + N]),
                       np.empty(N, np.float32), np.empty(N, np.float32)]
            descriptors = [memref_descriptor(b) for b in buffers]
            pointers = (ctypes.c_void_p * 3)(*[
                ctypes.cast(ctypes.pointer(d), ctypes.c_void_p)
                for d in descriptors])
            engine.invoke("f", pointers)
            tanh[start:start + N], gelu[start:start + N] = buffers[1], buffers[2]
        engine.close()
        results.append((tanh, gelu))
    module.close()
    session.close()
    return results
