"""Where maintainers see what the service does on GitHub: queue, issue page, settings switch."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from automation.needs_info.models import NeedsInfo
from automation.outbox.models import GitHubWrite, WriteSwitch


@pytest.fixture
def waiting(make):
    issue = make.issue(number=31, title="hipMemcpy fails after a few iterations")
    make.priority(issue, 40)
    NeedsInfo.objects.create(
        issue=issue,
        state="asking",
        missing=["rocm_version", "os"],
        asked_for=["rocm_version", "os"],
        asked_at=timezone.now() - timedelta(days=3),
    )
    GitHubWrite.objects.create(
        repository=issue.repository,
        issue=issue,
        action="needs_info.label",
        operation="add_labels",
        key="k",
        payload={"labels": ["needs info"]},
        status="failed",
        decided_by="rule needs-info",
        detail="GitHub answered 403: Resource not accessible by integration",
    )
    return issue


def test_the_queue_shows_the_needs_info_clock_and_filters_on_it(triager_client, make, waiting):
    other = make.issue(number=32, title="Feature: FP8 on gfx1100")
    make.priority(other, 90)
    page = triager_client.get(reverse("triage-queue")).content.decode()
    assert "needs info" in page and "asked 3" in page and "reminder in 1" in page
    filtered = triager_client.get(reverse("triage-queue"), {"needs_info": "on"}).content.decode()
    assert "hipMemcpy fails" in filtered and "FP8 on gfx1100" not in filtered


def test_the_issue_page_shows_a_failed_write_with_githubs_message(triager_client, waiting):
    url = reverse("issue-detail", args=["ROCm", "ROCm", 31])
    page = triager_client.get(url).content.decode()
    assert "On GitHub" in page and "Missing: rocm version, os." in page
    assert "GitHub answered 403: Resource not accessible by integration" in page
    assert "add labels needs info to ROCm/ROCm#31" in page


@pytest.mark.django_db
def test_a_triager_stops_every_write_and_only_an_admin_allows_them_again(
    triager_client, admin_client, waiting
):
    url = reverse("github-writes-switch")
    response = triager_client.post(url, {"stopped": "1", "reason": "spamming"})
    assert response.status_code == 302
    assert WriteSwitch.objects.get().stopped
    page = triager_client.get(reverse("settings")).content.decode()
    assert "stopped by tess" in page and "spamming" in page
    assert "Allow writes again" not in page
    assert triager_client.post(url, {"stopped": "0"}).status_code == 403
    assert WriteSwitch.objects.get().stopped
    admin_client.post(url, {"stopped": "0"})
    assert not WriteSwitch.objects.get().stopped


def test_a_viewer_cannot_touch_the_switch(logged_in_client, db):
    assert (
        logged_in_client.post(reverse("github-writes-switch"), {"stopped": "1"}).status_code == 403
    )
    assert not WriteSwitch.objects.exists()


def _visible_text(html: str) -> str:
    import re
    from html import unescape

    return unescape(" ".join(re.sub(r"<[^>]+>", " ", html).split()))


def test_the_settings_page_names_each_opt_in_and_failed_write_in_words(triager_client, make):
    repository = make.repository("ROCm/rocm-libraries", tracked=True)
    repository.github_actions = ["known_errors.answer", "ownership.request_review"]
    repository.save()
    pull = make.pull_request(repository=repository, number=77, title="hipBLASLt: fix FP8 GEMM")
    GitHubWrite.objects.create(
        repository=repository,
        issue=pull,
        action="ownership.request_review",
        operation="request_review",
        key="review:77",
        payload={"reviewers": ["alice"], "team_reviewers": ["hipblaslt-maintainers"]},
        status="failed",
        decided_by="path rules",
        detail="GitHub answered 422: Reviews may only be requested from collaborators",
    )

    text = _visible_text(triager_client.get(reverse("settings")).content.decode())

    assert "Post a known error's answer when a triager confirms the match" in text
    assert "request reviews of ROCm/rocm-libraries#77 from @alice, @ROCm/hipblaslt-maintainers" in (
        text
    )
    assert "known_errors" not in text and "request_review" not in text


def test_the_issue_page_shows_what_the_report_names_but_was_not_asked_for(triager_client, make):
    issue = make.issue(
        number=33, title="rocminfo dies", body="**GPU:** RX550 4GB, Adrenalin 24.12.1 driver"
    )
    NeedsInfo.objects.create(
        issue=issue,
        state="asking",
        missing=["steps"],
        asked_for=["steps"],
        asked_at=timezone.now() - timedelta(days=1),
    )
    page = triager_client.get(reverse("issue-detail", args=["ROCm", "ROCm", 33])).content.decode()
    unclear = page.split("could not read, so not asked for", 1)[1].split("</p>", 1)[0]
    assert "gpu" in unclear and "RX550" in unclear and "rocm version" in unclear
