"""Bulk actions on the triage queue: one decision applied to the selected issues.

Each issue goes through the same service a single click calls (so each is recorded and trains
the models alike), and one TriageAction per issue records the bulk action, what it was given and
what became of it there. An issue the action cannot apply to is refused with why; the others
are done, or, where the write to GitHub was only planned (the repository's dry run), planned.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction

from classifiers import registry
from config import wiring
from triage.models import GitHubWrite, Issue, IssuePrediction, TriageAction
from triage.permissions import ACTION_PERMISSIONS, may
from triage.services import assignment, classification, needs_info, priority
from triage.services.commands import CommandRefused, WriteSkipped

ACTIONS = {
    "accept": "Accept the predictions",
    "duplicate": "Mark duplicate of",
    "priority": "Set priority",
    "assign": "Assign (on GitHub)",
    "unassign": "Unassign (on GitHub)",
    "needinfo": "Ask for information",
    "target": "Target a train",
}
MAX_ISSUES = 100


def actions_for(user) -> dict[str, str]:
    """The bulk actions `user` may take (triage.permissions: the rules of every interface)."""
    return {action: label for action, label in ACTIONS.items() if may(user, action)}


PAGE_MODELS = registry.names(page=True)


class BulkError(ValueError):
    pass


@dataclass
class BulkReport:
    done: list[str] = field(default_factory=list)
    planned: list[str] = field(default_factory=list)  # written to GitHub in a dry run: not done
    refused: list[str] = field(default_factory=list)

    def summary(self) -> str:
        text = f"{len(self.done)} done" if self.done or not self.planned else ""
        if self.planned:
            text += (", " if text else "") + f"{len(self.planned)} planned (dry run)"
        if self.refused:
            text += f", {len(self.refused)} refused: " + "; ".join(self.refused[:5])
        for name, entries in (("Done", self.done), ("Planned", self.planned)):
            if entries:  # which issues: "3 done" alone names none
                refs = [entry.split(": ", 1)[0] for entry in entries]
                more = f" and {len(refs) - 10} more" if len(refs) > 10 else ""
                text += f". {name}: {', '.join(refs[:10])}{more}"
        return text


def _accept(issue: Issue, argument: str, user) -> str:
    open_predictions = IssuePrediction.objects.filter(
        issue=issue, model_name__in=PAGE_MODELS
    ).exclude(label="")
    accepted = []
    for prediction in open_predictions:
        if isinstance(prediction.evidence, dict) and prediction.evidence.get("decided_by"):
            continue
        classification.prediction_correct(
            issue=issue, model_name=prediction.model_name, label=prediction.label, user=user
        )
        accepted.append(f"{prediction.model_name} {prediction.label}")
    if not accepted:
        raise CommandRefused("nothing left to accept")
    return "accepted " + ", ".join(accepted)


def _duplicate(issue: Issue, argument: str, user) -> str:
    reference = argument.strip()
    if reference.startswith("#"):
        reference = f"{issue.repository.full_name}{reference}"
    if reference.lower() == issue.reference.lower():
        raise CommandRefused("an issue is not a duplicate of itself")
    try:
        classification.prediction_correct(
            issue=issue, model_name="duplicates", label=reference, user=user
        )
    except classification.CorrectionError as exc:
        raise CommandRefused(str(exc)) from None
    return f"duplicate of {reference}"


def _priority(issue: Issue, argument: str, user) -> str:
    try:
        correction = priority.priority_override(issue=issue, label=argument, user=user)
    except priority.OverrideError as exc:
        raise CommandRefused(str(exc)) from None
    return f"priority {correction.after or 'auto'}"


def _written(write: GitHubWrite, detail: str) -> tuple[str, str]:
    """(status, detail) of an action that is a write to GitHub: planned in a dry run, else done."""
    return ("planned" if write.status == GitHubWrite.Status.PLANNED else "done"), detail


def _assign(issue: Issue, argument: str, user) -> str:
    try:
        logins = assignment.logins_parse(argument)
    except assignment.AssignmentError as exc:
        raise CommandRefused(str(exc)) from None
    write = assignment.issue_assignees_change(issue=issue, logins=logins, user=user)
    if write.status == write.Status.SKIPPED:
        raise WriteSkipped(write.detail)
    return _written(write, f"assign {', '.join(logins)} ({write.get_status_display()})")


def _unassign(issue: Issue, argument: str, user) -> str:
    """Unassign the logins named, or, with none named, everyone assigned."""
    try:
        logins = (
            assignment.logins_parse(argument)
            if argument
            else list(issue.assignees.values_list("login", flat=True))
        )
    except assignment.AssignmentError as exc:
        raise CommandRefused(str(exc)) from None
    if not logins:
        raise CommandRefused("nobody is assigned")
    write = assignment.issue_assignees_change(issue=issue, logins=logins, user=user, unassign=True)
    if write.status == write.Status.SKIPPED:
        raise WriteSkipped(write.detail)
    return _written(write, f"unassign {', '.join(logins)} ({write.get_status_display()})")


def _needinfo(issue: Issue, argument: str, user) -> str:
    try:
        state = needs_info.needs_info_request(issue=issue, by=user.get_username(), actor=user)
    except needs_info.NothingToAsk as exc:
        raise CommandRefused(str(exc)) from None
    return f"asked for {', '.join(state.missing)}"


def _target(issue: Issue, argument: str, user) -> str:
    handler = wiring.load(wiring.COMMENT_COMMANDS["target"])
    return handler(issue=issue, argument=argument, login="", ref="", user=user)


HANDLERS = {
    "accept": _accept,
    "duplicate": _duplicate,
    "priority": _priority,
    "assign": _assign,
    "unassign": _unassign,
    "needinfo": _needinfo,
    "target": _target,
}


def bulk_apply(*, issue_ids: list[int], action: str, argument: str, user) -> BulkReport:
    """Apply `action` to each open issue of `issue_ids` (at most MAX_ISSUES)."""
    if action not in HANDLERS:
        raise BulkError(f"choose an action: {', '.join(ACTIONS)}")
    if not may(user, action):
        raise BulkError(
            f"{ACTIONS[action].lower()}: you may not (it needs {ACTION_PERMISSIONS[action]})"
        )
    if action in ("duplicate", "priority", "assign", "target") and not argument.strip():
        raise BulkError(f"{ACTIONS[action].lower()}: say what (the field after the action)")
    ids = list(dict.fromkeys(issue_ids))
    if not ids:
        raise BulkError("select at least one issue")
    if len(ids) > MAX_ISSUES:
        raise BulkError(f"at most {MAX_ISSUES} issues at once")
    report = BulkReport()
    issues = Issue.objects.filter(
        pk__in=ids, is_pull_request=False, deleted_at__isnull=True, state=Issue.State.OPEN
    ).select_related("repository", "author")
    for issue in issues:
        try:
            with transaction.atomic():
                try:
                    result = HANDLERS[action](issue, argument.strip(), user)
                    status, detail = result if isinstance(result, tuple) else ("done", result)
                except WriteSkipped as exc:  # the outbox's audit row of the decision stays
                    detail, status = str(exc), "refused"
        except CommandRefused as exc:
            detail, status = str(exc), "refused"
        TriageAction.objects.create(
            issue=issue,
            actor=user,
            action=f"bulk.{action}",
            after={"argument": argument[:200], "status": status, "detail": detail[:500]},
        )
        getattr(report, status).append(f"{issue.reference}: {detail}")
    return report
