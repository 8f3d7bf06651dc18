import torch
import triton
import triton.language as tl


@triton.jit
def bucketize_kernel(hash_ptr, out_ptr, nbuckets, n, BLOCK: tl.constexpr):
    # Lemire's "fast range": bucket = (uint64(h) * nbuckets) >> 32
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    h = tl.load(hash_ptr + offs, mask=mask, other=0)
    nb = tl.full((BLOCK,), 0, tl.int32) + nbuckets
    tl.store(out_ptr + offs, tl.umulhi(h, nb), mask=mask)


torch.manual_seed(0)
n = 512
hashes = torch.randint(-(2**31), 2**31 - 1, (n,), dtype=torch.int32, device="cpu")
out = torch.empty_like(hashes)
bucketize_kernel[(triton.cdiv(n, 128),)](hashes, out, 1000, n, BLOCK=128)

# reference: treat the 32-bit hash as unsigned
expected = ((hashes.to(torch.int64) & 0xFFFFFFFF) * 1000) >> 32
print("buckets:", out[:6].tolist(), "expected:", expected[:6].tolist())
assert out.min() >= 0 and out.max() < 1000, "bucket index out of range"
torch.testing.assert_close(out.to(torch.int64), expected)
