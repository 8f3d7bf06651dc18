import torch
import triton
import triton.language as tl


@triton.jit
def sanitize_kernel(x_ptr, out_ptr, lo, hi, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    # default propagate_nan=NONE: on the GPU this is fmax/fmin, a NaN input comes out as `lo`
    tl.store(out_ptr + offs, tl.clamp(x, lo, hi), mask=mask)


n = 16
x = torch.linspace(-2.0, 2.0, n, device="cpu")
x[3] = float("nan")
x[10] = float("nan")
out = torch.empty_like(x)
sanitize_kernel[(1,)](x, out, -1.0, 1.0, n, BLOCK=16)

expected = torch.clamp(torch.nan_to_num(x, nan=-1.0), -1.0, 1.0)
print("got", out[[2, 3, 10, 11]].tolist(), "expected", expected[[2, 3, 10, 11]].tolist())
assert not torch.isnan(out).any(), "clamp let NaN through"
torch.testing.assert_close(out, expected)
