"""Beat outlives an outage of the database: a tick that cannot reach it waits and tries again,
instead of ending beat's loop (which dies on any error a tick raises)."""

import pytest
from django.db import OperationalError
from django_celery_beat.schedulers import DatabaseScheduler

from config.beat_scheduler import BEAT_OUTAGE_RETRY_S, LeaderDatabaseScheduler
from config.celery import app

pytestmark = pytest.mark.django_db


def test_a_tick_without_the_database_waits_and_the_next_one_goes_on(monkeypatch, settings):
    settings.REDIS_URL = ""  # no lease: this beat always leads
    scheduler = LeaderDatabaseScheduler(app=app, lazy=True)
    outage = {"left": 2}
    ticked = DatabaseScheduler.tick

    def tick_or_outage(self, *args, **kwargs):  # django-celery-beat's own tick, or Postgres away
        if outage["left"]:
            outage["left"] -= 1
            raise OperationalError("connection to server at 127.0.0.1 failed")
        return ticked(self, *args, **kwargs)

    monkeypatch.setattr(DatabaseScheduler, "tick", tick_or_outage)
    assert scheduler.tick() == BEAT_OUTAGE_RETRY_S
    assert scheduler.tick() == BEAT_OUTAGE_RETRY_S
    assert scheduler._initial_read, "the schedule is read afresh once the database answers"
    assert 0 <= scheduler.tick() <= scheduler.lease_s / 3
    assert not scheduler._database_was_away
