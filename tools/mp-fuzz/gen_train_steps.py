#!/usr/bin/python3
"""Generates random but valid mp train steps (docs/TrainStep.md) from a seed.

The structure-aware counterpart of the libFuzzer `passes` target
(docs/Reliability.md, "Generated train steps"): where libFuzzer mutates text
and few mutants still verify, every module this generator writes parses and
verifies, so the passes and pipelines run on deep, varied train steps.

From a seed, deterministically: a stem (float features of rank 2 or 3, token
ids through an embedding, or an NCHW image through conv2d), a random number
of layers drawn from the mp ops (linear and matmul with and without bias and
transpose flags, batch_matmul attention, elementwise binary ops with
broadcasting, unary ops, gelu, softmax/log_softmax, layer_norm/rms_norm with
and without weights, reductions, reshape/transpose/broadcast/concat/slice,
residual adds), parameters and inputs mostly f32 and sometimes f16/bf16 (with
explicit mp.cast where types meet), a loss (cross_entropy or mse), mp.grad
with respect to a random subset of the parameters, one optimizer op per
differentiated parameter (sgd with or without momentum, adam, adamw) with its
state arguments and step counter, `mp.updates` results, and sometimes
`mp.precision` pins, helper functions called on data, shuffled argument and
result order, and a caller of the train step (which the signature-changing
passes must reject with an error).

Only the standard library is used. Usage:

  gen_train_steps.py SEED [-o FILE] [--no-caller] [--meta]

`--meta` prints a JSON line of facts about the module to stderr (used by
fuzz_train_steps.py): whether it has a caller, whether any value is not f32
(`low_precision`), the number of classes/vocabulary (for mp-run's
--num-classes), and so on.
"""

import argparse
import json
import random
import sys

FLOAT_TYPES = ("f32", "f16", "bf16")


def tensor_type(shape, dtype):
    """The MLIR type of a ranked tensor."""
    if not shape:
        return "tensor<%s>" % dtype
    return "tensor<%sx%s>" % ("x".join(str(d) for d in shape), dtype)


def fmt_f64(value):
    """An f64 attribute value."""
    return "%.6e : f64" % value


class Value:
    """An SSA value of the function being generated."""

    def __init__(self, name, shape, dtype):
        self.name = name
        self.shape = tuple(shape)
        self.dtype = dtype

    @property
    def type(self):
        return tensor_type(self.shape, self.dtype)

    @property
    def rank(self):
        return len(self.shape)


class Param:
    """A trainable parameter argument."""

    def __init__(self, value, role):
        self.value = value
        self.role = role


class Generator:
    """Writes one train step module; `generate()` returns its text."""

    def __init__(self, seed, allow_caller=True):
        self.seed = seed
        self.rng = random.Random(seed)
        self.allow_caller = allow_caller
        self.lines = []
        self.counter = 0
        self.params = []  # list of Param
        self.data = []  # list of Value (batch data arguments)
        self.helpers = []  # text of helper functions
        self.meta = {"seed": seed, "caller": False, "low_precision": False,
                     "num_classes": None, "ops": []}
        self.pool = []  # earlier activations, for residuals
        self.low_precision_prob = self.rng.choice([0.0, 0.0, 0.15, 0.4])
        self.pin_prob = self.rng.choice([0.0, 0.0, 0.1])

    # -- helpers ----------------------------------------------------------

    def fresh(self, prefix="v"):
        self.counter += 1
        return "%%%s%d" % (prefix, self.counter)

    def dim(self, small=False):
        return self.rng.choice((1, 2, 3, 4) if small else (2, 3, 4, 5, 6, 8, 16))

    def pick_dtype(self):
        if self.rng.random() < self.low_precision_prob:
            self.meta["low_precision"] = True
            return self.rng.choice(("f16", "bf16"))
        return "f32"

    def attrs(self, extra=None):
        """An attribute dictionary, sometimes with an mp.precision pin."""
        items = list(extra or [])
        if self.rng.random() < self.pin_prob:
            items.append('mp.precision = "%s"' % self.rng.choice(FLOAT_TYPES))
        elif self.rng.random() < self.pin_prob / 2:
            items.append("mp.autocast = false")
        return (" {%s}" % ", ".join(items)) if items else ""

    def emit(self, text):
        self.lines.append("  " + text)

    def op(self, shape, dtype, text, prefix="v"):
        """Emits `%new = text` and returns the new value."""
        value = Value(self.fresh(prefix), shape, dtype)
        self.emit("%s = %s" % (value.name, text))
        return value

    def new_param(self, shape, dtype=None, role="weight"):
        dtype = dtype or self.pick_dtype()
        value = Value("%%p%d" % len(self.params), shape, dtype)
        self.params.append(Param(value, role))
        return value

    def new_data(self, shape, dtype):
        value = Value("%%d%d" % len(self.data), shape, dtype)
        self.data.append(value)
        return value

    def cast(self, value, dtype, saturate=False):
        if value.dtype == dtype:
            return value
        return self.op(value.shape, dtype, "mp.cast %s%s : %s to %s" % (
            value.name, " saturate" if saturate else "", value.type,
            tensor_type(value.shape, dtype)))

    def const_scalar(self, dtype, number):
        return self.op((), dtype, "arith.constant dense<%s> : %s" % (
            repr(float(number)), tensor_type((), dtype)), prefix="c")

    def positive(self, value):
        """A strictly positive, bounded function of `value` (sigmoid + 0.5),
        so that log/sqrt/div/pow stay finite in the numerics runs."""
        s = self.op(value.shape, value.dtype, "mp.sigmoid %s : %s" % (
            value.name, value.type))
        half = self.const_scalar(value.dtype, 0.5)
        return self.op(value.shape, value.dtype, "mp.add %s, %s : %s, %s" % (
            s.name, half.name, s.type, half.type))

    # -- layers -----------------------------------------------------------

    def linear(self, h, out_features=None, bias=None):
        out_features = out_features or self.dim()
        weight = self.new_param((out_features, h.shape[-1]))
        use_bias = self.rng.random() < 0.6 if bias is None else bias
        mode = self.rng.random()
        if mode < 0.15 and weight.dtype == "f32":
            # Autocast written by hand: both operands cast to f16/bf16.
            out_dtype = self.rng.choice(("f16", "bf16"))
            x = self.cast(h, out_dtype)
            w = self.cast(weight, out_dtype)
            self.meta["ops"].append("cast_by_hand")
            self.meta["low_precision"] = True
        elif mode < 0.17 and weight.dtype == "f32":
            # FP8 written by hand: saturating casts, an f32 result.
            out_dtype = "f32"
            x = self.cast(h, "f8E4M3FN", saturate=True)
            w = self.cast(weight, self.rng.choice(("f8E4M3FN", "f8E5M2")), saturate=True)
            self.meta["ops"].append("fp8_by_hand")
            self.meta["low_precision"] = True
        else:
            out_dtype = weight.dtype
            x = self.cast(h, weight.dtype)
            w = weight
        acc = "f16" if x.dtype == "f16" and self.rng.random() < 0.2 else "f32"
        operands = [x, w]
        if use_bias:
            b = self.new_param((out_features,), weight.dtype, "bias")
            operands.append(self.cast(b, out_dtype))
        shape = h.shape[:-1] + (out_features,)
        self.meta["ops"].append("linear")
        return self.op(shape, out_dtype, "mp.linear %s acc(%s)%s : (%s) -> %s" % (
            ", ".join(v.name for v in operands), acc, self.attrs(),
            ", ".join(v.type for v in operands), tensor_type(shape, out_dtype)))

    def matmul(self, h):
        """h [M, K] times a weight, with random transpose flags."""
        m, k = h.shape
        n = self.dim()
        transpose_rhs = self.rng.random() < 0.5
        weight = self.new_param((n, k) if transpose_rhs else (k, n))
        x = self.cast(h, weight.dtype)
        transpose_lhs = self.rng.random() < 0.3
        if transpose_lhs:
            x = self.op((k, m), x.dtype, "mp.transpose %s perm [1, 0] : %s" % (
                x.name, x.type))
        flags = ""
        if transpose_lhs:
            flags += " transpose_lhs"
        if transpose_rhs:
            flags += " transpose_rhs"
        out_dtype = self.rng.choice([weight.dtype, "f32"])
        compute = ""
        if weight.dtype == "f32" and self.rng.random() < 0.15:
            compute = " compute tf32"
        self.meta["ops"].append("matmul")
        y = self.op((m, n), out_dtype, "mp.matmul %s, %s%s acc(f32)%s%s : %s, %s -> %s" % (
            x.name, weight.name, flags, compute, self.attrs(), x.type,
            weight.type, tensor_type((m, n), out_dtype)))
        if self.rng.random() < 0.5:
            bias = self.new_param((n,), out_dtype, "bias")
            y = self.op(y.shape, y.dtype, "mp.add %s, %s : %s, %s" % (
                y.name, bias.name, y.type, bias.type))
        return y

    def attention(self, h):
        """Self-attention on h [B, T, D] with batch_matmul."""
        b, t, d = h.shape
        q = self.linear(h, d)
        k = self.linear(h, d)
        k = self.cast(k, q.dtype)
        scores = self.op((b, t, t), "f32",
                         "mp.batch_matmul %s, %s transpose_rhs acc(f32)%s : %s, %s -> %s" % (
                             q.name, k.name, self.attrs(), q.type, k.type,
                             tensor_type((b, t, t), "f32")))
        scale = self.const_scalar("f32", 0.5)
        scores = self.op(scores.shape, "f32", "mp.mul %s, %s : %s, %s" % (
            scores.name, scale.name, scores.type, scale.type))
        probs = self.op(scores.shape, "f32", "mp.softmax %s dim 2%s : %s" % (
            scores.name, self.attrs(), scores.type))
        v = self.cast(h, "f32")
        if self.rng.random() < 0.5:
            # probs^T-free variant: transpose v twice through transpose_lhs.
            vt = self.op((b, d, t), "f32", "mp.transpose %s perm [0, 2, 1] : %s" % (
                v.name, v.type))
            ctx = self.op((b, t, d), "f32",
                          "mp.batch_matmul %s, %s transpose_rhs acc(f32) : %s, %s -> %s" % (
                              probs.name, vt.name, probs.type, vt.type,
                              tensor_type((b, t, d), "f32")))
        else:
            ctx = self.op((b, t, d), "f32",
                          "mp.batch_matmul %s, %s acc(f32) : %s, %s -> %s" % (
                              probs.name, v.name, probs.type, v.type,
                              tensor_type((b, t, d), "f32")))
        self.meta["ops"].append("batch_matmul")
        return self.residual(h, ctx)

    def residual(self, h, y):
        """h + y when shapes agree (casting y), else y."""
        if y.shape != h.shape:
            return y
        y = self.cast(y, h.dtype)
        self.meta["ops"].append("residual")
        return self.op(h.shape, h.dtype, "mp.add %s, %s : %s, %s" % (
            h.name, y.name, h.type, y.type))

    def binary(self, h):
        opname = self.rng.choice(["add", "sub", "mul", "maximum", "minimum",
                                  "div", "pow"])
        choice = self.rng.random()
        if choice < 0.05:
            # A 0-d parameter (a learned scale).
            other = self.new_param((), h.dtype, "scalar")
        elif choice < 0.35:
            # A broadcast parameter of the trailing dimension(s).
            ndims = self.rng.randint(1, h.rank)
            shape = h.shape[h.rank - ndims:]
            if self.rng.random() < 0.3:
                shape = (1,) + shape[1:] if len(shape) > 1 else shape
            other = self.new_param(shape, h.dtype, "bias")
        elif choice < 0.6:
            other = self.const_scalar(h.dtype, self.rng.choice([0.5, 2.0, 1.5]))
        elif choice < 0.8 and self.pool:
            candidates = [v for v in self.pool if v.shape == h.shape]
            other = self.cast(self.rng.choice(candidates), h.dtype) if candidates else h
        else:
            # keepdims reduction broadcast back.
            dim = self.rng.randrange(1, h.rank) if h.rank > 1 else 0
            red = self.rng.choice(["reduce_sum", "reduce_mean", "reduce_max"])
            shape = tuple(1 if i == dim else s for i, s in enumerate(h.shape))
            other = self.op(shape, h.dtype, "mp.%s %s dims [%d] keepdims%s : %s" % (
                red, h.name, dim, self.attrs(), h.type))
            self.meta["ops"].append(red)
        lhs, rhs = h, other
        if opname in ("div", "pow"):
            rhs = self.positive(rhs) if opname == "div" else rhs
            if opname == "pow":
                lhs = self.positive(lhs)
                rhs = self.const_scalar(h.dtype, self.rng.choice([2.0, 0.5]))
        elif self.rng.random() < 0.3 and rhs.rank <= lhs.rank:
            lhs, rhs = rhs, lhs
        shape = broadcast_shape(lhs.shape, rhs.shape)
        self.meta["ops"].append(opname)
        return self.op(shape, h.dtype, "mp.%s %s, %s%s : %s, %s" % (
            opname, lhs.name, rhs.name, self.attrs(), lhs.type, rhs.type))

    def unary(self, h):
        opname = self.rng.choice(["relu", "tanh", "sigmoid", "neg", "gelu",
                                  "exp", "log", "sqrt", "rsqrt"])
        x = h
        if opname == "exp":
            x = self.op(h.shape, h.dtype, "mp.tanh %s : %s" % (h.name, h.type))
        elif opname in ("log", "sqrt", "rsqrt"):
            x = self.positive(h)
        self.meta["ops"].append(opname)
        if opname == "gelu":
            approx = self.rng.choice(["", " approximate tanh", " approximate none"])
            return self.op(h.shape, h.dtype, "mp.gelu %s%s%s : %s" % (
                x.name, approx, self.attrs(), x.type))
        return self.op(h.shape, h.dtype, "mp.%s %s%s : %s" % (
            opname, x.name, self.attrs(), x.type))

    def softmax(self, h):
        opname = self.rng.choice(["softmax", "log_softmax"])
        dim = self.rng.randrange(h.rank)
        self.meta["ops"].append(opname)
        return self.op(h.shape, h.dtype, "mp.%s %s dim %d%s : %s" % (
            opname, h.name, dim, self.attrs(), h.type))

    def norm(self, h):
        opname = self.rng.choice(["layer_norm", "rms_norm"])
        axis = self.rng.randrange(1, h.rank) if h.rank > 1 else 0
        if self.rng.random() < 0.2:
            axis = 0
        norm_shape = h.shape[axis:]
        operands = [h]
        text = "mp.%s %s" % (opname, h.name)
        if self.rng.random() < 0.7:
            weight = self.new_param(norm_shape, h.dtype, "norm")
            operands.append(weight)
            text += " weight %s" % weight.name
            if opname == "layer_norm" and self.rng.random() < 0.7:
                bias = self.new_param(norm_shape, h.dtype, "norm")
                operands.append(bias)
                text += " bias %s" % bias.name
        eps = self.rng.choice(["1.0e-05", "1.0e-06", "9.999999e-06"])
        self.meta["ops"].append(opname)
        return self.op(h.shape, h.dtype, "%s axis %d eps %s%s : (%s) -> %s" % (
            text, axis, eps, self.attrs(), ", ".join(v.type for v in operands),
            h.type))

    def reshape(self, h):
        """Rank 3 -> 2 (merge the trailing dims) or rank 2 -> 3 (split)."""
        if h.rank == 3:
            shape = (h.shape[0], h.shape[1] * h.shape[2])
        else:
            d = h.shape[1]
            factors = [f for f in range(2, d) if d % f == 0]
            if not factors:
                return h
            f = self.rng.choice(factors)
            shape = (h.shape[0], f, d // f)
        self.meta["ops"].append("reshape")
        return self.op(shape, h.dtype, "mp.reshape %s : %s to %s" % (
            h.name, h.type, tensor_type(shape, h.dtype)))

    def transpose(self, h):
        """Swap the two trailing dims of a rank-3 value; for rank 2, a
        transpose there and back around a unary op."""
        if h.rank == 3:
            shape = (h.shape[0], h.shape[2], h.shape[1])
            self.meta["ops"].append("transpose")
            return self.op(shape, h.dtype, "mp.transpose %s perm [0, 2, 1] : %s" % (
                h.name, h.type))
        t = self.op(h.shape[::-1], h.dtype, "mp.transpose %s perm [1, 0] : %s" % (
            h.name, h.type))
        t = self.op(t.shape, t.dtype, "mp.relu %s : %s" % (t.name, t.type))
        self.meta["ops"].append("transpose")
        return self.op(h.shape, h.dtype, "mp.transpose %s perm [1, 0] : %s" % (
            t.name, t.type))

    def broadcast(self, h):
        shape = h.shape[1:]
        p = self.new_param(shape, h.dtype, "bias")
        b = self.op(h.shape, h.dtype, "mp.broadcast %s : %s to %s" % (
            p.name, p.type, h.type))
        self.meta["ops"].append("broadcast")
        return self.op(h.shape, h.dtype, "mp.mul %s, %s : %s, %s" % (
            h.name, b.name, h.type, b.type))

    def concat(self, h):
        dim = self.rng.randrange(1, h.rank)
        other = self.unary(h)
        inputs = [h, other]
        if self.rng.random() < 0.3:
            inputs.append(h)
        self.rng.shuffle(inputs)
        shape = list(h.shape)
        shape[dim] = sum(v.shape[dim] for v in inputs)
        self.meta["ops"].append("concat")
        return self.op(tuple(shape), h.dtype, "mp.concat %s dim %d%s : %s" % (
            ", ".join(v.name for v in inputs), dim, self.attrs(),
            ", ".join(v.type for v in inputs)))

    def slice(self, h):
        dim = h.rank - 1
        size = h.shape[dim]
        if size < 2:
            return h
        stride = self.rng.choice([1, 1, 2])
        count = self.rng.randint(1, (size - 1) // stride + 1)
        offset = self.rng.randint(0, size - 1 - (count - 1) * stride)
        offsets = [0] * h.rank
        sizes = list(h.shape)
        strides = [1] * h.rank
        offsets[dim], sizes[dim], strides[dim] = offset, count, stride
        self.meta["ops"].append("slice")
        return self.op(tuple(sizes), h.dtype,
                       "mp.slice %s offsets [%s] sizes [%s] strides [%s] : %s" % (
                           h.name, ", ".join(map(str, offsets)),
                           ", ".join(map(str, sizes)),
                           ", ".join(map(str, strides)), h.type))

    def reduce_rank(self, h):
        """Rank 3 -> rank 2 by a reduction over dim 1."""
        red = self.rng.choice(["reduce_sum", "reduce_mean", "reduce_max"])
        shape = (h.shape[0], h.shape[2])
        self.meta["ops"].append(red)
        return self.op(shape, h.dtype, "mp.%s %s dims [1]%s : %s" % (
            red, h.name, self.attrs(), h.type))

    def helper_call(self, x):
        """A private helper function applied to data (not differentiated
        through: it does not depend on a parameter)."""
        name = "helper%d" % len(self.helpers)
        body = self.rng.choice(["mp.tanh", "mp.relu", "mp.neg"])
        self.helpers.append(
            "func.func private @%s(%%a: %s) -> %s {\n"
            "  %%r = %s %%a : %s\n"
            "  return %%r : %s\n"
            "}\n" % (name, x.type, x.type, body, x.type, x.type))
        self.meta["ops"].append("call")
        return self.op(x.shape, x.dtype, "func.call @%s(%s) : (%s) -> %s" % (
            name, x.name, x.type, x.type))

    # -- the step ---------------------------------------------------------

    def stem(self):
        """The first activation: [B, D] or [B, T, D]."""
        rng = self.rng
        batch = rng.choice((1, 2, 3, 4, 8))
        kind = rng.choices(["features", "tokens", "image"], [6, 2, 1])[0]
        if kind == "tokens":
            vocab = rng.choice((5, 8, 16))
            seq = rng.choice((2, 3, 4))
            width = self.dim()
            self.meta["vocab"] = vocab
            ids = self.new_data((batch, seq), rng.choice(["i64", "i64", "i32"]))
            table = self.new_param((vocab, width), role="embedding")
            self.meta["table"] = table
            self.meta["ops"].append("embedding")
            h = self.op((batch, seq, width), table.dtype,
                        "mp.embedding %s[%s] : %s, %s" % (
                            table.name, ids.name, table.type, ids.type))
            if rng.random() < 0.4:
                h = self.reduce_rank(h)
            return h
        if kind == "image":
            channels = rng.choice((1, 2, 3))
            size = rng.choice((4, 5, 6))
            x = self.new_data((batch, channels, size, size), self.pick_dtype())
            filters = rng.choice((2, 4))
            groups = rng.choice([g for g in (1, 2) if channels % g == 0 and filters % g == 0])
            kernel = rng.choice((1, 2, 3))
            stride = rng.choice((1, 2))
            padding = rng.choice((0, 1))
            out = (size + 2 * padding - (kernel - 1) - 1) // stride + 1
            filt = self.new_param((filters, channels // groups, kernel, kernel))
            x = self.cast(x, filt.dtype)
            operands = [x, filt]
            if rng.random() < 0.5:
                operands.append(self.new_param((filters,), filt.dtype, "bias"))
            attrs = ["strides = array<i64: %d, %d>" % (stride, stride),
                     "padding = array<i64: %d, %d>" % (padding, padding)]
            if groups != 1:
                attrs.append("groups = %d : i64" % groups)
            shape = (batch, filters, out, out)
            self.meta["ops"].append("conv2d")
            y = self.op(shape, filt.dtype, "mp.conv2d %s acc(f32) {%s} : (%s) -> %s" % (
                ", ".join(v.name for v in operands), ", ".join(attrs),
                ", ".join(v.type for v in operands), tensor_type(shape, filt.dtype)))
            y = self.op(shape, y.dtype, "mp.relu %s : %s" % (y.name, y.type))
            flat = (batch, filters * out * out)
            return self.op(flat, y.dtype, "mp.reshape %s : %s to %s" % (
                y.name, y.type, tensor_type(flat, y.dtype)))
        width = self.dim()
        shape = (batch, width) if rng.random() < 0.7 else (batch, rng.choice((2, 3, 4)), width)
        x = self.new_data(shape, self.pick_dtype())
        if rng.random() < 0.15:
            x = self.helper_call(x)
        return x

    def layer(self, h):
        rng = self.rng
        choices = ["linear", "binary", "unary", "softmax", "norm", "reshape",
                   "broadcast", "concat", "slice", "residual_mlp"]
        weights = [6, 4, 4, 1, 2, 1, 1, 1, 1, 2]
        if h.rank == 2:
            choices.append("matmul")
            weights.append(3)
        if h.rank == 3:
            choices += ["attention", "transpose", "reduce_rank"]
            weights += [4, 1, 1]
        else:
            choices.append("transpose")
            weights.append(1)
        kind = rng.choices(choices, weights)[0]
        if kind == "linear":
            return self.linear(h)
        if kind == "matmul":
            return self.matmul(h)
        if kind == "attention":
            return self.attention(h)
        if kind == "binary":
            return self.binary(h)
        if kind == "unary":
            return self.unary(h)
        if kind == "softmax":
            return self.softmax(h)
        if kind == "norm":
            return self.norm(h)
        if kind == "reshape":
            return self.reshape(h)
        if kind == "transpose":
            return self.transpose(h)
        if kind == "reduce_rank":
            return self.reduce_rank(h)
        if kind == "broadcast":
            return self.broadcast(h)
        if kind == "concat":
            return self.concat(h)
        if kind == "slice":
            return self.slice(h)
        # residual MLP block: h + linear(act(linear(h)))
        up = self.linear(h)
        act = self.unary(up) if rng.random() < 0.5 else self.op(
            up.shape, up.dtype, "mp.gelu %s approximate tanh : %s" % (up.name, up.type))
        down = self.linear(act, h.shape[-1])
        return self.residual(h, down)

    def loss(self, h):
        """The 0-d loss of h [B, ...]."""
        rng = self.rng
        if h.rank == 3:
            h = self.reduce_rank(h) if rng.random() < 0.5 else self.reshape(h)
        kind = rng.choice(["cross_entropy", "cross_entropy", "mse"])
        if rng.random() < 0.7:
            h = self.cast(h, "f32")
        if kind == "cross_entropy":
            classes = self.meta.get("vocab") or h.shape[1]
            table = self.meta.get("table")
            if table is not None and table.shape[1] == h.shape[1] and rng.random() < 0.4:
                # Tied weights: the embedding table is also the classifier.
                x = self.cast(h, table.dtype)
                self.meta["ops"].append("tied")
                h = self.op((h.shape[0], table.shape[0]), table.dtype,
                            "mp.linear %s, %s acc(f32) : (%s, %s) -> %s" % (
                                x.name, table.name, x.type, table.type,
                                tensor_type((h.shape[0], table.shape[0]), table.dtype)))
            elif rng.random() < 0.6 or h.shape[1] < 2:
                classes = rng.choice((2, 3, 4, 10)) if not self.meta.get("vocab") else classes
                h = self.linear(h, classes)
                if rng.random() < 0.7:
                    h = self.cast(h, "f32")
            classes = h.shape[1]
            labels = self.new_data((h.shape[0],), rng.choice(["i64", "i64", "i32"]))
            self.meta["num_classes"] = min(classes, self.meta.get("vocab") or classes)
            self.meta["ops"].append("cross_entropy")
            return self.op((), h.dtype, "mp.cross_entropy %s, %s%s : %s, %s" % (
                h.name, labels.name, self.attrs(), h.type, labels.type), prefix="loss")
        target = self.new_data(h.shape, h.dtype)
        self.meta["ops"].append("mse")
        return self.op((), h.dtype, "mp.mse %s, %s%s : %s" % (
            h.name, target.name, self.attrs(), h.type), prefix="loss")

    def generate(self):
        rng = self.rng
        h = self.stem()
        depth = rng.randint(1, 6)
        for _ in range(depth):
            self.pool.append(h)
            h = self.layer(h)
        if not self.params:
            h = self.linear(h)
        loss = self.loss(h)
        if self.meta.get("vocab") and self.meta["num_classes"] is None:
            self.meta["num_classes"] = self.meta["vocab"]
        if rng.random() < 0.1:
            # L2 regularisation in the loss: 0.01 * mean(w * w) of a weight.
            w = rng.choice(self.params).value
            sq = self.op(w.shape, w.dtype, "mp.mul %s, %s : %s, %s" % (
                w.name, w.name, w.type, w.type))
            reg = self.op((), w.dtype, "mp.reduce_mean %s dims [%s] : %s" % (
                sq.name, ", ".join(str(i) for i in range(w.rank)), sq.type))
            reg = self.cast(reg, loss.dtype)
            coef = self.const_scalar(loss.dtype, 0.01)
            reg = self.op((), loss.dtype, "mp.mul %s, %s : %s, %s" % (
                reg.name, coef.name, reg.type, coef.type))
            loss = self.op((), loss.dtype, "mp.add %s, %s : %s, %s" % (
                loss.name, reg.name, loss.type, reg.type), prefix="loss")
            self.meta["ops"].append("l2_in_loss")

        # Parameters never used by the forward pass get no gradient, except
        # sometimes one extra unused parameter (a zero gradient).
        if rng.random() < 0.1:
            self.new_param((self.dim(),), role="unused")
        grad_params = [p for p in self.params if rng.random() < 0.8]
        if not grad_params:
            grad_params = [rng.choice(self.params)]
        if rng.random() < 0.3:
            rng.shuffle(grad_params)
        wrt = list(grad_params)
        if rng.random() < 0.05:
            # The same value twice: the second gradient is unused.
            wrt.append(rng.choice(grad_params))
            self.meta["ops"].append("grad_duplicate")
        grads = [Value(self.fresh("g"), p.value.shape, p.value.dtype)
                 for p in wrt]
        self.emit("%s = mp.grad %s wrt %s : %s, %s" % (
            ", ".join(g.name for g in grads), loss.name,
            ", ".join(p.value.name for p in wrt), loss.type,
            ", ".join(p.value.type for p in wrt)))

        # Optimizer: one kind for the step, or a mix.
        kinds = ["sgd", "sgd_momentum", "adam", "adamw"]
        step_kind = rng.choice(kinds + ["mix"])
        state_args = []  # (Value, kind attr text)
        results = []  # (Value, index of the argument it updates)
        step_value = None
        step_dtype = rng.choice(["i64", "i64", "i32"])
        lr = rng.choice([1e-3, 1e-2, 0.05])
        clip = rng.random() < 0.15
        for p, g in zip(grad_params, grads):
            kind = rng.choice(kinds) if step_kind == "mix" else step_kind
            pv = p.value
            if clip:
                # Gradient clipping by value to [-1, 1].
                hi = self.const_scalar(g.dtype, 1.0)
                lo = self.const_scalar(g.dtype, -1.0)
                g = self.op(g.shape, g.dtype, "mp.minimum %s, %s : %s, %s" % (
                    g.name, hi.name, g.type, hi.type))
                g = self.op(g.shape, g.dtype, "mp.maximum %s, %s : %s, %s" % (
                    g.name, lo.name, g.type, lo.type))
                self.meta["ops"].append("grad_clip")
            def step_counter():
                """The incremented step counter, made once per step."""
                nonlocal step_value
                if step_value is None:
                    step_arg = Value("%step", (), step_dtype)
                    state_args.append((step_arg, "step"))
                    one = self.op((), step_dtype, "arith.constant dense<1> : %s" % step_arg.type,
                                  prefix="c")
                    step_value = self.op((), step_dtype, "arith.addi %s, %s : %s" % (
                        step_arg.name, one.name, step_arg.type), prefix="step")
                    results.append((step_value, step_arg))
                return step_value

            if kind in ("adam", "adamw"):
                step_counter()
                m = Value("%%m%s" % pv.name[1:], pv.shape, pv.dtype)
                v = Value("%%s%s" % pv.name[1:], pv.shape, pv.dtype)
                state_args += [(m, "adam.exp_avg"), (v, "adam.exp_avg_sq")]
                attrs = ["lr = %s" % fmt_f64(lr)]
                if rng.random() < 0.5:
                    attrs += ["beta1 = %s" % fmt_f64(0.9), "beta2 = %s" % fmt_f64(
                        rng.choice([0.95, 0.999]))]
                if rng.random() < 0.5:
                    attrs.append("weight_decay = %s" % fmt_f64(rng.choice([0.0, 0.01, 0.1])))
                outs = [Value(self.fresh("n"), pv.shape, pv.dtype) for _ in range(3)]
                self.emit("%s = mp.%s %s, %s, %s, %s, %s {%s} : %s, %s" % (
                    ", ".join(o.name for o in outs), kind, pv.name, g.name, m.name,
                    v.name, step_value.name, ", ".join(attrs), pv.type,
                    step_value.type))
                results += [(outs[0], pv), (outs[1], m), (outs[2], v)]
            elif kind == "sgd_momentum":
                buf = Value("%%b%s" % pv.name[1:], pv.shape, pv.dtype)
                state_args.append((buf, "sgd.momentum_buffer"))
                attrs = ["lr = %s" % fmt_f64(lr), "momentum = %s" % fmt_f64(0.9)]
                step_text = ""
                if rng.random() < 0.3:
                    attrs.append("nesterov")
                elif rng.random() < 0.3:
                    # Dampening needs the step counter (the first step's
                    # buffer is the gradient undampened).
                    attrs.append("dampening = %s" % fmt_f64(0.1))
                    counter = step_counter()
                    step_text = " step(%s : %s)" % (counter.name, counter.type)
                if rng.random() < 0.3:
                    attrs.append("weight_decay = %s" % fmt_f64(1e-4))
                outs = [Value(self.fresh("n"), pv.shape, pv.dtype) for _ in range(2)]
                self.emit("%s = mp.sgd %s, %s momentum_buffer %s%s {%s} : %s, %s" % (
                    ", ".join(o.name for o in outs), pv.name, g.name, buf.name,
                    step_text, ", ".join(attrs), pv.type, buf.type))
                results += [(outs[0], pv), (outs[1], buf)]
            else:
                attrs = ["lr = %s" % fmt_f64(lr)]
                if rng.random() < 0.3:
                    attrs.append("weight_decay = %s" % fmt_f64(1e-4))
                out = Value(self.fresh("n"), pv.shape, pv.dtype)
                self.emit("%s = mp.sgd %s, %s {%s} : %s" % (
                    out.name, pv.name, g.name, ", ".join(attrs), pv.type))
                results.append((out, pv))

        # Arguments: parameters, state, data; sometimes shuffled.
        args = [(p.value, "{mp.param}") for p in self.params]
        for value, kind in state_args:
            attr = '{mp.state = "%s"}' % kind
            if kind == "adam.exp_avg" and rng.random() < 0.1:
                attr = '{mp.init = 0.0 : %s, mp.state = "%s"}' % (value.dtype, kind)
            args.append((value, attr))
        args += [(d, "") for d in self.data]
        if rng.random() < 0.3:
            rng.shuffle(args)
        index = {value.name: i for i, (value, _) in enumerate(args)}

        res = [(loss, "{mp.loss}")] + [
            (value, "{mp.updates = %d : i64}" % index[arg.name]) for value, arg in results]
        updated = {arg.name for _, arg in results}
        for p in self.params:
            if p.value.name not in updated and rng.random() < 0.3:
                # A frozen parameter returned unchanged as its own update.
                res.append((p.value, "{mp.updates = %d : i64}" % index[p.value.name]))
                self.meta["ops"].append("frozen_param")
        if rng.random() < 0.1:
            # An extra result without contract attributes (a metric).
            res.append((grads[0], ""))
            self.meta["ops"].append("extra_result")
        if rng.random() < 0.2:
            rng.shuffle(res)

        arg_text = ",\n    ".join(
            "%s: %s%s" % (v.name, v.type, (" " + a) if a else "") for v, a in args)
        res_text = ",\n        ".join("%s%s" % (v.type, (" " + a) if a else "") for v, a in res)
        out = ["// Generated by tools/mp-fuzz/gen_train_steps.py, seed %d." % self.seed]
        visibility = ""
        caller = self.allow_caller and rng.random() < 0.08
        if caller and rng.random() < 0.5:
            visibility = "private "
        out.append("func.func %s@train_step(\n    %s)\n    -> (%s) {" % (
            visibility, arg_text, res_text))
        out += self.lines
        out.append("  return %s : %s" % (", ".join(v.name for v, _ in res),
                                         ", ".join(v.type for v, _ in res)))
        out.append("}")
        text = "\n".join(out) + "\n"
        for helper in self.helpers:
            text += "\n" + helper
        if caller:
            self.meta["caller"] = True
            types = [v.type for v, _ in args]
            rtypes = [v.type for v, _ in res]
            text += "\nfunc.func @driver(%s) -> %s {\n" % (
                ", ".join("%%a%d: %s" % (i, t) for i, t in enumerate(types)), rtypes[0])
            text += "  %%r:%d = func.call @train_step(%s) : (%s) -> (%s)\n" % (
                len(rtypes), ", ".join("%%a%d" % i for i in range(len(types))),
                ", ".join(types), ", ".join(rtypes))
            text += "  return %%r#0 : %s\n}\n" % rtypes[0]
        self.meta["params"] = len(self.params)
        self.meta["grads"] = len(grad_params)
        self.meta["ops"] = sorted(set(self.meta["ops"]))
        self.meta.pop("table", None)
        return text


def broadcast_shape(a, b):
    """The NumPy broadcast of two shapes (assumed compatible)."""
    rank = max(len(a), len(b))
    a = (1,) * (rank - len(a)) + tuple(a)
    b = (1,) * (rank - len(b)) + tuple(b)
    return tuple(max(x, y) for x, y in zip(a, b))


def generate(seed, allow_caller=True):
    """Returns (module text, metadata dict) for `seed`."""
    gen = Generator(seed, allow_caller)
    text = gen.generate()
    if gen.rng.random() < 0.05:
        # A second, independent train step in the same module.
        second = Generator(seed * 7919 + 1, allow_caller=False)
        other = second.generate().replace("@train_step", "@train_step_b")
        text += "\n" + other.replace("@helper", "@b_helper")
        gen.meta["second_step"] = True
    return text, gen.meta


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("seed", type=int)
    parser.add_argument("-o", "--output", default="-")
    parser.add_argument("--no-caller", action="store_true",
                        help="never add a caller of the train step")
    parser.add_argument("--meta", action="store_true",
                        help="print the module's facts as JSON to stderr")
    args = parser.parse_args()
    text, meta = generate(args.seed, not args.no_caller)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as f:
            f.write(text)
    if args.meta:
        sys.stderr.write(json.dumps(meta) + "\n")


if __name__ == "__main__":
    main()
