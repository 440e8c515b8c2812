"""mixedprec.TrainStep: writing mp train steps from Python.

A framework translates its graph by calling one method per op; the builder
infers shapes, checks them, and emits the train step (forward, loss, `mp.grad`,
optimizer, docs/TrainStep.md's contract) and optionally a `@predict` function
for evaluation, as mp IR text:

    step = mixedprec.TrainStep()
    x = step.input("x", (64, 784))
    labels = step.input("labels", (64,), "i64")
    w = step.param("w", (10, 784))
    b = step.param("b", (10,))
    logits = step.linear(x, w, b)
    loss = step.cross_entropy(logits, labels)
    text = step.build(loss, mixedprec.SGD(lr=0.1), predict=logits)

Random ops (`dropout`, `random_uniform`, `random_normal`) draw from one rng
state argument (`mp.state = "rng"`, `tensor<2xi64>` [seed, offset],
docs/Random.md) that the builder adds and threads through the ops in the
order they were called; `TrainStep(seed=S)` writes `mp.init = [S, 0]`,
otherwise mp-run binds the seed from `--seed`. In `@predict` (evaluation),
dropout is the identity, as in PyTorch's eval mode.
"""

import math
import re
import struct

FLOAT_TYPES = ("f32", "f16", "bf16", "f64", "f8E4M3FN", "f8E5M2")
INTEGER_TYPES = ("i64", "i32", "i8", "i1")


def _tensor(shape, dtype):
    return "tensor<%s>" % "x".join([str(d) for d in shape] + [dtype])


def _f64(value):
    """An f64 attribute, printed as Python's repr (which reads back exactly)
    in MLIR's float syntax (a digit before and after the point)."""
    value = float(value)
    if value != value or value in (float("inf"), float("-inf")):
        raise BuildError("optimizer hyperparameters must be finite, got %r" % value)
    text = repr(value)
    mantissa, _, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + ("e" + exponent if exponent else "") + " : f64"


def _float_literal(value):
    """`value` in MLIR's float syntax, without a type (an attribute of a
    custom op syntax that knows its type)."""
    return _f64(value)[:-len(" : f64")]


def _i64_array(values):
    return "[%s]" % ", ".join(str(int(v)) for v in values)


class BuildError(ValueError):
    """A graph the builder cannot emit: wrong shapes, types or arguments."""


class Value:
    """A tensor of the graph: an argument (param or input) or an op result.
    Arithmetic operators build ops: `a + b`, `a - b`, `a * b`, `a / b`,
    `-a`, `a @ b` (matmul)."""

    def __init__(self, builder, kind, shape, dtype, name=None, op=None):
        self.builder = builder
        self.kind = kind  # "param", "input" or "op"
        self.shape = tuple(shape)
        self.dtype = dtype
        self.name = name
        self.op = op

    @property
    def type(self):
        return _tensor(self.shape, self.dtype)

    def __repr__(self):
        what = self.name if self.name else (self.op.mnemonic if self.op else "?")
        return "<mixedprec.Value %s %s %s>" % (self.kind, what, self.type)

    def __add__(self, other):
        return self.builder.add(self, other)

    def __sub__(self, other):
        return self.builder.sub(self, other)

    def __mul__(self, other):
        return self.builder.mul(self, other)

    def __truediv__(self, other):
        return self.builder.div(self, other)

    def __neg__(self):
        return self.builder.neg(self)

    def __matmul__(self, other):
        return self.builder.matmul(self, other)


class _Op:
    """One recorded op: `infer(specs)` gives the result (shape, dtype) from
    the operands' and `format(result, operands, specs, result_spec)` its text."""

    def __init__(self, mnemonic, operands, infer, format, hidden=0):
        self.mnemonic = mnemonic
        self.operands = operands
        self.infer = infer
        self.format = format
        # Trailing operands that only order random ops (the previous one).
        self.hidden = hidden
        # Forward state the op reads and updates (batch norm): _ForwardState
        # entries; their new values are results `<result>_<suffix>`.
        self.forward_state = []


class _ForwardState:
    """One forward-state argument (`mp.state` of a forward kind, e.g.
    bn.running_mean): the op result named `<op result>_<suffix>` updates it."""

    def __init__(self, name, shape, dtype, kind, suffix):
        self.name = name
        self.shape = tuple(shape)
        self.dtype = dtype
        self.kind = kind
        self.suffix = suffix

    @property
    def type(self):
        return _tensor(self.shape, self.dtype)


def _broadcast(a, b):
    result = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and 1 not in (x, y):
            raise BuildError("shapes %s and %s do not broadcast" % (list(a), list(b)))
        result.append(max(x, y))
    return tuple(reversed(result))


class Optimizer:
    """Base of the optimizers: per parameter, the state kinds it threads and
    how it emits its update."""
    state_kinds = ()
    needs_step = False

    def attributes(self, lr_operand=False):
        raise NotImplementedError


class SGD(Optimizer):
    """torch.optim.SGD: lr, momentum, dampening, weight_decay, nesterov,
    maximize (`mp.sgd`; a momentum buffer per parameter when momentum != 0,
    and the step counter when dampening != 0 too, for the first step's
    undampened buffer)."""

    def __init__(self, lr, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False,
                 maximize=False):
        self.lr, self.momentum, self.dampening = lr, momentum, dampening
        self.weight_decay, self.nesterov, self.maximize = weight_decay, nesterov, maximize
        if nesterov and (momentum == 0 or dampening != 0):
            raise BuildError("nesterov needs a momentum and zero dampening")
        self.state_kinds = ("sgd.momentum_buffer",) if momentum else ()
        self.needs_step = bool(momentum and dampening)

    def attributes(self, lr_operand=False):
        attrs = [] if lr_operand else ["lr = " + _f64(self.lr)]
        for name in ("momentum", "dampening", "weight_decay"):
            if getattr(self, name):
                attrs.append("%s = %s" % (name, _f64(getattr(self, name))))
        for name in ("nesterov", "maximize"):
            if getattr(self, name):
                attrs.append(name)
        return "{" + ", ".join(attrs) + "}"


class Adam(Optimizer):
    """torch.optim.Adam (`mp.adam`): lr, betas, eps, weight_decay (L2),
    amsgrad (an `adam.max_exp_avg_sq` state per parameter), maximize."""
    mnemonic = "adam"
    default_weight_decay = 0.0
    needs_step = True

    def __init__(self, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=None,
                 amsgrad=False, maximize=False):
        self.lr, self.betas, self.eps = lr, tuple(betas), eps
        self.weight_decay = self.default_weight_decay if weight_decay is None else weight_decay
        self.amsgrad, self.maximize = amsgrad, maximize
        self.state_kinds = ("adam.exp_avg", "adam.exp_avg_sq") + (
            ("adam.max_exp_avg_sq",) if amsgrad else ())

    def attributes(self, lr_operand=False):
        attrs = [] if lr_operand else ["lr = " + _f64(self.lr)]
        attrs += ["beta1 = " + _f64(self.betas[0]), "beta2 = " + _f64(self.betas[1]),
                  "eps = " + _f64(self.eps), "weight_decay = " + _f64(self.weight_decay)]
        if self.maximize:
            attrs.append("maximize")
        return "{" + ", ".join(attrs) + "}"


class AdamW(Adam):
    """torch.optim.AdamW (`mp.adamw`, decoupled weight decay, default 0.01)."""
    mnemonic = "adamw"
    default_weight_decay = 1e-2


# Learning-rate schedules --------------------------------------------------


def _f64_constant(value):
    """An exact f64 `arith.constant` operand text (its bit pattern)."""
    bits = struct.unpack("<Q", struct.pack("<d", float(value)))[0]
    return "0x%016X : f64" % bits


class _ScalarEmitter:
    """Emits scalar f64/i64 arith text with fresh names under `prefix`, in
    the order include/mp/Dialect/MP/IR/MPSchedules.h's C++ builder builds
    the same ops."""

    def __init__(self, prefix):
        self.prefix, self.lines, self.count = prefix, [], 0

    def _fresh(self):
        self.count += 1
        return "%s_%d" % (self.prefix, self.count)

    def emit(self, text, type_suffix=""):
        name = self._fresh()
        self.lines.append("%s = %s%s" % (name, text, type_suffix))
        return name

    def f64(self, value):
        return self.emit("arith.constant " + _f64_constant(value))

    def i64(self, value):
        return self.emit("arith.constant %d : i64" % int(value))

    def to_f64(self, integer):
        return self.emit("arith.sitofp %s : i64 to f64" % integer)

    def binary(self, op, x, y, type_="f64"):
        return self.emit("%s %s, %s : %s" % (op, x, y, type_))

    def pow(self, base, integer):
        return self.binary("math.powf", self.f64(base), self.to_f64(integer))

    def count_at_most(self, values, counter):
        count = self.i64(0)
        for value in values:
            reached = self.emit("arith.cmpi sle, %s, %s : i64" % (self.i64(value), counter))
            count = self.binary("arith.addi", count,
                                self.emit("arith.extui %s : i1 to i64" % reached), "i64")
        return count


class LRScheduler:
    """Base of the torch.optim.lr_scheduler schedules (without the
    optimizer argument): the learning rate of a step is the closed form at
    the schedule counter `last_epoch` (state `lr_scheduler.last_epoch`, 0 at
    the first step), in f64 as PyTorch's Python floats, bit for bit."""

    def _closed_form(self, e, base, emitter):
        raise NotImplementedError

    def check(self):
        pass


class StepLR(LRScheduler):
    """base_lr · gamma ** (last_epoch // step_size)."""

    def __init__(self, step_size, gamma=0.1):
        self.step_size, self.gamma = int(step_size), float(gamma)

    def check(self):
        if self.step_size < 1:
            raise BuildError("StepLR: step_size must be >= 1")

    def _closed_form(self, e, base, em):
        k = em.binary("arith.floordivsi", e, em.i64(self.step_size), "i64")
        return em.binary("arith.mulf", base, em.pow(self.gamma, k))


class MultiStepLR(LRScheduler):
    """base_lr · gamma ** bisect_right(sorted(milestones), last_epoch)."""

    def __init__(self, milestones, gamma=0.1):
        self.milestones, self.gamma = sorted(int(m) for m in milestones), float(gamma)

    def _closed_form(self, e, base, em):
        return em.binary("arith.mulf", base,
                         em.pow(self.gamma, em.count_at_most(self.milestones, e)))


class ExponentialLR(LRScheduler):
    """base_lr · gamma ** last_epoch."""

    def __init__(self, gamma):
        self.gamma = float(gamma)

    def _closed_form(self, e, base, em):
        return em.binary("arith.mulf", base, em.pow(self.gamma, e))


class CosineAnnealingLR(LRScheduler):
    """eta_min + (base_lr − eta_min) · (1 + cos(π · last_epoch / T_max)) / 2
    (the closed form; torch's recursive step() rounds differently)."""

    def __init__(self, T_max, eta_min=0.0):
        self.T_max, self.eta_min = int(T_max), float(eta_min)

    def check(self):
        if self.T_max < 1:
            raise BuildError("CosineAnnealingLR: T_max must be >= 1")

    def _closed_form(self, e, base, em):
        angle = em.binary("arith.divf",
                          em.binary("arith.mulf", em.f64(math.pi), em.to_f64(e)),
                          em.to_f64(em.i64(self.T_max)))
        cosine = em.emit("math.cos %s : f64" % angle)
        product = em.binary("arith.mulf",
                            em.binary("arith.subf", base, em.f64(self.eta_min)),
                            em.binary("arith.addf", em.f64(1.0), cosine))
        return em.binary("arith.addf", em.f64(self.eta_min),
                         em.binary("arith.divf", product, em.f64(2.0)))


class LinearLR(LRScheduler):
    """base_lr · (start_factor + (end_factor − start_factor) ·
    min(total_iters, last_epoch) / total_iters)."""

    def __init__(self, start_factor=1.0 / 3, end_factor=1.0, total_iters=5):
        self.start_factor, self.end_factor = float(start_factor), float(end_factor)
        self.total_iters = int(total_iters)

    def check(self):
        if not 0.0 < self.start_factor <= 1.0 or not 0.0 <= self.end_factor <= 1.0:
            raise BuildError("LinearLR: start_factor must be in (0, 1], end_factor in [0, 1]")
        if self.total_iters < 1:
            raise BuildError("LinearLR: total_iters must be >= 1")

    def _closed_form(self, e, base, em):
        iters = em.binary("arith.minsi", em.i64(self.total_iters), e, "i64")
        fraction = em.binary(
            "arith.divf",
            em.binary("arith.mulf",
                      em.binary("arith.subf", em.f64(self.end_factor), em.f64(self.start_factor)),
                      em.to_f64(iters)),
            em.to_f64(em.i64(self.total_iters)))
        return em.binary("arith.mulf", base,
                         em.binary("arith.addf", em.f64(self.start_factor), fraction))


class SequentialLR(LRScheduler):
    """Schedule i of `schedulers` from milestone i − 1 on, at
    last_epoch − milestones[i − 1] (restarted there as PyTorch's step(0))."""

    def __init__(self, schedulers, milestones):
        self.schedulers, self.milestones = list(schedulers), [int(m) for m in milestones]

    def check(self):
        if not self.schedulers or len(self.milestones) + 1 != len(self.schedulers):
            raise BuildError("SequentialLR: expects one milestone fewer than schedulers")
        if any(b <= a for a, b in zip(self.milestones, self.milestones[1:])) or \
                any(m < 0 for m in self.milestones):
            raise BuildError("SequentialLR: milestones must be increasing and >= 0")
        for inner in self.schedulers:
            if not isinstance(inner, LRScheduler) or isinstance(inner, SequentialLR):
                raise BuildError("SequentialLR: schedulers must be non-sequential schedules")
            inner.check()

    def _closed_form(self, e, base_lr, em):
        raise NotImplementedError  # lr_schedule_ops handles it


def lr_schedule_ops(scheduler, base_lr, counter, prefix="%lr"):
    """The mp IR lines computing the learning rate of `scheduler` for an
    optimizer whose initial lr is `base_lr`, at the `tensor<i64>` value named
    `counter`; returns (lines, name of the `tensor<f64>` learning rate) —
    the same ops as the C++ mp::buildLRSchedule."""
    if not isinstance(scheduler, LRScheduler):
        raise BuildError("lr_scheduler must be a mixedprec schedule (StepLR, ...)")
    scheduler.check()
    base_lr = float(base_lr)
    if not math.isfinite(base_lr) or base_lr < 0:
        raise BuildError("the base learning rate must be a finite number >= 0")
    em = _ScalarEmitter(prefix)
    e = em.emit("tensor.extract %s[] : tensor<i64>" % counter)
    if isinstance(scheduler, SequentialLR):
        index = em.count_at_most(scheduler.milestones, e)
        lr = None
        for i, inner in enumerate(scheduler.schedulers):
            local = e if i == 0 else em.binary("arith.subi", e,
                                               em.i64(scheduler.milestones[i - 1]), "i64")
            value = inner._closed_form(local, em.f64(base_lr), em)
            if i == 0:
                lr = value
                continue
            active = em.emit("arith.cmpi eq, %s, %s : i64" % (index, em.i64(i)))
            lr = em.emit("arith.select %s, %s, %s : f64" % (active, value, lr))
    else:
        lr = scheduler._closed_form(e, em.f64(base_lr), em)
    result = em.emit("tensor.from_elements %s : tensor<f64>" % lr)
    return em.lines, result


_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_$.]*$")


class TrainStep:
    """Builds one train step (and its @predict) in the mp dialect."""

    def __init__(self, name="train_step", seed=None):
        self.name = name
        self.params = []
        self.inputs = []
        self._names = set()
        # The random ops in call order: each draws from the state the
        # previous one returned.
        self._random = []
        self.seed = None if seed is None else int(seed)
        if self.seed is not None and not 0 <= self.seed < 1 << 64:
            raise BuildError("seed must be in [0, 2^64), got %d" % self.seed)
        # True while @predict is emitted: batch norm runs in eval mode.
        self._eval = False

    # Arguments -------------------------------------------------------------

    def _argument(self, kind, name, shape, dtype):
        if not isinstance(name, str) or not _NAME.match(name):
            raise BuildError("argument name %r is not an identifier" % (name,))
        if name in self._names:
            raise BuildError("two arguments are named %r" % name)
        shape = tuple(int(d) for d in shape)
        if any(d < 0 for d in shape):
            raise BuildError("shape %s of %r has a negative dimension" % (list(shape), name))
        self._names.add(name)
        value = Value(self, kind, shape, dtype, name=name)
        (self.params if kind == "param" else self.inputs).append(value)
        return value

    def param(self, name, shape, dtype="f32"):
        """A trainable parameter (`mp.param`), float."""
        if dtype not in FLOAT_TYPES:
            raise BuildError("parameter %r must be a float tensor, got %s" % (name, dtype))
        return self._argument("param", name, shape, dtype)

    def input(self, name, shape, dtype="f32"):
        """A batch input (data argument: no attribute)."""
        if dtype not in FLOAT_TYPES + INTEGER_TYPES:
            raise BuildError("input %r has unsupported element type %s" % (name, dtype))
        return self._argument("input", name, shape, dtype)

    # Ops -------------------------------------------------------------------

    def _check(self, *values):
        for value in values:
            if not isinstance(value, Value) or value.builder is not self:
                raise BuildError("%r is not a value of this train step" % (value,))

    def _op(self, mnemonic, operands, infer, format, hidden=0):
        self._check(*operands)
        op = _Op(mnemonic, list(operands), infer, format, hidden)
        shape, dtype = infer([(v.shape, v.dtype) for v in operands])
        return Value(self, "op", shape, dtype, op=op)

    @staticmethod
    def _float(spec, what):
        if spec[1] not in FLOAT_TYPES:
            raise BuildError("%s must be a float tensor, got %s" % (what, _tensor(*spec)))

    def linear(self, x, weight, bias=None, acc="f32"):
        """x·weightᵀ + bias (F.linear): x [..., in], weight [out, in], bias [out]."""
        def infer(specs):
            (xs, xt), (ws, wt) = specs[0], specs[1]
            self._float(specs[0], "linear input")
            if len(ws) != 2 or not xs or xs[-1] != ws[1] or xt != wt:
                raise BuildError("linear: input %s and weight %s do not fit"
                                 % (_tensor(xs, xt), _tensor(ws, wt)))
            if len(specs) == 3 and specs[2] != ((ws[0],), xt):
                raise BuildError("linear: bias must be %s, got %s"
                                 % (_tensor((ws[0],), xt), _tensor(*specs[2])))
            return xs[:-1] + (ws[0],), xt

        def format(result, names, specs, out):
            return "%s = mp.linear %s acc(%s) : (%s) -> %s" % (
                result, ", ".join(names), acc, ", ".join(_tensor(*s) for s in specs),
                _tensor(*out))
        return self._op("linear", [x, weight] + ([bias] if bias is not None else []),
                        infer, format)

    def matmul(self, lhs, rhs, transpose_lhs=False, transpose_rhs=False, acc="f32"):
        """lhs·rhs of 2-D tensors, optionally transposed."""
        def infer(specs):
            (ls, lt), (rs, rt) = specs
            if len(ls) != 2 or len(rs) != 2 or lt != rt:
                raise BuildError("matmul: operands %s and %s are not matrices of one type"
                                 % (_tensor(ls, lt), _tensor(rs, rt)))
            m, k = (ls[1], ls[0]) if transpose_lhs else ls
            k2, n = (rs[1], rs[0]) if transpose_rhs else rs
            if k != k2:
                raise BuildError("matmul: contraction sizes %d and %d differ" % (k, k2))
            return (m, n), ("i32" if lt == "i8" else lt)

        def format(result, names, specs, out):
            flags = (" transpose_lhs" if transpose_lhs else "") + \
                (" transpose_rhs" if transpose_rhs else "")
            return "%s = mp.matmul %s%s acc(%s) : %s, %s -> %s" % (
                result, ", ".join(names), flags, acc, _tensor(*specs[0]),
                _tensor(*specs[1]), _tensor(*out))
        return self._op("matmul", [lhs, rhs], infer, format)

    def _binary(self, mnemonic, lhs, rhs):
        def infer(specs):
            (ls, lt), (rs, rt) = specs
            self._float(specs[0], mnemonic + " operand")
            if lt != rt:
                raise BuildError("%s: element types %s and %s differ" % (mnemonic, lt, rt))
            return _broadcast(ls, rs), lt

        def format(result, names, specs, out):
            return "%s = mp.%s %s : %s, %s" % (result, mnemonic, ", ".join(names),
                                              _tensor(*specs[0]), _tensor(*specs[1]))
        return self._op(mnemonic, [lhs, rhs], infer, format)

    def add(self, lhs, rhs):
        return self._binary("add", lhs, rhs)

    def sub(self, lhs, rhs):
        return self._binary("sub", lhs, rhs)

    def mul(self, lhs, rhs):
        return self._binary("mul", lhs, rhs)

    def div(self, lhs, rhs):
        return self._binary("div", lhs, rhs)

    def maximum(self, lhs, rhs):
        return self._binary("maximum", lhs, rhs)

    def minimum(self, lhs, rhs):
        return self._binary("minimum", lhs, rhs)

    def _unary(self, mnemonic, x, suffix=""):
        def infer(specs):
            self._float(specs[0], mnemonic + " operand")
            return specs[0]

        def format(result, names, specs, out):
            return "%s = mp.%s %s%s : %s" % (result, mnemonic, names[0], suffix,
                                            _tensor(*specs[0]))
        return self._op(mnemonic, [x], infer, format)

    def relu(self, x):
        return self._unary("relu", x)

    def tanh(self, x):
        return self._unary("tanh", x)

    def sigmoid(self, x):
        return self._unary("sigmoid", x)

    def exp(self, x):
        return self._unary("exp", x)

    def log(self, x):
        return self._unary("log", x)

    def sqrt(self, x):
        return self._unary("sqrt", x)

    def rsqrt(self, x):
        return self._unary("rsqrt", x)

    def neg(self, x):
        return self._unary("neg", x)

    def gelu(self, x, approximate="none"):
        if approximate not in ("none", "tanh"):
            raise BuildError("gelu: approximate must be 'none' or 'tanh'")
        return self._unary("gelu", x, "" if approximate == "none" else " approximate tanh")

    # Activations, selection and comparison (MPActivationOps.td) -----------

    def clamp(self, x, min=None, max=None, hardtanh=False):
        """torch.clamp(x, min, max); `hardtanh` takes hardtanh_backward's
        exclusive gradient at the bounds (relu6, F.hardtanh)."""
        if min is None and max is None:
            raise BuildError("clamp: give min, max or both")
        if hardtanh and (min is None or max is None or min > max):
            raise BuildError("clamp: hardtanh needs min <= max")
        suffix = ""
        for word, bound in (("min", min), ("max", max)):
            if bound is not None:
                suffix += " %s %s" % (word, _f64(bound).split(" : ")[0])
        return self._unary("clamp", x, suffix + (" hardtanh" if hardtanh else ""))

    def relu6(self, x):
        return self.clamp(x, 0.0, 6.0, hardtanh=True)

    def hardtanh(self, x, min_val=-1.0, max_val=1.0):
        return self.clamp(x, min_val, max_val, hardtanh=True)

    def silu(self, x):
        return self._unary("silu", x)

    def hardswish(self, x):
        return self._unary("hardswish", x)

    def hardsigmoid(self, x):
        return self._unary("hardsigmoid", x)

    def leaky_relu(self, x, negative_slope=0.01):
        return self._unary("leaky_relu", x, " negative_slope %s"
                           % _f64(negative_slope).split(" : ")[0])

    def erf(self, x):
        return self._unary("erf", x)

    def abs(self, x):
        return self._unary("abs", x)

    def stop_gradient(self, x):
        """x.detach(): no gradient flows through the result."""
        def infer(specs):
            return specs[0]

        def format(result, names, specs, out):
            return "%s = mp.stop_gradient %s : %s" % (result, names[0], _tensor(*specs[0]))
        return self._op("stop_gradient", [x], infer, format)

    def select(self, condition, true_value, false_value):
        """torch.where(condition, true_value, false_value), broadcasting."""
        def infer(specs):
            (cs, ct), (ts, tt), (fs, ft) = specs
            if ct != "i1":
                raise BuildError("select: the condition must be i1, got %s" % _tensor(cs, ct))
            if tt != ft:
                raise BuildError("select: element types %s and %s differ" % (tt, ft))
            return _broadcast(_broadcast(cs, ts), fs), tt

        def format(result, names, specs, out):
            return "%s = mp.select %s : %s" % (result, ", ".join(names),
                                               ", ".join(_tensor(*s) for s in specs))
        return self._op("select", [condition, true_value, false_value], infer, format)

    def compare(self, predicate, lhs, rhs):
        """lhs <predicate> rhs (eq, ne, lt, le, gt, ge) as i1, broadcasting."""
        if predicate not in ("eq", "ne", "lt", "le", "gt", "ge"):
            raise BuildError("compare: unknown predicate %r" % (predicate,))

        def infer(specs):
            (ls, lt), (rs, rt) = specs
            if lt != rt:
                raise BuildError("compare: element types %s and %s differ" % (lt, rt))
            return _broadcast(ls, rs), "i1"

        def format(result, names, specs, out):
            return "%s = mp.compare %s, %s : %s, %s" % (
                result, predicate, ", ".join(names), _tensor(*specs[0]), _tensor(*specs[1]))
        return self._op("compare", [lhs, rhs], infer, format)

    # Pooling (MPPoolingOps.td) ----------------------------------------------

    @staticmethod
    def _pair(value, what):
        pair = (value, value) if isinstance(value, int) else tuple(int(v) for v in value)
        if len(pair) != 2:
            raise BuildError("%s must be an int or a pair, got %r" % (what, value))
        return pair

    def _pool(self, mnemonic, x, kernel_size, stride, padding, dilation, ceil_mode,
              extra):
        kernel = self._pair(kernel_size, "kernel_size")
        strides = kernel if stride is None else self._pair(stride, "stride")
        pads = self._pair(padding, "padding")
        dilations = self._pair(dilation, "dilation")

        def infer(specs):
            shape, dtype = specs[0]
            self._float(specs[0], mnemonic + " input")
            if len(shape) != 4:
                raise BuildError("%s: input must be NCHW, got %s" % (mnemonic, _tensor(*specs[0])))
            out = []
            for i in range(2):
                if kernel[i] < 1 or strides[i] < 1 or dilations[i] < 1 or pads[i] < 0 \
                        or pads[i] > kernel[i] // 2:
                    raise BuildError("%s: invalid window (kernel %s, stride %s, padding %s)"
                                     % (mnemonic, list(kernel), list(strides), list(pads)))
                extent = shape[2 + i] + 2 * pads[i] - dilations[i] * (kernel[i] - 1) - 1 \
                    + (strides[i] - 1 if ceil_mode else 0)
                size = extent // strides[i] + 1
                if ceil_mode and (size - 1) * strides[i] >= shape[2 + i] + pads[i]:
                    size -= 1
                if size < 1:
                    raise BuildError("%s: output too small for %s" % (mnemonic, _tensor(*specs[0])))
                out.append(size)
            return tuple(shape[:2]) + tuple(out), dtype

        def format(result, names, specs, out):
            text = "%s = mp.%s %s kernel %s" % (result, mnemonic, names[0], _i64_array(kernel))
            if stride is not None:
                text += " stride " + _i64_array(strides)
            if pads != (0, 0):
                text += " padding " + _i64_array(pads)
            if dilations != (1, 1):
                text += " dilation " + _i64_array(dilations)
            if ceil_mode:
                text += " ceil_mode"
            return text + extra + " : " + _tensor(*specs[0])
        return self._op(mnemonic, [x], infer, format)

    def max_pool2d(self, x, kernel_size, stride=None, padding=0, dilation=1,
                   ceil_mode=False):
        """F.max_pool2d on an NCHW tensor."""
        return self._pool("max_pool2d", x, kernel_size, stride, padding, dilation,
                          ceil_mode, "")

    def avg_pool2d(self, x, kernel_size, stride=None, padding=0, ceil_mode=False,
                   count_include_pad=True, divisor_override=None):
        """F.avg_pool2d on an NCHW tensor."""
        extra = "" if count_include_pad else " count_include_pad false"
        if divisor_override is not None:
            if int(divisor_override) < 1:
                raise BuildError("avg_pool2d: divisor_override must be >= 1")
            extra += " divisor %d" % int(divisor_override)
        return self._pool("avg_pool2d", x, kernel_size, stride, padding, 1, ceil_mode,
                          extra)

    def adaptive_avg_pool2d(self, x, output_size):
        """F.adaptive_avg_pool2d on an NCHW tensor."""
        size = self._pair(output_size, "output_size")

        def infer(specs):
            shape, dtype = specs[0]
            self._float(specs[0], "adaptive_avg_pool2d input")
            if len(shape) != 4 or min(size) < 1:
                raise BuildError("adaptive_avg_pool2d: NCHW input and output_size >= 1 "
                                 "expected, got %s and %s" % (_tensor(*specs[0]), list(size)))
            return tuple(shape[:2]) + size, dtype

        def format(result, names, specs, out):
            return "%s = mp.adaptive_avg_pool2d %s output_size %s : %s" % (
                result, names[0], _i64_array(size), _tensor(*specs[0]))
        return self._op("adaptive_avg_pool2d", [x], infer, format)

    def _along(self, mnemonic, x, dim):
        def infer(specs):
            self._float(specs[0], mnemonic + " operand")
            if not -len(specs[0][0]) <= dim < len(specs[0][0]):
                raise BuildError("%s: dim %d out of range for %s" % (mnemonic, dim,
                                                                   _tensor(*specs[0])))
            return specs[0]

        def format(result, names, specs, out):
            return "%s = mp.%s %s dim %d : %s" % (result, mnemonic, names[0],
                                                 dim % len(specs[0][0]), _tensor(*specs[0]))
        return self._op(mnemonic, [x], infer, format)

    def softmax(self, x, dim=-1):
        return self._along("softmax", x, dim)

    def log_softmax(self, x, dim=-1):
        return self._along("log_softmax", x, dim)

    def _reduce(self, mnemonic, x, dims, keepdims):
        dims = [dims] if isinstance(dims, int) else list(dims)

        def normalized(rank):
            result = sorted({d % rank for d in dims}) if rank else []
            if any(not -rank <= d < rank for d in dims) or len(result) != len(dims):
                raise BuildError("%s: dims %s invalid for rank %d" % (mnemonic, dims, rank))
            return result

        def infer(specs):
            shape, dtype = specs[0]
            self._float(specs[0], mnemonic + " operand")
            reduced = normalized(len(shape))
            if keepdims:
                return tuple(1 if i in reduced else d for i, d in enumerate(shape)), dtype
            return tuple(d for i, d in enumerate(shape) if i not in reduced), dtype

        def format(result, names, specs, out):
            return "%s = mp.%s %s dims %s%s : %s" % (
                result, mnemonic, names[0], _i64_array(normalized(len(specs[0][0]))),
                " keepdims" if keepdims else "", _tensor(*specs[0]))
        return self._op(mnemonic, [x], infer, format)

    # Random ops ----------------------------------------------------------

    def _random_op(self, mnemonic, operands, infer, format):
        """A random op: its state operand is the state the previous random
        op returned (`%rng` for the first); that op is a hidden last operand,
        so that emission keeps the call order."""
        previous = self._random[-1] if self._random else None
        hidden = [previous] if previous is not None else []

        def infer_visible(specs):
            return infer(specs[:len(operands)])

        def format_visible(result, names, specs, out):
            state = names[len(operands)] + "_rng" if previous is not None else "%rng"
            return format(result, result + "_rng", state, names[:len(operands)],
                          specs[:len(operands)], out)
        value = self._op(mnemonic, list(operands) + hidden, infer_visible,
                         format_visible, hidden=len(hidden))
        self._random.append(value)
        return value

    def dropout(self, x, p):
        """F.dropout(x, p, training=True) (`mp.dropout`): keeps each element
        with probability 1 - p and scales it by 1/(1 - p); p in [0, 1)."""
        p = float(p)
        if not 0.0 <= p < 1.0:
            raise BuildError("dropout: p must be in [0, 1), got %r" % p)

        def infer(specs):
            if specs[0][1] not in ("f32", "f16", "bf16"):
                raise BuildError("dropout: input must be f32, f16 or bf16, got %s"
                                 % _tensor(*specs[0]))
            return specs[0]

        def format(result, new_state, state, names, specs, out):
            return "%s, %s = mp.dropout %s, %s p(%s) : %s" % (
                result, new_state, names[0], state, _f64(p)[:-6], _tensor(*specs[0]))
        return self._random_op("dropout", [x], infer, format)

    def _sampler(self, mnemonic, shape, dtype, first, second):
        shape = tuple(int(d) for d in shape)
        if dtype not in ("f32", "f16", "bf16"):
            raise BuildError("%s: dtype must be f32, f16 or bf16, got %s" % (mnemonic, dtype))
        if any(d < 0 for d in shape):
            raise BuildError("%s: shape %s has a negative dimension" % (mnemonic, list(shape)))
        attrs = " ".join("%s(%s)" % (name, _f64(value)[:-6]) for name, value in (first, second))

        def format(result, new_state, state, names, specs, out):
            return "%s, %s = mp.%s %s %s : %s" % (result, new_state, mnemonic, state,
                                                 attrs, _tensor(shape, dtype))
        return self._random_op(mnemonic, [], lambda specs: (shape, dtype), format)

    def random_uniform(self, shape, low=0.0, high=1.0, dtype="f32"):
        """Uniform samples in [low, high) (`mp.random_uniform`), a constant of
        differentiation."""
        if not float(low) < float(high):
            raise BuildError("random_uniform: low must be < high")
        return self._sampler("random_uniform", shape, dtype, ("low", low), ("high", high))

    def random_normal(self, shape, mean=0.0, std=1.0, dtype="f32"):
        """Normal samples N(mean, std^2) (`mp.random_normal`)."""
        if not float(std) >= 0.0:
            raise BuildError("random_normal: std must be >= 0")
        return self._sampler("random_normal", shape, dtype, ("mean", mean), ("std", std))

    def reduce_sum(self, x, dims, keepdims=False):
        return self._reduce("reduce_sum", x, dims, keepdims)

    def reduce_mean(self, x, dims, keepdims=False):
        return self._reduce("reduce_mean", x, dims, keepdims)

    def reduce_max(self, x, dims, keepdims=False):
        return self._reduce("reduce_max", x, dims, keepdims)

    def reshape(self, x, shape):
        """Same elements, new static shape; a leading dimension of -1 keeps
        the batch size (so @predict can change it)."""
        shape = tuple(int(d) for d in shape)

        def target(input_shape):
            count = 1
            for d in input_shape:
                count *= d
            if shape.count(-1) > 1:
                raise BuildError("reshape: at most one -1 dimension")
            if -1 in shape:
                known = 1
                for d in shape:
                    known *= d if d != -1 else 1
                if known == 0 or count % known:
                    raise BuildError("reshape: %s does not fit %s" % (list(shape),
                                                                      list(input_shape)))
                return tuple(count // known if d == -1 else d for d in shape)
            total = 1
            for d in shape:
                total *= d
            if total != count:
                raise BuildError("reshape: %s has %d elements, %s %d"
                                 % (list(shape), total, list(input_shape), count))
            return shape

        def infer(specs):
            return target(specs[0][0]), specs[0][1]

        def format(result, names, specs, out):
            return "%s = mp.reshape %s : %s to %s" % (result, names[0], _tensor(*specs[0]),
                                                    _tensor(*out))
        return self._op("reshape", [x], infer, format)

    def transpose(self, x, permutation):
        permutation = [int(p) for p in permutation]

        def infer(specs):
            shape, dtype = specs[0]
            if sorted(permutation) != list(range(len(shape))):
                raise BuildError("transpose: %s is not a permutation of rank %d"
                                 % (permutation, len(shape)))
            return tuple(shape[p] for p in permutation), dtype

        def format(result, names, specs, out):
            return "%s = mp.transpose %s perm %s : %s" % (result, names[0],
                                                         _i64_array(permutation),
                                                         _tensor(*specs[0]))
        return self._op("transpose", [x], infer, format)

    def cast(self, x, dtype):
        """Explicit cast (round to nearest even)."""
        def infer(specs):
            self._float(specs[0], "cast operand")
            if dtype not in FLOAT_TYPES:
                raise BuildError("cast: target %s is not a float type" % dtype)
            return specs[0][0], dtype

        def format(result, names, specs, out):
            return "%s = mp.cast %s : %s to %s" % (result, names[0], _tensor(*specs[0]),
                                                 _tensor(*out))
        return self._op("cast", [x], infer, format)

    def cross_entropy(self, logits, labels, ignore_index=-100, label_smoothing=0.0):
        """Mean softmax cross entropy of logits [N, C] against labels [N]
        (F.cross_entropy: the mean over labels != ignore_index, with label
        smoothing)."""
        ignore_index = int(ignore_index)
        label_smoothing = float(label_smoothing)
        if not 0.0 <= label_smoothing <= 1.0:
            raise BuildError("cross_entropy: label_smoothing must be in [0, 1], got %r"
                             % label_smoothing)

        def infer(specs):
            (ls, lt), (ys, yt) = specs
            if len(ls) != 2 or lt not in FLOAT_TYPES or ys != ls[:1] or yt not in ("i32", "i64"):
                raise BuildError("cross_entropy: logits [N, C] (float) and labels [N] "
                                 "(i32/i64) expected, got %s and %s"
                                 % (_tensor(ls, lt), _tensor(ys, yt)))
            return (), lt

        attrs = []
        if ignore_index != -100:
            attrs.append("ignore_index = %d : i64" % ignore_index)
        if label_smoothing:
            attrs.append("label_smoothing = " + _f64(label_smoothing))
        attr_text = " {%s}" % ", ".join(attrs) if attrs else ""

        def format(result, names, specs, out):
            return "%s = mp.cross_entropy %s%s : %s, %s" % (
                result, ", ".join(names), attr_text, _tensor(*specs[0]), _tensor(*specs[1]))
        return self._op("cross_entropy", [logits, labels], infer, format)

    def batch_norm(self, x, weight=None, bias=None, eps=1e-5, momentum=0.1,
                   name=None):
        """F.batch_norm / nn.BatchNorm1d/2d of x [N, C] or [N, C, H, W]: batch
        statistics in the train step (which updates the running statistics,
        forward-state arguments `<name>_running_mean`, `<name>_running_var`
        (f32, initialised to 1 by mp.init) and `<name>_num_batches_tracked`),
        the running statistics in @predict. `weight`, `bias`: [C] params of
        x's type or f32. `momentum=None`: PyTorch's cumulative average."""
        if name is None:
            name = "bn%d" % sum(1 for n in self._names if n.endswith("_running_mean"))
        self._check(x)
        if len(x.shape) not in (2, 4) or x.dtype not in FLOAT_TYPES:
            raise BuildError("batch_norm: input [N, C] or [N, C, H, W] (float) expected, "
                             "got %s" % x.type)
        channels = x.shape[1]
        for param, what in ((weight, "weight"), (bias, "bias")):
            if param is not None:
                self._check(param)
                if param.shape != (channels,) or param.dtype not in (x.dtype, "f32"):
                    raise BuildError("batch_norm: %s must be [%d] of %s or f32, got %s"
                                     % (what, channels, x.dtype, param.type))
        if momentum is not None and not 0.0 <= momentum <= 1.0:
            raise BuildError("batch_norm: momentum must be in [0, 1] or None, got %r"
                             % (momentum,))
        states = []
        for suffix, shape, dtype, kind in (
                ("running_mean", (channels,), "f32", "bn.running_mean"),
                ("running_var", (channels,), "f32", "bn.running_var"),
                ("num_batches_tracked", (), "i64", "bn.num_batches_tracked")):
            arg = "%s_%s" % (name, suffix)
            if not _NAME.match(arg) or arg in self._names:
                raise BuildError("batch_norm: argument name %r is taken or invalid" % arg)
            self._names.add(arg)
            states.append(_ForwardState(arg, shape, dtype, kind, suffix))
        operands = [x] + [v for v in (weight, bias) if v is not None]

        def infer(specs):
            return specs[0]

        def format(result, names, specs, out):
            text = names[0]
            rest = list(names[1:])
            if weight is not None:
                text += " weight " + rest.pop(0)
            if bias is not None:
                text += " bias " + rest.pop(0)
            text += " stats(%s) %s eps %s" % (
                ", ".join("%" + st.name for st in states),
                "eval" if self._eval else "training", _float_literal(eps))
            if momentum is None:
                text += " cumulative_average"
            else:
                text += " momentum %s" % _float_literal(momentum)
            results = [result] + ["%s_%s" % (result, st.suffix) for st in states]
            types = [_tensor(*sp) for sp in specs] + [st.type for st in states]
            out_types = [_tensor(*out)] + [st.type for st in states]
            return "%s = mp.batch_norm %s : (%s) -> (%s)" % (
                ", ".join(results), text, ", ".join(types), ", ".join(out_types))
        value = self._op("batch_norm", operands, infer, format)
        value.op.forward_state = states
        return value

    def nll_loss(self, log_probs, targets, ignore_index=-100, reduction="mean"):
        """Negative log-likelihood of log-probabilities [N, C] at targets [N]
        (F.nll_loss; reduction "mean", "sum" or "none")."""
        ignore_index = int(ignore_index)
        if reduction not in ("mean", "sum", "none"):
            raise BuildError("nll_loss: reduction must be 'mean', 'sum' or 'none', got %r"
                             % (reduction,))

        def infer(specs):
            (ls, lt), (ys, yt) = specs
            if len(ls) != 2 or lt not in FLOAT_TYPES or ys != ls[:1] or yt not in ("i32", "i64"):
                raise BuildError("nll_loss: input [N, C] (float) and targets [N] (i32/i64) "
                                 "expected, got %s and %s" % (_tensor(ls, lt), _tensor(ys, yt)))
            return (ls[:1] if reduction == "none" else ()), lt

        suffix = "" if reduction == "mean" else " reduction " + reduction
        if ignore_index != -100:
            suffix += " {ignore_index = %d : i64}" % ignore_index

        def format(result, names, specs, out):
            return "%s = mp.nll_loss %s%s : %s, %s -> %s" % (
                result, ", ".join(names), suffix, _tensor(*specs[0]), _tensor(*specs[1]),
                _tensor(*out))
        return self._op("nll_loss", [log_probs, targets], infer, format)

    def mse(self, x, target):
        """Mean squared error of two tensors of one type."""
        def infer(specs):
            self._float(specs[0], "mse input")
            if specs[0] != specs[1]:
                raise BuildError("mse: %s and %s differ" % (_tensor(*specs[0]),
                                                          _tensor(*specs[1])))
            return (), specs[0][1]

        def format(result, names, specs, out):
            return "%s = mp.mse %s : %s" % (result, ", ".join(names), _tensor(*specs[0]))
        return self._op("mse", [x, target], infer, format)

    # Emission --------------------------------------------------------------

    @staticmethod
    def _closure(outputs, follow_hidden=True):
        """The op values `outputs` depend on, operands first; and the
        arguments reached. Without `follow_hidden`, the random ops' ordering
        operands are not followed."""
        order, seen, arguments = [], set(), set()

        def visit(value):
            if id(value) in seen:
                return
            seen.add(id(value))
            if value.kind != "op":
                arguments.add(id(value))
                return
            operands = value.op.operands
            if not follow_hidden and value.op.hidden:
                operands = operands[:-value.op.hidden]
            for operand in operands:
                visit(operand)
            order.append(value)
        for output in outputs:
            visit(output)
        return order, arguments

    @staticmethod
    def _forward_states(order):
        """The forward state of the ops `order`, with the op value of each."""
        return [(st, value) for value in order for st in value.op.forward_state]

    @staticmethod
    def _state_argument(st):
        init = ", mp.init = 1.0 : f32" if st.kind == "bn.running_var" else ""
        return '%%%s: %s {mp.state = "%s"%s}' % (st.name, st.type, st.kind, init)

    @staticmethod
    def _emit_body(order, names, specs, lines, evaluation=False):
        for index, value in enumerate(order):
            if evaluation and value.op.mnemonic == "dropout":
                # Eval mode: the identity.
                specs[id(value)] = specs[id(value.op.operands[0])]
                names[id(value)] = names[id(value.op.operands[0])]
                continue
            if evaluation and value.op.mnemonic.startswith("random_"):
                raise BuildError("predict: %s is not available in evaluation"
                                 % value.op.mnemonic)
            operand_specs = [specs[id(v)] for v in value.op.operands]
            out = value.op.infer(operand_specs)
            specs[id(value)] = out
            names[id(value)] = "%%v%d" % index
            lines.append("  " + value.op.format(
                names[id(value)], [names[id(v)] for v in value.op.operands],
                operand_specs, out))

    def build(self, loss, optimizer, predict=None, predict_batch=None,
              predict_name="predict", lr_scheduler=None, clip_grad_norm=None):
        """The module text: the train step @<name> minimising `loss` (a 0-d
        float value) over every parameter with `optimizer` (SGD, Adam,
        AdamW), and with `predict` (a value), a function @<predict_name>
        taking the parameters and the one input it depends on (batch size
        `predict_batch`, by default the train step's) and returning it, as
        `mp-run --eval` calls it. `lr_scheduler` (StepLR, ...) computes the
        learning rate in the step from the optimizer's lr and a
        `lr_scheduler.last_epoch` state argument, returned incremented.
        `clip_grad_norm` = max_norm or (max_norm, norm_type) with norm_type 2
        or "inf" clips the gradients with `mp.clip_grad_norm` first."""
        self._check(loss)
        if loss.kind != "op" or loss.shape != () or loss.dtype not in FLOAT_TYPES:
            raise BuildError("the loss must be a 0-d float result of an op, got %r" % (loss,))
        if not isinstance(optimizer, Optimizer):
            raise BuildError("optimizer must be mixedprec.SGD, Adam or AdamW")
        if not self.params:
            raise BuildError("the train step has no parameters")
        if clip_grad_norm is not None:
            max_norm, norm_type = (clip_grad_norm if isinstance(clip_grad_norm, tuple)
                                   else (clip_grad_norm, 2))
            if norm_type not in (2, 2.0, "inf", float("inf")):
                raise BuildError("clip_grad_norm: norm_type must be 2 or 'inf', got %r"
                                 % (norm_type,))
            clip_grad_norm = (float(max_norm), norm_type not in (2, 2.0))
            _f64(clip_grad_norm[0])
        text = self._train_step(loss, optimizer, lr_scheduler, clip_grad_norm)
        if predict is not None:
            text += "\n" + self._predict(predict, predict_batch, predict_name)
        return text

    def _train_step(self, loss, optimizer, lr_scheduler=None, clip=None):
        # Every random op is emitted, so that the state the step returns is
        # the one after all of them.
        order, _ = self._closure([loss] + self._random[-1:])
        names = {id(v): "%" + v.name for v in self.params + self.inputs}
        specs = {id(v): (v.shape, v.dtype) for v in self.params + self.inputs}
        arguments = ["%%%s: %s {mp.param}" % (p.name, p.type) for p in self.params]
        state_names = []
        for kind in optimizer.state_kinds:
            per_param = []
            for p in self.params:
                name = "%%%s_%s" % (p.name, kind.split(".")[-1])
                arguments.append('%s: %s {mp.state = "%s"}' % (name, p.type, kind))
                per_param.append(name)
            state_names.append(per_param)
        if optimizer.needs_step:
            arguments.append('%step: tensor<i64> {mp.state = "step"}')
        if lr_scheduler is not None:
            arguments.append('%lr_scheduler_last_epoch: tensor<i64> '
                             '{mp.state = "lr_scheduler.last_epoch"}')
        rng_argument = len(arguments)
        if self._random:
            init = ("" if self.seed is None else
                    ", mp.init = dense<[%d, 0]> : tensor<2xi64>"
                    % (self.seed - (1 << 64) if self.seed >> 63 else self.seed))
            arguments.append('%%rng: tensor<2xi64> {mp.state = "rng"%s}' % init)
        first_forward = len(arguments)
        forward_states = self._forward_states(order)
        arguments += [self._state_argument(st) for st, _ in forward_states]
        arguments += ["%%%s: %s" % (v.name, v.type) for v in self.inputs]

        lines = []
        self._emit_body(order, names, specs, lines)
        loss_name = names[id(loss)]
        gradients = ["%%grad_%s" % p.name for p in self.params]
        lines.append("  %s = mp.grad %s wrt %s : %s, %s" % (
            ", ".join(gradients), loss_name, ", ".join("%" + p.name for p in self.params),
            loss.type, ", ".join(p.type for p in self.params)))
        if clip is not None:
            clipped = ["%%clipped_%s" % p.name for p in self.params]
            lines.append("  %s, %%total_norm = mp.clip_grad_norm %s max_norm %s%s : %s" % (
                ", ".join(clipped), ", ".join(gradients), _f64(clip[0]).split(" :")[0],
                " norm_type inf" if clip[1] else "", ", ".join(p.type for p in self.params)))
            gradients = clipped
        lr_suffix = ""
        if lr_scheduler is not None:
            schedule_lines, lr_name = lr_schedule_ops(
                lr_scheduler, optimizer.lr, "%lr_scheduler_last_epoch")
            lines += ["  " + line for line in schedule_lines]
            lr_suffix = " lr(%s : tensor<f64>)" % lr_name
        attributes = optimizer.attributes(lr_operand=lr_scheduler is not None)
        new_params = ["%%new_%s" % p.name for p in self.params]
        new_states = [["%s_new" % name for name in per_param] for per_param in state_names]
        if optimizer.needs_step:
            lines.append("  %one = arith.constant dense<1> : tensor<i64>")
            lines.append("  %step_new = arith.addi %step, %one : tensor<i64>")
        for i, p in enumerate(self.params):
            if isinstance(optimizer, Adam):
                amsgrad = " amsgrad %s" % state_names[2][i] if optimizer.amsgrad else ""
                lines.append("  %s = mp.%s %%%s, %s, %s, %s, %%step_new%s%s %s : %s, tensor<i64>"
                             % (", ".join([new_params[i]] + [n[i] for n in new_states]),
                                optimizer.mnemonic, p.name, gradients[i], state_names[0][i],
                                state_names[1][i], amsgrad, lr_suffix, attributes, p.type))
            elif optimizer.state_kinds:
                step = " step(%step_new : tensor<i64>)" if optimizer.needs_step else ""
                lines.append("  %s, %s = mp.sgd %%%s, %s momentum_buffer %s%s%s %s : %s, %s"
                             % (new_params[i], new_states[0][i], p.name, gradients[i],
                                state_names[0][i], step, lr_suffix, attributes, p.type,
                                p.type))
            else:
                lines.append("  %s = mp.sgd %%%s, %s%s %s : %s" % (
                    new_params[i], p.name, gradients[i], lr_suffix, attributes, p.type))

        results = [(loss_name, loss.type, "{mp.loss}")]
        for i, p in enumerate(self.params):
            results.append((new_params[i], p.type, "{mp.updates = %d : i64}" % i))
        for k, per_param in enumerate(new_states):
            for i, p in enumerate(self.params):
                results.append((per_param[i], p.type, "{mp.updates = %d : i64}"
                                % ((k + 1) * len(self.params) + i)))
        next_argument = (len(optimizer.state_kinds) + 1) * len(self.params)
        if optimizer.needs_step:
            results.append(("%step_new", "tensor<i64>", "{mp.updates = %d : i64}"
                            % next_argument))
            next_argument += 1
        if lr_scheduler is not None:
            lines.append("  %lr_one = arith.constant dense<1> : tensor<i64>")
            lines.append("  %lr_scheduler_last_epoch_new = arith.addi "
                         "%lr_scheduler_last_epoch, %lr_one : tensor<i64>")
            results.append(("%lr_scheduler_last_epoch_new", "tensor<i64>",
                            "{mp.updates = %d : i64}" % next_argument))
        if self._random:
            results.append((names[id(self._random[-1])] + "_rng", "tensor<2xi64>",
                            "{mp.updates = %d : i64}" % rng_argument))
        for k, (st, value) in enumerate(forward_states):
            results.append(("%s_%s" % (names[id(value)], st.suffix), st.type,
                            "{mp.updates = %d : i64}" % (first_forward + k)))
        lines.append("  return %s : %s" % (", ".join(r[0] for r in results),
                                           ", ".join(r[1] for r in results)))
        header = "func.func @%s(\n    %s)\n    -> (%s) {" % (
            self.name, ",\n    ".join(arguments),
            ",\n        ".join("%s %s" % (r[1], r[2]) for r in results))
        return header + "\n" + "\n".join(lines) + "\n}\n"

    def _predict(self, output, batch, name):
        self._check(output)
        order, reached = self._closure([output], follow_hidden=False)
        inputs = [v for v in self.inputs if id(v) in reached]
        if len(inputs) != 1 or output.kind != "op":
            raise BuildError("predict: the value must be computed from exactly one input, "
                             "found %d" % len(inputs))
        (x,) = inputs
        x_shape = x.shape if batch is None else (int(batch),) + x.shape[1:]
        names = {id(v): "%" + v.name for v in self.params + [x]}
        specs = {id(v): (v.shape, v.dtype) for v in self.params}
        specs[id(x)] = (x_shape, x.dtype)
        lines = []
        self._eval = True
        try:
            self._emit_body(order, names, specs, lines, evaluation=True)
        finally:
            self._eval = False
        out = specs[id(output)]
        arguments = ["%%%s: %s {mp.param}" % (p.name, p.type) for p in self.params]
        arguments += [self._state_argument(st) for st, _ in self._forward_states(order)]
        arguments.append("%%%s: %s" % (x.name, _tensor(x_shape, x.dtype)))
        lines.append("  return %s : %s" % (names[id(output)], _tensor(*out)))
        return "func.func @%s(\n    %s)\n    -> %s {\n%s\n}\n" % (
            name, ",\n    ".join(arguments), _tensor(*out), "\n".join(lines))
