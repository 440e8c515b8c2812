#!/usr/bin/env python3
"""Numeric gradient check of mp-autodiff, op by op, on the CPU.

For every differentiable mp op this builds a tiny f32 function

    loss(x...) = sum(op(x...) * r)        (r: a fixed random tensor)

and its gradient function (the same body followed by `mp.grad loss wrt x...`),
expands the gradient with `mp-opt --mp-autodiff`, lowers the module with the
given CPU lowering, runs it with mlir-runner, and compares every gradient with
central finite differences of the loss computed in f32 by the same compiled
code:

    fd_i = (loss(x + h e_i) - loss(x - h e_i)) / ((x_i + h) - (x_i - h))

where the denominator uses the f32-rounded perturbed values. Inputs are drawn
away from the kinks of relu/maximum/minimum/reduce_max and from the poles of
log/sqrt/rsqrt/div, so the difference quotient is smooth.

The bound, per differentiated input, is normwise:

    ||g_autodiff - g_fd||_2 <= RTOL * ||g_fd||_2 + ATOL * sqrt(n)

with RTOL = 2e-3 and ATOL = 1e-5: with h = 1e-2 and f32 round-off in a loss
of order 1 near 1e-7, the difference quotient is good to about 1e-5 absolute
(the truncation error h^2/6 f''' is smaller for these inputs); the largest
relative error seen is about 2e-4, while a wrong formula is off by O(1).

Usage: gradcheck.py --mp-opt MP_OPT --lowering=FLAGS --runner=COMMAND
                    [--only NAME...] [--keep DIR] [--seed N]
  MP_OPT    path of mp-opt
  FLAGS     mp-opt flags lowering the expanded module to LLVM, e.g.
            --lowering=--mp-cpu-pipeline
  COMMAND   the mlir-runner command line running `main` with the runtime
            libraries (printMemrefF32)
  --only    run only the named cases; --keep writes the generated modules
Prints one line per case and input, then a summary; exits 1 on a failure.
Standard library only.
"""

import argparse
import math
import os
import random
import re
import shlex
import struct
import subprocess
import sys
import tempfile

RTOL = 2e-3
ATOL = 1e-5
STEP = 1e-2


def f32(value):
    """Rounds a Python float to the nearest f32."""
    return struct.unpack("f", struct.pack("f", value))[0]


def shape_str(shape):
    return "x".join(str(d) for d in shape)


def ttype(shape, elem="f32"):
    if not shape:
        return "tensor<%s>" % elem
    return "tensor<%sx%s>" % (shape_str(shape), elem)


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def dense(values, shape):
    """A dense literal of f32 `values` (row-major) with `shape`."""
    text = ["%.9e" % v for v in values]

    def nest(offset, dims):
        if not dims:
            return text[offset]
        stride = numel(dims[1:])
        return "[" + ", ".join(nest(offset + i * stride, dims[1:])
                               for i in range(dims[0])) + "]"

    return "dense<%s>" % nest(0, list(shape))


class Rng:
    """Input generators (seeded)."""

    def __init__(self, seed):
        self.random = random.Random(seed)

    def uniform(self, n, lo=-1.0, hi=1.0):
        return [f32(self.random.uniform(lo, hi)) for _ in range(n)]

    def away_from_zero(self, n, lo=0.2, hi=1.0):
        return [f32(self.random.choice([-1.0, 1.0]) *
                    self.random.uniform(lo, hi)) for _ in range(n)]

    def positive(self, n, lo=0.5, hi=2.0):
        return self.uniform(n, lo, hi)

    def distinct(self, n):
        """Values at least 0.25 apart (unique maxima along any dimension)."""
        values = [0.25 * k - 0.125 * n for k in range(n)]
        self.random.shuffle(values)
        return [f32(v) for v in values]

    def grid(self, n, step=1.0 / 64):
        """Multiples of `step` in [-1, 1]: exact in f16 with their +-step."""
        return [f32(step * self.random.randint(-60, 60)) for _ in range(n)]


class Input:
    def __init__(self, name, shape, values=None, differentiable=True):
        self.name = name
        self.shape = list(shape)
        self.values = values
        self.differentiable = differentiable


class Case:
    """One op under test: `body` computes %y of `out_shape` from the inputs."""

    def __init__(self, name, inputs, body, out_shape, step=STEP):
        self.name = name
        self.inputs = inputs
        self.body = body
        self.out_shape = list(out_shape)
        self.step = step


def make_cases(rng):
    u, az, pos = rng.uniform, rng.away_from_zero, rng.positive
    cases = []

    def add(name, inputs, body, out_shape, step=STEP):
        cases.append(Case(name, inputs, body.strip(), out_shape, step))

    # Linear algebra.
    add("matmul", [Input("a", [3, 4], u(12)), Input("b", [4, 2], u(8))],
        "%y = mp.matmul %a, %b acc(f32) : tensor<3x4xf32>, tensor<4x2xf32> "
        "-> tensor<3x2xf32>", [3, 2])
    add("matmul_transpose_lhs",
        [Input("a", [4, 3], u(12)), Input("b", [4, 2], u(8))],
        "%y = mp.matmul %a, %b transpose_lhs acc(f32) : tensor<4x3xf32>, "
        "tensor<4x2xf32> -> tensor<3x2xf32>", [3, 2])
    add("matmul_transpose_rhs",
        [Input("a", [3, 4], u(12)), Input("b", [2, 4], u(8))],
        "%y = mp.matmul %a, %b transpose_rhs acc(f32) : tensor<3x4xf32>, "
        "tensor<2x4xf32> -> tensor<3x2xf32>", [3, 2])
    add("matmul_transpose_both",
        [Input("a", [4, 3], u(12)), Input("b", [2, 4], u(8))],
        "%y = mp.matmul %a, %b transpose_lhs transpose_rhs acc(f32) : "
        "tensor<4x3xf32>, tensor<2x4xf32> -> tensor<3x2xf32>", [3, 2])
    add("batch_matmul",
        [Input("a", [2, 3, 4], u(24)), Input("b", [2, 2, 4], u(16))],
        "%y = mp.batch_matmul %a, %b transpose_rhs acc(f32) : "
        "tensor<2x3x4xf32>, tensor<2x2x4xf32> -> tensor<2x3x2xf32>", [2, 3, 2])
    add("linear",
        [Input("x", [2, 2, 3], u(12)), Input("w", [4, 3], u(12)),
         Input("b", [4], u(4))],
        "%y = mp.linear %x, %w, %b acc(f32) : (tensor<2x2x3xf32>, "
        "tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x2x4xf32>", [2, 2, 4])
    add("conv2d",
        [Input("x", [1, 2, 4, 4], u(32)), Input("w", [2, 2, 3, 3], u(36)),
         Input("b", [2], u(2))],
        "%y = mp.conv2d %x, %w, %b acc(f32) {padding = array<i64: 1, 1>, "
        "strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, "
        "tensor<2x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>",
        [1, 2, 2, 2])
    add("conv2d_groups_dilation",
        [Input("x", [1, 2, 5, 5], u(50)), Input("w", [4, 1, 2, 2], u(16))],
        "%y = mp.conv2d %x, %w acc(f32) {dilation = array<i64: 2, 2>, "
        "groups = 2 : i64} : (tensor<1x2x5x5xf32>, tensor<4x1x2x2xf32>) "
        "-> tensor<1x4x3x3xf32>", [1, 4, 3, 3])

    # Elementwise binary ops with broadcasting.
    add("add", [Input("a", [3, 4], u(12)), Input("b", [4], u(4))],
        "%y = mp.add %a, %b : tensor<3x4xf32>, tensor<4xf32>", [3, 4])
    add("sub", [Input("a", [3, 4], u(12)), Input("b", [3, 1], u(3))],
        "%y = mp.sub %a, %b : tensor<3x4xf32>, tensor<3x1xf32>", [3, 4])
    add("mul", [Input("a", [3, 4], u(12)), Input("b", [4], u(4))],
        "%y = mp.mul %a, %b : tensor<3x4xf32>, tensor<4xf32>", [3, 4])
    add("div", [Input("a", [3, 4], u(12)), Input("b", [1, 4], az(4, 0.5))],
        "%y = mp.div %a, %b : tensor<3x4xf32>, tensor<1x4xf32>", [3, 4])
    add("pow", [Input("a", [3, 4], pos(12)), Input("e", [4], pos(4))],
        "%y = mp.pow %a, %e : tensor<3x4xf32>, tensor<4xf32>", [3, 4])
    rhs = u(4)
    lhs = [f32(rhs[i % 4] + rng.away_from_zero(1)[0]) for i in range(12)]
    add("maximum", [Input("a", [3, 4], lhs), Input("b", [4], rhs)],
        "%y = mp.maximum %a, %b : tensor<3x4xf32>, tensor<4xf32>", [3, 4])
    add("minimum", [Input("a", [3, 4], lhs), Input("b", [4], rhs)],
        "%y = mp.minimum %a, %b : tensor<3x4xf32>, tensor<4xf32>", [3, 4])

    # Elementwise unary ops.
    for op, values in [("neg", u(12)), ("relu", az(12)), ("tanh", u(12)),
                       ("sigmoid", u(12)), ("exp", u(12)), ("log", pos(12)),
                       ("sqrt", pos(12)), ("rsqrt", pos(12))]:
        add(op, [Input("x", [3, 4], values)],
            "%%y = mp.%s %%x : tensor<3x4xf32>" % op, [3, 4])
    add("gelu", [Input("x", [3, 4], u(12, -2.0, 2.0))],
        "%y = mp.gelu %x : tensor<3x4xf32>", [3, 4])
    add("gelu_tanh", [Input("x", [3, 4], u(12, -2.0, 2.0))],
        "%y = mp.gelu %x approximate tanh : tensor<3x4xf32>", [3, 4])

    # Reductions and normalisation.
    add("reduce_sum", [Input("x", [3, 4], u(12))],
        "%y = mp.reduce_sum %x dims [1] keepdims : tensor<3x4xf32>", [3, 1])
    add("reduce_mean", [Input("x", [3, 4], u(12))],
        "%y = mp.reduce_mean %x dims [0] : tensor<3x4xf32>", [4])
    add("reduce_max", [Input("x", [3, 4], rng.distinct(12))],
        "%y = mp.reduce_max %x dims [1] : tensor<3x4xf32>", [3])
    add("softmax", [Input("x", [3, 4], u(12))],
        "%y = mp.softmax %x dim 1 : tensor<3x4xf32>", [3, 4])
    add("log_softmax", [Input("x", [3, 4], u(12))],
        "%y = mp.log_softmax %x dim 0 : tensor<3x4xf32>", [3, 4])
    add("layer_norm",
        [Input("x", [2, 3, 4], u(24)), Input("g", [4], u(4)),
         Input("b", [4], u(4))],
        "%y = mp.layer_norm %x weight %g bias %b axis 2 eps 1.0e-05 : "
        "(tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> "
        "tensor<2x3x4xf32>", [2, 3, 4])
    add("layer_norm_no_affine", [Input("x", [2, 3, 4], u(24))],
        "%y = mp.layer_norm %x axis 1 eps 1.0e-05 : (tensor<2x3x4xf32>) -> "
        "tensor<2x3x4xf32>", [2, 3, 4])
    add("rms_norm", [Input("x", [3, 4], u(12)), Input("g", [4], u(4))],
        "%y = mp.rms_norm %x weight %g axis 1 eps 1.0e-06 : "
        "(tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>", [3, 4])

    # Shape.
    add("transpose", [Input("x", [2, 3, 4], u(24))],
        "%y = mp.transpose %x perm [2, 0, 1] : tensor<2x3x4xf32>", [4, 2, 3])
    add("reshape", [Input("x", [3, 4], u(12))],
        "%y = mp.reshape %x : tensor<3x4xf32> to tensor<2x6xf32>", [2, 6])
    add("broadcast", [Input("x", [3, 1], u(3))],
        "%y = mp.broadcast %x : tensor<3x1xf32> to tensor<2x3x4xf32>",
        [2, 3, 4])
    add("concat", [Input("a", [3, 2], u(6)), Input("b", [3, 4], u(12))],
        "%y = mp.concat %a, %b dim 1 : tensor<3x2xf32>, tensor<3x4xf32>",
        [3, 6])
    add("slice", [Input("x", [4, 6], u(24))],
        "%y = mp.slice %x offsets [1, 0] sizes [2, 3] strides [1, 2] : "
        "tensor<4x6xf32>", [2, 3])
    add("embedding", [Input("t", [5, 3], u(15))],
        "%ids = arith.constant dense<[1, 3, 1, 0]> : tensor<4xi64>\n"
        "  %y = mp.embedding %t[%ids] : tensor<5x3xf32>, tensor<4xi64>",
        [4, 3])

    # Losses.
    add("cross_entropy", [Input("z", [3, 5], u(15, -2.0, 2.0))],
        "%labels = arith.constant dense<[4, 0, 2]> : tensor<3xi64>\n"
        "  %y = mp.cross_entropy %z, %labels : tensor<3x5xf32>, "
        "tensor<3xi64>", [])
    add("mse", [Input("x", [3, 2], u(6)), Input("t", [3, 2], u(6))],
        "%y = mp.mse %x, %t : tensor<3x2xf32>", [])

    # Precision. The f16 round trip is exact on a 1/64 grid with h = 1/64.
    add("cast", [Input("x", [3, 4], rng.grid(12))],
        "%h = mp.cast %x : tensor<3x4xf32> to tensor<3x4xf16>\n"
        "  %y = mp.cast %h : tensor<3x4xf16> to tensor<3x4xf32>",
        [3, 4], step=1.0 / 64)
    add("scale", [Input("x", [3, 4], u(12))],
        "%s = arith.constant dense<-1.5> : tensor<f32>\n"
        "  %y = mp.scale %x by %s : tensor<3x4xf32>", [3, 4])

    # Composites: values used several times accumulate their adjoints.
    add("reuse",
        [Input("x", [3, 4], u(12)), Input("w", [4, 4], u(16))],
        "%m = mp.matmul %x, %w acc(f32) : tensor<3x4xf32>, tensor<4x4xf32> "
        "-> tensor<3x4xf32>\n"
        "  %p = mp.mul %m, %x : tensor<3x4xf32>, tensor<3x4xf32>\n"
        "  %e = mp.exp %x : tensor<3x4xf32>\n"
        "  %y = mp.add %p, %e : tensor<3x4xf32>, tensor<3x4xf32>", [3, 4])
    add("mlp",
        [Input("x", [4, 3], u(12), differentiable=False),
         Input("w1", [5, 3], u(15, -2.0, 2.0)), Input("b1", [5], u(5)),
         Input("w2", [2, 5], u(10, -2.0, 2.0)), Input("b2", [2], u(2))],
        "%h0 = mp.linear %x, %w1, %b1 acc(f32) : (tensor<4x3xf32>, "
        "tensor<5x3xf32>, tensor<5xf32>) -> tensor<4x5xf32>\n"
        "  %h = mp.tanh %h0 : tensor<4x5xf32>\n"
        "  %z = mp.linear %h, %w2, %b2 acc(f32) : (tensor<4x5xf32>, "
        "tensor<2x5xf32>, tensor<2xf32>) -> tensor<4x2xf32>\n"
        "  %labels = arith.constant dense<[1, 0, 0, 1]> : tensor<4xi64>\n"
        "  %y = mp.cross_entropy %z, %labels : tensor<4x2xf32>, "
        "tensor<4xi64>", [])
    return cases


def function_text(case, name, with_grad):
    """The loss function of `case`, or its gradient function."""
    args = ", ".join("%%%s: %s" % (i.name, ttype(i.shape))
                     for i in case.inputs)
    out = ttype(case.out_shape)
    diff = [i for i in case.inputs if i.differentiable]
    results = ", ".join(ttype(i.shape) for i in diff) if with_grad else \
        "tensor<f32>"
    lines = ["func.func @%s(%s, %%r: %s) -> (%s) {" % (name, args, out,
                                                        results),
             "  " + case.body]
    if case.out_shape:
        dims = ", ".join(str(d) for d in range(len(case.out_shape)))
        lines.append("  %%ry = mp.mul %%y, %%r : %s, %s" % (out, out))
        lines.append("  %%l = mp.reduce_sum %%ry dims [%s] : %s" % (dims, out))
    else:
        lines.append("  %l = mp.mul %y, %r : tensor<f32>, tensor<f32>")
    if with_grad:
        names = ", ".join("%%g%d" % k for k in range(len(diff)))
        lines.append("  %s = mp.grad %%l wrt %s : tensor<f32>, %s" % (
            names, ", ".join("%" + i.name for i in diff), results))
        lines.append("  return %s : %s" % (names, results))
    else:
        lines.append("  return %l : tensor<f32>")
    lines.append("}")
    return "\n".join(lines)


def main_text(case, r_values):
    """`main`: prints each autodiff gradient, then the loss differences."""
    lines = ["func.func private @printMemrefF32(tensor<*xf32>)",
             "func.func @main() {"]
    diff = [i for i in case.inputs if i.differentiable]
    out = ttype(case.out_shape)
    arg_types = ", ".join(ttype(i.shape) for i in case.inputs) + ", " + out
    for i in case.inputs:
        lines.append("  %%%s = arith.constant %s : %s" % (
            i.name, dense(i.values, i.shape), ttype(i.shape)))
    lines.append("  %%r = arith.constant %s : %s" % (
        dense(r_values, case.out_shape), out))
    args = ", ".join("%" + i.name for i in case.inputs) + ", %r"
    results = ", ".join(ttype(i.shape) for i in diff)
    names = ", ".join("%%g%d" % k for k in range(len(diff)))
    lines.append("  %s = call @grads(%s) : (%s) -> (%s)" % (
        names, args, arg_types, results))
    for k, i in enumerate(diff):
        lines.append("  %%u%d = tensor.cast %%g%d : %s to tensor<*xf32>" % (
            k, k, ttype(i.shape)))
        lines.append("  call @printMemrefF32(%%u%d) : (tensor<*xf32>) -> ()"
                     % k)
    # Central differences: loss(x + h e_j) - loss(x - h e_j), in f32.
    scalars = []
    denominators = []
    counter = 0
    for i in diff:
        for j in range(numel(i.shape)):
            losses = []
            plus = f32(i.values[j] + case.step)
            minus = f32(i.values[j] - case.step)
            denominators.append(plus - minus)
            for value in (plus, minus):
                perturbed = list(i.values)
                perturbed[j] = value
                name = "%%p%d" % counter
                counter += 1
                lines.append("  %s = arith.constant %s : %s" % (
                    name, dense(perturbed, i.shape), ttype(i.shape)))
                call_args = ", ".join(
                    name if other is i else "%" + other.name
                    for other in case.inputs) + ", %r"
                loss = "%%l%d" % counter
                lines.append("  %s = call @loss(%s) : (%s) -> tensor<f32>" % (
                    loss, call_args, arg_types))
                losses.append(loss)
            delta = "%%d%d" % len(scalars)
            lines.append("  %s = mp.sub %s, %s : tensor<f32>, tensor<f32>" % (
                delta, losses[0], losses[1]))
            scalar = "%%s%d" % len(scalars)
            lines.append("  %s = tensor.extract %s[] : tensor<f32>" % (
                scalar, delta))
            scalars.append(scalar)
    lines.append("  %%deltas = tensor.from_elements %s : tensor<%dxf32>" % (
        ", ".join(scalars), len(scalars)))
    lines.append("  %%du = tensor.cast %%deltas : tensor<%dxf32> to "
                 "tensor<*xf32>" % len(scalars))
    lines.append("  call @printMemrefF32(%du) : (tensor<*xf32>) -> ()")
    lines.append("  return")
    lines.append("}")
    return "\n".join(lines), denominators


NUMBER = re.compile(r"-?(?:nan|inf|\d+(?:\.\d*)?(?:e[-+]?\d+)?)")


def parse_memrefs(output):
    """The data of each printMemrefF32 in `output`, flattened."""
    blocks = output.split("Unranked Memref")[1:]
    result = []
    for block in blocks:
        data = block.split("data =", 1)[1]
        result.append([float(x) for x in NUMBER.findall(data)])
    return result


def run(command, stdin=None):
    process = subprocess.run(command, input=stdin, capture_output=True,
                             text=True)
    if process.returncode != 0:
        raise RuntimeError("%s failed (%d):\n%s" % (
            " ".join(command[:3]), process.returncode, process.stderr[-4000:]))
    return process.stdout


def check_case(case, rng, mp_opt, lowering, runner, keep):
    r_values = rng.uniform(numel(case.out_shape), -2.0, 2.0)
    main, denominators = main_text(case, r_values)
    module = "\n\n".join([function_text(case, "loss", False),
                          function_text(case, "grads", True), main]) + "\n"
    if keep:
        with open(os.path.join(keep, case.name + ".mlir"), "w") as f:
            f.write(module)
    expanded = run([mp_opt, "--mp-autodiff", "-"], module)
    lowered = run([mp_opt] + shlex.split(lowering) + ["-"], expanded)
    with tempfile.NamedTemporaryFile("w", suffix=".mlir") as f:
        f.write(lowered)
        f.flush()
        output = run(shlex.split(runner) + [f.name])
    blocks = parse_memrefs(output)
    diff = [i for i in case.inputs if i.differentiable]
    if len(blocks) != len(diff) + 1:
        raise RuntimeError("expected %d printed tensors, got %d" % (
            len(diff) + 1, len(blocks)))
    deltas = blocks[-1]
    offset = 0
    report = []
    ok = True
    for i, grad in zip(diff, blocks):
        n = numel(i.shape)
        fd = [deltas[offset + j] / denominators[offset + j] for j in range(n)]
        offset += n
        err = math.sqrt(sum((a - b) ** 2 for a, b in zip(grad, fd)))
        norm = math.sqrt(sum(b * b for b in fd))
        bound = RTOL * norm + ATOL * math.sqrt(n)
        passed = len(grad) == n and err <= bound and not math.isnan(err)
        ok = ok and passed
        report.append("%-24s d/d%-3s n=%-3d |fd|=%.3e err=%.3e bound=%.3e %s" %
                      (case.name, i.name, n, norm, err, bound,
                       "ok" if passed else "FAIL"))
    return ok, report


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mp-opt", required=True, help="path of mp-opt")
    parser.add_argument("--lowering", required=True,
                        help="mp-opt flags lowering to LLVM (give it as "
                        "--lowering=FLAGS)")
    parser.add_argument("--runner", required=True,
                        help="mlir-runner command line running `main`")
    parser.add_argument("--only", nargs="*", help="run only these cases")
    parser.add_argument("--keep", help="write the generated modules here")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    rng = Rng(args.seed)
    cases = make_cases(rng)
    if args.only:
        cases = [c for c in cases if c.name in args.only]
    failures = 0
    for case in cases:
        try:
            ok, lines = check_case(case, rng, args.mp_opt, args.lowering,
                                   args.runner, args.keep)
        except RuntimeError as error:
            ok, lines = False, ["%-24s ERROR %s" % (case.name, error)]
        failures += 0 if ok else 1
        for line in lines:
            print(line)
    print("gradient check: %d ops, %d failed (rtol %g, atol %g, h %g)" % (
        len(cases), failures, RTOL, ATOL, STEP))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
