"""config/settings.py reads the environment at import: each case imports it in a child process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SHOW = """
import json
from django.conf import settings
print(json.dumps({
    "debug": settings.DEBUG,
    "secret_key": settings.SECRET_KEY,
    "eager": settings.CELERY_TASK_ALWAYS_EAGER,
    "broker": settings.CELERY_BROKER_URL,
    "result_backend": settings.CELERY_RESULT_BACKEND,
    "cache": settings.CACHES["default"]["BACKEND"],
    "cache_location": settings.CACHES["default"].get("LOCATION", ""),
    "github_api_url": settings.GITHUB_API_URL,
    "database": settings.DATABASES["default"]["ENGINE"],
    "repos": settings.GITHUB_REPOS,
    "writeback_min_confidence": settings.CLASSIFIER_WRITEBACK_MIN_CONFIDENCE,
    "deadlines": settings.RESPONSE_DEADLINE_HOURS,
}))
"""


def load_settings(tmp_path, **env: str) -> subprocess.CompletedProcess:
    environment = {
        "PATH": "/usr/bin:/bin",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "VAR_DIR": str(tmp_path / "var"),
        **env,
    }
    return subprocess.run(
        [sys.executable, "-c", SHOW],
        capture_output=True,
        text=True,
        env=environment,
        cwd=ROOT,
        timeout=60,
    )


def shown(tmp_path, **env: str) -> dict:
    done = load_settings(tmp_path, **env)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_it_refuses_to_start_without_a_secret_key_when_debug_is_off(tmp_path):
    done = load_settings(tmp_path)
    assert done.returncode != 0
    assert "ImproperlyConfigured: SECRET_KEY is not set" in done.stderr
    assert "DEBUG=1" in done.stderr, "the error says how to go on"


def test_debug_runs_without_a_secret_key(tmp_path):
    values = shown(tmp_path, DEBUG="1")
    assert values["debug"] is True and values["secret_key"]


def test_without_redis_url_tasks_run_in_process_and_the_cache_is_local(tmp_path):
    values = shown(tmp_path, SECRET_KEY="s3cret")
    assert values["eager"] is True
    assert values["broker"].startswith("memory://") and values["result_backend"] is None
    assert values["cache"] == "django.core.cache.backends.locmem.LocMemCache"
    assert values["database"] == "django.db.backends.sqlite3"


def test_redis_url_makes_redis_the_broker_result_backend_and_cache(tmp_path):
    url = "redis://127.0.0.1:6379/9"
    values = shown(tmp_path, SECRET_KEY="s3cret", REDIS_URL=url)
    assert values["eager"] is False
    assert values["broker"] == url and values["result_backend"] == url
    assert values["cache"] == "django.core.cache.backends.redis.RedisCache"
    assert values["cache_location"] == url


def test_github_settings_come_from_the_environment(tmp_path):
    values = shown(
        tmp_path,
        SECRET_KEY="s3cret",
        GITHUB_API_URL="https://ghe.example.org/api/v3/",
        GITHUB_REPOS="ROCm/ROCm, ROCm/HIP,,triton-lang/triton",
        CLASSIFIER_WRITEBACK_MIN_CONFIDENCE="0.95",
    )
    assert values["github_api_url"] == "https://ghe.example.org/api/v3"
    assert values["repos"] == ["ROCm/ROCm", "ROCm/HIP", "triton-lang/triton"]
    assert values["writeback_min_confidence"] == 0.95
    assert shown(tmp_path, SECRET_KEY="s3cret")["github_api_url"] == "https://api.github.com"


def test_database_url_selects_postgres(tmp_path):
    values = shown(
        tmp_path, SECRET_KEY="s3cret", DATABASE_URL="postgres://postgres@127.0.0.1:5432/x"
    )
    assert values["database"] == "django.db.backends.postgresql"


def test_an_empty_variable_counts_as_unset(tmp_path):
    found = shown(
        tmp_path,
        DEBUG="1",
        REDIS_URL="",
        GITHUB_API_URL="",
        CLASSIFIER_WRITEBACK_MIN_CONFIDENCE=" ",
    )
    assert found["eager"] is True and found["cache"].endswith("LocMemCache")
    assert found["github_api_url"] == "https://api.github.com"
    assert found["writeback_min_confidence"] == 0.9


def test_a_number_that_is_not_one_names_its_variable(tmp_path):
    done = load_settings(tmp_path, DEBUG="1", CLASSIFIER_WRITEBACK_MIN_CONFIDENCE="high")
    assert done.returncode != 0
    assert "CLASSIFIER_WRITEBACK_MIN_CONFIDENCE must be a number, got 'high'" in done.stderr
    assert "Traceback" in done.stderr and "ValueError" not in done.stderr


def test_response_deadlines_are_read_whole_and_a_malformed_one_names_its_entry(tmp_path):
    assert shown(tmp_path, DEBUG="1")["deadlines"] == {
        "critical": 24,
        "high": 72,
        "medium": 168,
        "low": 336,
    }
    found = shown(tmp_path, DEBUG="1", RESPONSE_DEADLINE_HOURS="critical=12, high=48")
    assert found["deadlines"] == {"critical": 12, "high": 48}

    for value, said in [
        ("critical=1d", "RESPONSE_DEADLINE_HOURS: 'critical=1d': '1d' is not a whole number"),
        ("crtical=24", "RESPONSE_DEADLINE_HOURS: 'crtical=24' is not KEY=VALUE (keys: critical"),
    ]:
        done = load_settings(tmp_path, DEBUG="1", RESPONSE_DEADLINE_HOURS=value)
        assert done.returncode != 0
        assert said in done.stderr
