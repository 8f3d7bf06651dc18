"""Bulk actions on the triage queue: one decision applied to the selected issues.

Each issue goes through the same service a single click calls (so each is recorded and trains
the models alike), and one TriageAction per issue records the bulk action, what it was given and
what became of it there. An issue the action cannot apply to is refused with why; the others
are done, or, where the write to GitHub was only planned (the repository's dry run), planned.

A preview runs the very same services in a transaction that is rolled back: it says exactly
what each issue would get and which writes to GitHub would be made (or skipped, or only
planned), and nothing of it stays, nor is anything sent. An applied bulk action is one batch
(TriageAction.after["batch"]) its author can undo within classification.UNDO_WINDOW: decisions
are taken back (each still the latest of its model), assignments reversed through the outbox,
train targets restored; an ask for information, once posted, is not taken back.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from automation.acts import assignment
from automation.acts import services as issue_acts
from automation.commands.services import CommandRefused, WriteSkipped
from automation.needs_info import services as needs_info
from automation.outbox import services as outbox
from automation.outbox.models import GitHubWrite
from classifiers import registry
from config import wiring
from triage.models import Issue, IssuePrediction, PredictionCorrection, TriageAction
from triage.permissions import ACTION_PERMISSIONS, may
from triage.services import classification, priority

ACTIONS = {
    "accept": "Accept the predictions",
    "duplicate": "Mark duplicate of",
    "priority": "Set priority",
    "assign": "Assign (on GitHub)",
    "unassign": "Unassign (on GitHub)",
    "needinfo": "Ask for information",
    "close": "Close (on GitHub)",
    "label": "Add labels (on GitHub)",
    "unlabel": "Remove labels (on GitHub)",
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
    batch: str = ""
    preview: bool = False
    # a preview's rows: (issue reference, would be: done | planned | refused, detail, [writes])
    rows: list[tuple[str, str, str, list[str]]] = field(default_factory=list)

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


def _undo_info(action: str, issue: Issue, *, last_correction: int, last_action: int) -> dict:
    """What undoing this action on `issue` needs, read from what the action just recorded."""
    if action in ("accept", "duplicate", "priority"):
        return {
            "corrections": list(
                PredictionCorrection.objects.filter(
                    issue=issue, pk__gt=last_correction
                ).values_list("pk", flat=True)
            )
        }
    if action in ("assign", "unassign"):
        write = (
            GitHubWrite.objects.filter(issue=issue, action="dashboard.assign")
            .order_by("-pk")
            .first()
        )
        return {"assignees": (write.payload or {}).get("assignees", []) if write else []}
    if action in ("label", "unlabel"):
        row = (
            TriageAction.objects.filter(issue=issue, action="issue.labels", pk__gt=last_action)
            .order_by("-pk")
            .first()
        )
        return {"labels": (row.after or {}).get("remove" if action == "unlabel" else "add", [])}
    if action == "close":
        return {"reopen": True}
    if action == "target":
        row = (
            TriageAction.objects.filter(issue=issue, action="train.target", pk__gt=last_action)
            .order_by("-pk")
            .first()
        )
        if row is None:
            return {}
        after = row.after or {}
        return {
            "series": after.get("series", ""),
            "train": (row.before or {}).get("train", ""),  # before the bulk action
            "after_train": after.get("train", ""),
        }
    return {}


def _acted(writes, detail: str):
    writes = writes if isinstance(writes, list) else [writes]
    skipped = [w for w in writes if w.status == GitHubWrite.Status.SKIPPED]
    if skipped:
        raise WriteSkipped(skipped[0].detail)
    planned = all(w.status == GitHubWrite.Status.PLANNED for w in writes)
    return ("planned" if planned else "done"), detail


def _close(issue: Issue, argument: str, user):
    """Argument: empty or "completed", "not planned", "duplicate #N"."""
    reason, duplicate_of = issue_acts.close_argument(argument)
    try:
        writes = issue_acts.issue_close(
            issue=issue, reason=reason, user=user, duplicate_of=duplicate_of
        )
    except issue_acts.ActRefused as exc:
        raise CommandRefused(str(exc)) from None
    return _acted(writes, f"close as {issue_acts.CLOSE_REASONS[reason]}")


def _labels(remove: bool):
    def handle(issue: Issue, argument: str, user):
        try:
            labels, writes = issue_acts.labels_named_change(
                issue=issue, text=argument, remove=remove, user=user
            )
        except issue_acts.ActRefused as exc:
            raise CommandRefused(str(exc)) from None
        names = ", ".join(label.name for label in labels)
        return _acted(writes, f"{'remove' if remove else 'add'} {names}")

    return handle


HANDLERS = {
    "accept": _accept,
    "duplicate": _duplicate,
    "priority": _priority,
    "assign": _assign,
    "unassign": _unassign,
    "needinfo": _needinfo,
    "close": _close,
    "label": _labels(remove=False),
    "unlabel": _labels(remove=True),
    "target": _target,
}


class _Preview(Exception):
    """Raised at the end of a preview to roll everything it did back."""


def bulk_apply(
    *, issue_ids: list[int], action: str, argument: str, user, preview: bool = False
) -> BulkReport:
    """Apply `action` to each open issue of `issue_ids` (at most MAX_ISSUES); with `preview`,
    say what it would do and keep nothing."""
    if not preview:
        return _bulk_apply(issue_ids=issue_ids, action=action, argument=argument, user=user)
    report = None
    try:
        with transaction.atomic():
            report = _bulk_apply(
                issue_ids=issue_ids, action=action, argument=argument, user=user, preview=True
            )
            raise _Preview
    except _Preview:
        pass
    report.preview = True
    return report


def _bulk_apply(
    *, issue_ids: list[int], action: str, argument: str, user, preview: bool = False
) -> BulkReport:
    if action not in HANDLERS:
        raise BulkError(f"choose an action: {', '.join(ACTIONS)}")
    if not may(user, action):
        raise BulkError(
            f"{ACTIONS[action].lower()}: you may not (it needs {ACTION_PERMISSIONS[action]})"
        )
    if action in ("duplicate", "priority", "assign", "target", "label", "unlabel") and not (
        argument.strip()
    ):
        raise BulkError(f"{ACTIONS[action].lower()}: say what (the field after the action)")
    ids = list(dict.fromkeys(issue_ids))
    if not ids:
        raise BulkError("select at least one issue")
    if len(ids) > MAX_ISSUES:
        raise BulkError(f"at most {MAX_ISSUES} issues at once")
    report = BulkReport(batch=uuid.uuid4().hex)
    issues = Issue.objects.filter(
        pk__in=ids, is_pull_request=False, deleted_at__isnull=True, state=Issue.State.OPEN
    ).select_related("repository", "author")
    for issue in issues:
        last_correction = _last_pk(PredictionCorrection)
        last_action = _last_pk(TriageAction)
        last_write = _last_pk(GitHubWrite)
        undo = {}
        try:
            with transaction.atomic():
                try:
                    result = HANDLERS[action](issue, argument.strip(), user)
                    status, detail = result if isinstance(result, tuple) else ("done", result)
                    undo = _undo_info(
                        action, issue, last_correction=last_correction, last_action=last_action
                    )
                except WriteSkipped as exc:  # the outbox's audit row of the decision stays
                    detail, status = str(exc), "refused"
        except CommandRefused as exc:
            detail, status = str(exc), "refused"
        TriageAction.objects.create(
            issue=issue,
            actor=user,
            action=f"bulk.{action}",
            after={
                "argument": argument[:200],
                "status": status,
                "detail": detail[:500],
                "batch": report.batch,
                "undo": undo,
            },
        )
        getattr(report, status).append(f"{issue.reference}: {detail}")
        if preview:
            writes = GitHubWrite.objects.filter(issue=issue, pk__gt=last_write).select_related(
                "issue__repository", "repository"
            )
            said = [f"{outbox.describe(w)} ({w.get_status_display()})" for w in writes]
            report.rows.append((issue.reference, status, detail, said))
    return report


def _last_pk(model) -> int:
    return model.objects.order_by("-pk").values_list("pk", flat=True).first() or 0


UNDONE = "bulk.undo"


def last_batch(*, user) -> dict | None:
    """The user's latest bulk batch that can still be undone: {batch, action, label, issues}."""
    since = timezone.now() - classification.UNDO_WINDOW
    row = (
        TriageAction.objects.filter(actor=user, action__startswith="bulk.", created_at__gte=since)
        .exclude(action=UNDONE)
        .order_by("-pk")
        .first()
    )
    batch = (row.after or {}).get("batch") if row else None
    if not batch or TriageAction.objects.filter(action=UNDONE, after__batch=batch).exists():
        return None
    action = row.action.removeprefix("bulk.")
    rows = TriageAction.objects.filter(action=row.action, after__batch=batch)
    taken = [r for r in rows if (r.after or {}).get("status") in ("done", "planned")]
    if not taken or action == "needinfo":
        return None
    return {"batch": batch, "action": action, "label": ACTIONS[action], "issues": len(taken)}


def bulk_undo(*, batch: str, user) -> BulkReport:
    """Undo what the user's bulk batch did, issue by issue, as far as it can be undone."""
    since = timezone.now() - classification.UNDO_WINDOW
    rows = list(
        TriageAction.objects.filter(actor=user, action__startswith="bulk.", after__batch=batch)
        .exclude(action=UNDONE)
        .select_related("issue__repository")
    )
    if not rows:
        raise BulkError("no bulk action of yours to undo")
    if TriageAction.objects.filter(action=UNDONE, after__batch=batch).exists():
        raise BulkError("this bulk action was undone already")
    if any(row.created_at < since for row in rows):
        minutes = int(classification.UNDO_WINDOW.total_seconds() // 60)
        raise BulkError(f"a bulk action can be undone within {minutes} minutes")
    report = BulkReport(batch=batch)
    for row in rows:
        issue, after = row.issue, row.after or {}
        action = row.action.removeprefix("bulk.")
        if after.get("status") not in ("done", "planned"):
            continue
        try:
            with transaction.atomic():
                detail = _undo_one(action, issue, after.get("undo") or {}, user)
            status = "done"
        except (CommandRefused, classification.UndoError) as exc:
            detail, status = str(exc), "refused"
        TriageAction.objects.create(
            issue=issue,
            actor=user,
            action=UNDONE,
            after={"batch": batch, "of": action, "status": status, "detail": detail[:500]},
        )
        getattr(report, status).append(f"{issue.reference}: {detail}")
    return report


def _undo_one(action: str, issue: Issue, undo: dict, user) -> str:
    if action in ("accept", "duplicate", "priority"):
        corrections = list(
            PredictionCorrection.objects.filter(pk__in=undo.get("corrections", [])).select_related(
                "issue"
            )
        )
        if not corrections:
            raise CommandRefused("nothing of it is left to undo")
        return "; ".join(classification.decisions_undo(corrections=corrections, user=user))
    if action in ("assign", "unassign"):
        logins = undo.get("assignees") or []
        if not logins:
            raise CommandRefused("nothing was assigned")
        write = assignment.issue_assignees_change(
            issue=issue, logins=logins, user=user, unassign=action == "assign"
        )
        if write.status == write.Status.SKIPPED:
            raise WriteSkipped(write.detail)
        verb = "unassign" if action == "assign" else "assign again"
        return f"{verb} {', '.join(logins)} ({write.get_status_display()})"
    if action in ("label", "unlabel") and undo.get("labels"):
        labels = issue_acts.labels_parse(issue, ",".join(undo["labels"]))
        try:
            writes = issue_acts.issue_labels_change(
                issue=issue,
                add=labels if action == "unlabel" else [],
                remove=labels if action == "label" else [],
                user=user,
            )
        except issue_acts.ActRefused as exc:
            raise CommandRefused(str(exc)) from None
        return issue_acts.said(writes)
    if action == "close" and undo.get("reopen"):
        issue.refresh_from_db()
        try:
            return issue_acts.said(issue_acts.issue_reopen(issue=issue, user=user))
        except issue_acts.ActRefused as exc:
            raise CommandRefused(str(exc)) from None
    if action == "target" and undo.get("series"):
        handler = wiring.load(wiring.BULK_UNDO["target"])
        return handler(issue=issue, undo=undo, user=user)
    raise CommandRefused(f"{ACTIONS.get(action, action).lower()} is not taken back")


def queue_context(*, request) -> dict:
    """The triage queue's bulk bar (wiring QUEUE_CONTEXT): the actions the user may take, and
    their latest batch that can still be undone."""
    return {"bulk_actions": actions_for(request.user), "last_bulk": last_batch(user=request.user)}
