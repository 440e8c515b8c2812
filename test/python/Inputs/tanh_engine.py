"""Elementwise mp functions compiled in process (mixedprec.compiler) and run
on an f32 array: mp.tanh and tanh GELU for test/python/tanh.py and
tanh_torch.py, mp.exp and mp.sigmoid for test/python/exp.py."""

import ctypes

import numpy as np

from mixedprec.compiler import Session, memref_descriptor

N = 1 << 16


def function_text(ops):
    """@f of one tensor<Nxf32> argument returning, for each op text of `ops`
    (e.g. "mp.tanh %x"), its result."""
    types = ", ".join([f"tensor<{N}xf32>"] * len(ops))
    body = "\n".join(f"  %r{i} = {op} : tensor<{N}xf32>"
                     for i, op in enumerate(ops))
    results = ", ".join(f"%r{i}" for i in range(len(ops)))
    return (f"func.func @f(%x: tensor<{N}xf32>) -> ({types}) {{\n{body}\n"
            f"  return {results} : {types}\n}}")


def near(value, count):
    """The 2·count f32 bit patterns around that of `value`."""
    bits = np.float32(value).view(np.uint32)
    return np.arange(bits - count, bits + count, dtype=np.uint32)


def pad(x):
    """`x` with zeros appended up to a multiple of the compiled size."""
    return np.concatenate([x, np.zeros(-len(x) % N, x.dtype)])


def run_elementwise(ops, x, options_list):
    """For each mp-cpu-pipeline options string, the results of the ops
    (function_text) on x, a tuple; len(x) must be a multiple of N."""
    session = Session()
    module = session.parse(function_text(ops))
    results = []
    for options in options_list:
        engine = module.engine(options)
        outputs = tuple(np.empty_like(x) for _ in ops)
        for start in range(0, len(x), N):
            buffers = [np.ascontiguousarray(x[start:start + N])] + [
                np.empty(N, np.float32) for _ in ops]
            descriptors = [memref_descriptor(b) for b in buffers]
            pointers = (ctypes.c_void_p * len(buffers))(*[
                ctypes.cast(ctypes.pointer(d), ctypes.c_void_p)
                for d in descriptors])
            engine.invoke("f", pointers)
            for output, buffer in zip(outputs, buffers[1:]):
                output[start:start + N] = buffer
        engine.close()
        results.append(outputs)
    module.close()
    session.close()
    return results


def tanh_and_gelu(x, options_list):
    """For each mp-cpu-pipeline options string, (tanh(x), gelu(x)) of the
    compiled function; len(x) must be a multiple of N."""
    return run_elementwise(["mp.tanh %x", "mp.gelu %x approximate tanh"], x,
                           options_list)
