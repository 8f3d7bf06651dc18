"""The release calendar as pure functions: a series' settings plus its overrides give its trains.

Nothing here reads the database or the clock: the same SeriesSpec always gives the same trains,
and "now" is an argument. A train occupies a *slot*: slot n of a series is released (GA) on
epoch_date + n * cadence_days. An override, keyed by the slot's nominal GA date, can move that
train's dates (a slip), skip the slot (no train; the version is not used up), or restart the
numbering there (a new major: version "8.0").

Every date is a deadline that ends at the end of that day in the series' time zone: "branch cut
on 2026-12-09" in Anywhere-on-Earth (UTC-12) ends at 2026-12-10 12:00 UTC.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from config import linear_re

AOE_NAMES = {"aoe", "anywhere-on-earth", "anywhere on earth", "utc-12", "etc/gmt+12"}
AOE = timezone(timedelta(hours=-12), "AoE")
VERSION_RE = linear_re.compile(r"^v?(\d{1,4})\.(\d{1,4})(?:\.\d{1,4})?$")
MAX_SLOTS = 5000  # about 575 years of six-week trains: a bound on every search


class CalendarError(ValueError):
    """A bad series setting, version or date (the message says which)."""


def parse_version(text: str) -> tuple[int, int]:
    """'7.3', '7.3.0' or 'v7.3' -> (7, 3)."""
    match = VERSION_RE.match((text or "").strip())
    if not match:
        raise CalendarError(f"{text!r} is not a version (use MAJOR.MINOR, e.g. 7.3)")
    return int(match.group(1)), int(match.group(2))


def format_version(version: tuple[int, int]) -> str:
    return f"{version[0]}.{version[1]}"


def time_zone_get(name: str) -> tzinfo:
    """An IANA name ('Europe/Berlin', 'UTC') or Anywhere-on-Earth ('AoE', fixed UTC-12)."""
    if (name or "").strip().lower() in AOE_NAMES:
        return AOE
    try:
        return ZoneInfo((name or "UTC").strip())
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise CalendarError(f"unknown time zone {name!r} (an IANA name or AoE)") from exc


def end_of_day(day: date, time_zone: str) -> datetime:
    """The instant (in UTC) at which `day` ends in `time_zone`: the deadline of that day."""
    tz = time_zone_get(time_zone)
    try:
        return datetime.combine(day + timedelta(days=1), time(0), tzinfo=tz).astimezone(UTC)
    except OverflowError as exc:  # 9999-12-31 ends past the last day Python's dates know
        raise CalendarError(f"{day.isoformat()} is past the last day of the calendar") from exc


def day_in(instant: datetime, time_zone: str) -> date:
    """The calendar day that `instant` falls on in `time_zone`."""
    return instant.astimezone(time_zone_get(time_zone)).date()


@dataclass(frozen=True)
class Override:
    slot: date  # the slot's nominal GA date (epoch_date + n * cadence)
    skip: bool = False
    release: date | None = None
    branch_cut: date | None = None
    code_freeze: date | None = None
    rc: date | None = None
    version: str = ""  # restart the numbering here: "8.0" starts a new major
    note: str = ""


@dataclass(frozen=True)
class SeriesSpec:
    name: str
    epoch_version: str
    epoch_date: date
    cadence_days: int = 42
    time_zone: str = "UTC"
    branch_cut_days: int = 14  # before GA
    code_freeze_days: int = 14  # before GA (default: at branch cut)
    rc_days: int = 7  # before GA
    version_suffix: str = ""  # shown after X.Y: ".0" gives ROCm's 7.3.0
    overrides: tuple[Override, ...] = field(default_factory=tuple)

    def validate(self) -> None:
        parse_version(self.epoch_version)
        time_zone_get(self.time_zone)
        if not 1 <= self.cadence_days <= 3660:
            raise CalendarError("cadence_days must be between 1 and 3660")
        for name in ("branch_cut_days", "code_freeze_days", "rc_days"):
            if not 0 <= getattr(self, name) < 3660:
                raise CalendarError(f"{name} must be between 0 and 3659")
        for override in self.overrides:
            if override.version:
                parse_version(override.version)


class _EndOfDay:
    """A train's milestone as a moment: the end of its day `field` in the train's time zone."""

    def __init__(self, field: str):
        self.field = field

    def __get__(self, train, owner=None) -> datetime:
        if train is None:
            return self
        return end_of_day(getattr(train, self.field), train.time_zone)


@dataclass(frozen=True)
class Train:
    series: str
    version: str  # "X.Y", the train's key
    label: str  # as the series shows it ("7.3.0")
    slot: date
    branch_cut: date
    code_freeze: date
    rc: date
    release: date
    time_zone: str
    note: str = ""

    @property
    def key(self) -> tuple[int, int]:
        return parse_version(self.version)

    branch_cut_at = _EndOfDay("branch_cut")
    code_freeze_at = _EndOfDay("code_freeze")
    rc_at = _EndOfDay("rc")
    release_at = _EndOfDay("release")

    def phase(self, now: datetime) -> str:
        """released | stabilizing (cut, not released) | open (takes default-branch merges)"""
        if now >= self.release_at:
            return "released"
        if now >= self.branch_cut_at:
            return "stabilizing"
        return "open"

    def as_dict(self) -> dict:
        return {
            "series": self.series,
            "version": self.version,
            "label": self.label,
            "branch_cut": self.branch_cut.isoformat(),
            "code_freeze": self.code_freeze.isoformat(),
            "rc": self.rc.isoformat(),
            "release": self.release.isoformat(),
            "time_zone": self.time_zone,
            "branch_cut_at": self.branch_cut_at.isoformat(),
            "release_at": self.release_at.isoformat(),
            "note": self.note,
        }


def iter_trains(spec: SeriesSpec) -> Iterator[Train]:
    """Every train of the series from its epoch on, in order (endless; bounded by MAX_SLOTS)."""
    overrides = {o.slot: o for o in spec.overrides}
    major, minor = parse_version(spec.epoch_version)
    for n in range(MAX_SLOTS):
        try:
            slot = spec.epoch_date + timedelta(days=n * spec.cadence_days)
        except OverflowError:
            return  # the calendar ends (year 9999) before MAX_SLOTS trains
        override = overrides.get(slot) or Override(slot=slot)
        if override.skip:
            continue
        if override.version:
            major, minor = parse_version(override.version)
        release = override.release or slot
        version = format_version((major, minor))
        try:
            train = Train(
                series=spec.name,
                version=version,
                label=version + spec.version_suffix,
                slot=slot,
                branch_cut=override.branch_cut or release - timedelta(days=spec.branch_cut_days),
                code_freeze=override.code_freeze or release - timedelta(days=spec.code_freeze_days),
                rc=override.rc or release - timedelta(days=spec.rc_days),
                release=release,
                time_zone=spec.time_zone,
                note=override.note,
            )
            train.release_at  # noqa: B018 - a train whose day cannot end is past the calendar
        except (OverflowError, CalendarError):
            return
        yield train
        minor += 1


def train_get(spec: SeriesSpec, version: str) -> Train | None:
    """The train of that version ('7.3' or '7.3.0'), or None if the series has none."""
    wanted = parse_version(version)
    for train in iter_trains(spec):
        if train.key == wanted:
            return train
        if train.key > wanted and not _restarts_after(spec, train.slot):
            return None
    return None


def _restarts_after(spec: SeriesSpec, slot: date) -> bool:
    return any(o.version and o.slot > slot for o in spec.overrides)


def train_after(spec: SeriesSpec, train: Train) -> Train | None:
    trains = iter_trains(spec)
    for candidate in trains:
        if candidate.slot == train.slot:
            return next(trains, None)
    return None


def train_for_merge(spec: SeriesSpec, merged_at: datetime) -> Train | None:
    """The first train whose branch cut ends after `merged_at` (a merge into the default branch).

    None for a merge more than one cadence before the first train's branch cut: the series had
    not started."""
    for index, train in enumerate(iter_trains(spec)):
        if index == 0 and merged_at < train.branch_cut_at - timedelta(days=spec.cadence_days):
            return None
        if train.branch_cut_at > merged_at:
            return train
    return None


def train_current(spec: SeriesSpec, now: datetime) -> Train | None:
    """The next train to ship: the first one not released at `now`."""
    for train in iter_trains(spec):
        if train.release_at > now:
            return train
    return None


# The trains the timeline shows, on the page and in the API alike: released, and after the current.
TIMELINE_PAST = 4
TIMELINE_UPCOMING = 3


def trains_window(spec: SeriesSpec, now: datetime, *, past: int = 3, upcoming: int = 3):
    """(past trains, the current one, the ones after it): `past` released, `upcoming` after."""
    released: list[Train] = []
    for train in iter_trains(spec):
        if train.release_at > now:
            current = train
            break
        released.append(train)
    else:  # pragma: no cover - MAX_SLOTS exhausted
        return released[-past:] if past else [], None, []
    after: list[Train] = []
    rest = iter_trains(spec)
    for train in rest:
        if train.slot == current.slot:
            break
    for train in rest:
        if len(after) >= upcoming:
            break
        after.append(train)
    return (released[-past:] if past else []), current, after


def trains_open(spec: SeriesSpec, now: datetime) -> list[Train]:
    """Trains not yet released at `now` that are already cut (they take backports only)."""
    _, current, after = trains_window(spec, now, past=0, upcoming=1)
    return [t for t in [current, *after] if t is not None and t.phase(now) == "stabilizing"]
