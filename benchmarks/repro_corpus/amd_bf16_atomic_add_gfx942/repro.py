import torch
import triton
import triton.language as tl


@triton.jit
def embedding_bwd_kernel(grad_out_ptr, idx_ptr, grad_w_ptr, D: tl.constexpr):
    # one program per token: scatter-add its gradient row into the bf16 weight gradient
    tok = tl.program_id(0)
    cols = tl.arange(0, D)
    row = tl.load(idx_ptr + tok)
    g = tl.load(grad_out_ptr + tok * D + cols)
    tl.atomic_add(grad_w_ptr + row * D + cols, g)


torch.manual_seed(0)
T, V, D = 64, 16, 128
idx = torch.randint(0, V, (T,), dtype=torch.int64, device="cpu")
grad_out = torch.randn(T, D, device="cpu").to(torch.bfloat16)
grad_w = torch.zeros(V, D, dtype=torch.bfloat16, device="cpu")
embedding_bwd_kernel[(T,)](grad_out, idx, grad_w, D=D)

expected = torch.zeros(V, D).index_add_(0, idx, grad_out.float())
torch.testing.assert_close(grad_w.float(), expected, atol=0.1, rtol=0.02)
print("ok")
