"""Release series and their overrides, fix links, targets, punts and backports.

Trains are not rows: releases.calendar computes them from a series and its overrides. Rows that
belong to a train name it by (series, version "X.Y").
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from releases import calendar
from releases.linking import DEFAULT_RELEASE_BRANCH_PATTERNS


def default_release_branch_patterns() -> list[str]:
    return list(DEFAULT_RELEASE_BRANCH_PATTERNS)


class ReleaseSeries(models.Model):
    name = models.SlugField(max_length=50, unique=True, help_text="e.g. rocm")
    title = models.CharField(max_length=100, blank=True, default="")
    epoch_version = models.CharField(max_length=20, help_text="MAJOR.MINOR of the first train")
    epoch_date = models.DateField(help_text="GA date of the first train")
    cadence_days = models.PositiveSmallIntegerField(default=42)
    time_zone = models.CharField(max_length=64, default="UTC", help_text="IANA name, or AoE")
    branch_cut_days = models.PositiveSmallIntegerField(default=14, help_text="days before GA")
    code_freeze_days = models.PositiveSmallIntegerField(default=14, help_text="days before GA")
    rc_days = models.PositiveSmallIntegerField(default=7, help_text="days before GA")
    version_suffix = models.CharField(
        max_length=10, blank=True, default="", help_text='shown after X.Y (".0" gives 7.3.0)'
    )
    release_branch_patterns = models.JSONField(
        default=default_release_branch_patterns,
        blank=True,
        help_text="X and Y stand for the major and minor number",
    )
    backport_second_approver = models.BooleanField(
        default=False,
        help_text="a backport nominated by a release manager needs another one's approval",
    )
    repositories = models.ManyToManyField(
        "triage.Repository",
        blank=True,
        related_name="release_series",
        help_text="repositories that ship in this series (none: every repository)",
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "release series"
        ordering = ["name"]
        permissions = [
            ("manage_trains", "Can manage trains: targets, punts, fix links, RC tags, notes"),
        ]

    def __str__(self) -> str:
        return self.title or self.name

    def train(self, version: str) -> calendar.Train:
        """Its train of that version ('7.3' or '7.3.0'); CalendarError when it has none."""
        train = calendar.train_get(self.spec(), version)
        if train is None:
            raise calendar.CalendarError(f"{self.name} has no train {version}")
        return train

    def spec(self) -> calendar.SeriesSpec:
        overrides = tuple(
            calendar.Override(
                slot=o.slot,
                skip=o.skip,
                release=o.release_date,
                branch_cut=o.branch_cut_date,
                code_freeze=o.code_freeze_date,
                rc=o.rc_date,
                version=o.version,
                note=o.note,
            )
            for o in self.overrides.order_by("slot")
        )
        return calendar.SeriesSpec(
            name=self.name,
            epoch_version=self.epoch_version,
            epoch_date=self.epoch_date,
            cadence_days=self.cadence_days,
            time_zone=self.time_zone,
            branch_cut_days=self.branch_cut_days,
            code_freeze_days=self.code_freeze_days,
            rc_days=self.rc_days,
            version_suffix=self.version_suffix,
            overrides=overrides,
        )


class TrainOverride(models.Model):
    series = models.ForeignKey(ReleaseSeries, on_delete=models.CASCADE, related_name="overrides")
    slot = models.DateField(help_text="the slot's scheduled GA date (epoch + n × cadence)")
    skip = models.BooleanField(default=False, help_text="no train in this slot")
    release_date = models.DateField(null=True, blank=True, help_text="slipped GA date")
    branch_cut_date = models.DateField(null=True, blank=True)
    code_freeze_date = models.DateField(null=True, blank=True)
    rc_date = models.DateField(null=True, blank=True)
    version = models.CharField(
        max_length=20, blank=True, default="", help_text='restart numbering: "8.0" (a new major)'
    )
    note = models.CharField(max_length=255, blank=True, default="")

    class Meta:
        ordering = ["series", "slot"]
        constraints = [
            models.UniqueConstraint(fields=["series", "slot"], name="train_override_slot_unique")
        ]

    def __str__(self) -> str:
        return f"{self.series.name} slot {self.slot}"


class FixLink(models.Model):
    """Pull request → the issue it fixes, and the train that ships it."""

    class Source(models.TextChoices):
        PARSED = "parsed", "closing keyword"
        MANUAL = "manual", "added by a maintainer"

    class Via(models.TextChoices):
        DEFAULT_BRANCH = "default_branch"
        RELEASE_BRANCH = "release_branch"
        OTHER_BRANCH = "other_branch"
        NONE = "", "no train"

    issue = models.ForeignKey("triage.Issue", on_delete=models.CASCADE, related_name="fix_links")
    pull_request = models.ForeignKey(
        "triage.Issue", on_delete=models.CASCADE, related_name="fixes_links"
    )
    source = models.CharField(max_length=16, choices=Source.choices)
    removed = models.BooleanField(
        default=False, help_text="a maintainer removed it: parsing never brings it back"
    )
    keyword = models.CharField(max_length=16, blank=True, default="")
    merge_commit_sha = models.CharField(max_length=64, blank=True, default="")
    base_ref = models.CharField(max_length=255, blank=True, default="")
    merged_at = models.DateTimeField(null=True, blank=True)
    series = models.ForeignKey(
        ReleaseSeries, null=True, blank=True, on_delete=models.SET_NULL, related_name="fix_links"
    )
    train_version = models.CharField(max_length=20, blank=True, default="", db_index=True)
    via = models.CharField(max_length=20, choices=Via.choices, blank=True, default="")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["issue", "pull_request"]
        constraints = [
            models.UniqueConstraint(fields=["issue", "pull_request"], name="fix_link_unique")
        ]
        indexes = [models.Index(fields=["series", "train_version"])]

    def __str__(self) -> str:
        return f"{self.pull_request_id} fixes {self.issue_id}"


class TrainTarget(models.Model):
    """Release-side state of an issue in a series: its target train and flags ("blocker", ...).

    Flags are labels the release manager adds without touching GitHub; they count like labels."""

    issue = models.ForeignKey("triage.Issue", on_delete=models.CASCADE, related_name="targets")
    series = models.ForeignKey(ReleaseSeries, on_delete=models.CASCADE, related_name="targets")
    train_version = models.CharField(max_length=20, blank=True, default="")
    flags = models.JSONField(default=list, blank=True)
    note = models.CharField(max_length=255, blank=True, default="")
    set_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["series", "train_version", "issue"]
        constraints = [
            models.UniqueConstraint(fields=["issue", "series"], name="train_target_unique")
        ]

    def __str__(self) -> str:
        return f"{self.issue_id} → {self.series.name} {self.train_version}"


class Punt(models.Model):
    """An open issue moved from a train to the next one at branch cut."""

    issue = models.ForeignKey("triage.Issue", on_delete=models.CASCADE, related_name="punts")
    series = models.ForeignKey(ReleaseSeries, on_delete=models.CASCADE, related_name="punts")
    from_version = models.CharField(max_length=20)
    to_version = models.CharField(max_length=20)
    reason = models.CharField(max_length=255, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["issue", "series", "from_version"], name="punt_once_per_train"
            )
        ]

    def __str__(self) -> str:
        return f"{self.issue_id}: {self.from_version} → {self.to_version}"


class Backport(models.Model):
    """A fix nominated for an earlier (already cut) train."""

    class State(models.TextChoices):
        NOMINATED = "nominated"
        APPROVED = "approved"
        REJECTED = "rejected"
        MERGED = "merged"

    issue = models.ForeignKey("triage.Issue", on_delete=models.CASCADE, related_name="backports")
    series = models.ForeignKey(ReleaseSeries, on_delete=models.CASCADE, related_name="backports")
    train_version = models.CharField(max_length=20)
    state = models.CharField(max_length=16, choices=State.choices, default=State.NOMINATED)
    automatic = models.BooleanField(default=False)
    reason = models.CharField(max_length=255, blank=True, default="")
    nominated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="backports_nominated",
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="backports_decided",
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    merged_pull_request = models.ForeignKey(
        "triage.Issue", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["series", "train_version", "issue"]
        permissions = [("approve_backport", "Can approve or reject backport nominations")]
        constraints = [
            models.UniqueConstraint(
                fields=["issue", "series", "train_version"], name="backport_unique"
            )
        ]

    def __str__(self) -> str:
        return f"backport of {self.issue_id} to {self.series.name} {self.train_version}"


class TrainSnapshot(models.Model):
    """One day of a train's burndown: what was open and targeted at it at the end of that day.

    The beat task records today's row (source=recorded, updated through the day); days before
    the first recording are reconstructed from timestamps by releases.history when read."""

    series = models.ForeignKey(ReleaseSeries, on_delete=models.CASCADE, related_name="snapshots")
    train_version = models.CharField(max_length=20)
    day = models.DateField(help_text="a day in the series' time zone")
    open_issues = models.PositiveIntegerField(default=0)
    open_blockers = models.PositiveIntegerField(default=0)
    open_regressions = models.PositiveIntegerField(default=0)
    fixed = models.PositiveIntegerField(default=0, help_text="issues with a fix on the train")
    issue_ids = models.JSONField(default=list, blank=True, help_text="the open issues counted")
    recorded_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["series", "train_version", "day"]
        constraints = [
            models.UniqueConstraint(
                fields=["series", "train_version", "day"], name="train_snapshot_day_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.series.name} {self.train_version} {self.day}: {self.open_issues} open"


class ReleaseCandidate(models.Model):
    """A release candidate tagged for a train: its fixes get their repro verification re-run."""

    series = models.ForeignKey(ReleaseSeries, on_delete=models.CASCADE, related_name="candidates")
    train_version = models.CharField(max_length=20)
    tag = models.CharField(max_length=100, help_text="e.g. rocm-7.9.0-rc1")
    tagged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    tagged_at = models.DateTimeField(default=timezone.now)
    verification_requested = models.PositiveIntegerField(
        default=0, help_text="fixed issues whose verification was requested"
    )

    class Meta:
        ordering = ["series", "train_version", "-tagged_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["series", "train_version", "tag"], name="release_candidate_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.series.name} {self.train_version} {self.tag}"


class ReleaseNotesDraft(models.Model):
    """The release manager's edited release notes of a train (Markdown); export uses it."""

    series = models.ForeignKey(ReleaseSeries, on_delete=models.CASCADE, related_name="notes")
    train_version = models.CharField(max_length=20)
    text = models.TextField()
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["series", "train_version"]
        constraints = [
            models.UniqueConstraint(
                fields=["series", "train_version"], name="release_notes_draft_unique"
            )
        ]

    def __str__(self) -> str:
        return f"release notes of {self.series.name} {self.train_version}"
