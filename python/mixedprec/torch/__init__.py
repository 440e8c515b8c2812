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

import torch

from . import _aten
from ._aten import Emitter, Tensor, UnsupportedError, f64, tensor_type
from ._capture import capture, tied_names
from ._importer import GraphImporter
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
    """The loss applied to the model's output: a declared loss module or a
    traced callable."""

    def __init__(self, loss):
        self.module = loss
        self.declared = isinstance(loss, (torch.nn.CrossEntropyLoss, torch.nn.MSELoss))
        if isinstance(loss, torch.nn.modules.loss._Loss) and not self.declared \
                and not callable(loss):
            raise UnsupportedError(f"loss {type(loss).__name__} is not supported")

    def emit(self, e, output, target):
        loss = self.module
        if isinstance(loss, torch.nn.CrossEntropyLoss):
            if loss.weight is not None:
                raise UnsupportedError("CrossEntropyLoss(weight=...) is not supported")
            if loss.reduction != "mean":
                raise UnsupportedError("CrossEntropyLoss supports reduction='mean' only")
            if loss.label_smoothing != 0.0 or loss.ignore_index != -100:
                raise UnsupportedError(
                    "CrossEntropyLoss with label_smoothing or ignore_index is not supported yet")
            if output.rank > 2:
                classes = output.shape[-1]
                output = e.reshape(output, (_product(output.shape[:-1]), classes))
                target = e.reshape(target, (_product(target.shape),))
            return e.emit((), output.dtype, f"mp.cross_entropy {output.name}, {target.name} : "
                                            f"{output.type}, {target.type}")
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


def _optimizer_groups(optimizer, params):
    """The param group of each parameter (by identity)."""
    group_of = {}
    for group in optimizer.param_groups:
        for p in group["params"]:
            group_of[id(p)] = group
    missing = [name for name, p in params.items() if p.requires_grad and id(p) not in group_of]
    if missing:
        raise UnsupportedError("parameters not in the optimizer: " + ", ".join(missing))
    return group_of


def _optimizer_kind(optimizer):
    if type(optimizer) is torch.optim.SGD:
        return "sgd"
    if type(optimizer) is torch.optim.Adam:
        return "adam"
    if type(optimizer) is torch.optim.AdamW:
        return "adamw"
    raise UnsupportedError(f"optimizer {type(optimizer).__name__} is not supported "
                           "(torch.optim.SGD, Adam, AdamW are)")


def _check_group(kind, group):
    for flag in ("maximize", "foreach", "capturable", "differentiable", "fused"):
        if group.get(flag):
            if flag == "foreach":
                continue
            raise UnsupportedError(f"{kind} with {flag}=True is not supported")
    if kind in ("adam", "adamw") and group.get("amsgrad"):
        raise UnsupportedError(f"{kind} with amsgrad=True is not supported yet")
    if kind == "sgd" and group.get("dampening", 0) != 0 and group.get("momentum", 0) != 0:
        raise UnsupportedError("SGD with dampening is not supported yet")


def _optimizer_attrs(kind, group):
    if kind == "sgd":
        attrs = [f"lr = {f64(group['lr'])} : f64"]
        if group["momentum"]:
            attrs.append(f"momentum = {f64(group['momentum'])} : f64")
        if group["dampening"]:
            attrs.append(f"dampening = {f64(group['dampening'])} : f64")
        if group["weight_decay"]:
            attrs.append(f"weight_decay = {f64(group['weight_decay'])} : f64")
        if group["nesterov"]:
            attrs.append("nesterov")
        return attrs
    beta1, beta2 = group["betas"]
    return [f"lr = {f64(group['lr'])} : f64", f"beta1 = {f64(beta1)} : f64",
            f"beta2 = {f64(beta2)} : f64", f"eps = {f64(group['eps'])} : f64",
            f"weight_decay = {f64(group['weight_decay'])} : f64"]


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
    if scheduler is not None:
        raise UnsupportedError("learning-rate schedulers are not supported yet")
    inputs = _as_tuple(inputs)
    kind = _optimizer_kind(optimizer)
    loss_spec = _Loss(loss)
    was_training = model.training
    model.train()
    try:
        captured = capture(model, inputs) if loss_spec.declared else \
            capture(model, inputs, loss_fn=loss, target=target)
    finally:
        model.train(was_training)
    params, buffers = dict(model.named_parameters()), dict(model.named_buffers())
    group_of = _optimizer_groups(optimizer, params)
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

    # Optimizer state, then the step counter.
    opt_state = {}
    for name, p in params.items():
        if not p.requires_grad:
            continue
        group = group_of[id(p)]
        _check_group(kind, group)
        state = optimizer.state.get(p, {})
        ptype = arguments[param_args[name]].tensor
        kinds = []
        if kind == "sgd" and group["momentum"]:
            kinds = [("sgd.momentum_buffer", "momentum_buffer")]
        elif kind in ("adam", "adamw"):
            kinds = [("adam.exp_avg", "exp_avg"), ("adam.exp_avg_sq", "exp_avg_sq")]
        for state_kind, key in kinds:
            t = Tensor(f"%o{len(arguments)}", ptype.shape, ptype.dtype)
            value = state.get(key)
            if kind == "sgd" and value is None and group["dampening"]:
                raise UnsupportedError("SGD with dampening on the first step")
            opt_state.setdefault(name, []).append(len(arguments))
            arguments.append(Argument("state", f"{name}.{key}", t, kind=state_kind,
                                      value=None if value is None else value.detach().clone(),
                                      param=param_args[name]))
    step_index = None
    if kind in ("adam", "adamw"):
        steps = {int(optimizer.state[p]["step"]) for p in params.values()
                 if p in optimizer.state and "step" in optimizer.state[p]}
        if len(steps) > 1:
            raise UnsupportedError("the optimizer's parameters have different step counts")
        step_index = len(arguments)
        arguments.append(Argument("state", "step", Tensor("%step", (), "i64"), kind="step",
                                  value=torch.tensor(steps.pop() if steps else 0)))

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
    step_value = None
    if step_index is not None:
        one = e.scalar(1, "i64")
        step_value = e.emit((), "i64", f"arith.addi %step, {one.name} : tensor<i64>")
    for name, g in zip(trainable, grads):
        p = arguments[param_args[name]].tensor
        group = group_of[id(params[name])]
        attrs = "{" + ", ".join(_optimizer_attrs(kind, group)) + "}"
        states = [arguments[i].tensor for i in opt_state.get(name, [])]
        if kind == "sgd":
            if states:
                new = e.emit_many([(p.shape, p.dtype)] * 2,
                                  f"mp.sgd {p.name}, {g.name} momentum_buffer {states[0].name} "
                                  f"{attrs} : {p.type}, {states[0].type}")
            else:
                new = e.emit_many([(p.shape, p.dtype)], f"mp.sgd {p.name}, {g.name} {attrs} : "
                                                        f"{p.type}")
        else:
            new = e.emit_many([(p.shape, p.dtype)] * 3,
                              f"mp.{kind} {p.name}, {g.name}, {states[0].name}, {states[1].name}, "
                              f"{step_value.name} {attrs} : {p.type}, tensor<i64>")
        results.append((new[0], f"mp.updates = {param_args[name]} : i64"))
        for index, value in zip(opt_state.get(name, []), new[1:]):
            results.append((value, f"mp.updates = {index} : i64"))
    for node, index in state_args.items():
        if node not in importer.updates:
            continue
        results.append((importer.tensor(importer.updates[node]), f"mp.updates = {index} : i64"))
    if step_value is not None:
        results.append((step_value, f"mp.updates = {step_index} : i64"))
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
