"""Commands in comments: `/kind bug`, `/duplicate #12`, `/assign @alice` ... from collaborators.

A command is a line of its own that starts with `/` and a known name (not in a code block, not
quoted). Only the author associations OWNER, MEMBER and COLLABORATOR may command; anyone else's
command changes nothing and gets a reply saying so. Each command is acted on once (a
CommentCommand row per comment and line: a redelivered or edited comment does not act again).

Each is the same decision service a dashboard click calls, recorded the same way (who, when,
before, after), with the collaborator's GitHub login as the actor, so `/kind`, `/component`,
`/severity` and `/duplicate` train the models as corrections do:

    /kind X  /component X  /severity X   the model's label (classification.prediction_correct)
    /duplicate #N | OWNER/NAME#N          the duplicates decision
    /priority N | auto                    the priority override
    /needinfo                             ask the reporter for the missing facts (needs-info)
    /assign @user [@user...]              assign on GitHub (through the outbox, opted in)
    /close [not planned | duplicate #N]   close on GitHub (dashboard.state, opted in)
    /reopen                               reopen on GitHub (dashboard.state)
    /label NAME, NAME  /unlabel NAME      the repository's labels (dashboard.label)

and the commands of later stages (config/wiring.py COMMENT_COMMANDS: `/target 7.9`,
`/backport 7.9`). `/repro` is kernels_ci's and keeps its own handling. A done command is
acknowledged with a +1 reaction on the comment, a refused one with one reply saying why
(template commands.refused); both through the outbox, under the opt-in `commands.reply`.

A comment written more than Repository.HISTORY_GRACE before its repository was tracked
(Repository.added_at) is history that the first sync read, not a command to us: it is neither
acted on nor answered (Repository.since_tracked).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from django.db import IntegrityError, transaction

from automation.acts import assignment
from automation.acts import services as issue_acts
from automation.commands.models import CommentCommand
from automation.needs_info import services as needs_info
from automation.outbox import reply_markdown, reply_templates
from automation.outbox import services as outbox
from automation.outbox.models import GitHubWrite
from classifiers.markdown_blocks import code_blocks, text_without
from config import linear_re, wiring
from config.reports import Tally
from triage.models import Comment, Issue, Repository, TriageAction
from triage.services import classification, priority

Op = GitHubWrite.Operation
TRIAGE_COMMANDS = (
    "kind",
    "component",
    "severity",
    "duplicate",
    "priority",
    "needinfo",
    "assign",
    "close",
    "reopen",
    "label",
    "unlabel",
)
COMMAND_LINE = linear_re.compile(r"(?m)^[ \t]*/([a-z]{2,20})\b([^\n]{0,250})")
MAX_COMMANDS = 10  # per comment
ISSUE_REF = linear_re.compile(r"^(?:([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+))?#(\d{1,9})$")


class CommandRefused(Exception):
    """The command is not applied; the message says why (it is the reply)."""


class WriteSkipped(CommandRefused):
    """The command was decided, but the outbox did not write it to GitHub (not opted in, the
    stop switch): refused, with its audit rows kept (what was decided, why it was not written)."""


@dataclass
class CommandsReport(Tally):
    TITLE = "comment commands"

    done: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


def commands_in(body: str) -> list[tuple[str, str, str]]:
    """(name, argument, line) of each command line of a comment, code blocks left out; only
    names some handler takes (`/repro` is kernels_ci's, other slashes are prose)."""
    text = body or ""
    text = text_without(text, code_blocks(text), between="\n")
    names = {*TRIAGE_COMMANDS, *wiring.COMMENT_COMMANDS}
    found = []
    for match in itertools.islice(COMMAND_LINE.finditer(text), 100):
        name, argument = match.group(1), match.group(2).strip()
        if name in names and (not match.group(2) or match.group(2)[0] in " \t"):
            found.append((name, argument, match.group(0).strip()[:300]))
    return found[:MAX_COMMANDS]


# --- the handlers: fn(*, issue, argument, login, ref) -> what was done, or CommandRefused ------
# (`ref`: the request's own id, "comment 123 line /assign @a", for idempotent writes)


def _model_command(model_name: str):
    def handle(*, issue: Issue, argument: str, login: str, ref: str = "") -> str:
        if not argument:
            raise CommandRefused(f"say which {model_name}: /{model_name} NAME")
        try:
            correction = classification.prediction_correct(
                issue=issue, model_name=model_name, label=argument, user=None, github_login=login
            )
        except classification.CorrectionError as exc:
            raise CommandRefused(str(exc)) from None
        return f"{model_name} {correction.before or '-'} -> {correction.after}"

    return handle


def _duplicate(*, issue: Issue, argument: str, login: str, ref: str = "") -> str:
    match = ISSUE_REF.match(argument.split()[0] if argument else "")
    if not match:
        raise CommandRefused("name the issue: /duplicate #123 or /duplicate OWNER/NAME#123")
    full_name = match.group(1) or issue.repository.full_name
    if (
        int(match.group(2)) == issue.number
        and full_name.lower() == issue.repository.full_name.lower()
    ):
        raise CommandRefused("an issue is not a duplicate of itself")
    reference = f"{full_name}#{match.group(2)}"
    try:
        classification.prediction_correct(
            issue=issue, model_name="duplicates", label=reference, user=None, github_login=login
        )
    except classification.CorrectionError:
        raise CommandRefused(f"{reference} is not an issue this service knows") from None
    if issue.state == Issue.State.OPEN and outbox.opted_in(issue.repository, "dashboard.state"):
        try:  # and closed on GitHub as a duplicate, where the repository opted in to that
            writes = issue_acts.issue_close(
                issue=issue,
                reason="duplicate",
                user=None,
                duplicate_of=reference,
                login=login,
                record_decision=False,
            )
        except issue_acts.ActRefused as exc:
            return f"duplicate of {reference} (not closed: {exc})"
        return f"duplicate of {reference}; {issue_acts.said(writes)}"
    return f"duplicate of {reference}"


def _skipped(writes) -> None:
    writes = writes if isinstance(writes, list) else [writes]
    skipped = [w for w in writes if w.status == GitHubWrite.Status.SKIPPED]
    if skipped:
        raise WriteSkipped(skipped[0].detail)


def _close(*, issue: Issue, argument: str, login: str, ref: str = "") -> str:
    """`/close`, `/close not planned`, `/close duplicate #N`."""
    reason, duplicate_of = issue_acts.close_argument(argument)
    try:
        writes = issue_acts.issue_close(
            issue=issue, reason=reason, user=None, duplicate_of=duplicate_of, login=login
        )
    except issue_acts.ActRefused as exc:
        raise CommandRefused(f"{exc}: /close, /close not planned, /close duplicate #N") from None
    _skipped(writes)
    return issue_acts.said(writes)


def _reopen(*, issue: Issue, argument: str, login: str, ref: str = "") -> str:
    try:
        write = issue_acts.issue_reopen(issue=issue, user=None, login=login)
    except issue_acts.ActRefused as exc:
        raise CommandRefused(str(exc)) from None
    _skipped(write)
    return issue_acts.said(write)


def _labels_command(*, remove: bool):
    def handle(*, issue: Issue, argument: str, login: str, ref: str = "") -> str:
        try:
            _, writes = issue_acts.labels_named_change(
                issue=issue, text=argument, remove=remove, user=None, login=login
            )
        except issue_acts.ActRefused as exc:
            verb = "unlabel" if remove else "label"
            raise CommandRefused(f"{exc}: /{verb} NAME, NAME") from None
        _skipped(writes)
        return issue_acts.said(writes)

    return handle


def _priority(*, issue: Issue, argument: str, login: str, ref: str = "") -> str:
    try:
        correction = priority.priority_override(
            issue=issue, label=argument, user=None, github_login=login
        )
    except priority.OverrideError as exc:
        raise CommandRefused(str(exc)) from None
    return f"priority {correction.before or '-'} -> {correction.after or 'auto'}"


def _needinfo(*, issue: Issue, argument: str, login: str, ref: str = "") -> str:
    if issue.is_pull_request or issue.state != Issue.State.OPEN:
        raise CommandRefused("only an open issue can wait for information")
    try:
        state = needs_info.needs_info_request(issue=issue, by=f"@{login}")
    except needs_info.NothingToAsk as exc:
        raise CommandRefused(str(exc)) from None
    TriageAction.objects.create(
        issue=issue,
        action="needs_info.request",
        github_login=login,
        after={"missing": state.missing},
    )
    return f"asked for {', '.join(state.missing)}"


def _assign(*, issue: Issue, argument: str, login: str, ref: str = "") -> str:
    try:
        logins = assignment.logins_parse(argument)
    except assignment.AssignmentError as exc:
        raise CommandRefused(f"{exc}: /assign @user") from None
    before = sorted(issue.assignees.values_list("login", flat=True))
    write = outbox.write_plan(
        issue=issue,
        action="commands.assign",
        operation=Op.ASSIGN,
        key=f"command:assign:{ref}",
        payload={"assignees": logins},
        reason=f"/assign by @{login}",
        decided_by=f"@{login} on GitHub",
        asked=True,
    )
    TriageAction.objects.create(
        issue=issue,
        action="issue.assign",
        github_login=login,
        before={"assignees": before},
        after={"assignees": sorted({*before, *logins}), "write": write.status},
    )
    if write.status == GitHubWrite.Status.SKIPPED:
        raise WriteSkipped(write.detail)
    return f"assign {', '.join(logins)} ({write.status})"


TRIAGE_HANDLERS = {
    "kind": _model_command("kind"),
    "component": _model_command("component"),
    "severity": _model_command("severity"),
    "duplicate": _duplicate,
    "priority": _priority,
    "needinfo": _needinfo,
    "assign": _assign,
    "close": _close,
    "reopen": _reopen,
    "label": _labels_command(remove=False),
    "unlabel": _labels_command(remove=True),
}


def _handler(name: str):
    if name in TRIAGE_HANDLERS:
        return TRIAGE_HANDLERS[name]
    return wiring.load(wiring.COMMENT_COMMANDS[name])


# --- acting on comments --------------------------------------------------------------------


def _acknowledge(comment: Comment, commands: list[CommentCommand]) -> None:
    """One +1 reaction on a comment whose commands were done, and one reply to its refused ones
    (never one write per line). The reply never carries the commenter's words as Markdown: a
    collaborator's command line is quoted where it cannot leave its code span, a stranger's
    command is named without its arguments, and every reason is made inert (reply_markdown)."""
    issue = comment.issue
    done = [c for c in commands if c.status == CommentCommand.Status.DONE]
    refused = [c for c in commands if c.status != CommentCommand.Status.DONE]
    login = commands[0].login if commands else ""
    if done:
        outbox.write_plan(
            issue=issue,
            action="commands.reply",
            operation=Op.REACT,
            key=f"command:react:{comment.external_id}",
            payload={"comment_id": int(comment.external_id), "content": "+1"},
            reason="; ".join(f"{c.line!r} done: {c.detail}" for c in done)[:1000],
            decided_by=f"@{login} on GitHub",
            asked=True,
        )
    if not refused:
        return
    stranger = (comment.author_association or "NONE") not in outbox.MAINTAINER_ASSOCIATIONS
    if stranger:  # one answer, naming the commands only: a stranger's text is never echoed
        names = " ".join(dict.fromkeys(f"/{c.command}" for c in refused))
        lines = [_refusal(login, names, refused[0].detail)]
    else:
        lines = [_refusal(login, c.line, c.detail) for c in refused]
    outbox.write_plan(
        issue=issue,
        action="commands.reply",
        operation=Op.COMMENT,
        key=f"command:refused:{comment.external_id}:{refused[0].pk}",
        payload={"body": "\n\n".join(lines), "marker": f"command-{comment.external_id}"},
        reason="; ".join(f"{c.line!r} refused: {c.detail}" for c in refused)[:1000],
        decided_by=f"@{login} on GitHub",
        asked=True,
    )


def _refusal(login: str, line: str, why: str) -> str:
    return reply_templates.render(
        "commands.refused",
        login=reply_markdown.login(login),
        line=reply_markdown.in_code_span(line),
        why=reply_markdown.inert(why),
    )


def _act(comment: Comment, name: str, argument: str, line: str) -> CommentCommand | None:
    login = comment.author.login if comment.author else ""
    association = comment.author_association or "NONE"
    row = CommentCommand(
        comment=comment,
        issue=comment.issue,
        line=line,
        command=name,
        login=login,
        association=association,
    )
    try:
        with transaction.atomic():
            row.status, row.detail = CommentCommand.Status.REFUSED, "claimed"
            row.save()  # claim: one row per comment and line
    except IntegrityError:
        return None  # acted on already (a redelivery, an edit that kept the line)
    try:
        with transaction.atomic():
            if association not in outbox.MAINTAINER_ASSOCIATIONS:
                raise CommandRefused(
                    f"only the repository's collaborators may command ({login} is {association})"
                )
            handler = _handler(name)
            ref = f"{comment.external_id}:{line}"
            try:
                detail = handler(issue=comment.issue, argument=argument, login=login, ref=ref)
                row.status, row.detail = CommentCommand.Status.DONE, detail
            except WriteSkipped as exc:  # its audit rows stay: the outbox decided not to write
                row.status, row.detail = CommentCommand.Status.REFUSED, str(exc)
    except CommandRefused as exc:
        row.status, row.detail = CommentCommand.Status.REFUSED, str(exc)
    row.save(update_fields=["status", "detail"])
    return row


def comments_commands_run(*, issue_ids: list[int]) -> CommandsReport:
    """Act once on every command line in the comments of these issues (not their history)."""
    report = CommandsReport()
    comments = (
        Comment.objects.filter(issue_id__in=issue_ids, deleted_at__isnull=True, body__contains="/")
        .filter(Repository.since_tracked("issue__repository"))
        .select_related("author", "issue__repository")
        .order_by("created_at", "id")
    )
    for comment in comments:
        if outbox.is_bot_text(comment.body):
            continue
        acted = []
        for name, argument, line in commands_in(comment.body):
            row = _act(comment, name, argument, line)
            if row is None:
                continue
            acted.append(row)
            entry = f"{comment.issue.reference} {line!r} by {row.login}: {row.detail}"
            (report.done if row.status == CommentCommand.Status.DONE else report.refused).append(
                entry
            )
        if acted:
            _acknowledge(comment, acted)
    return report
