"""Capturing a torch.nn.Module's forward at the ATen level with torch 1.13.

The forward is traced by `make_fx` on a functional call of the module
(`torch.nn.utils.stateless.functional_call`), with fake tensors, so nothing
runs and the module's parameters and buffers are not touched. Shapes are
specialised to the example inputs (mp is statically shaped). Each node keeps
the stack trace of the user's line that created it, for error messages.
"""

import os

import torch
from torch.fx.experimental import proxy_tensor
from torch.nn.utils import stateless

_TORCH_DIR = os.path.dirname(torch.__file__)
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Captured:
    """A traced forward: `graph` (torch.fx.Graph of ATen ops) whose
    placeholders are the parameters (`param_names`), then the buffers
    (`buffer_names`), then the inputs, then (when traced with a loss
    function) the target."""

    def __init__(self, graph_module, param_names, buffer_names, num_inputs, has_target):
        self.graph_module = graph_module
        self.graph = graph_module.graph
        self.param_names = param_names
        self.buffer_names = buffer_names
        self.num_inputs = num_inputs
        self.has_target = has_target


def named_tensors(module):
    """The module's parameters (deduplicated: a tied weight once, under its
    first name, as `named_parameters()` gives them) and buffers."""
    params = dict(module.named_parameters())
    buffers = dict(module.named_buffers())
    return params, buffers


def tied_names(module):
    """Every name of each parameter and buffer, tied ones included
    (`head.weight` of a weight tied to `wte.weight`): name -> the name
    `named_parameters()`/`named_buffers()` give it."""
    canonical = {}
    for kind in ("_parameters", "_buffers"):
        first = {}
        for prefix, sub in module.named_modules(remove_duplicate=False):
            for name, tensor in getattr(sub, kind).items():
                if tensor is None:
                    continue
                full = f"{prefix}.{name}" if prefix else name
                canonical[full] = first.setdefault(id(tensor), full)
    return canonical


def capture(module, inputs, loss_fn=None, target=None):
    """Traces `module(*inputs)` (and `loss_fn(output, target)` when given)
    in the module's current mode (train or eval)."""
    params, buffers = named_tensors(module)
    param_names = list(params)
    buffer_names = list(buffers)
    num_inputs = len(inputs)
    aliases = tied_names(module)

    def forward(param_values, buffer_values, *args):
        by_name = dict(zip(param_names, param_values))
        by_name.update(zip(buffer_names, buffer_values))
        state = {alias: by_name[name] for alias, name in aliases.items() if name in by_name}
        output = stateless.functional_call(module, state, tuple(args[:num_inputs]))
        if loss_fn is not None:
            return loss_fn(output, args[num_inputs])
        return output

    args = list(inputs) + ([target] if loss_fn is not None else [])
    previous = proxy_tensor.PythonKeyTracer.record_stack_traces
    proxy_tensor.PythonKeyTracer.record_stack_traces = True
    try:
        # With gradients enabled, as in training: without them modules take
        # inference fast paths (nn.MultiheadAttention's fused kernel).
        with torch.enable_grad():
            traced = proxy_tensor.make_fx(forward, tracing_mode="fake")(
                [params[n].detach().requires_grad_(params[n].requires_grad)
                 for n in param_names],
                [buffers[n].detach() for n in buffer_names], *args)
    finally:
        proxy_tensor.PythonKeyTracer.record_stack_traces = previous
    return Captured(traced, param_names, buffer_names, num_inputs, loss_fn is not None)


def user_frame(node):
    """'file:line: code' of the innermost frame of `node`'s stack trace
    outside torch and mixedprec (the user's source line), or None."""
    trace = getattr(node, "stack_trace", None)
    if not trace:
        return None
    lines = trace.splitlines()
    for i, line in enumerate(lines):
        line = line.strip()
        if not line.startswith('File "'):
            continue
        path = line[len('File "'):line.index('"', len('File "'))]
        if path.startswith(_TORCH_DIR) or path.startswith(_PACKAGE_DIR) or \
                path.startswith("<"):
            continue
        rest = line.split('", line ', 1)[1]
        number = rest.split(",", 1)[0]
        code = lines[i + 1].strip() if i + 1 < len(lines) else ""
        return f"{path}:{number}: {code}"
    return None
