"""torch.optim optimizers and lr_scheduler schedulers as mp optimizer ops.

Each parameter is updated by one `mp.sgd` / `mp.adam` / `mp.adamw` with the
hyperparameters of its param group, on state arguments initialised from the
optimizer's current state. A scheduler becomes the closed form of its
learning rate computed in the step from a `lr_scheduler.last_epoch` counter
(forward state: PyTorch's scheduler.step() runs on skipped steps too), by
mixedprec.builder's schedules (the ops of C++'s mp::buildLRSchedule).
"""

import collections

import torch

from .. import builder as mp_builder
from ._aten import Tensor, UnsupportedError, f64

_KINDS = {torch.optim.SGD: "sgd", torch.optim.Adam: "adam", torch.optim.AdamW: "adamw"}


def _schedule(scheduler):
    """The mixedprec schedule of a torch.optim.lr_scheduler object."""
    lr_scheduler = torch.optim.lr_scheduler
    kind = type(scheduler)
    if kind is lr_scheduler.StepLR:
        return mp_builder.StepLR(scheduler.step_size, scheduler.gamma)
    if kind is lr_scheduler.MultiStepLR:
        return mp_builder.MultiStepLR(sorted(scheduler.milestones.elements()), scheduler.gamma)
    if kind is lr_scheduler.ExponentialLR:
        return mp_builder.ExponentialLR(scheduler.gamma)
    if kind is lr_scheduler.CosineAnnealingLR:
        return mp_builder.CosineAnnealingLR(scheduler.T_max, scheduler.eta_min)
    if kind is lr_scheduler.LinearLR:
        return mp_builder.LinearLR(scheduler.start_factor, scheduler.end_factor,
                                   scheduler.total_iters)
    if kind is lr_scheduler.SequentialLR:
        return mp_builder.SequentialLR([_schedule(s) for s in scheduler._schedulers],
                                       scheduler._milestones)
    raise UnsupportedError(f"scheduler {kind.__name__} is not supported (StepLR, MultiStepLR, "
                           "ExponentialLR, CosineAnnealingLR, LinearLR, SequentialLR are)")


class OptimizerImport:
    """The optimizer (and scheduler) of one train step: `add_arguments`
    appends their state arguments, `emit` their ops after `mp.grad`."""

    def __init__(self, optimizer, scheduler, params):
        self.kind = _KINDS.get(type(optimizer))
        if self.kind is None:
            raise UnsupportedError(f"optimizer {type(optimizer).__name__} is not supported "
                                   "(torch.optim.SGD, Adam, AdamW are)")
        self.optimizer = optimizer
        self.params = params
        self.group_index = {}
        for index, group in enumerate(optimizer.param_groups):
            self._check(group)
            for p in group["params"]:
                self.group_index[id(p)] = index
        missing = [name for name, p in params.items()
                   if p.requires_grad and id(p) not in self.group_index]
        if missing:
            raise UnsupportedError("parameters not in the optimizer: " + ", ".join(missing))
        self.schedule = None
        if scheduler is not None:
            if scheduler.optimizer is not optimizer:
                raise UnsupportedError("the scheduler belongs to another optimizer")
            self.schedule = _schedule(scheduler)
            self.scheduler = scheduler
        #: parameter name -> argument indices of its state.
        self.state_arguments = collections.defaultdict(list)
        self.step_index = None
        self.epoch_index = None

    def _check(self, group):
        for flag in ("capturable", "differentiable", "fused"):
            if group.get(flag):
                raise UnsupportedError(f"{self.kind} with {flag}=True is not supported")

    def group(self, name):
        return self.optimizer.param_groups[self.group_index[id(self.params[name])]]

    def _needs_step(self):
        if self.kind != "sgd":
            return True
        return any(g["momentum"] and g["dampening"] for g in self.optimizer.param_groups)

    def add_arguments(self, arguments, param_args, make_argument):
        """Appends the state arguments (make_argument(role, name, tensor,
        kind, value, param) builds one)."""
        for name, p in self.params.items():
            if not p.requires_grad:
                continue
            group = self.group(name)
            keys = []
            if self.kind == "sgd" and group["momentum"]:
                keys = [("sgd.momentum_buffer", "momentum_buffer")]
            elif self.kind in ("adam", "adamw"):
                keys = [("adam.exp_avg", "exp_avg"), ("adam.exp_avg_sq", "exp_avg_sq")]
                if group["amsgrad"]:
                    keys.append(("adam.max_exp_avg_sq", "max_exp_avg_sq"))
            state = self.optimizer.state.get(p, {})
            param = arguments[param_args[name]].tensor
            for kind, key in keys:
                value = state.get(key)
                self.state_arguments[name].append(len(arguments))
                arguments.append(make_argument(
                    "state", f"{name}.{key}", Tensor(f"%o{len(arguments)}", param.shape,
                                                     param.dtype),
                    kind, None if value is None else value.detach().clone(), param_args[name]))
        if self._needs_step():
            if self.kind == "sgd":
                # SGD keeps no count: a step with momentum buffers is not the
                # first (PyTorch sets buf = g only when it has none).
                stepped = any("momentum_buffer" in self.optimizer.state.get(p, {})
                              for p in self.params.values())
                count = 1 if stepped else 0
            else:
                counts = {int(self.optimizer.state[p]["step"]) for p in self.params.values()
                          if p in self.optimizer.state and "step" in self.optimizer.state[p]}
                if len(counts) > 1:
                    raise UnsupportedError("the optimizer's parameters have different step "
                                           "counts")
                count = counts.pop() if counts else 0
            self.step_index = len(arguments)
            arguments.append(make_argument("state", "step", Tensor("%step", (), "i64"), "step",
                                           torch.tensor(count), None))
        if self.schedule is not None:
            self.epoch_index = len(arguments)
            arguments.append(make_argument(
                "state", "lr_scheduler.last_epoch", Tensor("%lr_epoch", (), "i64"),
                "lr_scheduler.last_epoch", torch.tensor(int(self.scheduler.last_epoch)), None))

    def _attrs(self, group, runtime_lr):
        attrs = [] if runtime_lr else [f"lr = {f64(group['lr'])} : f64"]
        if self.kind == "sgd":
            for key in ("momentum", "dampening", "weight_decay"):
                if group[key]:
                    attrs.append(f"{key} = {f64(group[key])} : f64")
            if group["nesterov"]:
                attrs.append("nesterov")
        else:
            beta1, beta2 = group["betas"]
            attrs += [f"beta1 = {f64(beta1)} : f64", f"beta2 = {f64(beta2)} : f64",
                      f"eps = {f64(group['eps'])} : f64",
                      f"weight_decay = {f64(group['weight_decay'])} : f64"]
        if group.get("maximize"):
            attrs.append("maximize")
        return "{" + ", ".join(attrs) + "}"

    def _learning_rates(self, e):
        """Per param group, the `tensor<f64>` learning rate of this step."""
        rates = []
        # A scheduler records each group's base learning rate as initial_lr.
        for index, group in enumerate(self.optimizer.param_groups):
            base = group.get("initial_lr", group["lr"])
            lines, name = mp_builder.lr_schedule_ops(self.schedule, base, "%lr_epoch",
                                                     prefix=f"%lr{index}_")
            e.lines += ["    " + line for line in lines]
            rates.append(Tensor(name, (), "f64"))
        return rates

    def emit(self, e, arguments, param_args, grads):
        """The optimizer ops after `mp.grad` (`grads`: name -> gradient);
        returns the (value, result attribute) pairs of the new parameters,
        their state, the step counter and the schedule counter."""
        results = []
        step = None
        if self.step_index is not None:
            one = e.scalar(1, "i64")
            step = e.emit((), "i64", f"arith.addi %step, {one.name} : tensor<i64>")
        rates = self._learning_rates(e) if self.schedule is not None else None
        for name, g in grads.items():
            p = arguments[param_args[name]].tensor
            group = self.group(name)
            lr = ""
            if rates is not None:
                rate = rates[self.group_index[id(self.params[name])]]
                lr = f" lr({rate.name} : tensor<f64>)"
            attrs = self._attrs(group, rates is not None)
            states = [arguments[i].tensor for i in self.state_arguments[name]]
            if self.kind == "sgd":
                text = f"mp.sgd {p.name}, {g.name}"
                types = p.type
                if states:
                    text += f" momentum_buffer {states[0].name}"
                    types += f", {states[0].type}"
                    if group["dampening"]:
                        text += f" step({step.name} : tensor<i64>)"
                new = e.emit_many([(p.shape, p.dtype)] * (1 + len(states)),
                                  f"{text}{lr} {attrs} : {types}")
            else:
                amsgrad = f" amsgrad {states[2].name}" if len(states) == 3 else ""
                new = e.emit_many([(p.shape, p.dtype)] * (1 + len(states)),
                                  f"mp.{self.kind} {p.name}, {g.name}, {states[0].name}, "
                                  f"{states[1].name}, {step.name}{amsgrad}{lr} {attrs} : "
                                  f"{p.type}, tensor<i64>")
            results.append((new[0], f"mp.updates = {param_args[name]} : i64"))
            for index, value in zip(self.state_arguments[name], new[1:]):
                results.append((value, f"mp.updates = {index} : i64"))
        if step is not None:
            results.append((step, f"mp.updates = {self.step_index} : i64"))
        if self.epoch_index is not None:
            one = e.scalar(1, "i64")
            epoch = e.emit((), "i64", f"arith.addi %lr_epoch, {one.name} : tensor<i64>")
            results.append((epoch, f"mp.updates = {self.epoch_index} : i64"))
        return results
