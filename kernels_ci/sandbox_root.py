"""What a sandboxed run's filesystem holds: an allow-list, built into an empty root.

The sandbox's init (kernels_ci/sandbox_init.py) mounts a tmpfs as the run's new root, carries out
these operations in it, and pivots into it, so nothing of the host is reachable that is not named
here (the pattern of bubblewrap's `--tmpfs / --ro-bind`): read-only binds of

- the Python installation (sys.base_prefix) and the environment the backends run: a virtual
  environment's interpreter links, pyvenv.cfg and a view of its site-packages that leaves out
  the files of the project's own distribution (the editable install's .pth and finder, which
  name the project directory, and its .dist-info): a reproducer never needs our code;
- /usr and the merged-/usr links (/bin, /lib, /lib64, /sbin), /etc/ld.so.cache, and an
  /etc/passwd and /etc/group of our own (root and nobody, nothing of the host);
- /dev: a tmpfs holding only null, zero, full, random and urandom, the /proc/self/fd links and
  a private /dev/shm; no tty, no pts; and the device nodes of the backend's device profile
  (`devices`: a GPU backend's /dev/kfd, /dev/dri/renderD*), those that exist on this host;
- /proc of the run's own PID namespace;
- settings.KERNELS_CI_SANDBOX_BIND: further read-only paths a runner needs (/opt/rocm, ...),
  and the run's own (the per-version environment it runs on, kernels_ci.environments).

A bind that would expose the service's data (the project directory, VAR_DIR, the model artifacts,
an SQLite database, the worker's home) is refused: the run does not start.
"""

from __future__ import annotations

import functools
import glob
import json
import os
import site
import stat
import sys
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlsplit

from django.conf import settings

SYSTEM = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc/ld.so.cache"]
DEVICES = ["null", "zero", "full", "random", "urandom"]
DEV_LINKS = {"fd": "/proc/self/fd", "stdin": "fd/0", "stdout": "fd/1", "stderr": "fd/2"}
SHM, SHM_SIZE = "/dev/shm", 64 * 1024**2  # noqa: S108 - a private tmpfs inside the run's root
ROOT_SIZE, DEV_SIZE = 1024**2, 64 * 1024  # the root's own tmpfs and /dev's: a few small files
PASSWD = (
    "root:x:0:0:root:/root:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/:/usr/sbin/nologin\n"
)
GROUP = "root:x:0:\nnogroup:x:65534:\n"


class ExposesServiceData(ValueError):
    """A path the sandbox was asked to bind holds the service's own data."""


def root_plan(
    *, private_dir: str, binds: tuple[str, ...] = (), devices: tuple[str, ...] = ()
) -> list[list[str]]:
    """The operations that build a run's root, in order: ["dir", path], ["tmpfs", path,
    options], ["bind", source, target] (read-only), ["link", path, target], ["file", path,
    content]. `binds`: this run's own further read-only paths (its per-version environment);
    `devices`: the device nodes (globs under /dev) its backend's device profile names."""
    plan = [["dir", os.path.dirname(private_dir)]]
    plan += _expose([*SYSTEM, *settings.KERNELS_CI_SANDBOX_BIND, *binds])
    plan += [["file", "/etc/passwd", PASSWD], ["file", "/etc/group", GROUP]]
    plan += python_runtime()
    plan += _dev(devices) + [["bind", "/proc", "/proc"]]
    plan = _without_nested_binds(plan)
    _refuse_service_data(plan)
    return plan


def _without_nested_binds(plan: list[list[str]]) -> list[list[str]]:
    """Each path once: a bind inside a path bound before is already there."""
    bound, seen, kept = [], set(), []
    for op in plan:
        if tuple(op) in seen:
            continue
        if op[0] == "bind":
            if any(op[2] == b or op[2].startswith(b.rstrip("/") + "/") for b in bound):
                continue
            if os.path.isdir(op[1]):
                bound.append(op[2])
        seen.add(tuple(op))
        kept.append(op)
    return kept


def python_runtime() -> list[list[str]]:
    """The interpreter the backends start (sys.executable) with its installation and, for a
    virtual environment, its site-packages without the project."""
    plan = _expose([sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))])
    if sys.prefix == sys.base_prefix:
        return plan
    venv = Path(sys.prefix)
    for python in sorted((venv / "bin").glob("python*")):
        if python.is_symlink():
            plan.append(["link", str(python), os.readlink(python)])
        else:
            plan.append(["bind", str(python), str(python)])
    plan += _expose([str(venv / "pyvenv.cfg")])
    for lib in (venv / "lib", venv / "lib64"):  # one is often a link to the other
        if lib.is_symlink():
            plan.append(["link", str(lib), os.readlink(lib)])
    for packages in site_packages():
        changed = os.stat(packages).st_mtime_ns  # an install since: a new view
        plan += site_packages_view(packages, str(settings.BASE_DIR), changed)
    return plan


def site_packages() -> list[str]:
    """The virtual environment's own site-packages directories."""
    prefix = os.path.realpath(sys.prefix)
    found = [os.path.realpath(p) for p in site.getsitepackages()]
    return sorted({p for p in found if p.startswith(prefix + "/") and os.path.isdir(p)})


@functools.lru_cache(maxsize=8)
def site_packages_view(packages: str, project: str, changed: int = 0) -> list[list[str]]:
    """Every entry of `packages` bound on its own, except the files of distributions installed
    from the project directory (pip's direct_url.json names it); a directory that holds some of
    them (__pycache__) is rebuilt entry by entry. Without such files: the whole directory."""
    left_out = _project_files(packages, os.path.realpath(project))
    if not left_out:
        return [["bind", packages, packages]]
    plan: list[list[str]] = []

    def view(directory: str) -> None:
        plan.append(["dir", directory])
        for name in sorted(os.listdir(directory)):
            path = os.path.join(directory, name)
            if path in left_out:
                continue
            if any(p.startswith(path + "/") for p in left_out):
                view(path)
            elif os.path.islink(path):
                plan.append(["link", path, os.readlink(path)])
            else:
                plan.append(["bind", path, path])

    view(packages)
    return plan


def _project_files(packages: str, project: str) -> set[str]:
    files = set()
    for dist in metadata.distributions(path=[packages]):
        try:
            url = json.loads(dist.read_text("direct_url.json") or "{}").get("url", "")
        except ValueError:
            continue
        parts = urlsplit(url)
        where = os.path.realpath(unquote(parts.path)) if parts.scheme == "file" else ""
        if where and (where == project or where.startswith(project + "/")):
            for name in dist.files or ():
                files.add(os.path.normpath(os.path.join(packages, name)))
                if name.parts[0].endswith((".dist-info", ".egg-info")):
                    files.add(os.path.join(packages, name.parts[0]))
    return files


def _expose(paths: list[str]) -> list[list[str]]:
    """Bind each existing path at the same place; a symlink becomes the same link, and what it
    points to is bound too."""
    plan = []
    for path in paths:
        path = os.path.abspath(path)
        if os.path.islink(path):
            plan.append(["link", path, os.readlink(path)])
            real = os.path.realpath(path)
            if os.path.exists(real) and real != path:
                plan += _expose([real])
        elif os.path.exists(path):
            plan.append(["bind", path, path])
    return plan


def _dev(devices: tuple[str, ...] = ()) -> list[list[str]]:
    plan = [["tmpfs", "/dev", f"size={DEV_SIZE},mode=0755"]]
    plan += [["bind", f"/dev/{name}", f"/dev/{name}"] for name in DEVICES]
    plan += [["bind", node, node] for node in device_nodes(devices)]
    plan += [["link", f"/dev/{name}", target] for name, target in DEV_LINKS.items()]
    return plan + [["tmpfs", SHM, f"size={SHM_SIZE},mode=1777"]]


class NotADevice(ValueError):
    """A device profile named something other than a character device under /dev."""


def device_nodes(patterns: tuple[str, ...]) -> list[str]:
    """The character devices under /dev that a device profile's globs name on this host (a GPU
    host has them, a CPU runner none): anything else is refused, the run does not start."""
    found = []
    for pattern in patterns:
        if not pattern.startswith("/dev/") or ".." in pattern:
            raise NotADevice(f"{pattern!r} is not a device under /dev")
        for node in sorted(glob.glob(pattern)):
            if not stat.S_ISCHR(os.stat(node).st_mode):
                raise NotADevice(f"{node} is not a character device")
            if node not in found and node.removeprefix("/dev/") not in DEVICES:
                found.append(node)
    return found


def tmpfs_bytes(disk_bytes: int) -> int:
    """The most a run's tmpfs mounts hold (their pages are memory): its private directory of
    `disk_bytes`, /dev/shm, the root's and /dev's own."""
    return disk_bytes + SHM_SIZE + ROOT_SIZE + DEV_SIZE


def service_data_paths() -> list[str]:
    """What no run may see: the project, VAR_DIR, the model artifacts, an SQLite database's
    directory, the worker's home."""
    paths = [settings.BASE_DIR, settings.VAR_DIR, settings.CLASSIFIER_ARTIFACT_DIR]
    url = getattr(settings, "DATABASE_URL", "") or ""
    if url.startswith("sqlite:///"):
        paths.append(os.path.dirname(url.removeprefix("sqlite://")))
    paths.append(os.path.expanduser("~"))
    return sorted({os.path.realpath(p) for p in paths})


def _refuse_service_data(plan: list[list[str]]) -> None:
    protected = service_data_paths()
    for op in plan:
        if op[0] != "bind":
            continue
        source = os.path.realpath(op[1])
        for path in protected:
            if path == source or path.startswith(source.rstrip("/") + "/"):
                raise ExposesServiceData(f"binding {op[1]} would expose {path}")
