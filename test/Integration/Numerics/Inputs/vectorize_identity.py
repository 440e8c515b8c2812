"""A mixed-precision train step executed under several CPU lowerings, whose
outputs must be identical bit for bit: the bits do not depend on tiling or
vectorisation.

The step is a small pre-LayerNorm attention + MLP block in the form
mp-autocast gives it, written out with explicit casts, once per compute
type (f16, bf16, and f32 without casts): layer norm and softmax in f32;
the linear layers and batch matmuls on 16-bit operands accumulating in
f32; tanh GELU; cross entropy; mp.grad of the loss with respect to every
weight (f32 masters, through the casts); one AdamW step of every weight.
It has reductions of every kind the lowering tiles: contractions over
contiguous and strided K (A·B, A·Bᵀ and the transposed-LHS weight
gradients), row reductions (layer norm, softmax, cross entropy),
column reductions (bias gradients) and full reductions (the loss). The
sizes are not multiples of the vector lengths, so tiles shrink to divisors.

A second step per compute type is a small convolutional net (conv_case):
a strided padded convolution with bias (8 filters: the pixel-major im2col
product), ReLU, a depthwise convolution (filter-major), and a strided
convolution to 12 channels whose input gradient is a pixel-major product
of the dilated gradient; cross entropy over its pixels; mp.grad of every
filter and the bias, which are the outputs.

A third step per compute type (matmul_case, only with --cases matmul) has
contractions large enough to be packed into panels under every register
tile (M 64, K 48, N 96 and their gradients): two linear layers, ReLU, cross
entropy and the weight gradients, to compare register tiles.

usage: vectorize_identity.py [--cases step,conv,matmul] MP_OPT RUNNER
           LOWERING [LOWERING...]
Each LOWERING is "PASSES|LOWER" (as for random_stream.py): mp-opt passes
before the lowering and the lowering to LLVM; every one after the first is
compared with the first. Prints one line per compute type and lowering.
--cases picks the steps (default step,conv).
"""

import os
import shlex
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', 'Inputs'))
import mp_exec  # noqa: E402

B, S, D, H, F, V = 2, 6, 24, 2, 40, 20
HD, T = D // H, B * S
WEIGHTS = [('wq', (D, D)), ('wk', (D, D)), ('wv', (D, D)), ('w1', (F, D)),
           ('b1', (F,)), ('w2', (V, F))]


def t(shape, element):
    return mp_exec.mlir_type(shape, element)


def step_case(ct, rng):
    """The train step of compute type `ct` as an mp_exec.Case."""
    inputs = [(rng.standard_normal((T, D)).astype(np.float32), 'f32'),
              (1 + 0.1 * rng.standard_normal(D).astype(np.float32), 'f32'),
              (0.1 * rng.standard_normal(D).astype(np.float32), 'f32')]
    for _, shape in WEIGHTS:
        inputs.append(((rng.standard_normal(shape) / np.sqrt(shape[-1]))
                       .astype(np.float32), 'f32'))
    inputs.append((rng.integers(0, V, T).astype(np.int64), 'i64'))
    inputs.append((np.array(4, dtype=np.int64), 'i64'))
    n = {name: '{in%d}' % (3 + i) for i, (name, _) in enumerate(WEIGHTS)}
    labels, step = '{in%d}' % (3 + len(WEIGHTS)), '{in%d}' % (4 + len(WEIGHTS))

    lines = []
    emit = lines.append

    def cast(value, shape, source, target, suffix):
        """`value` (of element type `source`) as `target`."""
        if ct == 'f32':
            return value
        name = value.strip('{}%') + suffix
        emit(f'%{name} = mp.cast {value} : {t(shape, source)} to '
             f'{t(shape, target)}')
        return '%' + name

    def low(value, shape):
        return cast(value, shape, 'f32', ct, '_c')

    def high(value, shape):
        return cast(value, shape, ct, 'f32', '_f')

    emit(f'%h = mp.layer_norm {{in0}} weight {{in1}} bias {{in2}} axis 1 '
         f'eps 1.0e-05 : ({t((T, D), "f32")}, {t((D,), "f32")}, '
         f'{t((D,), "f32")}) -> {t((T, D), "f32")}')
    h = low('%h', (T, D))
    heads = {}
    for name in 'qkv':
        w = low(n['w' + name], (D, D))
        emit(f'%{name} = mp.linear {h}, {w} acc(f32) : ({t((T, D), ct)}, '
             f'{t((D, D), ct)}) -> {t((T, D), ct)}')
        emit(f'%{name}4 = mp.reshape %{name} : {t((T, D), ct)} to '
             f'{t((B, S, H, HD), ct)}')
        emit(f'%{name}h = mp.transpose %{name}4 perm [0, 2, 1, 3] : '
             f'{t((B, S, H, HD), ct)}')
        heads[name] = f'%{name}h'
    bh = t((B, H, S, HD), ct)
    emit(f'%scores = mp.batch_matmul {heads["q"]}, {heads["k"]} transpose_rhs '
         f'acc(f32) : {bh}, {bh} -> {t((B, H, S, S), ct)}')
    scores = high('%scores', (B, H, S, S))
    emit(f'%probs = mp.softmax {scores} dim 3 : {t((B, H, S, S), "f32")}')
    probs = low('%probs', (B, H, S, S))
    emit(f'%ctxh = mp.batch_matmul {probs}, {heads["v"]} acc(f32) : '
         f'{t((B, H, S, S), ct)}, {bh} -> {bh}')
    emit(f'%ctx4 = mp.transpose %ctxh perm [0, 2, 1, 3] : {bh}')
    emit(f'%ctx = mp.reshape %ctx4 : {t((B, S, H, HD), ct)} to {t((T, D), ct)}')
    w1, b1 = low(n['w1'], (F, D)), low(n['b1'], (F,))
    emit(f'%up = mp.linear %ctx, {w1}, {b1} acc(f32) : ({t((T, D), ct)}, '
         f'{t((F, D), ct)}, {t((F,), ct)}) -> {t((T, F), ct)}')
    emit(f'%act = mp.gelu %up approximate tanh : {t((T, F), ct)}')
    w2 = low(n['w2'], (V, F))
    emit(f'%logits = mp.linear %act, {w2} acc(f32) : ({t((T, F), ct)}, '
         f'{t((V, F), ct)}) -> {t((T, V), ct)}')
    logits = high('%logits', (T, V))
    emit(f'%loss = mp.cross_entropy {logits}, {labels} : '
         f'{t((T, V), "f32")}, {t((T,), "i64")}')
    grads = ['%d_' + name for name, _ in WEIGHTS]
    emit(f'{", ".join(grads)} = mp.grad %loss wrt '
         f'{", ".join(n[name] for name, _ in WEIGHTS)} : tensor<f32>, '
         f'{", ".join(t(shape, "f32") for _, shape in WEIGHTS)}')
    emit('%one = arith.constant dense<1> : tensor<i64>')
    emit(f'%step1 = arith.addi {step}, %one : tensor<i64>')
    emit('{out0} = mp.add %loss, %loss : tensor<f32>, tensor<f32>')
    outputs = [((), 'f32')]
    for i, (name, shape) in enumerate(WEIGHTS):
        emit(f'%zero_{name} = arith.constant dense<0.0> : {t(shape, "f32")}')
        emit(f'%ms_{name} = mp.mul {grads[i]}, {grads[i]} : '
             f'{t(shape, "f32")}, {t(shape, "f32")}')
        emit(f'{{out{3 * i + 1}}}, {{out{3 * i + 2}}}, {{out{3 * i + 3}}} = '
             f'mp.adamw {n[name]}, {grads[i]}, {grads[i]}, %ms_{name}, %step1 '
             f'{{lr = 1.0e-02 : f64, beta1 = 9.0e-01 : f64, beta2 = 9.5e-01 : '
             f'f64, eps = 1.0e-08 : f64, weight_decay = 1.0e-01 : f64}} : '
             f'{t(shape, "f32")}, tensor<i64>')
        outputs += [(shape, 'f32')] * 3
    return mp_exec.Case('step_' + ct, inputs, '\n  '.join(lines), outputs)


CONV = [('w1', (8, 3, 3, 3)), ('b1', (8,)), ('w2', (8, 1, 3, 3)),
        ('w3', (12, 8, 3, 3))]


def conv_case(ct, rng):
    """The convolutional step of compute type `ct` as an mp_exec.Case."""
    N, X = 2, (2, 3, 9, 9)
    inputs = [(rng.standard_normal(X).astype(np.float32), 'f32')]
    for _, shape in CONV:
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
        inputs.append(((rng.standard_normal(shape) / np.sqrt(fan_in))
                       .astype(np.float32), 'f32'))
    inputs.append((rng.integers(0, 12, N * 9).astype(np.int64), 'i64'))
    lines = []
    emit = lines.append

    def low(value, shape):
        if ct == 'f32':
            return value
        name = value.strip('{}%') + '_c'
        emit(f'%{name} = mp.cast {value} : {t(shape, "f32")} to '
             f'{t(shape, ct)}')
        return '%' + name

    x = low('{in0}', X)
    w1, b1 = low('{in1}', (8, 3, 3, 3)), low('{in2}', (8,))
    w2, w3 = low('{in3}', (8, 1, 3, 3)), low('{in4}', (12, 8, 3, 3))
    stride2 = 'padding = array<i64: 1, 1>, strides = array<i64: 2, 2>'
    emit(f'%c1 = mp.conv2d {x}, {w1}, {b1} acc(f32) {{{stride2}}} : '
         f'({t(X, ct)}, {t((8, 3, 3, 3), ct)}, {t((8,), ct)}) -> '
         f'{t((N, 8, 5, 5), ct)}')
    emit(f'%r1 = mp.relu %c1 : {t((N, 8, 5, 5), ct)}')
    emit(f'%c2 = mp.conv2d %r1, {w2} acc(f32) {{padding = array<i64: 1, 1>, '
         f'groups = 8 : i64}} : ({t((N, 8, 5, 5), ct)}, '
         f'{t((8, 1, 3, 3), ct)}) -> {t((N, 8, 5, 5), ct)}')
    emit(f'%c3 = mp.conv2d %c2, {w3} acc(f32) {{{stride2}}} : '
         f'({t((N, 8, 5, 5), ct)}, {t((12, 8, 3, 3), ct)}) -> '
         f'{t((N, 12, 3, 3), ct)}')
    emit(f'%c3f = mp.reshape %c3 : {t((N, 12, 3, 3), ct)} to '
         f'{t((N, 12, 9), ct)}')
    emit(f'%c3t = mp.transpose %c3f perm [0, 2, 1] : {t((N, 12, 9), ct)}')
    emit(f'%logits = mp.reshape %c3t : {t((N, 9, 12), ct)} to '
         f'{t((N * 9, 12), ct)}')
    logits = '%logits'
    if ct != 'f32':
        emit(f'%logits_f = mp.cast %logits : {t((N * 9, 12), ct)} to '
             f'{t((N * 9, 12), "f32")}')
        logits = '%logits_f'
    emit(f'%loss = mp.cross_entropy {logits}, {{in5}} : '
         f'{t((N * 9, 12), "f32")}, {t((N * 9,), "i64")}')
    emit(f'{{out1}}, {{out2}}, {{out3}}, {{out4}} = mp.grad %loss wrt '
         f'{{in1}}, {{in2}}, {{in3}}, {{in4}} : tensor<f32>, '
         f'{", ".join(t(shape, "f32") for _, shape in CONV)}')
    emit('{out0} = mp.add %loss, %loss : tensor<f32>, tensor<f32>')
    outputs = [((), 'f32')] + [(shape, 'f32') for _, shape in CONV]
    return mp_exec.Case('conv_' + ct, inputs, '\n  '.join(lines), outputs)


def matmul_case(ct, rng):
    """The two-layer linear step of compute type `ct` as an mp_exec.Case."""
    T, D, F, V = 64, 48, 96, 32
    shapes = [(T, D), (F, D), (V, F)]
    inputs = [((rng.standard_normal(shape) / np.sqrt(shape[-1]))
               .astype(np.float32), 'f32') for shape in shapes]
    inputs.append((rng.integers(0, V, T).astype(np.int64), 'i64'))
    lines = []
    emit = lines.append

    def cast(value, shape, source, target):
        if ct == 'f32':
            return value
        name = value.strip('{}%') + '_' + target
        emit(f'%{name} = mp.cast {value} : {t(shape, source)} to '
             f'{t(shape, target)}')
        return '%' + name

    x, w1 = cast('{in0}', (T, D), 'f32', ct), cast('{in1}', (F, D), 'f32', ct)
    w2 = cast('{in2}', (V, F), 'f32', ct)
    emit(f'%up = mp.linear {x}, {w1} acc(f32) : ({t((T, D), ct)}, '
         f'{t((F, D), ct)}) -> {t((T, F), ct)}')
    emit(f'%act = mp.relu %up : {t((T, F), ct)}')
    emit(f'%logits = mp.linear %act, {w2} acc(f32) : ({t((T, F), ct)}, '
         f'{t((V, F), ct)}) -> {t((T, V), ct)}')
    logits = cast('%logits', (T, V), ct, 'f32')
    emit(f'%loss = mp.cross_entropy {logits}, {{in3}} : '
         f'{t((T, V), "f32")}, {t((T,), "i64")}')
    emit(f'{{out1}}, {{out2}}, {{out3}} = mp.grad %loss wrt {{in0}}, {{in1}}, '
         f'{{in2}} : tensor<f32>, '
         f'{", ".join(t(shape, "f32") for shape in shapes)}')
    emit('{out0} = mp.add %loss, %loss : tensor<f32>, tensor<f32>')
    outputs = [((), 'f32')] + [(shape, 'f32') for shape in shapes]
    return mp_exec.Case('matmul_' + ct, inputs, '\n  '.join(lines), outputs)


CASES = {'step': ('', step_case), 'conv': ('conv ', conv_case),
         'matmul': ('matmul ', matmul_case)}


def main():
    args = sys.argv[1:]
    cases = ['step', 'conv']
    if args and args[0] == '--cases':
        cases, args = args[1].split(','), args[2:]
    mp_opt, runner = args[0], args[1]
    lowerings = args[2:]
    rng = np.random.default_rng(17)
    failures = 0
    for ct in ('f16', 'bf16', 'f32'):
        for kind, make in (CASES[case] for case in cases):
            module = mp_exec.build_module([make(ct, rng)])
            runs = []
            for lowering in lowerings:
                passes, lower = lowering.split('|', 1)
                runs.append(mp_exec.run_module(mp_opt, lower, runner, module,
                                               shlex.split(passes)))
            loss = mp_exec.from_bits(runs[0][0], 'f32')[0] / 2
            finite = all(np.isfinite(mp_exec.from_bits(r, 'f32')).all()
                         for r in runs[0])
            failures += not finite
            print(f'{kind}{ct}: loss {loss:.4f}, {len(runs[0])} tensors, '
                  f'{"finite" if finite else "NOT FINITE"}')
            for lowering, run in zip(lowerings[1:], runs[1:]):
                same = run == runs[0]
                failures += not same
                lower = lowering.split('|', 1)[1]
                label = lower if len(lower) < 72 else lower.split()[0] + ' ...'
                print(f'{kind}{ct}: {"identical" if same else "DIFFERENT"} '
                      f'under {label}')
    print(f'{failures} failures')
    return 1 if failures else 0


if __name__ == '__main__':
    raise SystemExit(main())
