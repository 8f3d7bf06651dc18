"""A series' past, replayed from timestamps: which issues were open and on which train at a
moment, which fixes had merged, which pull requests were open. Read once, asked many times
(the readiness report as of a day, the burndown's days, the forecast's snapshots).

What is derivable: an issue is open at `moment` when it was created by then and not closed by
then (created_at, closed_at; an issue closed with no closed_at counts from its last update); a
fix is merged at merged_at; a pull request is open from created_at to merged_at or closed_at;
comments count from their created_at; punts say where an issue was targeted before they moved
it. Its target at `moment` is the one a later punt moved it from, else its release-side target
if that was last set by then, else where the last punt before then moved it, else its
milestone. An untargeted open issue rides the train that is current (the next to ship) then.

What is not derivable (no history is stored): labels, flags, triage's predictions, assignees
and milestones are taken as they are now.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property

from releases import calendar, selectors
from releases.linking import closing_references
from releases.models import FixLink, Punt, ReleaseSeries, TrainTarget
from triage.selectors.issues import issue_activity_of, issue_list


@dataclass
class IssueTimes:
    id: int
    reference: str
    repository: str
    created_at: datetime
    closed_at: datetime | None  # None: open now
    milestone: str  # a train version ("7.9"), or ""


@dataclass
class PullSpan:
    created_at: datetime
    ended_at: datetime | None  # merged or closed; None: still open
    merged_at: datetime | None


@dataclass
class _Punt:
    created_at: datetime
    from_version: str
    to_version: str


@dataclass
class SeriesHistory:
    series: ReleaseSeries
    spec: calendar.SeriesSpec
    issues: dict[int, IssueTimes]
    targets: dict[int, TrainTarget]
    punts: dict[int, list[_Punt]] = field(default_factory=dict)
    fixes: dict[int, list[datetime]] = field(default_factory=dict)  # merge times, sorted

    # --- what was true at a moment ------------------------------------------------------------

    def is_open(self, issue_id: int, moment: datetime) -> bool:
        issue = self.issues[issue_id]
        return issue.created_at <= moment and (issue.closed_at is None or issue.closed_at > moment)

    def target_at(self, issue_id: int, moment: datetime) -> str:
        punts = self.punts.get(issue_id, [])
        later = [p for p in punts if p.created_at > moment]
        if later:
            return later[0].from_version
        target = self.targets.get(issue_id)
        if target is not None and target.train_version and target.updated_at <= moment:
            return target.train_version
        if punts:
            return punts[-1].to_version
        return self.issues[issue_id].milestone

    def scope(self, train: calendar.Train, moment: datetime) -> list[int]:
        """Ids of the issues open at `moment` and on `train` then (targeted, or riding it as the
        current train), in reference order."""
        current = calendar.train_current(self.spec, moment)
        is_current = current is not None and current.slot == train.slot
        found = []
        for issue_id in self.issues:
            if not self.is_open(issue_id, moment):
                continue
            version = self.target_at(issue_id, moment)
            if version == train.version or (not version and is_current):
                found.append(issue_id)
        return found

    def fixed_by(self, issue_id: int, moment: datetime) -> bool:
        times = self.fixes.get(issue_id, [])
        return bool(times) and times[0] <= moment

    def fixed_between(self, issue_id: int, start: datetime, end: datetime) -> bool:
        """A fix merged after `start` and by `end`."""
        times = self.fixes.get(issue_id, [])
        index = bisect.bisect_right(times, start)
        return index < len(times) and times[index] <= end

    def punts_before(self, issue_id: int, moment: datetime) -> int:
        return sum(1 for p in self.punts.get(issue_id, []) if p.created_at <= moment)

    def comments_by(self, issue_id: int, moment: datetime) -> int:
        return bisect.bisect_right(self.activity[issue_id]["comment_times"], moment)

    def open_pulls_at(self, issue_id: int, moment: datetime) -> int:
        """Pull requests that say they fix the issue (or a maintainer linked) open at `moment`."""
        return sum(
            1
            for span in self.pulls.get(issue_id, [])
            if span.created_at <= moment and (span.ended_at is None or span.ended_at > moment)
        )

    # --- read lazily: only the forecast and the burndown need these ---------------------------

    def facts(self, issue_ids: list[int]) -> dict[int, dict]:
        """{issue id: releases.selectors.issue_facts + "assignees"} (labels, flags, predictions
        and assignees as they are now), read once per issue."""
        cache = self.__dict__.setdefault("_facts", {})
        missing = [i for i in issue_ids if i not in cache]
        if missing:
            issues = selectors.issues_by_id(missing)
            predictions = selectors.predictions_for(missing)
            for issue_id, issue in issues.items():
                target = self.targets.get(issue_id)
                names = [label.name for label in issue.labels.all()]
                names += list(target.flags) if target else []
                facts = selectors.issue_facts(names, predictions.get(issue_id, {}))
                facts["assignees"] = self.activity[issue_id]["assignees"]
                cache[issue_id] = facts
        return {i: cache[i] for i in issue_ids if i in cache}

    @cached_property
    def activity(self) -> dict[int, dict]:
        return issue_activity_of(issue_ids=list(self.issues))

    @cached_property
    def pulls(self) -> dict[int, list[PullSpan]]:
        """{issue id: spans of the pull requests whose text closes it, merged or not, in any
        repository, plus those linked by hand} (removed links excluded)."""
        by_reference = {
            (issue.repository.lower(), int(issue.reference.rsplit("#", 1)[1])): issue.id
            for issue in self.issues.values()
        }
        removed = set(
            FixLink.objects.filter(removed=True, issue_id__in=list(self.issues)).values_list(
                "pull_request_id", "issue_id"
            )
        )
        manual = {}
        for pr_id, issue_id in FixLink.objects.filter(
            removed=False, source=FixLink.Source.MANUAL, issue_id__in=list(self.issues)
        ).values_list("pull_request_id", "issue_id"):
            manual.setdefault(pr_id, set()).add(issue_id)
        found: dict[int, list[PullSpan]] = {}
        pulls = issue_list(is_pull_request=True).prefetch_related(None).order_by("id")
        for pr in pulls.values(
            "id",
            "title",
            "body",
            "commit_messages",
            "created_at",
            "closed_at",
            "merged_at",
            "repository__full_name",
        ).iterator():
            own = pr["repository__full_name"].lower()
            messages = [m for m in pr["commit_messages"] or [] if isinstance(m, str)]
            fixed = {
                by_reference.get((ref.repository or own, ref.number))
                for ref in closing_references(pr["title"], pr["body"], *messages)
            } | manual.get(pr["id"], set())
            for issue_id in fixed - {None}:
                if (pr["id"], issue_id) in removed:
                    continue
                ended = pr["merged_at"] or pr["closed_at"]
                found.setdefault(issue_id, []).append(
                    PullSpan(pr["created_at"], ended, pr["merged_at"])
                )
        return found


def history_load(series: ReleaseSeries) -> SeriesHistory:
    """Everything the replay needs of one series, in a handful of queries."""
    issues = issue_list(is_pull_request=False).prefetch_related(None)
    repositories = list(series.repositories.values_list("id", flat=True))
    if repositories:
        issues = issues.filter(repository_id__in=repositories)
    times = {}
    for row in (
        issues.order_by("repository__full_name", "number")
        .values(
            "id",
            "number",
            "repository__full_name",
            "created_at",
            "closed_at",
            "updated_at",
            "state",
            "milestone",
        )
        .iterator()
    ):
        closed_at = None
        if row["state"] != "open":
            closed_at = row["closed_at"] or row["updated_at"]
        times[row["id"]] = IssueTimes(
            id=row["id"],
            reference=f"{row['repository__full_name']}#{row['number']}",
            repository=row["repository__full_name"],
            created_at=row["created_at"],
            closed_at=closed_at,
            milestone=_milestone_version(row["milestone"]),
        )
    targets = {t.issue_id: t for t in TrainTarget.objects.filter(series=series)}
    punts: dict[int, list[_Punt]] = {}
    for punt in Punt.objects.filter(series=series).order_by("created_at", "id"):
        punts.setdefault(punt.issue_id, []).append(
            _Punt(punt.created_at, punt.from_version, punt.to_version)
        )
    fixes: dict[int, list[datetime]] = {}
    for issue_id, merged_at in (
        FixLink.objects.filter(removed=False, merged_at__isnull=False, issue_id__in=list(times))
        .order_by("merged_at")
        .values_list("issue_id", "merged_at")
    ):
        fixes.setdefault(issue_id, []).append(merged_at)
    return SeriesHistory(
        series=series,
        spec=series.spec(),
        issues=times,
        targets=targets,
        punts=punts,
        fixes=fixes,
    )


def _milestone_version(milestone: str) -> str:
    if not milestone:
        return ""
    try:
        return calendar.format_version(calendar.parse_version(milestone))
    except calendar.CalendarError:
        return ""
