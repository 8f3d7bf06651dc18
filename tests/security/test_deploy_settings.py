"""Production settings pass Django's deployment checklist, and do what it asks over real requests.

Each test runs manage.py in a subprocess with only the environment a deployment sets (DEBUG off,
a long random SECRET_KEY, ALLOWED_HOSTS), so the settings module is read as production reads it.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HOST = "triage.example.org"

PROBE = """
import json, sys
PATH = sys.argv[-1]
from django.test import Client
client = Client(HTTP_HOST="triage.example.org")
answers = {}
for name, kwargs in {
    "plain": {},
    "proxied https": {"HTTP_X_FORWARDED_PROTO": "https"},
    "https": {"secure": True},
}.items():
    response = client.get(PATH, **kwargs)
    answers[name] = {
        "status": response.status_code,
        "location": response.get("Location", ""),
        "hsts": response.get("Strict-Transport-Security", ""),
        "cookies": {k: {"secure": bool(v["secure"]), "httponly": bool(v["httponly"])}
                    for k, v in response.cookies.items()},
    }
answers["healthz"] = client.get("/healthz").status_code
print(json.dumps(answers))
"""


def production_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": HOST,
        "VAR_DIR": str(tmp_path / "var"),
        "LOG_LEVEL": "ERROR",
    }
    env.update(extra)
    return {key: value for key, value in env.items() if value is not None}


def manage(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=production_env(tmp_path, **env),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_settings_pass_the_deploy_check_with_no_warnings(tmp_path):
    done = manage(tmp_path, "check", "--deploy", "--fail-level", "WARNING")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues (0 silenced)." in done.stdout


def test_the_deploy_check_fails_on_a_weak_secret_key(tmp_path):
    """The check above can fail: it reads the settings the environment gives."""
    done = manage(tmp_path, "check", "--deploy", "--fail-level", "WARNING", SECRET_KEY="short")
    assert done.returncode != 0
    assert "security.W009" in done.stderr


def test_turning_https_off_is_an_explicit_choice_the_deploy_check_reports(tmp_path):
    done = manage(tmp_path, "check", "--deploy", "--fail-level", "WARNING", SECURE_SSL_REDIRECT="0")
    assert done.returncode != 0
    assert "security.W008" in done.stderr


def probe(tmp_path: Path, path: str = "/api/issues/", **env: str) -> dict:
    """Answers to GET `path` over plain http, proxied https and https, and to /healthz."""
    done = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup()\n{PROBE}", path],
        cwd=ROOT,
        env=production_env(tmp_path, **env),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_production_redirects_http_to_https_and_sets_hsts_on_https(tmp_path):
    answers = probe(tmp_path)
    assert answers["plain"]["status"] == 301
    assert answers["plain"]["location"] == f"https://{HOST}/api/issues/"
    for name in ("proxied https", "https"):  # behind a TLS-terminating proxy, or TLS itself
        assert answers[name]["status"] == 401, name  # served: the API wants a token
        assert answers[name]["hsts"] == "max-age=31536000; includeSubDomains; preload", name
    assert answers["plain"]["hsts"] == ""  # never on plain http
    assert answers["healthz"] == 200  # load balancers probe over plain http


def test_behind_a_redirecting_proxy_or_on_loopback_the_redirect_can_be_turned_off(tmp_path):
    answers = probe(tmp_path, SECURE_SSL_REDIRECT="0")
    assert answers["plain"]["status"] == 401


def test_debug_for_make_demo_stays_on_plain_http(tmp_path):
    answers = probe(tmp_path, "/accounts/login/", DEBUG="1", SECRET_KEY=None, ALLOWED_HOSTS=HOST)
    assert answers["plain"]["status"] == 200
    assert answers["plain"]["cookies"]["csrftoken"]["secure"] is False
