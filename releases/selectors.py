"""Reads for the release pages, the report and the API. Nothing here writes.

Issues and pull requests are read through triage.selectors.issue_list (visible rows only)."""

from __future__ import annotations

from datetime import date, datetime

from django.http import Http404

from releases import calendar
from releases.labels import architectures, kinds_of, label_sets
from releases.linking import release_branch_version
from releases.models import Backport, FixLink, Punt, ReleaseSeries, TrainTarget
from triage.selectors import issue_list


def series_all() -> list[ReleaseSeries]:
    return list(ReleaseSeries.objects.prefetch_related("overrides").order_by("name"))


def series_get(name: str = "") -> ReleaseSeries:
    """The named series, or the first one; Http404 when there is none."""
    series = ReleaseSeries.objects.order_by("name")
    found = series.filter(name=name).first() if name else series.first()
    if found is None:
        raise Http404(f"no release series {name!r}" if name else "no release series yet")
    return found


def train_get(series: ReleaseSeries, version: str) -> calendar.Train:
    try:
        train = calendar.train_get(series.spec(), version)
    except calendar.CalendarError as exc:
        raise Http404(str(exc)) from exc
    if train is None:
        raise Http404(f"{series.name} has no train {version}")
    return train


def instant_of(as_of: date, series: ReleaseSeries) -> datetime:
    """The end of day `as_of` in the series' time zone: the report's moment."""
    return calendar.end_of_day(as_of, series.time_zone)


def today_in(series: ReleaseSeries, now: datetime) -> date:
    return calendar.day_in(now, series.time_zone)


def _series_issues(series: ReleaseSeries, **filters):
    issues = issue_list(**filters)
    repositories = list(series.repositories.values_list("id", flat=True))
    if repositories:
        issues = issues.filter(repository_id__in=repositories)
    return issues


def _names(issue) -> list[str]:
    return [label.name for label in issue.labels.all()]


def issue_row(issue, target: TrainTarget | None = None) -> dict:
    names = _names(issue) + (list(target.flags) if target else [])
    return {
        "reference": issue.reference,
        "title": issue.title,
        "url": issue.html_url,
        "state": issue.state,
        "labels": sorted({n.lower() for n in names}),
        "architectures": architectures(names, issue.body),
        "component": component_of(issue.body, names),
        "target": target.train_version if target and target.train_version else "",
    }


def component_of(body: str, names: list[str]) -> str:
    marker = "### ROCm Component"
    if marker in (body or ""):
        rest = body.split(marker, 1)[1].strip().splitlines()
        if rest and not rest[0].startswith("#"):
            return rest[0].strip()[:100]
    for name in sorted(names):
        if name.lower().startswith("project: "):
            return name.split(":", 1)[1].strip()
    return ""


def train_scope(series: ReleaseSeries, train: calendar.Train, current: calendar.Train | None):
    """Open issues of the series that ride on `train`: targeted at it (release-side target or a
    milestone naming its version), or untargeted while it is the current train. With targets."""
    targets = {t.issue_id: t for t in TrainTarget.objects.filter(series=series)}
    issues = _series_issues(series, state="open", is_pull_request=False).order_by(
        "repository__full_name", "number"
    )
    scoped = []
    is_current = current is not None and current.slot == train.slot
    for issue in issues:
        target = targets.get(issue.id)
        version = target.train_version if target and target.train_version else ""
        if not version and issue.milestone:
            try:
                version = calendar.format_version(calendar.parse_version(issue.milestone))
            except calendar.CalendarError:
                version = ""
        if version == train.version or (not version and is_current):
            scoped.append((issue, target))
    return scoped


def train_fix_links(series: ReleaseSeries, version: str) -> list[FixLink]:
    return list(
        FixLink.objects.filter(series=series, train_version=version, removed=False)
        .select_related("issue__repository", "pull_request__repository")
        .prefetch_related("issue__labels")
        .order_by(
            "issue__repository__full_name",
            "issue__number",
            "pull_request__repository__full_name",
            "pull_request__number",
        )
    )


def chain_row(link: FixLink) -> dict:
    pr = link.pull_request
    return {
        "pull_request": pr.reference,
        "pull_request_url": pr.html_url,
        "pull_request_title": pr.title,
        "merged": bool(pr.merged),
        "merged_at": link.merged_at.isoformat() if link.merged_at else None,
        "merge_commit": link.merge_commit_sha,
        "base_ref": link.base_ref,
        "train": link.train_version,
        "via": link.via,
        "source": link.source,
    }


def issue_fix_chain(issue_id: int) -> list[dict]:
    """Issue → PR → merge commit → train, one row per (not removed) link, earliest train first."""
    links = (
        FixLink.objects.filter(issue_id=issue_id, removed=False)
        .select_related("pull_request__repository", "series")
        .order_by("merged_at", "id")
    )
    rows = [
        chain_row(link) | {"series": link.series.name if link.series_id else ""} for link in links
    ]
    return sorted(rows, key=lambda r: (_version_key(r["train"]), r["merged_at"] or ""))


def _version_key(version: str):
    try:
        return (0, calendar.parse_version(version))
    except calendar.CalendarError:
        return (1, (0, 0))


def fixed_in(issue_id: int) -> str:
    trains = [r["train"] for r in issue_fix_chain(issue_id) if r["train"]]
    return trains[0] if trains else ""


def backports_of_train(
    series: ReleaseSeries, version: str, *, pending_only=False
) -> list[Backport]:
    backports = Backport.objects.filter(series=series, train_version=version)
    if pending_only:
        backports = backports.filter(state__in=[Backport.State.NOMINATED, Backport.State.APPROVED])
    return list(
        backports.select_related("issue__repository", "decided_by", "nominated_by").order_by(
            "issue__repository__full_name", "issue__number"
        )
    )


def unlinked_release_merges(series: ReleaseSeries, version: str) -> list:
    """Merges into the train's release branch with no linked issue and no backport for them."""
    patterns = series.release_branch_patterns or None
    merged = _series_issues(series, is_pull_request=True).filter(
        merged=True, base_ref__startswith="release"
    )
    linked = set(FixLink.objects.filter(removed=False).values_list("pull_request_id", flat=True))
    backported = set(
        Backport.objects.exclude(merged_pull_request=None).values_list(
            "merged_pull_request_id", flat=True
        )
    )
    rows = []
    for pr in merged.order_by("repository__full_name", "number"):
        if (
            release_branch_version(pr.base_ref, patterns) == version
            and pr.id not in linked
            and pr.id not in backported
        ):
            rows.append(pr)
    return rows


def punts_of_train(series: ReleaseSeries, version: str) -> list[Punt]:
    return list(
        Punt.objects.filter(series=series, from_version=version)
        .select_related("issue__repository")
        .order_by("issue__repository__full_name", "issue__number")
    )


def kinds_of_row(row: dict) -> set[str]:
    return kinds_of(row["labels"], label_sets())
