"""mixedprec.torch: PyTorch modules, losses and optimizers as mp train steps
(docs/PyTorch.md).

    import mixedprec.torch as mpt
    step = mpt.import_train_step(model, x, y, torch.nn.CrossEntropyLoss(), optimizer)
    step.mlir        # the f32 train step as mp IR text, with an @predict function

The forward is captured with make_fx (torch 1.13) in the module's training
mode on fake tensors; ATen ops map to mp ops; the loss is declared (a loss
module) or traced (any callable `loss(output, target)`); the backward is
`mp.grad` (expanded later by mp-autodiff, after the mixed-precision
passes); the optimizer is one mp optimizer op per parameter with the
hyperparameters of its param group. Parameters are `{mp.param}` arguments
in `named_parameters()` order (a tied weight once); buffers the forward
writes are forward state; other buffers are constants.
"""

try:
    import torch
except ImportError as error:
    raise ImportError("mixedprec.torch needs PyTorch 1.13 or later (Debian: python3-torch, "
                      "python3-torchvision)") from error

from . import _aten
from ._aten import Emitter, Tensor, UnsupportedError, f64, tensor_type
from ._capture import capture, tied_names
from ._importer import GraphImporter
from ._optim import OptimizerImport
from ._trainer import Trainer

__all__ = ["ImportedStep", "Trainer", "UnsupportedError", "import_train_step"]


class Argument:
    """One argument of the train step: `role` is "param", "state" or
    "input"; `name` the torch name (parameter/buffer name, "inputs[i]",
    "target", or the optimizer state's name); `kind` the mp.state kind;
    `value` its initial value (a torch tensor) where the importer knows it."""

    def __init__(self, role, name, tensor, kind=None, value=None, param=None, init=None):
        self.role = role
        self.name = name
        self.tensor = tensor
        self.kind = kind
        self.value = value
        #: The `mp.init` attribute text, if any.
        self.init = init
        #: For optimizer state: the index of its parameter argument.
        self.param = param

    def __repr__(self):
        kind = f" {self.kind}" if self.kind else ""
        return f"<Argument {self.role}{kind} {self.name} {self.tensor.type}>"


class ImportedStep:
    """An imported train step: `mlir` (text of a module with @train_step and
    @predict), `arguments` (Argument per train-step argument, in order),
    `predict_arguments`, `param_names` (the `mp.param` arguments' torch
    names in order)."""

    def __init__(self, mlir, arguments, predict_arguments, results):
        self.mlir = mlir
        self.arguments = arguments
        self.predict_arguments = predict_arguments
        self.results = results
        self.param_names = [a.name for a in arguments if a.role == "param"]
        #: Each key of the model's state_dict -> the parameter or buffer name
        #: it is (tied weights share one).
        self.state_names = {}
        #: Buffers the forward never writes (constants of the step).
        self.constant_buffers = {}
        #: The parameters in the optimizer's order (its state_dict indices).
        self.optimizer_param_names = []
        #: The optimizer's state_dict()["param_groups"].
        self.param_groups = []

    def __repr__(self):
        return (f"<mixedprec.torch.ImportedStep {len(self.param_names)} params, "
                f"{len(self.arguments)} arguments>")


def _as_tuple(inputs):
    if isinstance(inputs, torch.Tensor):
        return (inputs,)
    return tuple(inputs)


def _tensor_of(value, name):
    if value.dtype not in _aten.DTYPES:
        raise UnsupportedError(f"{name}: element type {value.dtype} has no mp counterpart")
    return Tensor(name, tuple(value.shape), _aten.DTYPES[value.dtype])


def _written_buffers(captured):
    """Indices of the buffers the forward writes (in-place ops on their
    placeholders, native_batch_norm's running statistics in training)."""
    placeholders = [n for n in captured.graph.nodes if n.op == "placeholder"]
    first_buffer = len(captured.param_names)
    buffer_nodes = placeholders[first_buffer:first_buffer + len(captured.buffer_names)]
    written = set()
    for node in captured.graph.nodes:
        if node.op != "call_function":
            continue
        if node.target is torch.ops.aten.native_batch_norm.default and node.args[5]:
            # Torch 1.13's schema does not mark the running statistics as
            # written (its kernel updates them in place in training).
            written.update(buffer_nodes.index(arg) for arg in node.args[3:5]
                           if isinstance(arg, torch.fx.Node) and arg in buffer_nodes)
            continue
        schema = getattr(node.target, "_schema", None)
        if schema is None:
            continue
        for arg, formal in zip(node.args, schema.arguments):
            if isinstance(arg, torch.fx.Node) and arg in buffer_nodes and \
                    formal.alias_info is not None and formal.alias_info.is_write:
                written.add(buffer_nodes.index(arg))
    return written


_BUFFER_KINDS = {"running_mean": "bn.running_mean", "running_var": "bn.running_var",
                 "num_batches_tracked": "bn.num_batches_tracked"}


def _buffer_kind(name):
    return _BUFFER_KINDS.get(name.rsplit(".", 1)[-1], "forward.buffer")


class _Loss:
    """The loss applied to the model's output: a declared loss module
    (CrossEntropyLoss, NLLLoss, MSELoss) or a traced callable."""

    DECLARED = (torch.nn.CrossEntropyLoss, torch.nn.NLLLoss, torch.nn.MSELoss)

    def __init__(self, loss):
        self.module = loss
        self.declared = isinstance(loss, self.DECLARED)
        if not self.declared and (isinstance(loss, torch.nn.modules.loss._Loss)
                                  or not callable(loss)):
            raise UnsupportedError(f"loss {type(loss).__name__} is not supported "
                                   "(CrossEntropyLoss, NLLLoss, MSELoss, or a callable "
                                   "loss(output, target) that make_fx can trace)")

    @staticmethod
    def _class_form(e, output, target):
        """A language-model output [..., C] against targets [...] flattened to
        [N, C] and [N]; PyTorch's own forms ([N, C], [N, C, d...] against
        [N, d...]) as they are."""
        if output.rank > 2 and target.shape == output.shape[:-1]:
            output = e.reshape(output, (_product(output.shape[:-1]), output.shape[-1]))
            target = e.reshape(target, (_product(target.shape),))
        return output, target

    def emit(self, e, output, target):
        loss = self.module
        if isinstance(loss, (torch.nn.CrossEntropyLoss, torch.nn.NLLLoss)):
            name = type(loss).__name__
            if loss.weight is not None:
                raise UnsupportedError(f"{name}(weight=...) is not supported")
            output, target = self._class_form(e, output, target)
            attrs = []
            if loss.ignore_index != -100:
                attrs.append(f"ignore_index = {int(loss.ignore_index)} : i64")
            if isinstance(loss, torch.nn.CrossEntropyLoss):
                if loss.reduction != "mean":
                    raise UnsupportedError("CrossEntropyLoss supports reduction='mean' only")
                if loss.label_smoothing:
                    attrs.append(f"label_smoothing = {f64(loss.label_smoothing)} : f64")
                suffix = " {" + ", ".join(attrs) + "}" if attrs else ""
                return e.emit((), output.dtype, f"mp.cross_entropy {output.name}, "
                                                f"{target.name}{suffix} : {output.type}, "
                                                f"{target.type}")
            if loss.reduction not in ("mean", "sum"):
                raise UnsupportedError("NLLLoss as a train-step loss takes reduction "
                                       "'mean' or 'sum'")
            reduction = "" if loss.reduction == "mean" else " reduction sum"
            suffix = " {" + ", ".join(attrs) + "}" if attrs else ""
            return e.emit((), output.dtype, f"mp.nll_loss {output.name}, {target.name}"
                                            f"{reduction}{suffix} : {output.type}, "
                                            f"{target.type} -> tensor<{output.dtype}>")
        if isinstance(loss, torch.nn.MSELoss):
            if loss.reduction != "mean":
                raise UnsupportedError("MSELoss supports reduction='mean' only")
            if output.shape != target.shape or output.dtype != target.dtype:
                raise UnsupportedError(f"MSELoss of {output.type} against {target.type}: "
                                       "the shapes and types must agree")
            return e.emit((), output.dtype, f"mp.mse {output.name}, {target.name} : {output.type}")
        raise AssertionError("not a declared loss")


def _placeholder_names(captured):
    """Each parameter and buffer placeholder -> its name."""
    placeholders = [n for n in captured.graph.nodes if n.op == "placeholder"]
    names = captured.param_names + captured.buffer_names
    return dict(zip(placeholders, names))


def _product(values):
    result = 1
    for v in values:
        result *= int(v)
    return result


def _signature(arguments):
    parts = []
    for i, a in enumerate(arguments):
        attrs = ""
        if a.role == "param":
            attrs = " {mp.param}"
        elif a.role == "state":
            init = ""
            if a.init is not None:
                init = f", mp.init = {a.init}"
            elif a.kind == "bn.running_var":
                init = ", mp.init = 1.0 : f32"
            attrs = f' {{mp.state = "{a.kind}"{init}}}'
        parts.append(f"{a.tensor.name}: {a.tensor.type}{attrs}")
    return ",\n        ".join(parts)


def import_train_step(model, inputs, target, loss, optimizer, scheduler=None):
    """Imports one training step of `model` on a batch like `inputs` (a
    tensor or a tuple of tensors) and `target`, with the loss `loss` (a
    torch.nn loss module or a callable `loss(output, target)`) and the
    torch.optim `optimizer` (SGD, Adam or AdamW, its param groups and its
    current state). Returns an ImportedStep. Raises UnsupportedError naming
    the ATen op and the user's source line for anything without an mp
    counterpart; nothing is returned then."""
    inputs = _as_tuple(inputs)
    loss_spec = _Loss(loss)
    was_training = model.training
    model.train()
    try:
        captured = capture(model, inputs) if loss_spec.declared else \
            capture(model, inputs, loss_fn=loss, target=target)
    finally:
        model.train(was_training)
    params, buffers = dict(model.named_parameters()), dict(model.named_buffers())
    optim = OptimizerImport(optimizer, scheduler, params)
    written = _written_buffers(captured)

    arguments = []
    bindings = {}
    placeholders = [n for n in captured.graph.nodes if n.op == "placeholder"]
    it = iter(placeholders)
    param_args = {}
    for name in captured.param_names:
        node = next(it)
        t = _tensor_of(params[name], f"%p{len(param_args)}")
        param_args[name] = len(arguments)
        arguments.append(Argument("param", name, t, value=params[name].detach().clone()))
        bindings[node] = t
    state_args = {}
    for index, name in enumerate(captured.buffer_names):
        node = next(it)
        if index in written:
            t = _tensor_of(buffers[name], f"%s{len(state_args)}")
            state_args[node] = len(arguments)
            arguments.append(Argument("state", name, t, kind=_buffer_kind(name),
                                      value=buffers[name].detach().clone()))
            bindings[node] = t
        else:
            bindings[node] = buffers[name].detach().clone()

    # Optimizer state, the step counter, the schedule counter.
    optim.add_arguments(arguments, param_args,
                        lambda role, name, tensor, kind, value, param: Argument(
                            role, name, tensor, kind=kind, value=value, param=param))

    input_nodes = placeholders[len(captured.param_names) + len(captured.buffer_names):]
    for i, x in enumerate(inputs):
        t = _tensor_of(x, f"%x{i}")
        arguments.append(Argument("input", f"inputs[{i}]", t))
        bindings[input_nodes[i]] = t
    target_tensor = _tensor_of(target, "%target")
    arguments.append(Argument("input", "target", target_tensor))
    if captured.has_target:
        bindings[input_nodes[len(inputs)]] = target_tensor

    def make_rng():
        # Seeded from PyTorch's generator: torch.manual_seed decides it.
        seed = int(torch.randint(0, 2 ** 62, (), dtype=torch.int64))
        t = Tensor("%rng", (2,), "i64")
        arguments.append(Argument("state", "rng", t, kind="rng",
                                  value=torch.tensor([seed, 0], dtype=torch.int64),
                                  init=f"dense<[{seed}, 0]> : tensor<2xi64>"))
        return t

    e = Emitter()
    importer = GraphImporter(captured.graph, bindings, e, _placeholder_names(captured),
                             make_rng)
    output = importer.tensor(importer.run())
    if not isinstance(output, Tensor):
        raise UnsupportedError("the model must return one tensor")
    loss_value = loss_spec.emit(e, output, target_tensor) if loss_spec.declared else output
    if loss_value.shape != ():
        raise UnsupportedError(f"the loss must be a scalar, got {loss_value.type}")

    # mp.grad, the step counter, the optimizer updates.
    trainable = [name for name, p in params.items() if p.requires_grad]
    wrt = [arguments[param_args[n]].tensor for n in trainable]
    grads = e.emit_many([(t.shape, t.dtype) for t in wrt],
                        f"mp.grad {loss_value.name} wrt {', '.join(t.name for t in wrt)} : "
                        f"{loss_value.type}, {', '.join(t.type for t in wrt)}")
    results = [(loss_value, "mp.loss")]
    results += optim.emit(e, arguments, param_args, dict(zip(trainable, grads)))
    for node, index in state_args.items():
        if node not in importer.updates:
            continue
        results.append((importer.tensor(importer.updates[node]), f"mp.updates = {index} : i64"))
    if importer.rng_argument is not None:
        rng_index = next(i for i, a in enumerate(arguments) if a.kind == "rng")
        results.append((importer.rng, f"mp.updates = {rng_index} : i64"))

    result_types = ", ".join(f"{v.type} {{{attr}}}" for v, attr in results)
    train = ["  func.func @train_step(" + _signature(arguments) + ")",
             f"      -> ({result_types}) {{"] + e.lines + [
        "    return " + ", ".join(v.name for v, _ in results) + " : " +
        ", ".join(v.type for v, _ in results), "  }"]

    predict_lines, predict_arguments = _predict(model, inputs, params, buffers, arguments,
                                                state_args, captured)
    mlir = "module {\n" + "\n".join(train + predict_lines) + "\n}\n"
    imported = ImportedStep(mlir, arguments, predict_arguments, results)
    aliases = tied_names(model)
    imported.state_names = {key: aliases.get(key, key) for key in model.state_dict()}
    written_names = {arguments[i].name for i in state_args.values()}
    imported.constant_buffers = {name: b.detach().clone() for name, b in buffers.items()
                                 if name not in written_names}
    name_of = {id(p): name for name, p in params.items()}
    imported.optimizer_param_names = [name_of[id(p)] for group in optimizer.param_groups
                                      for p in group["params"]]
    imported.param_groups = optimizer.state_dict()["param_groups"]
    return imported


def _predict(model, inputs, params, buffers, arguments, state_args, train_capture):
    """@predict: the model in eval mode on the parameters, the forward state
    of the train step (running statistics) and the inputs."""
    was_training = model.training
    model.eval()
    try:
        captured = capture(model, inputs)
    finally:
        model.train(was_training)
    state_names = {arguments[i].name for i in state_args.values()}
    placeholders = [n for n in captured.graph.nodes if n.op == "placeholder"]
    it = iter(placeholders)
    bindings = {}
    predict_arguments = []
    for name in captured.param_names:
        train_arg = next(a for a in arguments if a.role == "param" and a.name == name)
        predict_arguments.append(train_arg)
        bindings[next(it)] = train_arg.tensor
    for name in captured.buffer_names:
        node = next(it)
        if name in state_names:
            train_arg = next(a for a in arguments if a.role == "state" and a.name == name)
            predict_arguments.append(train_arg)
            bindings[node] = train_arg.tensor
        else:
            bindings[node] = buffers[name].detach().clone()
    for i, x in enumerate(inputs):
        t = _tensor_of(x, f"%x{i}")
        predict_arguments.append(Argument("input", f"inputs[{i}]", t))
        bindings[next(it)] = t
    e = Emitter()
    importer = GraphImporter(captured.graph, bindings, e, _placeholder_names(captured))
    output = importer.tensor(importer.run())
    if importer.updates:
        raise UnsupportedError("the model writes buffers in eval mode")
    lines = ["  func.func @predict(" + _signature(predict_arguments) + f") -> {output.type} {{"] + \
        e.lines + [f"    return {output.name} : {output.type}", "  }"]
    return lines, predict_arguments
