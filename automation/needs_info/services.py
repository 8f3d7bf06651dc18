"""Needs-info: ask the reporter of a new bug for what triage needs, remind once, close if silent.

Which issues (the automatic rule, `needs_info_refresh`, after classification and after comments):
open issues of repositories that opted in to `needs_info.ask`, opened in the last
NEEDS_INFO_NEW_DAYS, predicted (or decided) kind "bug", not by a maintainer (OWNER, MEMBER,
COLLABORATOR), lacking some of NEEDS_INFO_FACTS (classifiers.completeness). A person may ask on
any issue (`needs_info_request`: `/needinfo`, the dashboard).

What it does, each write through the outbox (opted in per action, dry run, audited, idempotent):
- one comment naming exactly what is missing (template needs_info.ask): only what the report
  does not name at all (classifiers.completeness: a fact it names in a form the extraction
  cannot read is "unclear", for a person, never asked for again); edited as the reporter
  supplies facts (in a comment or by editing the issue), and replaced by a thank-you (template
  needs_info.satisfied) once nothing is missing. What is missing is read again only after the
  reporter wrote something new (`reporter_words`, a digest of their title, body and comments):
  a new rule or a reclassification never edits the ask, nor thanks a reporter who said nothing;
- a person's request (`/needinfo`, the dashboard) on a report that lacks nothing is refused
  with what the report gives (NothingToAsk), never an ask for facts it states;
- the NEEDS_INFO_LABEL label, added while facts are missing and removed after;
- `needs_info_sweep` (daily): NEEDS_INFO_REMIND_DAYS after the request or the reporter's last
  comment, one reminder; NEEDS_INFO_CLOSE_DAYS after the reminder with no word from the
  reporter, close as not planned, saying how to have it reopened; never a regression, a critical
  or high issue, one with a reproducer, or one a maintainer answered since the request (the clock
  stops: state "answered"). A reminder or a closing whose write is skipped (not opted in, the
  switch, a maintainer's own issue) leaves the state as it was: the issue is still waiting on
  GitHub, its comment and label still follow the reporter, and the step comes once allowed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from automation.needs_info.models import NeedsInfo
from automation.outbox import reply_templates
from automation.outbox import services as outbox
from automation.outbox.models import GitHubWrite
from classifiers.completeness import FACTS, report_completeness
from classifiers.severity import REGRESSION
from config import wiring
from triage.models import Comment, Issue, IssuePrediction, Repository

State = NeedsInfo.State
Op = GitHubWrite.Operation
RULE = "rule needs-info"
ASK_MARKER = "needs-info"
SERIOUS = {"critical", "high"}


class NothingToAsk(ValueError):
    """A person asked for information on a report that lacks none of the facts asked for."""


@dataclass
class NeedsInfoReport:
    counts: dict[str, int] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)

    def note(self, what: str, issue: Issue, detail: str = "") -> None:
        self.counts[what] = self.counts.get(what, 0) + 1
        self.lines.append(f"{what:<10} {issue.reference}{': ' + detail if detail else ''}")

    def summary(self) -> str:
        return "needs-info: " + (
            ", ".join(f"{n} {what}" for what, n in sorted(self.counts.items())) or "nothing to do"
        )


# --- reading -------------------------------------------------------------------------------


def _comments(issue: Issue) -> list[Comment]:
    return list(
        Comment.objects.filter(issue=issue, deleted_at__isnull=True)
        .select_related("author")
        .order_by("created_at", "id")
    )


def _by_reporter(issue: Issue, comment: Comment) -> bool:
    return issue.author_id is not None and comment.author_id == issue.author_id


def _reporters_comments(issue: Issue, comments: list[Comment]) -> list[str]:
    return [c.body for c in comments if _by_reporter(issue, c) and not outbox.is_bot_text(c.body)]


def reporter_words(issue: Issue, comments: list[Comment] | None = None) -> str:
    """A digest of what the reporter wrote: the title, the body and their own comments."""
    comments = _comments(issue) if comments is None else comments
    digest = hashlib.sha256()
    for text in (issue.title or "", issue.body or "", *_reporters_comments(issue, comments)):
        digest.update(text.encode("utf-8", "replace") + b"\x1e")
    return digest.hexdigest()


def completeness(issue: Issue, comments: list[Comment] | None = None):
    """What the report gives and lacks (classifiers.completeness) from its stored environment."""
    comments = _comments(issue) if comments is None else comments
    environment = (
        IssuePrediction.objects.filter(issue=issue, model_name="environment")
        .values_list("evidence", flat=True)
        .first()
    )
    return report_completeness(
        title=issue.title,
        body=issue.body,
        environment=environment or {},
        reporter_comments=_reporters_comments(issue, comments),
        wanted=tuple(settings.NEEDS_INFO_FACTS),
    )


def _is_bug(issue: Issue) -> bool:
    """Kind "bug", decided by a triager or predicted at least NEEDS_INFO_MIN_KIND_CONFIDENCE
    sure (a docs report or a question the model half-calls a bug is not asked for a GPU)."""
    kind = IssuePrediction.objects.filter(issue=issue, model_name="kind").first()
    if kind is None or kind.label != "bug" or kind.needs_triage:
        return False
    decided = isinstance(kind.evidence, dict) and kind.evidence.get("decided_by")
    return bool(decided) or kind.confidence >= settings.NEEDS_INFO_MIN_KIND_CONFIDENCE


def eligible(issue: Issue, now) -> str:
    """Why the rule leaves this issue alone ("" when it may ask)."""
    if issue.is_pull_request or issue.deleted_at or issue.state != Issue.State.OPEN:
        return "not an open issue"
    if issue.author_association in outbox.MAINTAINER_ASSOCIATIONS:
        return "a maintainer's own issue"
    if issue.created_at < now - timedelta(days=settings.NEEDS_INFO_NEW_DAYS):
        return "not new"
    if not _is_bug(issue):
        return "not a bug (kind)"
    return ""


def _descriptions(names: list[str]) -> list[str]:
    return [FACTS[name] for name in names]


def _context(issue: Issue, **extra) -> dict:
    return {
        "reporter": issue.author.login if issue.author else "",
        "repository": issue.repository.full_name,
        "number": issue.number,
        **extra,
    }


# --- writing -------------------------------------------------------------------------------


def _plan(issue, action, operation, key, payload, reason, by, actor=None, asked=False):
    return outbox.write_plan(
        issue=issue,
        action=action,
        operation=operation,
        key=key,
        payload=payload,
        reason=reason,
        decided_by=by,
        actor=actor,
        asked=asked,
    )


def _ask_comment(state: NeedsInfo, by: str, actor=None, asked=False) -> None:
    issue = state.issue
    if state.missing:
        body = reply_templates.render(
            "needs_info.ask", **_context(issue, missing=_descriptions(state.missing))
        )
        reason = f"missing: {', '.join(state.missing)}"
    else:
        body = reply_templates.render(
            "needs_info.satisfied", **_context(issue, supplied=_descriptions(state.asked_for))
        )
        reason = "nothing is missing any more"
    _plan(
        issue,
        "needs_info.ask",
        Op.COMMENT,
        f"needs-info:ask:r{state.revision}",
        {"body": body, "marker": ASK_MARKER},
        reason,
        by,
        actor,
        asked,
    )


def _label(state: NeedsInfo, add: bool, by: str, actor=None, asked=False) -> None:
    label = settings.NEEDS_INFO_LABEL
    _plan(
        state.issue,
        "needs_info.label",
        Op.ADD_LABELS if add else Op.REMOVE_LABEL,
        f"needs-info:label:{'add' if add else 'remove'}:r{state.revision}",
        {"labels": [label]} if add else {"label": label},
        f"missing: {', '.join(state.missing)}" if add else "nothing is missing any more",
        by,
        actor,
        asked,
    )


def _start(issue: Issue, missing: list[str], by: str, actor=None, asked=False) -> NeedsInfo:
    state = NeedsInfo.objects.create(
        issue=issue,
        state=State.ASKING,
        missing=missing,
        asked_for=missing,
        requested_by="" if by == RULE else by,
        asked_at=timezone.now(),
        reporter_words=reporter_words(issue),
    )
    _ask_comment(state, by, actor, asked)
    _label(state, True, by, actor, asked)
    return state


def _update(state: NeedsInfo, missing: list[str], by: str) -> str:
    """The reporter's facts changed what is missing: edit the comment, maybe drop the label."""
    if missing == state.missing:
        return ""
    state.missing, state.revision, state.updated_at = missing, state.revision + 1, timezone.now()
    asked = bool(state.requested_by)
    if not missing:
        state.state, state.resolved_at = State.SATISFIED, timezone.now()
    state.save()
    _ask_comment(state, by, asked=asked)
    if not missing:
        _label(state, False, by, asked=asked)
        return "satisfied"
    return "updated"


def needs_info_refresh(*, ids: list[int]) -> NeedsInfoReport:
    """The rule on these issues: ask where facts are missing, follow what the reporter adds.

    Each issue in its own transaction, holding its row: two workers refreshing the same new
    issue at once (its classification and its comments' environment) take turns, and the second
    follows the state the first started instead of failing on it with its whole batch.
    """
    report, now = NeedsInfoReport(), timezone.now()
    opted = [
        r.pk for r in Repository.objects.all() if outbox.opted_in(r, "needs_info.ask")
    ]  # a few repositories: read in Python (SQLite has no JSON containment)
    issues = (
        Issue.objects.filter(pk__in=ids, repository_id__in=opted)
        .select_related("repository", "author")
        .order_by("pk")
    )
    for issue in issues:
        with transaction.atomic():
            list(Issue.objects.select_for_update().filter(pk=issue.pk).values_list("pk"))
            _refresh_one(issue, now, report)
    return report


def _refresh_one(issue: Issue, now, report: NeedsInfoReport) -> None:
    state = NeedsInfo.objects.filter(issue=issue).first()
    if state is not None:
        if state.waiting and issue.state == Issue.State.OPEN:
            comments = _comments(issue)
            words = reporter_words(issue, comments)
            if state.reporter_words == words:
                return  # the reporter wrote nothing new: the ask stands as it is
            state.reporter_words = words
            state.save(update_fields=["reporter_words"])
            missing = completeness(issue, comments).missing
            changed = _update(state, missing, RULE)
            if changed:
                report.note(changed, issue, ", ".join(missing) or "nothing missing")
        return
    if eligible(issue, now):
        return
    missing = completeness(issue).missing
    if missing:
        _start(issue, missing, RULE)
        report.note("asked", issue, ", ".join(missing))


@transaction.atomic
def needs_info_request(*, issue: Issue, by: str, actor=None) -> NeedsInfo:
    """A person asks for the missing facts (`/needinfo`, the dashboard), whatever the rule says.
    A report that lacks none of them is not asked for what it states: NothingToAsk says what it
    gives (a person's own question is a comment of theirs)."""
    state = NeedsInfo.objects.filter(issue=issue).first()
    found = completeness(issue)
    missing = found.missing
    if not missing:
        given = [*found.present, *found.unclear]
        raise NothingToAsk(
            "nothing to ask: the report gives "
            + (", ".join(dict.fromkeys(given)) or "every fact asked for")
            + "; write the reporter your own question instead"
        )
    if state is None:
        return _start(issue, missing, by, actor, asked=True)
    if state.waiting:
        _update(state, missing, by)
        return state
    state.state, state.asked_at, state.reminded_at, state.closed_at = (
        State.ASKING,
        timezone.now(),
        None,
        None,
    )
    state.requested_by, state.asked_for, state.missing = by, missing, missing
    state.reporter_words = reporter_words(issue)
    state.revision += 1
    state.save()
    _ask_comment(state, by, actor, asked=True)
    _label(state, True, by, actor, asked=True)
    return state


# --- the clock -----------------------------------------------------------------------------


def _exempt_from_closing(issue: Issue, with_reproducer: set[int]) -> str:
    severity = IssuePrediction.objects.filter(issue=issue, model_name="severity").first()
    if severity is not None and severity.label in SERIOUS:
        return f"severity {severity.label}"
    labels = [name.lower() for name in issue.labels.values_list("name", flat=True)]
    if any("regression" in name for name in labels) or REGRESSION.search(
        f"{issue.title}\n{issue.body}"
    ):
        return "a regression"
    if issue.pk in with_reproducer:
        return "it has a reproducer"
    return ""


def _issues_with_reproducer(ids: list[int]) -> set[int]:
    """Those of `ids` with a reproducer (kernels_ci's queue filter, through the wiring)."""
    dotted = wiring.QUEUE_FILTERS.get("has_repro")
    if not dotted or not ids:
        return set()
    query = Issue.objects.filter(pk__in=wiring.load(dotted)()).filter(pk__in=ids)
    return set(query.values_list("pk", flat=True))


def needs_info_sweep(*, now=None) -> NeedsInfoReport:
    """Daily: remind once, then close as not planned, the issues whose reporter stayed silent."""
    now = now or timezone.now()
    report = NeedsInfoReport()
    remind, close = (
        timedelta(days=settings.NEEDS_INFO_REMIND_DAYS),
        timedelta(days=settings.NEEDS_INFO_CLOSE_DAYS),
    )
    waiting = list(
        NeedsInfo.objects.filter(state__in=[State.ASKING, State.REMINDED])
        .select_related("issue__repository", "issue__author")
        .order_by("asked_at")
    )
    open_ids = [s.issue_id for s in waiting if s.issue.state == Issue.State.OPEN]
    with_reproducer = _issues_with_reproducer(open_ids)
    comments_of = _comments_of(open_ids)  # one query a thousand issues, not one an issue
    for state in waiting:
        issue = state.issue
        if issue.state != Issue.State.OPEN or issue.deleted_at:
            continue
        comments = comments_of.get(issue.pk, [])
        _tick(state, issue, comments, now, remind, close, with_reproducer, report)
    return report


def _comments_of(ids: list[int]) -> dict[int, list[Comment]]:
    """The comments of these issues, each issue's in order."""
    found: dict[int, list[Comment]] = {}
    for start in range(0, len(ids), 1000):
        comments = (
            Comment.objects.filter(issue_id__in=ids[start : start + 1000], deleted_at__isnull=True)
            .select_related("author")
            .order_by("issue_id", "created_at", "id")
        )
        for comment in comments:
            found.setdefault(comment.issue_id, []).append(comment)
    return found


def _tick(state, issue, comments, now, remind, close, with_reproducer, report) -> None:
    comments = [c for c in comments if not outbox.is_bot_text(c.body)]
    since = [c for c in comments if c.created_at > state.asked_at]
    answered = next(
        (
            c
            for c in since
            if c.author_association in outbox.MAINTAINER_ASSOCIATIONS
            and not _by_reporter(issue, c)
            and (c.author.login if c.author else "") != state.requested_by.lstrip("@")
        ),
        None,
    )
    if answered is not None and not state.requested_by:
        state.state, state.resolved_at = State.ANSWERED, now
        state.save(update_fields=["state", "resolved_at"])
        who = answered.author.login if answered.author else "a maintainer"
        report.note("answered", issue, f"{who} answered: the clock stopped")
        return
    reporter_last = max(
        (c.created_at for c in since if _by_reporter(issue, c)), default=state.asked_at
    )
    if state.state == State.ASKING and now - max(reporter_last, state.asked_at) >= remind:
        body = reply_templates.render(
            "needs_info.remind",
            **_context(
                issue,
                missing=_descriptions(state.missing),
                close_days=settings.NEEDS_INFO_CLOSE_DAYS,
            ),
        )
        with transaction.atomic():  # the planned reminder and the state, together
            reminder = _plan(
                issue,
                "needs_info.remind",
                Op.COMMENT,
                f"needs-info:remind:{state.asked_at:%Y%m%d%H%M%S}",
                {"body": body, "marker": "needs-info-reminder"},
                f"no answer since {reporter_last:%Y-%m-%d}",
                RULE,
                asked=bool(state.requested_by),
            )
            if reminder.status == GitHubWrite.Status.SKIPPED:  # the clock waits for the write
                report.note("waiting", issue, reminder.detail)
                return
            state.state, state.reminded_at = State.REMINDED, now
            state.save(update_fields=["state", "reminded_at"])
        report.note("reminded", issue, ", ".join(state.missing))
        return
    if state.state != State.REMINDED or now - max(reporter_last, state.reminded_at) < close:
        return
    exempt = _exempt_from_closing(issue, with_reproducer)
    if exempt:
        report.note("kept open", issue, exempt)
        return
    body = reply_templates.render(
        "needs_info.close", **_context(issue, asked_on=f"{state.asked_at:%Y-%m-%d}")
    )
    reason = f"no answer since the reminder of {state.reminded_at:%Y-%m-%d}"
    with transaction.atomic():  # the comment, the closing and the state, together
        _plan(
            issue,
            "needs_info.close",
            Op.COMMENT,
            f"needs-info:close:comment:{state.asked_at:%Y%m%d%H%M%S}",
            {"body": body, "marker": "needs-info-close"},
            reason,
            RULE,
            asked=bool(state.requested_by),
        )
        closing = _plan(
            issue,
            "needs_info.close",
            Op.CLOSE,
            f"needs-info:close:{state.asked_at:%Y%m%d%H%M%S}",
            {"state_reason": "not_planned"},
            reason,
            RULE,
            asked=bool(state.requested_by),
        )
        if closing.status == GitHubWrite.Status.SKIPPED:  # open on GitHub: still waiting
            report.note("kept open", issue, closing.detail)
            return
        state.state, state.closed_at = State.CLOSED, now
        state.save(update_fields=["state", "closed_at"])
    report.note("closed", issue, reason)
