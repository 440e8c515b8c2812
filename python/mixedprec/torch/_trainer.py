"""mixedprec.torch.Trainer: an imported train step compiled once and run in
process, one call per batch.

The step goes through `mp-mixed-precision-pipeline` (autocast, master
weights, loss scaling, autodiff) and `mp-cpu-pipeline`, is JIT-compiled by
the C API's engine (mp-c/Engine.h, the code mp-run runs) and called on numpy
buffers that hold the parameters and all state between calls: a step reads
the batch in place (no copy when it is a contiguous CPU tensor of the right
type), and only the loss, the skip flag and the loss scale come out.

With `device="cuda"` the step goes through `mp-gpu-pipeline` instead
(device-resident: every op a GPU kernel) and runs on an NVIDIA GPU through
the CUDA driver, as `mp-run --device=cuda`: parameters and state stay in
device memory between steps, a step copies in only its batch and is queued
on the engine's stream without a host synchronisation, and its loss, skip
flag and loss scale come back through page-locked staging behind an event,
read when the caller looks at them (after queuing the next step, say).
"""

import collections
import collections.abc

import numpy as np
import torch

from .. import compiler
from ..runner import (BatchStaging, Buffers, DeviceBuffers, DeviceStaging, _cpu_options,
                      device_step_packing, device_step_slots)

TORCH_DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16,
                "i64": torch.int64, "i32": torch.int32, "i1": torch.bool}


def _to_storage(tensor, dtype):
    """`tensor` as a numpy array of the storage of `dtype` (bf16 as its bit
    patterns, rounded to nearest even from f32)."""
    if dtype == "bf16":
        return tensor.detach().to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
    torch_dtype = TORCH_DTYPES.get(dtype)
    if torch_dtype is None:
        raise ValueError(f"cannot initialise a {dtype} tensor from PyTorch")
    return np.ascontiguousarray(tensor.detach().to(torch_dtype).numpy())


def _to_torch(array, dtype):
    if dtype == "bf16":
        return torch.from_numpy(array.view(np.int16).copy()).view(torch.bfloat16)
    return torch.from_numpy(np.array(array, copy=True))


#: What Trainer.load_state_dict returns, as torch.nn.Module.load_state_dict.
IncompatibleKeys = collections.namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])


def _pipeline(compute_type, options):
    parts = [f"compute-type={compute_type}"]
    for key, value in options.items():
        if isinstance(value, bool):
            value = "true" if value else "false"
        parts.append(f"{key.replace('_', '-')}={value}")
    return "mp-mixed-precision-pipeline{" + " ".join(parts) + "}"


class StepResult(collections.abc.Mapping):
    """What Trainer.step returns on "cuda": {"loss", "skipped",
    "loss_scale"} like the CPU's dict, read from the step's staging when
    first looked at (that waits for the step on the device, and only for
    it)."""

    def __init__(self, trainer, pending):
        self._trainer = trainer
        self._pending = pending
        self._result = None

    @property
    def ready(self):
        """True once the values were read (no wait left)."""
        return self._result is not None

    def _values(self):
        if self._result is None:
            self._result = self._trainer._read_staged(self._pending.values())
        return self._result

    def __getitem__(self, key):
        return self._values()[key]

    def __iter__(self):
        return iter(self._values())

    def __len__(self):
        return len(self._values())

    def __repr__(self):
        return repr(self._values()) if self.ready else "<StepResult pending>"


class Trainer:
    """Trains an ImportedStep in process.

    `compute_type` ("f32", "bf16" or "f16") and `pipeline_options` (the other
    options of mp-mixed-precision-pipeline, Python names: loss_scaling,
    master_weights, init_scale, ...) choose the mixed-precision rewrite;
    `cpu_pipeline_options` those of mp-cpu-pipeline, `opt_level` the LLVM
    optimisation level (0-3) of the JIT-compiled step, `threads` the
    threads it runs on (OpenMP), as mixedprec.run's and mp-run's
    --threads: 0, the default, is all cores (the first number of
    OMP_NUM_THREADS where set, else the CPUs this process may run on);
    every thread count computes the bits of one thread. `device="cuda"`
    trains on the GPU (see the module's docstring) with mp-gpu-pipeline's
    `gpu_pipeline_options` (for instance "chip=sm_90a"); no CUDA driver is a
    compiler.DeviceError."""

    def __init__(self, step, compute_type="f32", cpu_pipeline_options="", opt_level=2,
                 threads=0, device="cpu", gpu_pipeline_options="", **pipeline_options):
        self.imported = step
        self.device = device
        self.pipeline = _pipeline(compute_type, pipeline_options)
        #: The mp-cpu-pipeline options the step was lowered with (`threads=N`
        #: added for more than one thread; on the CPU only).
        self.cpu_pipeline_options = (_cpu_options(cpu_pipeline_options, threads)
                                     if device == "cpu" else cpu_pipeline_options)
        self._engine = None
        self._device_train = self._device_predict = self._staging = self._batch = None
        self._session = compiler.Session()
        with self._session.parse(step.mlir, "<mixedprec.torch>") as module:
            module.run(self.pipeline)
            functions = {f.name: f for f in module.functions()}
            self._engine = module.engine(self.cpu_pipeline_options, opt_level, device,
                                         gpu_pipeline_options)
        self._train = Buffers(functions["train_step"])
        self._predict = Buffers(functions["predict"]) if "predict" in functions else None
        self._initialise()
        if device == "cuda":
            if not self._engine.device_resident:
                raise ValueError("device='cuda' runs device-resident steps; "
                                 "mp-gpu-pipeline's device-resident=false is not supported here")
            self._device_train = DeviceBuffers(
                self._engine, self._train,
                packed=device_step_packing(self._train.signature))
            self._device_train.copy_all_in()
            self._engine.synchronize()
            self._staging = DeviceStaging(self._device_train,
                                          device_step_slots(self._train.signature))
            # Each step's batch goes in through page-locked memory.
            self._batch = BatchStaging(self._device_train, self._data)
            # Where host copies of the state are current (after the last step).
            self._host_current = True

    # --- state --------------------------------------------------------------

    def _refresh_copies(self):
        """Rewrites the pipeline's copies of master weights (the
        low-precision weights of mp-master-weights) from their masters."""
        for argument in self._train.signature.arguments:
            if argument.role == "state" and argument.copy_of is not None:
                master = self._train.arguments[argument.copy_of]
                self._train.arguments[argument.index][...] = _to_storage(
                    torch.from_numpy(master), argument.spec.dtype)

    def _initialise(self):
        signature = self._train.signature
        imported = self.imported.arguments
        for argument in signature.arguments:
            i = argument.index
            buffer = self._train.arguments[i]
            dtype = argument.spec.dtype
            if i < len(imported) and imported[i].value is not None:
                buffer[...] = _to_storage(imported[i].value, dtype).reshape(buffer.shape)
            elif argument.role == "state" and argument.copy_of is not None:
                continue
            elif argument.role == "state" and argument.init is not None:
                buffer[...] = _to_storage(torch.tensor(argument.init), dtype)
            elif argument.role == "state" and argument.state_kind == "bn.running_var":
                buffer[...] = _to_storage(torch.tensor(1.0), dtype)
        self._refresh_copies()
        self._data = [a.index for a in signature.arguments if a.role == "data"]
        self._loss_scale = next((a.index for a in signature.arguments
                                 if a.state_kind == "loss_scale"), None)

    @staticmethod
    def _storage(function, indices, tensors):
        """{argument index: storage array} of the batch `tensors` for
        arguments `indices` of `function` (Buffers), their shapes checked."""
        arrays = {}
        for index, tensor in zip(indices, tensors):
            spec = function.signature.arguments[index].spec
            if tuple(tensor.shape) != tuple(spec.shape):
                raise ValueError(f"argument {index} of @{function.signature.name} has shape "
                                 f"{tuple(spec.shape)}, got {tuple(tensor.shape)}")
            arrays[index] = _to_storage(tensor, spec.dtype)
        return arrays

    def _bind_data(self, function, indices, tensors, device=None):
        """Binds the batch `tensors` to arguments `indices` of `function`
        (Buffers), or copies them to its DeviceBuffers `device`."""
        for index, array in self._storage(function, indices, tensors).items():
            if device is None:
                function.set_argument(index, array)
            else:
                device.copy_in(index, array)

    def step(self, inputs, target):
        """Runs one train step on a batch; returns {"loss": float,
        "skipped": bool, "loss_scale": float or None}."""
        if isinstance(inputs, torch.Tensor):
            inputs = (inputs,)
        tensors = list(inputs) + [target]
        if len(tensors) != len(self._data):
            raise ValueError(f"the train step takes {len(self._data) - 1} inputs and a target, "
                             f"got {len(tensors) - 1} inputs")
        train = self._train
        if self._device_train is not None:
            return self._device_step(tensors)
        self._bind_data(train, self._data, tensors)
        self._engine.invoke("train_step", train.pointers)
        signature = train.signature
        loss = float(train.results[signature.loss_result])
        skipped = bool(train.results[signature.skipped_result]) \
            if signature.skipped_result is not None else False
        train.feed_back()
        scale = float(train.arguments[self._loss_scale]) if self._loss_scale is not None else None
        return {"loss": loss, "skipped": skipped, "loss_scale": scale}

    def _device_step(self, tensors):
        device = self._device_train
        # Through page-locked memory (BatchStaging).
        self._batch.upload(self._storage(self._train, self._data, tensors))
        self._engine.invoke("train_step", device.pointers)
        device.feed_back()
        self._host_current = False
        return StepResult(self, self._staging.stage())

    def _read_staged(self, values):
        signature = self._train.signature
        n = len(signature.arguments)
        loss = float(values[n + signature.loss_result].reshape(-1)[0])
        skipped = bool(values[n + signature.skipped_result].reshape(-1)[0]) \
            if signature.skipped_result is not None else False
        scale = float(values[self._loss_scale].reshape(-1)[0]) \
            if self._loss_scale is not None else None
        return {"loss": loss, "skipped": skipped, "loss_scale": scale}

    def _state(self):
        """The train step's argument buffers on the host, copied back from
        the device first on "cuda"."""
        if self._device_train is not None and not self._host_current:
            self._device_train.copy_arguments_to_host()
            self._host_current = True
        return self._train.arguments

    def predict(self, inputs):
        """The model's output in eval mode (running statistics, no dropout)
        on `inputs`, as a torch tensor."""
        if self._predict is None:
            raise RuntimeError("the imported step has no @predict function")
        if isinstance(inputs, torch.Tensor):
            inputs = (inputs,)
        function = self._predict
        train_index = {id(a): i for i, a in enumerate(self.imported.arguments)}
        data = []
        for i, argument in enumerate(self.imported.predict_arguments):
            if argument.role == "input":
                data.append(i)
            else:
                function.set_argument(i, self._train.arguments[train_index[id(argument)]])
        if self._device_train is not None:
            return self._device_predict_call(data, list(inputs), train_index)
        self._bind_data(function, data, list(inputs))
        self._engine.invoke("predict", function.pointers)
        result = function.signature.results[0]
        return _to_torch(function.results[0], result.dtype).reshape(result.shape)

    def _device_predict_call(self, data, inputs, train_index):
        function = self._predict
        if self._device_predict is None:
            borrowed = {i: None for i, a in enumerate(self.imported.predict_arguments)
                        if a.role != "input"}
            self._device_predict = DeviceBuffers(self._engine, function, borrowed)
        device = self._device_predict
        # The parameters and statistics are the train step's current device
        # buffers (feeding back swaps them).
        for i, argument in enumerate(self.imported.predict_arguments):
            if argument.role != "input":
                device.bind_argument(i, self._device_train.addresses[train_index[id(argument)]])
        self._bind_data(function, data, inputs, device)
        self._engine.invoke("predict", device.pointers)
        n = len(function.arguments)
        device.copy_out(n)
        self._engine.synchronize()
        result = function.signature.results[0]
        return _to_torch(function.results[0], result.dtype).reshape(result.shape)

    def state_dict(self):
        """The model's state_dict: its parameters (the f32 masters) and
        buffers (running statistics as trained), as torch tensors (copied
        back from the device on "cuda")."""
        arguments = self._state()
        values = {}
        for name, i in self._model_state_indices().items():
            dtype = self._train.signature.arguments[i].spec.dtype
            values[name] = _to_torch(arguments[i], dtype)
        state = collections.OrderedDict()
        for name, canonical in self.imported.state_names.items():
            state[name] = values[canonical] if canonical in values else \
                self.imported.constant_buffers[canonical].clone()
        return state

    def _model_state_indices(self):
        """The train-step argument of each parameter and buffer name the
        step holds (state_dict's canonical names; tied weights share one)."""
        return {argument.name: i for i, argument in enumerate(self.imported.arguments)
                if argument.role in ("param", "state") and argument.param is None
                and argument.kind != "step"}

    def load_state_dict(self, state_dict, strict=True):
        """Copies the parameters and buffers of `state_dict` (a model's
        state_dict, or this trainer's) into the step's state, as
        torch.nn.Module.load_state_dict does: the f32 masters and the
        low-precision copies made from them, running statistics and counts;
        the optimizer's state (moments, step count), the loss scale and the
        RNG state stay as they are. `strict` (the default) requires exactly
        the model's keys; returns (missing_keys, unexpected_keys). A buffer
        the forward never writes is a constant of the compiled step: a
        different value for it is an error. Nothing is written when an
        error is raised."""
        names = self.imported.state_names
        missing = [key for key in names if key not in state_dict]
        unexpected = [key for key in state_dict if key not in names]
        errors = []
        if strict:
            if missing:
                errors.append("Missing key(s) in state_dict: " +
                              ", ".join(f'"{k}"' for k in missing) + ".")
            if unexpected:
                errors.append("Unexpected key(s) in state_dict: " +
                              ", ".join(f'"{k}"' for k in unexpected) + ".")
        indices = self._model_state_indices()
        writes = []
        for key, value in state_dict.items():
            if key not in names:
                continue
            canonical = names[key]
            value = torch.as_tensor(value)
            if canonical not in indices:
                constant = self.imported.constant_buffers[canonical]
                if not torch.equal(value.to(constant.dtype), constant):
                    errors.append(f'{key} is a constant of the compiled step (a buffer its '
                                  'forward never writes) and cannot change: import the model '
                                  'with this value instead.')
                continue
            i = indices[canonical]
            shape = tuple(self._train.signature.arguments[i].spec.shape)
            if tuple(value.shape) != shape:
                errors.append(f"size mismatch for {key}: copying a param with shape "
                              f"{torch.Size(value.shape)} from checkpoint, the shape in "
                              f"current model is {torch.Size(shape)}.")
                continue
            writes.append((i, value))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for Trainer:\n\t" +
                               "\n\t".join(errors))
        arguments = self._state()
        for i, value in writes:
            dtype = self._train.signature.arguments[i].spec.dtype
            arguments[i][...] = _to_storage(value, dtype).reshape(arguments[i].shape)
        self._refresh_copies()
        if self._device_train is not None:
            self._device_train.copy_all_in()
            self._engine.synchronize()
        return IncompatibleKeys(missing, unexpected)

    def optimizer_state_dict(self):
        """The optimizer's state_dict, loadable by the torch optimizer the
        step was imported from (moments and step counts as trained; copied
        back from the device on "cuda")."""
        arguments = self._state()
        state = {}
        step_index = next((i for i, a in enumerate(self.imported.arguments) if a.kind == "step"),
                          None)
        for position, name in enumerate(self.imported.optimizer_param_names):
            entry = {}
            for i, argument in enumerate(self.imported.arguments):
                if argument.param is not None and \
                        self.imported.arguments[argument.param].name == name:
                    dtype = self._train.signature.arguments[i].spec.dtype
                    entry[argument.name.rsplit(".", 1)[-1]] = _to_torch(arguments[i], dtype)
            if step_index is not None:
                entry["step"] = torch.tensor(float(arguments[step_index]))
            if entry:
                state[position] = entry
        return {"state": state, "param_groups": [dict(g) for g in self.imported.param_groups]}

    def close(self):
        for resource in (self._batch, self._staging, self._device_predict, self._device_train):
            if resource is not None:
                resource.close()
        self._batch = self._staging = self._device_predict = self._device_train = None
        if self._engine is not None:
            self._engine.close()
            self._engine = None
        self._session.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
