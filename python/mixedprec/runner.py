"""mixedprec.run: train a step on the CPU for N steps with numpy arrays in and
out, in process: the step is lowered and JIT-compiled by the C API's engine
(compiler.Engine, mp-c/Engine.h, the code mp-run runs) and called on numpy
buffers that hold the parameters and all state between steps.

It follows mp-run's contract (docs/MpRun.md) number for number: the same
seeded generators (xoshiro256** seeded by splitmix64, one stream each for
the parameter initialisation, the batch order and random data), the same
initial state, the same batches and the same evaluation, so that a run here
and `mp-run --seed=S` of the same module give the same losses
(test/python/run.py checks it). Element conversions round to nearest even
from double, as mp-run's `HostTensor::set` does; f8 parameters and data are
not supported here (mp-run handles them).
"""

import ctypes
import math
import os
import re
import time

try:
    import numpy as np
except ImportError:  # compile/report work without numpy; run needs it
    np = None

from . import _config, compiler
from .compiler import signature

# How mp-run reads and writes each element type in .npy files.
NUMPY_DTYPES = {
    "f32": "<f4", "f16": "<f2", "bf16": "<f4", "f8E4M3FN": "<f4", "f8E5M2": "<f4",
    "f64": "<f8", "i64": "<i8", "i32": "<i4", "i8": "|i1", "i1": "|b1",
}

# The numpy type of each element type's storage in a buffer of the engine
# (bf16 and f8 as their bit patterns).
STORAGE_DTYPES = {
    "f32": "float32", "f64": "float64", "f16": "float16", "bf16": "uint16",
    "f8E4M3FN": "uint8", "f8E5M2": "uint8", "i64": "int64", "i32": "int32", "i8": "int8",
    "i1": "bool",
}

# mp-run's generator streams (tools/mp-run/Data.h).
INIT_STREAM, ORDER_STREAM, DATA_STREAM = 1, 2, 3
FASHION_MNIST_DIR = "/usr/share/datasets/fashion-mnist"
_MASK = (1 << 64) - 1


class RunError(Exception):
    """A run failed while training (`message`; `diagnostics`: the engine's
    MLIR diagnostics, if any). Compilation failures raise
    compiler.CompileError, whose diagnostics name the op and its source
    line; arrays that do not fit the step raise ValueError."""

    def __init__(self, message, diagnostics=""):
        self.message = message
        self.diagnostics = diagnostics
        super().__init__(message if not diagnostics.strip()
                         else message + "\n" + diagnostics.rstrip("\n"))


class RunResult:
    """The trajectory and final state of a run.

    - `losses`, `loss_scales` (NaN without a loss-scale state; the scale each
      step ran with), `skipped` (bool): one entry per step, numpy arrays;
    - `params`: the final parameters (`mp.param` arguments, in order; f32
      masters after master weights), numpy arrays; `param_indices` their
      argument numbers;
    - `accuracy` (with evaluation, else None), `eval` ({"function",
      "correct", "total", "accuracy"});
    - `trajectory`: the same as a dict shaped like mp-run's --json."""

    def __init__(self, trajectory, params, param_indices):
        steps = trajectory["steps"]
        self.trajectory = trajectory
        self.losses = np.array([s["loss"] for s in steps], dtype=np.float64)
        self.loss_scales = np.array([np.nan if s.get("loss_scale") is None else s["loss_scale"]
                                     for s in steps], dtype=np.float64)
        self.skipped = np.array([bool(s["skipped"]) for s in steps], dtype=bool)
        self.params = params
        self.param_indices = param_indices
        self.eval = trajectory.get("eval")
        self.accuracy = self.eval["accuracy"] if self.eval else None
        self.steps_per_second = trajectory.get("steps_per_second")

    @property
    def final_loss(self):
        return float(self.losses[-1]) if len(self.losses) else None

    def __repr__(self):
        return "<mixedprec.RunResult %d steps, final loss %s, %d skipped%s>" % (
            len(self.losses), self.final_loss, int(self.skipped.sum()),
            "" if self.accuracy is None else ", accuracy %.4f" % self.accuracy)


def mp_run_path():
    """The mp-run executable: $MIXEDPREC_MP_RUN, else the one of the build
    tree or install prefix the package belongs to (mixedprec.run itself
    runs in process; this is for running the same step with mp-run)."""
    return os.environ.get("MIXEDPREC_MP_RUN") or _config.mp_run()


# --- mp-run's generator ------------------------------------------------------

def _split_mix(x):
    x = (x + 0x9e3779b97f4a7c15) & _MASK
    z = x
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & _MASK
    return x, z ^ (z >> 31)


def _rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & _MASK


class Random:
    """mp-run's generator (tools/mp-run/Data.cpp): xoshiro256**, seeded with
    splitmix64 from `seed` and `stream`."""

    def __init__(self, seed, stream):
        x = (seed ^ (stream * 0xd1342543de82ef95)) & _MASK
        self.state = []
        for _ in range(4):
            x, word = _split_mix(x)
            self.state.append(word)

    def next(self):
        s = self.state
        result = (_rotl((s[1] * 5) & _MASK, 7) * 9) & _MASK
        t = (s[1] << 17) & _MASK
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = _rotl(s[3], 45)
        return result

    def uniform(self):
        return (self.next() >> 11) * 2.0 ** -53

    def normal(self):
        u1 = 1.0 - self.uniform()
        u2 = self.uniform()
        return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)

    def below(self, bound):
        limit = _MASK - _MASK % bound
        while True:
            value = self.next()
            if value < limit:
                return value % bound


# --- element conversions -----------------------------------------------------

def encode(values, dtype):
    """`values` (array-like, read as float64 unless integer) as the storage
    of `dtype`, rounded to nearest even from double like mp-run."""
    values = np.asarray(values)
    if dtype != "bf16" and not dtype.startswith("f8") and \
            values.dtype == np.dtype(STORAGE_DTYPES[dtype]):
        return values
    if dtype in ("i64", "i32", "i8"):
        return values.astype(np.float64).astype(np.int64).astype(STORAGE_DTYPES[dtype]) \
            if values.dtype.kind == "f" else values.astype(STORAGE_DTYPES[dtype])
    if dtype == "i1":
        return values != 0
    wide = values.astype(np.float64)
    if dtype in ("f32", "f64", "f16"):
        return wide.astype(STORAGE_DTYPES[dtype])
    if dtype == "bf16":
        # Round to odd to f32 (exact in the 16 bits bf16 drops), then to
        # nearest even to bf16: one correct rounding from double.
        narrow = wide.astype(np.float32)
        inexact = (narrow.astype(np.float64) != wide) & np.isfinite(wide)
        bits = narrow.view(np.uint32).copy()
        even = (bits & 1) == 0
        toward = np.where(np.abs(narrow.astype(np.float64)) > np.abs(wide), -1, 1)
        fix = inexact & even
        bits[fix] = (bits[fix].astype(np.int64) + toward[fix]).astype(np.uint32)
        rounded = (bits.astype(np.uint64) + 0x7FFF + ((bits >> 16) & 1)) >> 16
        nan = np.isnan(wide)
        return np.where(nan, 0x7FC0, rounded).astype(np.uint16)
    raise ValueError("mixedprec.run cannot convert to %s in process (mp-run can)" % dtype)


def decode(storage, dtype):
    """The values of a buffer of `dtype` as float64 (integers as int64)."""
    if dtype == "bf16":
        return (storage.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if dtype in ("i64", "i32", "i8"):
        return storage.astype(np.int64)
    if dtype.startswith("f8"):
        raise ValueError("mixedprec.run cannot read %s in process (mp-run can)" % dtype)
    return storage.astype(np.float64)


def _convert(storage, from_dtype, to_dtype):
    """mp-run's convertFrom: a copy when the types agree, else through double."""
    if from_dtype == to_dtype:
        return storage.copy()
    return encode(decode(storage, from_dtype), to_dtype)


# --- buffers -----------------------------------------------------------------

class Buffers:
    """The argument and result buffers of one compiled function, with the
    packed pointers to their memref descriptors that Engine.invoke takes."""

    def __init__(self, signature):
        self.signature = signature
        self.arguments = [np.zeros(a.spec.shape, STORAGE_DTYPES[a.spec.dtype])
                          for a in signature.arguments]
        self.results = [np.zeros(r.shape, STORAGE_DTYPES[r.dtype]) for r in signature.results]
        count = len(self.arguments) + len(self.results)
        self.descriptors = [None] * count
        self.pointers = (ctypes.c_void_p * count)()
        for i in range(count):
            self._bind(i)

    def _bind(self, slot):
        n = len(self.arguments)
        array = self.arguments[slot] if slot < n else self.results[slot - n]
        self.descriptors[slot] = (compiler.memref_descriptor(array), array)
        self.pointers[slot] = ctypes.addressof(self.descriptors[slot][0])

    def set_argument(self, index, array):
        self.arguments[index] = array
        self._bind(index)

    def feed_back(self):
        """Makes each `mp.updates = N` result the next argument N."""
        n = len(self.arguments)
        descriptors, pointers = self.descriptors, self.pointers
        for r, a in self.signature.updates.items():
            self.arguments[a], self.results[r] = self.results[r], self.arguments[a]
            descriptors[a], descriptors[n + r] = descriptors[n + r], descriptors[a]
            pointers[a], pointers[n + r] = pointers[n + r], pointers[a]


class DeviceBuffers:
    """Device buffers of one function of a "cuda" engine whose module is
    device-resident, one per argument and result, shaped as the host
    Buffers `host`: `pointers` (what Engine.invoke takes) point to the
    device. `borrowed` maps argument indices to the device addresses of
    another DeviceBuffers' arguments, bound instead of allocated (a predict
    function reading the train step's parameters). The slots `packed` (in
    that order) share one allocation, each at a 64-byte aligned offset
    (device_step_packing: what a step's runner reads after each step, so
    that DeviceStaging copies it out at once). Copies go on the engine's
    stream."""

    #: The alignment of each slot in a packed allocation.
    PACKED_ALIGNMENT = 64

    def __init__(self, engine, host, borrowed=None, packed=None):
        if engine.device != "cuda" or not engine.device_resident:
            raise ValueError("DeviceBuffers need a cuda engine of a device-resident module")
        self.engine = engine
        self.host = host
        self.signature = host.signature
        self._count = len(host.arguments) + len(host.results)
        self.addresses = [None] * self._count
        self._owned = []
        borrowed = borrowed or {}
        self._borrowed = set(borrowed)
        packed = [slot for slot in (packed or []) if slot not in borrowed]
        # The packed allocation: (base address, bytes), if any.
        self.block = None
        if packed:
            align = self.PACKED_ALIGNMENT
            offsets, size = {}, 0
            for slot in packed:
                offsets[slot] = size
                size += (self._array(slot).nbytes + align - 1) // align * align
            base = engine.device_alloc(size)
            self._owned.append(base)
            self.block = (base, size)
            for slot, offset in offsets.items():
                self.addresses[slot] = base + offset
        for slot in range(self._count):
            if slot in borrowed:
                self.addresses[slot] = borrowed[slot]
            elif self.addresses[slot] is None:
                self.addresses[slot] = engine.device_alloc(self._array(slot).nbytes)
                self._owned.append(self.addresses[slot])
        self.descriptors = [None] * self._count
        self.pointers = (ctypes.c_void_p * self._count)()
        for slot in range(self._count):
            self._bind(slot)

    def _array(self, slot):
        n = len(self.host.arguments)
        return self.host.arguments[slot] if slot < n else self.host.results[slot - n]

    def in_block(self, slot):
        """True if slot `slot` lies in the packed allocation now."""
        if self.block is None:
            return False
        base, size = self.block
        return base <= self.addresses[slot] < base + size

    def _bind(self, slot):
        self.descriptors[slot] = compiler.memref_descriptor(self._array(slot),
                                                            self.addresses[slot])
        self.pointers[slot] = ctypes.addressof(self.descriptors[slot])

    def bind_argument(self, index, address):
        """Points argument `index` at `address` (device memory not owned)."""
        self.addresses[index] = address
        self._borrowed.add(index)
        self._bind(index)

    def copy_in(self, index, array=None):
        """Enqueues the copy of `array` (default: the host argument) to
        argument `index`; a pageable source may be reused once this
        returns."""
        array = self.host.arguments[index] if array is None else np.ascontiguousarray(array)
        expected = self.host.arguments[index]
        if array.nbytes != expected.nbytes:
            raise ValueError("argument %d takes %d bytes, got %d"
                             % (index, expected.nbytes, array.nbytes))
        self.engine.copy(self.addresses[index], array.ctypes.data, array.nbytes)

    def copy_all_in(self):
        """Enqueues the copy of every argument not borrowed from the host
        Buffers."""
        for index in range(len(self.host.arguments)):
            if index not in self._borrowed:
                self.copy_in(index)

    def copy_out(self, slot, array=None):
        """Enqueues the copy of slot `slot` (arguments, then results) into
        `array` (default: the host buffer)."""
        array = self._array(slot) if array is None else array
        self.engine.copy(array.ctypes.data, self.addresses[slot], array.nbytes)

    def copy_arguments_to_host(self):
        """Copies every argument to the host Buffers and waits."""
        for index in range(len(self.host.arguments)):
            self.copy_out(index)
        self.engine.synchronize()

    def feed_back(self):
        """Makes each `mp.updates = N` result the next argument N on the
        device (swapping buffers)."""
        n = len(self.host.arguments)
        for r, a in self.signature.updates.items():
            self.addresses[a], self.addresses[n + r] = self.addresses[n + r], self.addresses[a]
            self._bind(a)
            self._bind(n + r)

    def close(self):
        if self.engine is not None:
            self.engine.synchronize()
            for address in self._owned:
                self.engine.device_free(address)
            self._owned = []
            self.engine = None


class PendingStep:
    """What a step queued on a "cuda" engine copied out (results and
    arguments staged in page-locked memory behind an event): `values()`
    waits for the event, once, and returns {slot: numpy array}."""

    def __init__(self, staging, ring):
        self._staging = staging
        self._ring = ring
        self._values = None

    @property
    def ready(self):
        return self._values is not None

    def values(self):
        if self._values is None:
            self._values = self._staging._collect(self._ring)
        return self._values


class DeviceStaging:
    """Two page-locked slots, each with an event, that a device-resident
    step's loss, skipped flag and loss-scale state are copied into after the
    step is queued, so that the caller queues step k + 1 before it waits for
    step k's values: the step itself makes no host synchronisation, and the
    caller one (the event's) per step. `slots` are the DeviceBuffers slots
    (arguments, then results) to stage."""

    def __init__(self, buffers, slots):
        self.buffers = buffers
        self.engine = buffers.engine
        self.slots = list(slots)
        size = 16 + (buffers.block[1] if buffers.block else 0)
        for slot in self.slots:
            size += (buffers._array(slot).nbytes + 15) & ~15
        self._size = size
        self._memory = [self.engine.host_alloc(self._size) for _ in range(2)]
        self._events = [self.engine.event() for _ in range(2)]
        self._pending = [None, None]
        # Per staging slot: [(slot, offset in it)] of the last stage.
        self._layouts = [None, None]
        self._next = 0

    def _copies(self):
        """The copies that stage the slots now: one for the slots in the
        DeviceBuffers' packed allocation (from the lowest address to the end
        of the highest; which ones lie there alternates as the loss-scale
        state is fed back, device_step_packing), one per other slot;
        [(device address, bytes, [(slot, offset in the copy)])]."""
        addresses = self.buffers.addresses
        nbytes = lambda slot: self.buffers._array(slot).nbytes  # noqa: E731
        packed = sorted((s for s in self.slots if self.buffers.in_block(s)),
                        key=lambda s: addresses[s])
        copies = []
        if packed:
            start = addresses[packed[0]]
            end = max(addresses[s] + nbytes(s) for s in packed)
            copies.append((start, end - start, [(s, addresses[s] - start) for s in packed]))
        for slot in self.slots:
            if slot not in packed:
                copies.append((addresses[slot], nbytes(slot), [(slot, 0)]))
        return copies

    def stage(self):
        """Enqueues the copies into the next slot and records its event; a
        PendingStep for them. The step staged two calls ago is collected
        first if nobody did (its slot is reused)."""
        ring = self._next
        self._next ^= 1
        if self._pending[ring] is not None:
            self._pending[ring].values()
        layout, offset = [], 0
        for address, size, slots in self._copies():
            self.engine.copy(self._memory[ring] + offset, address, size)
            layout += [(slot, offset + within) for slot, within in slots]
            offset += (size + 15) & ~15
        self._layouts[ring] = layout
        self.engine.record(self._events[ring])
        pending = PendingStep(self, ring)
        self._pending[ring] = pending
        return pending

    def _collect(self, ring):
        self.engine.wait(self._events[ring])
        raw = (ctypes.c_char * self._size).from_address(self._memory[ring])
        values = {}
        for slot, offset in self._layouts[ring]:
            array = self.buffers._array(slot)
            values[slot] = np.frombuffer(raw, dtype=array.dtype, count=array.size,
                                         offset=offset).reshape(array.shape).copy()
        self._pending[ring] = None
        return values

    def close(self):
        if self.engine is not None:
            for pending in self._pending:
                if pending is not None:
                    pending.values()
            for memory in self._memory:
                self.engine.host_free(memory)
            for event in self._events:
                self.engine.event_destroy(event)
            self.engine = None


class BatchStaging:
    """The data arguments `indices` of a DeviceBuffers, copied in through
    page-locked memory (MpEngineStaging: two slots, each guarded by an
    event): `upload({index: array})` writes each batch array into the next
    slot and enqueues its asynchronous copy to the device, so that the copy
    never waits for the stream (as one from pageable memory may) and the
    next batch is written into the other slot meanwhile."""

    def __init__(self, buffers, indices):
        self.buffers = buffers
        self.engine = buffers.engine
        self._layout = {}
        size = 0
        for index in indices:
            nbytes = buffers.host.arguments[index].nbytes
            self._layout[index] = (size, nbytes)
            size += (nbytes + 15) & ~15
        self._size = size
        self._staging = self.engine.staging(size) if size else None

    def upload(self, arrays):
        """Copies `arrays` ({argument index: array of its storage dtype},
        every index of the staging) to the device."""
        if self._staging is None:
            return
        slot = self.engine.staging_acquire(self._staging)
        raw = (ctypes.c_char * self._size).from_address(slot)
        for index, array in arrays.items():
            offset, nbytes = self._layout[index]
            array = np.ascontiguousarray(array)
            if array.nbytes != nbytes:
                raise ValueError("argument %d takes %d bytes, got %d"
                                 % (index, nbytes, array.nbytes))
            np.frombuffer(raw, dtype=np.uint8, count=nbytes, offset=offset)[...] = \
                array.reshape(-1).view(np.uint8)
            self.engine.staging_copy(self._staging, self.buffers.addresses[index],
                                     offset, nbytes)
        self.engine.staging_release(self._staging)

    def close(self):
        if self._staging is not None and self.engine is not None:
            self.engine.staging_destroy(self._staging)
        self._staging = None
        self.engine = None


def device_step_slots(step):
    """The DeviceBuffers slots a train step's runner reads after each step:
    the loss, the skipped flag and the loss-scale state arguments (after
    the results were fed back), as mp-run stages them (tools/mp-run/Device.h)."""
    n = len(step.arguments)
    slots = [n + step.loss_result]
    if step.skipped_result is not None:
        slots.append(n + step.skipped_result)
    slots += [a.index for a in step.arguments if a.state_kind in LOSS_SCALE_STATE]
    return slots


def device_step_packing(step):
    """The slots of device_step_slots in the order DeviceBuffers packs them
    into one allocation: the update results of the staged state, the loss
    and skipped flag, the staged state arguments. The state and its update
    swap buffers each step (feed_back), so after a step the staged slots
    are the loss, the skipped flag and either block of state next to them:
    one copy out either way."""
    n = len(step.arguments)
    staged = device_step_slots(step)
    results = [n + step.loss_result]
    if step.skipped_result is not None:
        results.append(n + step.skipped_result)
    state = [slot for slot in staged if slot < n]
    update = {a: r for r, a in step.updates.items()}
    return [n + update[a] for a in state if a in update] + results + state


#: The state kinds of dynamic loss scaling (mp-run's isLossScaleState).
LOSS_SCALE_STATE = ("loss_scale", "growth_tracker", "hysteresis_tracker")


# --- initial values and data ---------------------------------------------------

def _threads(requested):
    """The threads of `run(threads=...)`, as mp-run's --threads: the
    requested number, or for 0 the first number of OMP_NUM_THREADS where set,
    else the CPUs this process may run on."""
    if requested:
        return requested
    first = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    if first.isdigit() and int(first) > 0:
        return int(first)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def _cpu_options(options, threads):
    """`options` of mp-cpu-pipeline with `threads=N` added for `threads`
    (_threads: 0 is all cores) other than 1, as mp-run adds its --threads;
    no thread count changes a computed bit. A `threads=` already in
    `options` wins."""
    options = options or ""
    if re.search(r"(^|\s)threads=", options):
        return options
    threads = _threads(threads)
    if threads != 1:
        options = (options + " threads=%d" % threads).strip()
    return options


def _by_index(values, arguments, what):
    """{argument index: array} from a list in argument order or a dict keyed
    by argument index."""
    indices = [a.index for a in arguments]
    if isinstance(values, dict):
        unknown = set(values) - set(indices)
        if unknown:
            raise ValueError("%s: no %s argument number %s (they are %s)"
                             % (what, what, sorted(unknown), indices))
        if set(values) != set(indices):
            raise ValueError("%s: arrays for arguments %s expected, got %s"
                             % (what, indices, sorted(values)))
        return dict(values)
    values = list(values)
    if len(values) != len(indices):
        raise ValueError("%s: %d arrays expected (arguments %s), got %d"
                         % (what, len(indices), indices, len(values)))
    return dict(zip(indices, values))


def _checked(array, spec, batched, what):
    """`array` as mp-run reads it back from the .npy file mixedprec.run used
    to write (NUMPY_DTYPES), after checking its shape against `spec`."""
    array = np.asarray(array)
    expected = tuple(spec.shape[1:]) if batched else tuple(spec.shape)
    got = tuple(array.shape[1:]) if batched else tuple(array.shape)
    if batched and not spec.shape:
        expected, got = (), tuple(array.shape[1:])
    if got != expected or (batched and array.ndim == 0):
        raise ValueError("%s: shape %s does not fit %r%s" % (
            what, list(array.shape), spec, " (samples along dimension 0)" if batched else ""))
    return array.astype(NUMPY_DTYPES[spec.dtype], copy=False)


def _initialize_parameters(buffers, params, init, seed):
    """mp-run's initializeParameters: kaiming-uniform, normal or zeros."""
    random = Random(seed, INIT_STREAM)
    shapes = [tuple(a.spec.shape) for a in params]
    for index, argument in enumerate(params):
        shape = shapes[index]
        size = int(np.prod(shape, dtype=np.int64))
        fan_in = 1
        if len(shape) >= 2:
            fan_in = size // shape[0]
        elif len(shape) == 1:
            fan_in = shape[0]
            for previous in range(index - 1, -1, -1):
                weight = shapes[previous]
                if len(weight) >= 2 and weight[0] == shape[0]:
                    fan_in = int(np.prod(weight, dtype=np.int64)) // weight[0]
                    break
        bound = 1.0 / math.sqrt(max(fan_in, 1))
        if init == "kaiming-uniform":
            values = [-bound + 2 * bound * random.uniform() for _ in range(size)]
        elif init == "normal":
            values = [bound * random.normal() for _ in range(size)]
        else:
            values = [0.0] * size
        buffers.arguments[argument.index][...] = encode(
            np.array(values, dtype=np.float64).reshape(shape), argument.spec.dtype)


def _initialize_state(buffers, step, seed):
    """mp-run's initial state: working copies from their masters, the rng
    state from its mp.init or [seed, 0], other mp.init values, a batch-norm
    running variance 1, zeros otherwise."""
    for argument in step.of_role("state"):
        buffer = buffers.arguments[argument.index]
        dtype = argument.spec.dtype
        if argument.copy_of is not None:
            master = step.arguments[argument.copy_of]
            buffer[...] = _convert(buffers.arguments[argument.copy_of], master.spec.dtype, dtype)
        elif argument.state_kind == "rng":
            words = argument.init_values or [seed, 0]
            buffer[...] = np.array([w & _MASK for w in words], dtype=np.uint64).view(np.int64)
        elif argument.init_values is not None:
            buffer[...] = encode(np.array(argument.init_values).reshape(buffer.shape), dtype)
        elif argument.init is not None:
            buffer[...] = encode(np.full(buffer.shape, argument.init), dtype)
        elif argument.state_kind == "bn.running_var":
            buffer[...] = encode(np.ones(buffer.shape), dtype)


class _BatchOrder:
    """mp-run's BatchOrder: consecutive batches of a (shuffled every epoch)
    order of the samples."""

    def __init__(self, count, batch, shuffle, seed):
        self.batch, self.shuffle = batch, shuffle
        self.random = Random(seed, ORDER_STREAM)
        self.order = list(range(count))
        self.position = count

    def next(self):
        if self.position + self.batch > len(self.order):
            if self.shuffle:
                order = self.order
                for i in range(len(order), 1, -1):
                    j = self.random.below(i)
                    order[i - 1], order[j] = order[j], order[i - 1]
            self.position = 0
        batch = self.order[self.position:self.position + self.batch]
        self.position += self.batch
        return np.array(batch, dtype=np.int64)


def _batch_size(step, data_arguments):
    sizes = {a.spec.shape[0] if a.spec.shape else 1 for a in data_arguments}
    if len(sizes) > 1:
        raise ValueError("the data arguments of '@%s' disagree on the batch size (their first "
                         "dimension): %s" % (step.name, sorted(sizes)))
    return sizes.pop() if sizes else 1


def _load_fashion_mnist(directory, split):
    """mp-run's loadFashionMNIST: [N, 784] f32 images in [0, 1], [N] i64
    labels, from the IDX files (gzipped or not) of `directory`."""
    import gzip

    def read(name, rank):
        for path in (os.path.join(directory, name), os.path.join(directory, name + ".gz")):
            if os.path.exists(path):
                opener = gzip.open if path.endswith(".gz") else open
                with opener(path, "rb") as file:
                    raw = file.read()
                dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(rank)]
                return np.frombuffer(raw, np.uint8, offset=4 + 4 * rank).reshape(dims)
        raise ValueError("Fashion-MNIST: no '%s[.gz]' in '%s' (install the Debian package "
                         "dataset-fashion-mnist, or give data='fashion-mnist:DIR')"
                         % (name, directory))

    images = read(split + "-images-idx3-ubyte", 3)
    labels = read(split + "-labels-idx1-ubyte", 1)
    inputs = (images.reshape(len(images), -1).astype(np.float64) / 255.0).astype(np.float32)
    return inputs, labels.astype(np.int64)


def _load_text_windows(path, length, vocabulary):
    """mp-run's loadTextWindows: the bytes of the file `path` as token ids,
    in ⌊(bytes - 1) / length⌋ non-overlapping windows [count, length] (i64)
    and, as labels, the same windows one byte later."""
    try:
        with open(path, "rb") as file:
            raw = np.frombuffer(file.read(), np.uint8)
    except OSError as error:
        raise ValueError("cannot read the text file '%s': %s" % (path, error.strerror)) from None
    if len(raw) < length + 1:
        raise ValueError("the text file '%s' holds %d bytes, fewer than one window of %d tokens "
                         "and its next token" % (path, len(raw), length))
    outside = np.flatnonzero(raw >= vocabulary)
    if len(outside):
        offset = int(outside[0])
        raise ValueError("the text file '%s' holds the byte %d at offset %d, outside the step's "
                         "vocabulary of %d tokens (a token is a byte; a vocabulary of 256 takes "
                         "any file)" % (path, raw[offset], offset, vocabulary))
    count = (len(raw) - 1) // length
    tokens = raw.astype(np.int64)
    return (tokens[:count * length].reshape(count, length),
            tokens[1:count * length + 1].reshape(count, length))


def _text_arrays(step, data_arguments, path, vocabularies):
    """The samples of `data="text:FILE"` as mp-run's --data=text binds
    them: {ids argument: windows, labels argument: next-byte windows}."""
    ids, labels = (data_arguments + [None, None])[:2]
    dtype = ids.spec.dtype if ids else "f32"
    if len(data_arguments) != 2 or dtype.startswith("f") or dtype == "bf16" or \
            len(ids.spec.shape) != 2 or labels.spec.dtype != dtype or \
            labels.spec.shape != ids.spec.shape:
        raise ValueError("'@%s' does not take language-model data: data='text:FILE' expects two "
                         "integer data arguments [batch, tokens] of one shape (token ids, then "
                         "next-token labels)" % step.name)
    if step.name not in vocabularies:
        raise ValueError("data='text:FILE': no mp.embedding of '@%s' reads a data argument, so "
                         "its vocabulary is unknown (give the mp-level step, not a lowered one)"
                         % step.name)
    windows, following = _load_text_windows(path, ids.spec.shape[1], vocabularies[step.name])
    return {ids.index: windows, labels.index: following}


def _classifier_arguments(step, data_arguments, features, need_labels):
    """mp-run's bindClassifierData: the image argument and the label
    argument (or None) of a classifier on `features` values per sample."""
    inputs = labels = None
    unexpected = False
    for argument in data_arguments:
        spec = argument.spec
        is_float = spec.dtype.startswith("f") or spec.dtype == "bf16"
        per_sample = int(np.prod(spec.shape[1:], dtype=np.int64)) if spec.shape else 0
        if is_float and inputs is None and spec.shape and per_sample == features:
            inputs = argument
        elif not is_float and labels is None and len(spec.shape) == 1 and spec.dtype != "i1":
            labels = argument
        else:
            unexpected = True
    if unexpected or inputs is None or (labels is None if need_labels else labels is not None):
        raise ValueError("'@%s' does not take classifier data: expected one float argument "
                         "[batch, ...] with %d values per sample%s besides its mp.param and "
                         "mp.state arguments" % (step.name, features, " and one integer label "
                                                 "argument [batch]" if need_labels else ""))
    return inputs, labels


def _fashion_mnist_dir(data):
    if data == "fashion-mnist":
        return FASHION_MNIST_DIR
    if isinstance(data, str) and data.startswith("fashion-mnist:"):
        return data[len("fashion-mnist:"):]
    return None


def _data_source(step, data, seed, shuffle, num_classes, vocabularies):
    """A function that fills the data arguments of a Buffers for one step
    (`vocabularies`: Module.embedding_vocabularies of the mp-level module,
    for text data)."""
    data_arguments = step.of_role("data")
    batch = _batch_size(step, data_arguments)
    if data is None or data == "random":
        random = Random(seed, DATA_STREAM)

        def fill_random(buffers):
            for argument in data_arguments:
                dtype = argument.spec.dtype
                shape = tuple(argument.spec.shape)
                size = int(np.prod(shape, dtype=np.int64))
                if dtype.startswith("f") or dtype == "bf16":
                    values = [random.normal() for _ in range(size)]
                else:
                    bound = 2 if dtype == "i1" else num_classes
                    values = [random.below(bound) for _ in range(size)]
                buffers.arguments[argument.index][...] = encode(
                    np.array(values, dtype=np.float64).reshape(shape), dtype)
        return fill_random

    if not data_arguments:
        raise ValueError("'@%s' has no data arguments for data %r" % (step.name, data))
    directory = _fashion_mnist_dir(data)
    if directory is not None:
        images, labels = _load_fashion_mnist(directory, "train")
        inputs, label_argument = _classifier_arguments(step, data_arguments, 784, True)
        arrays = {inputs.index: images, label_argument.index: labels}
    elif isinstance(data, str) and data.startswith("text:"):
        arrays = _text_arrays(step, data_arguments, data[len("text:"):], vocabularies)
    elif isinstance(data, str):
        raise ValueError("unknown data %r (expected None, 'random', 'fashion-mnist[:DIR]', "
                         "'text:FILE' or arrays)" % data)
    else:
        arrays = {}
        for index, array in _by_index(data, data_arguments, "data").items():
            arrays[index] = _checked(array, step.arguments[index].spec, True,
                                     "data argument %d" % index)
        counts = {len(a) for a in arrays.values()}
        if len(counts) > 1:
            raise ValueError("data: the arrays hold different numbers of samples: %s"
                             % sorted(counts))
    # Each sample array in the storage of its argument, converted once.
    samples = {i: encode(a, step.arguments[i].spec.dtype) for i, a in arrays.items()}
    available = len(next(iter(samples.values())))
    if available < batch:
        raise ValueError("data: %d samples, fewer than one batch of %d" % (available, batch))
    order = _BatchOrder(available, batch, shuffle, seed)

    def fill_samples(buffers):
        indices = order.next()
        for index, array in samples.items():
            buffers.arguments[index][...] = array[indices].reshape(
                buffers.arguments[index].shape)
    return fill_samples


def _evaluate(engine, functions, eval_function, step, train, test):
    """mp-run's evaluateClassifier: the share of correct argmaxes of
    `eval_function` over `test` (inputs, labels), on the trained parameters
    and forward state."""
    if eval_function not in functions:
        raise ValueError("eval_function: no function '@%s' in the module" % eval_function)
    entry = functions[eval_function]
    buffers = Buffers(entry)
    params = step.of_role("param")
    next_param, ordinal, data_arguments = 0, {}, []
    for argument in entry.arguments:
        if argument.role == "data":
            data_arguments.append(argument)
            continue
        if argument.role == "state":
            kind = argument.state_kind or ""
            if not (kind == "rng" or kind.split(".")[0] in ("bn", "lr_scheduler", "forward")):
                raise ValueError("argument %d of '@%s' is mp.state \"%s\", which is not forward "
                                 "state; an eval function takes parameters, forward state "
                                 "(bn.*, rng, ...) and inputs" % (argument.index, entry.name, kind))
            k = ordinal[kind] = ordinal.get(kind, -1) + 1
            matches = [a for a in step.of_role("state") if a.state_kind == kind]
            if k >= len(matches) or matches[k].spec.shape != argument.spec.shape:
                raise ValueError("argument %d of '@%s' (%r) matches no \"%s\" state argument of "
                                 "'@%s'" % (argument.index, entry.name, argument.spec, kind,
                                            step.name))
            source = matches[k]
        else:
            if next_param >= len(params) or \
                    params[next_param].spec.shape != argument.spec.shape:
                raise ValueError("parameter argument %d of '@%s' (%r) does not match parameter "
                                 "%d of '@%s'" % (argument.index, entry.name, argument.spec,
                                                  next_param, step.name))
            source = params[next_param]
            next_param += 1
        buffers.set_argument(argument.index, _convert(
            train.arguments[source.index], source.spec.dtype, argument.spec.dtype))
    if next_param != len(params):
        raise ValueError("'@%s' takes %d parameters, '@%s' has %d"
                         % (entry.name, next_param, step.name, len(params)))
    if not entry.results or len(entry.results[0].shape) != 2:
        raise ValueError("the first result of '@%s' must be float logits [batch, classes]"
                         % entry.name)
    inputs, labels = test
    features = int(np.prod(inputs.shape[1:], dtype=np.int64))
    image, _ = _classifier_arguments(entry, data_arguments, features, False)
    size = image.spec.shape[0]
    if entry.results[0].shape[0] != size:
        raise ValueError("the logits of '@%s' do not have the batch size %d" % (entry.name, size))
    samples = encode(inputs.astype(np.float32), image.spec.dtype)
    correct = 0
    for start in range(0, len(inputs), size):
        # The last batch is padded with copies of sample 0; their
        # predictions are ignored.
        valid = min(size, len(inputs) - start)
        indices = [start + i if i < valid else 0 for i in range(size)]
        buffers.arguments[image.index][...] = samples[indices].reshape(image.spec.shape)
        engine.invoke(entry.name, buffers.pointers)
        logits = decode(buffers.results[0], entry.results[0].dtype)[:valid]
        correct += int((logits.argmax(axis=1) == labels[start:start + valid]).sum())
    total = len(inputs)
    return {"function": eval_function, "correct": correct, "total": total,
            "accuracy": correct / total if total else 0.0}


def _check_loss_scale(number, skipped, scale, now, hysteresis_value):
    """mp-run's stop: a skipped step that left the loss scale where it was
    although it should have backed off (`now`: the scale after the step,
    `hysteresis_value`: the hysteresis tracker after it, or None)."""
    if not skipped or scale is None:
        return
    backs_off = hysteresis_value is None or hysteresis_value <= 0
    if now >= scale and backs_off:
        raise RunError(
            "step %d: the gradients are not finite and the loss scale cannot back "
            "off below its minimum %g; every further step would be skipped, so "
            "training stops here" % (number, scale))


def _run_on_device(engine, train, step, steps, fill, scale_argument, hysteresis, records):
    """The steps of `run` on a "cuda" engine: `train` (host Buffers with the
    initial values) goes to the device once; per step the data arguments go
    in, the step is queued, and the previous step's staged values are read;
    the final arguments come back into `train` at the end."""
    device = DeviceBuffers(engine, train, packed=device_step_packing(step))
    staging = batch = None
    try:
        device.copy_all_in()
        engine.synchronize()
        staging = DeviceStaging(device, device_step_slots(step))
        data = [a.index for a in step.arguments if a.role == "data"]
        batch = BatchStaging(device, data)
        n = len(step.arguments)
        loss_dtype = step.results[step.loss_result].dtype

        def scalar(values, slot, dtype):
            return float(decode(values[slot], dtype).reshape(-1)[0])

        scale = None if scale_argument is None else \
            scalar({0: train.arguments[scale_argument.index]}, 0, scale_argument.spec.dtype)

        def finish(number, pending, scale):
            values = pending.values()
            skipped = step.skipped_result is not None and \
                bool(values[n + step.skipped_result].reshape(-1)[0])
            loss = scalar(values, n + step.loss_result, loss_dtype)
            records.append({"step": number, "loss": loss, "loss_scale": scale,
                            "skipped": skipped})
            now = None
            if scale_argument is not None:
                now = scalar(values, scale_argument.index, scale_argument.spec.dtype)
                _check_loss_scale(number, skipped, scale, now, None if hysteresis is None else
                                  scalar(values, hysteresis.index, hysteresis.spec.dtype))
            return now

        pending = None
        for number in range(1, steps + 1):
            fill(train)
            batch.upload({index: train.arguments[index] for index in data})
            engine.invoke(step.name, device.pointers)
            device.feed_back()
            queued = staging.stage()
            # Step `number` is queued: now read the previous one.
            if pending is not None:
                scale = finish(number - 1, pending, scale)
            pending = queued
        if pending is not None:
            finish(steps, pending, scale)
        device.copy_arguments_to_host()
    finally:
        if batch is not None:
            batch.close()
        if staging is not None:
            staging.close()
        device.close()


def run(module_text, steps, data=None, params=None, pipeline="auto", seed=0, init=None,
        shuffle=True, eval_data=None, eval_function="predict", function=None,
        cpu_pipeline_options=None, num_classes=None, timeout=None, threads=0, opt_level=2,
        device="cpu", gpu_pipeline_options=""):
    """Runs the train step of `module_text` (mp IR, for instance
    `mixedprec.compile`'s output, or a lowered module) on the CPU for `steps`
    steps in process, as `mp-run --seed=SEED` would, and returns a RunResult.

    - `data`: the batches: a list of arrays, one per data argument in
      argument order (or a dict argument number -> array), each holding all
      samples along dimension 0 (batches of the argument's first dimension
      are drawn from them, in a seeded order unless `shuffle=False`);
      "random" or None: seeded N(0, 1) floats and integers in
      [0, num_classes) (default 10); "fashion-mnist[:DIR]": its training
      split (Debian's dataset-fashion-mnist by default); "text:FILE": a
      character-level language model on the bytes of FILE, as mp-run's
      --data=text:FILE (two integer data arguments [B, T], token ids then
      next-token labels; the vocabulary is that of the mp.embedding that
      reads the ids).
    - `params`: initial parameters (list in `mp.param` order, or dict
      argument number -> array); None: the `init` scheme
      ("kaiming-uniform", the default, "normal" or "zeros") from `seed`.
    - `pipeline`: passes run before mp-cpu-pipeline ("auto": mp-autodiff
      when the module still holds mp.grad; "none"; or a pass pipeline such
      as "mp-mixed-precision-pipeline{compute-type=bf16}").
    - `eval_data`: (inputs, labels) arrays to report the accuracy of
      `eval_function` on after training (True with data="fashion-mnist":
      its test split).
    - `threads`: mp-run's `--threads` (0, the default: all cores, or
      OMP_NUM_THREADS where set; 1: no OpenMP); `opt_level`: its
      `--opt-level`; the results do not depend on either.
    - `device`: "cpu", or "cuda" as `mp-run --device=cuda`: the step is
      lowered with mp-gpu-pipeline{gpu_pipeline_options} (device-resident)
      and runs on an NVIDIA GPU; the parameters and state stay on the
      device, each step copies in its batch and is queued without a host
      synchronisation, and its loss, skipped flag and loss scale are read
      (staged in page-locked memory) after the next step is queued. No CUDA
      driver is a compiler.DeviceError; `eval_data` and `threads` are CPU
      options.
    - `timeout` is accepted for compatibility and ignored.

    Raises compiler.CompileError when the module does not parse, verify or
    lower (its diagnostics name the op and line), ValueError for arrays that
    do not fit the step's signature, RunError when the loss scale cannot
    back off any further."""
    del timeout
    if np is None:
        raise ImportError("mixedprec.run needs numpy (Debian: python3-numpy)")
    if init not in (None, "kaiming-uniform", "normal", "zeros"):
        raise ValueError("init: %r is not kaiming-uniform, normal or zeros" % init)
    if device not in compiler.DEVICES:
        raise ValueError("device: %r is not 'cpu' or 'cuda'" % (device,))
    if device == "cuda" and eval_data is not None:
        raise ValueError("eval_data runs the classifier on host buffers; device='cuda' "
                         "lowers the module device-resident")
    step = signature(module_text, function, "<mixedprec.run>")
    if eval_data is not None and eval_data is not True and (data is None or isinstance(data, str)):
        raise ValueError("eval_data arrays need data given as arrays")
    test = None
    if eval_data is True:
        directory = _fashion_mnist_dir(data)
        if directory is None:
            raise ValueError("eval_data=True needs data='fashion-mnist[:DIR]'")
        test = _load_fashion_mnist(directory, "t10k")
    elif eval_data is not None:
        inputs, labels = np.asarray(eval_data[0]), np.asarray(eval_data[1])
        if labels.ndim != 1 or len(labels) != len(inputs):
            raise ValueError("eval_data: labels must be [N] for inputs [N, ...]")
        test = (inputs.astype(np.float32, copy=False), labels.astype(np.int64, copy=False))

    session = compiler.Session()
    engine = None
    try:
        compile_start = time.time()
        with session.parse(module_text, "<mixedprec.run>") as module:
            vocabularies = module.embedding_vocabularies()
            pre = pipeline or "none"
            if pre == "auto":
                pre = "func.func(mp-autodiff)" if re.search(r"\bmp\.grad\b", module.text()) \
                    else "none"
            if pre != "none":
                module.run(pre)
            functions = {f.name: f for f in module.functions()}
            # The signature after the pipeline (master weights and loss
            # scaling add state arguments).
            step = functions[step.name]
            options = (_cpu_options(cpu_pipeline_options, threads)
                       if device == "cpu" else cpu_pipeline_options or "")
            engine = module.engine(options, opt_level, device, gpu_pipeline_options)
            if device == "cuda" and not engine.device_resident:
                raise ValueError("device='cuda' runs device-resident steps; mp-gpu-pipeline's "
                                 "device-resident=false is not supported here")
        compile_seconds = time.time() - compile_start
        train = Buffers(step)
        params_arguments = step.of_role("param")
        if params is None:
            _initialize_parameters(train, params_arguments, init or "kaiming-uniform", seed)
        else:
            for index, array in _by_index(params, params_arguments, "params").items():
                spec = step.arguments[index].spec
                train.arguments[index][...] = encode(
                    _checked(array, spec, False, "parameter %d" % index), spec.dtype)
        _initialize_state(train, step, seed)
        fill = _data_source(step, data, seed, shuffle, 10 if num_classes is None else num_classes,
                            vocabularies)

        scale_argument = next((a for a in step.arguments if a.state_kind == "loss_scale"), None)
        hysteresis = next((a for a in step.arguments if a.state_kind == "hysteresis_tracker"),
                          None)
        loss_dtype = step.results[step.loss_result].dtype
        records = []
        run_start = time.time()
        if device == "cuda":
            _run_on_device(engine, train, step, steps, fill, scale_argument, hysteresis,
                           records)
        else:
            for number in range(1, steps + 1):
                fill(train)
                scale = None
                if scale_argument is not None:
                    scale = float(decode(train.arguments[scale_argument.index],
                                         scale_argument.spec.dtype).reshape(-1)[0])
                before = None
                if step.skipped_result is None:
                    before = {a: train.arguments[a].copy() for a in step.updates.values()}
                engine.invoke(step.name, train.pointers)
                if step.skipped_result is not None:
                    skipped = bool(train.results[step.skipped_result].reshape(-1)[0])
                else:
                    skipped = bool(step.updates) and all(
                        np.array_equal(train.results[r].view(np.uint8),
                                       before[a].view(np.uint8)) for r, a in step.updates.items())
                loss = float(decode(train.results[step.loss_result], loss_dtype).reshape(-1)[0])
                records.append({"step": number, "loss": loss, "loss_scale": scale,
                                "skipped": skipped})
                train.feed_back()
                if skipped and scale is not None:
                    _check_loss_scale(
                        number, skipped, scale,
                        float(decode(train.arguments[scale_argument.index],
                                     scale_argument.spec.dtype).reshape(-1)[0]),
                        None if hysteresis is None else
                        float(decode(train.arguments[hysteresis.index],
                                     hysteresis.spec.dtype).reshape(-1)[0]))
        run_seconds = time.time() - run_start
        trajectory = {"function": step.name, "steps": records, "seed": seed, "device": device,
                      "compile_seconds": compile_seconds,
                      "steps_per_second": steps / run_seconds if run_seconds > 0 else None}
        if test is not None:
            trajectory["eval"] = _evaluate(engine, functions, eval_function, step, train, test)
        final = [train.arguments[a.index].copy() if a.spec.dtype in ("f32", "f64", "f16")
                 else decode(train.arguments[a.index], a.spec.dtype).astype(np.float32)
                 for a in params_arguments]
    finally:
        if engine is not None:
            engine.close()
        session.close()
    return RunResult(trajectory, final, [a.index for a in params_arguments])
