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
