"""A reproducer written for a GPU runs on the CPU backends: its devices are rewritten by the
syntax tree wherever they stand, lines kept, and a compiler neutralises the script's own
TRITON_INTERPRET; for real on the interpreter and the AMD compiler."""

from kernels_ci.backends import backend_get
from kernels_ci.backends.base import RunSpec
from kernels_ci.rewrites import INTERPRET_OFF, rewrite_for_cpu

HISTOGRAM = '''import os
import torch
import triton
import triton.language as tl

os.environ["TRITON_INTERPRET"] = "1"  # "cuda" in a comment stays


@triton.jit
def histogram_kernel(x_ptr, out_ptr, n, BINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.atomic_add(out_ptr + x, 1, mask=offs < n)


def test_histogram(n, bins, device, dtype):
    """Counts per bin on the device ("cuda" by default) must match torch.histc."""
    x = torch.randint(0, bins, (n,), device=device, dtype=getattr(torch, dtype))
    out = torch.zeros(bins, dtype=torch.int32, device=torch.device(device))
    histogram_kernel[(1,)](x, out, n, BINS=bins, BLOCK=8)
    expected = torch.bincount(x.long(), minlength=bins).to(torch.int32).cuda()
    assert torch.equal(out.cpu(), expected.cpu()), (out, expected)
    print("ok")


test_histogram(8, 8, "cuda", "int32")  # café: a non-ASCII line before the device
'''


def test_devices_in_any_position_become_cpu_and_every_line_stays_where_it_was():
    script, notes = rewrite_for_cpu(HISTOGRAM)
    assert script.count("\n") == HISTOGRAM.count("\n")
    assert 'test_histogram(8, 8, "cpu", "int32")  # café' in script
    assert ".to(torch.int32).cpu()" in script
    assert '"cuda" in a comment stays' in script
    assert '("cuda" by default)' in script  # a docstring is no device
    assert os_line(script) == 'os.environ["TRITON_INTERPRET"] = "1"'  # the interpreter keeps it
    assert notes == ["2 GPU device reference(s) rewritten to cpu (line 21, 26)"]


def test_a_compiler_neutralises_the_scripts_own_interpreter_switch():
    script, notes = rewrite_for_cpu(HISTOGRAM, keep_interpret=False)
    assert os_line(script) == f'os.environ["{INTERPRET_OFF}"] = "1"'
    assert "neutralised, so the kernel is compiled (line 6)" in notes[1]
    for spelling in (
        'os.environ.setdefault("TRITON_INTERPRET", "1")\n',
        "os.putenv('TRITON_INTERPRET', '1')\n",
    ):
        assert INTERPRET_OFF in rewrite_for_cpu(spelling, keep_interpret=False)[0]


def test_device_strings_of_every_spelling_and_nothing_else():
    script = (
        'a = torch.ones(4, device="cuda:1")\nb = a.to("hip")\nc = torch.device(\'cuda\')\n'
        'd = "cudagraph"\ne = "CUDA"\nf = x.cuda(0)\n'
    )
    rewritten, _ = rewrite_for_cpu(script)
    assert rewritten == (
        'a = torch.ones(4, device="cpu")\nb = a.to("cpu")\nc = torch.device("cpu")\n'
        'd = "cudagraph"\ne = "CUDA"\nf = x.cuda(0)\n'
    )


def test_a_script_that_does_not_parse_gets_the_text_rewrite():
    script = 'x = torch.ones(4, device="cuda")\nif broken\n    y = x.cuda()\n'
    rewritten, notes = rewrite_for_cpu(script)
    assert rewritten == 'x = torch.ones(4, device="cpu")\nif broken\n    y = x.cpu()\n'
    assert notes == ["2 GPU device reference(s) rewritten to cpu (by text)"]


def os_line(script: str) -> str:
    return next(line.split("  #")[0] for line in script.splitlines() if "os.environ[" in line)


def run(backend: str, script: str, arch: str):
    spec = RunSpec(script=script, language="python", arch=arch, timeout_s=60)
    return backend_get(backend).execute(spec)


def test_a_device_passed_as_an_argument_runs_in_the_interpreter(needs_kernels_extra):
    execution = run("triton-interpreter", HISTOGRAM, "cpu")
    assert execution.observation.kind == "pass", execution.result.output
    assert "not compiled with CUDA" not in execution.result.output
    assert execution.result.stdout.strip() == "ok"


def test_a_script_that_turns_the_interpreter_on_is_still_compiled_for_gfx942(
    needs_kernels_extra,
):
    execution = run("triton-amd-compile", HISTOGRAM, "gfx942")
    assert execution.observation.kind == "pass", execution.result.output
    assert "; ===== histogram_kernel for gfx942 =====" in execution.assembly
    assert "neutralised" in execution.note
