"""Dates at the ends of the calendar: a clear 400 or error, never a 500 or a traceback."""

from datetime import UTC, date, datetime

import pytest
from django.core.management import CommandError, call_command

from releases import calendar
from releases.services.series import series_create


def test_a_readiness_report_as_of_the_last_day_of_the_calendar_is_a_400(api_client, series):
    response = api_client.get("/api/releases/7.9/readiness/?as_of=9999-12-31")
    assert response.status_code == 400
    assert response.json() == {"as_of": ["9999-12-31 is past the last day of the calendar"]}
    assert api_client.get("/api/releases/7.9/readiness/?as_of=9999-12-30").status_code == 200
    assert api_client.get("/api/releases/7.9/readiness/?as_of=0001-01-01").status_code == 200


def test_the_command_says_so_without_a_traceback(series):
    with pytest.raises(CommandError, match="9999-12-31 is past the last day of the calendar"):
        call_command("readiness_report", "7.9", "--as-of", "9999-12-31")


def test_a_series_that_reaches_the_end_of_the_calendar_ends_there(api_client):
    spec = calendar.SeriesSpec("far", "1.0", date(9999, 1, 1), 42)
    trains = list(calendar.iter_trains(spec))
    assert len(trains) == 9 and trains[-1].release == date(9999, 12, 3)
    assert calendar.train_current(spec, datetime(9999, 12, 31, tzinfo=UTC)) is None
    series_create(name="far", epoch_version="1.0", epoch_date=date(9999, 11, 1), cadence_days=3660)
    assert api_client.get("/api/releases/").status_code == 200
