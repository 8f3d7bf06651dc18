"""Runs one untrusted command with limits: the only place a reproducer's process is started.

- its own session and process group, killed as a whole on the wall-clock timeout and at the end;
- a private temporary directory as working directory, HOME and TMPDIR, removed afterwards;
- RLIMIT_CPU, RLIMIT_AS, RLIMIT_NPROC, RLIMIT_FSIZE, no core files;
- no network: a new, empty network namespace (`unshare -rn`) where the kernel allows it; Python
  reproducers additionally start through a guard that replaces socket.socket. The result says
  which isolation applied, and the run log shows it;
- stdout and stderr go to files and come back truncated to a bound (head and tail).
"""

from __future__ import annotations

import contextlib
import functools
import os
import resource
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

GiB = 1024**3
SOCKET_GUARD = """\
import socket as _socket


class _NoNetwork(_socket.socket):
    def __init__(self, family=-1, *args, **kwargs):
        if family in (_socket.AF_INET, _socket.AF_INET6, -1):
            raise PermissionError("network access is disabled in the repro sandbox")
        super().__init__(family, *args, **kwargs)


def _no_network(*args, **kwargs):
    raise PermissionError("network access is disabled in the repro sandbox")


_socket.socket = _NoNetwork
_socket.create_connection = _no_network
_socket.getaddrinfo = _no_network
"""


@dataclass
class Limits:
    timeout_s: float = 60.0
    cpu_s: int = 120
    memory_bytes: int = 8 * GiB
    nproc: int = 1024
    fsize_bytes: int = 256 * 1024 * 1024
    output_bytes: int = 64 * 1024


@dataclass
class SandboxResult:
    returncode: int | None
    signal_name: str = ""
    timed_out: bool = False
    stdout: str = ""
    stderr: str = ""
    truncated: bool = False
    duration_s: float = 0.0
    isolation: str = ""
    files: dict[str, str] = field(default_factory=dict)

    @property
    def output(self) -> str:
        return self.stdout + ("\n" if self.stdout and self.stderr else "") + self.stderr


@functools.cache
def network_namespace_available() -> bool:
    if not shutil.which("unshare"):
        return False
    try:
        done = subprocess.run(
            ["unshare", "-rn", "true"], capture_output=True, timeout=10, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def _limit(limits: Limits):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 5))
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
        resource.setrlimit(resource.RLIMIT_NPROC, (limits.nproc, limits.nproc))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.fsize_bytes, limits.fsize_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


def _read_bounded(path: Path, bound: int) -> tuple[str, bool]:
    size = path.stat().st_size if path.exists() else 0
    with open(path, "rb") as handle:
        if size <= bound:
            return handle.read().decode("utf-8", "replace"), False
        head = handle.read(bound // 2)
        handle.seek(size - bound // 2)
        tail = handle.read()
    skipped = size - len(head) - len(tail)
    text = head.decode("utf-8", "replace")
    text += f"\n[... {skipped} bytes truncated ...]\n" + tail.decode("utf-8", "replace")
    return text, True


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def sandbox_run(
    argv: list[str],
    *,
    files: dict[str, str],
    limits: Limits,
    env: dict[str, str] | None = None,
    network_isolation: bool = True,
    python_guard: bool = False,
    collect: tuple[str, ...] = (),
    on_timeout=None,
    readable_by_others: bool = False,
) -> SandboxResult:
    """Run argv in a fresh private directory holding `files`; `{dir}` in argv is that directory.

    `collect` names files (relative, under the directory) to read back, bounded, afterwards.
    `on_timeout` is called before the process group is killed (a container CLI stops its
    container there).
    """
    workdir = Path(tempfile.mkdtemp(prefix="repro-"))
    try:
        for name, content in files.items():
            target = workdir / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")
            if readable_by_others:
                target.chmod(0o644)
        if readable_by_others:
            workdir.chmod(0o755)
        isolation = []
        base_env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(workdir),
            "TMPDIR": str(workdir),
            "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONUNBUFFERED": "1",
            "OMP_NUM_THREADS": "1",
        }
        if python_guard:
            guard = workdir / ".guard"
            guard.mkdir()
            (guard / "sitecustomize.py").write_text(SOCKET_GUARD)
            base_env["PYTHONPATH"] = str(guard)
            isolation.append("sockets blocked by sitecustomize")
        argv = [part.replace("{dir}", str(workdir)) for part in argv]
        if network_isolation and network_namespace_available():
            argv = ["unshare", "-rn", "--", *argv]
            isolation.insert(0, "empty network namespace (unshare -rn)")
        elif network_isolation:
            isolation.insert(0, "no network namespace available here")
        out_path, err_path = workdir / ".stdout", workdir / ".stderr"
        started = time.monotonic()
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            process = subprocess.Popen(
                argv,
                cwd=workdir,
                env={**base_env, **(env or {})},
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
                preexec_fn=_limit(limits),  # noqa: PLW1509 - limits must apply in the child
            )
            timed_out = False
            try:
                process.wait(timeout=limits.timeout_s)
            except subprocess.TimeoutExpired:
                timed_out = True
                if on_timeout is not None:
                    on_timeout()
                _kill_group(process.pid)
                process.wait()
            except BaseException:  # a task's soft time limit, a worker shutting down
                if on_timeout is not None:
                    on_timeout()
                _kill_group(process.pid)
                process.wait()
                raise
            _kill_group(process.pid)  # leftovers of a process that exited first
        duration = time.monotonic() - started
        stdout, cut_out = _read_bounded(out_path, limits.output_bytes)
        stderr, cut_err = _read_bounded(err_path, limits.output_bytes)
        code = process.returncode
        signal_name = ""
        if code is not None and code < 0 and not timed_out:
            try:
                signal_name = signal.Signals(-code).name
            except ValueError:
                signal_name = f"signal {-code}"
        collected = {}
        for name in collect:
            path = workdir / name
            if path.is_file():
                collected[name], _ = _read_bounded(path, limits.output_bytes * 4)
        return SandboxResult(
            returncode=code,
            signal_name=signal_name,
            timed_out=timed_out,
            stdout=stdout,
            stderr=stderr,
            truncated=cut_out or cut_err,
            duration_s=duration,
            isolation="; ".join(isolation),
            files=collected,
        )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
