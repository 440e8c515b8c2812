"""Runs an ahead-of-time step library of `mp-run --emit-library` from Python.

    aot_step.py DIR --load INIT_DIR --data DATA_DIR --steps N
                [--cuda-driver LIB] [--json FILE] [--save DIR]

DIR holds step.so and manifest.json (docs/MpRun.md, "Step libraries"). The
library needs neither MLIR nor LLVM: it is opened with ctypes, its
constructors load the CUDA driver (libcuda.so.1, or $MP_CUDA_DRIVER such as
build/lib/libmp_cuda_sim.so) and its GPU binaries, and its C interface is
called with memref descriptors of device buffers, as `mp-run --device=cuda`
does for a device-resident step: the parameters and state are copied to the
device once, each step copies in its batch, runs on the runner's stream (the
library's step stream) and feeds every `mp.updates` result back as the next
step's argument by swapping buffers; only the loss, the skipped flag and the
loss-scale state come back per step.

The command line mirrors `mp-run --load INIT_DIR --data=npy:DATA_DIR
--shuffle=false` (parameters N from INIT_DIR/argN.npy, the batch of step k
the samples [kB, (k+1)B) of DATA_DIR/argN.npy) and writes the same --json
and --save files, so test/Integration/GPU/Inputs/compare_runs.py compares the
two runs. tools/bench/gpu/train_steps.py imports StepLibrary to time steps
on a GPU. numpy only.
"""

import argparse
import ctypes
import json
import os
import sys
import time

import numpy as np

# Element kinds of the manifest: the numpy dtype of their storage (bf16 and
# the FP8 formats as their bits) and of their .npy files (mp-run's
# getNpyStorageKind: f32 for bf16 and FP8).
STORAGE = {
    "f64": np.float64, "f32": np.float32, "f16": np.float16,
    "bf16": np.uint16, "f8E4M3FN": np.uint8, "f8E5M2": np.uint8,
    "i64": np.int64, "i32": np.int32, "i8": np.int8, "i1": np.uint8,
}


def bf16_bits(values):
    """f32 values rounded to bf16 (to nearest, ties to even), as bits."""
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
    rounded = bits + 0x7FFF + ((bits >> 16) & 1)
    rounded = np.where(np.isnan(values.astype(np.float32)),
                       bits | 0x400000, rounded)
    return (rounded >> 16).astype(np.uint16)


def to_storage(values, dtype):
    """`values` (any float or integer array) in the storage of `dtype`."""
    values = np.asarray(values)
    if dtype == "bf16":
        return bf16_bits(values.astype(np.float32))
    if dtype.startswith("f8"):
        raise ValueError(f"no conversion to {dtype} here: give the bits")
    return values.astype(STORAGE[dtype])


def from_storage(raw, dtype):
    """The values of storage `raw` of `dtype` (bf16 widened to f32)."""
    if dtype == "bf16":
        return (raw.astype(np.uint32) << 16).view(np.float32)
    if dtype == "i1":
        return raw.astype(np.bool_)
    return raw


class Buffer:
    """A device buffer and the memref descriptor that points at it."""

    def __init__(self, spec, pointer):
        self.spec = spec
        self.shape = tuple(spec["shape"])
        rank = len(self.shape)
        strides = [1] * rank
        for d in range(rank - 2, -1, -1):
            strides[d] = strides[d + 1] * self.shape[d + 1]
        self.descriptor = (ctypes.c_int64 * (3 + 2 * rank))(
            pointer, pointer, 0, *self.shape, *strides)
        self.pointer = pointer

    def bind(self, pointer):
        self.pointer = pointer
        self.descriptor[0] = self.descriptor[1] = pointer


class StepLibrary:
    """A device-resident step library (DIR/step.so, DIR/manifest.json)."""

    def __init__(self, directory, driver=None):
        with open(os.path.join(directory, "manifest.json")) as f:
            self.manifest = json.load(f)
        if not self.manifest["device_resident"]:
            raise ValueError(f"{directory}: the step is not device-resident "
                             "(lower it with --device=cuda)")
        # The library's constructors load the driver named here.
        if driver:
            os.environ["MP_CUDA_DRIVER"] = os.path.abspath(driver)
        lib = ctypes.CDLL(os.path.join(os.path.abspath(directory), "step.so"))
        self.lib = lib
        p, u64, size = ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t
        lib.mpCudaLoadDriver.argtypes = [ctypes.c_char_p, ctypes.c_char_p, size]
        lib.mpCudaTakeError.argtypes = [ctypes.c_char_p, size]
        lib.mpCudaSetStepStream.argtypes = [p]
        lib.mpCudaGetAllocatorStats.argtypes = [ctypes.POINTER(u64)]
        lib.mgpuStreamCreate.restype = p
        lib.mgpuStreamSynchronize.argtypes = [p]
        lib.mgpuStreamDestroy.argtypes = [p]
        lib.mgpuMemAlloc.argtypes = [u64, p, ctypes.c_bool]
        lib.mgpuMemAlloc.restype = p
        lib.mgpuMemFree.argtypes = [p, p]
        lib.mgpuMemcpy.argtypes = [p, p, size, p]
        message = ctypes.create_string_buffer(4096)
        if lib.mpCudaLoadDriver(None, message, len(message)):
            raise RuntimeError(message.value.decode())
        self.check("opening the library")
        self.stream = lib.mgpuStreamCreate()
        self.entry = getattr(lib, self.manifest["entry"])
        self.entry.restype = None
        self.arguments = self.manifest["arguments"]
        self.results = self.manifest["results"]
        self.entry.argtypes = [p] * (len(self.arguments) + len(self.results))
        self.buffers = [Buffer(spec, self.alloc(spec["bytes"]))
                        for spec in self.arguments + self.results]
        self.loss = self.manifest["loss_result"]
        self.skipped = self.manifest["skipped_result"]
        self.scale = self.manifest["loss_scale_argument"]

    def check(self, what):
        message = ctypes.create_string_buffer(4096)
        if self.lib.mpCudaTakeError(message, len(message)):
            raise RuntimeError(f"{what} on the GPU: {message.value.decode()}")

    def alloc(self, nbytes):
        return self.lib.mgpuMemAlloc(max(nbytes, 1), self.stream, False)

    def upload(self, pointer, array):
        array = np.ascontiguousarray(array)
        self.lib.mgpuMemcpy(pointer, array.ctypes.data, array.nbytes,
                            self.stream)
        return array  # kept alive by the caller until the stream is synced

    def download(self, pointer, spec):
        raw = np.empty(spec["shape"], STORAGE[spec["dtype"]])
        self.lib.mgpuMemcpy(raw.ctypes.data, pointer, raw.nbytes, self.stream)
        return raw

    def sync(self):
        self.lib.mgpuStreamSynchronize(self.stream)

    def data_arguments(self):
        return [a["index"] for a in self.arguments if a["role"] == "data"]

    def initialize(self, params, seed=0):
        """Copies the initial arguments to the device: `params` maps the
        index of each parameter to its values; state as mp-run initialises
        it (a working copy from its parameter, `mp.init`, [seed, 0] for the
        rng, 1 for bn.running_var, else 0); data zero until the first step."""
        host = []
        for a in self.arguments:
            dtype, shape = a["dtype"], a["shape"]
            if a["role"] == "param":
                values = to_storage(np.asarray(params[a["index"]]).reshape(shape),
                                    dtype)
            elif a["role"] == "state" and "copy_of" in a:
                values = to_storage(np.asarray(params[a["copy_of"]])
                                    .astype(np.float64).reshape(shape), dtype)
            elif a["role"] == "state" and a["state"] == "rng" and a["init"] is None:
                values = np.array([seed, 0], np.int64)
            elif a["role"] == "state" and a["init"] is not None:
                # A number (splat) or every element in row-major order.
                # (integers exactly: an rng seed may exceed 2^53).
                init = np.asarray(a["init"], np.int64 if dtype.startswith("i")
                                  else np.float64)
                values = to_storage(init.reshape(shape) if init.size > 1
                                    else np.broadcast_to(init, shape), dtype)
            elif a["role"] == "state" and a["state"] == "bn.running_var":
                values = to_storage(np.ones(shape), dtype)
            else:
                values = np.zeros(shape, STORAGE[dtype])
            host.append(self.upload(self.buffers[a["index"]].pointer, values))
        self.sync()
        self.check("copying the arguments in")

    def call(self, data_pointers=None, loss_pointer=None):
        """Queues one step on the stream: the data arguments bound to
        `data_pointers` (index: device pointer) when given, the loss written
        to `loss_pointer` when given; feeds the updates back."""
        for index, pointer in (data_pointers or {}).items():
            self.buffers[index].bind(pointer)
        n = len(self.arguments)
        if loss_pointer is not None:
            self.buffers[n + self.loss].bind(loss_pointer)
        self.lib.mpCudaSetStepStream(self.stream)
        try:
            self.entry(*[ctypes.addressof(b.descriptor) for b in self.buffers])
        finally:
            self.lib.mpCudaSetStepStream(None)
        for r in self.results:
            if r["role"] == "update":
                a, result = self.buffers[r["updates"]], self.buffers[n + r["index"]]
                pointer = a.pointer
                a.bind(result.pointer)
                result.bind(pointer)

    def step(self, batch):
        """Runs one step on `batch` (index: array) and returns (loss, scale
        before the step or None, skipped)."""
        scale = None
        if self.scale >= 0:
            spec = self.arguments[self.scale]
            scale = float(from_storage(self.download(
                self.buffers[self.scale].pointer, spec), spec["dtype"]))
        kept = [self.upload(self.buffers[i].pointer,
                            to_storage(batch[i], self.arguments[i]["dtype"]))
                for i in self.data_arguments()]
        self.call()
        n = len(self.arguments)
        loss_spec = self.results[self.loss]
        loss = self.download(self.buffers[n + self.loss].pointer, loss_spec)
        skipped = None
        if self.skipped >= 0:
            skipped = self.download(self.buffers[n + self.skipped].pointer,
                                    self.results[self.skipped])
        self.sync()
        del kept
        self.check("the step")
        loss = float(from_storage(loss, loss_spec["dtype"]))
        return loss, scale, bool(skipped) if skipped is not None else False

    def time_steps(self, batches, repeat):
        """Times `repeat` steps cycling through `batches` (each index:
        array), all uploaded before the clock starts, each step's loss into
        its own device buffer: no host synchronisation between steps.
        Returns (seconds per step, losses)."""
        uploaded = []
        kept = []
        for batch in batches:
            pointers = {}
            for i in self.data_arguments():
                values = to_storage(batch[i], self.arguments[i]["dtype"])
                pointers[i] = self.alloc(values.nbytes)
                kept.append(self.upload(pointers[i], values))
            uploaded.append(pointers)
        loss_spec = self.results[self.loss]
        losses = [self.alloc(loss_spec["bytes"]) for _ in range(repeat)]
        self.sync()
        start = time.perf_counter()
        for k in range(repeat):
            self.call(uploaded[k % len(uploaded)], losses[k])
        self.sync()
        seconds = (time.perf_counter() - start) / max(repeat, 1)
        self.check("the timed steps")
        values = [float(from_storage(self.download(pointer, loss_spec),
                                     loss_spec["dtype"])) for pointer in losses]
        self.sync()
        # The data and loss buffers of the step's descriptors go back to
        # those of the library.
        n = len(self.arguments)
        for i in self.data_arguments():
            self.buffers[i].bind(self.alloc(self.arguments[i]["bytes"]))
        self.buffers[n + self.loss].bind(self.alloc(loss_spec["bytes"]))
        for pointer in losses + [p for d in uploaded for p in d.values()]:
            self.lib.mgpuMemFree(pointer, self.stream)
        return seconds, values

    def arguments_to_host(self):
        """Every argument's values (bf16 widened to f32), index: array."""
        raws = {a["index"]: self.download(self.buffers[a["index"]].pointer, a)
                for a in self.arguments}
        self.sync()
        return {i: from_storage(raw, self.arguments[i]["dtype"])
                for i, raw in raws.items()}


def save_npy_like_mp_run(lib, directory):
    """mp-run --save: the parameters and forward state as DIR/argN.npy."""
    os.makedirs(directory, exist_ok=True)
    values = lib.arguments_to_host()
    for a in lib.arguments:
        if a["role"] == "param" or (a["role"] == "state" and a["forward_state"]):
            array = values[a["index"]]
            if a["dtype"] in ("bf16", "f8E4M3FN", "f8E5M2"):
                array = array.astype(np.float32)
            np.save(os.path.join(directory, f"arg{a['index']}.npy"), array)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("library")
    parser.add_argument("--load", required=True,
                        help="parameter N from DIR/argN.npy")
    parser.add_argument("--data", required=True,
                        help="data argument N from DIR/argN.npy (samples "
                             "along dimension 0, taken in order)")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cuda-driver")
    parser.add_argument("--json")
    parser.add_argument("--save")
    args = parser.parse_args()
    lib = StepLibrary(args.library, args.cuda_driver)
    params = {a["index"]: np.load(os.path.join(args.load, f"arg{a['index']}.npy"))
              for a in lib.arguments if a["role"] == "param"}
    lib.initialize(params, args.seed)
    samples = {i: np.load(os.path.join(args.data, f"arg{i}.npy"))
               for i in lib.data_arguments()}
    print(f"aot_step: @{lib.manifest['function']} for {args.steps} steps, "
          f"device cuda ({os.environ.get('MP_CUDA_DRIVER', 'libcuda.so.1')})")
    records = []
    for step in range(1, args.steps + 1):
        batch = {}
        for i, values in samples.items():
            b = lib.arguments[i]["shape"][0]
            first = ((step - 1) * b) % values.shape[0]
            batch[i] = values[first:first + b]
        loss, scale, skipped = lib.step(batch)
        records.append({"step": step, "loss": loss, "loss_scale": scale,
                        "skipped": skipped})
        print(f"step {step:6d}  loss {loss:<14.9g}  "
              f"scale {'-' if scale is None else f'{scale:.9g}'}  "
              f"{'skipped' if skipped else 'ok'}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"function": lib.manifest["function"],
                       "device": "cuda", "steps": records}, f, indent=2)
    if args.save:
        save_npy_like_mp_run(lib, args.save)
    return 0


if __name__ == "__main__":
    sys.exit(main())
