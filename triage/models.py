"""What the sources hold, mirrored: repositories, people, labels, issues and PRs, comments, posts.

People, issues, comments and posts are each unique on their source ("github", "x", ...) and the
source's own id for them (`external_id`, as text: every source's ids fit); issues also on
repository + number, which a pull-request delivery names before the issue listing has given us
the issue id. Every write is an upsert (triage/services/upsert.py), so replaying a sync or a
delivery changes nothing.
"""

from datetime import timedelta

from django.conf import settings
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVectorField
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Lower
from django.utils import timezone

GITHUB = "github"


class RepositoryQuerySet(models.QuerySet):
    def on_github(self):
        """GitHub's repositories: the only ones synced from GitHub, asked for webhook
        redeliveries and written to on GitHub."""
        return self.filter(source=GITHUB)


class Repository(models.Model):
    """A repository of issues: GitHub's (OWNER/NAME as GitHub spells it), or another source's,
    named SOURCE:OWNER/NAME ("gitlab:rocm/hip") so that no name is two repositories' and an
    issue's page address (issues/OWNER/NAME/NUMBER/) holds for every source."""

    source = models.CharField(
        max_length=32,
        default=GITHUB,
        db_index=True,
        help_text="where its issues come from: a source package's SOURCE (github, gitlab, ...)",
    )
    owner = models.CharField(max_length=100)
    name = models.CharField(max_length=100)
    full_name = models.CharField(
        max_length=201, help_text="OWNER/NAME as GitHub spells it; SOURCE:OWNER/NAME for others"
    )
    github_id = models.BigIntegerField(unique=True, null=True, blank=True)
    description = models.TextField(blank=True, default="")
    html_url = models.URLField(max_length=500, blank=True, default="")
    default_branch = models.CharField(max_length=255, blank=True, default="")
    private = models.BooleanField(default=False)
    tracked = models.BooleanField(
        default=True, help_text="Synced on a schedule and accepted from webhooks."
    )
    added_at = models.DateTimeField(default=timezone.now)
    sync_lease_until = models.DateTimeField(
        null=True, blank=True, help_text="a sync holds the repository until then"
    )
    label_writeback = models.BooleanField(
        default=False,
        help_text="Apply predicted kind and component labels on GitHub (above the threshold).",
    )
    installation_id = models.BigIntegerField(
        null=True,
        blank=True,
        db_index=True,
        help_text="the GitHub App installation that holds it (its rate budget); none: the token",
    )
    github_actions = models.JSONField(
        default=list,
        blank=True,
        help_text="the writes to GitHub this repository opted in to (automation.outbox.services)",
    )
    github_dry_run = models.BooleanField(
        default=True,
        help_text="Plan and audit the opted-in writes without making them on GitHub.",
    )

    objects = RepositoryQuerySet.as_manager()

    class Meta:
        verbose_name_plural = "repositories"
        ordering = ["full_name"]
        constraints = [
            models.UniqueConstraint(Lower("full_name"), name="repository_full_name_ci_unique"),
        ]

    def __str__(self) -> str:
        return self.full_name

    def save(self, *args, **kwargs):
        if self.full_name and not (self.owner and self.name):
            self.owner, _, self.name = self.full_name.partition("/")
        if not self.full_name:
            self.full_name = f"{self.owner}/{self.name}"
        prefixed = self.full_name.startswith(f"{self.source}:")
        if (self.source == GITHUB and ":" in self.full_name) or (
            self.source != GITHUB and not prefixed
        ):
            raise ValueError(
                f"{self.full_name!r} is not a name of a {self.source} repository: GitHub's are "
                "OWNER/NAME, another source's SOURCE:OWNER/NAME"
            )
        super().save(*args, **kwargs)

    @property
    def on_github(self) -> bool:
        return self.source == GITHUB

    # written longer than this before the repository was tracked (added_at): its history
    HISTORY_GRACE = timedelta(days=1)

    @classmethod
    def since_tracked(cls, path: str = "repository", field: str = "created_at") -> Q:
        """Rows (issues, comments) written since the repository at `path` was tracked, less
        HISTORY_GRACE: not the history its first sync reads (years-old issues and comments),
        on which nothing acts (commands, routing, escalation). `field="updated_at"`: rows
        active since then (a pull request pushed to after the tracking is not history)."""
        return Q(**{f"{field}__gte": F(f"{path}__added_at") - cls.HISTORY_GRACE})

    def known_names(self) -> list[str]:
        """OWNER/NAME now, then the names it had before a rename (newest first)."""
        former = sorted(self.former_names.all(), key=lambda f: f.renamed_at, reverse=True)
        return [self.full_name, *(f.full_name for f in former)]


class RepositoryFormerName(models.Model):
    """A name a repository had on GitHub before a rename. The repository is known by its
    GitHub id; GitHub redirects the old name to it, and settings and label maps written for the
    old name still apply to it. A name that another repository takes later is no longer one."""

    repository = models.ForeignKey(
        Repository, on_delete=models.CASCADE, related_name="former_names"
    )
    full_name = models.CharField(max_length=201)
    renamed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(Lower("full_name"), name="repository_former_name_ci_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.full_name} (now {self.repository.full_name})"


# Where a person, issue, comment or post comes from: the name of its package in triage/sources/
# (each package's SOURCE). Free text, not choices, so that a new source needs no migration.
GITHUB = "github"
X = "x"


def _source_field(default: str) -> models.CharField:
    return models.CharField(
        max_length=16, default=default, help_text="its source: a package of triage/sources/"
    )


class Person(models.Model):
    """Someone on a source: a GitHub user (login) or an X account (login: the @username)."""

    source = _source_field(GITHUB)
    external_id = models.CharField(max_length=100, help_text="the source's id of this person")
    login = models.CharField(max_length=100, db_index=True)
    name = models.CharField(max_length=255, blank=True, default="")
    avatar_url = models.URLField(max_length=500, blank=True, default="")
    html_url = models.URLField(max_length=500, blank=True, default="")
    type = models.CharField(max_length=32, blank=True, default="User")
    site_admin = models.BooleanField(default=False)
    followers_count = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name_plural = "people"
        ordering = ["login"]
        constraints = [
            models.UniqueConstraint(
                fields=["source", "external_id"], name="person_source_external_id_unique"
            )
        ]

    def __str__(self) -> str:
        return self.login


class Label(models.Model):
    repository = models.ForeignKey(Repository, on_delete=models.CASCADE, related_name="labels")
    github_id = models.BigIntegerField(unique=True, null=True, blank=True)
    name = models.CharField(max_length=255)
    name_key = models.CharField(max_length=255, editable=False, help_text="lower-cased name")
    color = models.CharField(max_length=16, blank=True, default="")
    description = models.TextField(blank=True, default="")
    default = models.BooleanField(default=False)

    class Meta:
        ordering = ["repository", "name_key"]
        constraints = [
            models.UniqueConstraint(
                fields=["repository", "name_key"], name="label_repo_name_unique"
            )
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs):
        self.name_key = self.name.lower()
        super().save(*args, **kwargs)


class Issue(models.Model):
    """An issue or a pull request (GitHub's issues API lists both; a PR adds its PR fields)."""

    class State(models.TextChoices):
        OPEN = "open"
        CLOSED = "closed"

    # No index of its own: the unique (repository, number) leads with it and serves every lookup
    # by repository. A second one cost each write an index entry, and on a table whose
    # statistics lag a backfill the planner took it to find a page's stored rows, reading every
    # stored issue of the repository for each page (quadratic in the repository's size).
    repository = models.ForeignKey(
        Repository, on_delete=models.CASCADE, related_name="issues", db_index=False
    )
    number = models.PositiveIntegerField()
    source = _source_field(GITHUB)
    external_id = models.CharField(
        max_length=100, blank=True, default="", help_text="the source's id of this issue"
    )
    node_id = models.CharField(max_length=100, blank=True, default="")
    title = models.TextField()
    body = models.TextField(blank=True, default="")
    state = models.CharField(max_length=16, choices=State.choices, default=State.OPEN)
    state_reason = models.CharField(max_length=32, blank=True, default="")
    locked = models.BooleanField(default=False)
    author = models.ForeignKey(
        Person, null=True, blank=True, on_delete=models.SET_NULL, related_name="issues"
    )
    author_association = models.CharField(max_length=32, blank=True, default="")
    assignees = models.ManyToManyField(Person, blank=True, related_name="assigned_issues")
    labels = models.ManyToManyField(Label, blank=True, related_name="issues")
    milestone = models.CharField(max_length=255, blank=True, default="")
    comments_count = models.PositiveIntegerField(default=0)
    priority_score = models.SmallIntegerField(
        default=-1, help_text="IssuePriority.score of an open issue, -1 without one (the queue)"
    )
    reactions_total = models.PositiveIntegerField(
        default=0, help_text="GitHub reactions.total_count"
    )
    reactions = models.JSONField(default=dict, blank=True, help_text="GitHub reactions by content")
    html_url = models.URLField(max_length=500, blank=True, default="")
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()
    closed_at = models.DateTimeField(null=True, blank=True)

    is_pull_request = models.BooleanField(default=False)
    pr_github_id = models.BigIntegerField(unique=True, null=True, blank=True)
    pr_updated_at = models.DateTimeField(null=True, blank=True)
    draft = models.BooleanField(default=False)
    merged = models.BooleanField(null=True, blank=True)
    merged_at = models.DateTimeField(null=True, blank=True)
    merged_by = models.ForeignKey(
        Person, null=True, blank=True, on_delete=models.SET_NULL, related_name="merged_pulls"
    )
    merge_commit_sha = models.CharField(max_length=64, blank=True, default="")
    base_ref = models.CharField(max_length=255, blank=True, default="")
    head_ref = models.CharField(max_length=255, blank=True, default="")
    head_sha = models.CharField(max_length=64, blank=True, default="")
    commit_messages = models.JSONField(
        default=list, blank=True, help_text="messages of the PR's commits (merged PRs)"
    )
    commits_head_sha = models.CharField(
        max_length=64, blank=True, default="", help_text="head_sha the commit messages were read at"
    )

    deleted_at = models.DateTimeField(null=True, blank=True)
    transferred_to = models.CharField(max_length=300, blank=True, default="")
    first_seen_at = models.DateTimeField(default=timezone.now)
    last_ingested_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-updated_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["repository", "number"], name="issue_repo_number_unique"
            ),
            # "" until a listing gives us the id of an issue a pull_request delivery named first
            models.UniqueConstraint(
                fields=["source", "external_id"],
                condition=~models.Q(external_id=""),
                name="issue_source_external_id_unique",
            ),
        ]
        indexes = [
            models.Index(fields=["repository", "state", "-updated_at"]),
            models.Index(fields=["-updated_at"]),
            models.Index(fields=["is_pull_request", "state"]),
            # The issue list and its counts by state (index-only on Postgres, the PR flag included).
            models.Index(
                fields=["state", "-updated_at"],
                include=["is_pull_request"],
                condition=models.Q(deleted_at__isnull=True),
                name="issue_list_idx",
            ),
            # The triage queue, in its order, whatever the number of issues.
            models.Index(
                fields=["-priority_score", "-updated_at", "id"],
                condition=models.Q(state="open", is_pull_request=False, deleted_at__isnull=True),
                name="issue_queue_idx",
            ),
        ]
        permissions = [
            ("triage_issue", "Can triage issues: correct predictions, duplicates, priority"),
        ]

    def __str__(self) -> str:
        return f"{self.repository.full_name}#{self.number}"

    @property
    def reference(self) -> str:
        return f"{self.repository.full_name}#{self.number}"


class IssueSearch(models.Model):
    """An issue's full-text vector (Postgres; SQLite searches by substring and has none).

    Its own table, written by the pipeline's `index_issues` step after the issue is stored, not
    by the issue's own write: computing the vector (English stemming of the title and up to
    50,000 characters of the body) cost more than the rest of an issue's row and its dozen
    indexes, and an issue changes far more often (state, labels, reactions) than its text.
    `digest` is the SHA-256 of the text the vector was made of: unchanged text is not read again.
    """

    issue = models.OneToOneField(
        Issue, on_delete=models.CASCADE, primary_key=True, related_name="search"
    )
    vector = SearchVectorField()
    digest = models.CharField(max_length=64)

    class Meta:
        indexes = [
            # Postgres only: migration 0028 skips it on SQLite, which searches by substring.
            GinIndex(fields=["vector"], name="issue_search_fts_idx"),
        ]

    def __str__(self) -> str:
        return f"search text of issue {self.issue_id}"


class Comment(models.Model):
    source = _source_field(GITHUB)
    external_id = models.CharField(max_length=100, help_text="the source's id of this comment")
    issue = models.ForeignKey(Issue, on_delete=models.CASCADE, related_name="comments")
    node_id = models.CharField(max_length=100, blank=True, default="")
    author = models.ForeignKey(
        Person, null=True, blank=True, on_delete=models.SET_NULL, related_name="comments"
    )
    author_association = models.CharField(max_length=32, blank=True, default="")
    body = models.TextField(blank=True, default="")
    html_url = models.URLField(max_length=500, blank=True, default="")
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()
    deleted_at = models.DateTimeField(null=True, blank=True)
    reactions_total = models.PositiveIntegerField(
        default=0, help_text="GitHub reactions.total_count"
    )
    sentiment = models.CharField(max_length=16, blank=True, default="")
    sentiment_confidence = models.FloatField(null=True, blank=True)
    sentiment_model_version = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["source", "external_id"], name="comment_source_external_id_unique"
            )
        ]

    def __str__(self) -> str:
        return f"comment {self.external_id} on {self.issue_id}"


class SyncState(models.Model):
    """Where the sync of one resource of one repository stands."""

    class Resource(models.TextChoices):
        REPOSITORY = "repository"  # the repository itself: its name after a rename
        ISSUES = "issues"
        COMMENTS = "comments"
        PULLS = "pulls"
        COMMITS = "commits"
        FILES = "files"  # the changed files of open pull requests (path ownership rules)

    repository = models.ForeignKey(Repository, on_delete=models.CASCADE, related_name="sync_states")
    resource = models.CharField(max_length=16, choices=Resource.choices)
    watermark = models.DateTimeField(
        null=True, blank=True, help_text="updated_at of the last item committed"
    )
    etag = models.CharField(max_length=255, blank=True, default="")
    resume_page = models.PositiveIntegerField(
        null=True, blank=True, help_text="next page of an interrupted listing (pulls)"
    )
    resume_watermark = models.DateTimeField(
        null=True, blank=True, help_text="the watermark that listing sets when it completes"
    )
    backfill_done = models.BooleanField(default=False)
    last_run_at = models.DateTimeField(null=True, blank=True)
    last_success_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True, default="")
    requests_used = models.PositiveBigIntegerField(default=0)
    rate_limit_remaining = models.IntegerField(null=True, blank=True)
    rate_limit_reset_at = models.DateTimeField(null=True, blank=True)
    pipeline_held = models.JSONField(
        default=dict,
        blank=True,
        help_text="ids of the rows the listing changed and has not yet sent on to the pipeline, "
        "by hook (committed with each page; sent first by a sync that finds them)",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["repository", "resource"], name="sync_state_unique")
        ]

    def __str__(self) -> str:
        return f"{self.repository.full_name} {self.resource}"


class WebhookDelivery(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"
        PROCESSED = "processed"
        IGNORED = "ignored"
        FAILED = "failed"

    delivery_id = models.CharField(max_length=100)
    event = models.CharField(max_length=64)
    action = models.CharField(max_length=64, blank=True, default="")
    hook_id = models.CharField(max_length=32, blank=True, default="")
    # X-GitHub-Hook-Installation-Target-Type and -ID: repository, organization or integration (a
    # GitHub App), and its id; which API lists the hook's deliveries
    # (triage/sources/github/redelivery.py).
    hook_target_type = models.CharField(max_length=32, blank=True, default="")
    hook_target_id = models.CharField(max_length=32, blank=True, default="")
    repository_full_name = models.CharField(max_length=201, blank=True, default="")
    raw_body = models.BinaryField(help_text="the delivery's body, byte for byte")
    received_at = models.DateTimeField(default=timezone.now, db_index=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    processing_started_at = models.DateTimeField(null=True, blank=True)
    processed_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True, default="")

    class Meta:
        verbose_name_plural = "webhook deliveries"
        ordering = ["-received_at"]
        # Declared here, not as unique=True / db_index=True on the fields: those add a second,
        # LIKE-pattern index on Postgres for each, which no query uses and every insert pays for.
        constraints = [
            models.UniqueConstraint(fields=["delivery_id"], name="webhook_delivery_id_unique")
        ]
        indexes = [
            models.Index(fields=["event"], name="webhook_delivery_event_idx"),
            # The pending sweep's query: without it, it reads the whole history each minute.
            models.Index(
                fields=["received_at"],
                condition=models.Q(status="pending"),
                name="webhook_delivery_pending_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.event}.{self.action} {self.delivery_id}"


class WebhookRedelivery(models.Model):
    """A redelivery this service asked GitHub for, of a delivery GitHub recorded as failed and we
    never stored: one row per delivery guid (X-GitHub-Delivery), so each is asked at most once."""

    class Outcome(models.TextChoices):
        ASKING = "asking", "asking (no answer recorded)"
        REQUESTED = "requested", "requested (GitHub answered 202)"
        REFUSED = "refused", "refused by GitHub"

    guid = models.CharField(max_length=100)
    hook_id = models.CharField(max_length=32)
    hook_target_type = models.CharField(max_length=32)
    hook_target = models.CharField(
        max_length=201, blank=True, default="", help_text="OWNER/NAME or organization"
    )
    github_delivery_id = models.BigIntegerField(help_text="the failed attempt asked for again")
    event = models.CharField(max_length=64, blank=True, default="")
    action = models.CharField(max_length=64, blank=True, default="")
    failure = models.CharField(
        max_length=255, blank=True, default="", help_text="GitHub's status of it"
    )
    delivered_at = models.DateTimeField(null=True, blank=True)
    requested_at = models.DateTimeField(default=timezone.now)
    outcome = models.CharField(max_length=16, choices=Outcome.choices, default=Outcome.ASKING)
    error = models.TextField(blank=True, default="")

    class Meta:
        verbose_name_plural = "webhook redeliveries"
        ordering = ["-requested_at"]
        constraints = [
            models.UniqueConstraint(fields=["guid"], name="webhook_redelivery_guid_unique")
        ]

    def __str__(self) -> str:
        return f"redelivery of {self.guid} ({self.outcome})"


# --- Classification and priority (issue 3) ---------------------------------------------------


class IssuePrediction(models.Model):
    """The current prediction of one model for one issue (replaced when the issue is classified)."""

    issue = models.ForeignKey(Issue, on_delete=models.CASCADE, related_name="predictions")
    model_name = models.CharField(max_length=50)
    model_version = models.CharField(max_length=100, blank=True, default="")
    label = models.CharField(max_length=255, blank=True, default="")
    confidence = models.FloatField(default=0.0)
    evidence = models.JSONField(default=dict, blank=True)
    needs_triage = models.BooleanField(
        default=False, help_text="the model abstained: under its threshold, a human decides"
    )
    predicted_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["issue", "model_name"]
        constraints = [
            models.UniqueConstraint(fields=["issue", "model_name"], name="issue_prediction_unique")
        ]
        indexes = [
            models.Index(fields=["model_name", "label", "issue"]),
            models.Index(
                fields=["issue"],
                condition=models.Q(needs_triage=True),
                name="prediction_unsure_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.issue_id} {self.model_name}={self.label} ({self.confidence:.2f})"


class PredictionCorrection(models.Model):
    """A triager's decision on a prediction: accepted (before == after) or corrected.

    The latest decision per issue and model is a training label that outranks weak labels."""

    issue = models.ForeignKey(Issue, on_delete=models.CASCADE, related_name="corrections")
    model_name = models.CharField(max_length=50)
    model_version = models.CharField(max_length=100, blank=True, default="")
    before = models.CharField(max_length=255, blank=True, default="")
    before_confidence = models.FloatField(null=True, blank=True)
    after = models.CharField(max_length=255)
    user = models.ForeignKey(
        "auth.User", null=True, on_delete=models.SET_NULL, related_name="prediction_corrections"
    )
    github_login = models.CharField(
        max_length=100, blank=True, default="", help_text="a collaborator's comment command"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["model_name", "issue", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.issue_id} {self.model_name}: {self.before} -> {self.after}"

    @property
    def accepted(self) -> bool:
        return self.before == self.after


class IssuePriority(models.Model):
    """Priority 0-100 of an open issue, as the sum of its parts (a list of name, points, why)."""

    issue = models.OneToOneField(Issue, on_delete=models.CASCADE, related_name="priority")
    score = models.PositiveSmallIntegerField(default=0, db_index=True)
    parts = models.JSONField(default=list, blank=True)
    computed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "issue priorities"
        ordering = ["-score"]

    def __str__(self) -> str:
        return f"{self.issue_id}: {self.score}"


# --- X (Twitter): saved searches, posts, their links to issues, spikes ------------------------


class SavedSearch(models.Model):
    """An X API v2 recent-search query that the service runs on a schedule."""

    name = models.CharField(max_length=100, unique=True)
    query = models.CharField(max_length=512, unique=True, help_text="X API v2 query syntax")
    enabled = models.BooleanField(default=True)
    interval_minutes = models.PositiveIntegerField(default=15)
    since_id = models.CharField(max_length=32, blank=True, default="")
    monthly_budget = models.PositiveIntegerField(
        default=10000, help_text="posts this search may read per month (the API caps reads)"
    )
    budget_month = models.DateField(null=True, blank=True)
    posts_this_month = models.PositiveIntegerField(default=0)
    requests_used = models.PositiveBigIntegerField(default=0)
    last_run_at = models.DateTimeField(null=True, blank=True)
    last_success_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "saved searches"
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Post(models.Model):
    class Sentiment(models.TextChoices):
        NEGATIVE = "negative"
        NEUTRAL = "neutral"
        POSITIVE = "positive"

    source = _source_field(X)
    external_id = models.CharField(max_length=100, help_text="the source's id of this post")
    author = models.ForeignKey(
        Person, null=True, blank=True, on_delete=models.SET_NULL, related_name="posts"
    )
    text = models.TextField()
    created_at = models.DateTimeField(db_index=True)
    lang = models.CharField(max_length=8, blank=True, default="")
    conversation_id = models.CharField(max_length=32, blank=True, default="")
    public_metrics = models.JSONField(default=dict, blank=True)
    entities = models.JSONField(default=dict, blank=True)
    referenced_tweets = models.JSONField(default=list, blank=True)
    searches = models.ManyToManyField(SavedSearch, blank=True, related_name="posts")
    sentiment = models.CharField(max_length=16, choices=Sentiment.choices, blank=True, default="")
    sentiment_confidence = models.FloatField(null=True, blank=True)
    sentiment_corrected_at = models.DateTimeField(
        null=True, blank=True, help_text="set when a triager decided the sentiment: kept from then"
    )
    mentions = models.JSONField(
        default=dict, blank=True, help_text="components, GPUs, architectures, ROCm versions"
    )
    component_tags = models.CharField(
        max_length=500, blank=True, default="", help_text="|HIP|MIOpen| for filtering"
    )
    understood_at = models.DateTimeField(null=True, blank=True)
    ingested_at = models.DateTimeField(default=timezone.now)
    url = models.CharField(
        max_length=500, blank=True, default="", help_text="the post on its source (http(s) only)"
    )

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["sentiment", "-created_at"])]
        constraints = [
            models.UniqueConstraint(
                fields=["source", "external_id"], name="post_source_external_id_unique"
            )
        ]

    def __str__(self) -> str:
        return f"post {self.external_id}"


class SentimentCorrection(models.Model):
    """A triager's decision on a post's sentiment. The latest per post is a training label of the
    sentiment model (with the base set of settings.CLASSIFIER_SENTIMENT_CSV)."""

    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="sentiment_corrections")
    before = models.CharField(max_length=16, blank=True, default="")
    before_confidence = models.FloatField(null=True, blank=True)
    after = models.CharField(max_length=16, choices=Post.Sentiment.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="sentiment_corrections",
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["post", "-created_at"])]

    def __str__(self) -> str:
        return f"post {self.post_id}: {self.before} -> {self.after}"


class PostIssueLink(models.Model):
    class Kind(models.TextChoices):
        EXPLICIT = "explicit", "URL in the post"
        SUGGESTED = "suggested", "similar text"

    class Status(models.TextChoices):
        SUGGESTED = "suggested"
        CONFIRMED = "confirmed"
        REJECTED = "rejected"

    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="issue_links")
    issue = models.ForeignKey(Issue, on_delete=models.CASCADE, related_name="post_links")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    status = models.CharField(max_length=16, choices=Status.choices)
    score = models.FloatField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["post", "issue"], name="post_issue_link_unique")
        ]

    def __str__(self) -> str:
        return f"{self.post} → {self.issue_id} ({self.status})"


class Spike(models.Model):
    search = models.ForeignKey(
        SavedSearch, null=True, blank=True, on_delete=models.CASCADE, related_name="spikes"
    )
    component = models.CharField(max_length=100, blank=True, default="")
    hour = models.DateTimeField()
    count = models.PositiveIntegerField()
    baseline_mean = models.FloatField()
    baseline_stdev = models.FloatField()
    threshold = models.FloatField()
    detected_at = models.DateTimeField(default=timezone.now)
    announced_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-hour"]
        constraints = [
            models.UniqueConstraint(
                fields=["search", "component", "hour"],
                name="spike_scope_hour_unique",
                nulls_distinct=False,
            )
        ]

    def __str__(self) -> str:
        return self.describe()

    def scope_name(self) -> str:
        return self.search.name if self.search_id else f"component {self.component}"

    def describe(self) -> str:
        return (
            f"{self.scope_name()}: {self.count} posts in the hour from "
            f"{self.hour:%Y-%m-%d %H:%M} UTC (14-day mean {self.baseline_mean:.1f}, "
            f"threshold {self.threshold:.1f})"
        )


class TriageAction(models.Model):
    """The audit log of the dashboard: who did what to which issue, with before and after."""

    issue = models.ForeignKey(
        Issue, null=True, blank=True, on_delete=models.CASCADE, related_name="triage_actions"
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    action = models.CharField(max_length=64, help_text="e.g. prediction.correct, repro.approve")
    github_login = models.CharField(
        max_length=100, blank=True, default="", help_text="a collaborator's comment command"
    )
    before = models.JSONField(default=dict, blank=True)
    after = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.action} on {self.issue_id} by {self.actor_id}"


class SavedView(models.Model):
    """A user's named set of triage-queue filters (the query string of the queue page)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="saved_views"
    )
    name = models.CharField(max_length=100)
    page = models.CharField(max_length=32, default="triage-queue")
    query = models.CharField(max_length=1000, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["user", "page", "name"], name="saved_view_unique")
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.user_id})"


class UserPreference(models.Model):
    """Per-user dashboard settings: the time zone times are shown in."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preference"
    )
    time_zone = models.CharField(max_length=64, default="UTC")
    github_login = models.CharField(
        max_length=39, blank=True, default="", help_text="for 'My issues': assigned or owned"
    )
    inbox_email = models.BooleanField(
        default=False, help_text="e-mail each new inbox item to the user's address"
    )

    def __str__(self) -> str:
        return f"preferences of {self.user_id}"


class IssueFollow(models.Model):
    """A user follows an issue: replies on it reach their inbox."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    issue = models.ForeignKey(Issue, on_delete=models.CASCADE, related_name="followers")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "issue"], name="issuefollow_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} follows {self.issue_id}"


class InboxItem(models.Model):
    """Something that concerns one maintainer (triage.services.inbox): once per what caused it
    (`key`), read or unread, snoozed until a time or until the reporter answers."""

    class Reason(models.TextChoices):
        ASSIGNED = "assigned", "assigned to you"
        MENTIONED = "mentioned", "you were mentioned"
        REPLY = "reply", "a reply on an issue you follow"
        REPRO = "repro", "a reproducer awaits your approval"
        KNOWN_ERROR = "known_error", "a known-error match to confirm"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    issue = models.ForeignKey(Issue, on_delete=models.CASCADE, related_name="+")
    reason = models.CharField(max_length=16, choices=Reason.choices)
    key = models.CharField(max_length=200, help_text="what caused it: one item per key")
    excerpt = models.CharField(max_length=300, blank=True, default="")
    actor = models.CharField(max_length=100, blank=True, default="", help_text="who did it")
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    read_at = models.DateTimeField(null=True, blank=True)
    snoozed_until = models.DateTimeField(null=True, blank=True)
    until_reply = models.BooleanField(default=False, help_text="snoozed until the reporter answers")
    emailed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="inboxitem_unique"),
        ]
        indexes = [models.Index(fields=["user", "read_at", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.key}"


class PullRequestFiles(models.Model):
    """The files a pull request changes, as GitHub lists them at one head commit (read when it
    was opened, pushed to or reopened, and at sync when its head moved): what path ownership
    rules match. GitHub lists at most 3,000 files of a pull request."""

    issue = models.OneToOneField(
        Issue, primary_key=True, on_delete=models.CASCADE, related_name="pull_files"
    )
    head_sha = models.CharField(max_length=64, help_text="the head commit they were read at")
    files = models.JSONField(
        default=list,
        blank=True,
        help_text='[{"filename", "status", "previous_filename" (renamed)}], as GitHub lists them',
    )
    truncated = models.BooleanField(
        default=False, help_text="GitHub's listing stopped at its 3,000 files"
    )
    read_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "pull request files"

    def __str__(self) -> str:
        return f"{len(self.files)} files of {self.issue_id} at {self.head_sha[:12]}"

    def paths(self) -> list[str]:
        """Every path a rule may own: each file's, and a renamed file's former path too."""
        found = []
        for item in self.files:
            found.append(item["filename"])
            if item.get("previous_filename"):
                found.append(item["previous_filename"])
        return found
