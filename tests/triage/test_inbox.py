"""Each maintainer's inbox: mentions, replies on followed issues, assignments; once per cause;
read, snoozed (until a time or the reporter's answer), e-mailed when asked for."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from tests.conftest import user_with_role
from triage.models import InboxItem, IssueFollow, UserPreference
from triage.services import inbox

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice(django_user_model):
    user = user_with_role(django_user_model, "alice-m", "triagers")
    user.email = "alice@example.org"
    user.save()
    UserPreference.objects.create(user=user, github_login="maint-alice")
    return user


def test_a_mention_in_a_comment_reaches_the_inbox_once(make, alice):
    issue = make.issue(number=5, title="hang on gfx942", author="reporter1")
    make.comment(issue, body="@maint-alice could you look? `@not-a-mention`", author="reporter1")
    make.comment(issue, body="```\n@maint-alice in a log\n```", author="reporter1")
    for _ in range(2):  # a redelivery, a retried task: nothing more
        inbox.inbox_update(issue_ids=[issue.pk])
    [item] = InboxItem.objects.all()
    assert (item.user, item.reason, item.actor) == (alice, "mentioned", "reporter1")
    assert inbox.unread_count(alice) == 1


def test_replies_on_a_followed_issue_but_not_ones_own(make, alice):
    issue = make.issue(number=6, title="rccl hang", author="reporter1")
    inbox.follow(user=alice, issue=issue)
    make.comment(issue, body="Still hangs with 6.4.", author="reporter1")
    make.comment(issue, body="Looking.", author="maint-alice")
    inbox.inbox_update(issue_ids=[issue.pk])
    assert list(InboxItem.objects.values_list("reason", "actor")) == [("reply", "reporter1")]


def test_an_assignment_reaches_the_inbox_and_follows_the_issue(make, alice):
    issue = make.issue(number=7, title="gemm slow")
    issue.assignees.set([make.person("maint-alice")])
    inbox.inbox_update(issue_ids=[issue.pk])
    assert InboxItem.objects.get().reason == "assigned"
    assert IssueFollow.objects.filter(user=alice, issue=issue).exists()


def test_history_is_not_news(make, alice):
    issue = make.issue(number=8, title="old")
    make.comment(
        issue, body="@maint-alice ping", created_at=timezone.now() - inbox.RECENT - timedelta(1)
    )
    inbox.inbox_update(issue_ids=[issue.pk])
    assert not InboxItem.objects.exists()


def test_snoozed_until_the_reporter_answers_then_it_wakes(make, alice):
    issue = make.issue(number=9, title="hang", author="reporter1")
    make.comment(issue, body="@maint-alice see logs", author="reporter1")
    inbox.inbox_update(issue_ids=[issue.pk])
    item = InboxItem.objects.get()
    inbox.item_set(user=alice, pk=item.pk, do="read")
    inbox.item_set(user=alice, pk=item.pk, do="snooze_reply")
    assert inbox.unread_count(alice) == 0 and list(inbox.items(user=alice, show="snoozed"))
    make.comment(issue, body="Here is the trace.", author="someone-else")
    inbox.inbox_update(issue_ids=[issue.pk])
    assert list(inbox.items(user=alice, show="snoozed"))  # not the reporter: still asleep
    make.comment(issue, body="Here is the trace.", author="reporter1", created_at=timezone.now())
    inbox.inbox_update(issue_ids=[issue.pk])
    assert inbox.unread_count(alice) == 1


def test_the_page_marks_read_snoozes_and_polls(client, make, alice):
    issue = make.issue(number=10, title="crash in hipMalloc", author="reporter1")
    make.comment(issue, body="@maint-alice fyi", author="reporter1")
    inbox.inbox_update(issue_ids=[issue.pk])
    client.force_login(alice)
    page = client.get(reverse("inbox")).content.decode()
    assert "crash in hipMalloc" in page and 'hx-trigger="every 30s"' in page
    assert '<span class="badge inbox-count"' in client.get(reverse("inbox-count")).content.decode()
    item = InboxItem.objects.get()
    client.post(reverse("inbox-item-set", args=[item.pk]), {"do": "snooze:3"})
    item.refresh_from_db()
    assert item.snoozed_until > timezone.now() + timedelta(days=2)
    assert "Nothing new." in client.get(reverse("inbox-rows")).content.decode()
    other = user_with_role(type(alice), "bob", "viewers")
    client.force_login(other)
    assert client.post(reverse("inbox-item-set", args=[item.pk]), {"do": "read"}).status_code == 404


def test_new_items_are_e_mailed_to_those_who_asked(make, alice):
    UserPreference.objects.filter(user=alice).update(inbox_email=True)
    issue = make.issue(number=11, title="NaN in softmax", author="reporter1")
    make.comment(issue, body="@maint-alice NaNs again", author="reporter1")
    inbox.inbox_update(issue_ids=[issue.pk])
    inbox.inbox_update(issue_ids=[issue.pk])
    [message] = mail.outbox
    assert message.to == ["alice@example.org"] and "you were mentioned" in message.subject


def deliver_comment(client, text: str, secret: str):
    """A signed issue_comment `created` delivery of a comment written now, saying `text`."""
    from tests.fakes.github_webhooks import delivery_headers, fixture_payload

    payload = fixture_payload("issue_comment__created")
    now = timezone.now().strftime("%Y-%m-%dT%H:%M:%SZ")
    payload["comment"].update(body=text, created_at=now, updated_at=now)
    body = json.dumps(payload).encode()
    headers = delivery_headers("issue_comment", body, secret, None)
    headers.pop("Content-Type")
    return client.post(
        "/webhooks/github/", data=body, content_type="application/json", headers=headers
    )


@pytest.mark.django_db(transaction=True)
def test_a_mention_delivered_by_webhook_reaches_the_inbox(client, settings, alice):
    settings.GITHUB_WEBHOOK_SECRET = "inbox-secret"
    answer = deliver_comment(client, "@maint-alice can you repro?", "inbox-secret")
    assert answer.status_code in (200, 202)
    [item] = InboxItem.objects.all()
    assert (item.user, item.reason) == (alice, "mentioned")
