"""The service as deployed, for the security tests: gunicorn (DEBUG off) on the test database, with
a private Redis as its broker, on loopback; and a small world of rows to read and act on."""

from __future__ import annotations

import os
import secrets

import pytest

from tests.integration.conftest import real_services  # noqa: F401  (a fixture)
from tests.processes import Gunicorn, RedisServer, database_url_of_test_db
from tests.releases.conftest import series  # noqa: F401  (a fixture)

WEBHOOK_SECRET = "security-webhook-secret-" + "w" * 16
SECRET_KEY = "security-" + secrets.token_urlsafe(40)


@pytest.fixture
def private_redis(tmp_path):
    with RedisServer(tmp_path) as redis_server:
        yield redis_server


def service_env(redis_url: str, **extra: str) -> dict[str, str]:
    """Production settings (DEBUG off) on the database pytest created for this run."""
    env = {
        "DATABASE_URL": database_url_of_test_db(),
        "REDIS_URL": redis_url,
        "SECRET_KEY": SECRET_KEY,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "GITHUB_WEBHOOK_SECRET": WEBHOOK_SECRET,
        "SECURE_SSL_REDIRECT": "0",
        "DEBUG": "0",
    }
    env.update(extra)
    return env


@pytest.fixture
def gunicorn(real_services, transactional_db, private_redis, tmp_path):  # noqa: F811
    """gunicorn -w 2 with DEBUG off; extra environment through `gunicorn_env` (indirect)."""
    with Gunicorn(tmp_path, env=service_env(private_redis.url), workers=2) as server:
        yield server


@pytest.fixture
def api_world(make, series):  # noqa: F811
    """Rows for every API resource: issues and a PR with comments and a prediction, a post linked
    to an issue, a repro case awaiting approval, a nominated backport."""
    from kernels_ci.services.cases import case_refresh
    from releases.models import Backport
    from tests.kernels_ci.factories import issue_body
    from triage.models import IssuePrediction, Post, PostIssueLink, SavedSearch

    repository = make.repository("ROCm/ROCm")
    issue = make.issue(repository=repository, number=1, title="hipMalloc hangs on gfx942")
    make.comment(issue, body="Same on MI300X.")
    IssuePrediction.objects.create(
        issue=issue, model_name="kind", model_version="v1", label="bug", confidence=0.9
    )
    make.pull_request(repository=repository, number=2, merged=True, title="Fix the hang")
    repro = make.issue(repository=repository, number=3, body=issue_body())
    case = case_refresh(issue=repro)
    search = SavedSearch.objects.create(name="rocm", query="ROCm")
    post = Post.objects.create(
        external_id="11", text="ROCm hangs on my MI300X", created_at=make.now
    )
    post.searches.add(search)
    PostIssueLink.objects.create(post=post, issue=issue, kind="suggested", status="suggested")
    backport = Backport.objects.create(issue=issue, series=series, train_version="7.8")
    return {
        "owner": "ROCm",
        "name": "ROCm",
        "number": 1,
        "model_name": "kind",
        "case_id": case.pk,
        "id": backport.pk,
        "decision": "approve",
        "version": "7.9",
    }


def without(env: dict, *names: str) -> dict:
    return {key: value for key, value in env.items() if key not in names}


def os_env_without(*names: str) -> dict:
    return without(dict(os.environ), *names)
