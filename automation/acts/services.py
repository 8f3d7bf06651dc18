"""What a maintainer does to an issue on GitHub without opening GitHub: reply, close (as
completed, not planned, or a duplicate of another issue), reopen, add and remove labels.

Each goes through the one outbox (automation.outbox.services): opted in per repository and action
(dashboard.reply, dashboard.state, dashboard.label), the repository's dry run, the stop switch,
one audit row per decision (GitHubWrite) beside the dashboard's own record (TriageAction), and
one write per decision however often the same request arrives: a reply carries the nonce its
form was drawn with, and a state change or a label is keyed by what it changes from.

The issue page, the queue's bulk bar, the REST API and the comment commands (`/close`,
`/reopen`, `/label`, `/unlabel`) all call these functions.
"""

from __future__ import annotations

import uuid

from django.db import transaction

from automation.outbox import services as outbox
from automation.outbox.models import GitHubWrite
from config import linear_re
from triage.models import Issue, Label, TriageAction
from triage.services import classification

Op = GitHubWrite.Operation
CLOSE_REASONS = {  # GitHub's state_reason: what the dashboard calls it
    "completed": "completed",
    "not_planned": "not planned",
    "duplicate": "a duplicate",
}
MAX_REPLY = 65_536  # GitHub's limit on a comment's body
ISSUE_REF = linear_re.compile(r"^(?:([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+))?#(\d{1,9})$")


class ActRefused(ValueError):
    """The act is not taken; the message says why."""


def nonce() -> str:
    """A fresh form's nonce: the same form sent twice writes one reply."""
    return uuid.uuid4().hex


def _version(issue: Issue) -> str:
    """The issue as last read from GitHub (its updated_at): a state or label change is keyed by
    what it changes from, so the same request again writes nothing more."""
    return issue.updated_at.isoformat() if issue.updated_at else ""


def _write(issue, *, action, operation, key, payload, reason, user, login=""):
    return outbox.write_plan(
        issue=issue,
        action=action,
        operation=operation,
        key=key,
        payload=payload,
        reason=reason,
        decided_by=f"@{login} on GitHub" if login else user.get_username(),
        actor=user,
        asked=True,
    )


@transaction.atomic
def issue_reply(
    *, issue: Issue, body: str, user, mention_reporter: bool = True, form_nonce: str = ""
) -> GitHubWrite:
    """A maintainer's reply, posted as a new comment (the reporter @-mentioned unless asked
    not to, or already named)."""
    text = (body or "").strip()
    if not text:
        raise ActRefused("write the reply first")
    reporter = issue.author.login if issue.author and issue.author.login else ""
    if mention_reporter and reporter and f"@{reporter.lower()}" not in text.lower():
        text = f"@{reporter} {text}"
    if len(text) > MAX_REPLY:
        raise ActRefused(f"a reply is at most {MAX_REPLY:,} characters on GitHub")
    key = f"dashboard:reply:{form_nonce or nonce()}"[:200]
    existing = GitHubWrite.objects.filter(issue=issue, key=key).first()
    if existing is not None:
        return existing  # the same form again (a double click, a retried request)
    TriageAction.objects.create(
        issue=issue, actor=user, action="issue.reply", after={"chars": len(text)}
    )
    return _write(
        issue,
        action="dashboard.reply",
        operation=Op.COMMENT,
        key=key,
        payload={"body": text},
        reason=f"a reply from the dashboard by {user.get_username()}",
        user=user,
    )


def close_argument(text: str) -> tuple[str, str]:
    """(reason, duplicate_of) of "", "completed", "not planned", "duplicate #N" (commands and
    the bulk bar)."""
    words = (text or "").split()
    if [w.lower() for w in words[:2]] == ["not", "planned"]:
        return "not_planned", ""
    reason = words[0].lower() if words else "completed"
    return reason, (words[1] if reason == "duplicate" and len(words) > 1 else "")


def _canonical(issue: Issue, reference: str) -> Issue:
    match = ISSUE_REF.match((reference or "").strip())
    if not match:
        raise ActRefused("name the issue it duplicates: #N or OWNER/NAME#N")
    full_name = match.group(1) or issue.repository.full_name
    canonical = Issue.objects.filter(
        repository__full_name__iexact=full_name,
        number=int(match.group(2)),
        deleted_at__isnull=True,
    ).first()
    if canonical is None:
        raise ActRefused(f"{full_name}#{match.group(2)} is not an issue we hold")
    if canonical.pk == issue.pk:
        raise ActRefused("an issue is not a duplicate of itself")
    return canonical


@transaction.atomic
def issue_close(
    *,
    issue: Issue,
    reason: str,
    user,
    duplicate_of: str = "",
    login: str = "",
    record_decision: bool = True,
) -> list[GitHubWrite]:
    """Close on GitHub with GitHub's state reason; as a duplicate, with a comment that links the
    canonical issue first (and the duplicates decision recorded, as a triager's)."""
    if reason not in CLOSE_REASONS:
        raise ActRefused(f"close as {', '.join(CLOSE_REASONS)}")
    if issue.state == Issue.State.CLOSED:
        raise ActRefused("it is closed already")
    writes = []
    since = _version(issue)
    if reason == "duplicate":
        canonical = _canonical(issue, duplicate_of)
        same_repository = canonical.repository_id == issue.repository_id
        ref = f"#{canonical.number}" if same_repository else canonical.reference
        if record_decision:
            try:
                classification.prediction_correct(
                    issue=issue,
                    model_name="duplicates",
                    label=canonical.reference,
                    user=user,
                    github_login=login,
                )
            except classification.CorrectionError as exc:
                raise ActRefused(str(exc)) from None
        writes.append(
            _write(
                issue,
                action="dashboard.state",
                operation=Op.COMMENT,
                key=f"dashboard:duplicate-comment:{canonical.reference}:{since}",
                payload={"body": f"Duplicate of {ref}"},
                reason=f"closed as a duplicate of {canonical.reference}",
                user=user,
                login=login,
            )
        )
    TriageAction.objects.create(
        issue=issue,
        actor=user,
        github_login=login,
        action="issue.close",
        before={"state": issue.state},
        after={"state_reason": reason, "duplicate_of": duplicate_of[:100]},
    )
    writes.append(
        _write(
            issue,
            action="dashboard.state",
            operation=Op.CLOSE,
            key=f"dashboard:close:{since}",
            payload={"state_reason": reason},
            reason=f"closed as {CLOSE_REASONS[reason]}",
            user=user,
            login=login,
        )
    )
    return writes


@transaction.atomic
def issue_reopen(*, issue: Issue, user, login: str = "") -> GitHubWrite:
    if issue.state == Issue.State.OPEN:
        raise ActRefused("it is open already")
    since = _version(issue)
    TriageAction.objects.create(
        issue=issue,
        actor=user,
        github_login=login,
        action="issue.reopen",
        before={"state": issue.state, "state_reason": issue.state_reason},
    )
    return _write(
        issue,
        action="dashboard.state",
        operation=Op.REOPEN,
        key=f"dashboard:reopen:{since}",
        payload={},
        reason="reopened",
        user=user,
        login=login,
    )


LOCK_REASONS = ("off-topic", "too heated", "resolved", "spam")  # GitHub's


@transaction.atomic
def issue_lock(*, issue: Issue, user, reason: str = "", unlock: bool = False, login: str = ""):
    """Lock the conversation on GitHub (with GitHub's reason, or none), or unlock it."""
    if reason and reason not in LOCK_REASONS:
        raise ActRefused(f"lock as {', '.join(LOCK_REASONS)}, or without a reason")
    verb = "unlock" if unlock else "lock"
    action = TriageAction.objects.create(
        issue=issue,
        actor=user,
        github_login=login,
        action=f"issue.{verb}",
        after={"lock_reason": reason} if not unlock else {},
    )
    return _write(
        issue,
        action="dashboard.state",
        operation=Op.UNLOCK if unlock else Op.LOCK,
        key=f"dashboard:{verb}:{action.pk}",
        payload={} if unlock else {"lock_reason": reason},
        reason=f"{verb}ed from the dashboard",
        user=user,
        login=login,
    )


MAX_TITLE = 256  # GitHub's limit


@transaction.atomic
def issue_title_edit(*, issue: Issue, title: str, user, login: str = "") -> GitHubWrite:
    """A clearer title, on GitHub (the sync and webhooks then bring it back as GitHub's)."""
    new = " ".join((title or "").split())
    if not new:
        raise ActRefused("write the new title")
    if len(new) > MAX_TITLE:
        raise ActRefused(f"a title is at most {MAX_TITLE} characters on GitHub")
    if new == issue.title:
        raise ActRefused("the title is that already")
    TriageAction.objects.create(
        issue=issue,
        actor=user,
        github_login=login,
        action="issue.title",
        before={"title": issue.title},
        after={"title": new},
    )
    return _write(
        issue,
        action="dashboard.state",
        operation=Op.EDIT_TITLE,
        key=f"dashboard:title:{new}"[:200],
        payload={"title": new},
        reason="retitled from the dashboard",
        user=user,
        login=login,
    )


def labels_parse(issue: Issue, text: str) -> list[Label]:
    """The repository's labels named (commas between; any case): ActRefused names one it lacks."""
    names = [name.strip() for name in (text or "").split(",") if name.strip()]
    if not names:
        raise ActRefused("name at least one label")
    found = {
        label.name_key: label
        for label in Label.objects.filter(
            repository=issue.repository, name_key__in=[n.lower() for n in names]
        )
    }
    missing = [n for n in names if n.lower() not in found]
    if missing:
        raise ActRefused(f"{issue.repository.full_name} has no label {missing[0]!r}")
    return list({found[n.lower()].pk: found[n.lower()] for n in names}.values())


@transaction.atomic
def issue_labels_change(
    *, issue: Issue, add: list[Label] = (), remove: list[Label] = (), user, login: str = ""
) -> list[GitHubWrite]:
    """Add and remove labels of the repository's own set; each only where it changes."""
    has = set(issue.labels.values_list("pk", flat=True))
    adding = [label for label in add if label.pk not in has]
    removing = [label for label in remove if label.pk in has]
    if not adding and not removing:
        raise ActRefused("the labels are as asked already")
    TriageAction.objects.create(
        issue=issue,
        actor=user,
        github_login=login,
        action="issue.labels",
        before={"labels": sorted(issue.labels.values_list("name", flat=True))},
        after={"add": [lb.name for lb in adding], "remove": [lb.name for lb in removing]},
    )
    since = _version(issue)
    writes = []
    if adding:
        names = sorted(label.name for label in adding)
        writes.append(
            _write(
                issue,
                action="dashboard.label",
                operation=Op.ADD_LABELS,
                key=f"dashboard:labels:+{','.join(names)}:{since}"[:200],
                payload={"labels": names},
                reason=f"labels added from the dashboard: {', '.join(names)}",
                user=user,
                login=login,
            )
        )
    for label in removing:
        writes.append(
            _write(
                issue,
                action="dashboard.label",
                operation=Op.REMOVE_LABEL,
                key=f"dashboard:labels:-{label.name}:{since}"[:200],
                payload={"label": label.name},
                reason=f"label removed from the dashboard: {label.name}",
                user=user,
                login=login,
            )
        )
    return writes


def labels_named_change(*, issue: Issue, text: str, remove: bool, user, login: str = ""):
    """(labels, writes): the labels named in `text` added, or removed (commands, bulk bar)."""
    labels = labels_parse(issue, text)
    writes = issue_labels_change(
        issue=issue,
        add=[] if remove else labels,
        remove=labels if remove else [],
        user=user,
        login=login,
    )
    return labels, writes


def said(writes: list[GitHubWrite] | GitHubWrite) -> str:
    """What became of the writes, in words: sent, planned only (dry run), or not, and why."""
    writes = writes if isinstance(writes, list) else [writes]
    parts = []
    for write in writes:
        what = outbox.describe(write)
        if write.status == GitHubWrite.Status.SKIPPED:
            parts.append(f"not written: {write.detail}")
        elif write.status == GitHubWrite.Status.PLANNED:
            parts.append(f"{what}: planned only (dry run)")
        else:
            parts.append(f"{what}: {write.get_status_display()}")
    return "; ".join(dict.fromkeys(parts))
