"""A GitHub App's installation changes while several processes hold its token: the worker that
handles the installation event tells the others, through the shared cache (Redis)."""

from __future__ import annotations

import json

import pytest
import requests

from tests.fakes.github_hooks import app_key_pair
from tests.fakes.github_webhooks import delivery_headers, fixture_payload
from tests.processes import wait_for
from triage.models import WebhookDelivery
from triage.sources.github import app_auth
from triage.sources.github.client import GitHubError, issue_comment_create

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SECRET = "integration-webhook-secret"
REPO = "ROCm/it-app-permissions"  # its own: the emulator lives for the whole session
APP_ID = 4242


@pytest.fixture
def app_in_this_process(github_emulator, settings, monkeypatch):
    """This process (the web server, say) runs as the App; the worker runs beside it."""
    private, public = app_key_pair()
    github_emulator.add_app(APP_ID, public)
    settings.GITHUB_API_URL = github_emulator.url
    settings.GITHUB_APP_ID, settings.GITHUB_APP_PRIVATE_KEY = str(APP_ID), private
    settings.GITHUB_TOKEN = ""
    settings.GITHUB_WEBHOOK_SECRET = SECRET
    monkeypatch.setattr(app_auth, "INSTALLATION_CHANGE_CHECK_S", 0)
    app_auth.app_caches_clear()
    yield github_emulator
    app_auth.app_caches_clear()


def test_permissions_accepted_reach_a_process_holding_an_old_token_when_a_worker_hears_of_them(
    celery_worker_process, app_in_this_process, live_server
):
    emulator = app_in_this_process
    emulator.add_repo(REPO)
    emulator.add_issue(REPO, number=31, title="rocprofv3 hangs on gfx1151")
    read_only = {"metadata": "read", "issues": "read", "pull_requests": "write"}
    installation = emulator.add_installation("ROCm", repos=[REPO], permissions=read_only)
    with pytest.raises(GitHubError) as refused:  # this process now holds a token that only reads
        issue_comment_create(full_name=REPO, number=31, body="asked too early")
    assert refused.value.status == 403
    held = emulator.installation_tokens(installation)

    emulator.accept_installation_permissions(installation, dict(read_only, issues="write"))
    payload = fixture_payload("installation__new_permissions_accepted")
    payload["installation"]["id"] = installation
    body = json.dumps(payload).encode()
    headers = delivery_headers("installation", body, SECRET, "it-permissions-accepted")
    answer = requests.post(f"{live_server.url}/webhooks/github/", data=body, headers=headers)
    assert answer.status_code in (200, 202)
    delivery = WebhookDelivery.objects.filter(delivery_id="it-permissions-accepted")
    wait_for(lambda: delivery.filter(status=WebhookDelivery.Status.PROCESSED).exists())

    # the worker, not this process, handled the event; this process asks for a new token
    assert issue_comment_create(full_name=REPO, number=31, body="now")["id"]
    issued = emulator.installation_tokens(installation)
    assert len(issued) == len(held) + 1
