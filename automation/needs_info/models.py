"""Needs-info: where the request for missing facts on one issue stands, and its clock."""

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone

from triage.models import Issue


class NeedsInfo(models.Model):
    """Where the request for missing facts on one issue stands, and its clock."""

    class State(models.TextChoices):
        ASKING = "asking", "asked, waiting for the reporter"
        REMINDED = "reminded", "reminded, waiting for the reporter"
        SATISFIED = "satisfied", "the reporter supplied what was missing"
        ANSWERED = "answered", "a maintainer answered: the clock stopped"
        CLOSED = "closed", "closed as not planned"

    issue = models.OneToOneField(Issue, on_delete=models.CASCADE, related_name="needs_info")
    state = models.CharField(max_length=16, choices=State.choices, db_index=True)
    missing = models.JSONField(default=list, blank=True, help_text="what is still missing")
    asked_for = models.JSONField(default=list, blank=True, help_text="what was first asked for")
    revision = models.PositiveIntegerField(default=1, help_text="the comment's edits")
    requested_by = models.CharField(
        max_length=200, blank=True, default="", help_text="'' for the rule; a person's /needinfo"
    )
    asked_at = models.DateTimeField()
    reminded_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(default=timezone.now)
    reporter_words = models.CharField(
        max_length=64,
        blank=True,
        default="",
        help_text="a digest of the reporter's title, body and comments when last read: what is "
        "missing is read again only once the reporter wrote something new",
    )

    class Meta:
        db_table = "triage_needsinfo"  # kept from the triage app (migration automation 0001)
        verbose_name_plural = "needs info"

    def __str__(self) -> str:
        return f"{self.issue_id}: {self.state} ({', '.join(self.missing)})"

    @property
    def waiting(self) -> bool:
        return self.state in (self.State.ASKING, self.State.REMINDED)

    def next_step(self):
        """(what comes next, from when) while waiting: the reminder, then closing; the
        reporter's comments push it later (automation.needs_info.services)."""
        if self.state == self.State.ASKING:
            return "reminder", self.asked_at + timedelta(days=settings.NEEDS_INFO_REMIND_DAYS)
        if self.state == self.State.REMINDED and self.reminded_at:
            return "closing", self.reminded_at + timedelta(days=settings.NEEDS_INFO_CLOSE_DAYS)
        return "", None
