# Runs inside the sandbox: compiles each @triton.jit kernel the reproducer launches, ahead of
# time for one target through one of Triton's backends, without a GPU: `hip` (AMD, amdgcn) or
# `cuda` (NVIDIA, PTX then a cubin by the ptxas bundled with Triton). Launches are turned into
# compilations; what the script does after its launches (checking results) is ignored.
# The first line of stdin is the run's nonce, for the infrastructure marker (see interpret.py).
# What was compiled the worker reads from out/kernels.asm, how many launches from out/launches.
import os
import runpy
import sys
import traceback

nonce = sys.stdin.readline().strip()
os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
vendor, target, missing = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    import triton.runtime.jit as jit
    from triton.backends.compiler import GPUTarget
    from triton.runtime.driver import driver
except ImportError as exc:
    print(f"REPRO-INFRA-{nonce}: {missing} ({exc})", flush=True)
    sys.exit(3)
del nonce

if vendor == "cuda":
    TARGET = GPUTarget("cuda", int(target.removeprefix("sm_")), 32)
    ASM = "ptx"
else:
    WARP = 32 if target.startswith(("gfx10", "gfx11", "gfx12")) else 64
    TARGET = GPUTarget("hip", target, WARP)
    ASM = "amdgcn"


class AheadOfTimeDriver:
    def get_current_target(self):
        return TARGET

    def get_current_device(self):
        return 0

    def get_current_stream(self, device=None):
        return 0

    def get_active_torch_device(self):
        import torch  # an optional extra: imported only where it is used

        return torch.device("cpu")


driver.set_active(AheadOfTimeDriver())
compiled, failed = [], []
original_run = jit.JITFunction.run


def compile_only(self, *args, grid, warmup, **kwargs):
    try:
        kernel = original_run(self, *args, grid=grid, warmup=True, **kwargs)
    except BaseException:
        failed.append(self.__name__)
        raise
    asm = kernel.asm.get(ASM, "")
    compiled.append((self.__name__, asm if isinstance(asm, str) else asm.decode()))
    return kernel


jit.JITFunction.run = compile_only
sys.argv = ["repro.py"]
try:
    runpy.run_path("repro.py", run_name="__main__")
except BaseException as exc:
    if failed or not compiled:
        raise
    print(f"after compiling, the script stopped ({type(exc).__name__}); ignored", flush=True)
    traceback.print_exc(limit=0, file=sys.stdout)
finally:
    os.makedirs("out", exist_ok=True)
    with open("out/kernels.asm", "w") as out:
        for name, asm in compiled:
            out.write(f"; ===== {name} for {target} =====\n{asm}\n")
    with open("out/launches", "w") as out:
        out.write(str(len(compiled)))
if compiled:
    print(f"compiled for {target}: {', '.join(name for name, _ in compiled)}", flush=True)
