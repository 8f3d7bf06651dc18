"""The repro approval gate and the sandbox, from an attacker's side.

- An unapproved reproducer never runs: signed webhook deliveries (the issue, an edit, `/repro`
  comments by people who may not approve), a GitHub sync, and every job beat schedules leave its
  case unapproved and without a single run.
- Inside a run: no Unix socket of the machine's services (Postgres trusts local connections
  here), no model artifacts, no SQLite database wherever they are kept, no secret in the
  environment of any process it can see.

tests/kernels_ci/test_sandbox.py covers the rest of the sandbox (network, PID namespace, limits,
the project files); tests/kernels_ci/test_approval.py the gate's rules one by one.
"""

from __future__ import annotations

import glob
import json
import os
import socket
import sys
import uuid
from pathlib import Path

import pytest
from django_celery_beat.models import PeriodicTask

from config.celery import app
from kernels_ci import schedules as kernels_ci_schedules
from kernels_ci.models import ReproCase, ReproRun
from kernels_ci.sandbox import Limits, sandbox_run
from releases import schedules as releases_schedules
from tests.fakes.github_api import GitHubEmulator
from tests.fakes.github_webhooks import delivery_headers
from tests.kernels_ci.conftest import needs_namespaces  # noqa: F401  (a fixture)
from tests.kernels_ci.factories import issue_body
from triage.services import classification_schedule, social, tracking
from triage.sources.github import sync

SECRET = "gate-webhook-secret"
REPO = "ROCm/triton"


def _deliver(client, event: str, payload: dict):
    body = json.dumps(payload).encode()
    headers = delivery_headers(event, body, SECRET)
    headers.pop("Content-Type")
    response = client.post(
        "/webhooks/github/", data=body, content_type="application/json", headers=headers
    )
    assert response.status_code == 202, response.content


def _issue(number: int, body: str, updated_at: str) -> dict:
    return {
        "id": 61_000 + number,
        "number": number,
        "title": f"Wrong results {number} on MI300X",
        "body": body,
        "state": "open",
        "user": {"id": 7, "login": "reporter"},
        "created_at": "2026-11-01T10:00:00Z",
        "updated_at": updated_at,
    }


def _comment(comment_id: int, issue: dict, association: str, login: str, repository: dict) -> dict:
    return {
        "action": "created",
        "repository": repository,
        "issue": issue,
        "comment": {
            "id": comment_id,
            "body": "/repro runs=5 arch=gfx942",
            "author_association": association,
            "user": {"id": comment_id, "login": login},
            "created_at": issue["updated_at"],
            "updated_at": issue["updated_at"],
            "html_url": f"https://github.com/{REPO}/issues/{issue['number']}#c{comment_id}",
        },
    }


@pytest.mark.django_db(transaction=True)
def test_an_unapproved_reproducer_never_runs_after_webhooks_a_sync_and_every_beat_job(
    client, settings
):
    settings.GITHUB_WEBHOOK_SECRET = SECRET
    with GitHubEmulator(token="gate-token") as github:
        settings.GITHUB_API_URL, settings.GITHUB_TOKEN = github.url, "gate-token"
        settings.GITHUB_RETRY_BACKOFF = 0
        settings.GITHUB_REPOS = [REPO]
        repo_id = github.add_repo(REPO)["id"]  # deliveries name it by GitHub's id
        synced = github.add_issue(REPO, number=7, title="Crash with a repro", body=issue_body())
        for login, association in (("drive-by", "NONE"), ("first-timer", "FIRST_TIMER")):
            github.add_comment(REPO, 7, body="/repro", user=login, author_association=association)

        # webhooks: the issue, /repro by people who may not approve, then an edit of the script
        repository = {"id": repo_id, "full_name": REPO, "default_branch": "main"}
        issue = _issue(8, issue_body(), "2026-11-02T10:00:00Z")
        _deliver(client, "issues", {"action": "opened", "repository": repository, "issue": issue})
        for n, (association, login) in enumerate(
            [("NONE", "mallory"), ("CONTRIBUTOR", "eve"), ("FIRST_TIME_CONTRIBUTOR", "trudy")]
        ):
            _deliver(
                client, "issue_comment", _comment(9000 + n, issue, association, login, repository)
            )
        edited = _issue(
            8, issue_body(script="import os\nos.system('id')\n"), "2026-11-02T11:00:00Z"
        )
        _deliver(client, "issues", {"action": "edited", "repository": repository, "issue": edited})

        # a sync of the repository (its issue, its comments)
        sync.repository_sync(repository=tracking.repository_track(full_name=REPO))

        # every job beat schedules, once each (as beat installs them when it starts)
        tracking.repositories_track_configured()
        tracking.schedules_install_defaults()
        classification_schedule.schedules_install()
        social.saved_searches_install()
        kernels_ci_schedules.schedules_install()
        releases_schedules.schedules_install()
        jobs = PeriodicTask.objects.filter(enabled=True).exclude(task="")
        ran = []
        for job in jobs:
            app.tasks[job.task].apply(
                args=json.loads(job.args or "[]"), kwargs=json.loads(job.kwargs or "{}")
            )
            ran.append(job.task)
    assert {"kernels_ci.tasks.verification_nightly", "triage.tasks.sync_repository"} <= set(ran)
    cases = ReproCase.objects.all()
    assert {case.issue.number for case in cases} == {synced["number"], 8}
    assert not any(case.is_approved for case in cases)
    assert ReproRun.objects.count() == 0


def _service_sockets() -> list[str]:
    found = set()
    for pattern in ("/run/**/*.sock", "/run/**/.s.PGSQL.*", "/var/run/**/.s.PGSQL.*"):
        found.update(p for p in glob.glob(pattern, recursive=True) if not p.endswith(".lock"))
    return sorted(p for p in found if _is_socket(p))


def _is_socket(path: str) -> bool:
    import stat

    try:
        return stat.S_ISSOCK(os.stat(path).st_mode)
    except OSError:
        return False


PROBE = """
import json, os, socket, sys
report = {"connected": [], "read": [], "listed": [], "environ": []}
for path in json.loads(sys.argv[1]):
    try:
        sock = socket.socket(socket.AF_UNIX)
        sock.settimeout(2)
        sock.connect(path)
        report["connected"].append(path)
    except OSError:
        pass
for path in json.loads(sys.argv[2]):
    try:
        if os.path.isdir(path):
            if os.listdir(path):
                report["listed"].append(path)
        else:
            open(path, "rb").read(1)
            report["read"].append(path)
    except OSError:
        pass
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        report["environ"].append(open(f"/proc/{pid}/environ", "rb").read().decode(errors="replace"))
    except OSError:
        pass
print(json.dumps(report))
"""


@pytest.mark.usefixtures("needs_namespaces")
def test_a_run_reaches_no_service_socket_model_database_or_secret(settings, monkeypatch):
    secret = f"gate-secret-{uuid.uuid4().hex}"
    for name in ("SECRET_KEY", "GITHUB_TOKEN", "X_BEARER_TOKEN", "GITHUB_WEBHOOK_SECRET"):
        monkeypatch.setenv(name, secret)
    monkeypatch.setenv("DATABASE_URL", f"postgres://postgres:{secret}@127.0.0.1/triage")
    # model artifacts and an SQLite database outside VAR_DIR and /tmp, as a deployment may keep
    place = Path("/var/tmp") / f"rocm-triage-gate-{uuid.uuid4().hex[:8]}"
    try:
        models, database = place / "models", place / "db" / "triage.sqlite3"
        (models / "kind" / "v1").mkdir(parents=True)
        (models / "kind" / "v1" / "model.joblib").write_bytes(b"weights")
        database.parent.mkdir()
        database.write_bytes(b"SQLite format 3\x00")
        settings.CLASSIFIER_ARTIFACT_DIR = models
        settings.DATABASE_URL = f"sqlite:///{database}"
        sockets = _service_sockets()
        targets = [str(models), str(models / "kind" / "v1" / "model.joblib"), str(database)]
        result = sandbox_run(
            [sys.executable, "-c", PROBE, json.dumps(sockets), json.dumps(targets)],
            files={},
            limits=Limits(timeout_s=30),
        )
    finally:
        import shutil

        shutil.rmtree(place, ignore_errors=True)
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout)
    assert report["connected"] == [] and report["read"] == [] and report["listed"] == []
    assert report["environ"], "the run sees its own processes' environment"
    assert not any(secret in environ for environ in report["environ"])
    assert secret not in result.output
    # the probe is real: outside the sandbox the sockets answer (Postgres runs on this machine)
    assert sockets, "no Unix socket of a service found under /run"
    reachable = []
    for path in sockets:
        with socket.socket(socket.AF_UNIX) as sock:
            sock.settimeout(2)
            try:
                sock.connect(path)
                reachable.append(path)
            except OSError:
                continue
    assert reachable
