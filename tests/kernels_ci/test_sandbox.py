"""The sandbox confines a reproducer: no network, its own PID and mount namespaces, an
unprivileged user, a scrubbed environment, limits that stop fork bombs, memory hogs and huge
files, and no process left behind. Each attack runs for real, as a Python script in the sandbox."""

import json
import os
import signal
import sys
import time
import uuid

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
