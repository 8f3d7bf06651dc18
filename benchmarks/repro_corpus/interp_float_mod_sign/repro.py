import torch
import triton
import triton.language as tl


@triton.jit
def wrap_phase_kernel(x_ptr, out_ptr, period, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    # remainder keeps the sign of x on the GPU (C fmod), like torch.fmod
    tl.store(out_ptr + offs, x % period, mask=mask)


torch.manual_seed(0)
n = 1000
x = (torch.rand(n, device="cpu") - 0.5) * 40.0
out = torch.empty_like(x)
grid = (triton.cdiv(n, 256),)
wrap_phase_kernel[grid](x, out, 6.25, n, BLOCK=256)

expected = torch.fmod(x, 6.25)
bad = (out - expected).abs() > 1e-4
print(
    "mismatches:",
    int(bad.sum()),
    "e.g. x =",
    x[bad][:3].tolist(),
    "->",
    out[bad][:3].tolist(),
    "expected",
    expected[bad][:3].tolist(),
)
torch.testing.assert_close(out, expected)
