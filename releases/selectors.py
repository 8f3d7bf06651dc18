"""Reads for the release pages, the report and the API. Nothing here writes.

Issues and pull requests are read through triage.selectors.issues.issue_list (visible rows only)."""

from __future__ import annotations

from datetime import date, datetime

from django.conf import settings
from django.db.models import Q, QuerySet
from django.http import Http404
from django.utils import timezone

from classifiers import registry
from config import linear_re
from releases import calendar
from releases.labels import architectures, component_from_labels, kinds_of, label_sets
from releases.linking import DEFAULT_RELEASE_BRANCH_PATTERNS, release_branch_version
from releases.models import (
    Backport,
    FixLink,
    Punt,
    ReleaseCandidate,
    ReleaseNotesDraft,
    ReleaseSeries,
    TrainSnapshot,
    TrainTarget,
)
from triage.models import Issue, IssuePrediction
from triage.selectors.issues import issue_list, predictions_of_issues
from triage.text.safe_links import safe_link_url


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
        return series.train(version)
    except calendar.CalendarError as exc:
        raise Http404(str(exc)) from exc


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


TRIAGE_MODELS = registry.names(triaged=True)  # while one needs triage, the issue is untriaged
FACT_MODELS = (*TRIAGE_MODELS, "environment")  # "environment": the extraction rules' facts


def predictions_for(issue_ids: list[int]) -> dict[int, dict]:
    """triage's stored predictions of these issues (kind, severity, component, environment)."""
    return predictions_of_issues(issue_ids=list(issue_ids), model_names=FACT_MODELS)


def issue_facts(names: list[str], predictions: dict, sets=None) -> dict:
    """What releases needs to know of an issue: its kinds (blocker, regression, critical, high,
    untriaged ...), architectures and component, from triage's stored predictions where it has
    them and from the labels and release-side flags (`names`) otherwise (or as well)."""
    sets = sets if sets is not None else label_sets()
    # untriaged is triage's one definition (triage.selectors.issues.untriaged), never a label
    kinds = kinds_of(names, sets) - {"untriaged"}
    severity = predictions.get("severity")
    if severity and severity.label in ("critical", "high") and not severity.needs_triage:
        kinds.add(severity.label)
    abstained = any(p.needs_triage for m, p in predictions.items() if m in TRIAGE_MODELS)
    if abstained or (not names and "kind" not in predictions):
        kinds.add("untriaged")
    environment = predictions.get("environment")
    archs = set(architectures(names))
    if environment and environment.label:
        archs |= {a.lower() for a in environment.label.split()}
    component = predictions.get("component")
    return {
        "kinds": sorted(kinds),
        "architectures": sorted(archs),
        "component": (
            component.label
            if component and component.label and not component.needs_triage
            else component_from_labels(names)
        ),
        "severity": severity.label if severity and not severity.needs_triage else "",
        "kind": predictions["kind"].label if "kind" in predictions else "",
    }


def github_url(issue) -> str:
    """The issue's or PR's html_url as every report shows it: http(s) or "" (data from webhook
    deliveries and syncs: a "javascript:" URL never reaches a page or an exported document)."""
    return safe_link_url(issue.html_url)


def issue_row(issue, target: TrainTarget | None = None, predictions: dict | None = None) -> dict:
    names = _names(issue) + (list(target.flags) if target else [])
    facts = issue_facts(names, predictions or {})
    return {
        "reference": issue.reference,
        "title": issue.title,
        "url": github_url(issue),
        "state": issue.state,
        "labels": sorted({n.lower() for n in names}),
        "kinds": facts["kinds"],
        "architectures": facts["architectures"],
        "component": facts["component"],
        "target": target.train_version if target and target.train_version else "",
    }


def issues_by_id(ids: list[int]) -> dict[int, object]:
    """Visible issues by id, labels prefetched."""
    return {i.id: i for i in issue_list().filter(id__in=list(ids))}


def _known_at(rows: QuerySet, field: str, moment: datetime | None) -> QuerySet:
    """The rows whose `field` (when it happened) is at or before `moment`; all when None."""
    return rows if moment is None else rows.filter(**{f"{field}__lte": moment})


def train_fix_links(
    series: ReleaseSeries, version: str, *, moment: datetime | None = None
) -> list[FixLink]:
    """The train's fixes (merged by `moment` when given), issue by issue."""
    links = FixLink.objects.filter(series=series, train_version=version, removed=False)
    links = _known_at(links, "merged_at", moment)
    return list(
        links.select_related("issue__repository", "pull_request__repository")
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
        "pull_request_url": github_url(pr),
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
    series: ReleaseSeries, version: str, *, pending_only=False, moment: datetime | None = None
) -> list[Backport]:
    """The train's backports (nominated by `moment`, each in its state then, as `state_then`)."""
    backports = Backport.objects.filter(series=series, train_version=version)
    backports = _known_at(backports, "created_at", moment)
    found = []
    for backport in backports.select_related(
        "issue__repository", "decided_by", "nominated_by", "merged_pull_request"
    ).order_by("issue__repository__full_name", "issue__number"):
        backport.state_then = backport_state_at(backport, moment)
        if not pending_only or backport.state_then in (
            Backport.State.NOMINATED,
            Backport.State.APPROVED,
        ):
            found.append(backport)
    return found


REFERENCE_RE = linear_re.compile(
    r"^\s*(?:https?://github\.com/)?(?P<repo>[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)"
    r"(?:#|/issues/|/pull/)(?P<number>\d{1,9})/?\s*$"
)


class UnknownReference(LookupError):
    pass


def issue_by_reference(reference: str, *, pull_request: bool | None = None):
    """OWNER/NAME#N (or its GitHub URL) -> the visible issue or pull request; UnknownReference."""
    match = REFERENCE_RE.match(reference or "")
    if not match:
        raise UnknownReference(f"{reference!r} is not OWNER/NAME#NUMBER")
    found = (
        issue_list(repo=match.group("repo"), is_pull_request=pull_request)
        .filter(number=int(match.group("number")))
        .first()
    )
    if found is None:
        kind = {True: "pull request", False: "issue", None: "issue or pull request"}[pull_request]
        raise UnknownReference(f"no {kind} {match.group('repo')}#{match.group('number')}")
    return found


def _release_branch_prefilter(patterns) -> Q:
    """base_ref starts like one of the release branch patterns (the text before X)."""
    prefixes = {p.split("X", 1)[0] for p in patterns or DEFAULT_RELEASE_BRANCH_PATTERNS}
    if "" in prefixes:  # a pattern starting with X: every branch may match
        return Q()
    query = Q()
    for prefix in sorted(prefixes):
        query |= Q(base_ref__startswith=prefix)
    return query


def release_merges(series: ReleaseSeries, version: str, *, moment: datetime | None = None):
    """Merged pull requests into the train's release branch (by `moment`), in reference order."""
    patterns = series.release_branch_patterns or None
    merged = _series_issues(series, is_pull_request=True).filter(
        _release_branch_prefilter(patterns), merged=True
    )
    merged = _known_at(merged, "merged_at", moment)
    return [
        pr
        for pr in merged.order_by("repository__full_name", "number")
        if release_branch_version(pr.base_ref, patterns) == version
    ]


def unlinked_release_merges(
    series: ReleaseSeries, version: str, *, moment: datetime | None = None
) -> list:
    """Merges into the train's release branch with no linked issue and no backport for them."""
    merges = release_merges(series, version, moment=moment)
    ids = [pr.id for pr in merges]
    linked = set(
        FixLink.objects.filter(removed=False, pull_request_id__in=ids).values_list(
            "pull_request_id", flat=True
        )
    )
    backported = set(
        Backport.objects.filter(merged_pull_request_id__in=ids).values_list(
            "merged_pull_request_id", flat=True
        )
    )
    return [pr for pr in merges if pr.id not in linked and pr.id not in backported]


def backport_state_at(backport: Backport, moment: datetime | None) -> str:
    """The state the backport was in at `moment` (now when None), from its timestamps."""
    if moment is None:
        return backport.state
    merged_pr = backport.merged_pull_request
    if (
        backport.state == Backport.State.MERGED
        and merged_pr is not None
        and merged_pr.merged_at
        and merged_pr.merged_at <= moment
    ):
        return Backport.State.MERGED
    if backport.decided_at and backport.decided_at <= moment:
        if backport.state == Backport.State.MERGED:
            return Backport.State.APPROVED
        return backport.state
    return Backport.State.NOMINATED


def unapproved_release_fixes(
    series: ReleaseSeries, version: str, *, moment: datetime | None = None
) -> list[tuple[FixLink, str]]:
    """Release-branch fixes of the train whose issue's backport to it is nominated but not
    approved (still nominated, or rejected) at `moment` (now when None): (link, its state)."""
    links = FixLink.objects.filter(
        series=series, train_version=version, removed=False, via=FixLink.Via.RELEASE_BRANCH
    ).select_related("issue__repository", "pull_request__repository")
    links = _known_at(links, "merged_at", moment)
    backports = {
        b.issue_id: b
        for b in Backport.objects.filter(series=series, train_version=version).select_related(
            "merged_pull_request"
        )
    }
    flagged = []
    for link in links.order_by("pull_request__repository__full_name", "pull_request__number"):
        backport = backports.get(link.issue_id)
        if backport is None:
            continue
        state = backport_state_at(backport, moment)
        if state in (Backport.State.NOMINATED, Backport.State.REJECTED):
            flagged.append((link, state))
    return flagged


def punts_of_train(
    series: ReleaseSeries, version: str, *, moment: datetime | None = None
) -> list[Punt]:
    punts = Punt.objects.filter(series=series, from_version=version)
    punts = _known_at(punts, "created_at", moment)
    return list(
        punts.select_related("issue__repository").order_by(
            "issue__repository__full_name", "issue__number"
        )
    )


def candidates_of_train(
    series: ReleaseSeries, version: str, *, moment: datetime | None = None
) -> list[ReleaseCandidate]:
    candidates = ReleaseCandidate.objects.filter(series=series, train_version=version)
    candidates = _known_at(candidates, "tagged_at", moment)
    return list(candidates.order_by("tagged_at", "tag"))


def notes_draft_of(series: ReleaseSeries, version: str) -> ReleaseNotesDraft | None:
    return (
        ReleaseNotesDraft.objects.filter(series=series, train_version=version)
        .select_related("updated_by")
        .first()
    )


def snapshots_of_train(series: ReleaseSeries, version: str) -> dict[date, TrainSnapshot]:
    return {
        s.day: s
        for s in TrainSnapshot.objects.filter(series=series, train_version=version).order_by("day")
    }


def series_for_repository(repository_id: int) -> ReleaseSeries | None:
    """The series this repository ships in: one naming it, else one naming no repository."""
    named = ReleaseSeries.objects.filter(repositories__id=repository_id).order_by("name").first()
    if named:
        return named
    return ReleaseSeries.objects.filter(repositories__isnull=True).order_by("name").first()


# --- priority's release-train part (config/wiring.py's PRIORITY_PARTS) -----------------------

DEFAULT_TRAIN_POINTS = 5


def priority_train_closeness(*, issue_ids: list[int]) -> dict[int, tuple[float, str]]:
    """{issue id: (points, why)}: the closer the branch cut of the issue's train (its target,
    its milestone's train, else the next train to be cut), the more points, up to
    PRIORITY_WEIGHTS["release_train_max"] (5) on the day of the cut; a train already cut and
    not released gives the maximum. Issues of no release series are left out."""
    weights = getattr(settings, "PRIORITY_WEIGHTS", {}) or {}
    most = float(weights.get("release_train_max", DEFAULT_TRAIN_POINTS))
    now = timezone.now()
    rows = (
        issue_list(is_pull_request=False)
        .prefetch_related(None)
        .filter(id__in=list(issue_ids))
        .values_list("id", "repository_id", "milestone")
    )
    targets = {
        (t.issue_id, t.series_id): t.train_version
        for t in TrainTarget.objects.filter(issue_id__in=list(issue_ids)).exclude(train_version="")
    }
    series_cache: dict[int, ReleaseSeries | None] = {}
    specs: dict[int, calendar.SeriesSpec] = {}
    trains: dict[tuple[int, str], calendar.Train | None] = {}
    found: dict[int, tuple[float, str]] = {}

    def train_of(series: ReleaseSeries, version: str) -> calendar.Train | None:
        """The train of `version` ("": the next to be cut), computed once per series."""
        if series.id not in specs:
            specs[series.id] = series.spec()
        key = (series.id, version)
        if key not in trains:
            spec = specs[series.id]
            trains[key] = (
                calendar.train_get(spec, version)
                if version
                else next((t for t in calendar.iter_trains(spec) if t.branch_cut_at > now), None)
            )
        return trains[key]

    for issue_id, repository_id, milestone in rows:
        if repository_id not in series_cache:
            series_cache[repository_id] = series_for_repository(repository_id)
        series = series_cache[repository_id]
        if series is None:
            continue
        version = targets.get((issue_id, series.id), "")
        if not version and milestone:
            try:
                version = calendar.format_version(calendar.parse_version(milestone))
            except calendar.CalendarError:
                version = ""
        train = (train_of(series, version) if version else None) or train_of(series, "")
        if train is None or train.release_at <= now:
            continue
        if train.branch_cut_at <= now:
            found[issue_id] = (most, f"train {train.version} is cut, ships {train.release}")
            continue
        days = (train.branch_cut_at - now).days
        points = float(round(most * max(0.0, 1 - days / series.cadence_days)))
        when = "today" if days == 0 else f"in {days} day{'s' if days != 1 else ''}"
        found[issue_id] = (points, f"train {train.version} cuts {when}")
    return found


# --- what the readiness report adds for fixes around a release (issue 19) ----------------------

REPORTED_AGAIN_MIN_CONFIDENCE = 0.8


def train_fixed_issues(series: ReleaseSeries, version: str) -> dict[int, list[str]]:
    """{issue id: [pull request references]} of the merged fixes that land on this train."""
    found: dict[int, list[str]] = {}
    links = FixLink.objects.filter(
        series=series, train_version=version, removed=False, merged_at__isnull=False
    ).select_related("pull_request__repository")
    for link in links:
        found.setdefault(link.issue_id, []).append(link.pull_request.reference)
    return found


def missed_backports(series: ReleaseSeries, train, moment: datetime) -> list[FixLink]:
    """While `train` is cut and not released: fixes merged on the default branch by `moment`
    (so they land on a later train) for issues that were on this train (targeted at it, or
    punted from it at the cut), with no backport nomination for it. One link per issue."""
    if train.phase(moment) != "stabilizing":
        return []
    on_train = set(
        TrainTarget.objects.filter(series=series, train_version=train.version).values_list(
            "issue_id", flat=True
        )
    ) | set(
        Punt.objects.filter(series=series, from_version=train.version).values_list(
            "issue_id", flat=True
        )
    )
    nominated = set(
        Backport.objects.filter(series=series, train_version=train.version).values_list(
            "issue_id", flat=True
        )
    )
    links = (
        FixLink.objects.filter(
            series=series,
            issue_id__in=on_train - nominated,
            removed=False,
            via=FixLink.Via.DEFAULT_BRANCH,
            merged_at__lte=moment,
        )
        .exclude(train_version=train.version)
        .select_related("issue__repository", "pull_request__repository")
        .order_by("issue_id", "merged_at")
    )
    first: dict[int, FixLink] = {}
    for link in links:
        first.setdefault(link.issue_id, link)
    return list(first.values())


def missed_backport_rows(series: ReleaseSeries, train, moment: datetime) -> list[dict]:
    """missed_backports as the readiness report and the train page show them."""
    return [
        {
            "issue": link.issue.reference,
            "title": link.issue.title,
            "url": github_url(link.issue),
            "pull_request": link.pull_request.reference,
            "fixed_in": link.train_version,
        }
        for link in missed_backports(series, train, moment)
    ]


def _previous_train(series: ReleaseSeries, train):
    before = None
    for candidate in calendar.iter_trains(series.spec()):
        if candidate.release >= train.release:
            return before
        before = candidate
    return before


def reported_again(series: ReleaseSeries, train, moment: datetime) -> list[dict]:
    """Issues opened after the previous train shipped (by `moment`) that name an issue fixed in
    it as their duplicate (a triager's decision, or a prediction at least
    REPORTED_AGAIN_MIN_CONFIDENCE sure), reported against that release or a later one."""
    previous = _previous_train(series, train)
    if previous is None or previous.release_at > moment:
        return []
    fixed = train_fixed_issues(series, previous.version)
    if not fixed:
        return []
    references = {
        issue.reference.lower(): issue
        for issue in Issue.objects.filter(pk__in=fixed).select_related("repository")
    }
    rows = IssuePrediction.objects.filter(
        model_name="duplicates",
        issue__created_at__gt=previous.release_at,
        issue__created_at__lte=moment,
        issue__is_pull_request=False,
        issue__deleted_at__isnull=True,
    ).select_related("issue__repository")
    found = []
    for row in rows:
        original = references.get((row.label or "").lower())
        sure = row.confidence >= REPORTED_AGAIN_MIN_CONFIDENCE and not row.needs_triage
        if original is None or not sure:
            continue
        environment = (
            IssuePrediction.objects.filter(issue_id=row.issue_id, model_name="environment")
            .values_list("evidence", flat=True)
            .first()
            or {}
        )
        version = environment.get("rocm_version") or ""
        try:
            reported = calendar.parse_version(".".join(version.split(".")[:2]))
        except calendar.CalendarError:
            continue
        if reported < previous.key:
            continue
        found.append(
            {
                "issue": row.issue.reference,
                "title": row.issue.title,
                "url": github_url(row.issue),
                "fixed_issue": original.reference,
                "fixed_in": previous.label,
                "reported_version": version,
            }
        )
    return sorted(found, key=lambda r: r["issue"])
