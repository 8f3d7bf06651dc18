import torch
import triton
import triton.language as tl


@triton.jit
def gelu_tanh_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    t = 2.0 * tl.sigmoid(2.0 * inner) - 1.0  # tanh(inner)
    tl.store(out_ptr + offs, (0.5 * x * (1.0 + t)).to(tl.float16), mask=mask)


# activations dumped from the failing training step
x = torch.load("gelu_inputs_step1830.pt", map_location="cpu")
x = x.to(torch.float16).contiguous().view(-1)
out = torch.empty_like(x)
n = x.numel()
gelu_tanh_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
ref = torch.nn.functional.gelu(x.float(), approximate="tanh")
print("nan in output:", torch.isnan(out).sum().item())
torch.testing.assert_close(out.float(), ref, atol=1e-2, rtol=1e-2)
