import torch
import triton
import triton.language as tl


@triton.jit
def dequant_fp8_kernel(q_ptr, scale_ptr, out_ptr, N: tl.constexpr):
    # MI300-style fp8 (e4m3 "fnuz") weights, one scale per row
    row = tl.program_id(0)
    cols = tl.arange(0, N)
    q = tl.load(q_ptr + row * N + cols)
    s = tl.load(scale_ptr + row)
    tl.store(out_ptr + row * N + cols, q.to(tl.float32) * s)


torch.manual_seed(0)
M, N = 4, 128
w = torch.randn(M, N, device="cpu")
scale = w.abs().amax(dim=1) / 240.0
q = (w / scale[:, None]).to(torch.float8_e4m3fnuz)
out = torch.empty(M, N, device="cpu")
dequant_fp8_kernel[(M,)](q, scale, out, N=N)

expected = q.to(torch.float32) * scale[:, None]
torch.testing.assert_close(out, expected)
print("max abs dequant error vs fp32 weights:", (out - w).abs().max().item())
