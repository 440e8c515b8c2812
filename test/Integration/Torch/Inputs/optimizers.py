#!/usr/bin/env python3
"""mp.sgd, mp.adam and mp.adamw against torch.optim over 100 steps: the same
initial parameter (64 f32 values) and the same 100 random gradients, the
optimizer op run in an scf.for whose every step's parameter is recorded, and
the recorded trajectory and the final optimizer state compared bit for bit
with torch.optim's single-tensor path (foreach=False) on the CPU.

Exactness holds because the lowering computes PyTorch's operations in its
order, with `add(alpha=)` and addcmul fused as PyTorch's AVX2 kernels do
(Debian's torch 1.13 reports CPU capability AVX2; its scalar tail loop fuses
them too, measured on 37 elements). The sizes are multiples of 16 (2 × 8
AVX2 lanes) all the same, to stay on the vector path. Under
ATEN_CPU_CAPABILITY=default PyTorch does not fuse add(alpha=), and the
results then differ by the rounding of those products.
Cases with a run-time learning rate take it from a schedule built by
mixedprec.lr_schedule_ops at the schedule counter (the number of steps
done), against torch with the group's lr set to the schedule's closed form
before each step.

Usage: optimizers.py MP_OPT "LOWERING FLAGS" "MLIR_RUNNER COMMAND"
"""

import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', 'Inputs'))
import mp_exec  # noqa: E402

STEPS, N = 100, 64
T = f'tensor<{N}xf32>'


def mixedprec_module():
    """The mixedprec package of the build (PYTHONPATH set by lit) or None."""
    try:
        import mixedprec
        return mixedprec
    except ImportError:
        return None


class Case:
    """`kind` sgd/adam/adamw, `attrs` the op's attribute text, `torch_kwargs`
    the torch.optim arguments; `schedule` (a mixedprec schedule) makes the lr
    an operand (`lr_type` f32 or f64)."""

    def __init__(self, name, kind, attrs, torch_kwargs, states, step=False,
                 schedule=None, lr_type='f64'):
        self.name, self.kind, self.attrs = name, kind, attrs
        self.torch_kwargs, self.states, self.step = torch_kwargs, states, step
        self.schedule, self.lr_type = schedule, lr_type

    def body(self):
        """IR reading {in0} (param), {in1} (grads [STEPS, N]) and defining
        {out0} (trajectory [STEPS, N]) and {out1}.. (final states)."""
        zero = f'%zero = arith.constant dense<0.0> : {T}'
        lines = ['%c0 = arith.constant 0 : index', '%c1 = arith.constant 1 : index',
                 f'%cn = arith.constant {STEPS} : index', zero,
                 '%s0 = arith.constant dense<0> : tensor<i64>',
                 '%one = arith.constant dense<1> : tensor<i64>',
                 f'%traj0 = tensor.empty() : tensor<{STEPS}x{N}xf32>']
        states = [f'%st{k}' for k in range(len(self.states))]
        iter_args = ['%traj = %traj0', '%p = {in0}'] + \
            [f'{s} = %zero' for s in states] + ['%step = %s0']
        types = [f'tensor<{STEPS}x{N}xf32>', T] + [T] * len(states) + ['tensor<i64>']
        outs = ['{out0}', '%pfinal'] + [f'{{out{k + 1}}}' for k in range(len(states))] + \
            ['%stepfinal']
        lines.append(f'{", ".join(outs)} = scf.for %i = %c0 to %cn step %c1 '
                     f'iter_args({", ".join(iter_args)}) -> ({", ".join(types)}) {{')
        lines.append(f'  %g = tensor.extract_slice {{in1}}[%i, 0] [1, {N}] [1, 1] : '
                     f'tensor<{STEPS}x{N}xf32> to {T}')
        lines.append('  %step1 = arith.addi %step, %one : tensor<i64>')
        lr = ''
        if self.schedule is not None:
            mixedprec = mixedprec_module()
            ops, name = mixedprec.lr_schedule_ops(self.schedule, self.torch_kwargs['lr'],
                                                  '%step', prefix='%lr')
            lines += ['  ' + op for op in ops]
            if self.lr_type == 'f32':
                lines.append(f'  %lr32 = arith.truncf {name} : tensor<f64> to tensor<f32>')
                name = '%lr32'
            lr = f' lr({name} : tensor<{self.lr_type}>)'
        new_states = [f'%ns{k}' for k in range(len(states))]
        results = ', '.join(['%np'] + new_states)
        if self.kind == 'sgd':
            buf = f' momentum_buffer {states[0]}' if states else ''
            step = ' step(%step1 : tensor<i64>)' if self.step else ''
            lines.append(f'  {results} = mp.sgd %p, %g{buf}{step}{lr} {self.attrs} : {T}'
                         + (f', {T}' if states else ''))
        else:
            ams = f' amsgrad {states[2]}' if len(states) == 3 else ''
            lines.append(f'  {results} = mp.{self.kind} %p, %g, {states[0]}, {states[1]}, '
                         f'%step1{ams}{lr} {self.attrs} : {T}, tensor<i64>')
        lines.append(f'  %traj1 = tensor.insert_slice %np into %traj[%i, 0] [1, {N}] [1, 1] : '
                     f'{T} into tensor<{STEPS}x{N}xf32>')
        lines.append(f'  scf.yield %traj1, %np, {", ".join(new_states + ["%step1"])} : '
                     f'{", ".join(types)}')
        lines.append('}')
        return '\n'.join(lines)

    def reference(self, param, grads):
        p = torch.nn.Parameter(torch.from_numpy(param.copy()))
        cls = {'sgd': torch.optim.SGD, 'adam': torch.optim.Adam,
               'adamw': torch.optim.AdamW}[self.kind]
        opt = cls([p], foreach=False, **self.torch_kwargs)
        trajectory = []
        for i in range(STEPS):
            if self.schedule is not None:
                opt.param_groups[0]['lr'] = closed_form(self.schedule,
                                                        self.torch_kwargs['lr'], i)
            p.grad = torch.from_numpy(grads[i].copy())
            opt.step()
            trajectory.append(p.detach().clone().numpy())
        state = opt.state[p]
        names = {'sgd': ['momentum_buffer'],
                 'adam': ['exp_avg', 'exp_avg_sq', 'max_exp_avg_sq']}
        names['adamw'] = names['adam']
        finals = [state[n].numpy() for n in names[self.kind][:len(self.states)]]
        return [np.stack(trajectory)] + finals


def closed_form(schedule, base_lr, epoch):
    """torch.optim.lr_scheduler's closed form of the equivalent torch
    scheduler at `epoch` (as lr-schedules.test checks against torch)."""
    sys.path.insert(0, os.path.dirname(__file__))
    from lr_schedules import torch_closed_form
    return torch_closed_form(schedule, base_lr, epoch)


def main():
    mp_opt, lowering, runner = sys.argv[1:4]
    mixedprec = mixedprec_module()
    cases = [
        Case('sgd lr', 'sgd', '{lr = 1.0e-01 : f64}', dict(lr=0.1), []),
        Case('sgd momentum dampening weight_decay', 'sgd',
             '{lr = 5.0e-02 : f64, momentum = 9.0e-01 : f64, dampening = 5.0e-01 : f64, '
             'weight_decay = 1.0e-02 : f64}',
             dict(lr=0.05, momentum=0.9, dampening=0.5, weight_decay=0.01), ['buf'],
             step=True),
        Case('sgd momentum no step operand', 'sgd',
             '{lr = 5.0e-02 : f64, momentum = 9.0e-01 : f64}',
             dict(lr=0.05, momentum=0.9), ['buf']),
        Case('sgd nesterov weight_decay', 'sgd',
             '{lr = 1.0e-01 : f64, momentum = 8.0e-01 : f64, weight_decay = 1.0e-01 : f64, '
             'nesterov}',
             dict(lr=0.1, momentum=0.8, weight_decay=0.1, nesterov=True), ['buf'], step=True),
        Case('sgd maximize momentum', 'sgd',
             '{lr = 1.0e-02 : f64, momentum = 5.0e-01 : f64, dampening = 1.0e-01 : f64, '
             'maximize}',
             dict(lr=0.01, momentum=0.5, dampening=0.1, maximize=True), ['buf'], step=True),
        Case('adam', 'adam', '{lr = 1.0e-03 : f64}', dict(lr=1e-3), ['m', 'v']),
        Case('adam weight_decay amsgrad', 'adam',
             '{lr = 1.0e-02 : f64, beta1 = 8.0e-01 : f64, beta2 = 9.9e-01 : f64, '
             'eps = 1.0e-06 : f64, weight_decay = 1.0e-01 : f64}',
             dict(lr=1e-2, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1, amsgrad=True),
             ['m', 'v', 'vmax']),
        Case('adam maximize', 'adam', '{lr = 3.0e-03 : f64, maximize}',
             dict(lr=3e-3, maximize=True), ['m', 'v']),
        Case('adamw', 'adamw', '{lr = 1.0e-03 : f64}', dict(lr=1e-3), ['m', 'v']),
        Case('adamw amsgrad weight_decay', 'adamw',
             '{lr = 2.0e-03 : f64, weight_decay = 1.0e-01 : f64}',
             dict(lr=2e-3, weight_decay=0.1, amsgrad=True), ['m', 'v', 'vmax']),
    ]
    if mixedprec is not None:
        cases += [
            Case('sgd momentum StepLR lr operand f32', 'sgd',
                 '{momentum = 9.0e-01 : f64}', dict(lr=0.1, momentum=0.9), ['buf'],
                 schedule=mixedprec.StepLR(step_size=7, gamma=0.5), lr_type='f32'),
            Case('adam CosineAnnealingLR lr operand f64', 'adam', '{}', dict(lr=1e-2),
                 ['m', 'v'], schedule=mixedprec.CosineAnnealingLR(T_max=30, eta_min=1e-4)),
            Case('adamw SequentialLR lr operand f64', 'adamw', '{weight_decay = 5.0e-02 : f64}',
                 dict(lr=1e-2, weight_decay=0.05), ['m', 'v'],
                 schedule=mixedprec.SequentialLR(
                     [mixedprec.LinearLR(0.1, 1.0, 10), mixedprec.ExponentialLR(0.97)], [10])),
        ]
    rng = np.random.default_rng(0)
    exec_cases, inputs = [], []
    for case in cases:
        param = rng.standard_normal(N).astype(np.float32)
        grads = (rng.standard_normal((STEPS, N)) * rng.choice([0.01, 1.0, 100.0], (STEPS, 1))
                 ).astype(np.float32)
        inputs.append((param, grads))
        outputs = [((STEPS, N), 'f32')] + [((N,), 'f32')] * len(case.states)
        exec_cases.append(mp_exec.Case(case.name, [(param, 'f32'), (grads, 'f32')],
                                       case.body(), outputs))
    results = mp_exec.execute(exec_cases, mp_opt, lowering, runner)
    failed = 0
    for case, (param, grads), got in zip(cases, inputs, results):
        want = case.reference(param, grads)
        bad = []
        for k, (g, w) in enumerate(zip(got, want)):
            g32 = g.astype(np.float32)
            if not np.array_equal(g32.view(np.uint32), w.astype(np.float32).view(np.uint32)):
                where = np.argwhere(g32 != w)
                first = tuple(where[0]) if len(where) else '?'
                bad.append(f'result {k}: {int((g32 != w).sum())} differ, first at {first}: '
                           f'{g32[first] if len(where) else ""} vs {w[first] if len(where) else ""}')
        if bad:
            failed += 1
            print(f'FAIL {case.name}: ' + '; '.join(bad))
        else:
            print(f'ok {case.name}')
    print(f'{len(cases)} checks, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
