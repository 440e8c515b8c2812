"""ATen ops to mp ops: the emitter of mp IR text and the table that maps
each ATen overload of a captured forward to mp ops.

Values are `Tensor`s (an SSA name with its shape and element type). A node
whose inputs do not depend on the step's arguments (`torch.arange`, masks
computed from constant buffers) is evaluated at import time and becomes an
`arith.constant`. Views that only feed a contraction (`aten.t` of a weight)
fold into it (`mp.linear`'s weight layout, transpose flags).
"""

import math
import operator

import numpy as np
import torch

from .. import builder as mp_builder

aten = torch.ops.aten

DTYPES = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16",
          torch.int64: "i64", torch.int32: "i32", torch.bool: "i1"}
FLOAT_DTYPES = ("f32", "f16", "bf16")


class UnsupportedError(Exception):
    """A graph the importer cannot map: names the ATen op and the user's
    source line."""


def tensor_type(shape, dtype):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


def f64(value):
    """`value` in MLIR's float syntax (mixedprec.builder's), finite only."""
    try:
        return mp_builder._float_literal(value)
    except mp_builder.BuildError:
        raise UnsupportedError(f"non-finite attribute {value}") from None


def i64_list(values):
    return "[" + ", ".join(str(int(v)) for v in values) + "]"


def i64_array(values):
    return "array<i64: " + ", ".join(str(int(v)) for v in values) + ">"


class Tensor:
    """An mp SSA value."""

    def __init__(self, name, shape, dtype):
        self.name = name
        self.shape = tuple(int(d) for d in shape)
        self.dtype = dtype

    @property
    def type(self):
        return tensor_type(self.shape, self.dtype)

    @property
    def rank(self):
        return len(self.shape)


class Lazy:
    """A value not emitted until an op needs it as a tensor
    (Context.tensor materialises it)."""

    def materialize(self, ctx):
        raise NotImplementedError


class Empty(Lazy):
    """`empty` / `empty_like`: a shape and type, values not yet written."""

    def __init__(self, shape, dtype, like=None):
        self.shape = tuple(shape)
        self.dtype = dtype
        self.like = like

    def materialize(self, ctx):
        raise UnsupportedError("an uninitialised tensor (empty) is read")


class Bernoulli(Lazy):
    """`empty(...).bernoulli_(keep)`: 1 with probability `keep`, else 0;
    drawn from the step's RNG state when materialised."""

    def __init__(self, empty, keep):
        self.shape = empty.shape
        self.dtype = empty.dtype
        self.like = empty.like
        self.keep = float(keep)
        self.value = None

    def materialize(self, ctx, scale=1.0):
        e = ctx.e
        uniform, new_rng = e.random_uniform(ctx.importer.next_rng(), self.shape)
        ctx.importer.set_rng(new_rng)
        keep = e.emit(self.shape, "i1", f"mp.compare lt, {uniform.name}, "
                                        f"{e.scalar(self.keep, 'f32').name} : "
                                        f"{uniform.type}, tensor<f32>")
        one, zero = e.scalar(scale, self.dtype), e.scalar(0.0, self.dtype)
        return e.emit(self.shape, self.dtype, f"mp.select {keep.name}, {one.name}, {zero.name} : "
                                              f"{keep.type}, {one.type}, {zero.type}")


class DropoutMask(Lazy):
    """`bernoulli.div_(keep)`: the mask of dropout, kept/keep or 0. A
    product with the tensor it was drawn for becomes `mp.dropout` (whose
    backward regenerates the mask); elsewhere it is materialised."""

    def __init__(self, bernoulli):
        self.bernoulli = bernoulli
        self.shape = bernoulli.shape
        self.dtype = bernoulli.dtype

    def materialize(self, ctx):
        return self.bernoulli.materialize(ctx, scale=1.0 / self.bernoulli.keep)


def _dropout(ctx, a, b):
    """mp.dropout for `x * mask` with a dropout mask of x's shape, else None."""
    x, mask = (a, b) if isinstance(b, DropoutMask) else (b, a)
    if not isinstance(mask, DropoutMask) or not isinstance(x, (Tensor, Transposed)):
        return None
    x = ctx.tensor(x)
    if x.shape != mask.shape or x.dtype != mask.dtype:
        return None
    rng = ctx.importer.next_rng()
    p = 1.0 - mask.bernoulli.keep
    y, new_rng = ctx.e.emit_many([(x.shape, x.dtype), (rng.shape, rng.dtype)],
                                 f"mp.dropout {x.name}, {rng.name} p({f64(p)}) : {x.type}")
    ctx.importer.set_rng(new_rng)
    return y


class Transposed:
    """`aten.t(x)` not yet materialised: a contraction reads `source` with a
    transpose flag, anything else gets an `mp.transpose`."""

    def __init__(self, source):
        self.source = source


def literal(array, dtype):
    array = np.asarray(array)
    if dtype == "i1":
        scalar = lambda v: "true" if v else "false"  # noqa: E731
    elif dtype in FLOAT_DTYPES:
        def scalar(v):
            v = float(v)
            if math.isnan(v):
                return "0x7FC00000" if dtype == "f32" else "0x7E00" if dtype == "f16" else "0x7FC0"
            if math.isinf(v):
                bits = {"f32": ("0x7F800000", "0xFF800000"), "f16": ("0x7C00", "0xFC00"),
                        "bf16": ("0x7F80", "0xFF80")}[dtype]
                return bits[0] if v > 0 else bits[1]
            return "%.9e" % v
    else:
        scalar = lambda v: str(int(v))  # noqa: E731
    flat = array.reshape(-1)
    if flat.size and all(scalar(v) == scalar(flat[0]) for v in flat[:1024]) and \
            (flat.size <= 1024 or (flat == flat[0]).all()):
        return f"dense<{scalar(flat[0])}>"

    def nested(a):
        if a.ndim == 0:
            return scalar(a.item())
        return "[" + ", ".join(nested(s) for s in a) + "]"
    return f"dense<{nested(array)}>"


class Emitter:
    """Writes the body of one function."""

    def __init__(self):
        self.lines = []
        self.count = 0

    def fresh(self):
        self.count += 1
        return f"%{self.count - 1}"

    def emit(self, shape, dtype, text):
        """`%N = text`; returns the new Tensor."""
        value = Tensor(self.fresh(), shape, dtype)
        self.lines.append(f"    {value.name} = {text}")
        return value

    def emit_many(self, types, text):
        """`%N:k = text` for k results; returns the Tensors."""
        name = self.fresh()
        if len(types) == 1:
            self.lines.append(f"    {name} = {text}")
            return [Tensor(name, *types[0])]
        self.lines.append(f"    {name}:{len(types)} = {text}")
        return [Tensor(f"{name}#{i}", shape, dtype) for i, (shape, dtype) in enumerate(types)]

    def constant(self, array, dtype):
        array = np.asarray(array)
        t = tensor_type(array.shape, dtype)
        return self.emit(array.shape, dtype, f"arith.constant {literal(array, dtype)} : {t}")

    def scalar(self, value, dtype):
        return self.constant(np.array(value), dtype)

    # --- mp ops used by several mappings --------------------------------

    def reshape(self, x, shape):
        shape = tuple(shape)
        if x.shape == shape:
            return x
        return self.emit(shape, x.dtype,
                         f"mp.reshape {x.name} : {x.type} to {tensor_type(shape, x.dtype)}")

    def transpose(self, x, perm):
        perm = list(perm)
        if perm == list(range(x.rank)):
            return x
        shape = [x.shape[p] for p in perm]
        return self.emit(shape, x.dtype, f"mp.transpose {x.name} perm {i64_list(perm)} : {x.type}")

    def broadcast(self, x, shape):
        shape = tuple(shape)
        if x.shape == shape:
            return x
        return self.emit(shape, x.dtype,
                         f"mp.broadcast {x.name} : {x.type} to {tensor_type(shape, x.dtype)}")

    def binary(self, mnemonic, a, b, shape):
        return self.emit(shape, a.dtype, f"mp.{mnemonic} {a.name}, {b.name} : {a.type}, {b.type}")

    def unary(self, mnemonic, x, suffix=""):
        return self.emit(x.shape, x.dtype, f"mp.{mnemonic} {x.name}{suffix} : {x.type}")

    def random_uniform(self, rng, shape):
        """U[0, 1) of f32 `shape` from the RNG state `rng`; returns the
        values and the new state."""
        return self.emit_many([(shape, "f32"), (rng.shape, rng.dtype)],
                              f"mp.random_uniform {rng.name} : {tensor_type(shape, 'f32')}")

    def cast(self, x, dtype):
        if x.dtype == dtype:
            return x
        return self.emit(x.shape, dtype,
                         f"mp.cast {x.name} : {x.type} to {tensor_type(x.shape, dtype)}")

    def slice(self, x, offsets, sizes, strides):
        return self.emit(sizes, x.dtype,
                         f"mp.slice {x.name} offsets {i64_list(offsets)} sizes {i64_list(sizes)} "
                         f"strides {i64_list(strides)} : {x.type}")

    def reduce(self, mnemonic, x, dims, keepdims):
        dims = sorted(d % x.rank for d in dims)
        shape = [1 if i in dims else s for i, s in enumerate(x.shape)] if keepdims else \
            [s for i, s in enumerate(x.shape) if i not in dims]
        kept = " keepdims" if keepdims else ""
        return self.emit(shape, x.dtype,
                         f"mp.{mnemonic} {x.name} dims {i64_list(dims)}{kept} : {x.type}")

    def linear(self, x, weight, bias, out_shape):
        operands = [x, weight] + ([bias] if bias is not None else [])
        names = ", ".join(o.name for o in operands)
        types = ", ".join(o.type for o in operands)
        return self.emit(out_shape, x.dtype,
                         f"mp.linear {names} acc(f32) : ({types}) -> "
                         f"{tensor_type(out_shape, x.dtype)}")

    def matmul(self, mnemonic, a, b, transpose_rhs, out_shape):
        flag = " transpose_rhs" if transpose_rhs else ""
        return self.emit(out_shape, a.dtype,
                         f"mp.{mnemonic} {a.name}, {b.name}{flag} acc(f32) : {a.type}, {b.type} -> "
                         f"{tensor_type(out_shape, a.dtype)}")


# --- the mapping table --------------------------------------------------------

MAPPINGS = {}


def maps(*overloads):
    def register(fn):
        for overload in overloads:
            MAPPINGS[overload] = fn
        return fn
    return register


def out_shape(node):
    return tuple(int(d) for d in node.meta["val"].shape)


def result_shape(node, index):
    """The shape of result `index` of a node with several results (make_fx
    records it on the node or on its getitem users)."""
    value = node.meta.get("val")
    if isinstance(value, (tuple, list)):
        return tuple(int(d) for d in value[index].shape)
    for user in node.users:
        if user.target is operator.getitem and user.args[1] == index:
            return out_shape(user)
    raise UnsupportedError(f"the shape of result {index} is unknown")


def out_dtype(node):
    dtype = node.meta["val"].dtype
    if dtype not in DTYPES:
        raise UnsupportedError(f"element type {dtype} has no mp counterpart")
    return DTYPES[dtype]


class Context:
    """What a mapping sees: the emitter, the node and its operands."""

    def __init__(self, importer, node):
        self.importer = importer
        self.e = importer.emitter
        self.node = node

    def tensor(self, value):
        """A mapped operand as a Tensor (materialising lazy views)."""
        if isinstance(value, Transposed):
            return self.e.transpose(value.source, [1, 0])
        if isinstance(value, Lazy):
            return value.materialize(self)
        if isinstance(value, Tensor):
            return value
        raise UnsupportedError(f"expected a tensor operand, got {value!r}")

    def operand(self, value, like):
        """A tensor, or a Python number as a 0-d constant of `like`'s type."""
        if isinstance(value, (int, float, bool)):
            return self.e.scalar(value, like.dtype)
        return self.tensor(value)


def _broadcast_shape(a, b):
    return tuple(np.broadcast_shapes(a.shape, b.shape))


_INTEGER_OPS = {"add": "arith.addi", "sub": "arith.subi", "mul": "arith.muli"}


def _binary(mnemonic):
    def mapping(ctx, a, b, alpha=1):
        if mnemonic == "div" and isinstance(a, Bernoulli) and isinstance(b, (int, float)) \
                and b == a.keep:
            # empty_like(x).bernoulli_(q).div_(q): a dropout mask.
            return DropoutMask(a)
        if mnemonic == "mul":
            dropout = _dropout(ctx, a, b)
            if dropout is not None:
                return dropout
        if not isinstance(a, (Tensor, Transposed, Lazy)):
            b = ctx.tensor(b)
            a = ctx.operand(a, b)
        else:
            a = ctx.tensor(a)
            b = ctx.operand(b, a)
        if alpha != 1:
            b = ctx.e.binary("mul", b, ctx.e.scalar(alpha, b.dtype), b.shape)
        if a.dtype not in FLOAT_DTYPES:
            # Counters (num_batches_tracked += 1): arith on integer tensors.
            if mnemonic not in _INTEGER_OPS or a.shape != b.shape and b.shape != ():
                raise UnsupportedError(f"{mnemonic} of {a.type} and {b.type}")
            if b.shape != a.shape:
                b = ctx.e.broadcast(ctx.e.reshape(b, (1,) * a.rank), a.shape) if a.rank else b
            return ctx.e.emit(a.shape, a.dtype, f"{_INTEGER_OPS[mnemonic]} {a.name}, {b.name} : "
                                                f"{a.type}")
        return ctx.e.binary(mnemonic, a, b, _broadcast_shape(a, b))
    return mapping


for _name in ("add", "sub", "mul", "div"):
    maps(getattr(aten, _name).Tensor, getattr(aten, _name + "_").Tensor,
         getattr(aten, _name).Scalar, getattr(aten, _name + "_").Scalar)(_binary(_name))


@maps(aten.rsub.Scalar)
def _rsub(ctx, a, b, alpha=1):
    if alpha != 1:
        raise UnsupportedError("rsub with alpha other than 1")
    return _binary("sub")(ctx, b, a)


def _unary(mnemonic):
    def mapping(ctx, x):
        return ctx.e.unary(mnemonic, ctx.tensor(x))
    return mapping


for _name, _mp in (("relu", "relu"), ("tanh", "tanh"), ("sigmoid", "sigmoid"), ("exp", "exp"),
                   ("log", "log"), ("sqrt", "sqrt"), ("rsqrt", "rsqrt"), ("neg", "neg")):
    _overloads = [getattr(aten, _name).default]
    if hasattr(aten, _name + "_"):
        _overloads.append(getattr(aten, _name + "_").default)
    maps(*_overloads)(_unary(_mp))


@maps(aten.gelu.default)
def _gelu(ctx, x, approximate="none"):
    suffix = " approximate tanh" if approximate == "tanh" else ""
    return ctx.e.unary("gelu", ctx.tensor(x), suffix)


@maps(aten.t.default)
def _t(ctx, x):
    if isinstance(x, Tensor) and x.rank == 2:
        return Transposed(x)
    return ctx.e.transpose(ctx.tensor(x), list(range(x.rank))[::-1])


@maps(aten.addmm.default)
def _addmm(ctx, bias, x, w, beta=1, alpha=1):
    if beta != 1 or alpha != 1:
        raise UnsupportedError("addmm with beta or alpha other than 1")
    x = ctx.tensor(x)
    bias = ctx.tensor(bias)
    shape = out_shape(ctx.node)
    if isinstance(w, Transposed) and bias.shape == (shape[1],):
        return ctx.e.linear(x, w.source, bias, shape)
    product = _mm(ctx, x, w)
    return ctx.e.binary("add", product, bias, shape)


@maps(aten.mm.default)
def _mm(ctx, a, b):
    a = ctx.tensor(a)
    shape = out_shape(ctx.node)
    if isinstance(b, Transposed):
        return ctx.e.linear(a, b.source, None, shape)
    return ctx.e.matmul("matmul", a, ctx.tensor(b), False, shape)


@maps(aten.bmm.default)
def _bmm(ctx, a, b):
    return ctx.e.matmul("batch_matmul", ctx.tensor(a), ctx.tensor(b), False, out_shape(ctx.node))


@maps(aten.convolution.default)
def _convolution(ctx, x, w, bias, stride, padding, dilation, transposed, output_padding, groups):
    x, w = ctx.tensor(x), ctx.tensor(w)
    if transposed:
        raise UnsupportedError("transposed convolution has no mp counterpart")
    if x.rank != 4:
        raise UnsupportedError(f"only 2-d convolutions map to mp.conv2d (input rank {x.rank})")
    operands = [x, w] + ([ctx.tensor(bias)] if bias is not None else [])
    attrs = []
    if list(stride) != [1, 1]:
        attrs.append(f"strides = {i64_array(stride)}")
    if list(padding) != [0, 0]:
        attrs.append(f"padding = {i64_array(padding)}")
    if list(dilation) != [1, 1]:
        attrs.append(f"dilation = {i64_array(dilation)}")
    if groups != 1:
        attrs.append(f"groups = {int(groups)} : i64")
    shape = out_shape(ctx.node)
    names = ", ".join(o.name for o in operands)
    types = ", ".join(o.type for o in operands)
    attr_text = " {" + ", ".join(attrs) + "}" if attrs else ""
    return ctx.e.emit(shape, x.dtype, f"mp.conv2d {names} acc(f32){attr_text} : ({types}) -> "
                                      f"{tensor_type(shape, x.dtype)}")


@maps(aten._softmax.default)
def _softmax(ctx, x, dim, half_to_float):
    x = ctx.tensor(x)
    return ctx.e.unary("softmax", x, f" dim {dim % x.rank}")


@maps(aten._log_softmax.default)
def _log_softmax(ctx, x, dim, half_to_float):
    x = ctx.tensor(x)
    return ctx.e.unary("log_softmax", x, f" dim {dim % x.rank}")


@maps(aten.native_layer_norm.default)
def _layer_norm(ctx, x, normalized_shape, weight, bias, eps):
    x = ctx.tensor(x)
    axis = x.rank - len(normalized_shape)
    operands = [x]
    text = f"mp.layer_norm {x.name}"
    if weight is not None:
        weight = ctx.tensor(weight)
        operands.append(weight)
        text += f" weight {weight.name}"
    if bias is not None:
        bias = ctx.tensor(bias)
        operands.append(bias)
        text += f" bias {bias.name}"
    types = ", ".join(o.type for o in operands)
    y = ctx.e.emit(x.shape, x.dtype, f"{text} axis {axis} eps {f64(eps)} : ({types}) -> {x.type}")
    # mean and rstd (results 1 and 2) are only used by a backward.
    return (y, None, None)


@maps(aten.mean.dim)
def _mean(ctx, x, dims, keepdim=False, dtype=None):
    return ctx.e.reduce("reduce_mean", ctx.tensor(x), dims, keepdim)


@maps(aten.sum.dim_IntList)
def _sum(ctx, x, dims, keepdim=False, dtype=None):
    return ctx.e.reduce("reduce_sum", ctx.tensor(x), dims, keepdim)


@maps(aten.mean.default)
def _mean_all(ctx, x, dtype=None):
    x = ctx.tensor(x)
    return ctx.e.reduce("reduce_mean", x, range(x.rank), False)


@maps(aten.sum.default)
def _sum_all(ctx, x, dtype=None):
    x = ctx.tensor(x)
    return ctx.e.reduce("reduce_sum", x, range(x.rank), False)


@maps(aten.view.default, aten._reshape_alias.default, aten._unsafe_view.default,
      aten.reshape.default, aten.unsqueeze.default, aten.squeeze.dim, aten.squeeze.default,
      aten.flatten.using_ints)
def _reshape(ctx, x, *shape_args):
    return ctx.e.reshape(ctx.tensor(x), out_shape(ctx.node))


@maps(aten.permute.default)
def _permute(ctx, x, dims):
    x = ctx.tensor(x)
    return ctx.e.transpose(x, [d % x.rank for d in dims])


@maps(aten.transpose.int)
def _transpose(ctx, x, a, b):
    x = ctx.tensor(x)
    perm = list(range(x.rank))
    perm[a % x.rank], perm[b % x.rank] = perm[b % x.rank], perm[a % x.rank]
    return ctx.e.transpose(x, perm)


@maps(aten.expand.default)
def _expand(ctx, x, size, implicit=False):
    x = ctx.tensor(x)
    shape = out_shape(ctx.node)
    if len(shape) > x.rank:
        x = ctx.e.reshape(x, (1,) * (len(shape) - x.rank) + x.shape)
    return ctx.e.broadcast(x, shape)


@maps(aten.cat.default)
def _cat(ctx, tensors, dim=0):
    tensors = [ctx.tensor(t) for t in tensors]
    shape = out_shape(ctx.node)
    names = ", ".join(t.name for t in tensors)
    types = ", ".join(t.type for t in tensors)
    return ctx.e.emit(shape, tensors[0].dtype,
                      f"mp.concat {names} dim {dim % len(shape)} : {types}")


def _slice_along(ctx, x, dim, start, end, step):
    dim %= x.rank
    size = x.shape[dim]
    start, end, step = slice(start, end, step).indices(size)
    offsets = [0] * x.rank
    sizes = list(x.shape)
    strides = [1] * x.rank
    offsets[dim] = start
    sizes[dim] = len(range(start, end, step))
    strides[dim] = step
    if sizes == list(x.shape):
        return x
    return ctx.e.slice(x, offsets, sizes, strides)


@maps(aten.slice.Tensor)
def _slice(ctx, x, dim=0, start=None, end=None, step=1):
    return _slice_along(ctx, ctx.tensor(x), dim, start, end, step)


@maps(aten.select.int)
def _select(ctx, x, dim, index):
    x = ctx.tensor(x)
    dim %= x.rank
    index %= x.shape[dim]
    part = _slice_along(ctx, x, dim, index, index + 1, 1)
    return ctx.e.reshape(part, out_shape(ctx.node))


@maps(aten.split.Tensor)
def _split(ctx, x, split_size, dim=0):
    x = ctx.tensor(x)
    dim %= x.rank
    return tuple(_slice_along(ctx, x, dim, start, min(start + split_size, x.shape[dim]), 1)
                 for start in range(0, x.shape[dim], split_size))


@maps(aten.embedding.default)
def _embedding(ctx, weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    weight, indices = ctx.tensor(weight), ctx.tensor(indices)
    if scale_grad_by_freq or sparse:
        raise UnsupportedError("embedding with scale_grad_by_freq or sparse")
    shape = out_shape(ctx.node)
    return ctx.e.emit(shape, weight.dtype,
                      f"mp.embedding {weight.name}[{indices.name}] : {weight.type}, {indices.type}")


@maps(aten.clone.default, aten.alias.default, aten.lift_fresh_copy.default)
def _identity(ctx, x, *args, **kwargs):
    return ctx.tensor(x)


@maps(aten._to_copy.default)
def _to_copy(ctx, x, dtype=None, **kwargs):
    x = ctx.tensor(x)
    return ctx.e.cast(x, out_dtype(ctx.node))


@maps(aten.pow.Tensor_Scalar)
def _pow(ctx, x, exponent):
    x = ctx.tensor(x)
    # PyTorch computes these exponents as x·x, sqrt(x) and 1/x.
    if exponent == 2:
        return ctx.e.binary("mul", x, x, x.shape)
    if exponent == 0.5:
        return ctx.e.unary("sqrt", x)
    if exponent == 1:
        return x
    return ctx.e.binary("pow", x, ctx.e.scalar(exponent, x.dtype), x.shape)


@maps(aten.mse_loss.default)
def _mse_loss(ctx, x, target, reduction=1):
    x, target = ctx.tensor(x), ctx.tensor(target)
    if reduction != 1:  # torch's Reduction::Mean
        raise UnsupportedError("mse_loss supports reduction='mean' only")
    return ctx.e.emit((), x.dtype, f"mp.mse {x.name}, {target.name} : {x.type}")


# --- pooling, activations, selection (docs/PyTorch.md) -----------------------

def _pool_attrs(kernel, stride, padding, dilation=None, ceil_mode=False):
    kernel = list(kernel) * (2 // len(kernel))
    stride = (list(stride) * (2 // len(stride))) if stride else kernel
    padding = list(padding) * (2 // len(padding))
    text = f" kernel {i64_list(kernel)}"
    if stride != kernel:
        text += f" stride {i64_list(stride)}"
    if padding != [0, 0]:
        text += f" padding {i64_list(padding)}"
    if dilation is not None:
        dilation = list(dilation) * (2 // len(dilation))
        if dilation != [1, 1]:
            text += f" dilation {i64_list(dilation)}"
    if ceil_mode:
        text += " ceil_mode"
    return text


@maps(aten.max_pool2d_with_indices.default)
def _max_pool2d(ctx, x, kernel, stride=(), padding=(0,), dilation=(1,), ceil_mode=False):
    x = ctx.tensor(x)
    shape = result_shape(ctx.node, 0)
    y = ctx.e.emit(shape, x.dtype,
                   f"mp.max_pool2d {x.name}{_pool_attrs(kernel, stride, padding, dilation, ceil_mode)}"
                   f" : {x.type}")
    # The indices (result 1) only feed PyTorch's own backward.
    return (y, None)


@maps(aten.avg_pool2d.default)
def _avg_pool2d(ctx, x, kernel, stride=(), padding=(0,), ceil_mode=False,
                count_include_pad=True, divisor_override=None):
    x = ctx.tensor(x)
    text = f"mp.avg_pool2d {x.name}{_pool_attrs(kernel, stride, padding, None, ceil_mode)}"
    text += f" count_include_pad {'true' if count_include_pad else 'false'}"
    if divisor_override is not None:
        text += f" divisor {int(divisor_override)}"
    return ctx.e.emit(out_shape(ctx.node), x.dtype, f"{text} : {x.type}")


@maps(aten._adaptive_avg_pool2d.default)
def _adaptive_avg_pool2d(ctx, x, output_size):
    x = ctx.tensor(x)
    return ctx.e.emit(out_shape(ctx.node), x.dtype,
                      f"mp.adaptive_avg_pool2d {x.name} output_size {i64_list(output_size)}"
                      f" : {x.type}")


def _clamp_text(low, high):
    text = ""
    if low is not None:
        text += f" min {f64(low)}"
    if high is not None:
        text += f" max {f64(high)}"
    return text


@maps(aten.hardtanh.default, aten.hardtanh_.default)
def _hardtanh(ctx, x, low=-1.0, high=1.0):
    return ctx.e.unary("clamp", ctx.tensor(x), _clamp_text(low, high) + " hardtanh")


@maps(aten.clamp.default, aten.clamp_.default)
def _clamp(ctx, x, low=None, high=None):
    return ctx.e.unary("clamp", ctx.tensor(x), _clamp_text(low, high))


for _name in ("silu", "hardswish", "hardsigmoid", "erf", "abs"):
    _overloads = [getattr(aten, _name).default]
    if hasattr(aten, _name + "_"):
        _overloads.append(getattr(aten, _name + "_").default)
    maps(*_overloads)(_unary(_name))


@maps(aten.leaky_relu.default, aten.leaky_relu_.default)
def _leaky_relu(ctx, x, negative_slope=0.01):
    return ctx.e.unary("leaky_relu", ctx.tensor(x), f" negative_slope {f64(negative_slope)}")


@maps(aten.detach.default)
def _detach(ctx, x):
    x = ctx.tensor(x)
    if x.dtype not in FLOAT_DTYPES:
        return x
    return ctx.e.unary("stop_gradient", x)


def _compare(predicate):
    def mapping(ctx, a, b):
        if not isinstance(a, (Tensor, Transposed)):
            raise UnsupportedError("a comparison needs a tensor as its first operand")
        a = ctx.tensor(a)
        b = ctx.operand(b, a)
        shape = _broadcast_shape(a, b)
        return ctx.e.emit(shape, "i1", f"mp.compare {predicate}, {a.name}, {b.name} : "
                                        f"{a.type}, {b.type}")
    return mapping


for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    maps(getattr(aten, _name).Tensor, getattr(aten, _name).Scalar)(_compare(_name))


@maps(aten.where.self)
def _where(ctx, condition, a, b):
    condition = ctx.tensor(condition)
    if isinstance(a, (Tensor, Transposed)):
        a = ctx.tensor(a)
        b = ctx.operand(b, a)
    else:
        b = ctx.tensor(b)
        a = ctx.operand(a, b)
    shape = tuple(np.broadcast_shapes(condition.shape, a.shape, b.shape))
    return ctx.e.emit(shape, a.dtype, f"mp.select {condition.name}, {a.name}, {b.name} : "
                                      f"{condition.type}, {a.type}, {b.type}")


@maps(aten.masked_fill.Scalar, aten.masked_fill_.Scalar)
def _masked_fill(ctx, x, mask, value):
    x, mask = ctx.tensor(x), ctx.tensor(mask)
    fill = ctx.e.scalar(value, x.dtype)
    shape = tuple(np.broadcast_shapes(mask.shape, x.shape))
    return ctx.e.emit(shape, x.dtype, f"mp.select {mask.name}, {fill.name}, {x.name} : "
                                      f"{mask.type}, {fill.type}, {x.type}")


@maps(aten.empty_like.default)
def _empty_like(ctx, x, **kwargs):
    return Empty(out_shape(ctx.node), out_dtype(ctx.node), like=x)


@maps(aten.empty.memory_format)
def _empty(ctx, size, **kwargs):
    return Empty(out_shape(ctx.node), out_dtype(ctx.node))


@maps(aten.bernoulli_.float)
def _bernoulli(ctx, empty, p=0.5, generator=None):
    if not isinstance(empty, Empty):
        raise UnsupportedError("bernoulli_ of a tensor that is not a fresh empty tensor")
    if generator is not None:
        raise UnsupportedError("bernoulli_ with an explicit generator")
    return Bernoulli(empty, p)


@maps(aten.native_batch_norm.default)
def _batch_norm(ctx, x, weight, bias, running_mean, running_var, training, momentum, eps):
    x = ctx.tensor(x)
    if running_mean is None or running_var is None:
        raise UnsupportedError("batch norm without running statistics "
                               "(track_running_stats=False) is not supported")
    rm, rv = ctx.tensor(running_mean), ctx.tensor(running_var)
    # The count operand only matters with cumulative_average (momentum=None,
    # not supported): the op's new count is unused, PyTorch's own add_ on
    # num_batches_tracked is imported as it is.
    count = ctx.importer.buffer(ctx.node.args[3], "num_batches_tracked")
    operands = f"mp.batch_norm {x.name}"
    if weight is not None:
        operands += f" weight {ctx.tensor(weight).name}"
    if bias is not None:
        operands += f" bias {ctx.tensor(bias).name}"
    mode = "training" if training else "eval"
    text = (f"{operands} stats({rm.name}, {rv.name}, {count.name}) {mode} eps {f64(eps)}"
            f" momentum {f64(momentum)}")
    types = [x.type] + ([ctx.tensor(weight).type] if weight is not None else []) + \
        ([ctx.tensor(bias).type] if bias is not None else []) + [rm.type, rv.type, count.type]
    y, new_mean, new_var, _ = ctx.e.emit_many(
        [(x.shape, x.dtype), (rm.shape, rm.dtype), (rv.shape, rv.dtype), ((), count.dtype)],
        f"{text} : ({', '.join(types)}) -> ({x.type}, {rm.type}, {rv.type}, {count.type})")
    if training:
        ctx.importer.write(ctx.node.args[3], new_mean)
        ctx.importer.write(ctx.node.args[4], new_var)
    return (y, None, None)


@maps(aten.nll_loss_forward.default)
def _nll_loss(ctx, x, target, weight, reduction, ignore_index):
    x, target = ctx.tensor(x), ctx.tensor(target)
    if weight is not None:
        raise UnsupportedError("nll_loss with class weights")
    mode = {0: "none", 1: "mean", 2: "sum"}[reduction]
    shape = result_shape(ctx.node, 0)
    text = f"mp.nll_loss {x.name}, {target.name}"
    if mode != "mean":
        text += f" reduction {mode}"
    if ignore_index != -100:
        text += f" {{ignore_index = {int(ignore_index)} : i64}}"
    loss = ctx.e.emit(shape, x.dtype, f"{text} : {x.type}, {target.type} -> "
                                      f"{tensor_type(shape, x.dtype)}")
    # The total weight (result 1) only feeds PyTorch's own backward.
    return (loss, None)
