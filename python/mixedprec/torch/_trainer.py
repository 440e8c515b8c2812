"""mixedprec.torch.Trainer: an imported train step compiled once and run in
process, one call per batch.

The step goes through `mp-mixed-precision-pipeline` (autocast, master
weights, loss scaling, autodiff) and `mp-cpu-pipeline`, is JIT-compiled by
the C API's engine (mp-c/Engine.h, the code mp-run runs) and called on numpy
buffers that hold the parameters and all state between calls: a step reads
the batch in place (no copy when it is a contiguous CPU tensor of the right
type), and only the loss, the skip flag and the loss scale come out.
"""

import collections

import numpy as np
import torch

from .. import compiler
from ..runner import Buffers, _cpu_options

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


def _pipeline(compute_type, options):
    parts = [f"compute-type={compute_type}"]
    for key, value in options.items():
        if isinstance(value, bool):
            value = "true" if value else "false"
        parts.append(f"{key.replace('_', '-')}={value}")
    return "mp-mixed-precision-pipeline{" + " ".join(parts) + "}"


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
    every thread count computes the bits of one thread."""

    def __init__(self, step, compute_type="f32", cpu_pipeline_options="", opt_level=2,
                 threads=0, **pipeline_options):
        self.imported = step
        self.pipeline = _pipeline(compute_type, pipeline_options)
        #: The mp-cpu-pipeline options the step was lowered with (`threads=N`
        #: added for more than one thread).
        self.cpu_pipeline_options = _cpu_options(cpu_pipeline_options, threads)
        self._session = compiler.Session()
        with self._session.parse(step.mlir, "<mixedprec.torch>") as module:
            module.run(self.pipeline)
            functions = {f.name: f for f in module.functions()}
            self._engine = module.engine(self.cpu_pipeline_options, opt_level)
        self._train = Buffers(functions["train_step"])
        self._predict = Buffers(functions["predict"]) if "predict" in functions else None
        self._initialise()

    # --- state --------------------------------------------------------------

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
                master = self._train.arguments[argument.copy_of]
                buffer[...] = _to_storage(torch.from_numpy(master), dtype)
            elif argument.role == "state" and argument.init is not None:
                buffer[...] = _to_storage(torch.tensor(argument.init), dtype)
            elif argument.role == "state" and argument.state_kind == "bn.running_var":
                buffer[...] = _to_storage(torch.tensor(1.0), dtype)
        self._data = [a.index for a in signature.arguments if a.role == "data"]
        self._loss_scale = next((a.index for a in signature.arguments
                                 if a.state_kind == "loss_scale"), None)

    def _bind_data(self, function, indices, tensors):
        for index, tensor in zip(indices, tensors):
            spec = function.signature.arguments[index].spec
            if tuple(tensor.shape) != tuple(spec.shape):
                raise ValueError(f"argument {index} of @{function.signature.name} has shape "
                                 f"{tuple(spec.shape)}, got {tuple(tensor.shape)}")
            function.set_argument(index, _to_storage(tensor, spec.dtype))

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
        self._bind_data(train, self._data, tensors)
        self._engine.invoke("train_step", train.pointers)
        signature = train.signature
        loss = float(train.results[signature.loss_result])
        skipped = bool(train.results[signature.skipped_result]) \
            if signature.skipped_result is not None else False
        train.feed_back()
        scale = float(train.arguments[self._loss_scale]) if self._loss_scale is not None else None
        return {"loss": loss, "skipped": skipped, "loss_scale": scale}

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
        self._bind_data(function, data, list(inputs))
        self._engine.invoke("predict", function.pointers)
        result = function.signature.results[0]
        return _to_torch(function.results[0], result.dtype).reshape(result.shape)

    def state_dict(self):
        """The model's state_dict: its parameters (the f32 masters) and
        buffers (running statistics as trained), as torch tensors."""
        values = {}
        for i, argument in enumerate(self.imported.arguments):
            if argument.role in ("param", "state") and argument.param is None \
                    and argument.kind != "step":
                dtype = self._train.signature.arguments[i].spec.dtype
                values[argument.name] = _to_torch(self._train.arguments[i], dtype)
        state = collections.OrderedDict()
        for name, canonical in self.imported.state_names.items():
            state[name] = values[canonical] if canonical in values else \
                self.imported.constant_buffers[canonical].clone()
        return state

    def optimizer_state_dict(self):
        """The optimizer's state_dict, loadable by the torch optimizer the
        step was imported from (moments and step counts as trained)."""
        state = {}
        step_index = next((i for i, a in enumerate(self.imported.arguments) if a.kind == "step"),
                          None)
        for position, name in enumerate(self.imported.optimizer_param_names):
            entry = {}
            for i, argument in enumerate(self.imported.arguments):
                if argument.param is not None and \
                        self.imported.arguments[argument.param].name == name:
                    dtype = self._train.signature.arguments[i].spec.dtype
                    entry[argument.name.rsplit(".", 1)[-1]] = \
                        _to_torch(self._train.arguments[i], dtype)
            if step_index is not None:
                entry["step"] = torch.tensor(float(self._train.arguments[step_index]))
            if entry:
                state[position] = entry
        return {"state": state, "param_groups": [dict(g) for g in self.imported.param_groups]}

    def close(self):
        if self._engine is not None:
            self._engine.close()
            self._engine = None
        self._session.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
