"""Runs one untrusted command with limits: the only place a reproducer's process is started.

With `namespaces=True` (every backend but the container CLI) the command runs under
`unshare --pid --fork --kill-child --mount --mount-proc --net --ipc --uts` with
kernels_ci/sandbox_init.py as the namespace's PID 1, and so:

- no network: an empty network namespace (a connection attempt fails); Python reproducers also
  start through a guard that replaces socket.socket;
- its own PID namespace: it sees no other process and cannot signal the worker; when the command
  ends or times out the namespace's init dies and the kernel kills every process left in it,
  `setsid` or double-forked ones included;
- its own mount namespace and root: the init builds an empty root (a tmpfs) holding only what
  kernels_ci/sandbox_root.py allows (the Python installation and the environment's
  site-packages without the project's own files, /usr and the merged-/usr links, two or three
  /etc files, /dev's plain nodes, /proc of its PID namespace, settings.KERNELS_CI_SANDBOX_BIND),
  bound read-only, and pivots into it: the project, VAR_DIR, /run's sockets, the home
  directories and everything else of the host are not there at all. The only writable places
  are its private directory (a tmpfs of Limits.disk_bytes holding its files, also HOME and
  TMPDIR) and a private /dev/shm;
- an unprivileged user with no capabilities: a root worker runs it as KERNELS_CI_SANDBOX_UID
  (default 65534); a non-root worker starts it in a user namespace (`unshare -r`) and the command
  enters a nested one that locks the mounts;
- a scrubbed environment: only what the backend sets (PATH, HOME, locale, ...), never a variable
  whose name looks like a secret (SECRET_KEY, GITHUB_TOKEN, X_BEARER_TOKEN, DATABASE_URL, ...);
- limits: RLIMIT_CPU, RLIMIT_AS, RLIMIT_NPROC, RLIMIT_FSIZE, no core files; a cgroup with
  pids.max and a memory limit where the worker may create one (cgroup v1, or the delegated v2
  directory KERNELS_CI_CGROUP); and always the namespace's init counting tasks, which stops a fork
  bomb at Limits.nproc and says so (`limit="processes"`);
- a per-run nonce on stdin for the launchers' markers, so the output of a reproducer cannot forge
  an infrastructure failure.

When no namespace can be created here the run is refused (SandboxUnavailable): it never goes ahead
with only the Python socket guard. `isolation_problem()` says why, for the runner's health check.

With `namespaces=False` (the rocm-container backend: the container is the confinement, and its CLI
needs the engine's socket) the command gets its own session, the limits, the scrubbed environment
and the same kill on timeout.

stdout and stderr go to files and come back truncated to a bound (head and tail).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import json
import os
import resource
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

from config import linear_re
from kernels_ci.sandbox_root import ROOT_SIZE, SHM, ExposesServiceData, NotADevice, root_plan

GiB = 1024**3
INIT = Path(__file__).resolve().parent / "sandbox_init.py"
NAMESPACES = ["--pid", "--fork", "--kill-child", "--mount", "--mount-proc", "--net", "--ipc"]
NAMESPACES += ["--uts"]
NPROC_SLACK = 16  # rlimit and pids.max sit this far above Limits.nproc, where init stops it
SECRET_NAME_RE = linear_re.compile(
    r"SECRET|TOKEN|PASSW|CREDENTIAL|PRIVATE|API_?KEY|_KEY$|^DATABASE_URL$|^REDIS_URL$|^SENTRY_DSN$",
    linear_re.I,
)
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


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot confine a run on this machine: nothing was started."""


@dataclass
class Limits:
    timeout_s: float = 60.0
    cpu_s: int = 120
    memory_bytes: int = 8 * GiB
    nproc: int = 1024
    fsize_bytes: int = 256 * 1024 * 1024
    output_bytes: int = 64 * 1024
    disk_bytes: int = 1 * GiB


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
    limit: str = ""  # a sandbox limit that stopped it: processes | memory | file size | disk | ""
    nonce: str = ""

    @property
    def output(self) -> str:
        return self.stdout + ("\n" if self.stdout and self.stderr else "") + self.stderr


def scrub_environment(env: dict[str, str]) -> dict[str, str]:
    """The environment without anything whose name looks like a secret."""
    return {name: value for name, value in env.items() if not SECRET_NAME_RE.search(name)}


# --- cgroups ----------------------------------------------------------------------------------


class Cgroup:
    """One cgroup per run (v1: a directory per controller; v2: one directory), or none."""

    def __init__(self, dirs: dict[str, Path]):
        self.dirs = dirs

    @classmethod
    def create(cls, limits: Limits, name: str) -> Cgroup | None:
        dirs = {}
        try:
            for controller, parent in _cgroup_parents().items():
                path = parent / name
                path.mkdir()
                dirs[controller] = path
            group = cls(dirs)
            group._set(limits)
        except OSError:
            cls(dirs).remove()
            return None
        return group if dirs else None

    def _set(self, limits: Limits) -> None:
        # The worker's unshare and the namespace's init are in the cgroup too.
        pids, memory = self.dirs.get("pids"), self.dirs.get("memory")
        if pids is not None:
            (pids / "pids.max").write_text(str(limits.nproc))
        if memory is not None:
            v2 = (memory / "memory.max").exists()
            target = memory / ("memory.max" if v2 else "memory.limit_in_bytes")
            target.write_text(str(limits.memory_bytes))
            if v2 and (memory / "memory.swap.max").exists():
                (memory / "memory.swap.max").write_text("0")

    @property
    def pids_events(self) -> str:
        pids = self.dirs.get("pids")
        return str(pids / "pids.events") if pids is not None else ""

    @property
    def names(self) -> str:
        return ", ".join(sorted(self.dirs))

    def attach(self) -> None:
        """In the child, before exec."""
        seen = set()
        for path in self.dirs.values():
            if path in seen:
                continue
            seen.add(path)
            (path / "cgroup.procs").write_text(str(os.getpid()))

    def limit_hit(self, *, timed_out: bool = False) -> str:
        """The cgroup limit that stopped the run, if one did. A run that reached memory.max and
        then timed out was thrashing at its ceiling (without swap the kernel reclaims the page
        cache of its own libraries again and again, before the OOM killer acts): the memory
        limit stopped it, not a hang of its own."""
        try:
            pids = self.dirs.get("pids")
            if pids is not None and _event(pids / "pids.events", "max"):
                return "processes"
            memory = self.dirs.get("memory")
            if memory is not None:
                if (memory / "memory.events").exists():
                    events = memory / "memory.events"
                    if _event(events, "oom_kill") or (timed_out and _event(events, "max")):
                        return "memory"
                elif int((memory / "memory.failcnt").read_text() or 0):
                    return "memory"
        except (OSError, ValueError):
            pass
        return ""

    def remove(self) -> None:
        for path in self.dirs.values():
            deadline = time.monotonic() + 5
            while path.exists():
                try:
                    path.rmdir()
                except OSError:
                    if time.monotonic() > deadline:
                        break
                    _kill_cgroup(path)
                    time.sleep(0.02)


def _event(path: Path, name: str) -> int:
    for line in path.read_text().splitlines():
        key, _, value = line.partition(" ")
        if key == name:
            return int(value)
    return 0


def _kill_cgroup(path: Path) -> None:
    with contextlib.suppress(OSError, ValueError):
        for pid in (path / "cgroup.procs").read_text().split():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(int(pid), signal.SIGKILL)


def _cgroup_parents() -> dict[str, Path]:
    """Where this worker may create a run's cgroup: controller -> parent directory."""
    configured = settings.KERNELS_CI_CGROUP
    if configured == "off":
        return {}
    if configured:  # a delegated cgroup v2 directory
        root = Path(configured)
        enabled = (root / "cgroup.subtree_control").read_text().split()
        return {c: root for c in ("pids", "memory") if c in enabled}
    found = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            for controller in ("pids", "memory"):
                if controller in controllers.split(","):
                    parent = Path("/sys/fs/cgroup") / controller / path.lstrip("/")
                    if os.access(parent, os.W_OK) and (parent / "cgroup.procs").exists():
                        found[controller] = parent
    return found


# --- isolation --------------------------------------------------------------------------------


def _mode() -> str:
    """root: the worker is root and creates the namespaces itself, the run gets a plain
    unprivileged uid; userns: an unprivileged worker, through a user namespace."""
    return "root" if os.geteuid() == 0 else "userns"


def _unshare_argv(mode: str) -> list[str]:
    unshare = settings.KERNELS_CI_UNSHARE
    if not shutil.which(unshare):
        raise SandboxUnavailable(f"{unshare!r} (util-linux) is not on PATH: no namespaces here")
    return [unshare, *(["--user", "--map-root-user"] if mode == "userns" else []), *NAMESPACES]


@functools.cache
def _probe(unshare: str, mode: str, uid: int) -> str:
    try:
        result = _run_confined(
            [sys.executable, "-S", "-c", "import os; os.getcwd()"],
            files={"probe": "ok"},
            limits=Limits(timeout_s=20, cpu_s=20, memory_bytes=2 * GiB, nproc=64),
            env={},
            collect=(),
            on_timeout=None,
            python_guard=False,
        )
    except SandboxUnavailable as exc:
        return str(exc)
    except OSError as exc:
        return f"cannot start {unshare}: {exc}"
    if result.returncode != 0:
        detail = (result.stderr.strip().splitlines() or [f"exit {result.returncode}"])[-1]
        return f"namespaces are not permitted here ({' '.join(_unshare_argv(mode))}): {detail}"
    return ""


def isolation_problem() -> str:
    """'' when this machine can confine a run in namespaces; otherwise why not."""
    mode = _mode()
    try:
        _unshare_argv(mode)
    except SandboxUnavailable as exc:
        return str(exc)
    return _probe(settings.KERNELS_CI_UNSHARE, mode, settings.KERNELS_CI_SANDBOX_UID)


def isolation_summary() -> str:
    mode = _mode()
    user = (
        f"uid {settings.KERNELS_CI_SANDBOX_UID}"
        if mode == "root"
        else "a nested user namespace (mounts locked)"
    )
    return (
        "empty network namespace; own PID namespace (all killed at the end); "
        "a root of its own holding only the Python environment and the system files, "
        f"read-only; runs as {user}, no capabilities"
    )


# --- running ----------------------------------------------------------------------------------


PR_SET_PDEATHSIG = 1
# The sandbox's init ends the run itself this long after its timeout, should the worker that
# stops it at the timeout be gone without the namespace going too.
INIT_DEADLINE_GRACE_S = 30


def _die_with_the_worker(parent: int) -> None:
    """In the child: SIGKILL when the worker that started it dies (also by SIGKILL), so no run
    outlives its worker; with `unshare --kill-child` the whole namespace goes with it. A task
    redelivered to another worker then never runs beside the remains of the first attempt."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the worker died before the request was in place
        os._exit(1)


def _limit(limits: Limits, cgroup: Cgroup | None):
    parent = os.getpid()

    def apply() -> None:
        _die_with_the_worker(parent)
        if cgroup is not None:
            cgroup.attach()
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 5))
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
        # Above the init's count and pids.max, which stop a fork bomb first and say so.
        nproc = limits.nproc + NPROC_SLACK
        resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.fsize_bytes, limits.fsize_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


def _read_bounded(path: Path, bound: int) -> tuple[str, bool]:
    size = path.stat().st_size if path.exists() else 0
    if not size:
        return "", False
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


def _kill_namespace(unshare_pid: int) -> None:
    """SIGKILL the namespace's init (the kernel then kills everything in it), then the group."""
    with contextlib.suppress(OSError, ValueError):
        children = Path(f"/proc/{unshare_pid}/task/{unshare_pid}/children").read_text().split()
        for pid in children:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(int(pid), signal.SIGKILL)


def _wait(process: subprocess.Popen, limits: Limits, namespaced: bool, on_timeout) -> bool:
    """Wait for the command; on the wall clock (or an exception) kill all of it. Timed out?"""

    def stop() -> None:
        if on_timeout is not None:
            on_timeout()
        if namespaced:
            _kill_namespace(process.pid)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=10)  # unshare exits once the namespace is empty
        _kill_group(process.pid)
        process.wait()

    try:
        process.wait(timeout=limits.timeout_s)
    except subprocess.TimeoutExpired:
        stop()
        return True
    except BaseException:  # a task's soft time limit, a worker shutting down
        stop()
        raise
    _kill_group(process.pid)  # leftovers of a process that exited first (no namespace)
    return False


def sandbox_run(
    argv: list[str],
    *,
    files: dict[str, str],
    limits: Limits,
    env: dict[str, str] | None = None,
    namespaces: bool = True,
    python_guard: bool = False,
    collect: tuple[str, ...] = (),
    on_timeout=None,
    readable_by_others: bool = False,
    binds: tuple[str, ...] = (),
    devices: tuple[str, ...] = (),
) -> SandboxResult:
    """Run argv in a fresh private directory holding `files`; `{dir}` in argv and env is that
    directory (as the command sees it).

    `binds`: more paths this run may read (read-only, at the same place), such as the
    per-version environment it runs on. `devices`: the device nodes (globs) its backend's
    device profile names, bound into the run's /dev.

    `collect` names files (relative, under the directory) to read back, bounded, afterwards.
    `on_timeout` is called before the processes are killed (a container CLI stops its container
    there). Raises SandboxUnavailable when `namespaces` are asked for and cannot be had.
    """
    common = {
        "files": files,
        "limits": limits,
        "env": env or {},
        "collect": collect,
        "on_timeout": on_timeout,
    }
    if namespaces:
        problem = isolation_problem()
        if problem:
            raise SandboxUnavailable(problem)
        return _run_confined(
            argv, **common, python_guard=python_guard, binds=binds, devices=devices
        )
    return _run_plain(argv, **common, readable_by_others=readable_by_others)


def _base_env(directory: str) -> dict[str, str]:
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": directory,
        "TMPDIR": directory,
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        "OMP_NUM_THREADS": "1",
    }


def _command_env(directory: str, env: dict[str, str], python_guard: bool) -> dict[str, str]:
    merged = _base_env(directory)
    merged.update({k: v.replace("{dir}", directory) for k, v in scrub_environment(env).items()})
    if python_guard:  # the guard first, then what the caller puts on the path
        merged["PYTHONPATH"] = ":".join(
            p for p in (f"{directory}/.guard", merged.get("PYTHONPATH", "")) if p
        )
    return merged


def _write_files(target: Path, files: dict[str, str], python_guard: bool, mode: int) -> None:
    target.mkdir(mode=0o755, exist_ok=True)
    all_files = dict(files)
    if python_guard:
        all_files[".guard/sitecustomize.py"] = SOCKET_GUARD
    for name, content in all_files.items():
        path = target / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
        path.chmod(mode)


def _finish(
    *, code, timed_out, started, out_path, err_path, limits, isolation, nonce, files, limit
) -> SandboxResult:
    stdout, cut_out = _read_bounded(out_path, limits.output_bytes)
    stderr, cut_err = _read_bounded(err_path, limits.output_bytes)
    signal_name = ""
    if code is not None and code < 0 and not timed_out:
        try:
            signal_name = signal.Signals(-code).name
        except ValueError:
            signal_name = f"signal {-code}"
    if timed_out:  # unshare's own complaint about its killed child is not the command's
        stderr = "\n".join(x for x in stderr.split("\n") if not x.startswith("unshare: "))
    tail = stderr[-2000:]
    if not limit and (signal_name == "SIGXFSZ" or "File too large" in tail):
        limit = "file size"
    if not limit and ("MemoryError" in tail or "can't allocate memory" in tail):
        limit = "memory"
    if not limit and "No space left on device" in tail:  # its private tmpfs (disk_bytes) is full
        limit = "disk"
    return SandboxResult(
        returncode=code,
        signal_name=signal_name,
        timed_out=timed_out,
        stdout=stdout,
        stderr=stderr,
        truncated=cut_out or cut_err,
        duration_s=time.monotonic() - started,
        isolation=isolation,
        files=files,
        limit=limit,
        nonce=nonce,
    )


def _run_confined(
    argv, *, files, limits, env, collect, on_timeout, python_guard, binds=(), devices=()
) -> SandboxResult:
    mode = _mode()
    unshare = _unshare_argv(mode)
    host = Path(tempfile.mkdtemp(prefix="repro-"))
    inner = f"/tmp/{host.name}"  # noqa: S108 - a tmpfs of its own inside the mount namespace
    uid = settings.KERNELS_CI_SANDBOX_UID if mode == "root" else None
    try:
        plan = root_plan(private_dir=inner, binds=binds, devices=devices)
    except (ExposesServiceData, NotADevice) as exc:
        shutil.rmtree(host, ignore_errors=True)
        raise SandboxUnavailable(f"the sandbox's root is refused: {exc}") from None
    cgroup = Cgroup.create(limits, host.name)
    nonce = secrets.token_hex(8)
    try:
        _write_files(host / "in", files, python_guard, 0o644)
        (host / "root.json").write_text(json.dumps(plan))
        config = {
            "host_dir": str(host),
            "inner_dir": inner,
            "writable": [SHM],
            "root_size": ROOT_SIZE,
            "disk_bytes": limits.disk_bytes,
            "nproc": limits.nproc,
            "deadline_s": limits.timeout_s + INIT_DEADLINE_GRACE_S,
            "owner": [uid, uid] if uid is not None else None,
            "argv": [part.replace("{dir}", inner) for part in argv],
            "env": _command_env(inner, env, python_guard),
            "collect": list(collect),
            "collect_bytes": limits.output_bytes * 4,
            "pids_events": cgroup.pids_events if cgroup else "",
        }
        if config["argv"] and "/" not in config["argv"][0]:
            config["argv"][0] = shutil.which(config["argv"][0]) or config["argv"][0]
        out_path, err_path, status_path = host / ".stdout", host / ".stderr", host / ".status"
        started = time.monotonic()
        with (
            open(out_path, "wb") as out,
            open(err_path, "wb") as err,
            open(status_path, "wb") as status,
        ):
            process = subprocess.Popen(
                [*unshare, "--", sys.executable, "-I", "-S", str(INIT), json.dumps(config)]
                + [str(status.fileno())],
                cwd="/",
                env={"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"},
                stdin=subprocess.PIPE,
                stdout=out,
                stderr=err,
                pass_fds=(status.fileno(),),
                start_new_session=True,
                preexec_fn=_limit(limits, cgroup),  # noqa: PLW1509 - limits apply in the child
            )
            with contextlib.suppress(BrokenPipeError, OSError):
                process.stdin.write(f"{nonce}\n".encode())
                process.stdin.close()
            timed_out = _wait(process, limits, True, on_timeout)
        report = _status(status_path)
        limit = report.get("limit") or (cgroup.limit_hit(timed_out=timed_out) if cgroup else "")
        if "exit" not in report and not timed_out and limit != "memory":
            said = _read_bounded(err_path, 2000)[0].strip().splitlines()
            raise SandboxUnavailable(
                f"the sandbox's init did not run ({' '.join(unshare)}): "
                + (said[-1] if said else f"exit {process.returncode}")
            )
        if report.get("setup_error"):
            raise SandboxUnavailable(f"the sandbox could not be set up: {report['setup_error']}")
        if report.get("exec_error"):
            raise SandboxUnavailable(
                f"the sandbox could not start {argv[0]}: {report['exec_error']}"
            )
        code = process.returncode
        if report.get("signal"):
            code = -int(report["signal"])
        elif report.get("exit") is not None:
            code = int(report["exit"])
        isolation = isolation_summary() + (
            f"; cgroup ({cgroup.names})" if cgroup else "; limits: rlimits and init's task count"
        )
        if python_guard:
            isolation += "; sockets blocked by sitecustomize"
        return _finish(
            code=code,
            timed_out=timed_out,
            started=started,
            out_path=out_path,
            err_path=err_path,
            limits=limits,
            isolation=isolation,
            nonce=nonce,
            files=report.get("files") or {},
            limit=limit,
        )
    finally:
        if cgroup is not None:
            cgroup.remove()
        shutil.rmtree(host, ignore_errors=True)


def _status(path: Path) -> dict:
    try:
        return json.loads(path.read_text() or "{}")
    except (OSError, ValueError):
        return {}


def _run_plain(
    argv, *, files, limits, env, collect, on_timeout, readable_by_others
) -> SandboxResult:
    workdir = Path(tempfile.mkdtemp(prefix="repro-"))
    try:
        mode = 0o644 if readable_by_others else 0o600
        for name, content in files.items():
            target = workdir / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")
            target.chmod(mode)
        if readable_by_others:
            workdir.chmod(0o755)
        argv = [part.replace("{dir}", str(workdir)) for part in argv]
        out_path, err_path = workdir / ".stdout", workdir / ".stderr"
        started = time.monotonic()
        command_env = _command_env(str(workdir), env, False)
        command_env["PATH"] = os.environ.get("PATH", command_env["PATH"])
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            process = subprocess.Popen(
                argv,
                cwd=workdir,
                env=command_env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
                preexec_fn=_limit(limits, None),  # noqa: PLW1509 - limits apply in the child
            )
            timed_out = _wait(process, limits, False, on_timeout)
        collected = {}
        for name in collect:
            path = workdir / name
            if path.is_file() and not path.is_symlink():
                collected[name], _ = _read_bounded(path, limits.output_bytes * 4)
        return _finish(
            code=process.returncode,
            timed_out=timed_out,
            started=started,
            out_path=out_path,
            err_path=err_path,
            limits=limits,
            isolation="own session, rlimits, scrubbed environment (no namespaces)",
            nonce="",
            files=collected,
            limit="",
        )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
