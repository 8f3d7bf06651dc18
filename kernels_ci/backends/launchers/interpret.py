# Runs inside the sandbox: the reproducer under Triton's interpreter, on the CPU.
# The first line of stdin is the run's nonce: only this launcher can mark an infrastructure
# failure (the reproducer never sees the nonce, so printing a marker fakes nothing).
import os
import runpy
import sys

nonce = sys.stdin.readline().strip()
os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
os.environ["TRITON_INTERPRET"] = "1"
try:
    import numpy  # noqa: F401
    import torch  # noqa: F401
    import triton  # noqa: F401
except ImportError as exc:
    print(f"REPRO-INFRA-{nonce}: {sys.argv[1]} ({exc})", flush=True)
    sys.exit(3)
del nonce
sys.argv = ["repro.py"]
runpy.run_path("repro.py", run_name="__main__")
