"""Known errors: their patterns and answers, and the issues that match them."""

from django.db import models
from django.utils import timezone

from triage.models import Issue


class KnownError(models.Model):
    """A known error: its pattern, the conditions on the reporter's environment, the canonical
    issue that collects its reports, and the answer (automation.known_errors.services)."""

    name = models.CharField(max_length=100, unique=True)
    pattern = models.CharField(
        max_length=500, help_text="RE2 pattern (linear time) looked for in the title and body"
    )
    when_unsupported = models.BooleanField(
        default=False,
        help_text="only when the reported gfx target is not supported by the reported ROCm "
        "release on that platform (the support matrix)",
    )
    targets = models.CharField(
        max_length=300, blank=True, default="", help_text="only these gfx targets (comma list)"
    )
    canonical = models.ForeignKey(
        Issue, on_delete=models.PROTECT, related_name="known_error_signatures"
    )
    answer = models.TextField(help_text="template: {{ reporter }}, {{ target }}, {{ canonical }}")
    enabled = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "triage_knownerror"  # kept from the triage app (migration automation 0001)
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class KnownErrorMatch(models.Model):
    """An issue that matches a known error: the proposal, and what a triager or the rule did."""

    class State(models.TextChoices):
        PROPOSED = "proposed"
        ANSWERED = "answered"
        DISMISSED = "dismissed"

    signature = models.ForeignKey(KnownError, on_delete=models.CASCADE, related_name="matches")
    issue = models.ForeignKey(Issue, on_delete=models.CASCADE, related_name="known_errors")
    state = models.CharField(max_length=16, choices=State.choices, default=State.PROPOSED)
    evidence = models.CharField(max_length=300, blank=True, default="")
    target = models.CharField(max_length=20, blank=True, default="")
    rocm_version = models.CharField(max_length=20, blank=True, default="")
    decided_by = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "triage_knownerrormatch"  # kept from the triage app (migration automation 0001)
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["signature", "issue"], name="known_error_match_once")
        ]

    def __str__(self) -> str:
        return f"{self.issue_id} ~ {self.signature_id} ({self.state})"
