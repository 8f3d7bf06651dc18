"""The first process of a repro sandbox: PID 1 of its own PID, mount and network namespaces.

Started by kernels_ci.sandbox as `unshare ... python -I -S sandbox_init.py CONFIG` (standard library
only: it runs while the host's root is still there). It

1. builds the run's root from nothing: a tmpfs into which it binds, read-only, only what the
   plan of kernels_ci/sandbox_root.py names (the Python installation and environment, /usr, a
   few /etc files, /dev's plain nodes, /proc of its PID namespace), with a private,
   size-limited tmpfs as the reproducer's directory (its files copied in) and a private
   /dev/shm; then pivots into it and detaches the host's root, so nothing else of the machine
   is there, and makes every mount read-only but those two;
2. starts the command as an unprivileged user with no capabilities (`mode=root`: the uid of
   settings.KERNELS_CI_SANDBOX_UID; `mode=userns`: inside a nested user namespace, which locks the
   mounts so they cannot be undone), with no_new_privs;
3. as init, reaps everything and kills them all at the process limit (a fork bomb: the run's
   cgroup refused a fork, or the namespace holds Limits.nproc processes), kills whatever is left
   when the command ends, and writes a JSON status (exit code, signal, limit hit, collected
   files) to the file descriptor the worker opened for it.

When PID 1 exits the kernel kills every process left in the namespace, `setsid` or not.
"""

import contextlib
import ctypes
import json
import os
import signal
import sys
import time

CLONE_NEWUSER = 0x10000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
AT_FDCWD, AT_RECURSIVE = -100, 0x8000
MOUNT_ATTR_RDONLY = 0x1
MNT_DETACH = 2
SYS_MOUNT_SETATTR = 442  # the same number on every architecture (new syscall table)
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217}
PR_SET_NO_NEW_PRIVS, PR_SET_DUMPABLE, PR_SET_PDEATHSIG = 38, 4, 1
POLL_S = 0.01
STATUS_FD = -1

libc = ctypes.CDLL(None, use_errno=True)


class MountAttr(ctypes.Structure):
    _fields_ = [
        ("attr_set", ctypes.c_uint64),
        ("attr_clr", ctypes.c_uint64),
        ("propagation", ctypes.c_uint64),
        ("userns_fd", ctypes.c_uint64),
    ]


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def mount(source, target, fstype, flags, data=None) -> None:
    encode = lambda s: s.encode() if s is not None else None  # noqa: E731
    _check(
        libc.mount(encode(source), encode(target), encode(fstype), flags, encode(data)),
        f"mount {target}",
    )


def set_readonly(path: str, readonly: bool, recursive: bool) -> None:
    attr = MountAttr(MOUNT_ATTR_RDONLY if readonly else 0, 0 if readonly else MOUNT_ATTR_RDONLY)
    flags = AT_RECURSIVE if recursive else 0
    result = libc.syscall(
        SYS_MOUNT_SETATTR, AT_FDCWD, path.encode(), flags, ctypes.byref(attr), ctypes.sizeof(attr)
    )
    if result == 0:
        return
    errno = ctypes.get_errno()
    if errno != 38:  # ENOSYS: a kernel before 5.12, remount one mount at a time
        raise OSError(errno, f"mount_setattr {path}: {os.strerror(errno)}")
    _remount_each(path, readonly, recursive)


def _remount_each(path: str, readonly: bool, recursive: bool) -> None:
    keep = {"nosuid": MS_NOSUID, "nodev": MS_NODEV, "noexec": MS_NOEXEC}
    with open("/proc/self/mountinfo") as info:
        mounts = [line.split() for line in info]
    for fields in mounts:
        point, options = fields[4], fields[5].split(",")
        if point != path and not (recursive and point.startswith(path.rstrip("/") + "/")):
            continue
        flags = MS_REMOUNT | MS_BIND | (MS_RDONLY if readonly else 0)
        flags |= sum(bit for name, bit in keep.items() if name in options)
        try:
            mount(None, point, None, flags)
        except OSError:
            if point == path:
                raise


def pivot_root(new_root: str, put_old: str) -> None:
    number = SYS_PIVOT_ROOT.get(os.uname().machine)
    if number is None:
        raise OSError(38, f"pivot_root: no syscall number known for {os.uname().machine}")
    _check(libc.syscall(number, new_root.encode(), put_old.encode()), "pivot_root")


def build(root: str, op: list) -> None:
    """One operation of the root's plan (kernels_ci/sandbox_root.py), under `root`."""
    kind = op[0]
    path = root + (op[2] if kind == "bind" else op[1])
    if kind in ("dir", "tmpfs") or (kind == "bind" and os.path.isdir(op[1])):
        os.makedirs(path, 0o755, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(path), 0o755, exist_ok=True)
    if kind == "tmpfs":
        mount("sandbox-tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, op[2])
    elif kind == "bind":
        if not os.path.isdir(op[1]):
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o644))
        mount(op[1], path, None, MS_BIND | MS_REC)
    elif kind == "link":
        os.symlink(op[2], path)
    elif kind == "file":
        with open(path, "w") as out:
            out.write(op[2])


def copy_tree(source: str, target: str, owner: tuple[int, int] | None) -> None:
    for name in os.listdir(source):
        src, dst = os.path.join(source, name), os.path.join(target, name)
        if os.path.isdir(src) and not os.path.islink(src):
            os.mkdir(dst, 0o755)
            copy_tree(src, dst, owner)
        elif os.path.isfile(src) and not os.path.islink(src):
            with open(src, "rb") as a, open(dst, "wb") as b:
                b.write(a.read())
        else:
            continue
        if owner:
            os.chown(dst, *owner)


def prepare(cfg: dict) -> None:
    """As root of this mount namespace: build the run's root in an empty tmpfs from the plan
    (read-only binds of what a run needs, nothing else), pivot into it and let go of the host's
    root, then make every mount read-only but the run's private ones."""
    os.umask(0o022)
    if cfg.get("pids_events"):  # the cgroup's file, read by fd once the host's root is gone
        with contextlib.suppress(OSError):
            cfg["pids_events_fd"] = os.open(cfg["pids_events"], os.O_RDONLY)
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    host = cfg["host_dir"]
    with open(os.path.join(host, "root.json")) as handle:
        plan = json.load(handle)
    root = os.path.join(host, "root")
    os.mkdir(root, 0o755)
    mount("sandbox-root", root, "tmpfs", MS_NOSUID | MS_NODEV, f"size={cfg['root_size']},mode=0755")
    for op in plan:
        build(root, op)
    inner, owner = root + cfg["inner_dir"], cfg.get("owner")
    os.mkdir(inner, 0o700)
    mount(
        "sandbox-dir", inner, "tmpfs", MS_NOSUID | MS_NODEV, f"size={cfg['disk_bytes']},mode=0700"
    )
    copy_tree(os.path.join(host, "in"), inner, tuple(owner) if owner else None)
    if owner:
        os.chown(inner, *owner)
    os.chdir(root)
    pivot_root(".", ".")  # the host's root now lies on top of the new one: detach it
    _check(libc.umount2(b".", MNT_DETACH), "umount the host's root")
    os.chdir("/")
    set_readonly("/", True, recursive=True)
    for path in [cfg["inner_dir"], *cfg["writable"]]:
        set_readonly(path, False, recursive=False)


def drop_privileges(cfg: dict) -> None:
    owner = cfg.get("owner")
    if owner:  # mode root: a plain unprivileged user, no capabilities left after setuid
        os.setgroups([])
        os.setresgid(owner[1], owner[1], owner[1])
        os.setresuid(owner[0], owner[0], owner[0])
    else:  # mode userns: a nested user namespace with no mapping locks every mount above
        _check(libc.unshare(CLONE_NEWUSER), "unshare(CLONE_NEWUSER)")
    _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    # A change of credentials clears the parent-death signal (`unshare --kill-child`'s for this
    # init): set it again, or a worker killed mid-run (SIGKILL, the OOM killer) would leave
    # its reproducer running, unsupervised, beside the run's next attempt.
    _check(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "pdeathsig")


def start(cfg: dict) -> tuple[int, int]:
    """Fork the command; returns (pid, read end of a pipe that reports an exec failure)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read)
            os.close(STATUS_FD)
            drop_privileges(cfg)
            os.chdir(cfg["inner_dir"])
            os.execve(cfg["argv"][0], cfg["argv"], cfg["env"])  # noqa: S606
        except BaseException as exc:  # noqa: BLE001 - reported to init, then exit
            os.write(write, f"{type(exc).__name__}: {exc}".encode()[:1000])
        finally:
            os._exit(127)
    os.close(write)
    return pid, read


def over_limit(cfg: dict) -> bool:
    """The run's cgroup refused a fork (pids.events), or the namespace holds nproc processes."""
    events = cfg.get("pids_events_fd")
    if events is not None:
        try:
            os.lseek(events, 0, os.SEEK_SET)
            lines = os.read(events, 4096).decode().splitlines()
            return not any(line.split() == ["max", "0"] for line in lines)
        except OSError:
            pass
    return sum(name.isdigit() for name in os.listdir("/proc")) >= cfg["nproc"]


def kill_all() -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(-1, signal.SIGKILL)  # from init: every other process of the namespace


def reap(main: int) -> int | None:
    """Reap every exited child; the main command's wait status when it is among them."""
    status = None
    while True:
        try:
            pid, code = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return status
        if pid == 0:
            return status
        if pid == main:
            status = code


def collect(cfg: dict, bound: int) -> dict:
    found = {}
    inner = os.path.realpath(cfg["inner_dir"])
    for name in cfg["collect"]:
        path = os.path.realpath(os.path.join(inner, name))
        if not path.startswith(inner + "/"):
            continue
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            continue
        with os.fdopen(fd, "rb") as handle:
            if not os.path.isfile(f"/proc/self/fd/{fd}"):
                continue
            found[name] = handle.read(bound).decode("utf-8", "replace")
    return found


def supervise(cfg: dict, main: int, exec_pipe: int) -> dict:
    status, limit = None, ""
    # The worker stops the run at its timeout; past this, it is gone without taking the
    # namespace with it, and the run ends here.
    deadline = time.monotonic() + cfg["deadline_s"]
    while status is None:
        status = reap(main)
        if status is None and over_limit(cfg):
            limit = "processes"
            kill_all()
        elif status is None and not limit and time.monotonic() > deadline:
            limit = "timeout"
            kill_all()
        time.sleep(POLL_S)
    kill_all()  # leftovers: daemons, setsid children, background jobs
    while True:
        try:
            os.wait()
        except ChildProcessError:
            break
    failed = os.read(exec_pipe, 1000).decode("utf-8", "replace")
    result = {"limit": limit, "exec_error": failed}
    if os.WIFSIGNALED(status):
        result.update(exit=None, signal=os.WTERMSIG(status))
    else:
        result.update(exit=os.WEXITSTATUS(status), signal=None)
    return result


def report(status: dict) -> None:
    with os.fdopen(STATUS_FD, "w") as out:
        json.dump(status, out)


def main() -> int:
    global STATUS_FD
    cfg, STATUS_FD = json.loads(sys.argv[1]), int(sys.argv[2])
    status = {"exit": None, "signal": None, "limit": "", "exec_error": "", "setup_error": ""}
    try:
        prepare(cfg)
        pid, exec_pipe = start(cfg)
    except OSError as exc:
        status["setup_error"] = str(exc)
        report(status)
        return 70
    if cfg.get("owner"):  # this init also becomes the unprivileged user, and cannot be traced
        with contextlib.suppress(OSError):
            os.nice(-10)  # before dropping root: the CPU to stop a fork bomb, not its children's
        drop_privileges({"owner": cfg["owner"]})
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    status.update(supervise(cfg, pid, exec_pipe))
    status["files"] = collect(cfg, cfg["collect_bytes"])
    report(status)
    if status["signal"]:
        return 128 + status["signal"]
    return status["exit"] if status["exit"] is not None else 70


if __name__ == "__main__":
    sys.exit(main())
