"""Checks the repro corpus's ground truth on a real GPU (run where one is: the device machine).

The corpus (benchmarks/repro_corpus) says, for each interpreter case, that a release's
interpreter gets a kernel wrong, or crashes, where the GPU does not: its scripts assert what the
hardware computes. Here every such script runs twice with the machine's own Triton and torch:
compiled for the GPU (its tensors on "cuda"), where it must pass, and in the interpreter (on the
CPU), whose outcome must be the one the corpus records for that Triton release (when the corpus
has that release). Standalone: no Django, no service.

    python benchmarks/repro_corpus_gpu.py --corpus benchmarks/repro_corpus [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

CLASSES = {"wrong_result", "crash", "environment"}
DEVICE_RE = re.compile(r"""device\s*=\s*(["'])(?:cpu|cuda)\1""")


def run(script: str, *, interpret: bool, timeout: float) -> tuple[str, str]:
    """(pass | fail | timeout, the last line it printed)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "repro.py"
        path.write_text(script)
        env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
        if interpret:
            env["TRITON_INTERPRET"] = "1"
        try:
            done = subprocess.run(
                [sys.executable, str(path)],
                cwd=folder,
                env=env,
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return "timeout", ""
    lines = [x for x in (done.stdout + done.stderr).splitlines() if x.strip()]
    return ("pass" if done.returncode == 0 else "fail"), (lines[-1][:200] if lines else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--timeout", type=float, default=120)
    args = parser.parse_args()
    import torch
    import triton

    version = triton.__version__.split("+")[0]
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else ""
    rows = []
    for folder in sorted(p for p in args.corpus.iterdir() if (p / "meta.json").exists()):
        meta = json.loads((folder / "meta.json").read_text())
        if meta["class"] not in CLASSES or meta.get("backend") != "triton-interpreter":
            continue
        script = (folder / "repro.py").read_text()
        on_gpu = run(DEVICE_RE.sub('device="cuda"', script), interpret=False, timeout=args.timeout)
        interpreted = run(DEVICE_RE.sub('device="cpu"', script), interpret=True, timeout=120)
        recorded = meta.get("per_version", {}).get(version, "")
        agrees = None
        if recorded:
            agrees = (recorded == "pass") == (interpreted[0] == "pass")
        rows.append(
            {
                "case": folder.name,
                "class": meta["class"],
                "gpu": on_gpu[0],
                "gpu_last_line": on_gpu[1],
                "interpreter": interpreted[0],
                "interpreter_last_line": interpreted[1],
                "corpus_says": recorded,
                "interpreter_agrees_with_corpus": agrees,
            }
        )
        print(
            f"{folder.name}: GPU {on_gpu[0]}; interpreter {interpreted[0]} "
            f"(corpus for {version}: {recorded or 'not recorded'})"
            + (f"\n    GPU said: {on_gpu[1]}" if on_gpu[0] != "pass" else ""),
            flush=True,
        )
    summary = {
        "triton": version,
        "torch": torch.__version__,
        "gpu": gpu,
        "cases": len(rows),
        "pass_on_gpu": sum(1 for r in rows if r["gpu"] == "pass"),
        "interpreter_agrees": sum(1 for r in rows if r["interpreter_agrees_with_corpus"]),
        "interpreter_compared": sum(
            1 for r in rows if r["interpreter_agrees_with_corpus"] is not None
        ),
    }
    print(json.dumps(summary, indent=2))
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "cases": rows}, indent=2))


if __name__ == "__main__":
    main()
