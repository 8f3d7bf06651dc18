import torch
import triton
import triton.language as tl


@triton.jit
def row_l2norm_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    # loop bound is a runtime value (n_cols is not a constexpr)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
        acc += x * x
    tl.store(out_ptr + row, tl.sqrt(tl.sum(acc, axis=0)))


torch.manual_seed(0)
x = torch.randn(16, 1000, device="cpu")
out = torch.empty(16, device="cpu")
row_l2norm_kernel[(16,)](x, out, x.shape[1], x.stride(0), BLOCK=256)
torch.testing.assert_close(out, x.norm(dim=1))
print("ok")
