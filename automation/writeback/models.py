"""Label write-back: the audit log of labels applied on GitHub from predictions."""

from django.conf import settings
from django.db import models
from django.utils import timezone

from triage.models import Issue


class LabelWriteback(models.Model):
    """One label the service applied (or, in a dry run, would apply) on GitHub: the audit log."""

    class Status(models.TextChoices):
        PLANNED = "planned", "planned (dry run)"
        APPLIED = "applied"
        SKIPPED = "skipped"
        FAILED = "failed"

    issue = models.ForeignKey(Issue, on_delete=models.CASCADE, related_name="label_writebacks")
    model_name = models.CharField(max_length=64)
    model_version = models.CharField(max_length=64, blank=True, default="")
    label = models.CharField(max_length=255)
    confidence = models.FloatField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices)
    detail = models.TextField(blank=True, default="")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        db_table = "triage_labelwriteback"  # kept from the triage app (migration automation 0001)
        ordering = ["-created_at"]
        constraints = [
            # a label is applied to an issue at most once, ever (a maintainer may remove it)
            models.UniqueConstraint(
                fields=["issue", "label"],
                condition=models.Q(status="applied"),
                name="label_writeback_applied_once",
            )
        ]

    def __str__(self) -> str:
        return f"{self.status} {self.label!r} on {self.issue_id}"
