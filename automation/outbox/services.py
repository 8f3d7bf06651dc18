"""The outbox: every write the service makes on GitHub, planned as a row, then performed.

A service decides (`write_plan`): which issue, which operation (a comment, labels, assignees,
closing, a reaction, a pull request's review requests), which opt-in it needs (`action`, one
of ACTIONS), why, and who or which model decided. The row says what became of the decision:
- `skipped` when every write is stopped (the one switch: WriteSwitch "github", or
  GITHUB_WRITES_STOPPED), when the repository has not opted in to that action, or when the issue
  is a maintainer's own and no person asked for the write (review requests excepted:
  FOR_MAINTAINERS_TOO);
- `planned` when the repository runs its opted-in actions as a dry run (the default): the row
  lists what would be done, and nothing is sent;
- `pending`, then `done` or `failed` once the `ingest` task `triage.tasks.deliver_github_write`
  performed it through PyGithub (GitHub's answer, or its message on a 403/404/422, which is
  never retried; a rate limit waits for its reset; a 5xx is tried MAX_ATTEMPTS times).

A write left pending (its task never sent: the broker was down; or, run in-process without a
broker, a rate limit or a 5xx left it waiting with no task to come back) is queued again by the
beat job `triage.tasks.resend_pending_github_writes` (`writes_pending_resend`, every 5 minutes)
once RESEND_GRACE has passed since it was planned and since its wait (`not_before`: the rate
limit's reset, the retry's turn) ended; so is a send interrupted past its lease (SEND_LEASE: the
worker died). The sweep claims each row before queuing it (a second sweep or beat does not queue
it again), a task claims the row before sending (two tasks never send it at once), and a done row
is never sent again. While every write is stopped the sweep sends nothing and skips what waits.

Idempotent: a decision has a key, and a repository's issue holds at most one pending, done or
failed row per key, so a webhook redelivery or a task retry plans nothing new. A comment carries a
hidden marker (`<!-- rocm-triage:needs-info -->`); a later comment with the same marker edits
the bot's comment instead of posting another (the bot finds it by the id it stored, else, after
an interrupted attempt, by listing the issue's comments for its marker and its own login).
Nothing else in the service calls GitHub's write endpoints for these actions.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from functools import cache
from urllib.parse import quote

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from automation.outbox.models import GitHubWrite, WriteSwitch
from config import wiring
from triage.models import Issue, Repository
from triage.services import upsert
from triage.sources.github import app_auth, ingest, records
from triage.sources.github.client import (
    GitHubError,
    GitHubSource,
    RateLimited,
    TransientGitHubError,
    app_bot_login,
)
from triage.sources.records import parse_timestamp

logger = logging.getLogger(__name__)

Status = GitHubWrite.Status
Op = GitHubWrite.Operation

# What a repository opts in to, one by one (Repository.github_actions).
ACTIONS: dict[str, str] = {
    "needs_info.ask": "ask the reporter of a new bug for the facts triage needs (one comment, "
    "edited as they arrive)",
    "needs_info.label": "add the 'needs info' label while facts are missing, remove it after",
    "needs_info.remind": "remind the reporter once after NEEDS_INFO_REMIND_DAYS without an answer",
    "needs_info.close": "close as not planned NEEDS_INFO_CLOSE_DAYS after the reminder",
    "commands.reply": "acknowledge a comment command with a reaction, or reply why it was refused",
    "commands.assign": "assign on GitHub whom /assign names",
    "dashboard.assign": "assign and unassign from the dashboard (the issue page, the queue)",
    "dashboard.reply": "post a maintainer's reply from the dashboard (the issue page, the API)",
    "dashboard.state": "close (completed, not planned, duplicate), reopen, retitle and lock from "
    "the dashboard, the API and the /close, /reopen and /duplicate commands",
    "dashboard.label": "add and remove the repository's labels from the dashboard, the API and "
    "the /label and /unlabel commands",
    "ownership.assign": "assign an issue to its owners (users, not teams) once its component is "
    "confident or decided",
    "ownership.request_review": "request reviews of a pull request from the owners of its "
    "changed files by path rules (users and teams, never its author)",
    "releases.fixed_comment": "tell each issue whose fix ships in a released train",
    "releases.fixed_close": "close an issue still open when its fix ships",
    "known_errors.answer": "post a known error's answer when a triager confirms the match",
    "known_errors.auto": "answer known errors without waiting for a triager (needs "
    "known_errors.answer too)",
}


def action_words(action: str) -> str:
    """What an action does, in words, for messages (its key is for settings and the audit)."""
    return ACTIONS.get(action, action).split(" (", 1)[0]


MAINTAINER_ASSOCIATIONS = {"OWNER", "MEMBER", "COLLABORATOR"}
# Actions for maintainers' own issues and pull requests too: code owners review everyone's.
FOR_MAINTAINERS_TOO = {"ownership.request_review"}
MARKER_PREFIX = "<!-- rocm-triage:"
MAX_ATTEMPTS = 5
SWITCH = "github"
IN_FLIGHT = (Status.PENDING, Status.SENDING)
DELIVER_TASK = "automation.outbox.tasks.deliver_github_write"
# a write's own task goes first: the sweep queues again what waited this long after that
RESEND_GRACE = timedelta(minutes=2)
# a send under way holds its row this long (longer than a task may run): after it, interrupted
SEND_LEASE = timedelta(minutes=15)
RESEND_BATCH = 1000


class WritesStopped(Exception):
    pass


def marker(name: str) -> str:
    """The hidden line that marks the bot's comment of one kind on an issue."""
    return f"{MARKER_PREFIX}{name} -->"


def is_bot_text(body: str) -> bool:
    """A comment the bot wrote (its marker is in it): not a person's answer, not a command."""
    return MARKER_PREFIX in (body or "")


# --- the switch ----------------------------------------------------------------------------


def writes_stopped() -> str:
    """Why every write is stopped, or "" while writes may go out."""
    if settings.GITHUB_WRITES_STOPPED:
        return "all writes to GitHub are stopped (GITHUB_WRITES_STOPPED)"
    switch = WriteSwitch.objects.filter(name=SWITCH, stopped=True).first()
    if switch is None:
        return ""
    who = switch.changed_by.get_username() if switch.changed_by else "an admin"
    why = f": {switch.reason}" if switch.reason else ""
    return f"all writes to GitHub stopped by {who} at {switch.changed_at:%Y-%m-%d %H:%M}{why}"


@transaction.atomic
def writes_stop(*, user, reason: str = "", stopped: bool = True) -> int:
    """Stop (or allow again) every write; stopping skips what is waiting. Returns that count."""
    WriteSwitch.objects.update_or_create(
        name=SWITCH,
        defaults={
            "stopped": stopped,
            "reason": reason[:255],
            "changed_by": user,
            "changed_at": timezone.now(),
        },
    )
    if not stopped:
        return 0
    return GitHubWrite.objects.filter(status=Status.PENDING).update(
        status=Status.SKIPPED,
        detail=writes_stopped(),
        finished_at=timezone.now(),
    )


# --- planning ------------------------------------------------------------------------------


def opted_in(repository: Repository, action: str) -> bool:
    return repository.on_github and action in (repository.github_actions or [])


def _skip_or_plan_once(row: GitHubWrite) -> GitHubWrite:
    """A skipped or planned decision is recorded once per key and reason, not at every pass."""
    same = GitHubWrite.objects.filter(
        issue=row.issue, key=row.key, status=row.status, detail=row.detail
    ).first()
    if same is not None:
        return same
    row.finished_at = timezone.now()
    row.save()
    return row


def write_plan(
    *,
    issue: Issue,
    action: str,
    operation: str,
    key: str,
    payload: dict,
    reason: str,
    decided_by: str,
    actor=None,
    model_name: str = "",
    model_version: str = "",
    asked: bool = False,
) -> GitHubWrite:
    """Record a decision to write on GitHub and, where allowed, send it once committed.

    `asked`: a person asked for it (a dashboard click, a comment command), so a maintainer's own
    issue is not exempt."""
    if action not in ACTIONS:
        raise ValueError(f"unknown GitHub action {action!r}")
    repository = issue.repository
    row = GitHubWrite(
        repository=repository,
        issue=issue,
        action=action,
        operation=operation,
        key=key[:200],
        payload=payload,
        reason=reason[:2000],
        decided_by=decided_by[:200],
        actor=actor,
        model_name=model_name[:64],
        model_version=model_version[:100],
    )
    existing = GitHubWrite.objects.filter(
        issue=issue, key=row.key, status__in=[*IN_FLIGHT, Status.DONE, Status.FAILED]
    ).first()
    if existing is not None:
        return existing  # decided already: a redelivery, a retry
    stopped = writes_stopped()
    if stopped:
        row.status, row.detail = Status.SKIPPED, stopped
    elif not repository.on_github:
        row.status = Status.SKIPPED
        row.detail = f"{repository.full_name} is not a GitHub repository ({repository.source})"
    elif not opted_in(repository, action):
        row.status = Status.SKIPPED
        row.detail = f"{repository.full_name} has not opted in to: {action_words(action)}"
    elif (
        not asked
        and action not in FOR_MAINTAINERS_TOO
        and issue.author_association in MAINTAINER_ASSOCIATIONS
    ):
        row.status = Status.SKIPPED
        row.detail = f"a maintainer's own issue ({issue.author_association}): not unless asked"
    elif repository.github_dry_run:
        row.status = Status.PLANNED
        row.detail = f"dry run: would {describe(row)}"
    if row.status:
        return _skip_or_plan_once(row)
    row.status = Status.PENDING
    try:
        with transaction.atomic():
            row.save()
    except IntegrityError:  # planned at the same moment by another worker
        return GitHubWrite.objects.get(
            issue=issue, key=row.key, status__in=[*IN_FLIGHT, Status.DONE, Status.FAILED]
        )
    transaction.on_commit(lambda pk=row.pk: _enqueue(pk))
    return row


def _enqueue(pk: int, countdown: float | None = None) -> bool:
    try:
        wiring.load(DELIVER_TASK).apply_async(kwargs={"write_id": pk}, countdown=countdown)
    except BrokerError as exc:  # the row is pending: the sweep queues it once the broker is back
        logger.error("could not queue GitHub write %s (%s); left pending", pk, exc)
        return False
    return True


# How a write of each plain operation reads; comments, review requests and reactions below.
DESCRIPTIONS = {
    Op.ADD_LABELS: "add labels {labels} to {ref}",
    Op.REMOVE_LABEL: "remove label {label} from {ref}",
    Op.ASSIGN: "assign {assignees} to {ref}",
    Op.UNASSIGN: "unassign {assignees} from {ref}",
    Op.CLOSE: "close {ref} as {state_reason}",
    Op.REOPEN: "reopen {ref}",
    Op.EDIT_TITLE: "retitle {ref}: {title}",
    Op.LOCK: "lock {ref} ({lock_reason})",
    Op.UNLOCK: "unlock {ref}",
}


def describe(row: GitHubWrite) -> str:
    """What the write does, in words (the dry run's listing, the audit)."""
    data = row.payload or {}
    ref = row.issue.reference
    if row.operation in DESCRIPTIONS:
        return DESCRIPTIONS[row.operation].format(
            ref=ref,
            labels=", ".join(data.get("labels", [])),
            label=data.get("label", ""),
            assignees=", ".join(data.get("assignees", [])),
            state_reason=data.get("state_reason", "completed"),
            title=data.get("title", ""),
            lock_reason=data.get("lock_reason") or "no reason",
        )
    if row.operation == Op.COMMENT:
        first = (data.get("body") or "").strip().splitlines()[:1]
        return f"comment on {ref} ({data.get('marker', '')}): {first[0][:120] if first else ''}"
    if row.operation == Op.REQUEST_REVIEW:
        org = row.repository.owner
        named = [
            *data.get("reviewers", []),
            *(f"{org}/{t}" for t in data.get("team_reviewers", [])),
        ]
        return f"request reviews of {ref} from {', '.join('@' + n for n in named)}"
    target = f"comment {data['comment_id']}" if data.get("comment_id") else ref
    return f"react {data.get('content', '+1')} to {target}"


# --- doing ---------------------------------------------------------------------------------


def _claim(write_id: int) -> GitHubWrite | None:
    """Hold the row for one send: a pending row, or a send interrupted past its lease."""
    now = timezone.now()
    interrupted = Q(status=Status.SENDING) & (Q(not_before=None) | Q(not_before__lte=now))
    claimed = (
        GitHubWrite.objects.filter(pk=write_id)
        .filter(Q(status=Status.PENDING) | interrupted)
        .update(status=Status.SENDING, attempts=F("attempts") + 1, not_before=now + SEND_LEASE)
    )
    if not claimed:
        return None
    return GitHubWrite.objects.select_related("issue", "repository").get(pk=write_id)


def _finish(row: GitHubWrite, status: str, detail: str, github_id: int | None = None) -> None:
    row.status, row.detail, row.finished_at = status, detail[:2000], timezone.now()
    if github_id is not None:
        row.github_id = github_id
    row.save(update_fields=["status", "detail", "finished_at", "github_id"])


def write_deliver(*, write_id: int, source: GitHubSource | None = None) -> GitHubWrite | None:
    """Perform one pending write through PyGithub and record GitHub's answer.

    Raises RateLimited (the row waits, pending) and TransientGitHubError (pending again while
    attempts remain) for the task to retry later; any other GitHub error fails the row."""
    row = _claim(write_id)
    if row is None:
        return None  # done, failed or skipped already: a duplicate task
    stopped = writes_stopped()
    if stopped:
        _finish(row, Status.SKIPPED, stopped)
        return row
    source = source or GitHubSource()
    try:
        detail, github_id = PERFORM[row.operation](row, source)
    except RateLimited as exc:
        GitHubWrite.objects.filter(pk=row.pk).update(
            status=Status.PENDING, not_before=_turn(exc, row.attempts)
        )
        raise
    except TransientGitHubError as exc:
        if row.attempts >= MAX_ATTEMPTS:
            _finish(row, Status.FAILED, f"{exc} (after {row.attempts} attempts)")
            return row
        GitHubWrite.objects.filter(pk=row.pk).update(
            status=Status.PENDING, detail=str(exc)[:2000], not_before=_turn(exc, row.attempts)
        )
        raise
    except GitHubError as exc:
        _finish(row, Status.FAILED, str(exc))
        logger.warning("GitHub refused %s: %s", describe(row), exc)
        return row
    _finish(row, Status.DONE, detail, github_id)
    return row


def _issue_path(row: GitHubWrite) -> str:
    return f"/repos/{row.repository.full_name}/issues/{row.issue.number}"


@cache
def _bot_login(api_url: str) -> str:
    """GITHUB_BOT_LOGIN, else the App's "SLUG[bot]", else the token's user (GET /user)."""
    if settings.GITHUB_BOT_LOGIN:
        return settings.GITHUB_BOT_LOGIN
    if app_auth.app_configured():
        return app_bot_login()
    return (GitHubSource().get("/user").items or {}).get("login", "")


def _marked_comment(row: GitHubWrite, source: GitHubSource, name: str) -> int | None:
    """The bot's comment with this marker on the issue: the id we stored, else (after an
    interrupted attempt) the one GitHub lists with the marker and the bot's login."""
    done = (
        GitHubWrite.objects.filter(
            issue=row.issue, operation=Op.COMMENT, status=Status.DONE, payload__marker=name
        )
        .exclude(github_id=None)
        .order_by("-finished_at")
        .first()
    )
    if done is not None:
        return done.github_id
    interrupted = row.attempts > 1 or (
        GitHubWrite.objects.filter(issue=row.issue, operation=Op.COMMENT, payload__marker=name)
        .filter(Q(status=Status.FAILED) | Q(status=Status.SENDING))
        .exclude(pk=row.pk)
        .exists()
    )
    if not interrupted:
        return None
    login, url = _bot_login(settings.GITHUB_API_URL), f"{_issue_path(row)}/comments"
    while url:
        page = source.get(url, params=None if "?" in url else {"per_page": 100})
        for item in page.items or []:
            if marker(name) in (item.get("body") or "") and (
                not login or (item.get("user") or {}).get("login") == login
            ):
                return item["id"]
        url = page.links.get("next", "")
    return None


def _comment(row: GitHubWrite, source: GitHubSource) -> tuple[str, int | None]:
    data = row.payload
    name = data.get("marker", "")
    body = data["body"] + (f"\n\n{marker(name)}" if name else "")
    existing = _marked_comment(row, source, name) if name else None
    if existing is not None:
        path = f"/repos/{row.repository.full_name}/issues/comments/{existing}"
        try:
            source.patch(path, {"body": body})
        except GitHubError as exc:
            if exc.status != 404 or isinstance(exc, RateLimited | TransientGitHubError):
                raise
            return "the bot's comment was deleted on GitHub: not posted again", existing
        return f"edited comment {existing}", existing
    page = source.post(f"{_issue_path(row)}/comments", {"body": body})
    return f"commented: {page.items.get('html_url', '')}", page.items.get("id")


def _mirror_labels(row: GitHubWrite, labels) -> None:
    if not isinstance(labels, list):
        return
    pks = ingest.labels_upsert(repository=row.repository, labels=labels)
    through = Issue.labels.through
    through.objects.filter(issue_id=row.issue_id).exclude(label_id__in=pks.values()).delete()
    through.objects.bulk_create(
        [through(issue_id=row.issue_id, label_id=pk) for pk in pks.values()],
        ignore_conflicts=True,
    )


def _add_labels(row, source):
    page = source.post(f"{_issue_path(row)}/labels", {"labels": row.payload["labels"]})
    _mirror_labels(row, page.items)
    return f"labels now: {', '.join(lb['name'] for lb in page.items or [])}", None


def _remove_label(row, source):
    label = row.payload["label"]
    try:
        page = source.delete(f"{_issue_path(row)}/labels/{quote(label, safe='')}")
    except GitHubError as exc:
        if exc.status == 404 and not isinstance(exc, RateLimited | TransientGitHubError):
            return f"{label!r} was not on the issue", None
        raise
    _mirror_labels(row, page.items)
    return f"removed {label!r}", None


def _mirror_assignees(row: GitHubWrite, issue_data) -> None:
    """Put GitHub's answer (the issue's assignees now) on our copy."""
    people = [records.person(a) for a in (issue_data or {}).get("assignees") or []]
    pks = upsert.persons_upsert(people=people)
    row.issue.assignees.set(list(pks.values()))


def _assign(row, source):
    wanted = row.payload["assignees"]
    page = source.post(f"{_issue_path(row)}/assignees", {"assignees": wanted})
    _mirror_assignees(row, page.items)
    now = {a["login"].lower() for a in (page.items or {}).get("assignees") or []}
    refused = [login for login in wanted if login.lower() not in now]
    if refused:  # GitHub ignores logins that may not be assigned, with a 201
        raise GitHubError(422, f"GitHub did not assign {', '.join(refused)}: not assignable")
    return f"assignees now: {', '.join(sorted(now))}", None


def _unassign(row, source):
    page = source.delete(f"{_issue_path(row)}/assignees", {"assignees": row.payload["assignees"]})
    _mirror_assignees(row, page.items)
    now = sorted(a["login"] for a in (page.items or {}).get("assignees") or [])
    return f"assignees now: {', '.join(now) or 'none'}", None


def _set_state(row, source, state: str):
    body = {"state": state}
    if state == "closed":
        body["state_reason"] = row.payload.get("state_reason", "completed")
    page = source.patch(_issue_path(row), body)
    data = page.items or {}
    changes = {"state": data.get("state", state), "state_reason": data.get("state_reason") or ""}
    # GitHub's times too: a stale delivery (older updated_at) must not undo the change here
    for name in ("updated_at", "closed_at"):
        if name in data:
            changes[name] = parse_timestamp(data[name]) if data[name] else None
    if changes.get("updated_at") is None:
        changes.pop("updated_at", None)
    Issue.objects.filter(pk=row.issue_id).update(**changes)
    return f"{data.get('state', state)} ({data.get('state_reason') or '-'})", None


def _edit_title(row, source):
    page = source.patch(_issue_path(row), {"title": row.payload["title"]})
    data = page.items or {}
    title = data.get("title", row.payload["title"])
    Issue.objects.filter(pk=row.issue_id).update(title=title)
    return f"title now: {title}", None


def _lock(row, source, locked: bool):
    path = f"{_issue_path(row)}/lock"
    if locked:
        reason = row.payload.get("lock_reason")
        source.put(path, {"lock_reason": reason} if reason else None)
    else:
        try:
            source.delete(path)
        except GitHubError as exc:
            if exc.status != 404 or isinstance(exc, RateLimited | TransientGitHubError):
                raise
            return "it was not locked", None
    return ("locked" if locked else "unlocked"), None


def _react(row, source):
    comment_id = row.payload.get("comment_id")
    repo = row.repository.full_name
    path = (
        f"/repos/{repo}/issues/comments/{comment_id}/reactions"
        if comment_id
        else f"{_issue_path(row)}/reactions"
    )
    page = source.post(path, {"content": row.payload.get("content", "+1")})
    return f"reacted {row.payload.get('content', '+1')}", (page.items or {}).get("id")


def _request_review(row, source):
    """One request for every owner. GitHub refuses the whole request (422) when one of them may
    not review (not a collaborator, or gone); then each is asked alone, so the others still are
    (GitHub's own CODEOWNERS skips such an owner). Fails only when GitHub refuses them all."""
    data = row.payload
    path = f"/repos/{row.repository.full_name}/pulls/{row.issue.number}/requested_reviewers"
    users, teams = data.get("reviewers", []), data.get("team_reviewers", [])
    try:
        pull = source.post(path, {"reviewers": users, "team_reviewers": teams}).items or {}
    except GitHubError as exc:
        if exc.status != 422 or len(users) + len(teams) < 2:
            raise
        pull, refused = _request_review_each(source, path, users, teams, exc)
        done = _requested_now(row, pull)
        return f"{done}; GitHub refused {', '.join(refused)}: {exc}", None
    return _requested_now(row, pull), None


def _request_review_each(source, path, users, teams, refusal):
    pull, refused = None, []
    asks = [({"reviewers": [u]}, u) for u in users]
    asks += [({"team_reviewers": [t]}, f"team {t}") for t in teams]
    for body, who in asks:
        try:
            pull = source.post(path, body).items or {}
        except GitHubError as exc:
            if exc.status != 422:
                raise
            refused.append(who)
    if pull is None:  # every one refused: the request fails with GitHub's first answer
        raise refusal
    return pull, refused


def _requested_now(row, pull: dict) -> str:
    users = [u["login"] for u in pull.get("requested_reviewers") or [] if isinstance(u, dict)]
    teams = [t["slug"] for t in pull.get("requested_teams") or [] if isinstance(t, dict)]
    named = users + [f"{row.repository.owner}/{slug}" for slug in teams]
    return f"reviews requested now: {', '.join(named) or 'none'}"


PERFORM = {
    Op.COMMENT: _comment,
    Op.ADD_LABELS: _add_labels,
    Op.REMOVE_LABEL: _remove_label,
    Op.ASSIGN: _assign,
    Op.UNASSIGN: _unassign,
    Op.CLOSE: lambda row, source: _set_state(row, source, "closed"),
    Op.REOPEN: lambda row, source: _set_state(row, source, "open"),
    Op.EDIT_TITLE: _edit_title,
    Op.LOCK: lambda row, source: _lock(row, source, True),
    Op.UNLOCK: lambda row, source: _lock(row, source, False),
    Op.REACT: _react,
    Op.REQUEST_REVIEW: _request_review,
}


def retry_countdown(exc: GitHubError, attempts: int) -> float:
    if isinstance(exc, RateLimited):
        return exc.seconds_to_wait()
    return min(600.0, 15.0 * 2 ** max(0, attempts - 1))


def _turn(exc: GitHubError, attempts: int):
    """When a write that waits may be tried again (the rate limit's reset, the 5xx back-off)."""
    return timezone.now() + timedelta(seconds=retry_countdown(exc, attempts))


# --- the sweep: what was left pending ------------------------------------------------------


def _left_waiting(now) -> Q:
    """Rows whose own task should have sent them by now: pending past the grace (and past their
    wait), or a send interrupted (its lease over)."""
    settled = now - RESEND_GRACE
    pending = Q(status=Status.PENDING, created_at__lt=settled) & (
        Q(not_before=None) | Q(not_before__lt=settled)
    )
    interrupted = Q(status=Status.SENDING) & (
        Q(not_before__lt=settled) | Q(not_before=None, created_at__lt=now - SEND_LEASE)
    )
    return pending | interrupted


def writes_pending_resend(*, now=None) -> int:
    """Queue again, once each, the writes left waiting (the beat job, every 5 minutes); with
    every write stopped, skip them instead. Returns how many were queued."""
    now = now or timezone.now()
    waiting = GitHubWrite.objects.filter(_left_waiting(now))
    stopped = writes_stopped()
    if stopped:
        waiting.update(status=Status.SKIPPED, detail=stopped, finished_at=now)
        return 0
    queued = 0
    for pk in waiting.order_by("created_at", "id").values_list("pk", flat=True)[:RESEND_BATCH]:
        # claimed for this sweep (another sweep, a second beat, does not queue it again), and
        # pending again: an interrupted send is one its task may claim
        mine = GitHubWrite.objects.filter(_left_waiting(now), pk=pk).update(
            status=Status.PENDING, not_before=now + SEND_LEASE
        )
        if not mine:
            continue
        if _enqueue(pk):
            queued += 1
        else:  # the broker is down: the next sweep tries again
            GitHubWrite.objects.filter(pk=pk, status=Status.PENDING).update(not_before=None)
    if queued:
        logger.info("queued again %d GitHub writes left waiting", queued)
    return queued
