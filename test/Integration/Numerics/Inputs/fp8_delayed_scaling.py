#!/usr/bin/env python3
"""Driver and reference of fp8-delayed-scaling.mlir.

  driver STEP.mlir   prints STEP.mlir (mp-fp8-scaling's output: the train step
                     with its FP8 state) with a @main that runs STEPS steps on
                     fixed data and prints, after each step, the bits of every
                     piece of FP8 state (amax histories and scales of x, w
                     and the gradient) and at the end the bits of w.
  check OUTPUT       replays the steps here, exactly: FP8 rounding with the
                     reference of float_conversions.py (fractions, nearest
                     even, saturating), the delayed-scaling formula, the f32
                     products of the lowering; compares every printed bit.

The step (see the .mlir): y = linear(x, w) in FP8 (x, w: E4M3), loss =
sum(y * k), so the output gradient is exactly k (E5M2); dw = dyᵀ·x in FP8;
sgd with lr 1/8. History length 4 (steps roll entries out), margin 1.
"""

import os
import re
import struct
import sys
from fractions import Fraction

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from float_conversions import Format  # noqa: E402

STEPS, BATCH, IN, OUT = 6, 4, 8, 16
HISTORY, MARGIN, LR = 4, 1, 0.125
E4M3 = Format('f8E4M3FN', 4, 3, True)
E5M2 = Format('f8E5M2', 5, 2, False)
MAX = {E4M3: np.float32(448.0), E5M2: np.float32(57344.0)}


def data():
    rng = np.random.default_rng(7)

    def table(shape, factors):
        # Magnitudes in [1/4, 1] with random signs, times a per-step factor,
        # so that the amax changes from step to step (and the history's max
        # differs from its most recent entry).
        values = rng.uniform(0.25, 1.0, shape) * rng.choice([-1.0, 1.0], shape)
        return (values * np.array(factors)[:, None, None]).astype(np.float32)

    x = table((STEPS, BATCH, IN), [1.0, 3.0, 0.5, 0.25, 2.0, 0.125])
    k = table((STEPS, BATCH, OUT), [1.0, 0.25, 4.0, 1.0, 0.5, 0.75])
    w = (rng.uniform(-1.0, 1.0, (OUT, IN))).astype(np.float32)
    return x, k, w


def dense(array):
    def fmt(a):
        if a.ndim == 1:
            return '[' + ', '.join('%.9e' % v for v in a) + ']'
        return '[' + ', '.join(fmt(b) for b in a) + ']'
    return 'dense<%s>' % fmt(array)


def driver(step_file):
    text = open(step_file).read().rstrip()
    assert text.endswith('}'), 'expected a module'
    x, k, w = data()
    lines = [text[:-1]]
    lines.append('''
  func.func private @print1(%t: tensor<f32>) {
    %v = tensor.extract %t[] : tensor<f32>
    %b = arith.bitcast %v : f32 to i32
    vector.print %b : i32
    return
  }
  func.func private @print4(%t: tensor<4xf32>) {
    %c0 = arith.constant 0 : index
    %z = arith.constant 0 : i32
    %b = arith.bitcast %t : tensor<4xf32> to tensor<4xi32>
    %v = vector.transfer_read %b[%c0], %z : tensor<4xi32>, vector<4xi32>
    vector.print %v : vector<4xi32>
    return
  }
  func.func @main() {''')
    lines.append('    %%w0 = arith.constant %s : tensor<16x8xf32>' % dense(w))
    lines.append('    %h = arith.constant dense<0.0> : tensor<4xf32>')
    lines.append('    %s = arith.constant dense<1.0> : tensor<f32>')
    state = ['%h', '%s'] * 3
    weight = '%w0'
    types = ', '.join(['tensor<4xf32>', 'tensor<f32>'] * 3)
    for step in range(STEPS):
        lines.append('    %%x%d = arith.constant %s : tensor<4x8xf32>'
                     % (step, dense(x[step])))
        lines.append('    %%k%d = arith.constant %s : tensor<4x16xf32>'
                     % (step, dense(k[step])))
        results = ['%%r%d_%d' % (step, i) for i in range(8)]
        lines.append('    %s = call @train_step(%s, %%x%d, %%k%d, %s) : '
                     '(tensor<16x8xf32>, tensor<4x8xf32>, tensor<4x16xf32>, '
                     '%s) -> (tensor<f32>, tensor<16x8xf32>, %s)'
                     % (', '.join(results), weight, step, step,
                        ', '.join(state), types, types))
        weight, state = results[1], results[2:]
        for value, kind in zip(state, ['4', '1'] * 3):
            lines.append('    call @print%s(%s) : (tensor<%sf32>) -> ()'
                         % (kind, value, '4x' if kind == '4' else ''))
    lines.append('''    %%c0 = arith.constant 0 : index
    %%z = arith.constant 0 : i32
    %%wb = arith.bitcast %s : tensor<16x8xf32> to tensor<16x8xi32>
    %%wf = tensor.collapse_shape %%wb [[0, 1]] : tensor<16x8xi32> into tensor<128xi32>
    %%wv = vector.transfer_read %%wf[%%c0], %%z : tensor<128xi32>, vector<128xi32>
    vector.print %%wv : vector<128xi32>
    return
  }
}''' % weight)
    print('\n'.join(lines))


def bits(value):
    return struct.unpack('<i', struct.pack('<f', np.float32(value)))[0]


def quantise(values, scale, fmt):
    """saturating_cast(values · scale) as exact fractions (f32 product)."""
    out = []
    for v in np.asarray(values, np.float32).ravel():
        p = np.float32(v) * np.float32(scale)
        code = fmt.round('finite', Fraction(abs(float(p))), p < 0, True)
        kind, value, negative = fmt.decode(code)
        assert kind == 'finite'
        out.append(-value if negative else value)
    return np.array(out, dtype=object).reshape(np.shape(values))


def next_scale(history, scale, fmt):
    """mp.fp8_scale with amax_compute = max, margin MARGIN, in f32."""
    amax = np.float32(max(history))
    if amax == 0 or not np.isfinite(amax):
        return np.float32(scale)
    new = np.float32(np.float32(MAX[fmt] / amax) / np.float32(2.0 ** MARGIN))
    return new if np.isfinite(new) else np.float32(scale)


def reference():
    x, k, w = data()
    state = [[np.float32(0)] * HISTORY, np.float32(1)] * 3
    printed = []
    for step in range(STEPS):
        hx, sx, hw, sw, hg, sg = state
        # Quantised with the scales of the previous steps.
        x8 = quantise(x[step], sx, E4M3)
        g8 = quantise(k[step], sg, E5M2)
        exact = g8.T.dot(x8)  # [OUT, IN], exact fractions
        dw32 = np.array([[np.float32(float(v)) for v in row] for row in exact],
                        np.float32)
        assert all(Fraction(float(a)) == b
                   for a, b in zip(dw32.ravel(), exact.ravel())), \
            'the FP8 dot products are not exact in f32'
        inverse = np.float32(1.0) / np.float32(sg * sx)
        dw = (dw32 * inverse).astype(np.float32)
        # Record this step's amaxes, then the next scales.
        new = []
        for history, scale, tensor, fmt in [(hx, sx, x[step], E4M3),
                                            (hw, sw, w, E4M3),
                                            (hg, sg, k[step], E5M2)]:
            history = [np.float32(np.max(np.abs(tensor)))] + history[:-1]
            new += [history, next_scale(history, scale, fmt)]
        state = new
        w = (w - np.float32(LR) * dw).astype(np.float32)
        printed.append(state)
    return printed, w


def check(output_file):
    numbers = [int(t) for t in re.findall(r'-?\d+', open(output_file).read())]
    expected, w = reference()
    per_step = 3 * (HISTORY + 1)
    ok = len(numbers) == STEPS * per_step + w.size
    names = ['x', 'w', 'dy']
    for step, state in enumerate(expected):
        got = numbers[step * per_step:(step + 1) * per_step]
        want = []
        for i in range(3):
            want += [bits(v) for v in state[2 * i]] + [bits(state[2 * i + 1])]
        match = got == want
        ok &= match
        scales = ' '.join('%s %.9g' % (names[i], state[2 * i + 1])
                          for i in range(3))
        print('step %d: history and scale of x, w, dy %s (scales %s)'
              % (step + 1, 'match' if match else 'DIFFER', scales))
    got_w = numbers[STEPS * per_step:]
    match = got_w == [bits(v) for v in w.ravel()]
    ok &= match
    print('final w %s' % ('matches' if match else 'DIFFERS'))
    print('DELAYED SCALING %s' % ('MATCHES THE REFERENCE' if ok else 'DIFFERS'))
    sys.exit(0 if ok else 1)


if __name__ == '__main__':
    if sys.argv[1] == 'driver':
        driver(sys.argv[2])
    else:
        check(sys.argv[2])
