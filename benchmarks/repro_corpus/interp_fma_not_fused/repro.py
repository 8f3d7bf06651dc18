import torch
import triton
import triton.language as tl


@triton.jit
def two_product_kernel(a_ptr, b_ptr, hi_ptr, lo_ptr, n, BLOCK: tl.constexpr):
    # error-free product: a*b == hi + lo exactly, lo recovered with a single-rounding fma
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    hi = a * b
    lo = tl.fma(a, b, -hi)
    tl.store(hi_ptr + offs, hi, mask=mask)
    tl.store(lo_ptr + offs, lo, mask=mask)


torch.manual_seed(0)
n = 256
a = torch.rand(n, dtype=torch.float32, device="cpu") + 1.0
b = torch.rand(n, dtype=torch.float32, device="cpu") + 1.0
hi = torch.empty_like(a)
lo = torch.empty_like(a)
two_product_kernel[(triton.cdiv(n, 64),)](a, b, hi, lo, n, BLOCK=64)

exact = a.double() * b.double()
expected_lo = (exact - hi.double()).float()
print("nonzero lo terms:", int((lo != 0).sum()), "of", n, "expected", int((expected_lo != 0).sum()))
torch.testing.assert_close(lo, expected_lo, rtol=0, atol=0)
