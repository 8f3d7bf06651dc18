"""Comment commands (`/kind bug`) read from collaborators' comments, each acted on once."""

from django.db import models
from django.utils import timezone

from triage.models import Comment, Issue


class CommentCommand(models.Model):
    """A command read from a comment (`/kind bug`), acted on once: what it did or why not."""

    class Status(models.TextChoices):
        DONE = "done"
        REFUSED = "refused"

    comment = models.ForeignKey(Comment, on_delete=models.CASCADE, related_name="commands")
    issue = models.ForeignKey(Issue, on_delete=models.CASCADE, related_name="commands")
    line = models.CharField(max_length=300, help_text="the command as written")
    command = models.CharField(max_length=32)
    login = models.CharField(max_length=100)
    association = models.CharField(max_length=32, blank=True, default="")
    status = models.CharField(max_length=16, choices=Status.choices)
    detail = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "triage_commentcommand"  # kept from the triage app (migration automation 0001)
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["comment", "line"], name="comment_command_once")
        ]

    def __str__(self) -> str:
        return f"{self.line!r} by {self.login}: {self.status}"
