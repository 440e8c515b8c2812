"""Walks a captured ATen graph and writes an mp function: arguments for the
parameters, the written buffers (forward state) and the inputs; the mapped
ops; the results. Dead nodes (saved values of PyTorch's own backward) are
skipped; nodes that do not depend on the function's arguments are evaluated
with real tensors at import time and become constants.
"""

import operator

import torch
import torch.fx

from . import _aten
from ._aten import aten
from ._aten import Context, Tensor, Transposed, UnsupportedError
from ._capture import user_frame


def _is_written(node):
    """The mutated first operand of an in-place ATen op, or None."""
    target = node.target
    schema = getattr(target, "_schema", None)
    if schema is None or not schema.arguments:
        return None
    alias = schema.arguments[0].alias_info
    if alias is not None and alias.is_write and node.args and isinstance(node.args[0], torch.fx.Node):
        return node.args[0]
    return None


class GraphImporter:
    """Maps the nodes of `graph`. `bindings` gives, per placeholder, a Tensor
    (a function argument) or a real torch.Tensor (a constant buffer)."""

    def __init__(self, graph, bindings, emitter, names=None, make_rng=None):
        self.graph = graph
        self.emitter = emitter
        #: placeholder node -> its parameter or buffer name.
        self.names = names or {}
        #: Creates the RNG state argument on first use (returns a Tensor).
        self.make_rng = make_rng
        #: The RNG state argument and its current value, once used.
        self.rng_argument = None
        self.rng = None
        self.values = {}
        self.concrete = {}
        self.constant_cache = {}
        #: placeholder node -> Tensor: the new value of each written buffer.
        self.updates = {}
        for node, value in bindings.items():
            if isinstance(value, torch.Tensor):
                self.concrete[node] = value
            else:
                self.values[node] = value

    def _live_nodes(self, roots):
        live = set()
        stack = list(roots)
        while stack:
            node = stack.pop()
            if node in live:
                continue
            live.add(node)
            stack.extend(node.all_input_nodes)
        return live

    def _error(self, node, message):
        where = user_frame(node)
        target = getattr(node.target, "__name__", str(node.target))
        if hasattr(node.target, "_schema"):
            target = "aten." + node.target._schema.name.split("::")[-1] + (
                "." + node.target._schema.overload_name if node.target._schema.overload_name else "")
        text = f"{target}: {message}"
        if where:
            text += f"\n  at {where}"
        return UnsupportedError(text)

    def _is_constant(self, node):
        return all(n in self.concrete for n in node.all_input_nodes)

    def _resolve(self, arg):
        """A node argument as a mapped value, concrete values as constants."""
        if isinstance(arg, torch.fx.Node):
            if arg in self.values:
                return self.values[arg]
            if arg in self.concrete:
                return self._constant(arg)
            raise UnsupportedError(f"value {arg.name} is used before it is mapped")
        if isinstance(arg, (list, tuple)):
            return type(arg)(self._resolve(a) for a in arg)
        return arg

    def _constant(self, node):
        value = self.concrete[node]
        if not isinstance(value, torch.Tensor):
            return value
        if node not in self.constant_cache:
            if value.dtype not in _aten.DTYPES:
                raise self._error(node, f"constant of type {value.dtype} has no mp counterpart")
            dtype = _aten.DTYPES[value.dtype]
            array = value.detach().float().numpy() if dtype in _aten.FLOAT_DTYPES else \
                value.detach().numpy()
            self.constant_cache[node] = self.emitter.constant(array, dtype)
        return self.constant_cache[node]

    def _evaluate(self, node):
        def real(arg):
            if isinstance(arg, torch.fx.Node):
                return self.concrete[arg]
            if isinstance(arg, (list, tuple)):
                return type(arg)(real(a) for a in arg)
            return arg
        args = real(node.args)
        kwargs = {k: real(v) for k, v in node.kwargs.items()}
        if node.target is operator.getitem:
            return args[0][args[1]]
        with torch.no_grad():
            return node.target(*args, **kwargs)

    def run(self):
        """Maps every live node; returns the mapped output value(s)."""
        output = next(n for n in self.graph.nodes if n.op == "output")
        roots = [output] + [n for n in self.graph.nodes
                            if n.op == "call_function" and _is_written(n) is not None
                            and _is_written(n).op == "placeholder"]
        live = self._live_nodes(roots)
        for node in self.graph.nodes:
            if node not in live or node.op in ("placeholder", "output"):
                continue
            if node.op == "get_attr":
                self.concrete[node] = getattr(self.graph.owning_module, node.target)
                continue
            if node.op != "call_function":
                raise self._error(node, f"unexpected {node.op} node")
            if self._is_constant(node) and not str(node.target).startswith("aten.bernoulli"):
                self.concrete[node] = self._evaluate(node)
                continue
            self.values[node] = self._map(node)
            written = _is_written(node)
            if written is not None and written.op == "placeholder" and \
                    node.target is not aten.native_batch_norm.default:
                self.updates[written] = self.values[node]
        result = self._resolve(output.args[0])
        # make_fx returns the flattened outputs as a list.
        if isinstance(result, (list, tuple)) and len(result) == 1:
            result = result[0]
        return result

    def _map(self, node):
        if node.target is operator.getitem:
            container = self._resolve(node.args[0])
            item = container[node.args[1]]
            if item is None:
                raise self._error(node, "this result of the op is not supported")
            return item
        mapping = _aten.MAPPINGS.get(node.target)
        if mapping is None:
            raise self._error(node, "no mp counterpart (docs/PyTorch.md lists the supported ops)")
        try:
            args = [self._resolve(a) for a in node.args]
            kwargs = {k: self._resolve(v) for k, v in node.kwargs.items()}
            return mapping(Context(self, node), *args, **kwargs)
        except UnsupportedError as error:
            if "\n  at " in str(error):
                raise
            raise self._error(node, str(error)) from None

    def tensor(self, value):
        if isinstance(value, Transposed):
            return self.emitter.transpose(value.source, [1, 0])
        return value

    # --- what mappings ask of the importer -------------------------------

    def next_rng(self):
        """The current RNG state (the state argument on first use)."""
        if self.rng is None:
            if self.make_rng is None:
                raise UnsupportedError("random numbers are drawn, but this function has no "
                                       "RNG state (eval mode draws none)")
            self.rng_argument = self.rng = self.make_rng()
        return self.rng

    def set_rng(self, value):
        self.rng = value

    def write(self, placeholder, value):
        """Records `value` as the new value of the buffer `placeholder`."""
        self.updates[placeholder] = value
        self.values[placeholder] = value

    def buffer(self, sibling, name):
        """The current value of the buffer `name` of the module that owns the
        buffer placeholder `sibling` (e.g. its num_batches_tracked)."""
        prefix = self.names.get(sibling, "").rpartition(".")[0]
        full = f"{prefix}.{name}" if prefix else name
        for node, node_name in self.names.items():
            if node_name == full:
                return self._resolve(node)
        raise UnsupportedError(f"the module has no buffer {full}")


__all__ = ["GraphImporter", "Tensor", "UnsupportedError"]
