import torch
import triton
import triton.language as tl


@triton.jit
def compact_kernel(x_ptr, keep_ptr, out_ptr, count_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    keep = tl.load(keep_ptr + offs)  # torch.bool mask
    pos = tl.cumsum(keep, axis=0) - 1  # running count of kept elements
    tl.store(out_ptr + pos, x, mask=keep)
    tl.store(count_ptr, tl.sum(keep.to(tl.int32), axis=0))


torch.manual_seed(0)
BLOCK = 64
x = torch.randn(BLOCK, device="cpu")
keep = x > 0
out = torch.zeros(BLOCK, device="cpu")
count = torch.zeros(1, dtype=torch.int32, device="cpu")
compact_kernel[(1,)](x, keep, out, count, BLOCK=BLOCK)

k = int(keep.sum())
print(
    "kept",
    int(count),
    "expected",
    k,
    "first outputs",
    out[:4].tolist(),
    "expected",
    x[keep][:4].tolist(),
)
torch.testing.assert_close(out[:k], x[keep])
