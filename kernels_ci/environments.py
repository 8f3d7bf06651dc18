"""A runner's per-version environments: a reproducer runs on the Triton release its reporter used,
not only on the one the runner has.

One directory per version set (`triton-3.2.0`) under settings.KERNELS_CI_ENV_DIR, holding the
published wheel and what it needs, installed by pip from the package index the runner is
configured with (`pip install --target DIR --only-binary :all: triton==3.2.0`), outside the
sandbox, on first use. A run gets it read-only, first on its import path, in front of the
runner's own packages (kernels_ci.backends.base.environment_options); torch and numpy stay the
runner's (the CPU build; the AMD ahead-of-time compiler needs no GPU build of anything).

- Built once: a lock file per version set (flock); a second run that needs it waits for the
  first build, then uses it. A run holds the lock shared while it runs, so eviction never takes
  an environment from under it.
- Bounded: KERNELS_CI_ENV_CACHE_BYTES in all; before a build, the least recently used
  environments that no run holds are removed until the new one fits. A cache that cannot make
  room, a disk that fills up, a version the index does not have, a wheel that does not install:
  EnvironmentUnavailable with the reason, which the attempt reports as an infra error (never a
  pass, never "fixed").
- Checked: before its first run on a backend, an environment runs that backend's check kernel (a
  vector add); an environment that gets it wrong cannot judge a reproducer (Triton 3.0 and 3.1's
  interpreters compute garbage with torch 2.13) and is refused with that reason. The result is
  kept in the environment's manifest.
- Versions come from issue text: only a plain release number (`3.2.0`; a local suffix such as
  `+rocm6.2` is dropped) of a package in PINNABLE is ever passed to pip.

On a GPU runner (rocm-container) the same ladder is over ROCm series: one container image
pinned by digest per series (settings.KERNELS_CI_ROCM_IMAGES, "6.2" -> image), the runner's own
being KERNELS_CI_ROCM_IMAGE at KERNELS_CI_ROCM_VERSION. Nothing is built: the environment of a
series is its image, and a series without one is unavailable with the reason.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from django.conf import settings
from packaging.version import InvalidVersion, Version

from config import linear_re

PINNABLE = ("triton",)  # installed from the package index
IMAGE_PINNED = ("rocm",)  # a container image per series
MANIFEST = ".kernels-ci.json"
RELEASE_RE = linear_re.compile(r"^\d{1,4}(?:\.\d{1,4}){0,3}$")
NOT_ON_INDEX_RE = linear_re.compile(
    r"(?:No matching distribution found|Could not find a version that satisfies)[^\n]*"
)
FROM_VERSIONS_RE = linear_re.compile(r"\(from versions: (?P<versions>[^)]*)\)")
AVAILABLE_RE = linear_re.compile(r"^Available versions: (?P<versions>.*)$", linear_re.M)
CANARY = """\
import torch
import triton
import triton.language as tl


@triton.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


x = torch.arange(1000, dtype=torch.float32)
y = torch.full((1000,), 0.5)
out = torch.empty(1000)
add[(8,)](x, y, out, 1000, BLOCK=128)
assert torch.equal(out, x + y), "the check kernel computed a wrong sum"
"""
RELEASES_TTL_S = 3600
_releases_cache: dict[str, tuple[float, list[str]]] = {}


class EnvironmentUnavailable(Exception):
    """The versions cannot be had on this runner; the message says why."""


@dataclass
class Environment:
    key: str  # "" for the runner's own packages
    path: str
    versions: dict = field(default_factory=dict)  # what a run on it runs on
    built_s: float | None = None  # seconds this call spent building it (None: it was there)
    image: str = ""  # a container image pinned by digest, for rocm-container


def series(version: str) -> str:
    """A ROCm series from a version as reported ("6.2.4", "6.2") -> "6.2"; "" if none."""
    parts = release(version).split(".")
    return ".".join(parts[:2]) if len(parts) >= 2 else ""


def runner_rocm_version() -> str:
    """This GPU runner's ROCm: KERNELS_CI_ROCM_VERSION, else /opt/rocm/.info/version."""
    if settings.KERNELS_CI_ROCM_VERSION:
        return settings.KERNELS_CI_ROCM_VERSION
    info = Path("/opt/rocm/.info/version")
    return info.read_text().strip() if info.exists() else ""


def _image_environment(versions: dict) -> Environment:
    """The image of the series asked for (the runner's own when it is that series)."""
    own = series(runner_rocm_version())
    wanted = series(str(versions.get("rocm", ""))) or own
    if wanted == own:
        image = settings.KERNELS_CI_ROCM_IMAGE
        return Environment(key="", path="", versions={"rocm": own} if own else {}, image=image)
    image = settings.KERNELS_CI_ROCM_IMAGES.get(wanted, "")
    if not image:
        have = ", ".join(sorted(settings.KERNELS_CI_ROCM_IMAGES, key=Version)) or "none"
        raise EnvironmentUnavailable(
            f"this runner has no image for ROCm {wanted} (KERNELS_CI_ROCM_IMAGES has {have})"
        )
    return Environment(key=f"rocm-{wanted}", path="", versions={"rocm": wanted}, image=image)


def installed_versions() -> dict[str, str]:
    """The runner's own versions of the stack a reproducer imports."""
    found = {}
    for package in ("triton", "torch"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            found[package] = metadata.version(package)
    return found


def release(text: str) -> str:
    """A plain release number from a reported version ("3.1.0+rocm6.2" -> "3.1.0"), or "";
    at least major.minor.micro, as releases are published ("3.2" is 3.2.0: one environment)."""
    try:
        version = Version(str(text).strip().removeprefix("v"))
    except InvalidVersion:
        return ""
    if version.is_prerelease or version.is_devrelease or version.epoch:
        return ""
    parts = list(version.release) + [0] * (3 - len(version.release))
    public = ".".join(str(part) for part in parts)
    return public if RELEASE_RE.match(public) else ""


def package_release(package: str, version: str) -> str:
    """A version as a pin of `package` names it: a ROCm series ("6.2.1" -> "6.2": its image),
    else a plain release ("3.2" -> "3.2.0")."""
    return series(version) if package in IMAGE_PINNED else release(version)


def pins(versions: dict) -> dict[str, str]:
    """The versions to pin: packages this runner can install at another release, as plain
    release numbers, without those equal to what the runner has (its own environment)."""
    own = installed_versions()
    chosen = {}
    for package, text in sorted((versions or {}).items()):
        number = release(text)
        if package not in PINNABLE or not number:
            continue
        if own.get(package) and Version(release(own[package]) or "0") == Version(number):
            continue
        chosen[package] = number
    return chosen


def key_of(pinned: dict[str, str]) -> str:
    return "-".join(f"{package}-{version}" for package, version in sorted(pinned.items()))


def cache_dir() -> Path:
    root = Path(settings.KERNELS_CI_ENV_DIR)
    root.mkdir(mode=0o755, parents=True, exist_ok=True)
    info = root.stat()
    if info.st_uid != os.getuid() or info.st_mode & 0o022:
        raise EnvironmentUnavailable(
            f"KERNELS_CI_ENV_DIR {root} must belong to this worker and be writable by no one else"
        )
    return root


@contextlib.contextmanager
def _locked(path: Path, mode: int):
    with open(path, "a+") as handle:
        fcntl.flock(handle, mode)
        try:
            yield handle
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def manifest_read(path: Path) -> dict:
    try:
        return json.loads((path / MANIFEST).read_text())
    except (OSError, ValueError):
        return {}


def _manifest_write(path: Path, manifest: dict) -> None:
    temporary = path / f"{MANIFEST}.{os.getpid()}"
    temporary.write_text(json.dumps(manifest, indent=2, sort_keys=True))
    os.replace(temporary, path / MANIFEST)


@contextlib.contextmanager
def environment_in_use(versions: dict, *, pinnable: tuple[str, ...] = PINNABLE):
    """The environment of `versions` (built if need be), held while the caller runs on it.
    `pinnable`: what the run's backend can pin (its description's pins)."""
    if set(pinnable) & set(IMAGE_PINNED):
        yield _image_environment(versions or {})
        return
    pinned = pins(versions)
    own = installed_versions()
    if not pinned:
        yield Environment(key="", path="", versions=own)
        return
    key, root = key_of(pinned), cache_dir()
    path, lock = root / key, root / f"{key}.lock"
    built_s = None
    with _locked(lock, fcntl.LOCK_EX):
        if not manifest_read(path):
            built_s = _build(root, path, pinned)
    with _locked(lock, fcntl.LOCK_SH):
        manifest = manifest_read(path)
        if not manifest:  # evicted between the build and now: rare; the caller's attempt says so
            raise EnvironmentUnavailable(f"{key} was removed from the cache before it could run")
        os.utime(path / MANIFEST)  # its last use, for eviction
        yield Environment(
            key=key, path=str(path), versions={**own, **manifest["versions"]}, built_s=built_s
        )


def _build(root: Path, path: Path, pinned: dict[str, str]) -> float:
    started = time.monotonic()
    _make_room(root, keep=path.name)
    temporary = root / f".{path.name}.{os.getpid()}.build"
    shutil.rmtree(temporary, ignore_errors=True)
    shutil.rmtree(path, ignore_errors=True)
    requirements = [f"{package}=={version}" for package, version in sorted(pinned.items())]
    command = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--no-input",
        "--disable-pip-version-check",
        "--no-warn-script-location",
        "--only-binary",
        ":all:",
        "--target",
        str(temporary),
        *requirements,
    ]
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=settings.KERNELS_CI_ENV_BUILD_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        shutil.rmtree(temporary, ignore_errors=True)
        raise EnvironmentUnavailable(
            f"installing {', '.join(requirements)} took more than "
            f"{settings.KERNELS_CI_ENV_BUILD_TIMEOUT_S} s"
        ) from None
    if done.returncode != 0:
        shutil.rmtree(temporary, ignore_errors=True)
        raise EnvironmentUnavailable(_install_failure(requirements, done.stdout + done.stderr))
    size = _size(temporary)
    manifest = {
        "versions": dict(pinned),
        "size_bytes": size,
        "built_at": time.time(),
        "build_seconds": round(time.monotonic() - started, 1),
        "canary": {},
    }
    _manifest_write(temporary, manifest)
    os.replace(temporary, path)
    return time.monotonic() - started


def _install_failure(requirements: list[str], output: str) -> str:
    wanted = ", ".join(requirements)
    if "No space left on device" in output:
        return (
            f"the disk of the environment cache ({settings.KERNELS_CI_ENV_DIR}) is full: "
            f"{wanted} could not be installed"
        )
    if NOT_ON_INDEX_RE.search(output):
        found = FROM_VERSIONS_RE.search(output)
        listed = found.group("versions").strip() if found else ""
        return f"{wanted} is not on the package index" + (
            f" (it has {listed})" if listed and listed != "none" else ""
        )
    last = [line for line in output.strip().splitlines() if line.strip()]
    return f"pip could not install {wanted}: {last[-1][:300] if last else 'no output'}"


def _size(path: Path) -> int:
    total = 0
    for folder, _, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(folder, name)).st_size
    return total


def cached() -> list[dict]:
    """The environments in the cache, least recently used first: key, size, last use."""
    root = cache_dir()
    found = []
    for path in root.iterdir():
        manifest = manifest_read(path) if path.is_dir() and not path.name.startswith(".") else {}
        if manifest:
            found.append(
                {
                    "key": path.name,
                    "path": path,
                    "size_bytes": int(manifest.get("size_bytes", 0)),
                    "last_used": (path / MANIFEST).stat().st_mtime,
                    "versions": manifest.get("versions", {}),
                }
            )
    return sorted(found, key=lambda e: e["last_used"])


def _make_room(root: Path, *, keep: str) -> None:
    """Remove least recently used environments no run holds until a new one fits in the cache
    budget and on the disk (the new one is taken to be as large as the largest there)."""
    budget = settings.KERNELS_CI_ENV_CACHE_BYTES
    entries = [e for e in cached() if e["key"] != keep]
    expected = max([e["size_bytes"] for e in entries], default=settings.KERNELS_CI_ENV_SIZE_GUESS)
    used = sum(e["size_bytes"] for e in entries)

    def fits() -> bool:
        return used + expected <= budget and shutil.disk_usage(root).free >= expected

    for entry in entries:
        if fits():
            return
        with open(root / f"{entry['key']}.lock", "a+") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # a run is on it
            try:
                shutil.rmtree(entry["path"], ignore_errors=True)
                used -= entry["size_bytes"]
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
    if not fits():
        free = shutil.disk_usage(root).free
        raise EnvironmentUnavailable(
            f"the environment cache is full: {used / 1024**3:.1f} GiB held by runs in progress "
            f"of {budget / 1024**3:.1f} GiB (KERNELS_CI_ENV_CACHE_BYTES), {free / 1024**3:.1f} "
            f"GiB free on its disk, {expected / 1024**3:.1f} GiB needed"
        )


def canary_problem(
    environment: Environment,
    backend: str,
    target: str,
    check,
    *,
    toolchain: str = "",
    advice: str = "",
) -> str:
    """Why `environment` cannot judge a reproducer on `backend` ("" when it can): `check(script)`
    runs the check kernel there, for `target`, and returns what happened ("" for a pass).
    Remembered per backend, target and the runner's `toolchain` (what the backend uses outside
    the environment: the linker it found ...), so a runner whose toolchain changed (ld.lld
    installed) checks again; `advice` says what to fix on a failure."""
    if not environment.path:
        return ""
    path = Path(environment.path)
    manifest = manifest_read(path)
    known = manifest.get("canary", {})
    key = f"{backend} {target} {toolchain}".strip()
    if key in known:
        return known[key]
    problem = check(CANARY)
    if problem:
        versions = ", ".join(f"{k} {v}" for k, v in sorted(environment.versions.items()))
        problem = (
            f"{environment.key} cannot judge a reproducer on {backend} here ({versions}): its "
            f"check kernel, a vector add for {target}, gave {problem}"
        ) + (f"; {advice}" if advice else "")
    manifest.setdefault("canary", {})[key] = problem
    _manifest_write(path, manifest)
    return problem


def releases(package: str) -> list[str]:
    """The package's published releases the index offers (pip leaves out yanked ones and
    pre-releases), oldest first. Remembered for an hour. For ROCm: the series this runner has
    an image of."""
    if package in IMAGE_PINNED:
        own = series(runner_rocm_version())
        ladder = set(settings.KERNELS_CI_ROCM_IMAGES) | ({own} if own else set())
        return sorted((s for s in ladder if release(s)), key=Version)
    now = time.monotonic()
    hit = _releases_cache.get(package)
    if hit and now - hit[0] < RELEASES_TTL_S:
        return list(hit[1])
    if package not in PINNABLE:
        raise EnvironmentUnavailable(f"{package} cannot be pinned on this runner")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "index", "versions", package, "--disable-pip-version-check"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    found = AVAILABLE_RE.search(done.stdout)
    if done.returncode != 0 or not found:
        last = (done.stderr or done.stdout).strip().splitlines()
        raise EnvironmentUnavailable(
            f"the package index did not list {package}'s releases: "
            f"{last[-1][:200] if last else 'no answer'}"
        )
    numbers = {release(v) for v in found.group("versions").split(",")} - {""}
    ordered = sorted(numbers, key=Version)
    _releases_cache[package] = (now, ordered)
    return list(ordered)
