import io
import urllib.request

import torch
import triton
import triton.language as tl


@triton.jit
def rope_kernel(q_ptr, cos_ptr, sin_ptr, out_ptr, HALF: tl.constexpr):
    tok = tl.program_id(0)
    d = tl.arange(0, HALF)
    x1 = tl.load(q_ptr + tok * 2 * HALF + d)
    x2 = tl.load(q_ptr + tok * 2 * HALF + HALF + d)
    c = tl.load(cos_ptr + tok * HALF + d)
    s = tl.load(sin_ptr + tok * HALF + d)
    tl.store(out_ptr + tok * 2 * HALF + d, x1 * c - x2 * s)
    tl.store(out_ptr + tok * 2 * HALF + HALF + d, x2 * c + x1 * s)


# cos/sin cache exported from the model (2048 positions, head_dim 128)
URL = "https://huggingface.co/datasets/kernel-debug/rope-cache/resolve/main/rope_cache_2048x64.pt"
cache = torch.load(io.BytesIO(urllib.request.urlopen(URL, timeout=30).read()))
cos, sin = cache["cos"].float(), cache["sin"].float()
T, HALF = cos.shape
torch.manual_seed(0)
q = torch.randn(T, 2 * HALF, device="cpu")
out = torch.empty_like(q)
rope_kernel[(T,)](q, cos, sin, out, HALF=HALF)
q1, q2 = q[:, :HALF], q[:, HALF:]
ref = torch.cat([q1 * cos - q2 * sin, q2 * cos + q1 * sin], dim=1)
torch.testing.assert_close(out, ref)
