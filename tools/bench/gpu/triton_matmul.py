"""A Triton matmul for the comparison in run_gpu_checks.py.

C = A · Bᵀ with A M×K and B N×K row-major (the layout of the kernels it is
compared with), accumulated in f32 (i32 for int8), as the Triton tutorial's
matmul with a few autotuned block shapes. Imported only when triton is
installed.
"""

import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 32}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 128}, num_stages=3, num_warps=8),
    ],
    key=["M", "N", "K"],
)
@triton.jit
def _matmul_nt(a, b, c, M, N, K, INTEGER: tl.constexpr, TF32: tl.constexpr,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32 if INTEGER else tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        kk = k * BLOCK_K + rk
        x = tl.load(a + rm[:, None] * K + kk[None, :],
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0)
        y = tl.load(b + rn[None, :] * K + kk[:, None],
                    mask=(rn[None, :] < N) & (kk[:, None] < K), other=0)
        if TF32:
            acc += tl.dot(x, y, input_precision="tf32")
        else:
            acc += tl.dot(x, y)
    tl.store(c + rm[:, None] * N + rn[None, :], acc.to(c.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def make(kernel, a, b, c):
    """A callable computing c = a · bᵀ with Triton, or None if this format
    does not compile here."""
    m, k = a.shape
    n = b.shape[0]
    integer = a.dtype == torch.int8
    tf32 = a.dtype == torch.float32

    def launch():
        grid = lambda meta: (triton.cdiv(m, meta["BLOCK_M"]), triton.cdiv(n, meta["BLOCK_N"]))
        _matmul_nt[grid](a, b, c, m, n, k, INTEGER=integer, TF32=tf32)

    try:
        launch()
        torch.cuda.synchronize()
    except Exception as error:  # noqa: BLE001 - e.g. FP8 pairings Triton rejects
        print(f"note: no Triton matmul for {kernel['label']}: {error}")
        return None
    return launch
