"""The dashboard's own rows: the audit of triagers' actions, saved views, preferences, follows and
each maintainer's inbox."""

from django.conf import settings
from django.db import models
from django.utils import timezone

from triage.models.sources import Issue


class TriageAction(models.Model):
    """The audit log of the dashboard: who did what to which issue, with before and after."""

    issue = models.ForeignKey(
        Issue, null=True, blank=True, on_delete=models.CASCADE, related_name="triage_actions"
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    action = models.CharField(max_length=64, help_text="e.g. prediction.correct, repro.approve")
    github_login = models.CharField(
        max_length=100, blank=True, default="", help_text="a collaborator's comment command"
    )
    before = models.JSONField(default=dict, blank=True)
    after = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.action} on {self.issue_id} by {self.actor_id}"


class SavedView(models.Model):
    """A user's named set of triage-queue filters (the query string of the queue page)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="saved_views"
    )
    name = models.CharField(max_length=100)
    page = models.CharField(max_length=32, default="triage-queue")
    query = models.CharField(max_length=1000, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["user", "page", "name"], name="saved_view_unique")
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.user_id})"


class UserPreference(models.Model):
    """Per-user dashboard settings: the time zone times are shown in."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preference"
    )
    time_zone = models.CharField(max_length=64, default="UTC")
    github_login = models.CharField(
        max_length=39, blank=True, default="", help_text="for 'My issues': assigned or owned"
    )
    inbox_email = models.BooleanField(
        default=False, help_text="e-mail each new inbox item to the user's address"
    )

    def __str__(self) -> str:
        return f"preferences of {self.user_id}"


class IssueFollow(models.Model):
    """A user follows an issue: replies on it reach their inbox."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    issue = models.ForeignKey(Issue, on_delete=models.CASCADE, related_name="followers")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "issue"], name="issuefollow_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} follows {self.issue_id}"


class InboxItem(models.Model):
    """Something that concerns one maintainer (triage.services.inbox): once per what caused it
    (`key`), read or unread, snoozed until a time or until the reporter answers."""

    class Reason(models.TextChoices):
        ASSIGNED = "assigned", "assigned to you"
        MENTIONED = "mentioned", "you were mentioned"
        REPLY = "reply", "a reply on an issue you follow"
        REPRO = "repro", "a reproducer awaits your approval"
        KNOWN_ERROR = "known_error", "a known-error match to confirm"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    issue = models.ForeignKey(Issue, on_delete=models.CASCADE, related_name="+")
    reason = models.CharField(max_length=16, choices=Reason.choices)
    key = models.CharField(max_length=200, help_text="what caused it: one item per key")
    excerpt = models.CharField(max_length=300, blank=True, default="")
    actor = models.CharField(max_length=100, blank=True, default="", help_text="who did it")
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    read_at = models.DateTimeField(null=True, blank=True)
    snoozed_until = models.DateTimeField(null=True, blank=True)
    until_reply = models.BooleanField(default=False, help_text="snoozed until the reporter answers")
    emailed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="inboxitem_unique"),
        ]
        indexes = [models.Index(fields=["user", "read_at", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.key}"
