"""Executes snippets of mp IR on the CPU and returns their results as NumPy
arrays: the driver of the numerics tests that compare mp ops with a
reference (NumPy in Numerics/Inputs/ops_reference.py, PyTorch in
Torch/Inputs/*.py).

Each `Case` is a body of mp IR that reads `{in0}`, `{in1}`, ... and defines
`{out0}`, `{out1}`, ...; its inputs become public globals (so nothing folds),
all cases go into one `@main`, which is run through `mp-opt` (by default
`--mp-autodiff --convert-mp-to-linalg`, so a body may use `mp.grad`) and the
given lowering, then executed by `mlir-runner`; every output is printed as
its bit pattern and decoded exactly.

Element types: f32, f16, bf16 (inputs and outputs), i1, i32, i64.

    cases = [Case('relu', [(x, 'f32')],
                  '{out0} = mp.relu {in0} : tensor<4xf32>', [((4,), 'f32')])]
    [[y]] = execute(cases, mp_opt, lowering, runner)
"""

import math
import re
import shlex
import subprocess

import numpy as np

DEFAULT_PASSES = ['--mp-autodiff', '--convert-mp-to-linalg']


def mlir_type(shape, element):
    return 'tensor<' + ''.join(f'{d}x' for d in shape) + element + '>'


def to_bits(array, element):
    """The bit patterns of `array` (any float dtype, values representable in
    `element`) as unsigned integers of the element's width."""
    a32 = np.ascontiguousarray(np.asarray(array, dtype=np.float32))
    if element == 'f32':
        return a32.view(np.uint32)
    if element == 'f16':
        return np.asarray(array, dtype=np.float32).astype(np.float16).view(np.uint16)
    if element == 'bf16':
        bits = a32.view(np.uint32)
        # Round to nearest even (exact for values already in bf16).
        rounded = bits + 0x7FFF + ((bits >> 16) & 1)
        out = (rounded >> 16).astype(np.uint16)
        return np.where(np.isnan(a32), np.uint16(0x7FC0), out)
    raise ValueError(element)


def from_bits(bits, element):
    """The float64 values of the bit patterns `bits` of `element`."""
    bits = np.asarray(bits, dtype=np.int64)
    if element == 'f32':
        return bits.astype(np.uint32).view(np.float32).astype(np.float64)
    if element == 'f16':
        return bits.astype(np.uint16).view(np.float16).astype(np.float64)
    if element == 'bf16':
        return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return bits.astype(np.float64)


def literal(array, element):
    """A dense literal, nested like the shape. Floats are written with 9
    significant digits (exact for f32 and, rounded to nearest, for f16 and
    bf16), non-finite values as bit patterns."""
    array = np.asarray(array)
    width = {'f32': 8, 'f16': 4, 'bf16': 4}.get(element)

    def scalar(v):
        if width:
            if not math.isfinite(v):
                return '0x%0*X' % (width, int(to_bits(np.float32(v), element)))
            return '%.9e' % v
        if element == 'i1':
            return 'true' if v else 'false'
        return str(int(v))

    def nested(a):
        if a.ndim == 0:
            return scalar(a.item())
        return '[' + ', '.join(nested(sub) for sub in a) + ']'
    return f'dense<{nested(array)}>'


class Case:
    """One snippet: `inputs` are (array, element type); `outputs` are
    (shape, element type) of the values the body defines as {out0}, ..."""

    def __init__(self, name, inputs, body, outputs):
        self.name = name
        self.inputs = inputs
        self.body = body
        self.outputs = [(tuple(shape), element) for shape, element in outputs]


_PRINTERS = ['func.func private @printMemrefI32(memref<*xi32>)',
             'func.func private @printMemrefI64(memref<*xi64>)']


def build_module(cases):
    """The module whose @main runs every case and prints its outputs."""
    lines = list(_PRINTERS)
    body = []
    for k, c in enumerate(cases):
        names = {}
        for i, (array, element) in enumerate(c.inputs):
            array = np.asarray(array)
            memref = mlir_type(array.shape, element).replace('tensor', 'memref')
            tensor = mlir_type(array.shape, element)
            lines.append(f'memref.global "public" @c{k}_in{i} : {memref} = '
                         f'{literal(array, element)}')
            body += [f'  %c{k}_m{i} = memref.get_global @c{k}_in{i} : {memref}',
                     f'  %c{k}_in{i} = bufferization.to_tensor %c{k}_m{i} restrict : '
                     f'{memref} to {tensor}']
            names[f'in{i}'] = f'%c{k}_in{i}'
        for j in range(len(c.outputs)):
            names[f'out{j}'] = f'%c{k}_out{j}'
        # Intermediate values of the body get the case's prefix too.
        text = re.sub(r'%([A-Za-z_]\w*)', f'%c{k}_\\1', c.body)
        body.append('  ' + re.sub(r'\{((?:in|out)\d+)\}',
                                  lambda m: names[m.group(1)], text))
        for j, (shape, element) in enumerate(c.outputs):
            tensor = mlir_type(shape, element)
            value = names[f'out{j}']
            printed = 'i64' if element == 'i64' else 'i32'
            wide = mlir_type(shape, printed)
            if element == 'f32':
                body.append(f'  %c{k}_b{j} = arith.bitcast {value} : {tensor} to {wide}')
                value = f'%c{k}_b{j}'
            elif element in ('f16', 'bf16'):
                i16 = mlir_type(shape, 'i16')
                body += [f'  %c{k}_h{j} = arith.bitcast {value} : {tensor} to {i16}',
                         f'  %c{k}_b{j} = arith.extui %c{k}_h{j} : {i16} to {wide}']
                value = f'%c{k}_b{j}'
            elif element == 'i1':
                body.append(f'  %c{k}_b{j} = arith.extui {value} : {tensor} to {wide}')
                value = f'%c{k}_b{j}'
            memref = wide.replace('tensor', 'memref')
            printer = 'I64' if printed == 'i64' else 'I32'
            body += [f'  %c{k}_p{j} = bufferization.to_buffer {value} : {wide} to {memref}',
                     f'  %c{k}_u{j} = memref.cast %c{k}_p{j} : {memref} to memref<*x{printed}>',
                     f'  call @printMemref{printer}(%c{k}_u{j}) : (memref<*x{printed}>) -> ()']
    lines += ['func.func @main() {'] + body + ['  return', '}']
    return '\n'.join(lines) + '\n'


class ExecutionError(RuntimeError):
    pass


def run_module(mp_opt, lowering, runner, module, passes=None):
    """Lowers and runs `module`; returns the printed tensors as lists of
    integers, in print order."""
    passes = DEFAULT_PASSES if passes is None else passes
    lowered = subprocess.run([mp_opt, '-'] + passes + shlex.split(lowering),
                             input=module, capture_output=True, text=True)
    if lowered.returncode != 0:
        raise ExecutionError('mp-opt failed:\n' + lowered.stderr)
    result = subprocess.run(shlex.split(runner), input=lowered.stdout,
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise ExecutionError('mlir-runner failed:\n' + result.stderr)
    tensors = []
    for chunk in result.stdout.split('Unranked Memref')[1:]:
        data = chunk.split('data =', 1)[1]
        tensors.append([int(v) for v in re.findall(r'-?\d+', data)])
    return tensors


def execute(cases, mp_opt, lowering, runner, passes=None):
    """Runs `cases`; returns, per case, its outputs as float64 arrays of
    their shapes (integers and i1 as their values)."""
    printed = run_module(mp_opt, lowering, runner, build_module(cases), passes)
    expected = sum(len(c.outputs) for c in cases)
    if len(printed) != expected:
        raise ExecutionError(f'expected {expected} printed tensors, got {len(printed)}')
    it = iter(printed)
    results = []
    for c in cases:
        results.append([from_bits(next(it), element).reshape(shape)
                        for shape, element in c.outputs])
    return results
