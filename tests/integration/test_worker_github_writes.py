"""Acting on GitHub from a real worker: a command in a comment, delivered by a signed webhook,
is decided and acknowledged on GitHub once, however often GitHub delivers it."""

from __future__ import annotations

import json

import pytest
import requests

from automation.outbox.models import GitHubWrite
from tests.fakes.github_webhooks import delivery_headers, fixture_payload
from tests.integration.conftest import worker_idle
from tests.processes import wait_for
from triage.models import PredictionCorrection, Repository, WebhookDelivery

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SECRET = "integration-webhook-secret"
REPO = "ROCm/hipBLASLt"


def test_a_command_in_a_comment_is_decided_and_acknowledged_once_by_the_worker(
    celery_worker_process, github_emulator, live_server, settings
):
    settings.GITHUB_WEBHOOK_SECRET = SECRET
    github_emulator.add_repo(REPO)
    Repository.objects.create(
        full_name=REPO, github_actions=["commands.reply"], github_dry_run=False
    )
    github_emulator.add_issue(REPO, number=812, title="hipblasLtMatmul returns NaN on gfx942")
    said = github_emulator.add_comment(REPO, 812, body="/severity high", user="rocm-maintainer")
    payload = fixture_payload("issue_comment__created")
    payload["repository"].update(full_name=REPO, name="hipBLASLt")
    payload["issue"].update(number=812, title="hipblasLtMatmul returns NaN on gfx942")
    payload["comment"].update(
        id=said["id"],
        body="/severity high",
        author_association="MEMBER",
        created_at=said["created_at"],  # written now, not before the repository was tracked
        updated_at=said["updated_at"],
    )
    payload["comment"]["user"]["login"] = "rocm-maintainer"
    body = json.dumps(payload).encode()

    for attempt in range(3):  # GitHub redelivers; each delivery is stored once and acted on once
        headers = delivery_headers("issue_comment", body, SECRET, f"it-command-{attempt % 2}")
        response = requests.post(
            f"{live_server.url}/webhooks/github/", data=body, headers=headers, timeout=10
        )
        assert response.status_code in (200, 202)

    deliveries = WebhookDelivery.objects.filter(delivery_id__startswith="it-command-")
    wait_for(lambda: deliveries.filter(status="processed").count() == 2)
    reaction = wait_for(lambda: github_emulator.reactions(REPO, comment_id=said["id"]) or None)
    worker_idle()
    correction = PredictionCorrection.objects.get(model_name="severity")
    assert (correction.after, correction.github_login) == ("high", "rocm-maintainer")
    assert [r["content"] for r in reaction] == ["+1"]
    assert GitHubWrite.objects.filter(operation="react", status="done").count() == 1
