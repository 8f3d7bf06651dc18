# Runs inside the sandbox: the reproducer under Triton's interpreter, on the CPU.
import os
import runpy
import sys

os.environ["TRITON_INTERPRET"] = "1"
try:
    import numpy  # noqa: F401
    import torch  # noqa: F401
    import triton  # noqa: F401
except ImportError as exc:
    print(f"REPRO-INFRA: {sys.argv[1]} ({exc})", flush=True)
    sys.exit(3)
sys.argv = ["repro.py"]
runpy.run_path("repro.py", run_name="__main__")
