#!/usr/bin/env python3
"""A stand-in for `docker` / `podman` on an AMD GPU host, for the rocm-container backend's tests.

It takes docker's interface for what the backend uses (`run` with its flags, `kill NAME`), answers
as docker does (exit 125 for an engine error such as an image not pinned by digest, 126/127 for a
command the image cannot run, the command's own status otherwise), and runs the command on this
machine: `python3` is this Python (first on PATH), `/work` is the `--volume HOST:/work:ro` host
directory, `sh -c` / `bash -c` run here with those substitutions.
Every invocation is appended as JSON to $FAKE_CONTAINER_LOG; containers' pids live in
$FAKE_CONTAINER_STATE so `kill NAME` can stop one. $FAKE_CONTAINER_IMAGES (JSON: image -> its
ENV, e.g. {"rocm/pytorch@sha256:...": {"ROCM_VERSION": "6.2.4"}}) stands for what differs
between images: docker sets an image's ENV in its containers, under the `--env` flags.
"""

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

DIGEST_RE = re.compile(r"^[\w.\-/:]+@sha256:[0-9a-f]{64}$")
VALUE_FLAGS = {
    "--name",
    "--device",
    "--group-add",
    "--network",
    "--tmpfs",
    "--user",
    "--cpus",
    "--memory",
    "--pids-limit",
    "--cap-drop",
    "--security-opt",
    "--env",
    "-e",
    "--volume",
    "-v",
    "--workdir",
    "-w",
}
BOOL_FLAGS = {"--rm", "--read-only", "-i", "-t"}
STATE = Path(os.environ.get("FAKE_CONTAINER_STATE", "/tmp/fake-container-state"))


def log(entry: dict) -> None:
    path = os.environ.get("FAKE_CONTAINER_LOG")
    if path:
        with open(path, "a") as handle:
            handle.write(json.dumps(entry) + "\n")


def run(argv: list[str]) -> int:
    options: dict[str, list[str]] = {}
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        flag = argv[i]
        if flag in BOOL_FLAGS:
            options.setdefault(flag, []).append("")
            i += 1
        elif flag in VALUE_FLAGS:
            options.setdefault(flag, []).append(argv[i + 1])
            i += 2
        else:
            print(f"unknown flag: {flag}", file=sys.stderr)
            return 125
    image, command = argv[i], argv[i + 1 :]
    log({"verb": "run", "options": options, "image": image, "command": command})
    if not DIGEST_RE.match(image):
        print(f'docker: invalid reference format: "{image}" is not pinned', file=sys.stderr)
        return 125
    mounts = dict(reversed(v.split(":")[:2]) for v in options.get("--volume", []))
    host_work = mounts.get("/work")
    STATE.mkdir(parents=True, exist_ok=True)
    bin_dir = STATE / "bin"  # the image's python3 is this Python
    if not (bin_dir / "python3").exists():
        bin_dir.mkdir(exist_ok=True)
        (bin_dir / "python3").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
        (bin_dir / "python3").chmod(0o755)
    if command[:1] == ["python3"]:
        command = [sys.executable, *(c.replace("/work/", f"{host_work}/") for c in command[1:])]
    elif command[:1] in (["bash"], ["sh"]) and command[1:2] == ["-c"]:
        command = [command[0], "-c", command[2].replace("/work/", f"{host_work}/")]
    else:
        print(f"exec: {command[0]!r}: executable file not found in $PATH", file=sys.stderr)
        return 127
    env = {"PATH": f"{bin_dir}:{os.environ.get('PATH', '')}", "HOME": "/tmp"}
    images = json.loads(os.environ.get("FAKE_CONTAINER_IMAGES") or "{}")
    env.update(images.get(image, {}))
    env.update(dict(e.split("=", 1) for e in options.get("--env", [])))
    env["HOME"] = os.environ.get("TMPDIR", "/tmp")
    process = subprocess.Popen(command, env=env, cwd=host_work, start_new_session=True)
    name = (options.get("--name") or [""])[0]
    pidfile = STATE / f"{name}.pid"
    pidfile.write_text(str(process.pid))
    try:
        code = process.wait()
    finally:
        pidfile.unlink(missing_ok=True)
    return 128 - code if code < 0 else code  # a signal inside: 128 + N, as docker reports it


def kill(name: str) -> int:
    log({"verb": "kill", "name": name})
    pidfile = STATE / f"{name}.pid"
    if not pidfile.exists():
        print(f"Error response from daemon: No such container: {name}", file=sys.stderr)
        return 1
    with contextlib.suppress(ProcessLookupError):
        os.killpg(int(pidfile.read_text()), signal.SIGKILL)
    return 0


def main() -> int:
    verb, rest = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 1 else ("", [])
    if verb == "run":
        return run(rest)
    if verb == "kill":
        return kill(rest[0])
    print(f"fake container CLI: unsupported command {verb!r}", file=sys.stderr)
    return 125


if __name__ == "__main__":
    sys.exit(main())
