"""Each maintainer's inbox: what concerns them, once per cause.

Who is who on GitHub comes from each user's preferences (their GitHub login). After issues or
their comments change (the pipeline's `update_inboxes` step), and after they are classified
(known-error matches, reproducers), the issues are read again and an item is made for:

- an issue assigned to the user (who then follows it);
- a mention of `@login` in an issue's body or a comment (outside code blocks), not their own;
- a reply on an issue the user follows, by someone else;
- a reproducer awaiting approval, or a known-error match to confirm, on an issue the user is
  assigned to or follows, where they may approve or decide.

An item is keyed by what caused it (the comment, the issue, the match), so reading the same
issue again, a redelivered webhook or a retried task adds nothing. Items are read or unread and
snoozed until a time or until the reporter answers (their next comment wakes the item). A user
who asked for it in their preferences gets each new item by e-mail.

History is not news: only comments and issues of the last RECENT days, written after the
repository was tracked, make items.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import timedelta
from typing import NamedTuple

from django.conf import settings
from django.core.mail import send_mail
from django.db.models import Q
from django.utils import timezone

from classifiers.markdown_blocks import code_blocks, text_without
from config import linear_re, wiring
from config.reports import Tally
from triage.models import Comment, InboxItem, Issue, IssueFollow, Repository, UserPreference
from triage.permissions import may

RECENT = timedelta(days=14)
MENTION = linear_re.compile(r"(?:^|[^A-Za-z0-9_@/.`-])@([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))")
MAX_MENTIONS = 50  # per text
Reason = InboxItem.Reason


@dataclass
class InboxReport(Tally):
    TITLE = "inboxes"

    created: list[str] = field(default_factory=list)
    emailed: int = 0

    def summary(self) -> str:
        return f"{len(self.created)} inbox item(s), {self.emailed} e-mailed"


class Concern(NamedTuple):
    """An item a later stage asks for, for each user concerned with the issue who may act on it
    (wiring.INBOX_CONCERNS): a known-error match to confirm ..."""

    reason: str  # an InboxItem.Reason
    key: str  # one item per user and key, ever
    text: str
    permission: str  # triage.permissions.may's action: only users who may get it


def mentions(text: str) -> set[str]:
    """The logins @-mentioned in Markdown outside its code (lower-cased)."""
    prose = text_without(text or "", code_blocks(text or ""))
    found = MENTION.findall(prose)
    return {login.lower() for login in found[:MAX_MENTIONS]}


def users_by_login() -> dict[str, object]:
    preferences = UserPreference.objects.exclude(github_login="").select_related("user")
    return {p.github_login.lower(): p.user for p in preferences if p.user.is_active}


def follow(*, user, issue, on: bool = True) -> None:
    if on:
        IssueFollow.objects.get_or_create(user=user, issue=issue)
    else:
        IssueFollow.objects.filter(user=user, issue=issue).delete()


def inbox_update(*, issue_ids: list[int]) -> InboxReport:
    """Make the items these issues call for (once each)."""
    report = InboxReport()
    people = users_by_login()
    if not people:
        return report
    since = timezone.now() - RECENT
    issues = list(
        Issue.objects.filter(pk__in=issue_ids, deleted_at__isnull=True)
        .select_related("author", "repository")
        .prefetch_related("assignees")
    )
    if not issues:
        return report
    followers: dict[int, set] = defaultdict(set)
    for follow_row in IssueFollow.objects.filter(issue__in=issues).select_related("user"):
        followers[follow_row.issue_id].add(follow_row.user)
    comments: dict[int, list[Comment]] = defaultdict(list)
    for comment in (
        Comment.objects.filter(issue__in=issues, deleted_at__isnull=True, created_at__gte=since)
        .filter(Repository.since_tracked("issue__repository"))
        .select_related("author")
        .order_by("created_at", "id")
    ):
        comments[comment.issue_id].append(comment)
    awaiting = (
        set(
            Issue.objects.filter(pk__in=[i.pk for i in issues])
            .filter(pk__in=wiring.load(wiring.QUEUE_FILTERS["awaiting_approval"])())
            .values_list("pk", flat=True)
        )
        if "awaiting_approval" in wiring.QUEUE_FILTERS
        else set()
    )
    concerns: dict[int, list[Concern]] = defaultdict(list)
    for dotted in wiring.INBOX_CONCERNS:
        for issue_id, found in wiring.load(dotted)(issues=issues).items():
            concerns[issue_id].extend(found)

    wanted: list[InboxItem] = []
    for issue in issues:
        wanted += _items_of(
            issue,
            people=people,
            followers=followers[issue.pk],
            comments=comments[issue.pk],
            awaiting=issue.pk in awaiting,
            concerns=concerns[issue.pk],
            since=since,
        )
        _wake_on_reply(issue, comments[issue.pk])
    _store(wanted, report)
    return report


def _items_of(issue, *, people, followers, comments, awaiting, concerns, since) -> list:
    items = []
    reporter = (issue.author.login if issue.author else "").lower()
    assigned = [people[a.login.lower()] for a in issue.assignees.all() if a.login.lower() in people]
    for user in assigned:
        follow(user=user, issue=issue)
        items.append(_item(user, issue, Reason.ASSIGNED, f"assigned:{issue.pk}", issue.title))
    concerned = set(assigned) | set(followers)
    fresh = issue.created_at and issue.created_at >= since
    if fresh and issue.repository.added_at and issue.created_at >= issue.repository.added_at:
        for login in mentions(issue.body) - {reporter}:
            if login in people:
                key = f"mention:issue:{issue.pk}"
                items.append(
                    _item(people[login], issue, Reason.MENTIONED, key, issue.body, reporter)
                )
    for comment in comments:
        author = (comment.author.login if comment.author else "").lower()
        for login in mentions(comment.body) - {author}:
            if login in people:
                key = f"mention:{comment.external_id}"
                items.append(
                    _item(people[login], issue, Reason.MENTIONED, key, comment.body, author)
                )
        for user in followers:
            if people.get(author) != user:
                key = f"reply:{comment.external_id}"
                items.append(_item(user, issue, Reason.REPLY, key, comment.body, author))
    for user in concerned:
        if awaiting and may(user, "approve_repro"):
            items.append(_item(user, issue, Reason.REPRO, f"repro:{issue.pk}", issue.title))
        for concern in concerns:
            if may(user, concern.permission):
                items.append(_item(user, issue, concern.reason, concern.key, concern.text))
    return items


def _item(user, issue, reason, key, text="", actor=""):
    excerpt = " ".join((text or "").split())[:300]
    return InboxItem(
        user=user, issue=issue, reason=reason, key=key[:200], excerpt=excerpt, actor=actor[:100]
    )


def _wake_on_reply(issue, comments) -> None:
    """Items snoozed until the reporter answers wake at the reporter's next comment."""
    if not issue.author_id:
        return
    for item in InboxItem.objects.filter(issue=issue, until_reply=True):
        if any(c.author_id == issue.author_id and c.created_at > item.created_at for c in comments):
            item.until_reply, item.snoozed_until, item.read_at = False, None, None
            item.save(update_fields=["until_reply", "snoozed_until", "read_at"])


def _store(wanted: list[InboxItem], report: InboxReport) -> None:
    unique = {(item.user.pk, item.key): item for item in wanted}
    if not unique:
        return
    existing = set(
        InboxItem.objects.filter(
            user__in={item.user for item in unique.values()},
            key__in={key for _, key in unique},
        ).values_list("user_id", "key")
    )
    new = [item for pair, item in unique.items() if pair not in existing]
    InboxItem.objects.bulk_create(new, ignore_conflicts=True)
    report.created += [f"{item.user.get_username()}: {item.key}" for item in new]
    report.emailed = _email(new)


def _email(items: list[InboxItem]) -> int:
    wanting = set(
        UserPreference.objects.filter(
            user__in={item.user for item in items}, inbox_email=True
        ).values_list("user_id", flat=True)
    )
    sent = 0
    for item in items:
        if item.user.pk not in wanting or not item.user.email:
            continue
        subject = f"[{item.issue.reference}] {item.get_reason_display()}: {item.issue.title}"
        body = f"{item.excerpt}\n\nYour inbox: {settings.INBOX_URL}" if settings.INBOX_URL else ""
        body = item.excerpt + (f"\n\n{body}" if body else "")
        send_mail(subject[:200], body, None, [item.user.email], fail_silently=True)
        sent += 1
    if sent:
        InboxItem.objects.filter(
            user__in=[i.user for i in items], key__in=[i.key for i in items]
        ).update(emailed_at=timezone.now())
    return sent


# --- reading one's inbox ----------------------------------------------------------------------


def visible(now=None) -> Q:
    now = now or timezone.now()
    return Q(until_reply=False) & (Q(snoozed_until__isnull=True) | Q(snoozed_until__lte=now))


def unread_count(user) -> int:
    return InboxItem.objects.filter(user=user, read_at__isnull=True).filter(visible()).count()


def items(*, user, show: str = "unread"):
    found = InboxItem.objects.filter(user=user).select_related("issue__repository")
    if show == "snoozed":
        return found.exclude(visible())
    found = found.filter(visible())
    return found.filter(read_at__isnull=True) if show == "unread" else found


def item_set(*, user, pk: int, do: str, days: int = 0) -> InboxItem:
    """read, unread, snooze (for `days`), snooze_reply (until the reporter answers), wake."""
    item = InboxItem.objects.get(user=user, pk=pk)
    now = timezone.now()
    if do == "read":
        item.read_at = now
    elif do == "unread":
        item.read_at = None
    elif do == "snooze":
        item.snoozed_until, item.until_reply = now + timedelta(days=max(1, min(days, 90))), False
    elif do == "snooze_reply":
        item.until_reply, item.snoozed_until = True, None
    elif do == "wake":
        item.until_reply, item.snoozed_until = False, None
    else:
        raise ValueError(do)
    item.save(update_fields=["read_at", "snoozed_until", "until_reply"])
    return item


def all_read(*, user) -> int:
    return (
        InboxItem.objects.filter(user=user, read_at__isnull=True)
        .filter(visible())
        .update(read_at=timezone.now())
    )
