"""mp.dropout against PyTorch (torch_compare.py), forward and backward in
f32, f16 and bf16:

- p = 0: torch.nn.functional.dropout(x, 0, training=True) is the identity
  and so is mp.dropout (bit for bit, gradient included), with the state
  returned unchanged;
- p > 0: PyTorch's dropout formula `input * mask * scale` with
  scale = 1/(1 − p) (CUDA's fused dropout, computed in float and rounded
  once: torch_compare's upcast reference) on the mask that the Python
  Philox (Integration/Inputs/philox.py) gives for mp's state: forward and
  gradient bit for bit. PyTorch's CPU generator (mt19937) cannot give the
  same mask; random_statistics.test and the statistical check below compare
  the distributions instead.
- Statistical parity: the kept fraction of torch's CPU dropout and of
  mp.dropout on 2^16 elements, each within 5 binomial standard deviations
  of 1 − p (mp's count comes from the reference Philox, which
  random-stream.test checks bit for bit against the lowering).
"""

import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', 'Inputs'))
import philox  # noqa: E402
from torch_compare import OpCheck, main  # noqa: E402

torch.manual_seed(0)
SEED, OFFSET = 31337, 256
SHAPE = (8, 24)
checks = []
for dtype, name in ((torch.float32, 'f32'), (torch.float16, 'f16'),
                    (torch.bfloat16, 'bf16')):
    t = f'tensor<8x24x{name}>'
    x = torch.randn(*SHAPE)
    # Non-finite inputs: a dropped one is NaN (x · 0), as in PyTorch.
    x[0, :4] = torch.tensor([float('inf'), float('-inf'), float('nan'), -0.0])
    x = x.to(dtype)
    state = torch.tensor([SEED, OFFSET], dtype=torch.int64)
    checks.append(OpCheck(
        f'dropout p=0 {name}',
        lambda x, s: (torch.nn.functional.dropout(x, 0.0, training=True), s),
        f'{{out0}}, {{out1}} = mp.dropout {{in0}}, {{in1}} p(0.0) : {t}',
        inputs=[x, state]))
    for p in (0.2, 0.5):
        keep = torch.from_numpy(
            philox.dropout_keep(SEED, OFFSET, x.numel(), p)).reshape(SHAPE)
        scale = float(torch.tensor(1.0 / (1.0 - p), dtype=torch.float32))

        def formula(x, s, keep=keep, scale=scale, p=p):
            n = x.numel()
            new = torch.tensor([SEED, philox.advanced(OFFSET, n)])
            return x * keep.to(x.dtype) * scale, new
        checks.append(OpCheck(
            f'dropout p={p} {name} (input * mask * 1/(1-p))', formula,
            f'{{out0}}, {{out1}} = mp.dropout {{in0}}, {{in1}} p({p!r}) : {t}',
            inputs=[x, state]))

# Statistical parity of the kept fraction.
N = 1 << 16
for p in (0.1, 0.5, 0.9):
    sigma = math.sqrt(N * p * (1 - p))
    torch_kept = int(torch.count_nonzero(
        torch.nn.functional.dropout(torch.ones(N), p, training=True)))
    mp_kept = int(philox.dropout_keep(SEED, 0, N, p).sum())
    zt = abs(torch_kept - N * (1 - p)) / sigma
    zm = abs(mp_kept - N * (1 - p)) / sigma
    print(f'{"ok" if max(zt, zm) <= 5 else "FAIL"} kept fraction p={p}: '
          f'torch |z| = {zt:.2f}, mp |z| = {zm:.2f} <= 5')

main(checks)
