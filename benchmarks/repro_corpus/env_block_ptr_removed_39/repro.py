import torch
import triton
import triton.language as tl


@triton.jit
def row_scale_kernel(x_ptr, s_ptr, out_ptr, M, N: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    x_blk = tl.make_block_ptr(
        x_ptr,
        shape=(M, N),
        strides=(N, 1),
        offsets=(pid * BM, 0),
        block_shape=(BM, BN),
        order=(1, 0),
    )
    o_blk = tl.make_block_ptr(
        out_ptr,
        shape=(M, N),
        strides=(N, 1),
        offsets=(pid * BM, 0),
        block_shape=(BM, BN),
        order=(1, 0),
    )
    rows = pid * BM + tl.arange(0, BM)
    s = tl.load(s_ptr + rows, mask=rows < M, other=0.0)
    for _ in range(0, N, BN):
        x = tl.load(x_blk, boundary_check=(0, 1), padding_option="zero")
        tl.store(o_blk, x * s[:, None], boundary_check=(0, 1))
        x_blk = tl.advance(x_blk, (0, BN))
        o_blk = tl.advance(o_blk, (0, BN))


torch.manual_seed(0)
M, N = 100, 300
x = torch.randn(M, N, device="cpu")
s = torch.rand(M, device="cpu")
out = torch.empty_like(x)
row_scale_kernel[(triton.cdiv(M, 32),)](x, s, out, M, N, BM=32, BN=64)
torch.testing.assert_close(out, x * s[:, None])
print("ok")
