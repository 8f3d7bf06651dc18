"""Secrets come only from the environment and show in no log line, error page or API response.

Known secret values (GITHUB_TOKEN, X_BEARER_TOKEN, GITHUB_WEBHOOK_SECRET, SECRET_KEY and the
password in DATABASE_URL) are given to the real processes with LOG_LEVEL=DEBUG (the HTTP clients
log their requests then, headers included): a GitHub and an X sync run as commands and as tasks
of a Celery worker at -l DEBUG, against the emulators; gunicorn (DEBUG off) answers every API
endpoint, a 404, a 500 and the webhook. None of the values appears in anything they print or
answer. The DEBUG error page (technical 500) is checked in-process with the same values.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
import requests
from celery import Celery
from rest_framework.authtoken.models import Token

from tests.conftest import user_with_role
from tests.fakes.github_api import GitHubEmulator
from tests.fakes.github_webhooks import delivery_headers, fixture_body
from tests.fakes.x_api import XEmulator
from tests.processes import CeleryWorker, Gunicorn, database_url_of_test_db, wait_for
from tests.security.conftest import service_env
from triage.models import Post, Repository, SavedSearch, SyncState

ROOT = Path(__file__).resolve().parents[2]
GITHUB_TOKEN = "ghp_" + "Gh7token" * 4 + "Zq9"
X_TOKEN = "AAAAAAAAAAAAAAAAAAAAA" + "Xbearer%2Fsecret" + "Q" * 20
WEBHOOK_SECRET = "whsec-" + "hookhook" * 4
SECRET_KEY = "django-" + "k3y-" * 14
DB_PASSWORD = "dbpass-" + "Pw9" * 6  # trust authentication on loopback ignores it
SECRETS = [GITHUB_TOKEN, X_TOKEN, WEBHOOK_SECRET, SECRET_KEY, DB_PASSWORD]


def with_password(url: str) -> str:
    parts = urlsplit(url)
    netloc = f"{parts.username or 'postgres'}:{DB_PASSWORD}@{parts.hostname}:{parts.port or 5432}"
    return urlunsplit(parts._replace(netloc=netloc))


def leaks(text: str) -> list[str]:
    return [secret[:10] + "..." for secret in SECRETS if secret in text]


def secret_env(redis_url: str, github_url: str, x_url: str, tmp_path: Path) -> dict[str, str]:
    return service_env(
        redis_url,
        DATABASE_URL=with_password(database_url_of_test_db()),
        SECRET_KEY=SECRET_KEY,
        GITHUB_TOKEN=GITHUB_TOKEN,
        GITHUB_API_URL=github_url,
        GITHUB_WEBHOOK_SECRET=WEBHOOK_SECRET,
        GITHUB_RETRY_BACKOFF="0",
        X_BEARER_TOKEN=X_TOKEN,
        X_API_URL=x_url,
        LOG_LEVEL="DEBUG",
        VAR_DIR=str(tmp_path / "var"),  # no collected static files: pages that need them fail
    )


@pytest.fixture
def emulators():
    with GitHubEmulator(token=GITHUB_TOKEN) as github, XEmulator(bearer_token=X_TOKEN) as x:
        github.add_repo("ROCm/ROCm")
        for n in range(3):
            issue = github.add_issue("ROCm/ROCm", title=f"Crash {n} on gfx942", labels=["bug"])
            github.add_comment("ROCm/ROCm", issue["number"], body="same here")
        x.add_post("ROCm hangs on my MI300X", username="gpu_dev")
        yield github, x


@pytest.mark.integration
def test_syncs_at_debug_level_log_no_secret(
    real_services, transactional_db, private_redis, emulators, tmp_path
):
    github, x = emulators
    env = secret_env(private_redis.url, github.url, x.url, tmp_path)
    output = ""
    for command in (["sync_github", "ROCm/ROCm"], ["sync_x", "--query", "rocm"]):
        done = subprocess.run(
            [sys.executable, "manage.py", *command],
            cwd=ROOT,
            env={"PATH": "/usr/bin:/bin", **env},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        output += done.stdout + done.stderr
    # the clients did log their requests (headers included) and used the tokens
    assert "DEBUG github.Requester GET" in output
    assert "DEBUG tweepy.client Making API request" in output
    assert github.requests and Post.objects.exists()
    assert leaks(output) == []

    # the same syncs as tasks of a Celery worker logging at DEBUG
    Repository.objects.filter(full_name="ROCm/ROCm").update(tracked=True)
    search = SavedSearch.objects.get_or_create(name="rocm", defaults={"query": "rocm"})[0]
    repository = Repository.objects.get(full_name="ROCm/ROCm")
    with CeleryWorker(tmp_path, env=env, queues="ingest", extra=["-l", "DEBUG"]) as worker:
        client = Celery("secrets-client", broker=private_redis.url, set_as_current=False)
        client.send_task(
            "triage.tasks.sync_repository", args=[repository.pk], kwargs={"full": True},
            queue="ingest",
        )  # fmt: skip
        client.send_task("triage.tasks.sync_saved_search", args=[search.pk], queue="ingest")
        done = ("sync_repository", "sync_saved_search")

        def both_done():
            log = worker.log.read_text(errors="replace")
            return all(re.search(rf"{task}\[[^]]+\] succeeded", log) for task in done)

        wait_for(both_done, timeout=90, message=worker.log_tail())
        log = worker.log.read_text(errors="replace")
    assert "Making API request" in log and "oauth token removed" in log, log[-5000:]
    assert SyncState.objects.filter(repository=repository).exists()
    assert leaks(log) == []


@pytest.mark.integration
def test_no_error_page_or_api_response_of_gunicorn_shows_a_secret(
    real_services, transactional_db, private_redis, emulators, tmp_path, api_world,
    django_user_model,
):  # fmt: skip
    github, x = emulators
    env = secret_env(private_redis.url, github.url, x.url, tmp_path)
    viewer = Token.objects.create(user=user_with_role(django_user_model, "v", "viewers")).key
    triager = Token.objects.create(user=user_with_role(django_user_model, "t", "triagers")).key
    answers = []
    with Gunicorn(tmp_path, env=env) as web:
        get = {"Authorization": f"Token {viewer}"}
        schema = requests.get(f"{web.url}/api/schema/?format=json", headers=get, timeout=30)
        answers.append(schema)
        for path, operations in schema.json()["paths"].items():
            url = web.url + path.format(**api_world)
            if "get" in operations:
                answers.append(requests.get(url, headers=get, timeout=30))
            if "post" in operations:
                post = {"Authorization": f"Token {triager}"}
                answers.append(requests.post(url, json={}, headers=post, timeout=30))
        for url in ("/nowhere/", "/api/nowhere/", "/accounts/login/", "/api/docs/", "/healthz"):
            answers.append(requests.get(web.url + url, headers=get, timeout=30))
        body = fixture_body("issues__opened")
        for secret in (WEBHOOK_SECRET, "wrong-secret"):
            headers = delivery_headers("issues", body, secret)
            answers.append(requests.post(f"{web.url}/webhooks/github/", data=body, headers=headers))
        log = web.log.read_text(errors="replace")
    statuses = {response.status_code for response in answers}
    assert {200, 202, 400, 403, 404, 500} <= statuses  # every kind of answer was seen
    for response in answers:
        shown = response.text + " ".join(f"{k}: {v}" for k, v in response.headers.items())
        assert leaks(shown) == [], (response.url, response.status_code)
    assert "Internal Server Error" in log  # the 500 was logged, with its traceback
    assert leaks(log) == []


def test_the_debug_error_page_hides_every_secret(settings, rf):
    """Django's technical 500 page (DEBUG on), for an error inside a GitHub request whose frames
    hold the token, with the environment in request.META as runserver puts it there."""
    from django.views.debug import technical_500_response

    from triage.sources.github.client import GitHubSource

    settings.DEBUG = True
    settings.GITHUB_TOKEN, settings.X_BEARER_TOKEN = GITHUB_TOKEN, X_TOKEN
    settings.GITHUB_WEBHOOK_SECRET, settings.SECRET_KEY = WEBHOOK_SECRET, SECRET_KEY
    settings.DATABASE_URL = f"postgres://app:{DB_PASSWORD}@db.internal:5432/triage"
    settings.REDIS_URL = f"redis://:{DB_PASSWORD}@redis.internal:6379/0"
    settings.CELERY_BROKER_URL = settings.REDIS_URL
    settings.GITHUB_API_URL = "http://127.0.0.1:9"  # nothing listens: the request fails
    settings.GITHUB_RETRIES, settings.GITHUB_HTTP_TIMEOUT = 0, 2
    request = rf.get("/issues/", HTTP_AUTHORIZATION=f"Bearer {X_TOKEN}")
    request.META.update(
        GITHUB_TOKEN=GITHUB_TOKEN,
        X_BEARER_TOKEN=X_TOKEN,
        DATABASE_URL=settings.DATABASE_URL,
        REDIS_URL=settings.REDIS_URL,
    )
    try:
        GitHubSource().get("/repos/ROCm/ROCm")
    except Exception:
        exc_info = sys.exc_info()
    else:
        pytest.fail("the request to a closed port succeeded")
    html = technical_500_response(request, *exc_info).content.decode()
    assert "Traceback" in html and "Settings" in html
    assert "[redacted]" in html
    assert leaks(html) == []
    text = technical_500_response(
        rf.get("/x", HTTP_ACCEPT="text/plain"), *exc_info
    ).content.decode()
    assert leaks(text) == []
