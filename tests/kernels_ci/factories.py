"""Issue bodies and cases for kernels_ci tests."""

from pathlib import Path

KERNELS = Path(__file__).resolve().parents[2] / "kernels_ci" / "fixtures" / "kernels"
IMAGE = "rocm/pytorch@sha256:" + "ab" * 32  # an image pinned by digest


def issue_body(
    script_name: str = "wrong_mask.py", *, script: str | None = None, prose: str = ""
) -> str:
    script = script if script is not None else (KERNELS / script_name).read_text()
    prose = prose or "Wrong results on MI300X: AssertionError: Tensor-likes are not close!"
    return f"{prose}\n\n<details><summary>repro</summary>\n\n```python\n{script}```\n</details>\n"


def fp8_compile_report(versions: str = "ROCm 6.4") -> str:
    """A report of the fp8e4b15 cast that does not compile for gfx942, quoting Triton's error."""
    script = (KERNELS / "fp8e4b15_cast.py").read_text()
    return f"""Casting to float8e4b15 does not compile for MI300X (gfx942), {versions}:

```
triton.compiler.errors.CompilationError: at 5:32:
    tl.store(out_ptr + offsets, x.to(tl.float8e4b15).to(tl.float32), mask=mask)
                                ^
target doesn't provide conversion for this type.
```

```python
{script}```
"""
