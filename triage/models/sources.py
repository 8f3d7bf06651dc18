"""What the sources hold, mirrored: repositories, people, labels, issues and pull requests
(with their changed files), comments.

People, issues, comments and posts are each unique on their source ("github", "x", ...) and the
source's own id for them (`external_id`, as text: every source's ids fit); issues also on
repository + number, which a pull-request delivery names before the issue listing has given us
the issue id. Every write is an upsert (triage/services/upsert.py), so replaying a sync or a
delivery changes nothing."""

from datetime import timedelta

from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVectorField
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Lower
from django.utils import timezone

# Where a person, issue, comment or post comes from: the name of its package in triage/sources/
# (each package's SOURCE). Free text, not choices, so that a new source needs no migration.
GITHUB = "github"
X = "x"


def source_field(default: str) -> models.CharField:
    return models.CharField(
        max_length=16, default=default, help_text="its source: a package of triage/sources/"
    )


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


class Person(models.Model):
    """Someone on a source: a GitHub user (login) or an X account (login: the @username)."""

    source = source_field(GITHUB)
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
    source = source_field(GITHUB)
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
    source = source_field(GITHUB)
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
