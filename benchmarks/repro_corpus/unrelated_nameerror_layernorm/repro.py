import torch
import triton
import triton.language as tl


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    diff = tl.where(mask, x - mean, 0.0)
    var = tl.sum(diff * diff, axis=0) / n_cols
    y = diff / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    tl.store(out_ptr + row * n_cols + cols, (y * w + b).to(tl.float16), mask=mask)


torch.manual_seed(0)
M, N = 64, 3000
x = torch.randn(M, N, dtype=torch.float16, device="cpu")
w = torch.rand(N, dtype=torch.float16, device="cpu")
b = torch.randn(N, dtype=torch.float16, device="cpu")
out = torch.empty_like(x)
layernorm_kernel[(M,)](x, w, b, out, N, 1e-5, BLOCK=4096)

ref = torch.nn.functional.layer_norm(x.float(), (N,), w.float(), b.float(), 1e-5)
print("max abs err:", (out.float() - reference).abs().max().item())
torch.testing.assert_close(out.float(), ref, atol=1e-2, rtol=1e-2)
