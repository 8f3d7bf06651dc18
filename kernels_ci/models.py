"""Repro cases (a reproducer extracted from an issue), their runs, and the runners that run them.

A case runs only when `approved_sha256` equals the sha256 of its current script: approval is of
one exact script, and an edited issue (a new script) needs a new approval.
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.db import models
from django.utils import timezone

from classifiers.symptom import LABELS as SYMPTOM_LABELS


def script_sha256(script: str) -> str:
    return hashlib.sha256(script.encode("utf-8")).hexdigest()


# triage's symptom labels (classifiers.symptom): one vocabulary. A reproducer's report names a
# crash, a hang or a wrong result, else "other"; a compile error is a crash whose detail says so.
Symptom = models.TextChoices(
    "Symptom", [(label.upper(), (label, label.replace("_", " "))) for label in SYMPTOM_LABELS]
)


class SymptomDetail(models.TextChoices):
    NONE = "", "none"
    COMPILE_ERROR = "compile_error", "compile error"


class ReproCase(models.Model):
    class Language(models.TextChoices):
        PYTHON = "python"
        HIP = "hip", "HIP C++"
        NONE = "", "none found"

    issue = models.OneToOneField(
        "triage.Issue", on_delete=models.CASCADE, related_name="repro_case"
    )
    script = models.TextField(blank=True, default="")
    sha256 = models.CharField(max_length=64, blank=True, default="")
    language = models.CharField(max_length=16, choices=Language.choices, blank=True, default="")
    uses_triton = models.BooleanField(default=False)
    block_count = models.PositiveIntegerField(default=0, help_text="code blocks in the issue")
    choice_reason = models.CharField(max_length=255, blank=True, default="")
    extraction_problem = models.CharField(
        max_length=255,
        blank=True,
        default="",
        help_text="why nothing was extracted (too large to extract: over a size or time budget)",
    )
    symptom = models.CharField(max_length=16, choices=Symptom.choices, default=Symptom.OTHER)
    symptom_detail = models.CharField(
        max_length=32,
        choices=SymptomDetail.choices,
        blank=True,
        default="",
        help_text="what kind of crash: a compile error (the compiler backends reproduce it)",
    )
    symptom_message = models.TextField(blank=True, default="")
    expected_error = models.JSONField(
        default=dict,
        blank=True,
        help_text="the error the report quotes, normalized (kernels_ci.expectations): a run "
        "reproduces the report only with this failure",
    )
    imports_added = models.BooleanField(
        default=False,
        help_text="the issue's block had a kernel and its launch but no imports: the standard "
        "ones were added to the script (approved and hashed with it)",
    )
    pinned_versions = models.JSONField(
        default=dict,
        blank=True,
        help_text="versions a maintainer asked for (/repro triton=3.1.0), over the reporter's",
    )
    environment = models.JSONField(default=dict, blank=True)
    missing_facts = models.JSONField(default=list, blank=True)
    backend = models.CharField(max_length=32, blank=True, default="")
    archs = models.JSONField(default=list, blank=True, help_text="architectures to run on")
    runs_per_attempt = models.PositiveSmallIntegerField(default=0, help_text="0: the default")
    timeout_s = models.PositiveIntegerField(default=0, help_text="per run; 0: the default")

    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    approved_by_login = models.CharField(max_length=100, blank=True, default="")
    approved_via = models.CharField(max_length=16, blank=True, default="")
    approved_at = models.DateTimeField(null=True, blank=True)
    approved_sha256 = models.CharField(max_length=64, blank=True, default="")
    seen_command_ids = models.JSONField(
        default=list, blank=True, help_text="GitHub ids of /repro comments already acted on"
    )
    extracted_at = models.DateTimeField(default=timezone.now)
    script_changed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-extracted_at"]
        permissions = [("approve_reprocase", "Can approve a repro case's script to run")]

    def __str__(self) -> str:
        return f"repro case of issue {self.issue_id}"

    @property
    def symptom_shown(self) -> str:
        """The reported symptom as people read it: "crash (compile error)"."""
        detail = f" ({self.get_symptom_detail_display()})" if self.symptom_detail else ""
        return f"{self.get_symptom_display()}{detail}"

    @property
    def has_script(self) -> bool:
        return bool(self.script)

    @property
    def is_approved(self) -> bool:
        return bool(self.script) and self.approved_sha256 == self.sha256

    @property
    def needs_reapproval(self) -> bool:
        return bool(self.approved_sha256) and self.approved_sha256 != self.sha256


class ReproRun(models.Model):
    """One attempt of a case on one architecture with one backend: N executions of the script."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        CANCELLED = "cancelled"

    class Outcome(models.TextChoices):
        REPRODUCED = "reproduced"
        FLAKY = "flaky"
        FAILED_DIFFERENTLY = "failed_differently", "failed differently"
        FAILED = "failed", "failed, nothing to compare"
        ENVIRONMENT_MISMATCH = "environment_mismatch", "environment mismatch"
        NOT_REPRODUCED = "not_reproduced", "not reproduced"
        INVALID = "invalid", "invalid reproducer"
        INFRA_ERROR = "infra_error", "infra error"
        CANNOT_OBSERVE = "cannot_observe", "cannot observe"

    class Purpose(models.TextChoices):
        REPRO = "repro"
        VERIFY = "verify", "fix verification"
        NIGHTLY = "nightly"
        BISECT = "bisect", "bisection"

    case = models.ForeignKey(ReproCase, on_delete=models.CASCADE, related_name="runs")
    arch = models.CharField(max_length=16, help_text="gfx arch, or cpu")
    backend = models.CharField(max_length=32)
    attempt = models.PositiveIntegerField()
    purpose = models.CharField(max_length=16, choices=Purpose.choices, default=Purpose.REPRO)
    queue = models.CharField(max_length=64)
    script_sha256 = models.CharField(max_length=64)
    runs_requested = models.PositiveSmallIntegerField(default=5)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    outcome = models.CharField(max_length=32, choices=Outcome.choices, blank=True, default="")
    versions = models.JSONField(
        default=dict,
        blank=True,
        help_text="versions asked for ({'triton': '3.2.0'}); empty: the runner's own (current)",
    )
    ran_versions = models.JSONField(
        default=dict, blank=True, help_text="the versions the attempt ran on"
    )
    bisection = models.ForeignKey(
        "Bisection", null=True, blank=True, on_delete=models.SET_NULL, related_name="runs"
    )
    symptom_runs = models.PositiveSmallIntegerField(default=0)
    signature = models.CharField(max_length=500, blank=True, default="")
    signature_hash = models.CharField(max_length=16, blank=True, default="", db_index=True)
    executions = models.JSONField(default=list, blank=True)
    log = models.TextField(blank=True, default="", help_text="truncated")
    assembly = models.TextField(blank=True, default="", help_text="generated amdgcn, truncated")
    isolation = models.CharField(max_length=255, blank=True, default="")
    detail = models.TextField(blank=True, default="")
    runner_name = models.CharField(max_length=255, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    duration_s = models.FloatField(null=True, blank=True)
    soft_time_limit_s = models.PositiveIntegerField(
        default=0, help_text="the attempt's Celery soft time limit, from its runs and timeout"
    )
    time_limit_s = models.PositiveIntegerField(default=0, help_text="its hard limit (1.2x)")
    commented_at = models.DateTimeField(
        null=True, blank=True, help_text="when its result was posted on the GitHub issue"
    )
    comment_url = models.URLField(max_length=500, blank=True, default="")

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["case", "arch", "backend", "attempt"], name="repro_run_attempt_unique"
            )
        ]
        indexes = [models.Index(fields=["case", "arch", "status"])]

    def __str__(self) -> str:
        return f"run {self.pk} ({self.backend} {self.arch} #{self.attempt})"

    @property
    def is_finished(self) -> bool:
        return self.status == self.Status.DONE

    @property
    def on_current_versions(self) -> bool:
        """Run on the runner's own versions (the current release), not pinned to others."""
        return not self.versions

    @property
    def versions_shown(self) -> str:
        return ", ".join(f"{k} {v}" for k, v in sorted((self.ran_versions or {}).items()))

    @property
    def queue_wait_s(self) -> float | None:
        if self.claimed_at is None:
            return None
        return (self.claimed_at - self.created_at).total_seconds()


class Bisection(models.Model):
    """Which release changed a reproducer's verdict, over the releases of one package between two
    attempts that disagree (the reporter's versions and the current ones): each step an
    ordinary attempt (kernels_ci.bisection decides the next; services.bisection queues it)."""

    class Status(models.TextChoices):
        RUNNING = "running"
        DONE = "done"
        UNDECIDED = "undecided", "could not decide"

    class Direction(models.TextChoices):
        FIXED = "fixed"  # the older release reproduces, the newer passes
        REGRESSED = "regressed"  # the older passes, the newer reproduces

    case = models.ForeignKey(ReproCase, on_delete=models.CASCADE, related_name="bisections")
    arch = models.CharField(max_length=16)
    backend = models.CharField(max_length=32)
    package = models.CharField(max_length=32, default="triton")
    script_sha256 = models.CharField(max_length=64)
    direction = models.CharField(max_length=16, choices=Direction.choices)
    releases = models.JSONField(
        default=list, help_text="the releases from the older end to the newer, both included"
    )
    verdicts = models.JSONField(
        default=dict, help_text="release: bad (reproduced) | good (kernel ran, passed) | skip"
    )
    max_steps = models.PositiveSmallIntegerField(default=0)
    steps = models.PositiveSmallIntegerField(default=0)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RUNNING)
    result = models.TextField(blank=True, default="")
    first_version = models.CharField(max_length=32, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["case", "arch", "backend", "package", "script_sha256"],
                name="bisection_once_per_script",
            )
        ]

    def __str__(self) -> str:
        return f"bisection {self.pk} of case {self.case_id} ({self.backend} {self.arch})"


class Runner(models.Model):
    name = models.CharField(max_length=255, unique=True, help_text="the Celery worker's hostname")
    arch = models.CharField(max_length=16, default="cpu")
    rocm_version = models.CharField(max_length=32, blank=True, default="")
    backends = models.JSONField(default=list, blank=True)
    queues = models.JSONField(default=list, blank=True)
    versions = models.JSONField(
        default=dict, blank=True, help_text="its own versions of the stack: the current ones"
    )
    registered_at = models.DateTimeField(default=timezone.now)
    last_heartbeat_at = models.DateTimeField(null=True, blank=True)
    healthy = models.BooleanField(default=True)
    reason = models.TextField(blank=True, default="", help_text="why it is unhealthy")
    consuming = models.BooleanField(default=True, help_text="takes repro work")

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name
