"""Label write-back to GitHub: the predicted kind and component, as the repository's own labels.

Off by default; a repository opts in with Repository.label_writeback. What is applied:
- the latest triager's decision (PredictionCorrection) for the model, whatever its confidence:
  a human correction is never overwritten by the model;
- otherwise the model's prediction when it did not abstain and its confidence is at least
  settings.CLASSIFIER_WRITEBACK_MIN_CONFIDENCE;
- only to open issues, and only as a label the repository already has that maps to the class
  (label maps of triage/services/training_data.py; "project: X" labels for components): the
  service never creates labels on a maintainer's repository.

Never twice: a label applied once (a LabelWriteback row `applied`, unique per issue and label)
is done for good, so a label a maintainer removed is not added again. An issue that already
carries a label of the same kind (someone labelled it) is left alone.

The switch that stops every write to GitHub (automation.outbox.services.writes_stopped) stops this
too: the run refuses to start (WritebackDisabled) and the automatic step writes nothing.

Every decision is in the audit log (LabelWriteback): planned (dry run), applied, skipped (once
per issue, model and label), failed (the next run tries again: adding a label GitHub already has
changes nothing there). A rate limit stops the run (report.rate_limited); what is done stays.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Prefetch, prefetch_related_objects

from automation.outbox import services as outbox
from automation.writeback.models import LabelWriteback
from classifiers import registry
from triage.models import Issue, IssuePrediction, Label, PredictionCorrection, Repository
from triage.services import training_data
from triage.sources.github import ingest
from triage.sources.github.client import GitHubError, GitHubSource, RateLimited

logger = logging.getLogger(__name__)

WRITEBACK_MODELS = registry.names(writes_labels=True)
Status = LabelWriteback.Status


class WritebackDisabled(Exception):
    """The repository has not opted in to label write-back."""


@dataclass
class Candidate:
    issue: Issue
    model_name: str
    predicted: str  # the class: "bug", "hipblaslt", ...
    label: str  # the repository's label for it ("" when it has none)
    confidence: float | None
    model_version: str
    actor_id: int | None = None
    via: str = ""


@dataclass
class WritebackReport:
    lines: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    rate_limited: RateLimited | None = None  # the run stopped there; the rest is for later

    def note(self, status: str, candidate: Candidate, detail: str) -> None:
        self.counts[status] += 1
        self.lines.append(
            f"{status:<8} {candidate.issue.reference} {candidate.model_name}="
            f"{candidate.predicted} -> label {candidate.label or '-'!r}: {detail}"
        )

    def summary(self) -> str:
        parts = ", ".join(f"{self.counts.get(s, 0)} {s}" for s in Status.values)
        stopped = f"; stopped: {self.rate_limited}" if self.rate_limited else ""
        return f"label write-back: {parts}{stopped}"


# --- which label, if any -------------------------------------------------------------------------


def _mapping(maps: dict, name: str, repository: Repository) -> dict[str, str]:
    return training_data.repository_label_map(maps, name, repository)


def _class_of_label(model_name: str, label: Label, maps: dict, repository: Repository) -> str:
    """The class of `model_name` that a repository label stands for ("" when none)."""
    if model_name == "kind":
        mapped = _mapping(maps, "kind", repository).get(label.name_key)
        return mapped or (label.name_key if label.name_key in registry.entry("kind").labels else "")
    project = training_data.PROJECT_LABEL.match(label.name)
    if project:
        return project.group(1).strip().lower()
    return _mapping(maps, "component", repository).get(label.name_key, "")


def _label_for(model_name, predicted, labels, maps, repository) -> str:
    """The repository label for a class: the one named like it first, then a mapped one."""
    matches = [
        lb for lb in labels if _class_of_label(model_name, lb, maps, repository) == predicted
    ]
    matches.sort(key=lambda lb: (lb.name_key != predicted.lower(), lb.name_key))
    return matches[0].name if matches else ""


# --- planning ------------------------------------------------------------------------------------


def _latest_corrections(issue_ids: list[int]) -> dict[tuple[int, str], PredictionCorrection]:
    latest = {}
    rows = PredictionCorrection.objects.filter(
        issue_id__in=issue_ids, model_name__in=WRITEBACK_MODELS
    ).order_by("created_at", "id")
    for row in rows.select_related("user"):
        latest[(row.issue_id, row.model_name)] = row
    return latest


def _candidates(repository: Repository, issues: list[Issue], threshold: float) -> list[Candidate]:
    maps = training_data.label_maps()
    labels = list(Label.objects.filter(repository=repository))
    corrections = _latest_corrections([issue.pk for issue in issues])
    found = []
    for issue in issues:
        predictions = {p.model_name: p for p in issue.predictions.all()}
        for model_name in WRITEBACK_MODELS:
            correction = corrections.get((issue.pk, model_name))
            prediction = predictions.get(model_name)
            if correction is not None:
                who = correction.user.get_username() if correction.user else "a triager"
                predicted, confidence = correction.after, None
                version, actor_id, via = correction.model_version, correction.user_id, who
            elif (
                prediction is not None
                and prediction.label
                and not prediction.needs_triage
                and prediction.confidence >= threshold
            ):
                predicted, confidence = prediction.label, prediction.confidence
                version, actor_id = prediction.model_version, None
                via = f"model {model_name} {prediction.model_version}".strip()
            else:
                continue
            found.append(
                Candidate(
                    issue=issue,
                    model_name=model_name,
                    predicted=predicted,
                    label=_label_for(model_name, predicted, labels, maps, repository),
                    confidence=confidence,
                    model_version=version[:64],
                    actor_id=actor_id,
                    via=via,
                )
            )
    return found


def _skip_reason(candidate: Candidate, maps: dict, repository: Repository) -> str:
    if not candidate.label:
        return (
            f"{repository.full_name} has no label for {candidate.model_name} "
            f"{candidate.predicted!r} (labels are never created)"
        )
    on_issue = list(candidate.issue.labels.all())
    if any(lb.name_key == candidate.label.lower() for lb in on_issue):
        return "already on the issue"
    same_kind = [
        lb.name for lb in on_issue if _class_of_label(candidate.model_name, lb, maps, repository)
    ]
    if same_kind:
        return f"already labelled {', '.join(same_kind)} on GitHub"
    return ""


def _issues(repository: Repository, issue_ids: list[int] | None) -> list[Issue]:
    query = Issue.objects.filter(
        repository=repository, is_pull_request=False, deleted_at__isnull=True, state="open"
    )
    if issue_ids is not None:
        query = query.filter(pk__in=issue_ids)
    return list(
        query.select_related("repository")
        .prefetch_related(
            "labels",
            Prefetch(
                "predictions",
                queryset=IssuePrediction.objects.filter(model_name__in=WRITEBACK_MODELS),
            ),
        )
        .order_by("-updated_at", "-pk")
    )


# --- doing ---------------------------------------------------------------------------------------


def _audit(candidate: Candidate, status: str, detail: str) -> LabelWriteback:
    return LabelWriteback.objects.create(
        issue=candidate.issue,
        model_name=candidate.model_name,
        model_version=candidate.model_version,
        label=candidate.label or candidate.predicted,
        confidence=candidate.confidence,
        status=status,
        detail=detail[:2000],
        actor_id=candidate.actor_id,
    )


def _mirror(issue: Issue, labels: list | None) -> None:
    """Put GitHub's answer (the issue's labels now) on our copy, without a pipeline run."""
    if not isinstance(labels, list):
        return
    pks = ingest.labels_upsert(repository=issue.repository, labels=labels)
    Issue.labels.through.objects.bulk_create(
        [Issue.labels.through(issue_id=issue.pk, label_id=pk) for pk in pks.values()],
        ignore_conflicts=True,
    )


def _apply(candidate: Candidate, source: GitHubSource, origin: str) -> tuple[str, str]:
    """Claim (the applied row is unique per issue and label), then add the label on GitHub."""
    try:
        with transaction.atomic():
            row = _audit(candidate, Status.APPLIED, f"applying ({origin}, {candidate.via})")
    except IntegrityError:
        return "", "applied already"
    issue = candidate.issue
    try:
        page = source.post(
            f"/repos/{issue.repository.full_name}/issues/{issue.number}/labels",
            {"labels": [candidate.label]},
        )
    except GitHubError as exc:
        row.status, row.detail = Status.FAILED, f"{origin}: {exc}"[:2000]
        row.save(update_fields=["status", "detail"])
        if isinstance(exc, RateLimited):
            raise
        return Status.FAILED, str(exc)
    row.detail = f"{origin}, {candidate.via}"
    row.save(update_fields=["detail"])
    _mirror(issue, page.items)
    return Status.APPLIED, row.detail


def labels_writeback(
    *,
    repository: Repository | None = None,
    issue_ids: list[int] | None = None,
    dry_run: bool = False,
    limit: int | None = None,
    origin: str = "writeback_labels",
    source: GitHubSource | None = None,
) -> WritebackReport:
    """Apply (or with dry_run, list) the labels due on open issues of opted-in repositories.

    `repository`: only that one (a dry run works whether it opted in or not); `issue_ids`:
    only those issues (the automatic step after classification); `limit`: at most this many
    labels planned or applied.
    """
    stopped = "" if dry_run else outbox.writes_stopped()
    if stopped:  # the one switch stops label write-back too
        raise WritebackDisabled(stopped)
    if repository is not None and not repository.on_github:
        raise WritebackDisabled(f"{repository.full_name} is not a GitHub repository")
    if repository is not None and not dry_run and not repository.label_writeback:
        raise WritebackDisabled(
            f"label write-back is off for {repository.full_name}: turn it on in the admin "
            "(Repository, label write-back) or use --dry-run to see what it would do"
        )
    if repository is not None:
        repositories = [repository]
    else:
        repositories = list(
            Repository.objects.on_github().filter(label_writeback=True, tracked=True)
        )
    threshold = float(settings.CLASSIFIER_WRITEBACK_MIN_CONFIDENCE)
    report = WritebackReport()
    source = None if dry_run else (source or GitHubSource())
    budget = limit
    maps = training_data.label_maps()
    prefetch_related_objects(repositories, "former_names")  # the names its label maps are for
    for repo in repositories:
        candidates = _candidates(repo, _issues(repo, issue_ids), threshold)
        if not candidates:
            continue
        ids = {c.issue.pk for c in candidates}
        applied = {
            (issue_id, label.lower())
            for issue_id, label in LabelWriteback.objects.filter(
                issue_id__in=ids, status=Status.APPLIED
            ).values_list("issue_id", "label")
        }
        skipped = set(
            LabelWriteback.objects.filter(issue_id__in=ids, status=Status.SKIPPED).values_list(
                "issue_id", "model_name", "label", "detail"
            )
        )
        for candidate in candidates:
            if (candidate.issue.pk, (candidate.label or candidate.predicted).lower()) in applied:
                continue  # done once; if a maintainer removed it, it stays removed
            reason = _skip_reason(candidate, maps, repo)
            if reason == "already on the issue":
                continue
            if reason:
                key = (
                    candidate.issue.pk,
                    candidate.model_name,
                    candidate.label or candidate.predicted,
                )
                if (*key, reason) not in skipped:
                    _audit(candidate, Status.SKIPPED, reason)
                    skipped.add((*key, reason))
                report.note(Status.SKIPPED, candidate, reason)
                continue
            if budget is not None and budget <= 0:
                return report
            if dry_run:
                detail = f"dry run: would add {candidate.label!r} ({candidate.via})"
                _audit(candidate, Status.PLANNED, detail)
                report.note(Status.PLANNED, candidate, detail)
            else:
                try:
                    status, detail = _apply(candidate, source, origin)
                except RateLimited as exc:
                    report.note(Status.FAILED, candidate, str(exc))
                    report.rate_limited = exc
                    return report
                if not status:
                    continue
                report.note(status, candidate, detail)
            if budget is not None:
                budget -= 1
    return report
