"""The sandbox confines a reproducer: no network, its own PID and mount namespaces, an
unprivileged user, a scrubbed environment, limits that stop fork bombs, memory hogs and huge
files, and no process left behind. Each attack runs for real, as a Python script in the sandbox."""

import json
import os
import shutil
import signal
import sys
import sysconfig
import tempfile
import time
import uuid
from pathlib import Path

import pytest
from django.conf import settings

from kernels_ci.backends import backend_get
from kernels_ci.backends.base import RunSpec
from kernels_ci.sandbox import Limits, SandboxUnavailable, isolation_problem, sandbox_run
from kernels_ci.signatures import observe
from tests.processes import wait_for

pytestmark = pytest.mark.usefixtures("needs_namespaces")


def run(code: str, **limits):
    limits.setdefault("timeout_s", 20)
    return sandbox_run([sys.executable, "-c", code], files={}, limits=Limits(**limits))


def survivors(marker: str) -> list[str]:
    """Processes anywhere on this machine whose command line holds the marker."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                if marker.encode() in handle.read():
                    found.append(pid)
        except OSError:
            continue
    return found


def test_a_connection_attempt_fails_without_the_python_guard():
    result = run("import socket; socket.create_connection(('127.0.0.1', 5432), timeout=3)")
    assert result.returncode == 1
    assert "Network is unreachable" in result.stderr
    assert result.isolation.startswith("empty network namespace")


def test_a_fork_bomb_is_stopped_and_the_outcome_says_why(settings):
    bomb = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass"
    for cgroup in ("", "off"):  # with a pids cgroup where one can be made here, and without
        settings.KERNELS_CI_CGROUP = cgroup
        result = run(bomb, nproc=48)
        assert not result.timed_out and result.limit == "processes"
        observation = observe(result)
        assert (observation.kind, observation.signature) == (
            "invalid",
            "sandbox limit: processes",
        )


def test_a_memory_hog_is_stopped():
    result = run("x = bytearray(6 * 1024**3)\nprint('allocated')", memory_bytes=512 * 1024**2)
    assert result.returncode == 1 and "allocated" not in result.stdout
    assert "MemoryError" in result.stderr and result.limit == "memory"


def test_a_huge_file_is_stopped():
    code = "open('big', 'wb').write(b'x' * (64 * 1024**2))\nprint('written')"
    result = run(code, fsize_bytes=1024**2)
    assert "written" not in result.stdout and result.limit == "file size"
    assert observe(result).kind == "invalid"


def test_many_files_that_fill_the_private_disk_are_stopped_by_the_disk_limit():
    code = (
        "for n in range(64):\n"
        "    open(f'part{n}', 'wb').write(b'x' * (8 * 1024**2))\n"
        "print('written')"
    )
    result = run(code, fsize_bytes=16 * 1024**2, disk_bytes=64 * 1024**2)
    assert "written" not in result.stdout and result.limit == "disk"
    assert observe(result).signature == "sandbox limit: disk"


def test_a_setsid_child_dies_with_the_run_on_timeout_and_on_exit():
    for ending in ("while True:\n    time.sleep(0.2)", "pass"):
        marker = f"{uuid.uuid4().int % 10**6}.{os.getpid()}"
        code = (
            "import subprocess, time\n"
            f"subprocess.Popen(['setsid', 'sh', '-c', 'sleep {marker}; touch /tmp/escaped'])\n"
            f"time.sleep(0.5)\n{ending}\n"
        )
        result = run(code, timeout_s=2)
        assert result.timed_out == (ending != "pass")
        assert survivors(f"sleep {marker}") == []


def test_a_run_dies_with_its_worker_killed_mid_run():
    """The init drops root after it starts the command, and a change of credentials clears the
    parent-death signal `unshare --kill-child` gave it: it sets it again, so a worker killed
    with SIGKILL (the OOM killer) takes its namespace along, and nothing runs on unsupervised."""
    marker = f"{uuid.uuid4().int % 10**6}.{os.getpid()}"
    code = f"import time\nwhile True:\n    time.sleep(0.2)  # {marker}\n"
    worker = os.fork()
    if worker == 0:  # the worker: runs the reproducer, and is killed in the middle of it
        try:
            run(code, timeout_s=60)
        finally:
            os._exit(0)
    try:
        wait_for(lambda: survivors(marker), timeout=20, message="the reproducer never started")
        time.sleep(0.5)  # the init has dropped root by now
    finally:
        os.kill(worker, signal.SIGKILL)
        os.waitpid(worker, 0)
    wait_for(lambda: not survivors(marker), timeout=10, message="the reproducer outlived it")


def test_the_init_ends_a_run_its_worker_did_not_stop_after_its_deadline(monkeypatch):
    from kernels_ci import sandbox

    # as if the worker's own stop at the timeout never came: the init's deadline is 1 s
    monkeypatch.setattr(sandbox, "INIT_DEADLINE_GRACE_S", 1 - 30)
    started = time.monotonic()
    result = run("import time\nwhile True:\n    time.sleep(0.2)\n", timeout_s=30)
    assert time.monotonic() - started < 15
    assert not result.timed_out and result.limit == "timeout"


def test_the_service_files_secrets_and_worker_are_out_of_reach(monkeypatch):
    for name in ("SECRET_KEY", "GITHUB_TOKEN", "X_BEARER_TOKEN", "DATABASE_URL"):
        monkeypatch.setenv(name, "do-not-leak")
    database = settings.DATABASES["default"]["NAME"]
    targets = [
        str(settings.BASE_DIR / "pyproject.toml"),
        str(settings.BASE_DIR / "config" / "settings.py"),
        str(settings.VAR_DIR),
        str(database),
        os.path.expanduser("~/.bashrc"),
    ]
    code = f"""
import json, os, signal
report = {{"env": sorted(os.environ), "read": [], "wrote": [], "signalled": False}}
for path in {targets!r}:
    try:
        report["read"].append(bool(os.listdir(path) if os.path.isdir(path) else open(path).read(1)))
    except OSError:
        pass
for path in ["/tmp/x", "/var/tmp/x", {str(settings.BASE_DIR / "x")!r}, "/etc/x", "/x"]:
    try:
        open(path, "w").write("x")
        report["wrote"].append(path)
    except OSError:
        pass
try:
    os.kill({os.getpid()}, 0)
    report["signalled"] = True
except OSError:
    pass
open("mine", "w").write("private dir is writable")
report["mine"] = open("mine").read()
print(json.dumps(report))
"""
    result = sandbox_run(
        [sys.executable, "-c", code],
        files={},
        limits=Limits(timeout_s=20),
        env={"GITHUB_TOKEN": "passed-on-purpose", "TRITON_HOME": "{dir}"},
    )
    report = json.loads(result.stdout)
    assert report["read"] == [] and report["wrote"] == [] and not report["signalled"]
    assert report["mine"] == "private dir is writable"
    leaked = {"SECRET_KEY", "GITHUB_TOKEN", "X_BEARER_TOKEN", "DATABASE_URL"} & set(report["env"])
    assert leaked == set() and "TRITON_HOME" in report["env"]
    assert "do-not-leak" not in result.output and "passed-on-purpose" not in result.output


def test_a_printed_infra_marker_fakes_nothing(needs_kernels_extra):
    script = (
        "import torch, triton  # noqa\nimport sys\n"
        "print('REPRO-INFRA: the runner is broken')\nprint('REPRO-INFRA-0123abcd: me too')\n"
        "sys.exit(127)\n"
    )
    execution = backend_get("triton-interpreter").execute(
        RunSpec(script=script, language="python", arch="cpu", timeout_s=30)
    )
    assert execution.observation.kind == "crash"
    assert execution.observation.signature.startswith("exit 127")


def test_without_namespaces_a_run_is_refused_and_says_why(settings):
    settings.KERNELS_CI_UNSHARE = "/nonexistent/unshare"
    assert "not on PATH" in isolation_problem()
    with pytest.raises(SandboxUnavailable, match="no namespaces here"):
        run("print('ran anyway')")
    execution = backend_get("triton-interpreter").execute(
        RunSpec(script="import triton\n", language="python", arch="cpu", timeout_s=5)
    )
    assert execution.observation.kind == "infra" and "not run" in execution.observation.message
    assert "no namespaces" in backend_get("triton-interpreter").available()


def test_a_namespace_the_kernel_refuses_is_an_unavailable_sandbox(settings, tmp_path):
    refusing = tmp_path / "unshare"
    refusing.write_text("#!/bin/sh\necho 'unshare: unshare failed: Operation not permitted' >&2\n")
    refusing.chmod(0o755)
    settings.KERNELS_CI_UNSHARE = str(refusing)
    assert "Operation not permitted" in isolation_problem()
    with pytest.raises(SandboxUnavailable):
        run("print('ran anyway')")


def test_the_container_cli_runs_without_namespaces_but_with_a_scrubbed_environment(monkeypatch):
    monkeypatch.setenv("SECRET_KEY", "do-not-leak")
    result = sandbox_run(
        ["sh", "-c", "env; sleep 30"],
        files={},
        limits=Limits(timeout_s=1),
        env={"DOCKER_HOST": "unix:///run/docker.sock", "REGISTRY_PASSWORD": "x"},
        namespaces=False,
    )
    assert result.timed_out and "DOCKER_HOST=unix:///run/docker.sock" in result.stdout
    assert "SECRET_KEY" not in result.stdout and "REGISTRY_PASSWORD" not in result.stdout


# Walks everything the run can see from "/" without following a symlink, and says what it can
# read (files: open() succeeds) or list (directories) outside the allow-list it is given. /proc is
# not walked: the pids it holds are reported (its own namespace's, or the machine's).
WALK = r"""
import json, os, sys

allowed, asked = json.loads(sys.argv[1]) + [os.getcwd()], json.loads(sys.argv[2])


def inside(path):
    return any(path == p or path.startswith(p.rstrip("/") + "/") for p in allowed)


def above(path):  # a directory on the way to an allowed path
    return path == "/" or any(p.startswith(path.rstrip("/") + "/") for p in allowed)


def readable(path):
    try:
        os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY))
        return True
    except OSError:
        return False


def listable(path):
    try:
        os.listdir(path)
        return True
    except OSError:
        return False


report = {"files": 0, "dirs": 0, "outside": 0, "by_top": {}, "examples": {}, "pids": []}


def outside(path):
    report["outside"] += 1
    top = "/".join(path.split("/")[:2]) or "/"
    report["by_top"][top] = report["by_top"].get(top, 0) + 1
    examples = report["examples"].setdefault(top, [])
    if len(examples) < 4:
        examples.append(path)


for top, dirs, files in os.walk("/"):
    if top == "/proc":
        report["pids"] = sorted(int(d) for d in dirs if d.isdigit())
        dirs[:] = []
        continue
    report["dirs"] += 1
    if not inside(top) and not above(top):
        outside(top + "/")
    for name in files + [d for d in dirs if os.path.islink(os.path.join(top, d))]:
        path = os.path.join(top, name)
        real = path
        if os.path.islink(path):  # into /proc (/dev/fd): its own; elsewhere: where it leads
            target = os.readlink(path)
            real = target if target.startswith("/proc/") else os.path.realpath(path)
        if os.path.isdir(path):
            if listable(path) and not inside(real) and not above(real):
                outside(real + "/")
        elif readable(path):
            report["files"] += 1
            if not inside(real):
                outside(real)
report["asked"] = {
    path: {
        "exists": os.path.lexists(path),
        "readable": readable(path) if not os.path.isdir(path) else listable(path),
        "listing": sorted(os.listdir(path)) if os.path.isdir(path) and listable(path) else [],
    }
    for path in asked
}
print(json.dumps(report))
"""


def _allow_list() -> list[str]:
    """What a run may read: the Python installation, the environment's site-packages and its
    interpreter, /usr and the merged-/usr links, a few /etc files, /dev's plain nodes, its own
    /proc (and its private directory, which the probe adds)."""
    python = os.path.realpath(sys.base_prefix)
    paths = [python, "/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin"]
    paths += [f"/etc/{name}" for name in ("ld.so.cache", "passwd", "group", "nsswitch.conf")]
    paths += [f"/dev/{name}" for name in ("null", "zero", "full", "random", "urandom", "shm")]
    paths += [f"/dev/{name}" for name in ("fd", "stdin", "stdout", "stderr")] + ["/proc"]
    if sys.prefix != sys.base_prefix:  # a virtual environment: its packages and interpreter
        paths += [sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]
        paths += [f"{sys.prefix}/pyvenv.cfg", f"{sys.prefix}/lib64"]
        paths += [str(p) for p in Path(sys.prefix, "bin").glob("python*")]
    return sorted(set(paths))


def test_a_reproducer_walking_the_whole_filesystem_reads_nothing_outside_the_allow_list(
    settings, tmp_path
):
    secret = tmp_path / "planted-secret"
    secret.write_text("do-not-leak")
    secret.chmod(0o644)
    elsewhere = Path(tempfile.mkdtemp(prefix="planted-", dir="/var/tmp"))  # noqa: S108
    try:
        (elsewhere / "secret").write_text("do-not-leak")
        elsewhere.chmod(0o755)
        (elsewhere / "secret").chmod(0o644)
        project = Path(settings.BASE_DIR)
        home = Path(os.path.expanduser("~"))
        site = Path(sysconfig.get_paths()["purelib"])
        gone = [
            project / "pyproject.toml",
            project / "kernels_ci",
            project / "config" / "settings.py",
            Path(settings.VAR_DIR).resolve(),
            *[p for p in project.parent.iterdir() if p != project and project.parent != Path("/")],
            Path("/home"),
            Path("/opt"),
            Path("/var/log"),
            Path("/root"),
            home / ".bashrc",
            *site.glob("__editable__*"),
            secret,
            elsewhere / "secret",
        ]
        gone = [str(p) for p in gone]
        result = sandbox_run(
            [sys.executable, "-c", WALK, json.dumps(_allow_list()), json.dumps(gone)],
            files={},
            limits=Limits(timeout_s=240, cpu_s=480, output_bytes=1024**2),
        )
    finally:
        shutil.rmtree(elsewhere, ignore_errors=True)
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout)
    assert report["outside"] == 0, report["examples"]
    assert report["pids"] and max(report["pids"]) < 10  # its own PID namespace's /proc
    allowed = _allow_list()
    for path, seen in report["asked"].items():
        # none is there but a directory on the way to an allowed path (/root holding a pyenv
        # Python), holding only that way
        way = {Path(a).relative_to(path).parts[0] for a in allowed if a.startswith(path + "/")}
        assert (seen["exists"], set(seen["listing"])) == (bool(way), way), (path, seen)


def test_a_path_in_the_bind_setting_is_there_read_only_and_one_holding_service_data_is_refused(
    settings, tmp_path
):
    rocm = tmp_path / "opt-rocm"
    rocm.mkdir()
    (rocm / "version").write_text("7.1.0")
    settings.KERNELS_CI_SANDBOX_BIND = [str(rocm)]
    code = (
        f"print(open({str(rocm / 'version')!r}).read())\n"
        f"try:\n    open({str(rocm / 'x')!r}, 'w')\nexcept OSError as exc:\n    print(exc.strerror)"
    )
    result = run(code)
    assert result.stdout.split("\n")[:2] == ["7.1.0", "Read-only file system"], result.stderr
    for exposing in (tmp_path, settings.BASE_DIR.parent):  # the model artifacts, the project
        settings.KERNELS_CI_SANDBOX_BIND = [str(exposing)]
        with pytest.raises(SandboxUnavailable, match="would expose"):
            run("print('ran anyway')")


def test_a_device_profile_binds_exactly_its_nodes_and_nothing_else_is_a_device():
    code = "import os; print(sorted(n for n in os.listdir('/dev') if n.startswith('tty')))"
    limits = Limits(timeout_s=20)
    argv = [sys.executable, "-c", code]
    assert run(code).stdout.strip() == "[]"  # no profile: the host's terminals are not there
    profiled = sandbox_run(argv, files={}, limits=limits, devices=("/dev/tty", "/dev/nosuch*"))
    assert profiled.stdout.strip() == "['tty']", profiled.stderr
    for wrong in ("/etc/passwd", "/dev/../etc/passwd"):
        with pytest.raises(SandboxUnavailable, match="not a device"):
            sandbox_run(argv, files={}, limits=limits, devices=(wrong,))
