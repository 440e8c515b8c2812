"""Compiling train steps: mixedprec.compile, mixedprec.report and the train
step's signature, over the C API's session (mp-c/Compiler.h)."""

import ctypes
import functools
import json
import os
import tempfile

from . import _capi


class CompileError(Exception):
    """A failure of the compiler: `status` (the MpStatus name, such as
    "parse error" or "pass failure"), `message` (one line) and `diagnostics`
    (the MLIR diagnostics, `file:line:col: error: ...` lines)."""

    def __init__(self, status, message, diagnostics):
        self.status = status
        self.message = message
        self.diagnostics = diagnostics
        text = "%s: %s" % (status, message)
        if diagnostics.strip():
            text += "\n" + diagnostics.rstrip("\n")
        super().__init__(text)


class DeviceError(CompileError):
    """The device of an engine failed (status "device error"): no CUDA
    driver (libcuda.so.1, or $MP_CUDA_DRIVER, cannot be loaded or finds no
    device), or a driver call failed; `message` says which."""


DEVICES = ("cpu", "cuda")


class Session:
    """An MLIR context with MixedPrec's dialects and passes (MpSession)."""

    def __init__(self):
        self._session = None
        self._lib = _capi.lib()
        self._session = self._lib.mpSessionCreate()

    def close(self):
        if self._session is not None:
            self._lib.mpSessionDestroy(self._session)
            self._session = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def _check(self, status):
        if status != 0:
            error = DeviceError if status == _capi.DEVICE_ERROR else CompileError
            raise error(
                _capi.STATUS_NAMES.get(status, "status %d" % status),
                self._lib.mpSessionGetMessage(self._session).text(),
                self._lib.mpSessionGetDiagnostics(self._session).text())

    def parse(self, text, source_name="<module>"):
        """Parses and verifies `text`; a Module of this session."""
        module = _capi.MlirModule()
        self._check(self._lib.mpSessionParseModule(
            self._session, _capi.MlirStringRef.of(text),
            _capi.MlirStringRef.of(source_name), module))
        return Module(self, module)


class Module:
    """A parsed module, owned by its Session."""

    def __init__(self, session, handle):
        self._session = session
        self._handle = handle

    def close(self):
        if self._handle is not None:
            self._session._lib.mlirModuleDestroy(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def run(self, pipeline):
        """Runs a textual pass pipeline (on builtin.module) on the module."""
        session = self._session
        session._check(session._lib.mpSessionRunPipeline(
            session._session, self._handle, _capi.MlirStringRef.of(pipeline)))

    def text(self):
        session = self._session
        session._check(session._lib.mpSessionPrintModule(session._session, self._handle))
        return session._lib.mpSessionGetOutput(session._session).text()

    def precision_report(self, options=""):
        session = self._session
        session._check(session._lib.mpSessionPrecisionReport(
            session._session, self._handle, _capi.MlirStringRef.of(options)))
        return json.loads(session._lib.mpSessionGetOutput(session._session).text())

    def engine(self, cpu_pipeline_options="", opt_level=2, device="cpu",
               gpu_pipeline_options=""):
        """Lowers the module in place (when it still holds functions on
        tensors) and JIT-compiles it in this process at LLVM -O`opt_level`
        (0-3; no level changes a computed bit): an Engine of this session
        (mp-c/Engine.h).

        `device` "cpu" lowers with mp-cpu-pipeline{cpu_pipeline_options};
        "cuda" with mp-gpu-pipeline{gpu_pipeline_options} (device-resident
        by default), as `mp-run --device=cuda --gpu-pipeline=...`, loading
        the CUDA driver ($MP_CUDA_DRIVER, else libcuda.so.1): DeviceError
        when there is none."""
        if device not in DEVICES:
            raise ValueError("device: %r is not 'cpu' or 'cuda'" % (device,))
        if device == "cpu" and gpu_pipeline_options:
            raise ValueError("gpu_pipeline_options needs device='cuda'")
        if device == "cuda" and cpu_pipeline_options:
            raise ValueError("cpu_pipeline_options applies to device='cpu'; with "
                             "device='cuda' give mp-gpu-pipeline's options as "
                             "gpu_pipeline_options (host-vectorize is its vectorize)")
        session = self._session
        handle = _capi.MpEngine()
        options = gpu_pipeline_options if device == "cuda" else cpu_pipeline_options
        session._check(session._lib.mpSessionCreateEngineOnDevice(
            session._session, self._handle, _capi.MlirStringRef.of(device),
            _capi.MlirStringRef.of(options), opt_level, handle))
        return Engine(session, handle)

    def functions(self):
        """The func.func ops of the module, as (name, FunctionSignature)."""
        lib = self._session._lib
        op = lib.mlirBlockGetFirstOperation(lib.mlirModuleGetBody(self._handle))
        result = []
        while op.ptr:
            if lib.mlirIdentifierStr(lib.mlirOperationGetName(op)).text() == "func.func":
                result.append(_read_signature(lib, op))
            op = lib.mlirOperationGetNextInBlock(op)
        return result

    def embedding_vocabularies(self):
        """{function name: vocabulary} for each function whose argument
        (with neither `mp.param` nor `mp.state`) indexes an `mp.embedding`:
        the table's first dimension (the smallest, with several), as
        mp-run's recordEmbeddingVocabularies reads it for `--data=text`
        (tools/mp-run/Batches.cpp). Read it before lowering."""
        lib = self._session._lib
        found = {}

        def visit(op, _):
            if lib.mlirIdentifierStr(lib.mlirOperationGetName(op)).text() != "mp.embedding":
                return 0
            indices = lib.mlirOperationGetOperand(op, 1)
            if not lib.mlirValueIsABlockArgument(indices):
                return 0
            function = lib.mlirBlockGetParentOperation(lib.mlirBlockArgumentGetOwner(indices))
            if lib.mlirIdentifierStr(lib.mlirOperationGetName(function)).text() != "func.func":
                return 0
            number = lib.mlirBlockArgumentGetArgNumber(indices)
            arg_attrs = lib.mlirOperationGetAttributeByName(
                function, _capi.MlirStringRef.of("arg_attrs"))
            if any(_dict_entry(lib, arg_attrs, number, key) is not None
                   for key in ("mp.param", "mp.state")):
                return 0
            name = lib.mlirStringAttrGetValue(lib.mlirOperationGetAttributeByName(
                function, _capi.MlirStringRef.of("sym_name"))).text()
            table = lib.mlirValueGetType(lib.mlirOperationGetOperand(op, 0))
            size = lib.mlirShapedTypeGetDimSize(table, 0)
            found[name] = min(found.get(name, size), size)
            return 0

        callback = _capi.WALK_CALLBACK(visit)
        lib.mlirOperationWalk(lib.mlirModuleGetOperation(self._handle), callback, None, 0)
        return found


class Engine:
    """Native code of a lowered module, called in process on numpy arrays
    (MpEngine). Destroy it (close, or a `with` block) before its Session."""

    def __init__(self, session, handle):
        self._session = session
        self._handle = handle
        #: The C strings of the function names invoke was called with (one
        #: per name: a train loop calls it every step).
        self._names = {}

    def close(self):
        if self._handle is not None:
            self._session._lib.mpEngineDestroy(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if self._session._session is not None:
            self.close()

    def invoke(self, name, descriptors):
        """Calls `name` through its C interface with `descriptors`, a ctypes
        array of pointers to memref descriptors (see memref_descriptor): the
        arguments, then the result buffers. On "cuda" the call enqueues the
        function's device work on the engine's stream and returns without
        waiting for it."""
        session = self._session
        ref = self._names.get(name)
        if ref is None:
            ref = self._names[name] = _capi.MlirStringRef.of(name)
        session._check(session._lib.mpEngineInvoke(session._session, self._handle, ref,
                                                   descriptors))

    # --- a "cuda" engine's memory and stream (mp-c/Engine.h) ---------------

    @property
    def device(self):
        """"cpu" or "cuda"."""
        return self._session._lib.mpEngineGetDevice(self._handle).text()

    @property
    def device_resident(self):
        """True when every argument and result of the module's functions is
        device memory (mp-gpu-pipeline's device-resident lowering)."""
        return bool(self._session._lib.mpEngineIsDeviceResident(self._handle))

    def _call(self, function, *args):
        session = self._session
        session._check(getattr(session._lib, function)(session._session, self._handle, *args))

    def device_alloc(self, size):
        """`size` bytes of device memory (an address)."""
        pointer = ctypes.c_void_p()
        self._call("mpEngineDeviceAlloc", size, ctypes.byref(pointer))
        return pointer.value

    def device_free(self, pointer):
        self._call("mpEngineDeviceFree", pointer)

    def host_alloc(self, size):
        """`size` bytes of page-locked host memory (an address)."""
        pointer = ctypes.c_void_p()
        self._call("mpEngineHostAlloc", size, ctypes.byref(pointer))
        return pointer.value

    def host_free(self, pointer):
        self._call("mpEngineHostFree", pointer)

    def copy(self, destination, source, size):
        """Enqueues a copy of `size` bytes (addresses of device or host
        memory) on the engine's stream."""
        self._call("mpEngineCopy", destination, source, size)

    def event(self):
        """A new event of the engine's stream (destroy with event_destroy)."""
        event = _capi.MpEngineEvent()
        self._call("mpEngineEventCreate", ctypes.byref(event))
        return event

    def record(self, event):
        """Records `event` after the work queued so far."""
        self._call("mpEngineEventRecord", event)

    def wait(self, event):
        """Waits on the host for the work queued before `event`'s record."""
        self._call("mpEngineEventSynchronize", event)

    def event_destroy(self, event):
        self._session._lib.mpEngineEventDestroy(event)

    def staging(self, size):
        """Double-buffered page-locked staging of inputs (MpEngineStaging):
        two slots of `size` bytes; destroy with staging_destroy."""
        staging = _capi.MpEngineStaging()
        self._call("mpEngineStagingCreate", size, ctypes.byref(staging))
        return staging

    def staging_acquire(self, staging):
        """The address of `staging`'s next slot, once the copies out of it
        are done."""
        pointer = ctypes.c_void_p()
        self._call("mpEngineStagingAcquire", staging, ctypes.byref(pointer))
        return pointer.value

    def staging_copy(self, staging, destination, offset, size):
        """Enqueues the copy of `size` bytes at `offset` of the acquired slot
        to the device address `destination`."""
        self._call("mpEngineStagingCopy", staging, destination, offset, size)

    def staging_release(self, staging):
        """Records the slot's event after its copies; the other slot is next."""
        self._call("mpEngineStagingRelease", staging)

    def staging_destroy(self, staging):
        self._session._lib.mpEngineStagingDestroy(staging)

    def synchronize(self):
        """Waits for all the engine's queued work."""
        self._call("mpEngineSynchronize")


@functools.lru_cache(maxsize=None)
def _memref_descriptor_type(rank):
    """The ctypes structure of a ranked memref descriptor of `rank` (one
    class per rank: a class made per call is cyclic garbage that the
    collector's full passes, tens of milliseconds in a torch process, must
    find)."""
    fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
              ("offset", ctypes.c_int64)]
    if rank:
        fields += [("sizes", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
    return type("MemRef%dD" % rank, (ctypes.Structure,), {"_fields_": fields})


def memref_descriptor(array, address=None):
    """A ranked memref descriptor (ctypes structure) viewing the numpy array
    `array` without a copy; `array` must stay alive while it is used. With
    `address` (device memory of a "cuda" engine, say), the descriptor has
    `array`'s shape and strides but points there."""
    rank = array.ndim
    descriptor = _memref_descriptor_type(rank)()
    pointer = array.ctypes.data if address is None else address
    descriptor.allocated = pointer
    descriptor.aligned = pointer
    descriptor.offset = 0
    for i in range(rank):
        descriptor.sizes[i] = array.shape[i]
        descriptor.strides[i] = array.strides[i] // array.itemsize
    return descriptor


class TensorSpec:
    """Shape and element type (MLIR's name: f32, bf16, i64, ...) of a tensor."""

    def __init__(self, shape, dtype):
        self.shape = tuple(shape)
        self.dtype = dtype

    def __repr__(self):
        return "tensor<%s>" % "x".join([str(d) for d in self.shape] + [self.dtype])


class Argument:
    """An argument of a train step: role "param", "state" or "data"."""

    def __init__(self, index, spec, role, state_kind=None):
        self.index = index
        self.spec = spec
        self.role = role
        self.state_kind = state_kind
        #: The scalar (or splat) `mp.init` of a state argument, else None.
        self.init = None
        #: Every element of a dense `mp.init` of i64, f32 or f64 elements
        #: (row-major list; a splat too), else None.
        self.init_values = None
        #: `mp.copy_of` of a working copy: its parameter's argument number.
        self.copy_of = None

    def __repr__(self):
        kind = "" if self.state_kind is None else " %s" % self.state_kind
        return "<argument %d %s %r%s>" % (self.index, self.role, self.spec, kind)


class FunctionSignature:
    """A function's arguments and results, by the train-step contract
    (docs/TrainStep.md)."""

    def __init__(self, name, arguments, results, loss_result, updates, skipped_result=None):
        self.name = name
        self.arguments = arguments
        self.results = results
        self.loss_result = loss_result
        self.updates = updates  # result index -> argument index
        #: The `mp.skipped` result (loss scaling), or None.
        self.skipped_result = skipped_result

    @property
    def is_train_step(self):
        return self.loss_result is not None

    def of_role(self, role):
        return [a for a in self.arguments if a.role == role]


def _spec(lib, mlir_type):
    rank = lib.mlirShapedTypeGetRank(mlir_type)
    shape = [lib.mlirShapedTypeGetDimSize(mlir_type, i) for i in range(rank)]
    return TensorSpec(shape, _capi.type_to_string(lib.mlirShapedTypeGetElementType(mlir_type)))


def _dict_entry(lib, attrs, index, name):
    """Entry `name` of dictionary `index` of the array attribute `attrs`."""
    if not attrs.ptr or index >= lib.mlirArrayAttrGetNumElements(attrs):
        return None
    entry = lib.mlirDictionaryAttrGetElementByName(
        lib.mlirArrayAttrGetElement(attrs, index), _capi.MlirStringRef.of(name))
    return entry if entry.ptr else None


def _read_signature(lib, op):
    def attr(name):
        return lib.mlirOperationGetAttributeByName(op, _capi.MlirStringRef.of(name))

    name = lib.mlirStringAttrGetValue(attr("sym_name")).text()
    function_type = lib.mlirTypeAttrGetValue(attr("function_type"))
    arg_attrs, res_attrs = attr("arg_attrs"), attr("res_attrs")
    arguments = []
    for i in range(lib.mlirFunctionTypeGetNumInputs(function_type)):
        spec = _spec(lib, lib.mlirFunctionTypeGetInput(function_type, i))
        state = _dict_entry(lib, arg_attrs, i, "mp.state")
        if _dict_entry(lib, arg_attrs, i, "mp.param") is not None:
            arguments.append(Argument(i, spec, "param"))
        elif state is not None:
            kind = lib.mlirStringAttrGetValue(state).text() \
                if lib.mlirAttributeIsAString(state) else None
            argument = Argument(i, spec, "state", kind)
            init = _dict_entry(lib, arg_attrs, i, "mp.init")
            argument.init = _scalar_value(lib, init)
            argument.init_values = _dense_values(lib, init)
            copy_of = _dict_entry(lib, arg_attrs, i, "mp.copy_of")
            if copy_of is not None and lib.mlirAttributeIsAInteger(copy_of):
                argument.copy_of = lib.mlirIntegerAttrGetValueInt(copy_of)
            arguments.append(argument)
        else:
            arguments.append(Argument(i, spec, "data"))
    results, loss_result, updates, skipped_result = [], None, {}, None
    for i in range(lib.mlirFunctionTypeGetNumResults(function_type)):
        results.append(_spec(lib, lib.mlirFunctionTypeGetResult(function_type, i)))
        if _dict_entry(lib, res_attrs, i, "mp.loss") is not None:
            loss_result = i
        if _dict_entry(lib, res_attrs, i, "mp.skipped") is not None:
            skipped_result = i
        target = _dict_entry(lib, res_attrs, i, "mp.updates")
        if target is not None and lib.mlirAttributeIsAInteger(target):
            updates[i] = lib.mlirIntegerAttrGetValueInt(target)
    return FunctionSignature(name, arguments, results, loss_result, updates, skipped_result)


def _scalar_value(lib, attr):
    """The number an `mp.init` attribute holds when it is a scalar or a splat
    (None otherwise, and for no attribute)."""
    if attr is None:
        return None
    if lib.mlirAttributeIsADenseElements(attr):
        if not lib.mlirDenseElementsAttrIsSplat(attr):
            return None
        attr = lib.mlirDenseElementsAttrGetSplatValue(attr)
    if lib.mlirAttributeIsAFloat(attr):
        return lib.mlirFloatAttrGetValueDouble(attr)
    if lib.mlirAttributeIsAInteger(attr):
        return lib.mlirIntegerAttrGetValueInt(attr)
    return None


def _dense_values(lib, attr):
    """The elements of a dense `mp.init` of i64, f32 or f64 elements, as a
    list (None for another attribute)."""
    if attr is None or not lib.mlirAttributeIsADenseElements(attr):
        return None
    element = _capi.type_to_string(lib.mlirShapedTypeGetElementType(lib.mlirAttributeGetType(attr)))
    getter = {"i64": lib.mlirDenseElementsAttrGetInt64Value,
              "f32": lib.mlirDenseElementsAttrGetFloatValue,
              "f64": lib.mlirDenseElementsAttrGetDoubleValue}.get(element)
    if getter is None:
        return None
    count = lib.mlirElementsAttrGetNumElements(attr)
    if lib.mlirDenseElementsAttrIsSplat(attr):
        return [getter(attr, 0)] * count
    return [getter(attr, i) for i in range(count)]


def _option_value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(_option_value(v) for v in value)
    return str(value)


def _options_text(options):
    """`key=value` pairs of pass options; Python names take dashes
    (compute_type -> compute-type)."""
    return " ".join("%s=%s" % (key.replace("_", "-"), _option_value(value))
                    for key, value in options.items() if value is not None)


class _PolicyFile:
    """A Policy (or a path) as a policy-file option; temporary files are
    removed on exit."""

    def __init__(self, policy):
        self.policy = policy
        self.path = None
        self.temporary = False

    def __enter__(self):
        if self.policy is None:
            return None
        if isinstance(self.policy, (str, os.PathLike)):
            self.path = os.fspath(self.policy)
        else:
            handle, self.path = tempfile.mkstemp(prefix="mixedprec-policy-", suffix=".json")
            os.close(handle)
            self.temporary = True
            self.policy.write(self.path)
        return self.path

    def __exit__(self, *exc):
        if self.temporary:
            os.unlink(self.path)


def pipeline_with_options(pipeline, options):
    """`pipeline{options}` for a single pass or pipeline name."""
    text = _options_text(options)
    if not text:
        return pipeline
    if not pipeline.strip():
        raise ValueError("options (%s) need a pipeline" % text)
    if any(c in pipeline for c in "{}(),"):
        raise ValueError(
            "options can only be given for a single pass or pipeline name, "
            "not for %r: write them into the pipeline string" % pipeline)
    return "%s{%s}" % (pipeline, text)


DEFAULT_PIPELINE = "mp-mixed-precision-pipeline"


def _policy_compute_type(policy):
    """The compute type a Policy or policy file names, or None."""
    if isinstance(policy, (str, os.PathLike)):
        try:
            with open(policy) as file:
                data = json.load(file)
        except (OSError, ValueError):
            return None  # the pass reports the bad file
        value = data.get("compute-type") if isinstance(data, dict) else None
        return value if isinstance(value, str) else None
    return policy.compute_type


def compile(module_text, pipeline=DEFAULT_PIPELINE, policy=None,
            source_name="<module>", **options):
    """Parses `module_text`, runs `pipeline` on it and returns the result as
    text.

    `pipeline` is a textual pass pipeline on builtin.module (for example
    "mp-mixed-precision-pipeline", "mp-autocast,func.func(mp-autodiff)" or
    "builtin.module(...)"); None or "" only parses and verifies. Keyword
    options are options of that pass or pipeline, with underscores for dashes
    (compute_type="bf16", loss_scaling="dynamic", growth_interval=100; lists
    become comma lists). `policy` is a Policy or the path of a policy file,
    given as the `policy-file` option; with mp-mixed-precision-pipeline and
    no `compute_type` option, the policy's compute type is the pipeline's.
    Raises CompileError (status, message, diagnostics) on any failure."""
    pipeline_name = (pipeline or "").strip()
    if (policy is not None and "compute_type" not in options
            and pipeline_name == DEFAULT_PIPELINE):
        # The pipeline's compute type (default f16) overrides the file's:
        # take the policy's.
        compute_type = _policy_compute_type(policy)
        if compute_type is not None:
            options = dict(options, compute_type=compute_type)
    with _PolicyFile(policy) as policy_path:
        if policy_path is not None:
            options = dict(options, policy_file=policy_path)
        text = pipeline_with_options(pipeline or "", options) if options else (pipeline or "")
        with Session() as session:
            with session.parse(module_text, source_name) as module:
                if text.strip():
                    module.run(text)
                return module.text()


def report(module_text, policy=None, source_name="<module>", **options):
    """The precision report (mp-precision-report's JSON, docs/Autocast.md) of
    `module_text` as a dict. Options are those of mp-precision-report
    (allow, deny, promote, clear: lists of op names); `policy` a Policy or a
    policy file path. Raises CompileError."""
    with _PolicyFile(policy) as policy_path:
        if policy_path is not None:
            options = dict(options, policy_file=policy_path)
        with Session() as session:
            with session.parse(module_text, source_name) as module:
                return module.precision_report(_options_text(options))


def signature(module_text, function=None, source_name="<module>"):
    """The FunctionSignature of `function` in `module_text` (by default the
    only function with an `mp.loss` result). Raises CompileError or
    ValueError."""
    with Session() as session:
        with session.parse(module_text, source_name) as module:
            functions = module.functions()
    if function is not None:
        for candidate in functions:
            if candidate.name == function:
                return candidate
        raise ValueError("no function @%s in the module" % function)
    steps = [f for f in functions if f.is_train_step]
    if len(steps) != 1:
        raise ValueError("expected exactly one function with an mp.loss result, found %d%s"
                         % (len(steps), "" if not steps else
                            " (" + ", ".join("@" + f.name for f in steps) + ")"))
    return steps[0]
