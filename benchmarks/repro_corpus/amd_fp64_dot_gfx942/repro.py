import torch
import triton
import triton.language as tl


@triton.jit
def dgemm_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float64)
    for k in range(0, K, BK):
        a = tl.load(
            a_ptr + rm[:, None] * K + (k + rk)[None, :],
            mask=(rm[:, None] < M) & ((k + rk)[None, :] < K),
            other=0.0,
        )
        b = tl.load(
            b_ptr + (k + rk)[:, None] * N + rn[None, :],
            mask=((k + rk)[:, None] < K) & (rn[None, :] < N),
            other=0.0,
        )
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


torch.manual_seed(0)
M, N, K = 128, 128, 64
a = torch.randn(M, K, dtype=torch.float64, device="cpu")
b = torch.randn(K, N, dtype=torch.float64, device="cpu")
c = torch.empty(M, N, dtype=torch.float64, device="cpu")
grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
dgemm_kernel[grid](a, b, c, M, N, K, BM=32, BN=32, BK=16)
torch.testing.assert_close(c, a @ b)
print("ok")
