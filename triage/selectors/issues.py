"""Reads for the dashboard and the REST API. Nothing here writes."""

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.contrib.postgres.search import SearchQuery
from django.core.cache import cache
from django.db import connection
from django.db.models import Count, Exists, F, Min, OuterRef, Prefetch, Q, QuerySet
from django.db.models.functions import Lower
from django.shortcuts import get_object_or_404
from django.utils import timezone

from classifiers import registry
from config import linear_re, wiring
from triage.models import (
    Comment,
    Issue,
    IssuePrediction,
    IssuePriority,
    Label,
    PredictionCorrection,
    Repository,
    SavedView,
    SyncState,
    WebhookDelivery,
)

ISSUE_STATES = ("open", "closed", "all")
ISSUE_KINDS = ("issue", "pr", "all")
FULL_NAME_RE = linear_re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
NUMBER_RE = linear_re.compile(r"^#?(\d{1,9})$")


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


@dataclass
class RateBudget:
    """One rate budget: the token's, or a GitHub App installation's, and its repositories."""

    installation_id: int | None
    repositories: list[str] = field(default_factory=list)
    backfilling: list[str] = field(default_factory=list)  # first complete sync still to come
    remaining: int | None = None
    reset_at: datetime | None = None
    seen_at: datetime | None = None

    @property
    def name(self) -> str:
        return f"installation {self.installation_id}" if self.installation_id else "the token"

    @property
    def limited(self) -> bool:
        return self.remaining == 0 and bool(self.reset_at and self.reset_at > timezone.now())


def rate_budgets() -> list[RateBudget]:
    """Each budget with what the latest sync of one of its repositories read of it, in three
    queries (the home page's and the settings page's "GitHub rate budgets")."""
    budgets: dict[int | None, RateBudget] = {}
    tracked = Repository.objects.on_github().filter(tracked=True).order_by("full_name")
    backfilled = set(
        SyncState.objects.filter(
            repository__tracked=True, resource=SyncState.Resource.ISSUES, backfill_done=True
        ).values_list("repository_id", flat=True)
    )
    for pk, full_name, installation_id in tracked.values_list("pk", "full_name", "installation_id"):
        budget = budgets.setdefault(installation_id, RateBudget(installation_id))
        budget.repositories.append(full_name)
        if pk not in backfilled:
            budget.backfilling.append(full_name)
    latest = (
        SyncState.objects.filter(repository__tracked=True, rate_limit_remaining__isnull=False)
        .order_by("-last_run_at")
        .values_list(
            "repository__installation_id",
            "rate_limit_remaining",
            "rate_limit_reset_at",
            "last_run_at",
        )
    )
    for installation_id, remaining, reset_at, seen_at in latest[:1000]:
        budget = budgets.get(installation_id)
        if budget is not None and budget.seen_at is None:
            budget.remaining, budget.reset_at, budget.seen_at = remaining, reset_at, seen_at
    return sorted(
        budgets.values(), key=lambda b: (b.installation_id is not None, b.installation_id or 0)
    )


def repository_overviews(*, with_open_issues: bool = False) -> list[RepositoryOverview]:
    """Tracked repositories with their sync states and issue counts, in four queries; with
    `with_open_issues`, also the untracked ones that still hold open issues (a repository no
    longer tracked, one whose issues came another way), so the table adds up to the open count
    every other page gives."""
    held = Q(tracked=True)
    if with_open_issues:
        held |= Q(
            pk__in=Issue.objects.filter(
                state=Issue.State.OPEN, deleted_at__isnull=True, is_pull_request=False
            ).values("repository_id")
        )
    repositories = Repository.objects.filter(held).prefetch_related(
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
    issues = text_search(issues, q)
    return (
        issues.select_related("repository", "author")
        .defer("body")
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

QUEUE_KINDS = registry.entry("kind").labels


MINUS_RUN_RE = linear_re.compile(r"-+")


def _dangling_minus_dropped(q: str) -> str:
    """Each "-" that is not right before a word becomes a space (the last of a run before a word
    stays: it negates that word)."""

    def replace(match) -> str:
        after = q[match.end() : match.end() + 1]
        keeps_last = after.isalnum() or after == "_"
        return " " * (len(match.group()) - keeps_last) + "-" * keeps_last

    return MINUS_RUN_RE.sub(replace, q)


SEARCH_WORDS_MAX = 12


def text_search(issues: QuerySet[Issue], q: str) -> QuerySet[Issue]:
    """Issues matching `q`: "123" or "#123" by number; words by full-text search on Postgres
    (websearch syntax, English stemming, IssueSearch's GIN index: an issue is found once the
    pipeline's `index_issues` has run after its text changed), each word as a substring on
    SQLite."""
    q = q.strip()
    if not q:
        return issues
    number = NUMBER_RE.match(q)
    if number:
        return issues.filter(Q(number=int(number.group(1))) | Q(title__icontains=q))
    if connection.vendor == "postgresql":
        # A "-" not before a word negates nothing; runs of them nest NOTs until Postgres fails
        # ("tsquery stack too small"), so they go.
        q = _dangling_minus_dropped(q)
        query = SearchQuery(q, config="english", search_type="websearch")
        return issues.filter(search__vector=query)
    # SQLite: every word (the first SEARCH_WORDS_MAX) in the title or the body, in any case
    every_word = Q()
    for word in q.split()[:SEARCH_WORDS_MAX]:
        every_word &= Q(title__icontains=word) | Q(body__icontains=word)
    return issues.filter(every_word)


def untriaged() -> Q:
    """The one definition of an untriaged issue, which the home page, the queue's "Needs triage",
    the API and the readiness report (releases.selectors.issue_facts, the same rule on the
    predictions it has read) all count: a prediction of a model that the registry counts for
    triage (`triaged`: kind, severity, component) waits for a person, or the issue has neither a
    kind prediction nor a label."""
    unsure = IssuePrediction.objects.filter(
        issue_id=OuterRef("pk"), model_name__in=registry.names(triaged=True), needs_triage=True
    )
    has_kind = IssuePrediction.objects.filter(issue_id=OuterRef("pk"), model_name="kind")
    labelled = Issue.labels.through.objects.filter(issue_id=OuterRef("pk"))
    return Q(Exists(unsure)) | (~Q(Exists(has_kind)) & ~Q(Exists(labelled)))


def owned_components(login: str) -> list[str]:
    """The components (as predicted, lower case) that later stages give this login
    (wiring.OWNED_COMPONENTS: ownership's rules), for the queue's "My issues"."""
    found: set[str] = set()
    for dotted in wiring.OWNED_COMPONENTS:
        found.update(wiring.load(dotted)(login))
    return sorted(found)


def triage_queue(
    *,
    repo: str = "",
    component: str = "",
    architecture: str = "",
    kind: str = "",
    severity: str = "",
    needs_triage: bool = False,
    has_repro: bool = False,
    needs_info: bool = False,
    awaiting_approval: bool = False,
    known_error: bool = False,
    assignee: str = "",
    mine: str = "",
    sort: str = "",
    q: str = "",
) -> QuerySet[Issue]:
    """Open issues, highest priority first (unprioritized last), with their predictions.

    `has_repro` keeps the issues that wiring.QUEUE_FILTERS["has_repro"] names (a later stage,
    kernels_ci, says which issues have a reproducer); `needs_info` those waiting for their
    reporter (QUEUE_FILTERS["needs_info"]); `awaiting_approval` those whose reproducer waits for
    approval and `known_error` those with a known-error match to confirm (the lists behind the
    home page's counts); `assignee` those assigned to that GitHub login;
    `mine` (a GitHub login) those assigned to it or of a component its ownership rules give it.
    `sort="assignee"`: by the first assignee's login (unassigned last), then by priority."""
    issues = Issue.objects.filter(
        deleted_at__isnull=True, is_pull_request=False, state=Issue.State.OPEN
    )
    if repo:
        issues = issues.filter(repository__full_name__iexact=repo)

    def predicted(model_name: str, **label):
        return Exists(
            IssuePrediction.objects.filter(issue_id=OuterRef("pk"), model_name=model_name, **label)
        )

    if component:  # component labels are stored lower-cased (classification._valid_label)
        issues = issues.filter(predicted("component", label=component.lower()))
    if kind:
        issues = issues.filter(predicted("kind", label=kind))
    if severity:
        issues = issues.filter(predicted("severity", label=severity))
    if architecture:
        issues = issues.filter(
            predicted("environment", label__regex=rf"(^| ){linear_re.escape(architecture)}( |$)")
        )
    if needs_triage:
        issues = issues.filter(untriaged())
    wants = {
        "has_repro": has_repro,
        "needs_info": needs_info,
        "awaiting_approval": awaiting_approval,
        "known_error": known_error,
    }
    for name, wanted in wants.items():
        dotted = wiring.QUEUE_FILTERS.get(name)
        if wanted and dotted:
            issues = issues.filter(pk__in=wiring.load(dotted)())
    if assignee:
        issues = issues.filter(
            Exists(
                Issue.assignees.through.objects.filter(
                    issue_id=OuterRef("pk"), person__login__iexact=assignee
                )
            )
        )
    if mine:
        assigned = Exists(
            Issue.assignees.through.objects.filter(
                issue_id=OuterRef("pk"), person__login__iexact=mine
            )
        )
        owned = owned_components(mine)
        issues = issues.filter(
            assigned | predicted("component", label__in=owned) if owned else assigned
        )
    issues = text_search(issues, q)
    issues = (
        issues.select_related("repository", "author", "priority")
        .defer("body")
        .prefetch_related("predictions", "assignees")
    )
    if sort == "assignee":
        first = Min(Lower("assignees__login"))
        return issues.annotate(first_assignee=first).order_by(
            F("first_assignee").asc(nulls_last=True), "-priority_score", "-updated_at", "id"
        )
    return issues.order_by("-priority_score", "-updated_at", "id")  # the index issue_queue_idx


FILTER_CHOICES_TTL_S = 300


def triage_filter_choices() -> dict[str, list[str]]:
    """The components and architectures the queue can filter by (as predicted so far); a
    DISTINCT over every prediction, so cached for a few minutes."""
    return cache.get_or_set("triage:queue-filter-choices", _filter_choices, FILTER_CHOICES_TTL_S)


def _filter_choices() -> dict[str, list[str]]:
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


def predictions_of_issues(
    *, issue_ids: list[int], model_names: tuple[str, ...] = ()
) -> dict[int, dict[str, IssuePrediction]]:
    """{issue id: {model name: its stored prediction}} for many issues in one query (releases)."""
    rows = IssuePrediction.objects.filter(issue_id__in=list(issue_ids))
    if model_names:
        rows = rows.filter(model_name__in=model_names)
    found: dict[int, dict[str, IssuePrediction]] = {}
    for prediction in rows.order_by("issue_id", "model_name"):
        found.setdefault(prediction.issue_id, {})[prediction.model_name] = prediction
    return found


def issue_activity_of(*, issue_ids: list[int]) -> dict[int, dict]:
    """{issue id: {"comment_times": [created_at, ...] oldest first, "assignees": n}} (releases'
    forecast replays what was known at a past moment from these timestamps)."""
    found = {i: {"comment_times": [], "assignees": 0} for i in issue_ids}
    comments = Comment.objects.filter(issue_id__in=list(issue_ids), deleted_at__isnull=True)
    for issue_id, created_at in comments.order_by("created_at", "id").values_list(
        "issue_id", "created_at"
    ):
        found[issue_id]["comment_times"].append(created_at)
    assigned = (
        Issue.assignees.through.objects.filter(issue_id__in=list(issue_ids))
        .values("issue_id")
        .annotate(n=Count("person_id"))
        .values_list("issue_id", "n")
    )
    for issue_id, n in assigned:
        found[issue_id]["assignees"] = n
    return found


def triage_queue_issue(*, issue_id: int) -> Issue | None:
    """One issue as the queue shows it (None once it left the queue: closed, deleted, a PR)."""
    return triage_queue().filter(pk=issue_id).first()


def saved_views(*, user, page: str) -> list[SavedView]:
    return list(SavedView.objects.filter(user=user, page=page).order_by("name"))
