"""ROCm's support matrix as data: which gfx targets each release supports, per platform.

Three layers, each over the one before, release by release:

1. the bundled file, classifiers/data/rocm_support_matrix.json: the lists ROCm's own pages
   publish, ROCm 5.7 to the newest found (Linux: the compatibility matrix's "GPU / LLVM
   target" rows; Windows: the HIP SDK column of its system requirements), every release with
   the page it came from (`ranges`), and what could not be found (`about`);
2. settings.ROCM_SUPPORT_MATRIX, same shape ({"linux": {"6.4.0": [...]}, "windows": {...}});
3. the releases edited in the admin (Classifiers > Support matrix releases) or with
   `manage.py support_matrix` (SupportMatrixRelease rows, each with its source and who
   changed it), which take effect without a restart: `matrix()` asks the database one cheap
   question per call (how many rows, changed when) and rebuilds only when the answer changed.

A report's release is read as X.Y.Z ("6.2" is 6.2.0). A release the matrix lists is judged by
its list. A patch release it does not list is judged by its series only when the listed
releases just below and just above it in the same X.Y series list the same targets (6.2.3
between 6.2.2 and 6.2.4); otherwise, and for any release newer than the newest listed ("not yet
in the matrix"), older than the oldest or of a series not listed, the release is unknown:
`supports` answers None and no rule judges it, never "unsupported". A target the file marks
`unjudged` on a platform (Ryzen APUs on Linux, listed by another page) is never called
unsupported there. `verdict` says all of this in a sentence for a person.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import NamedTuple

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from django.db.models import Count, Max

from classifiers import gpu_targets
from classifiers.models import SupportMatrixRelease
from config import linear_re

DATA_FILE = Path(__file__).resolve().parent / "data" / "rocm_support_matrix.json"
PLATFORMS = ("linux", "windows")
PLATFORM_NAMES = {"linux": "Linux", "windows": "Windows"}
SUPPORTED, UNSUPPORTED, UNKNOWN = "supported", "unsupported", "unknown"
FILE_KEYS = {"about", "sources", "ranges", "unjudged"}  # the file's keys that are not platforms
MAX_RELEASES = 500  # per imported file: ROCm has published fewer than 100
URL = linear_re.compile(r"https?://[^\s,;()<>\"']+")


class MatrixInvalid(ValueError):
    """Input the matrix refuses; the message says what to write instead."""


class Verdict(NamedTuple):
    state: str  # supported | unsupported | unknown
    sentence: str


@dataclass(frozen=True)
class Entry:
    """One release's list on one platform, with where it came from."""

    targets: tuple[str, ...]
    source: str
    origin: str  # bundled | settings | edited
    note: str = ""
    updated_by: str = ""
    updated_at: str = ""


@dataclass(frozen=True)
class Resolution:
    """How a report's release was read against a platform's list."""

    release: str  # X.Y.Z, "" when the version is not a release
    entry: Entry | None  # the list it is judged by; None: unknown
    via: str = ""  # "6.2.2 and 6.2.4" when judged by its series
    reason: str = ""  # why it is unknown, as a sentence


# reading --------------------------------------------------------------------------------------


@cache
def _bundled() -> dict:
    return json.loads(DATA_FILE.read_text(encoding="utf-8"))


def _bundled_source(platform: str, release: str) -> tuple[str, str]:
    """(url, note) of the bundled range that holds the release."""
    for span in _bundled().get("ranges", {}).get(platform, []):
        if release in span["releases"]:
            return span["url"], span.get("note", "")
    return _first_url(_bundled().get("sources", {}).get(platform, "")), ""


def _first_url(text: str) -> str:
    found = URL.search(text or "")
    return found.group(0) if found else ""


def _rows_stamp() -> tuple:
    stamp = SupportMatrixRelease.objects.aggregate(n=Count("id"), at=Max("updated_at"))
    return stamp["n"], stamp["at"]


_built: tuple = ((), {})  # (stamp, table): the last merged table and what it was built from


def entries() -> dict[str, dict[str, Entry]]:
    """{platform: {release: Entry}}: the edited rows over the settings over the bundled file.
    One query per call (the rows' count and latest change); rebuilt only when that changed."""
    global _built
    extra = getattr(settings, "ROCM_SUPPORT_MATRIX", {}) or {}
    stamp = (_rows_stamp(), json.dumps(extra, sort_keys=True, default=str))
    built_for, table = _built
    if built_for != stamp:
        table = _merged(extra)
        _built = (stamp, table)
    return table


def _merged(extra: dict) -> dict[str, dict[str, Entry]]:
    table: dict[str, dict[str, Entry]] = {p: {} for p in PLATFORMS}
    for platform in PLATFORMS:
        for release, targets in _bundled().get(platform, {}).items():
            url, note = _bundled_source(platform, release)
            table[platform][release] = Entry(tuple(targets), url, "bundled", note)
        for version, targets in (extra.get(platform) or {}).items():
            release = release_of(version)
            if not release or not isinstance(targets, list | tuple):
                raise ImproperlyConfigured(
                    f"ROCM_SUPPORT_MATRIX[{platform!r}]: {version!r} must be an X.Y.Z release "
                    'with a list of gfx targets, e.g. {"6.4.0": ["gfx942"]}'
                )
            table[platform][release] = Entry(
                tuple(str(t).lower() for t in targets), "settings.ROCM_SUPPORT_MATRIX", "settings"
            )
    for row in SupportMatrixRelease.objects.all():
        table[row.platform][row.release] = Entry(
            tuple(row.target_list),
            row.source,
            "edited",
            row.note,
            row.updated_by,
            f"{row.updated_at:%Y-%m-%d %H:%M}",
        )
    return {p: dict(sorted(t.items(), key=lambda kv: _key(kv[0]))) for p, t in table.items()}


def matrix() -> dict[str, dict[str, list[str]]]:
    """{platform: {release "X.Y.Z": [gfx targets]}}: edited rows, settings, bundled file."""
    return {p: {r: list(e.targets) for r, e in t.items()} for p, t in entries().items()}


def sources() -> dict[str, str]:
    """{platform: the pages the bundled file's lists come from}; per release: `ranges()`."""
    return dict(_bundled().get("sources", {}))


def ranges() -> dict[str, list[dict]]:
    """{platform: [{releases, url, file, note}]}: the bundled file's source of every release."""
    return {p: list(_bundled().get("ranges", {}).get(p, [])) for p in PLATFORMS}


def unjudged() -> dict[str, dict[str, str]]:
    """{platform: {target: why}}: targets these lists never call unsupported there."""
    return {p: dict(_bundled().get("unjudged", {}).get(p, {})) for p in PLATFORMS}


def about() -> str:
    return _bundled().get("about", "")


def platform_of(os_name: str) -> str:
    return "windows" if "windows" in (os_name or "").lower() else "linux"


def release_of(version: str) -> str:
    """ "6.2" -> "6.2.0", "6.2.4" and "6.2.4.1" -> "6.2.4", "ROCm 6.4.1" -> "6.4.1"; "" for
    what does not start X.Y."""
    text = (version or "").strip()
    if text[:4].lower() == "rocm":
        text = text[4:].lstrip(" -_")
    if text[:1] in ("v", "V"):
        text = text[1:]
    parts = text.split(".")[:3]
    if len(parts) < 2 or not all(p.isascii() and p.isdigit() and len(p) <= 4 for p in parts):
        return ""
    return ".".join(str(int(p)) for p in (parts + ["0"])[:3])


def _key(release: str) -> tuple[int, ...]:
    return tuple(int(p) for p in release.split("."))


def resolve(version: str, platform: str) -> Resolution:
    """The list a report's release is judged by on a platform, or why there is none."""
    listed = entries()[platform]
    name = PLATFORM_NAMES[platform]
    release = release_of(version)
    if not release:
        said = (version or "").strip()[:40]
        reason = (
            f"{said!r} is not a ROCm release (X.Y or X.Y.Z)" if said else "no ROCm release given"
        )
        return Resolution("", None, reason=reason)
    if release in listed:
        return Resolution(release, listed[release])
    if not listed:
        return Resolution(release, None, reason=f"the support matrix holds no {name} release")
    releases = list(listed)
    newest, oldest = releases[-1], releases[0]
    if _key(release) > _key(newest):
        reason = f"ROCm {release} is not yet in the support matrix for {name} (newest: {newest})"
        return Resolution(release, None, reason=reason)
    if _key(release) < _key(oldest):
        reason = f"ROCm {release} is older than the support matrix for {name} (oldest: {oldest})"
        return Resolution(release, None, reason=reason)
    series = [r for r in releases if _key(r)[:2] == _key(release)[:2]]
    below = [r for r in series if _key(r) < _key(release)]
    above = [r for r in series if _key(r) > _key(release)]
    if below and above and set(listed[below[-1]].targets) == set(listed[above[0]].targets):
        return Resolution(release, listed[below[-1]], via=f"{below[-1]} and {above[0]}")
    if series:
        reason = (
            f"ROCm {release} is not in the support matrix for {name}, and its "
            f"{'.'.join(release.split('.')[:2])} series ({', '.join(series)}) does not cover it"
        )
    else:
        reason = (
            f"ROCm {release} is not in the support matrix for {name} (no "
            f"{'.'.join(release.split('.')[:2])} release listed there)"
        )
    return Resolution(release, None, reason=reason)


def verdict(target: str, version: str, os_name: str = "") -> Verdict:
    """(state, sentence): does ROCm `version` support `target` on the OS named, in words."""
    platform = platform_of(os_name)
    name = PLATFORM_NAMES[platform]
    target = (target or "").strip().lower()[:40]
    if not target:
        return Verdict(UNKNOWN, "No gfx target was given.")
    found = resolve(version, platform)
    if found.entry is None:
        return Verdict(UNKNOWN, found.reason[:1].upper() + found.reason[1:] + ".")
    where = f" (source: {found.entry.source})" if found.entry.source else ""
    if found.via:
        said = f"ROCm {found.release} on {name} is not listed itself; {found.via} of its series"
        lists, leaves_out = f"{said} both list", f"{said} both leave out"
    else:
        said = f"ROCm {found.release} on {name}"
        lists, leaves_out = f"{said} lists", f"{said} does not list"
    if target in found.entry.targets:
        return Verdict(SUPPORTED, f"{lists} {target}{where}.")
    why = unjudged()[platform].get(target)
    if why:
        return Verdict(UNKNOWN, f"{leaves_out} {target}, but it is not judged on {name}: {why}")
    return Verdict(UNSUPPORTED, f"{leaves_out} {target}{where}.")


def supported_targets(version: str, os_name: str = "") -> list[str] | None:
    """The targets the release supports on the report's platform; None when unknown."""
    found = resolve(version, platform_of(os_name))
    return list(found.entry.targets) if found.entry is not None else None


def supports(target: str, version: str, os_name: str = "") -> bool | None:
    """Does ROCm `version` support `target` on the OS named? None: the matrix cannot say."""
    state = verdict(target, version, os_name).state
    return None if state == UNKNOWN else state == SUPPORTED


def newest(platform: str) -> str:
    releases = list(entries()[platform])
    return releases[-1] if releases else ""


# writing --------------------------------------------------------------------------------------


def release_validate(
    *, platform: str, release: str, targets, source: str
) -> tuple[str, str, list[str]]:
    """(platform, "X.Y.Z", [targets]) when they can go in the matrix, else MatrixInvalid."""
    platform = (platform or "").strip().lower()
    if platform not in PLATFORMS:
        raise MatrixInvalid(f"unknown platform {platform!r}: use one of {', '.join(PLATFORMS)}")
    typed = (release or "").strip()
    normal = release_of(typed)
    if not normal or typed.count(".") > 2 or not typed[:1].isdigit():
        raise MatrixInvalid(
            f"{(release or '').strip()[:40]!r} is not a release: write X.Y or X.Y.Z, e.g. 7.1.1"
        )
    names = targets.split(",") if isinstance(targets, str) else list(targets or [])
    names = list(dict.fromkeys(n.strip().lower() for n in names if n and n.strip()))
    if not names:
        raise MatrixInvalid("name at least one gfx target, e.g. gfx942,gfx950")
    unknown = [n for n in names if gpu_targets.target(n) is None]
    if unknown:
        raise MatrixInvalid(
            f"not gfx targets LLVM knows: {', '.join(n[:30] for n in unknown[:10])} "
            "(write the LLVM target, e.g. gfx1100 for a Radeon RX 7900 XTX)"
        )
    generic = [n for n in names if gpu_targets.target(n).generic]
    if generic:
        raise MatrixInvalid(
            f"generic targets are build targets, not GPUs: {', '.join(generic)} "
            "(name the processors, e.g. gfx1100, gfx1101)"
        )
    source = (source or "").strip()
    if not URL.fullmatch(source):
        raise MatrixInvalid(
            "give the source as the http(s) URL of the page that lists these targets"
        )
    return platform, normal, names


def matrix_release_set(
    *, platform: str, release: str, targets, source: str, note: str = "", by: str = ""
):
    """Add or replace one release's list on one platform (an edited row); returns the row."""
    platform, release, names = release_validate(
        platform=platform, release=release, targets=targets, source=source
    )
    row, _ = SupportMatrixRelease.objects.update_or_create(
        platform=platform,
        release=release,
        defaults={
            "targets": ",".join(names),
            "source": source.strip(),
            "note": (note or "").strip(),
            "updated_by": (by or "")[:150],
        },
    )
    return row


def matrix_release_remove(*, platform: str, release: str) -> None:
    """Remove an edited row: the release goes back to the settings' or the bundled list, if any."""
    platform = (platform or "").strip().lower()
    if platform not in PLATFORMS:
        raise MatrixInvalid(f"unknown platform {platform!r}: use one of {', '.join(PLATFORMS)}")
    normal = release_of(release)
    if not normal:
        raise MatrixInvalid(
            f"{(release or '').strip()[:40]!r} is not a release: write X.Y or X.Y.Z"
        )
    deleted, _ = SupportMatrixRelease.objects.filter(platform=platform, release=normal).delete()
    if not deleted:
        raise MatrixInvalid(
            f"no edited row for ROCm {normal} on {PLATFORM_NAMES[platform]}: only edited releases "
            "are removed (the bundled file's are corrected with --set)"
        )


def matrix_import(*, data, source: str = "", by: str = "") -> list[str]:
    """Add or replace every release of a file shaped as the bundled one, all or nothing; the
    source of a release is `source`, else its range's url, else the file's platform source.
    Returns "platform X.Y.Z" per release written."""
    if not isinstance(data, dict):
        raise MatrixInvalid('the file is not a JSON object like {"linux": {"7.1.1": ["gfx942"]}}')
    unknown = sorted(k for k in data if k not in PLATFORMS and k not in FILE_KEYS)
    if unknown:
        raise MatrixInvalid(
            f"unknown keys {', '.join(repr(k[:30]) for k in unknown[:5])}: the platforms are "
            f"{', '.join(PLATFORMS)} (also read: {', '.join(sorted(FILE_KEYS))})"
        )
    planned = []
    for platform in PLATFORMS:
        releases = data.get(platform) or {}
        if not isinstance(releases, dict):
            raise MatrixInvalid(f'{platform}: expected {{"X.Y.Z": ["gfx..."]}}')
        for release, targets in releases.items():
            if not isinstance(targets, list) or not all(isinstance(t, str) for t in targets):
                raise MatrixInvalid(f"{platform} {release}: the targets are a list of strings")
            where = source or _file_source(data, platform, release)
            try:
                planned.append(
                    (
                        release_validate(
                            platform=platform, release=release, targets=targets, source=where
                        ),
                        where,
                    )
                )
            except MatrixInvalid as exc:
                raise MatrixInvalid(f"{platform} {str(release)[:40]}: {exc}") from None
    if not planned:
        raise MatrixInvalid("the file names no release under linux or windows")
    if len(planned) > MAX_RELEASES:
        raise MatrixInvalid(f"{len(planned)} releases: more than {MAX_RELEASES} in one file")
    written = []
    with transaction.atomic():
        for (platform, release, names), where in planned:
            matrix_release_set(
                platform=platform, release=release, targets=names, source=where, by=by
            )
            written.append(f"{platform} {release}")
    return written


def _file_source(data: dict, platform: str, release: str) -> str:
    normal = release_of(release)
    for span in (data.get("ranges") or {}).get(platform) or []:
        if isinstance(span, dict) and normal in [
            release_of(str(r)) for r in span.get("releases") or []
        ]:
            return str(span.get("url") or "")
    return _first_url(str((data.get("sources") or {}).get(platform) or ""))
