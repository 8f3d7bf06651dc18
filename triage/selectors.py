"""Reads for the dashboard and the REST API. Nothing here writes."""

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db.models import Count, Exists, F, OuterRef, Prefetch, Q, QuerySet
from django.shortcuts import get_object_or_404
from django.utils import timezone

from triage.models import (
    Comment,
    Issue,
    IssuePrediction,
    IssuePriority,
    Label,
    PredictionCorrection,
    Repository,
    SyncState,
    WebhookDelivery,
)

ISSUE_STATES = ("open", "closed", "all")
ISSUE_KINDS = ("issue", "pr", "all")
FULL_NAME_RE = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
NUMBER_RE = re.compile(r"^#?(\d{1,9})$")


@dataclass
class RepositoryOverview:
    repository: Repository
    sync_states: list[SyncState]
    open_issues: int = 0
    open_prs: int = 0
    total: int = 0
    comments: int = 0

    @property
    def last_success_at(self) -> datetime | None:
        times = [s.last_success_at for s in self.sync_states if s.last_success_at]
        return max(times) if times else None

    @property
    def errors(self) -> list[SyncState]:
        return [s for s in self.sync_states if s.last_error]


@dataclass
class DeliverySummary:
    since: datetime
    by_status: dict[str, int] = field(default_factory=dict)
    recent: list[WebhookDelivery] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(self.by_status.values())


def repository_overviews() -> list[RepositoryOverview]:
    """Tracked repositories with their sync states and issue counts, in four queries."""
    repositories = Repository.objects.filter(tracked=True).prefetch_related(
        Prefetch("sync_states", queryset=SyncState.objects.order_by("resource"))
    )
    overviews = {
        r.id: RepositoryOverview(repository=r, sync_states=list(r.sync_states.all()))
        for r in repositories
    }
    open_ = Q(state=Issue.State.OPEN)
    issue_counts = (
        Issue.objects.filter(repository_id__in=overviews, deleted_at__isnull=True)
        .values("repository_id")
        .annotate(
            open_issues=Count("id", filter=open_ & Q(is_pull_request=False)),
            open_prs=Count("id", filter=open_ & Q(is_pull_request=True)),
            total=Count("id"),
        )
        .order_by()
    )
    for row in issue_counts:
        overview = overviews[row["repository_id"]]
        overview.open_issues = row["open_issues"]
        overview.open_prs = row["open_prs"]
        overview.total = row["total"]
    comment_counts = (
        Comment.objects.filter(
            issue__repository_id__in=overviews,
            deleted_at__isnull=True,
            issue__deleted_at__isnull=True,
        )
        .values("issue__repository_id")
        .annotate(n=Count("id"))
        .order_by()
    )
    for row in comment_counts:
        overviews[row["issue__repository_id"]].comments = row["n"]
    return list(overviews.values())


def webhook_delivery_summary(*, hours: int = 24, recent: int = 10) -> DeliverySummary:
    since = timezone.now() - timedelta(hours=hours)
    rows = (
        WebhookDelivery.objects.filter(received_at__gte=since)
        .values("status")
        .annotate(n=Count("id"))
        .order_by()
    )
    latest = WebhookDelivery.objects.defer("raw_body").order_by("-received_at", "-id")[:recent]
    return DeliverySummary(
        since=since, by_status={r["status"]: r["n"] for r in rows}, recent=list(latest)
    )


def issue_list(
    *,
    repo: str = "",
    state: str = "all",
    is_pull_request: bool | None = None,
    label: str = "",
    q: str = "",
) -> QuerySet[Issue]:
    """Visible (not deleted) issues and PRs, newest update first; related rows prefetched.

    `repo` is OWNER/NAME (case-insensitive), `state` one of ISSUE_STATES, `label` a label name
    (case-insensitive), `q` a substring of title or body, or a number ("123", "#123").
    """
    issues = Issue.objects.filter(deleted_at__isnull=True)
    if repo:
        issues = issues.filter(repository__full_name__iexact=repo)
    if state in ("open", "closed"):
        issues = issues.filter(state=state)
    if is_pull_request is not None:
        issues = issues.filter(is_pull_request=is_pull_request)
    if label:
        labelled = Issue.labels.through.objects.filter(
            issue_id=OuterRef("pk"), label__name_key=label.lower()
        )
        issues = issues.filter(Exists(labelled))
    q = q.strip()
    if q:
        text = Q(title__icontains=q) | Q(body__icontains=q)
        number = NUMBER_RE.match(q)
        issues = issues.filter(text | Q(number=int(number.group(1))) if number else text)
    return (
        issues.select_related("repository", "author")
        .prefetch_related(Prefetch("labels", queryset=Label.objects.order_by("name_key")))
        .order_by("-updated_at", "id")
    )


def issue_detail(*, owner: str, name: str, number: int) -> Issue:
    """One issue or PR with its labels, assignees and visible comments; Http404 if unknown."""
    issues = Issue.objects.select_related("repository", "author", "merged_by").prefetch_related(
        Prefetch("labels", queryset=Label.objects.order_by("name_key")),
        "assignees",
        Prefetch(
            "comments",
            queryset=Comment.objects.filter(deleted_at__isnull=True).select_related("author"),
            to_attr="visible_comments",
        ),
    )
    return get_object_or_404(issues, repository__full_name__iexact=f"{owner}/{name}", number=number)


def repository_full_names() -> list[str]:
    return list(Repository.objects.order_by("full_name").values_list("full_name", flat=True))


# --- triage queue and predictions (issue 3) --------------------------------------------------

QUEUE_KINDS = ("bug", "feature", "question", "docs", "performance")


def triage_queue(
    *,
    repo: str = "",
    component: str = "",
    architecture: str = "",
    kind: str = "",
    needs_triage: bool = False,
) -> QuerySet[Issue]:
    """Open issues, highest priority first (unprioritized last), with their predictions."""
    issues = Issue.objects.filter(
        deleted_at__isnull=True, is_pull_request=False, state=Issue.State.OPEN
    )
    if repo:
        issues = issues.filter(repository__full_name__iexact=repo)

    def predicted(model_name: str, **label):
        return Exists(
            IssuePrediction.objects.filter(issue_id=OuterRef("pk"), model_name=model_name, **label)
        )

    if component:
        issues = issues.filter(predicted("component", label__iexact=component))
    if kind:
        issues = issues.filter(predicted("kind", label=kind))
    if architecture:
        issues = issues.filter(
            predicted("environment", label__regex=rf"(^| ){re.escape(architecture)}( |$)")
        )
    if needs_triage:
        issues = issues.filter(
            Exists(IssuePrediction.objects.filter(issue_id=OuterRef("pk"), needs_triage=True))
        )
    return (
        issues.select_related("repository", "author", "priority")
        .prefetch_related("predictions")
        .order_by(F("priority__score").desc(nulls_last=True), "-updated_at", "id")
    )


def triage_filter_choices() -> dict[str, list[str]]:
    def labels(model_name):
        return list(
            IssuePrediction.objects.filter(model_name=model_name)
            .exclude(label="")
            .values_list("label", flat=True)
            .distinct()
            .order_by("label")
        )

    architectures = sorted({a for value in labels("environment") for a in value.split()})
    return {"components": labels("component"), "architectures": architectures}


def issue_predictions(*, issue: Issue) -> dict:
    """{model name: IssuePrediction}, the issue's priority (or None) and its latest decisions."""
    return {
        "predictions": {p.model_name: p for p in IssuePrediction.objects.filter(issue=issue)},
        "priority": IssuePriority.objects.filter(issue=issue).first(),
        "corrections": list(
            PredictionCorrection.objects.filter(issue=issue).select_related("user")[:10]
        ),
    }
