"""Compares mp ops with PyTorch on the CPU: forward results and, through
`mp.grad` + mp-autodiff, the gradients of every floating-point input, in
f32, f16 and bf16.

A test script builds `OpCheck`s and calls `main(checks)`:

    check = OpCheck('silu f16', torch.nn.functional.silu,
                    '{out0} = mp.silu {in0} : tensor<4x8xf16>',
                    inputs=[torch.randn(4, 8).half()])
    main([check])

For each check the harness runs the body on the inputs; with `grad` (the
default) it also draws a random cotangent `dy` per output (in the output's
type), takes `mp.grad` of `sum(out · dy)` with respect to every float input
and compares those gradients with what `torch.autograd` gives for the same
`dy`. `bound` states how far a result may be from PyTorch's, per result:
`'exact'` (bit for bit, NaN matching NaN) or `(rtol, atol)`. f16/bf16
checks compare with PyTorch's f32 computation rounded once to the low type
(`upcast=False` runs PyTorch's own low-precision CPU kernel instead).

Usage of a test script: SCRIPT MP_OPT "LOWERING FLAGS" "MLIR_RUNNER COMMAND".
Prints `ok NAME` or `FAIL NAME ...` per check and `N checks, N failed`;
exits 1 on any failure.
"""

import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', 'Inputs'))
import mp_exec  # noqa: E402

ELEMENT = {torch.float32: 'f32', torch.float16: 'f16', torch.bfloat16: 'bf16',
           torch.int64: 'i64', torch.int32: 'i32', torch.bool: 'i1'}
FLOATS = (torch.float32, torch.float16, torch.bfloat16)


def element_of(tensor):
    return ELEMENT[tensor.dtype]


def type_of(tensor):
    return mp_exec.mlir_type(tuple(tensor.shape), element_of(tensor))


def numpy_of(tensor):
    """The values of `tensor` as a NumPy array that mp_exec.literal writes
    exactly (floats through float32, which holds f16 and bf16 exactly)."""
    if tensor.dtype in FLOATS:
        return tensor.detach().float().numpy()
    return tensor.detach().numpy()


class OpCheck:
    """One comparison. `body` reads {in0}, ... and defines {out0}, ...;
    `torch_fn(*inputs)` returns a tensor or a tuple of tensors in the same
    order. `grad_inputs` lists the indices of inputs to differentiate (default:
    every float input); `grad=False` compares the forward only; an f32 result
of a check with f16/bf16 inputs stays f32 only with `upcast=False`."""

    def __init__(self, name, torch_fn, body, inputs, grad=True, grad_inputs=None,
                 bound='exact', grad_bound=None, upcast=True):
        self.name = name
        self.upcast = upcast
        self.torch_fn = torch_fn
        self.body = body
        self.inputs = list(inputs)
        if grad_inputs is None:
            grad_inputs = [i for i, t in enumerate(self.inputs) if t.dtype in FLOATS]
        self.grad_inputs = grad_inputs if grad else []
        self.bound = bound
        self.grad_bound = bound if grad_bound is None else grad_bound

    def reference(self, generator):
        """PyTorch's outputs, cotangents and input gradients. With `upcast`,
        f16/bf16 inputs are widened to f32, PyTorch computes in f32 and each
        float result and gradient is rounded once to the low type: the
        once-rounded f32 function that mp computes (and that PyTorch's CUDA
        kernels compute; its CPU lacks many f16 kernels)."""
        low = next((t.dtype for t in self.inputs
                    if t.dtype in (torch.float16, torch.bfloat16)), None)
        widen = self.upcast and low is not None
        leaves = []
        for i, t in enumerate(self.inputs):
            t = t.detach().clone()
            if widen and t.dtype == low:
                t = t.float()
            if i in self.grad_inputs:
                t.requires_grad_(True)
            leaves.append(t)
        outputs = self.torch_fn(*leaves)
        if not isinstance(outputs, (tuple, list)):
            outputs = (outputs,)
        cotangents = []
        if self.grad_inputs:
            float_outputs = [o for o in outputs if o.dtype in FLOATS and o.requires_grad]
            cotangents = [torch.randn(o.shape, generator=generator)
                          .to(low if widen else o.dtype) for o in float_outputs]
            torch.autograd.backward(float_outputs,
                                    [dy.to(o.dtype) for o, dy in
                                     zip(float_outputs, cotangents)])
        grads = [leaves[i].grad.to(self.inputs[i].dtype) for i in self.grad_inputs]
        outputs = [o.detach().to(low) if widen and o.dtype == torch.float32
                   else o.detach() for o in outputs]
        return outputs, cotangents, grads

    def case(self, outputs, cotangents):
        """The mp_exec case: the body, then the gradients of sum(out·dy)."""
        inputs = [(numpy_of(t), element_of(t)) for t in self.inputs]
        shapes = [(tuple(o.shape), element_of(o)) for o in outputs]
        body = self.body
        if self.grad_inputs:
            ndy = len(inputs)
            terms = []
            float_outs = [j for j, o in enumerate(outputs) if o.dtype in FLOATS]
            for k, (j, dy) in enumerate(zip(float_outs, cotangents)):
                inputs.append((numpy_of(dy), element_of(dy)))
                t = type_of(outputs[j])
                dims = ', '.join(str(d) for d in range(outputs[j].dim()))
                body += (f'\n  %gp{k} = mp.mul {{out{j}}}, {{in{ndy + k}}} : {t}, {t}'
                         f'\n  %gs{k} = mp.reduce_sum %gp{k} dims [{dims}] : {t}')
                terms.append((f'%gs{k}', element_of(outputs[j])))
            loss = terms[0][0]
            for k, (term, element) in enumerate(terms[1:]):
                scalar = mp_exec.mlir_type((), element)
                body += f'\n  %gl{k} = mp.add {loss}, {term} : {scalar}, {scalar}'
                loss = f'%gl{k}'
            wrt = ', '.join(f'{{in{i}}}' for i in self.grad_inputs)
            types = ', '.join(type_of(self.inputs[i]) for i in self.grad_inputs)
            results = ', '.join(f'{{out{len(outputs) + n}}}'
                                for n in range(len(self.grad_inputs)))
            loss_type = mp_exec.mlir_type((), terms[0][1])
            body += f'\n  {results} = mp.grad {loss} wrt {wrt} : {loss_type}, {types}'
            shapes += [(tuple(self.inputs[i].shape), element_of(self.inputs[i]))
                       for i in self.grad_inputs]
        return mp_exec.Case(self.name, inputs, body, shapes)


def compare(got, want, bound):
    """None when `got` (float64 array) is within `bound` of `want` (a torch
    tensor), else a description of the difference."""
    want = want.detach().double().numpy() if want.dtype != torch.bool else \
        want.numpy().astype(np.float64)
    got = np.asarray(got, dtype=np.float64)
    if got.shape != want.shape:
        return f'shape {got.shape} vs {want.shape}'
    nan_mismatch = np.isnan(got) != np.isnan(want)
    if bound == 'exact':
        same = (got == want) | (np.isnan(got) & np.isnan(want))
        # -0.0 and +0.0 compare equal above: check the sign too.
        same &= (np.signbit(got) == np.signbit(want)) | np.isnan(got)
        if same.all():
            return None
        bad = np.argwhere(~same)[:4]
        return 'not bit-identical at ' + ', '.join(
            f'{tuple(i)}: {got[tuple(i)]!r} vs {want[tuple(i)]!r}' for i in bad)
    rtol, atol = bound
    finite = ~np.isnan(want)
    close = np.isclose(got, want, rtol=rtol, atol=atol) | ~finite
    if not nan_mismatch.any() and close.all():
        return None
    err = np.max(np.abs(got[finite] - want[finite])) if finite.any() else 'nan'
    return f'max error {err} (rtol {rtol}, atol {atol})'


def run_checks(checks, mp_opt, lowering, runner, seed=0):
    """Runs every check in one module; returns the number that failed."""
    generator = torch.Generator().manual_seed(seed)
    references = [c.reference(generator) for c in checks]
    cases = [c.case(outputs, cotangents)
             for c, (outputs, cotangents, _) in zip(checks, references)]
    results = mp_exec.execute(cases, mp_opt, lowering, runner)
    failures = 0
    for c, (outputs, _, grads), got in zip(checks, references, results):
        problems = []
        for j, want in enumerate(outputs):
            p = compare(got[j], want, c.bound)
            if p:
                problems.append(f'result {j}: {p}')
        for n, want in enumerate(grads):
            p = compare(got[len(outputs) + n], want, c.grad_bound)
            if p:
                problems.append(f'gradient of input {c.grad_inputs[n]}: {p}')
        if problems:
            failures += 1
            print(f'FAIL {c.name}')
            for p in problems:
                print('  ' + p)
        else:
            print(f'ok {c.name}')
    return failures


def main(checks):
    mp_opt, lowering, runner = sys.argv[1:4]
    failures = run_checks(checks, mp_opt, lowering, runner)
    print(f'{len(checks)} checks, {failures} failed')
    sys.exit(1 if failures else 0)
