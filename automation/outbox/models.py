"""The outbox: every write to GitHub the service decided, its one stop switch, and the texts
it posts."""

from django.conf import settings
from django.db import models
from django.utils import timezone

from triage.models import Issue, Repository


class GitHubWrite(models.Model):
    """One write the service decided to make on GitHub: the outbox row and its audit.

    A service plans the write (what, on which issue, why, who or which model decided); a task
    performs it through PyGithub and records GitHub's answer. `key` makes a decision idempotent:
    one row per issue and key (webhook redeliveries and task retries plan the same key again
    and change nothing); dry-run (`planned`) and `skipped` rows are outside that rule, so a
    repository that opts in later, or leaves its dry run, gets the same decision made for real.
    """

    class Status(models.TextChoices):
        PLANNED = "planned", "planned (dry run)"
        PENDING = "pending"
        SENDING = "sending"
        DONE = "done"
        SKIPPED = "skipped"
        FAILED = "failed"

    class Operation(models.TextChoices):
        COMMENT = "comment", "comment (edited in place when the bot's marked comment exists)"
        ADD_LABELS = "add_labels"
        REMOVE_LABEL = "remove_label"
        ASSIGN = "assign"
        UNASSIGN = "unassign"
        CLOSE = "close"
        REOPEN = "reopen"
        EDIT_TITLE = "edit_title"
        LOCK = "lock"
        UNLOCK = "unlock"
        REACT = "react"
        REQUEST_REVIEW = "request_review", "request reviews (a pull request)"

    repository = models.ForeignKey(Repository, on_delete=models.CASCADE, related_name="+")
    issue = models.ForeignKey(Issue, on_delete=models.CASCADE, related_name="github_writes")
    action = models.CharField(max_length=64, help_text="the opt-in it needs: needs_info.ask, ...")
    operation = models.CharField(max_length=16, choices=Operation.choices)
    key = models.CharField(max_length=200, help_text="one row per issue and key")
    payload = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, db_index=True)
    reason = models.TextField(blank=True, default="", help_text="why it was decided")
    decided_by = models.CharField(
        max_length=200, help_text="rule needs-info, model kind 2026.1, alice, @bob on GitHub"
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    model_name = models.CharField(max_length=64, blank=True, default="")
    model_version = models.CharField(max_length=100, blank=True, default="")
    detail = models.TextField(blank=True, default="", help_text="GitHub's answer or the error")
    github_id = models.BigIntegerField(null=True, blank=True, help_text="the comment written")
    attempts = models.PositiveSmallIntegerField(default=0)
    not_before = models.DateTimeField(
        null=True,
        blank=True,
        help_text="not sent before: a rate limit's reset, a retry's turn, a send's lease",
    )
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "triage_githubwrite"  # kept from the triage app (migration automation 0001)
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["issue", "key"],
                condition=models.Q(status__in=["pending", "sending", "done", "failed"]),
                name="github_write_decided_once",
            )
        ]
        indexes = [models.Index(fields=["issue", "operation", "status"])]

    def __str__(self) -> str:
        return f"{self.status} {self.operation} on {self.issue_id} ({self.key})"


class WriteSwitch(models.Model):
    """The one switch that stops every write to GitHub (a single row, name "github")."""

    name = models.CharField(max_length=32, primary_key=True)
    stopped = models.BooleanField(default=False)
    reason = models.CharField(max_length=255, blank=True, default="")
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    changed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "triage_writeswitch"  # kept from the triage app (migration automation 0001)

    def __str__(self) -> str:
        return f"{self.name}: {'stopped' if self.stopped else 'on'}"


class ReplyTemplate(models.Model):
    """A text the service posts on GitHub, editable by maintainers (Django template language)."""

    name = models.CharField(max_length=64, unique=True)
    body = models.TextField()
    help = models.TextField(blank=True, default="", help_text="what it is for, its variables")
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "triage_replytemplate"  # kept from the triage app (migration automation 0001)
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name
