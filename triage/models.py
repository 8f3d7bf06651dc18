"""What GitHub holds, mirrored: repositories, people, labels, issues and PRs, comments.

Every row is unique on GitHub's own identity (ids, or repository + number for issues, which a
pull-request delivery names before the issue listing has given us the issue id), so every write
is an upsert and replaying a sync or a delivery changes nothing.
"""

from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone


class Repository(models.Model):
    owner = models.CharField(max_length=100)
    name = models.CharField(max_length=100)
    full_name = models.CharField(max_length=201, help_text="OWNER/NAME as GitHub spells it")
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
        super().save(*args, **kwargs)


class Person(models.Model):
    github_id = models.BigIntegerField(unique=True)
    login = models.CharField(max_length=100, db_index=True)
    name = models.CharField(max_length=255, blank=True, default="")
    avatar_url = models.URLField(max_length=500, blank=True, default="")
    html_url = models.URLField(max_length=500, blank=True, default="")
    type = models.CharField(max_length=32, blank=True, default="User")
    site_admin = models.BooleanField(default=False)

    class Meta:
        verbose_name_plural = "people"
        ordering = ["login"]

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

    repository = models.ForeignKey(Repository, on_delete=models.CASCADE, related_name="issues")
    number = models.PositiveIntegerField()
    github_id = models.BigIntegerField(unique=True, null=True, blank=True)
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

    deleted_at = models.DateTimeField(null=True, blank=True)
    transferred_to = models.CharField(max_length=300, blank=True, default="")
    first_seen_at = models.DateTimeField(default=timezone.now)
    last_ingested_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-updated_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["repository", "number"], name="issue_repo_number_unique"
            )
        ]
        indexes = [
            models.Index(fields=["repository", "state", "-updated_at"]),
            models.Index(fields=["-updated_at"]),
            models.Index(fields=["is_pull_request", "state"]),
        ]

    def __str__(self) -> str:
        return f"{self.repository.full_name}#{self.number}"

    @property
    def reference(self) -> str:
        return f"{self.repository.full_name}#{self.number}"


class Comment(models.Model):
    github_id = models.BigIntegerField(unique=True)
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

    class Meta:
        ordering = ["created_at", "github_id"]

    def __str__(self) -> str:
        return f"comment {self.github_id} on {self.issue_id}"


class SyncState(models.Model):
    """Where the sync of one resource of one repository stands."""

    class Resource(models.TextChoices):
        ISSUES = "issues"
        COMMENTS = "comments"
        PULLS = "pulls"

    repository = models.ForeignKey(Repository, on_delete=models.CASCADE, related_name="sync_states")
    resource = models.CharField(max_length=16, choices=Resource.choices)
    watermark = models.DateTimeField(
        null=True, blank=True, help_text="updated_at of the last item committed"
    )
    etag = models.CharField(max_length=255, blank=True, default="")
    backfill_done = models.BooleanField(default=False)
    last_run_at = models.DateTimeField(null=True, blank=True)
    last_success_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True, default="")
    requests_used = models.PositiveBigIntegerField(default=0)
    rate_limit_remaining = models.IntegerField(null=True, blank=True)
    rate_limit_reset_at = models.DateTimeField(null=True, blank=True)

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

    delivery_id = models.CharField(max_length=100, unique=True)
    event = models.CharField(max_length=64, db_index=True)
    action = models.CharField(max_length=64, blank=True, default="")
    hook_id = models.CharField(max_length=32, blank=True, default="")
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

    def __str__(self) -> str:
        return f"{self.event}.{self.action} {self.delivery_id}"
