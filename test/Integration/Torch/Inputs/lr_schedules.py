#!/usr/bin/env python3
"""Learning-rate schedules against torch.optim.lr_scheduler over 1,000
steps: the C++ builder (mp::buildLRSchedule, driven by mp-lr-schedule-test)
and the Python builder (mixedprec.lr_schedule_ops) each give a function
`(tensor<i64>) -> tensor<f64>` per schedule; @main evaluates them at the
counters 0..999, JIT-compiled, and prints the f64 bit patterns.

Checked: both equal PyTorch's closed form (`_get_closed_form_lr`; for
SequentialLR the closed form of the active schedule at its local epoch, as
SequentialLR restarts it with step(0)) bit for bit in f64, hence in f32.
Reported, not failed: how far the closed form is from the values PyTorch's
recursive scheduler.step() produces (they differ by rounding, e.g.
CosineAnnealingLR), as the largest distance in f32 ulps over the 1,000
steps; that distance is bounded by the test (see STEPPING_ULPS).

Usage: lr_schedules.py MP_OPT "LOWERING FLAGS" "MLIR_RUNNER COMMAND"
       MP_LR_SCHEDULE_TEST
"""

import bisect
import os
import struct
import subprocess
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', 'Inputs'))
import mp_exec  # noqa: E402

STEPS = 1000
# The closed form and PyTorch's recursive stepping differ by at most this
# many f32 ulps over the 1,000 steps of every schedule below (measured:
# their f64 values differ in up to 985 of 1,000 steps, by < 3e-13 relative).
STEPPING_ULPS = 1


def _hex(value):
    return '0x%016X : f64' % struct.unpack('<Q', struct.pack('<d', float(value)))[0]


def cpp_spec(schedule, base_lr=None):
    """The test.lr_schedule dictionary of a mixedprec schedule."""
    import mixedprec as m
    fields = {}
    if base_lr is not None:
        fields['base_lr'] = _hex(base_lr)
    kind = type(schedule).__name__
    fields['kind'] = f'"{kind}"'
    if isinstance(schedule, m.StepLR):
        fields.update(step_size=f'{schedule.step_size} : i64', gamma=_hex(schedule.gamma))
    elif isinstance(schedule, m.MultiStepLR):
        fields.update(milestones='[' + ', '.join(f'{v} : i64' for v in schedule.milestones)
                      + ']', gamma=_hex(schedule.gamma))
    elif isinstance(schedule, m.ExponentialLR):
        fields.update(gamma=_hex(schedule.gamma))
    elif isinstance(schedule, m.CosineAnnealingLR):
        fields.update(T_max=f'{schedule.T_max} : i64', eta_min=_hex(schedule.eta_min))
    elif isinstance(schedule, m.LinearLR):
        fields.update(start_factor=_hex(schedule.start_factor),
                      end_factor=_hex(schedule.end_factor),
                      total_iters=f'{schedule.total_iters} : i64')
    elif isinstance(schedule, m.SequentialLR):
        fields.update(milestones='[' + ', '.join(f'{v} : i64' for v in schedule.milestones)
                      + ']', schedulers='[' + ', '.join(cpp_spec(s) for s in
                                                        schedule.schedulers) + ']')
    return '{' + ', '.join(f'{k} = {v}' for k, v in fields.items()) + '}'


def torch_scheduler(schedule, optimizer):
    """The torch scheduler equivalent to a mixedprec schedule."""
    import mixedprec as m
    S = torch.optim.lr_scheduler
    if isinstance(schedule, m.StepLR):
        return S.StepLR(optimizer, schedule.step_size, schedule.gamma)
    if isinstance(schedule, m.MultiStepLR):
        return S.MultiStepLR(optimizer, schedule.milestones, schedule.gamma)
    if isinstance(schedule, m.ExponentialLR):
        return S.ExponentialLR(optimizer, schedule.gamma)
    if isinstance(schedule, m.CosineAnnealingLR):
        return S.CosineAnnealingLR(optimizer, schedule.T_max, schedule.eta_min)
    if isinstance(schedule, m.LinearLR):
        return S.LinearLR(optimizer, schedule.start_factor, schedule.end_factor,
                          schedule.total_iters)
    if isinstance(schedule, m.SequentialLR):
        inner = [torch_scheduler(s, optimizer) for s in schedule.schedulers]
        return S.SequentialLR(optimizer, inner, schedule.milestones)
    raise TypeError(schedule)


_CLOSED = {}


def torch_closed_form(schedule, base_lr, epoch):
    """PyTorch's closed-form learning rate of `schedule` at `epoch`."""
    import mixedprec as m
    if isinstance(schedule, m.SequentialLR):
        index = bisect.bisect_right(schedule.milestones, epoch)
        local = epoch - (schedule.milestones[index - 1] if index else 0)
        return torch_closed_form(schedule.schedulers[index], base_lr, local)
    key = (id(schedule), base_lr)
    if key not in _CLOSED:
        optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=base_lr)
        _CLOSED[key] = (schedule, torch_scheduler(schedule, optimizer))
    scheduler = _CLOSED[key][1]
    scheduler.last_epoch = epoch
    return scheduler._get_closed_form_lr()[0]


def torch_stepped(schedule, base_lr):
    """The lr PyTorch's optimizer sees at steps 0..STEPS-1 when the scheduler
    is stepped normally after each optimizer.step()."""
    p = torch.zeros(1, requires_grad=True)
    optimizer = torch.optim.SGD([p], lr=base_lr)
    scheduler = torch_scheduler(schedule, optimizer)
    values = []
    for _ in range(STEPS):
        values.append(optimizer.param_groups[0]['lr'])
        p.grad = torch.zeros(1)
        optimizer.step()
        scheduler.step()
    return np.array(values)


def ulps(a, b):
    """The distance between f32 values in units in the last place."""
    def ordered(x):
        bits = np.asarray(x, dtype=np.float32).view(np.int32).astype(np.int64)
        return np.where(bits < 0, -(bits & 0x7FFFFFFF), bits)
    return np.abs(ordered(a) - ordered(b))


def schedules():
    import mixedprec as m
    return [
        ('StepLR(30, 0.1)', m.StepLR(30, 0.1), 0.1),
        ('StepLR(7, 0.5)', m.StepLR(step_size=7, gamma=0.5), 0.05),
        ('MultiStepLR([30, 80, 80, 500], 0.1)', m.MultiStepLR([80, 30, 80, 500], 0.1), 0.1),
        ('ExponentialLR(0.99)', m.ExponentialLR(0.99), 0.1),
        ('ExponentialLR(0.9)', m.ExponentialLR(0.9), 1.0),
        ('CosineAnnealingLR(100, 1e-3)', m.CosineAnnealingLR(100, 1e-3), 0.1),
        ('CosineAnnealingLR(1000)', m.CosineAnnealingLR(T_max=1000), 0.01),
        ('LinearLR(0.25, 1.0, 50)', m.LinearLR(0.25, 1.0, 50), 0.1),
        ('LinearLR()', m.LinearLR(), 0.003),
        ('LinearLR(1.0, 0.0, 1000)', m.LinearLR(1.0, 0.0, 1000), 0.5),
        ('SequentialLR(LinearLR, CosineAnnealingLR)',
         m.SequentialLR([m.LinearLR(0.1, 1.0, 10), m.CosineAnnealingLR(990)], [10]), 0.1),
        ('SequentialLR(ExponentialLR, StepLR, MultiStepLR)',
         m.SequentialLR([m.ExponentialLR(0.9), m.StepLR(100, 0.5), m.MultiStepLR([50], 0.2)],
                        [20, 300]), 0.1),
    ]


def module_text(entries):
    import mixedprec as m
    lines = ['func.func private @printMemrefI64(memref<*xi64>)']
    for k, (_, schedule, base_lr) in enumerate(entries):
        lines.append(f'func.func private @cpp{k}(tensor<i64>) -> tensor<f64> '
                     f'attributes {{test.lr_schedule = {cpp_spec(schedule, base_lr)}}}')
        ops, lr = m.lr_schedule_ops(schedule, base_lr, '%counter')
        lines.append(f'func.func private @py{k}(%counter: tensor<i64>) -> tensor<f64> {{')
        lines += ['  ' + op for op in ops] + [f'  return {lr} : tensor<f64>', '}']
    lines += ['func.func @main() {', '  %c0 = arith.constant 0 : index',
              '  %c1 = arith.constant 1 : index', f'  %cn = arith.constant {STEPS} : index']
    for k in range(len(entries)):
        for side in ('cpp', 'py'):
            lines += [
                f'  %{side}{k}_init = tensor.empty() : tensor<{STEPS}xi64>',
                f'  %{side}{k}_all = scf.for %i = %c0 to %cn step %c1 '
                f'iter_args(%acc = %{side}{k}_init) -> (tensor<{STEPS}xi64>) {{',
                '    %e = arith.index_cast %i : index to i64',
                '    %et = tensor.from_elements %e : tensor<i64>',
                f'    %lr = func.call @{side}{k}(%et) : (tensor<i64>) -> tensor<f64>',
                '    %lrs = tensor.extract %lr[] : tensor<f64>',
                '    %bits = arith.bitcast %lrs : f64 to i64',
                f'    %acc1 = tensor.insert %bits into %acc[%i] : tensor<{STEPS}xi64>',
                f'    scf.yield %acc1 : tensor<{STEPS}xi64>', '  }',
                f'  %{side}{k}_m = bufferization.to_buffer %{side}{k}_all : '
                f'tensor<{STEPS}xi64> to memref<{STEPS}xi64>',
                f'  %{side}{k}_u = memref.cast %{side}{k}_m : memref<{STEPS}xi64> to '
                'memref<*xi64>',
                f'  call @printMemrefI64(%{side}{k}_u) : (memref<*xi64>) -> ()']
    lines += ['  return', '}']
    return '\n'.join(lines) + '\n'


def main():
    mp_opt, lowering, runner, schedule_test = sys.argv[1:5]
    entries = schedules()
    built = subprocess.run([schedule_test, '-'], input=module_text(entries),
                           capture_output=True, text=True)
    if built.returncode != 0:
        print('FAIL mp-lr-schedule-test:\n' + built.stderr)
        return 1
    printed = mp_exec.run_module(mp_opt, lowering, runner, built.stdout, passes=[])
    failed = 0
    for k, (name, schedule, base_lr) in enumerate(entries):
        want = np.array([torch_closed_form(schedule, base_lr, e) for e in range(STEPS)])
        stepped = torch_stepped(schedule, base_lr)
        distance = int(ulps(want, stepped).max())
        for side, bits in (('C++', printed[2 * k]), ('Python', printed[2 * k + 1])):
            got = np.array(bits, dtype=np.int64).view(np.float64)
            wrong = np.flatnonzero(got.view(np.int64) != want.view(np.int64))
            if len(wrong) or distance > STEPPING_ULPS:
                failed += 1
                first = wrong[0] if len(wrong) else None
                print(f'FAIL {side} {name}: {len(wrong)} of {STEPS} differ from the closed '
                      f'form' + (f', first at step {first}: {got[first]!r} vs '
                                 f'{want[first]!r}' if first is not None else '')
                      + f'; {distance} f32 ulps from stepping')
            else:
                print(f'ok {side} {name} (f32 distance to torch stepping: {distance} ulps)')
    print(f'{2 * len(entries)} checks, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
