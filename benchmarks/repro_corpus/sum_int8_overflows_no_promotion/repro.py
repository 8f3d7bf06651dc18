import torch
import triton
import triton.language as tl


@triton.jit
def row_sum_int8_kernel(w_ptr, out_ptr, K: tl.constexpr):
    # per-row sum of int8 weights, used for the zero-point correction of an int8 GEMM
    row = tl.program_id(0)
    cols = tl.arange(0, K)
    w = tl.load(w_ptr + row * K + cols)
    tl.store(out_ptr + row, tl.sum(w, axis=0))


torch.manual_seed(0)
M, K = 8, 128
w = torch.randint(0, 127, (M, K), dtype=torch.int8, device="cpu")
out = torch.empty(M, dtype=torch.int32, device="cpu")
row_sum_int8_kernel[(M,)](w, out, K=K)

expected = w.to(torch.int32).sum(dim=1, dtype=torch.int32)
print("got", out.tolist())
print("expected", expected.tolist())
torch.testing.assert_close(out, expected)
