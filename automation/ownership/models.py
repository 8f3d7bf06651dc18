"""Ownership: who owns which issues and files, and the audit of routing and escalation."""

from django.db import models
from django.utils import timezone

from triage.models import Issue, Repository


class OwnershipRule(models.Model):
    """CODEOWNERS-like: issues of a component, GPU family or label belong to these owners."""

    class Kind(models.TextChoices):
        COMPONENT = "component", "component (the prediction or a triager's decision)"
        GPU_FAMILY = "gpu_family", "GPU family (CDNA3, RDNA3 ...: the reported gfx targets')"
        LABEL = "label", "label on GitHub"
        PATH = "path", "pull-request path (a CODEOWNERS pattern of the changed files)"

    repository = models.ForeignKey(
        Repository,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="ownership_rules",
        help_text="empty: every repository",
    )
    kind = models.CharField(max_length=16, choices=Kind.choices)
    pattern = models.CharField(
        max_length=255,
        help_text="the value, case-insensitive; * and ? as in file names. A path: as in "
        "CODEOWNERS (/docs/, *.md, src/**/kernels/), case-sensitive",
    )
    owners = models.CharField(
        max_length=500,
        blank=True,
        help_text="GitHub users and teams: @alice @ROCm/hip-maintainers (a path rule may name "
        "none: those files have no owners, as in CODEOWNERS)",
    )
    order = models.PositiveIntegerField(default=100, help_text="later rules win, as in CODEOWNERS")

    class Meta:
        db_table = "triage_ownershiprule"  # kept from the triage app (migration automation 0001)
        ordering = ["order", "id"]

    def __str__(self) -> str:
        return f"{self.kind} {self.pattern} -> {self.owners}"

    def owner_list(self) -> list[str]:
        return [o.lstrip("@") for o in self.owners.replace(",", " ").split() if o.strip("@")]


class OwnerNotification(models.Model):
    """Owners routed to, or escalated to, once per issue and kind (the audit of alerts)."""

    class Kind(models.TextChoices):
        ROUTED = "routed"
        ESCALATED_NEW = "escalated_new", "escalated: new critical issue or regression"
        ESCALATED_OVERDUE = "escalated_overdue", "escalated: past its response deadline"

    issue = models.ForeignKey(Issue, on_delete=models.CASCADE, related_name="owner_notifications")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    owners = models.JSONField(default=list, blank=True)
    rule = models.CharField(max_length=300, blank=True, default="")
    channels = models.JSONField(default=list, blank=True, help_text="e-mail, webhook: sent to")
    detail = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = (
            "triage_ownernotification"  # kept from the triage app (migration automation 0001)
        )
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["issue", "kind"], name="owner_notification_once")
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.issue_id} -> {', '.join(self.owners)}"
