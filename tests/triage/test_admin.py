import json

import pytest
from django.urls import reverse
from django_celery_beat.models import PeriodicTask

from triage.models import PullRequestFiles, Repository, WebhookRedelivery

MODELS = [
    "repository",
    "person",
    "label",
    "issue",
    "comment",
    "syncstate",
    "webhookdelivery",
    "webhookredelivery",
]


@pytest.fixture
def rows(make):
    issue = make.issue(number=1, labels=["bug"])
    make.comment(issue)
    make.sync_state(issue.repository, last_error="boom")
    WebhookRedelivery.objects.create(
        guid="0f3c-bug",
        hook_id="12",
        hook_target_type="repository",
        hook_target=issue.repository.full_name,
        github_delivery_id=99,
        event="issues",
        failure="502 Bad Gateway",
    )
    return {"issue": issue, "delivery": make.delivery(body=b'{"action": "opened", "x": "<b>"}')}


@pytest.mark.parametrize("model", MODELS)
def test_it_loads_every_changelist(admin_client, rows, model):
    response = admin_client.get(reverse(f"admin:triage_{model}_changelist"))
    assert response.status_code == 200


@pytest.mark.parametrize("model", MODELS)
def test_it_searches_every_changelist(admin_client, rows, model):
    response = admin_client.get(reverse(f"admin:triage_{model}_changelist"), {"q": "bug"})
    assert response.status_code == 200


def test_it_loads_the_issue_change_page(admin_client, rows):
    issue = rows["issue"]
    response = admin_client.get(reverse("admin:triage_issue_change", args=[issue.pk]))
    assert response.status_code == 200


def test_it_shows_a_webhook_body_decoded_and_escaped(admin_client, rows):
    delivery = rows["delivery"]

    response = admin_client.get(reverse("admin:triage_webhookdelivery_change", args=[delivery.pk]))

    content = response.content.decode()
    assert response.status_code == 200
    assert "&quot;action&quot;: &quot;opened&quot;" in content
    assert '"x": "<b>"' not in content
    assert "&quot;x&quot;: &quot;&lt;b&gt;&quot;" in content


def test_it_shows_an_undecodable_webhook_body(admin_client, make):
    delivery = make.delivery(body=b"\xff\xfe not json")
    response = admin_client.get(reverse("admin:triage_webhookdelivery_change", args=[delivery.pk]))
    assert response.status_code == 200
    assert "not json" in response.content.decode()


def test_it_lets_an_admin_track_a_repository(admin_client, db):
    response = admin_client.post(
        reverse("admin:triage_repository_add"),
        {"full_name": "ROCm/hipBLASLt", "tracked": "on", "description": "", "default_branch": ""},
    )
    assert response.status_code == 302
    repo = Repository.objects.get(full_name="ROCm/hipBLASLt")
    assert (repo.owner, repo.name, repo.tracked) == ("ROCm", "hipBLASLt", True)
    schedule = PeriodicTask.objects.get(task="triage.tasks.sync_repository")
    assert json.loads(schedule.kwargs) == {"repository_id": repo.pk}
    assert schedule.enabled and schedule.interval.every == 10


def test_another_sources_repository_is_edited_without_a_github_sync(admin_client, make):
    repo = make.repository("gitlab:rocm/hip", source="gitlab", tracked=True)
    response = admin_client.post(
        reverse("admin:triage_repository_change", args=[repo.pk]),
        {"full_name": "gitlab:rocm/hip", "description": "HIP on GitLab", "default_branch": ""},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    repo.refresh_from_db()
    assert (repo.description, repo.tracked, repo.source) == ("HIP on GitLab", False, "gitlab")
    assert not PeriodicTask.objects.filter(task="triage.tasks.sync_repository").exists()


def test_it_refuses_a_malformed_repository_name(admin_client, db):
    response = admin_client.post(
        reverse("admin:triage_repository_add"), {"full_name": "not a repo", "tracked": "on"}
    )
    assert response.status_code == 200
    assert "Use OWNER/NAME" in response.content.decode()
    assert not Repository.objects.exists()


def test_it_refuses_a_duplicate_repository_in_another_case(admin_client, make):
    make.repository("ROCm/ROCm")
    response = admin_client.post(
        reverse("admin:triage_repository_add"), {"full_name": "rocm/rocm", "tracked": "on"}
    )
    assert response.status_code == 200
    assert Repository.objects.count() == 1


def test_it_does_not_offer_adding_webhook_deliveries(admin_client, db):
    response = admin_client.get(reverse("admin:triage_webhookdelivery_add"))
    assert response.status_code == 403


def test_it_lists_a_pull_requests_files_read_only(admin_client, make):
    pull = make.pull_request(number=9)
    PullRequestFiles.objects.create(
        issue=pull, head_sha="abc123", files=[{"filename": "src/hip/a.cpp", "status": "added"}]
    )
    response = admin_client.get(reverse("admin:triage_pullrequestfiles_changelist"))
    assert response.status_code == 200 and "abc123" in response.content.decode()
    assert admin_client.get(reverse("admin:triage_pullrequestfiles_add")).status_code == 403
