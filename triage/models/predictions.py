"""What the models predicted for an issue, what triagers decided instead, and its priority."""

from django.db import models
from django.utils import timezone

from triage.models.sources import Issue


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
