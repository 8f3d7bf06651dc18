# Runs inside the sandbox: the reproducer under Triton's interpreter, on the CPU.
# The first line of stdin is the run's nonce: only this launcher can mark an infrastructure
# failure (the reproducer never sees the nonce, so printing a marker fakes nothing).
# How many kernel launches the interpreter ran goes to out/launches when the script ends: a
# pass counts only when a kernel ran.
import atexit
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
    from triton.runtime.interpreter import GridExecutor
except ImportError as exc:
    print(f"REPRO-INFRA-{nonce}: {sys.argv[1]} ({exc})", flush=True)
    sys.exit(3)
del nonce

launches = [0]
original_call = GridExecutor.__call__  # every launch of every release (3.0 to 3.9) goes here


def counted_call(self, *args, **kwargs):
    launches[0] += 1
    return original_call(self, *args, **kwargs)


def write_launches():
    os.makedirs("out", exist_ok=True)
    with open("out/launches", "w") as out:
        out.write(str(launches[0]))


GridExecutor.__call__ = counted_call
atexit.register(write_launches)
sys.argv = ["repro.py"]
runpy.run_path("repro.py", run_name="__main__")
