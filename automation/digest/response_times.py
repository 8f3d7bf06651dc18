"""Response times: how long reporters wait for a maintainer, per component and per GPU family.

Definitions (docs/TRIAGE.md, "Response times"):

- The issues measured: opened in the last RESPONSE_WINDOW_DAYS, not pull requests, not deleted,
  not opened by a maintainer (author association OWNER, MEMBER or COLLABORATOR).
- First response: the earliest comment on the issue by a maintainer; the bot's own comments
  (outbox's hidden marker, or written as GITHUB_BOT_LOGIN) never count.
- Working time: the time between two instants that falls on Monday to Friday, UTC, all 24 hours
  of those days; one working day is 24 such hours (holidays are not known). An issue opened on
  Friday at 18:00 and answered on Monday at 06:00 waited 0.5 working days.
- Goal: answered within RESPONSE_GOAL_WORKING_DAYS working days. An issue met it (answered in
  time) or missed it (answered later, or still unanswered past it while open); one that is not
  due yet, or was closed unanswered before it fell due, counts neither way. The share within the
  goal is met / (met + missed).
- Median and 90th percentile of the first response: over the answered issues of the window; the
  median of an even count is the mean of the middle two, the 90th percentile is the nearest rank.
- Waiting, waiting past the goal, oldest waiting: open issues without a first response, opened by
  someone else than a maintainer, whenever they were opened (not only in the window).
- Time in needs-info (calendar days): from the request to the reporter's answer, a maintainer's
  answer or the closing, or until now while it waits; for the window's issues that were asked.
- Open backlog: every open issue (not pull requests), whoever opened it, whenever.

A component is the issue's "component" prediction (unclassified without one); GPU families come
from the gfx targets of its "environment" prediction, named as the ownership rules name them
(automation.ownership.services.gpu_family: CDNA3, RDNA3 ...); an issue that names targets of two
families counts in both ("not named" without any).

Everything is read in four queries, whatever the number of issues.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db.models import Min, Q
from django.utils import timezone

from automation.needs_info.models import NeedsInfo
from automation.outbox.services import MAINTAINER_ASSOCIATIONS, MARKER_PREFIX
from automation.ownership import services as ownership
from triage.models import Comment, Issue, IssuePrediction

UNCLASSIFIED = "unclassified"
NO_TARGET = "not named"
OTHER_FAMILY = "other"
WORKING_DAY = timedelta(days=1)
_WEEK = timedelta(weeks=1)
_WORKING_WEEK = timedelta(days=5)
_A_MONDAY = datetime(2001, 1, 1, tzinfo=UTC)


def working_time(start: datetime, end: datetime) -> timedelta:
    """The part of [start, end) that falls on Monday to Friday (UTC); zero if end <= start."""
    if end <= start:
        return timedelta(0)
    return _working_since_epoch(end) - _working_since_epoch(start)


def _working_since_epoch(moment: datetime) -> timedelta:
    weeks, rest = divmod(moment.astimezone(UTC) - _A_MONDAY, _WEEK)
    return weeks * _WORKING_WEEK + min(rest, _WORKING_WEEK)


def working_days(span: timedelta) -> float:
    return span / WORKING_DAY


def gpu_family(name: str) -> str:
    """A gfx target's family in the ownership rules' words (CDNA3 for gfx942, RDNA3 for gfx1100),
    "other" for a generic target, one without a family name, or a token that is no target."""
    return ownership.gpu_family(name) or OTHER_FAMILY


@dataclass
class IssueTimes:
    """One issue's clock, as read for the figures."""

    id: int
    reference: str  # OWNER/NAME#N
    owner: str
    name: str
    number: int
    title: str
    html_url: str
    repository: str  # OWNER/NAME
    created_at: datetime
    open: bool
    by_maintainer: bool
    in_window: bool
    component: str = UNCLASSIFIED
    families: list[str] = field(default_factory=list)
    first_response: timedelta | None = None  # working time to it
    waited: timedelta = timedelta(0)  # working time unanswered: until now, or until closed
    needs_info: timedelta | None = None  # calendar time in needs-info

    @property
    def answered(self) -> bool:
        return self.first_response is not None

    @property
    def waiting(self) -> bool:
        """Open, not opened by a maintainer, no maintainer has answered yet."""
        return self.open and not self.by_maintainer and not self.answered

    def goal_outcome(self, goal: timedelta) -> str:
        """ "met", "missed" or "" (not due yet, or closed unanswered before it fell due)."""
        if self.answered:
            return "met" if self.first_response <= goal else "missed"
        return "missed" if self.waited > goal else ""

    @property
    def waited_days(self) -> float:
        return working_days(self.waited)


@dataclass
class Figures:
    """The figures of one group (a component, a GPU family, or everything)."""

    name: str
    issues: int = 0  # opened in the window, not by maintainers
    answered: int = 0
    median_days: float | None = None  # first response, working days
    p90_days: float | None = None
    met: int = 0
    missed: int = 0
    waiting: int = 0  # open, unanswered (any age)
    past_goal: int = 0  # of those, waiting longer than the goal
    oldest_waiting: IssueTimes | None = None
    needs_info_asked: int = 0
    needs_info_median_days: float | None = None  # calendar days
    backlog: int = 0  # open issues, any author

    @property
    def share_within_goal(self) -> float | None:
        due = self.met + self.missed
        return self.met / due if due else None

    @property
    def percent_within_goal(self) -> int | None:
        share = self.share_within_goal
        return None if share is None else round(share * 100)


@dataclass
class ResponseTimes:
    now: datetime
    window_days: int
    goal_days: int
    overall: Figures
    components: list[Figures]
    families: list[Figures]
    records: list[IssueTimes]

    @property
    def goal(self) -> timedelta:
        return self.goal_days * WORKING_DAY


def response_times(
    *, now: datetime | None = None, window_days: int | None = None, goal_days: int | None = None
) -> ResponseTimes:
    now = now or timezone.now()
    window_days = settings.RESPONSE_WINDOW_DAYS if window_days is None else window_days
    goal_days = settings.RESPONSE_GOAL_WORKING_DAYS if goal_days is None else goal_days
    records = issue_times(now=now, since=now - timedelta(days=window_days))
    goal = goal_days * WORKING_DAY
    return ResponseTimes(
        now=now,
        window_days=window_days,
        goal_days=goal_days,
        overall=figures_of("all", records, goal=goal),
        components=figures_by(records, lambda r: [r.component], goal=goal),
        families=figures_by(records, lambda r: r.families, goal=goal),
        records=records,
    )


def issue_times(*, now: datetime, since: datetime) -> list[IssueTimes]:
    """The issues opened since `since` and every open one, each with its clock (four queries)."""
    issues = Issue.objects.filter(deleted_at__isnull=True, is_pull_request=False).filter(
        Q(created_at__gte=since) | Q(state=Issue.State.OPEN)
    )
    rows = issues.values(
        "id",
        "number",
        "title",
        "html_url",
        "created_at",
        "closed_at",
        "state",
        "author_association",
        "repository__owner",
        "repository__name",
        "repository__full_name",
    ).order_by("created_at", "id")
    ids = issues.values("id")
    first = _first_responses(ids)
    predictions = defaultdict(dict)
    for issue_id, model_name, label in IssuePrediction.objects.filter(
        issue_id__in=ids, model_name__in=["component", "environment"]
    ).values_list("issue_id", "model_name", "label"):
        predictions[issue_id][model_name] = label
    asked = _needs_info_spans(ids, now=now)

    records = []
    for row in rows:
        created, is_open = row["created_at"], row["state"] == Issue.State.OPEN
        responded = first.get(row["id"])
        labels = predictions.get(row["id"], {})
        targets = (labels.get("environment") or "").split()
        full_name = row["repository__full_name"]
        records.append(
            IssueTimes(
                id=row["id"],
                reference=f"{full_name}#{row['number']}",
                owner=row["repository__owner"],
                name=row["repository__name"],
                number=row["number"],
                title=row["title"],
                html_url=row["html_url"],
                repository=full_name,
                created_at=created,
                open=is_open,
                by_maintainer=row["author_association"] in MAINTAINER_ASSOCIATIONS,
                in_window=created >= since,
                component=labels.get("component") or UNCLASSIFIED,
                families=sorted({gpu_family(t) for t in targets}) or [NO_TARGET],
                first_response=working_time(created, responded) if responded else None,
                waited=working_time(created, now if is_open else row["closed_at"] or now),
                needs_info=asked.get(row["id"]),
            )
        )
    return records


def _first_responses(issue_ids) -> dict[int, datetime]:
    comments = Comment.objects.filter(
        issue_id__in=issue_ids,
        deleted_at__isnull=True,
        author_association__in=MAINTAINER_ASSOCIATIONS,
    ).exclude(body__contains=MARKER_PREFIX)
    if settings.GITHUB_BOT_LOGIN:
        comments = comments.exclude(author__login__iexact=settings.GITHUB_BOT_LOGIN)
    return dict(
        comments.values("issue_id")
        .annotate(first=Min("created_at"))
        .values_list("issue_id", "first")
    )


def _needs_info_spans(issue_ids, *, now: datetime) -> dict[int, timedelta]:
    spans = {}
    for state in NeedsInfo.objects.filter(issue_id__in=issue_ids).only(
        "issue_id", "state", "asked_at", "resolved_at", "closed_at", "updated_at"
    ):
        end = state.resolved_at or state.closed_at or (now if state.waiting else state.updated_at)
        spans[state.issue_id] = max(end - state.asked_at, timedelta(0))
    return spans


def figures_by(
    records: list[IssueTimes], keys: Callable[[IssueTimes], Iterable[str]], *, goal: timedelta
) -> list[Figures]:
    """Figures per key (an issue may have several), most waiting past the goal first."""
    groups: dict[str, list[IssueTimes]] = defaultdict(list)
    for record in records:
        for key in keys(record):
            groups[key].append(record)
    figures = [figures_of(name, members, goal=goal) for name, members in groups.items()]
    return sorted(figures, key=lambda f: (-f.past_goal, -f.waiting, -f.backlog, f.name))


def figures_of(name: str, records: list[IssueTimes], *, goal: timedelta) -> Figures:
    measured = [r for r in records if r.in_window and not r.by_maintainer]
    responses = sorted(working_days(r.first_response) for r in measured if r.answered)
    outcomes = [r.goal_outcome(goal) for r in measured]
    waiting = [r for r in records if r.waiting]
    asked = [r.needs_info / timedelta(days=1) for r in measured if r.needs_info is not None]
    return Figures(
        name=name,
        issues=len(measured),
        answered=len(responses),
        median_days=statistics.median(responses) if responses else None,
        p90_days=nearest_rank(responses, 90),
        met=outcomes.count("met"),
        missed=outcomes.count("missed"),
        waiting=len(waiting),
        past_goal=sum(1 for r in waiting if r.waited > goal),
        oldest_waiting=min(waiting, key=lambda r: (r.created_at, r.id), default=None),
        needs_info_asked=len(asked),
        needs_info_median_days=statistics.median(asked) if asked else None,
        backlog=sum(1 for r in records if r.open),
    )


def nearest_rank(sorted_values: list[float], percent: int) -> float | None:
    """The smallest value with at least `percent` % of the values at or below it."""
    if not sorted_values:
        return None
    return sorted_values[max(0, math.ceil(percent / 100 * len(sorted_values)) - 1)]


def waiting_past_goal(records: list[IssueTimes], *, goal: timedelta) -> list[IssueTimes]:
    """The issues waiting for a first response longer than the goal, the longest first."""
    late = [r for r in records if r.waiting and r.waited > goal]
    return sorted(late, key=lambda r: (-r.waited, r.id))
