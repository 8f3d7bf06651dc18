import torch
import triton
import triton.language as tl
from liger_kernel.ops.utils import calculate_settings


@triton.jit
def rmsnorm_fwd_kernel(x_ptr, w_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    tl.store(out_ptr + row * n_cols + cols, (x * rstd * w).to(tl.bfloat16), mask=mask)


torch.manual_seed(0)
n_rows, n_cols = 32, 4000
x = torch.randn(n_rows, n_cols, dtype=torch.bfloat16, device="cpu")
w = torch.randn(n_cols, dtype=torch.bfloat16, device="cpu")
out = torch.empty_like(x)
BLOCK, num_warps = calculate_settings(n_cols)
rmsnorm_fwd_kernel[(n_rows,)](x, w, out, n_cols, 1e-6, BLOCK=BLOCK, num_warps=num_warps)

xf = x.float()
ref = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6) * w.float()
torch.testing.assert_close(out.float(), ref, atol=2e-2, rtol=2e-2)
