#!/usr/bin/env python3
"""Executes every mp op lowered by convert-mp-to-linalg on the CPU and
compares it with a NumPy reference in float64.

Each case feeds random inputs (from public globals, so nothing folds) to one
mp op in f32, prints the results' bit patterns, and checks them against the
reference within a tolerance: a tight one (rtol 1e-5) for direct formulas,
a looser one where the reference is a finite difference (the normalisation
gradients). Convolution gradients are checked against direct scatter loops,
the loss-scale and FP8 state ops against the rules in their descriptions.

Usage: ops_reference.py MP_OPT "LOWERING FLAGS" "MLIR_RUNNER COMMAND"
Prints `ok NAME` or `FAIL NAME ...` per case; exits 1 on any failure.
"""

import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', 'Inputs'))
import mp_exec  # noqa: E402

RNG = np.random.default_rng(7)
ERF = np.vectorize(math.erf)


def rand(*shape, low=-2.0, high=2.0):
    return RNG.uniform(low, high, shape).astype(np.float32)


mlir_type = mp_exec.mlir_type
literal = mp_exec.literal


class Case:
    """One op: `body` uses {in0}, {in1}, ... and defines {out0}, ...;
    `inputs` are (array, element type); `outputs` are (reference array,
    element type of the result, rtol, atol)."""

    def __init__(self, name, inputs, body, outputs):
        self.name = name
        self.inputs = inputs
        self.body = body
        self.outputs = outputs


CASES = []


def case(name, inputs, body, outputs, rtol=1e-5, atol=1e-6):
    inputs = [(a, 'f32') if isinstance(a, np.ndarray) else a for a in inputs]
    outputs = [o if isinstance(o, tuple) else (o, 'f32') for o in outputs]
    CASES.append(Case(name, inputs, body,
                      [(np.asarray(o), t, rtol, atol) for o, t in outputs]))


# --- reference implementations ------------------------------------------------

def conv2d(x, w, stride, pad, dil, groups):
    n, c, h, wd = x.shape
    f, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    oh = (h + 2 * pad[0] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * pad[1] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, f, oh, ow))
    fg = f // groups
    for o in range(f):
        g = o // fg
        for i in range(kh):
            for j in range(kw):
                patch = xp[:, g * cg:(g + 1) * cg,
                           i * dil[0]:i * dil[0] + stride[0] * (oh - 1) + 1:stride[0],
                           j * dil[1]:j * dil[1] + stride[1] * (ow - 1) + 1:stride[1]]
                out[:, o] += np.einsum('nchw,c->nhw', patch, w[o, :, i, j])
    return out


def conv2d_grad_input(dy, w, x_shape, stride, pad, dil, groups):
    n, c, h, wd = x_shape
    f, cg, kh, kw = w.shape
    _, _, oh, ow = dy.shape
    dxp = np.zeros((n, c, h + 2 * pad[0], wd + 2 * pad[1]))
    fg = f // groups
    for o in range(f):
        g = o // fg
        for i in range(kh):
            for j in range(kw):
                dxp[:, g * cg:(g + 1) * cg,
                    i * dil[0]:i * dil[0] + stride[0] * (oh - 1) + 1:stride[0],
                    j * dil[1]:j * dil[1] + stride[1] * (ow - 1) + 1:stride[1]] += \
                    np.einsum('nhw,c->nchw', dy[:, o], w[o, :, i, j])
    return dxp[:, :, pad[0]:pad[0] + h, pad[1]:pad[1] + wd]


def conv2d_grad_filter(dy, x, w_shape, stride, pad, dil, groups):
    f, cg, kh, kw = w_shape
    _, _, oh, ow = dy.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    dw = np.zeros(w_shape)
    fg = f // groups
    for o in range(f):
        g = o // fg
        for i in range(kh):
            for j in range(kw):
                patch = xp[:, g * cg:(g + 1) * cg,
                           i * dil[0]:i * dil[0] + stride[0] * (oh - 1) + 1:stride[0],
                           j * dil[1]:j * dil[1] + stride[1] * (ow - 1) + 1:stride[1]]
                dw[o, :, i, j] = np.einsum('nhw,nchw->c', dy[:, o], patch)
    return dw


def gelu(x, approximate):
    x = x.astype(np.float64)
    if approximate:
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + ERF(x / math.sqrt(2)))


def softmax(x, dim):
    e = np.exp(x - x.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


def layer_norm(x, axis, eps, w=None, b=None):
    dims = tuple(range(axis, x.ndim))
    mean = x.mean(axis=dims, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=dims, keepdims=True)
    y = (x - mean) / np.sqrt(var + eps)
    if w is not None:
        y = y * w
    if b is not None:
        y = y + b
    return y


def rms_norm(x, axis, eps, w=None):
    dims = tuple(range(axis, x.ndim))
    y = x / np.sqrt((x ** 2).mean(axis=dims, keepdims=True) + eps)
    return y * w if w is not None else y


def numeric_vjp(f, x, dy, h=1e-4):
    """Σ dy · ∂f/∂x by central differences, in float64."""
    x = x.astype(np.float64)
    grad = np.zeros_like(x)
    flat = x.reshape(-1)
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + h
        plus = f(x)
        flat[i] = old - h
        minus = f(x)
        flat[i] = old
        grad.reshape(-1)[i] = np.sum(dy * (plus - minus)) / (2 * h)
    return grad


def f64(*arrays):
    return [a.astype(np.float64) for a in arrays]


# --- cases ------------------------------------------------------------------

def linear_algebra():
    a, b = rand(5, 7), rand(7, 3)
    for tl in (False, True):
        for tr in (False, True):
            lhs = a.T.copy() if tl else a
            rhs = b.T.copy() if tr else b
            flags = (' transpose_lhs' if tl else '') + (' transpose_rhs' if tr else '')
            case(f'matmul{flags}', [lhs, rhs],
                 f'{{out0}} = mp.matmul {{in0}}, {{in1}}{flags} acc(f32) : '
                 f'{mlir_type(lhs.shape, "f32")}, {mlir_type(rhs.shape, "f32")} -> '
                 f'tensor<5x3xf32>', [a.astype(np.float64) @ b])
    q, k = rand(2, 3, 4, 5), rand(2, 3, 6, 5)
    case('batch_matmul transpose_rhs', [q, k],
         '{out0} = mp.batch_matmul {in0}, {in1} transpose_rhs acc(f32) : '
         'tensor<2x3x4x5xf32>, tensor<2x3x6x5xf32> -> tensor<2x3x4x6xf32>',
         [np.einsum('abik,abjk->abij', *f64(q, k))])
    qq, kk = rand(3, 5, 4), rand(3, 5, 2)
    case('batch_matmul transpose_lhs', [qq, kk],
         '{out0} = mp.batch_matmul {in0}, {in1} transpose_lhs acc(f32) : '
         'tensor<3x5x4xf32>, tensor<3x5x2xf32> -> tensor<3x4x2xf32>',
         [np.einsum('bki,bkj->bij', *f64(qq, kk))])
    x, w, bias = rand(2, 3, 6), rand(4, 6), rand(4)
    case('linear bias', [x, w, bias],
         '{out0} = mp.linear {in0}, {in1}, {in2} acc(f32) : (tensor<2x3x6xf32>, '
         'tensor<4x6xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>',
         [x.astype(np.float64) @ w.T.astype(np.float64) + bias])
    x1 = rand(6)
    case('linear rank 1', [x1, w],
         '{out0} = mp.linear {in0}, {in1} acc(f32) : (tensor<6xf32>, '
         'tensor<4x6xf32>) -> tensor<4xf32>', [w.astype(np.float64) @ x1])
    # int8 matmul accumulating in i32.
    ia = RNG.integers(-128, 128, (3, 4)).astype(np.int64)
    ib = RNG.integers(-128, 128, (4, 2)).astype(np.int64)
    case('matmul i8', [(ia, 'i8'), (ib, 'i8')],
         '{out0} = mp.matmul {in0}, {in1} acc(i32) : tensor<3x4xi8>, '
         'tensor<4x2xi8> -> tensor<3x2xi32>', [(ia @ ib, 'i32')], rtol=0, atol=0)
    # TF32: operands rounded to 10 mantissa bits, ties away from zero.
    ta = np.array([[1 + 2 ** -11, 1 + 2 ** -12, -(1 + 3 * 2 ** -11)]], np.float32)
    tb = np.ones((3, 1), np.float32)
    case('matmul tf32', [ta, tb],
         '{out0} = mp.matmul {in0}, {in1} acc(f32) compute tf32 : tensor<1x3xf32>, '
         'tensor<3x1xf32> -> tensor<1x1xf32>',
         [np.array([[(1 + 2 ** -10) + 1 - (1 + 2 ** -9)]])], rtol=0, atol=0)

    convs = [
        # (x shape, w shape, stride, pad, dil, groups, bias)
        ((2, 3, 6, 6), (4, 3, 3, 3), (1, 1), (1, 1), (1, 1), 1, True),
        ((1, 4, 8, 9), (6, 2, 3, 2), (2, 3), (1, 0), (2, 1), 2, False),
        ((1, 2, 4, 5), (3, 2, 1, 1), (1, 1), (1, 1), (1, 1), 1, False),
    ]
    for xs, ws, s, p, d, g, with_bias in convs:
        x, w = rand(*xs), rand(*ws)
        y = conv2d(*f64(x, w), s, p, d, g)
        attrs = (f'{{strides = array<i64: {s[0]}, {s[1]}>, padding = array<i64: '
                 f'{p[0]}, {p[1]}>, dilation = array<i64: {d[0]}, {d[1]}>, '
                 f'groups = {g} : i64}}')
        tag = f'conv2d s{s} p{p} d{d} g{g}'
        inputs = [x, w]
        operands = '{in0}, {in1}'
        types = f'{mlir_type(xs, "f32")}, {mlir_type(ws, "f32")}'
        if with_bias:
            bias = rand(ws[0])
            inputs.append(bias)
            operands += ', {in2}'
            types += f', tensor<{ws[0]}xf32>'
            y = y + bias[None, :, None, None]
        case(tag, inputs,
             f'{{out0}} = mp.conv2d {operands} acc(f32) {attrs} : ({types}) -> '
             f'{mlir_type(y.shape, "f32")}', [y], rtol=1e-4, atol=1e-5)
        dy = rand(*y.shape)
        case(tag.replace('conv2d', 'conv2d_grad_input'), [dy, w],
             f'{{out0}} = mp.conv2d_grad_input {{in0}}, {{in1}} acc(f32) {attrs} : '
             f'({mlir_type(dy.shape, "f32")}, {mlir_type(ws, "f32")}) -> '
             f'{mlir_type(xs, "f32")}',
             [conv2d_grad_input(*f64(dy, w), xs, s, p, d, g)], rtol=1e-4, atol=1e-5)
        case(tag.replace('conv2d', 'conv2d_grad_filter'), [dy, x],
             f'{{out0}} = mp.conv2d_grad_filter {{in0}}, {{in1}} acc(f32) {attrs} : '
             f'({mlir_type(dy.shape, "f32")}, {mlir_type(xs, "f32")}) -> '
             f'{mlir_type(ws, "f32")}',
             [conv2d_grad_filter(*f64(dy, x), ws, s, p, d, g)], rtol=1e-4, atol=1e-5)


def elementwise():
    a, b, c = rand(3, 4), rand(4), rand(3, 1)
    for op, fn in [('add', np.add), ('sub', np.subtract), ('mul', np.multiply),
                   ('maximum', np.maximum), ('minimum', np.minimum)]:
        case(f'{op} broadcast', [a, b],
             f'{{out0}} = mp.{op} {{in0}}, {{in1}} : tensor<3x4xf32>, tensor<4xf32>',
             [fn(*f64(a, b))])
    case('div broadcast unit dim', [c, b],
         '{out0} = mp.div {in0}, {in1} : tensor<3x1xf32>, tensor<4xf32>',
         [np.divide(*f64(c, b))])
    pa, pb = rand(3, 4, low=0.5, high=2.0), rand(3, 4)
    case('pow', [pa, pb], '{out0} = mp.pow {in0}, {in1} : tensor<3x4xf32>, '
         'tensor<3x4xf32>', [np.power(*f64(pa, pb))])
    pos = rand(3, 4, low=0.1, high=3.0)
    for op, fn, x in [('neg', np.negative, a), ('relu', lambda v: np.maximum(v, 0), a),
                      ('tanh', np.tanh, a), ('sigmoid', lambda v: 1 / (1 + np.exp(-v)), a),
                      ('exp', np.exp, a), ('log', np.log, pos), ('sqrt', np.sqrt, pos),
                      ('rsqrt', lambda v: 1 / np.sqrt(v), pos)]:
        case(op, [x], f'{{out0}} = mp.{op} {{in0}} : tensor<3x4xf32>',
             [fn(x.astype(np.float64))])
    for approx in (False, True):
        suffix = ' approximate tanh' if approx else ''
        case(f'gelu{suffix}', [a], f'{{out0}} = mp.gelu {{in0}}{suffix} : tensor<3x4xf32>',
             [gelu(a, approx)])
        dy = rand(3, 4)
        grad = numeric_vjp(lambda v: gelu(v, approx), a, dy.astype(np.float64))
        case(f'gelu_grad{suffix}', [dy, a],
             f'{{out0}} = mp.gelu_grad {{in0}}, {{in1}}{suffix} : tensor<3x4xf32>',
             [grad], rtol=1e-3, atol=1e-4)
    dy = rand(3, 4)
    case('relu_grad', [dy, a], '{out0} = mp.relu_grad {in0}, {in1} : tensor<3x4xf32>',
         [np.where(a > 0, dy, 0).astype(np.float64)])


def reductions():
    x = rand(3, 4, 5)
    for op, fn in [('reduce_sum', np.sum), ('reduce_mean', np.mean), ('reduce_max', np.max)]:
        case(f'{op} dims [2, 0]', [x],
             f'{{out0}} = mp.{op} {{in0}} dims [2, 0] : tensor<3x4x5xf32>',
             [fn(x.astype(np.float64), axis=(0, 2))])
        case(f'{op} keepdims', [x],
             f'{{out0}} = mp.{op} {{in0}} dims [1] keepdims : tensor<3x4x5xf32>',
             [fn(x.astype(np.float64), axis=1, keepdims=True)])
    case('softmax dim 1', [x], '{out0} = mp.softmax {in0} dim 1 : tensor<3x4x5xf32>',
         [softmax(x.astype(np.float64), 1)])
    case('log_softmax dim 2', [x], '{out0} = mp.log_softmax {in0} dim 2 : tensor<3x4x5xf32>',
         [np.log(softmax(x.astype(np.float64), 2))])
    w, b = rand(4, 5), rand(4, 5)
    case('layer_norm axis 1', [x, w, b],
         '{out0} = mp.layer_norm {in0} weight {in1} bias {in2} axis 1 eps 1.0e-05 : '
         '(tensor<3x4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<3x4x5xf32>',
         [layer_norm(*f64(x), 1, 1e-5, *f64(w, b))], rtol=1e-4, atol=1e-5)
    case('layer_norm no affine', [x],
         '{out0} = mp.layer_norm {in0} axis 2 eps 1.0e-05 : (tensor<3x4x5xf32>) -> '
         'tensor<3x4x5xf32>', [layer_norm(*f64(x), 2, 1e-5)], rtol=1e-4, atol=1e-5)
    w5 = rand(5)
    case('rms_norm axis 2', [x, w5],
         '{out0} = mp.rms_norm {in0} weight {in1} axis 2 eps 1.0e-06 : '
         '(tensor<3x4x5xf32>, tensor<5xf32>) -> tensor<3x4x5xf32>',
         [rms_norm(*f64(x), 2, 1e-6, *f64(w5))], rtol=1e-4, atol=1e-5)


def shape():
    x = rand(2, 3, 4)
    case('transpose', [x], '{out0} = mp.transpose {in0} perm [2, 0, 1] : tensor<2x3x4xf32>',
         [x.transpose(2, 0, 1).astype(np.float64)], rtol=0, atol=0)
    case('reshape', [x], '{out0} = mp.reshape {in0} : tensor<2x3x4xf32> to tensor<4x6xf32>',
         [x.reshape(4, 6).astype(np.float64)], rtol=0, atol=0)
    y = rand(3, 1)
    case('broadcast', [y], '{out0} = mp.broadcast {in0} : tensor<3x1xf32> to tensor<2x3x5xf32>',
         [np.broadcast_to(y, (2, 3, 5)).astype(np.float64)], rtol=0, atol=0)
    z = rand(2, 1, 4)
    case('concat', [x, z], '{out0} = mp.concat {in0}, {in1} dim 1 : tensor<2x3x4xf32>, '
         'tensor<2x1x4xf32>', [np.concatenate([x, z], 1).astype(np.float64)], rtol=0, atol=0)
    case('slice strided', [x], '{out0} = mp.slice {in0} offsets [1, 0, 1] sizes [1, 2, 2] '
         'strides [1, 2, 2] : tensor<2x3x4xf32>',
         [x[1:2, 0:3:2, 1:4:2].astype(np.float64)], rtol=0, atol=0)
    dy = rand(1, 2, 2)
    expected = np.zeros((2, 3, 4))
    expected[1:2, 0:3:2, 1:4:2] = dy
    case('slice_grad', [dy], '{out0} = mp.slice_grad {in0} offsets [1, 0, 1] sizes [1, 2, 2] '
         'strides [1, 2, 2] : tensor<1x2x2xf32> to tensor<2x3x4xf32>', [expected],
         rtol=0, atol=0)
    table = rand(6, 3)
    ids = np.array([[5, 0], [2, 5]], np.int64)
    case('embedding', [table, (ids, 'i64')],
         '{out0} = mp.embedding {in0}[{in1}] : tensor<6x3xf32>, tensor<2x2xi64>',
         [table[ids].astype(np.float64)], rtol=0, atol=0)
    dy = rand(2, 2, 3)
    expected = np.zeros((6, 3))
    np.add.at(expected, ids.reshape(-1), dy.reshape(-1, 3).astype(np.float64))
    case('embedding_grad repeated', [dy, (ids, 'i64')],
         '{out0} = mp.embedding_grad {in0}, {in1} : (tensor<2x2x3xf32>, tensor<2x2xi64>) '
         '-> tensor<6x3xf32>', [expected])


def losses():
    logits = rand(4, 5)
    labels = np.array([1, 0, 4, 2], np.int64)
    p = softmax(logits.astype(np.float64), 1)
    ce = -np.mean(np.log(p[np.arange(4), labels]))
    case('cross_entropy', [logits, (labels, 'i64')],
         '{out0} = mp.cross_entropy {in0}, {in1} : tensor<4x5xf32>, tensor<4xi64>', [ce])
    dl = np.array(1.5, np.float32)
    onehot = np.eye(5)[labels]
    case('cross_entropy_grad', [dl, logits, (labels, 'i64')],
         '{out0} = mp.cross_entropy_grad {in0}, {in1}, {in2} : (tensor<f32>, '
         'tensor<4x5xf32>, tensor<4xi64>) -> tensor<4x5xf32>', [(p - onehot) * 1.5 / 4])
    x, t = rand(3, 4), rand(3, 4)
    case('mse', [x, t], '{out0} = mp.mse {in0}, {in1} : tensor<3x4xf32>',
         [np.mean((x.astype(np.float64) - t) ** 2)])


def backward():
    a = rand(3, 4)
    b = rand(4)
    a[0, 1] = b[1]  # a tie: half the gradient each
    dy = rand(3, 4)
    for op, lhs_wins in [('maximum_grad', lambda l, r: l > r), ('minimum_grad', lambda l, r: l < r)]:
        tie = a == b
        da = np.where(tie, dy / 2, np.where(lhs_wins(a, b), dy, 0))
        db = np.where(tie, dy / 2, np.where(lhs_wins(a, b), 0, dy))
        case(op, [dy, a, b],
             f'{{out0}}, {{out1}} = mp.{op} {{in0}}, {{in1}}, {{in2}} : tensor<3x4xf32>, '
             'tensor<3x4xf32>, tensor<4xf32>', [da.astype(np.float64), db.astype(np.float64)])
    x = rand(3, 4)
    x[1, 2] = x[1, 0] = 3.0  # two maxima in row 1
    m = x.max(axis=1)
    dm = rand(3)
    count = (x == m[:, None]).sum(axis=1)
    case('reduce_max_grad ties', [dm, x, m],
         '{out0} = mp.reduce_max_grad {in0}, {in1}, {in2} dims [1] : tensor<3xf32>, '
         'tensor<3x4xf32>', [np.where(x == m[:, None], (dm / count)[:, None], 0)])
    case('reduce_max_grad keepdims', [dm.reshape(3, 1), x, m.reshape(3, 1)],
         '{out0} = mp.reduce_max_grad {in0}, {in1}, {in2} dims [1] keepdims : '
         'tensor<3x1xf32>, tensor<3x4xf32>',
         [np.where(x == m[:, None], (dm / count)[:, None], 0)])
    y = softmax(rand(3, 4).astype(np.float64), 1).astype(np.float32)
    case('softmax_grad', [dy, y], '{out0} = mp.softmax_grad {in0}, {in1} dim 1 : '
         'tensor<3x4xf32>', [y * (dy - (dy * y).sum(1, keepdims=True))])
    ly = np.log(y)
    case('log_softmax_grad', [dy, ly], '{out0} = mp.log_softmax_grad {in0}, {in1} dim 1 : '
         'tensor<3x4xf32>', [dy - np.exp(ly.astype(np.float64)) * dy.sum(1, keepdims=True)])

    x3, w, dy3 = rand(2, 3, 4), rand(3, 4), rand(2, 3, 4)
    d64 = dy3.astype(np.float64)
    case('layer_norm_grad', [dy3, x3, w],
         '{out0}, {out1}, {out2} = mp.layer_norm_grad {in0}, {in1} weight {in2} axis 1 '
         'eps 1.0e-05 : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<3x4xf32>) -> '
         '(tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>)',
         [numeric_vjp(lambda v: layer_norm(v, 1, 1e-5, w), x3, d64),
          numeric_vjp(lambda v: layer_norm(x3.astype(np.float64), 1, 1e-5, v), w, d64),
          d64.sum(0)], rtol=2e-3, atol=2e-4)
    case('layer_norm_grad no weight', [dy3, x3],
         '{out0}, {out1}, {out2} = mp.layer_norm_grad {in0}, {in1} axis 2 eps 1.0e-05 : '
         '(tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<4xf32>, '
         'tensor<4xf32>)',
         [numeric_vjp(lambda v: layer_norm(v, 2, 1e-5), x3, d64),
          (d64 * layer_norm(x3.astype(np.float64), 2, 1e-5)).sum((0, 1)),
          d64.sum((0, 1))], rtol=2e-3, atol=2e-4)
    w4 = rand(4)
    case('rms_norm_grad', [dy3, x3, w4],
         '{out0}, {out1} = mp.rms_norm_grad {in0}, {in1} weight {in2} axis 2 eps 1.0e-06 : '
         '(tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<4xf32>) -> (tensor<2x3x4xf32>, '
         'tensor<4xf32>)',
         [numeric_vjp(lambda v: rms_norm(v, 2, 1e-6, w4), x3, d64),
          numeric_vjp(lambda v: rms_norm(x3.astype(np.float64), 2, 1e-6, v), w4, d64)],
         rtol=2e-3, atol=2e-4)


def precision_and_training():
    x = rand(3, 4)
    s = np.array(0.125, np.float32)
    case('scale', [x, s], '{out0} = mp.scale {in0} by {in1} : tensor<3x4xf32>',
         [x.astype(np.float64) * 0.125], rtol=0, atol=0)
    g2 = rand(5)
    g2[3] = np.inf
    case('all_finite', [x, g2], '{out0} = mp.all_finite {in0}, {in1} : tensor<3x4xf32>, '
         'tensor<5xf32>', [(np.array(False), 'i1')], rtol=0, atol=0)
    case('all_finite true', [x, x], '{out0} = mp.all_finite {in0}, {in1} : tensor<3x4xf32>, '
         'tensor<3x4xf32>', [(np.array(True), 'i1')], rtol=0, atol=0)
    case('amax', [x], '{out0} = mp.amax {in0} : tensor<3x4xf32>',
         [np.abs(x).max().astype(np.float64)], rtol=0, atol=0)
    # NaN elements are ignored (Transformer Engine's fmaxf amax kernels);
    # all NaN gives 0, an infinity gives +inf.
    xn = x.copy()
    xn[1, 2] = np.nan
    xn[2, 0] = -np.nan
    case('amax ignores NaN', [xn], '{out0} = mp.amax {in0} : tensor<3x4xf32>',
         [np.nanmax(np.abs(xn)).astype(np.float64)], rtol=0, atol=0)
    case('amax all NaN', [np.full((3, 4), np.nan, np.float32)],
         '{out0} = mp.amax {in0} : tensor<3x4xf32>', [np.float64(0.0)],
         rtol=0, atol=0)
    xi = xn.copy()
    xi[0, 3] = -np.inf
    case('amax NaN and inf', [xi], '{out0} = mp.amax {in0} : tensor<3x4xf32>',
         [np.float64(np.inf)], rtol=0, atol=0)
    hist = rand(5, low=0.0, high=8.0)
    amax = np.array(3.5, np.float32)
    case('amax_history_push', [hist, amax],
         '{out0} = mp.amax_history_push {in0}, {in1} : tensor<5xf32>',
         [np.concatenate([[3.5], hist[:-1]]).astype(np.float64)], rtol=0, atol=0)
    scale = np.array(2.0, np.float32)
    case('fp8_scale max margin 1', [hist, scale],
         '{out0} = mp.fp8_scale {in0}, {in1} format e4m3 {margin = 1 : i64} : tensor<5xf32>',
         [np.float64(np.float32(np.float32(448.0) / hist.max()) / np.float32(2.0))],
         rtol=0, atol=0)
    case('fp8_scale most_recent', [hist, scale],
         '{out0} = mp.fp8_scale {in0}, {in1} format e5m2 amax_compute most_recent : '
         'tensor<5xf32>', [np.float64(np.float32(57344.0) / hist[0])], rtol=0, atol=0)
    zeros = np.zeros(5, np.float32)
    case('fp8_scale zero amax keeps scale', [zeros, scale],
         '{out0} = mp.fp8_scale {in0}, {in1} format e4m3 : tensor<5xf32>', [2.0],
         rtol=0, atol=0)

    # update_loss_scale: (scale, tracker, found_inf) -> (scale, tracker).
    for found, tracker, attrs, expected in [
            (False, 5, '', (65536.0, 6)),
            (False, 1999, '', (131072.0, 0)),
            (True, 1999, '', (32768.0, 0)),
            (True, 3, '{min_scale = 4.0e+04 : f64}', (40000.0, 0)),
            (False, 2, '{growth_interval = 3 : i64, max_scale = 1.0e+05 : f64}',
             (100000.0, 0))]:
        case(f'update_loss_scale found={found} tracker={tracker} {attrs}',
             [np.array(65536.0, np.float32), (np.array(tracker), 'i32'),
              (np.array(found), 'i1')],
             f'{{out0}}, {{out1}} = mp.update_loss_scale {{in0}}, {{in1}}, {{in2}} {attrs}',
             [expected[0], (np.array(expected[1]), 'i32')], rtol=0, atol=0)
    for found, hyst, expected in [(True, 2, (65536.0, 0, 1)), (True, 1, (32768.0, 0, 0)),
                                  (False, 1, (65536.0, 3, 1))]:
        case(f'update_loss_scale hysteresis found={found} tracker={hyst}',
             [np.array(65536.0, np.float32), (np.array(2), 'i32'), (np.array(found), 'i1'),
              (np.array(hyst), 'i32')],
             '{out0}, {out1}, {out2} = mp.update_loss_scale {in0}, {in1}, {in2} '
             'hysteresis_tracker {in3} {hysteresis = 2 : i64}',
             [expected[0], (np.array(expected[1]), 'i32'), (np.array(expected[2]), 'i32')],
             rtol=0, atol=0)

    p, g, buf = rand(6), rand(6), rand(6)
    p64, g64, b64 = f64(p, g, buf)
    gd = g64 + 1e-2 * p64
    nb = 0.9 * b64 + 0.75 * gd
    case('sgd momentum dampening wd', [p, g, buf, (np.array(2), 'i64')],
         '{out0}, {out1} = mp.sgd {in0}, {in1} momentum_buffer {in2} step({in3} : tensor<i64>) '
         '{lr = 0.1 : f64, momentum = 0.9 : f64, dampening = 0.25 : f64, '
         'weight_decay = 1.0e-2 : f64} : tensor<6xf32>, tensor<6xf32>', [p64 - 0.1 * nb, nb])
    # The first step (step 1) sets the buffer to the gradient, undampened.
    case('sgd momentum dampening first step', [p, g, buf, (np.array(1), 'i64')],
         '{out0}, {out1} = mp.sgd {in0}, {in1} momentum_buffer {in2} step({in3} : tensor<i64>) '
         '{lr = 0.1 : f64, momentum = 0.9 : f64, dampening = 0.25 : f64, '
         'weight_decay = 1.0e-2 : f64} : tensor<6xf32>, tensor<6xf32>', [p64 - 0.1 * gd, gd])
    nb2 = 0.9 * b64 + gd
    case('sgd nesterov', [p, g, buf],
         '{out0}, {out1} = mp.sgd {in0}, {in1} momentum_buffer {in2} {lr = 0.1 : f64, '
         'momentum = 0.9 : f64, nesterov, weight_decay = 1.0e-2 : f64} : '
         'tensor<6xf32>, tensor<6xf32>', [p64 - 0.1 * (gd + 0.9 * nb2), nb2])
    case('sgd plain', [p, g], '{out0} = mp.sgd {in0}, {in1} {lr = 0.5 : f64} : tensor<6xf32>',
         [p64 - 0.5 * g64])
    m, v = rand(6), rand(6, low=0.0, high=1.0)
    m64, v64 = f64(m, v)
    for op, wd in [('adam', 0.1), ('adamw', 0.1)]:
        step = 3
        lr, b1, b2, eps = 1e-2, 0.9, 0.999, 1e-8
        gg = g64 + wd * p64 if op == 'adam' else g64
        pp = p64 * (1 - lr * wd) if op == 'adamw' else p64
        nm = b1 * m64 + (1 - b1) * gg
        nv = b2 * v64 + (1 - b2) * gg * gg
        np_ = pp - lr * (nm / (1 - b1 ** step)) / (np.sqrt(nv / (1 - b2 ** step)) + eps)
        case(f'{op} step 3', [p, g, m, v, (np.array(step), 'i64')],
             f'{{out0}}, {{out1}}, {{out2}} = mp.{op} {{in0}}, {{in1}}, {{in2}}, {{in3}}, '
             f'{{in4}} {{lr = 1.0e-02 : f64, weight_decay = {wd} : f64}} : tensor<6xf32>, '
             'tensor<i64>', [np_, nm, nv])


def to_bf16(x):
    """Rounds f32 values to bf16 (nearest even), returned as f32."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def narrow_types():
    """Narrow inputs (cast from f32 in the test), f32 statistics and
    accumulation, results cast back to f32 for printing; the reference uses
    the rounded inputs and allows the final rounding to the narrow type."""
    x = rand(4, 6)
    xh = x.astype(np.float16).astype(np.float64)
    case('softmax f16', [x],
         '%h = mp.cast {in0} : tensor<4x6xf32> to tensor<4x6xf16>\n'
         '  %s = mp.softmax %h dim 1 : tensor<4x6xf16>\n'
         '  {out0} = mp.cast %s : tensor<4x6xf16> to tensor<4x6xf32>',
         [softmax(xh, 1)], rtol=1e-3, atol=1e-4)
    w, b = rand(6), rand(6)
    xb, wb, bb = (to_bf16(v).astype(np.float64) for v in (x, w, b))
    case('layer_norm bf16', [x, w, b],
         '%h = mp.cast {in0} : tensor<4x6xf32> to tensor<4x6xbf16>\n'
         '  %w = mp.cast {in1} : tensor<6xf32> to tensor<6xbf16>\n'
         '  %b = mp.cast {in2} : tensor<6xf32> to tensor<6xbf16>\n'
         '  %y = mp.layer_norm %h weight %w bias %b axis 1 eps 1.0e-05 : (tensor<4x6xbf16>, '
         'tensor<6xbf16>, tensor<6xbf16>) -> tensor<4x6xbf16>\n'
         '  {out0} = mp.cast %y : tensor<4x6xbf16> to tensor<4x6xf32>',
         [layer_norm(xb, 1, 1e-5, wb, bb)], rtol=1e-2, atol=1e-2)
    a, m = rand(4, 64), rand(64, 3)
    ah, mh = (v.astype(np.float16).astype(np.float64) for v in (a, m))
    case('matmul f16 acc f32', [a, m],
         '%a = mp.cast {in0} : tensor<4x64xf32> to tensor<4x64xf16>\n'
         '  %m = mp.cast {in1} : tensor<64x3xf32> to tensor<64x3xf16>\n'
         '  %p = mp.matmul %a, %m acc(f32) : tensor<4x64xf16>, tensor<64x3xf16> -> '
         'tensor<4x3xf16>\n'
         '  {out0} = mp.cast %p : tensor<4x3xf16> to tensor<4x3xf32>',
         [(ah @ mh).astype(np.float16).astype(np.float64)], rtol=1e-3, atol=1e-3)
    labels = np.array([0, 5, 2, 1], np.int64)
    p = softmax(xh, 1)
    case('cross_entropy f16', [x, (labels, 'i64')],
         '%h = mp.cast {in0} : tensor<4x6xf32> to tensor<4x6xf16>\n'
         '  %l = mp.cross_entropy %h, {in1} : tensor<4x6xf16>, tensor<4xi64>\n'
         '  {out0} = mp.cast %l : tensor<f16> to tensor<f32>',
         [-np.mean(np.log(p[np.arange(4), labels]))], rtol=1e-3, atol=1e-3)
    x3 = rand(2, 3, 4)
    case('layer_norm axis 0 (0-d statistics)', [x3],
         '{out0} = mp.layer_norm {in0} axis 0 eps 1.0e-05 : (tensor<2x3x4xf32>) -> '
         'tensor<2x3x4xf32>', [layer_norm(*f64(x3), 0, 1e-5)], rtol=1e-4, atol=1e-5)


# --- driver -------------------------------------------------------------------

def main():
    mp_opt, lowering, runner = sys.argv[1:4]
    for family in (linear_algebra, elementwise, reductions, shape, losses, backward,
                   precision_and_training, narrow_types):
        family()
    cases = [mp_exec.Case(c.name, c.inputs, c.body,
                          [(np.shape(o[0]), o[1]) for o in c.outputs])
             for c in CASES]
    try:
        results = mp_exec.execute(cases, mp_opt, lowering, runner,
                                  passes=['--convert-mp-to-linalg'])
    except mp_exec.ExecutionError as error:
        sys.exit(str(error))
    failures = 0
    for c, outputs in zip(CASES, results):
        problems = []
        for j, (expected, element, rtol, atol) in enumerate(c.outputs):
            got = outputs[j].reshape(-1)
            want = np.asarray(expected, dtype=np.float64).reshape(-1)
            if got.shape != want.shape or not np.allclose(got, want, rtol=rtol, atol=atol):
                err = np.max(np.abs(got - want)) if got.shape == want.shape else 'shape'
                problems.append(f'result {j}: max error {err}\n    got  {got}\n'
                                f'    want {want}')
        if problems:
            failures += 1
            print(f'FAIL {c.name}')
            for p in problems:
                print('  ' + p)
        else:
            print(f'ok {c.name}')
    print(f'{len(CASES)} cases, {failures} failed')
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()
