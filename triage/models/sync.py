"""Where each sync stands, and the webhook deliveries received and asked for again."""

from django.db import models
from django.utils import timezone

from triage.models.sources import Repository


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
