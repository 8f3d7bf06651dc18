import io
import json

import pytest
from django.core.management import CommandError, call_command


def test_it_previews_rusts_calendar_as_json():
    out = io.StringIO()
    call_command(
        "release_schedule",
        "--epoch",
        "1.5@2015-12-10",
        "--cadence-days",
        "42",
        "--today",
        "2024-08-01",
        "--count",
        "1",
        "--json",
        stdout=out,
    )
    trains = json.loads(out.getvalue())["trains"]
    assert [(t["version"], t["release"], t["position"]) for t in trains] == [
        ("1.80", "2024-07-25", "past"),
        ("1.81", "2024-09-05", "current"),
        ("1.82", "2024-10-17", "next"),
    ]


def test_it_prints_a_stored_series(series):
    out = io.StringIO()
    call_command("release_schedule", "--today", "2026-12-02", "--count", "1", stdout=out)
    assert "current  7.9.0" in out.getvalue()


def test_it_refuses_a_bad_epoch(db):
    with pytest.raises(CommandError, match="VERSION@YYYY-MM-DD"):
        call_command("release_schedule", "--epoch", "1.5@yesterday")


def test_it_says_when_there_is_no_series(db):
    with pytest.raises(CommandError, match="no release series"):
        call_command("release_schedule")
