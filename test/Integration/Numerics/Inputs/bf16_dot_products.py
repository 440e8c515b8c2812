"""bf16 x bf16 -> f32 contractions under mp-bf16-dot-products, against their
definition: each product of the widened operands rounded to f32, added to
the accumulator in ascending K with one rounding (NumPy float32, one K step
at a time).

Cases: a matmul, a matmul with a transposed right operand, a batch matmul,
a matmul whose K is two loops (the weight-gradient form, A·B summed over
batch and sequence), and convolutions with padding 1 (16 and 32 filters,
and an input gradient: implicit GEMMs, summed over (c, kh, kw), c
outermost; a filter gradient, summed over (n, oh, ow), n outermost), each
with three kinds of operands:
  - normal: values near 1 (the guard holds: vdpbf16ps computes the
    definition's bits);
  - tiny: a few elements near bf16's smallest normal numbers and one
    denormal (the guard fails: vdpbf16ps would flush them);
  - huge: elements whose products overflow f32 (the guard fails:
    vdpbf16ps adds the exact product, the definition an infinity).

usage: bf16_dot_products.py MP_OPT RUNNER
Prints, per lowering and case, whether every output bit equals the
definition's, and a last line with the number of unexpected results. The
guarded lowerings (mp-cpu-pipeline with bf16-dot-products on 1 and 2
threads, off, and vectorize=false) must equal it everywhere; the kernel
without its guard (mp-bf16-dot-products{unguarded}) must equal it on the
normal operands and differ on the tiny and huge ones, which shows that the
kernel is what runs and that the guard is needed.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', 'Inputs'))
import mp_exec  # noqa: E402

M, N, K = 16, 64, 10


def to_bf16(array):
    bits = mp_exec.to_bits(array, 'bf16').astype(np.uint32) << 16
    return bits.view(np.float32)


def contract(a, b):
    """The definition: a (..., M, K) times b (..., K, N), products rounded
    to f32 and summed in ascending K."""
    acc = np.zeros(a.shape[:-1] + b.shape[-1:], dtype=np.float32)
    with np.errstate(over='ignore', invalid='ignore'):
        for k in range(a.shape[-1]):
            product = (a[..., :, k:k + 1] * b[..., k:k + 1, :]).astype(np.float32)
            acc = (acc + product).astype(np.float32)
    return acc


def operands(kind, rng, a_shape, b_shape, last=False):
    a = to_bf16(1 + 0.5 * rng.standard_normal(a_shape).astype(np.float32))
    b = to_bf16(1 + 0.5 * rng.standard_normal(b_shape).astype(np.float32))
    # Row 0 of A times column 0 of B (of every batch), or with `last` the
    # last row times the last column, the huge pair the last K pair.
    at = -1 if last else 0
    a_row = (a.reshape(-1, a_shape[-2], a_shape[-1]) if len(a_shape) > 2
             else a[None])[:, at, :]
    b_column = (b.reshape(-1, b_shape[-2], b_shape[-1]) if len(b_shape) > 2
                else b[None])[:, :, at]
    if kind == 'tiny':
        # Products of 2^-140: a denormal sum, which vdpbf16ps flushes.
        a_row[...] = np.float32(2.0 ** -70)
        b_column[...] = np.float32(2.0 ** -70)
    elif kind == 'huge':
        # +2^160 then -2^160: inf + (-inf) = NaN by the definition;
        # vdpbf16ps adds the exact -2^160 to +inf: +inf.
        pair = slice(-2, None) if last else slice(0, 2)
        a_row[:, pair] = np.float32(2.0 ** 100) * np.array([1, -1], np.float32)
        b_column[:, pair] = np.float32(2.0 ** 60)
    return a, b


def cases(rng):
    t = mp_exec.mlir_type
    result = []
    for kind in ('normal', 'tiny', 'huge'):
        a, b = operands(kind, rng, (M, K), (K, N))
        result.append((f'matmul {kind}', [(a, 'bf16'), (b, 'bf16')],
                       f'{{out0}} = mp.matmul {{in0}}, {{in1}} acc(f32) : '
                       f'{t((M, K), "bf16")}, {t((K, N), "bf16")} -> '
                       f'{t((M, N), "f32")}', contract(a, b), (M, N)))
        bt = np.ascontiguousarray(b.T)
        result.append((f'matmul transpose_rhs {kind}',
                       [(a, 'bf16'), (bt, 'bf16')],
                       f'{{out0}} = mp.matmul {{in0}}, {{in1}} transpose_rhs '
                       f'acc(f32) : {t((M, K), "bf16")}, {t((N, K), "bf16")} '
                       f'-> {t((M, N), "f32")}', contract(a, b), (M, N)))
        a3, b3 = operands(kind, rng, (2, M, K), (2, K, N))
        result.append((f'batch_matmul {kind}', [(a3, 'bf16'), (b3, 'bf16')],
                       f'{{out0}} = mp.batch_matmul {{in0}}, {{in1}} acc(f32) : '
                       f'{t((2, M, K), "bf16")}, {t((2, K, N), "bf16")} -> '
                       f'{t((2, M, N), "f32")}', contract(a3, b3), (2, M, N)))
        # The weight gradient of a linear layer on [2, 6] tokens: x^T dy,
        # K = (batch, sequence) as two loops after the reshapes fold.
        xt, dy = operands(kind, rng, (M, 12), (12, N))
        x = np.ascontiguousarray(xt.T).reshape(2, 6, M)
        dy = dy.reshape(2, 6, N)
        result.append((f'weight gradient {kind}', [(x, 'bf16'), (dy, 'bf16')],
                       f'%x = mp.reshape {{in0}} : {t((2, 6, M), "bf16")} to '
                       f'{t((12, M), "bf16")}\n'
                       f'  %dy = mp.reshape {{in1}} : {t((2, 6, N), "bf16")} '
                       f'to {t((12, N), "bf16")}\n'
                       f'  %xt = mp.transpose %x perm [1, 0] : '
                       f'{t((12, M), "bf16")}\n'
                       f'  {{out0}} = mp.matmul %xt, %dy acc(f32) : '
                       f'{t((M, 12), "bf16")}, {t((12, N), "bf16")} -> '
                       f'{t((M, N), "f32")}',
                       contract(x.reshape(12, M).T, dy.reshape(12, N)),
                       (M, N)))
        # B of 16384 elements: with two threads its packing and its guard
        # reductions (64 chunks, the anomaly in the last) run on both.
        a3, b3 = operands(kind, rng, (2, M, 128), (2, 128, N), last=True)
        result.append((f'large batch_matmul {kind}',
                       [(a3, 'bf16'), (b3, 'bf16')],
                       f'{{out0}} = mp.batch_matmul {{in0}}, {{in1}} acc(f32) : '
                       f'{t((2, M, 128), "bf16")}, {t((2, 128, N), "bf16")} -> '
                       f'{t((2, M, N), "f32")}', contract(a3, b3), (2, M, N)))
        # Convolutions (implicit GEMMs, the conv kernel): 16 and 32 filters
        # (written channel-major, 16 filters x 16 pixels a tile), 36-pixel
        # images (written as rows: tiles of 16 pixels cross images), and an
        # input gradient (the flipped, channel-transposed filter).
        # With strides 2, the im2col form (panels of P pixels): 8 x 8
        # outputs (channel-major) and 6 x 6 (rows).
        for name, x_shape, w_shape, stride in (
                ('conv2d', (2, 2, 8, 8), (16, 2, 3, 3), 1),
                ('conv2d 32 filters', (1, 4, 8, 8), (32, 4, 3, 3), 1),
                ('conv2d blocks', (4, 2, 6, 6), (16, 2, 3, 3), 1),
                ('conv2d strided', (1, 2, 16, 16), (16, 2, 3, 3), 2),
                ('conv2d strided blocks', (4, 2, 12, 12), (16, 2, 3, 3), 2)):
            x, w = conv_operands(kind, rng, x_shape, w_shape)
            out_shape = (x_shape[0], w_shape[0],
                         (x_shape[2] - 1) // stride + 1,
                         (x_shape[3] - 1) // stride + 1)
            result.append((f'{name} {kind}', [(x, 'bf16'), (w, 'bf16')],
                           f'{{out0}} = mp.conv2d {{in0}}, {{in1}} acc(f32) '
                           f'{conv_attributes(stride)} : '
                           f'({t(x_shape, "bf16")}, {t(w_shape, "bf16")}) -> '
                           f'{t(out_shape, "f32")}', convolve(x, w, stride),
                           out_shape))
        dy, w = conv_operands(kind, rng, (1, 16, 8, 8), (16, 16, 3, 3))
        flipped = np.ascontiguousarray(w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3))
        result.append((f'conv2d_grad_input {kind}', [(dy, 'bf16'), (w, 'bf16')],
                       f'{{out0}} = mp.conv2d_grad_input {{in0}}, {{in1}} '
                       f'acc(f32) {{padding = array<i64: 1, 1>}} : '
                       f'({t((1, 16, 8, 8), "bf16")}, '
                       f'{t((16, 16, 3, 3), "bf16")}) -> '
                       f'{t((1, 16, 8, 8), "f32")}', convolve(dy, flipped),
                       (1, 16, 8, 8)))
        # With strides 2: one convolution per phase of the result (2 x 2,
        # 2 x 1, 1 x 2 and 1 x 1 taps), reading slices of the padded
        # gradient.
        dy, w = conv_operands(kind, rng, (1, 16, 8, 8), (16, 16, 3, 3))
        result.append((f'conv2d_grad_input strided {kind}',
                       [(dy, 'bf16'), (w, 'bf16')],
                       f'{{out0}} = mp.conv2d_grad_input {{in0}}, {{in1}} '
                       f'acc(f32) {{padding = array<i64: 1, 1>, '
                       f'strides = array<i64: 2, 2>}} : '
                       f'({t((1, 16, 8, 8), "bf16")}, '
                       f'{t((16, 16, 3, 3), "bf16")}) -> '
                       f'{t((1, 16, 16, 16), "f32")}',
                       input_gradient(dy, w, (16, 16), 2), (1, 16, 16, 16)))
        # Filter gradients: K = (n, oh, ow), pairs of neighbouring pixels;
        # with strides 2 (a ResNet's downsampling layer) their input columns
        # are 2 apart. The wide ones have more than 16 pair words a row
        # (two vectors of them); the large one enough pair words for two
        # threads to make them (one phase and channel an iteration) and
        # enough images for two threads to pack B (one image and panel an
        # iteration).
        for name, dy_shape, x_shape, stride in (
                ('conv2d_grad_filter', (2, 16, 6, 8), (2, 16, 6, 8), 1),
                ('conv2d_grad_filter strided', (2, 16, 3, 4), (2, 16, 6, 8), 2),
                ('conv2d_grad_filter wide', (1, 16, 2, 40), (1, 16, 2, 40), 1),
                ('conv2d_grad_filter large', (4, 16, 16, 16), (4, 16, 16, 16),
                 1),
                ('conv2d_grad_filter wide strided', (1, 16, 1, 36),
                 (1, 16, 2, 72), 2)):
            dy, x = conv_operands(kind, rng, dy_shape, x_shape)
            if kind == 'tiny':
                # Channel 0 (tiny) times a tiny gradient everywhere:
                # denormal sums of every filter's channel 0.
                dy[...] = np.float32(2.0 ** -70)
            result.append((f'{name} {kind}', [(dy, 'bf16'), (x, 'bf16')],
                           f'{{out0}} = mp.conv2d_grad_filter {{in0}}, {{in1}} '
                           f'acc(f32) {conv_attributes(stride)} : '
                           f'({t(dy_shape, "bf16")}, '
                           f'{t(x_shape, "bf16")}) -> '
                           f'{t((16, 16, 3, 3), "f32")}',
                           filter_gradient(dy, x, stride), (16, 16, 3, 3)))
    return result


def filter_gradient(dy, x, stride=1):
    """The definition of a filter gradient with padding 1 and strides
    `stride`: dw[f, c, kh, kw], each product rounded to f32 and summed over
    (n, oh, ow), n outermost."""
    n, f, h, width = dy.shape
    c, in_h, in_w = x.shape[1:]
    padded = np.zeros((n, c, in_h + 2, in_w + 2), np.float32)
    padded[:, :, 1:1 + in_h, 1:1 + in_w] = x
    acc = np.zeros((f, c, 3, 3), np.float32)
    with np.errstate(over='ignore', invalid='ignore'):
        for b in range(n):
            for i in range(h):
                for j in range(width):
                    # [c, 3, 3] window times [f] gradients.
                    window = padded[b, :, i * stride:i * stride + 3,
                                    j * stride:j * stride + 3]
                    product = (dy[b, :, i, j, None, None, None] *
                               window[None]).astype(np.float32)
                    acc = (acc + product).astype(np.float32)
    return acc


def conv_attributes(stride):
    """The attributes of the cases' convolutions: padding 1, strides
    `stride` (omitted at 1)."""
    strides = (f', strides = array<i64: {stride}, {stride}>'
               if stride != 1 else '')
    return f'{{padding = array<i64: 1, 1>{strides}}}'


def input_gradient(dy, w, size, stride):
    """The definition of an input gradient with padding 1 (the transposed
    convolution, the filter flipped): dx[n, c, h, w] sums dy[n, f, (h + 1 -
    kh) / s, (w + 1 - kw) / s] · w[f, c, kh, kw] over f ascending, then kh
    and kw descending (the flipped filter's order), the terms whose
    position is whole and in range, each product rounded to f32."""
    n, f, out_h, out_w = dy.shape
    c, kh, kw = w.shape[1:]
    h, width = size
    rows, columns = np.arange(h), np.arange(width)
    acc = np.zeros((n, c, h, width), np.float32)
    with np.errstate(over='ignore', invalid='ignore'):
        for fi in range(f):
            for i in reversed(range(kh)):
                for j in reversed(range(kw)):
                    src_h, src_w = rows + 1 - i, columns + 1 - j
                    ok_h = (src_h % stride == 0) & (src_h >= 0) & \
                        (src_h // stride < out_h)
                    ok_w = (src_w % stride == 0) & (src_w >= 0) & \
                        (src_w // stride < out_w)
                    taken = dy[:, fi][:, np.clip(src_h // stride, 0, out_h - 1)][
                        :, :, np.clip(src_w // stride, 0, out_w - 1)]
                    product = (taken[:, None] * w[fi, :, i, j, None, None]
                               ).astype(np.float32)
                    mask = ok_h[:, None] & ok_w[None, :]
                    acc = np.where(mask, (acc + product).astype(np.float32),
                                   acc)
    return acc


def convolve(x, w, stride=1):
    """The definition of a convolution with padding 1 and strides `stride`:
    x (N, C, H, W) and w (F, C, KH, KW), each output's products rounded to
    f32 and summed over (c, kh, kw), c outermost."""
    n, c, h, width = x.shape
    f, _, kh, kw = w.shape
    padded = np.zeros((n, c, h + kh - 1, width + kw - 1), np.float32)
    padded[:, :, (kh - 1) // 2:(kh - 1) // 2 + h,
           (kw - 1) // 2:(kw - 1) // 2 + width] = x
    out_h, out_w = (h - 1) // stride + 1, (width - 1) // stride + 1
    acc = np.zeros((n, f, out_h, out_w), np.float32)
    with np.errstate(over='ignore', invalid='ignore'):
        for ci in range(c):
            for i in range(kh):
                for j in range(kw):
                    window = padded[:, None, ci,
                                    i:i + stride * (out_h - 1) + 1:stride,
                                    j:j + stride * (out_w - 1) + 1:stride]
                    product = (window * w[None, :, ci, i, j, None, None]
                               ).astype(np.float32)
                    acc = (acc + product).astype(np.float32)
    return acc


def conv_operands(kind, rng, x_shape, w_shape):
    x = to_bf16(1 + 0.5 * rng.standard_normal(x_shape).astype(np.float32))
    w = to_bf16(1 + 0.5 * rng.standard_normal(w_shape).astype(np.float32))
    if kind == 'tiny':
        # Filter 0 on image 0: sums of products of 2^-140, denormal.
        x[0] = np.float32(2.0 ** -70)
        w[0] = np.float32(2.0 ** -70)
        w[:, 0] = np.float32(2.0 ** -70)
    elif kind == 'huge':
        # Taps (kh, kw) = (1, 1), (1, 2) of output (0, 0), a K pair:
        # +2^160 then -2^160.
        x[0, 0, 0, 0:2] = np.float32(2.0 ** 100) * np.array([1, -1], np.float32)
        w[:, 0] = np.float32(2.0 ** 60)
    return x, w


def main():
    mp_opt, runner = sys.argv[1:3]
    rng = np.random.default_rng(0)
    all_cases = cases(rng)
    mp_cases = [mp_exec.Case(name, inputs, body, [(shape, 'f32')])
                for name, inputs, body, _, shape in all_cases]
    canonical = ['--mp-autodiff', '--convert-mp-to-linalg',
                 '--convert-elementwise-to-linalg',
                 '--linalg-fuse-elementwise-ops', '--canonicalize', '--cse']
    lowerings = [
        ('bf16-dot-products', canonical,
         '--mp-cpu-pipeline=bf16-dot-products=true', True),
        ('bf16-dot-products threads=2', canonical,
         "--mp-cpu-pipeline='bf16-dot-products=true threads=2'", True),
        ('bf16-dot-products=false', canonical,
         '--mp-cpu-pipeline=bf16-dot-products=false', True),
        ('vectorize=false', canonical,
         '--mp-cpu-pipeline=vectorize=false', True),
        # Filter gradients image by image (blocks of one image's words).
        ('bf16-dot-products pair-words-budget=1',
         canonical + ['--mp-bf16-dot-products=pair-words-budget=1'],
         '--mp-cpu-pipeline=bf16-dot-products=false', True),
        ('unguarded', canonical + ['--mp-bf16-dot-products=unguarded=true'],
         '--mp-cpu-pipeline=bf16-dot-products=false', False),
    ]
    # The OpenMP runtime of threads=2, from the runner libraries' folder.
    libraries = runner.split('-shared-libs=', 1)[1].split()[0].split(',')
    libomp = os.path.join(os.path.dirname(libraries[0]), 'libomp.so')
    threaded = runner.replace('-shared-libs=', f'-shared-libs={libomp},', 1)
    failures = 0
    for label, passes, lowering, guarded in lowerings:
        results = mp_exec.execute(mp_cases, mp_opt, lowering,
                                  threaded if 'threads' in label else runner,
                                  passes=passes)
        for (name, _, _, expected, _), [got] in zip(all_cases, results):
            same = np.array_equal(got.astype(np.float32).view(np.uint32),
                                  expected.view(np.uint32))
            should = guarded or name.endswith('normal')
            print(f'{label}: {name}: '
                  f'{"definition" if same else "differs"}')
            failures += same != should
    print(f'{failures} unexpected')


if __name__ == '__main__':
    main()
