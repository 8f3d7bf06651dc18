import json
import re
from datetime import UTC, date, datetime

from django_celery_beat.models import PeriodicTask

from releases import calendar
from releases.burndown import burndown_build, train_window
from releases.models import TrainSnapshot
from releases.services.burndown import train_snapshot_record, trains_snapshot
from releases.services.targets import target_set
from releases.tasks import snapshot_trains


def _train(series, version="7.9"):
    return calendar.train_get(series.spec(), version)


def test_a_snapshot_records_the_days_open_issues_once_per_day(make, series):
    blocker = make.issue(number=1, created_at=datetime(2026, 11, 12, tzinfo=UTC))
    target_set(issue=blocker, series=series, version="7.9", flags=["blocker"])
    regression = make.issue(
        number=2, created_at=datetime(2026, 11, 12, tzinfo=UTC), labels=["regression"]
    )
    make.issue(number=3, created_at=datetime(2026, 11, 12, tzinfo=UTC), milestone="7.10")
    morning = datetime(2026, 11, 30, 8, tzinfo=UTC)
    train_snapshot_record(series=series, train=_train(series), now=morning)
    snapshot = train_snapshot_record(
        series=series, train=_train(series), now=morning.replace(hour=20)
    )
    assert TrainSnapshot.objects.count() == 1  # the day's row is updated, not added
    assert (snapshot.day, snapshot.open_issues, snapshot.open_blockers) == (
        date(2026, 11, 30),
        2,
        1,
    )
    assert snapshot.open_regressions == 1
    assert sorted(snapshot.issue_ids) == sorted([blocker.id, regression.id])


def test_the_beat_task_snapshots_the_current_and_next_trains(make, series):
    make.issue(number=1)
    snapshot_trains()
    versions = set(TrainSnapshot.objects.values_list("train_version", flat=True))
    now = calendar.train_current(series.spec(), datetime.now(UTC))
    assert now.version in versions and len(versions) >= 2


def test_days_before_the_first_snapshot_are_reconstructed_from_timestamps(make, series):
    make.issue(number=1, created_at=datetime(2026, 11, 12, 6, tzinfo=UTC))
    make.issue(
        number=2,
        created_at=datetime(2026, 11, 14, 6, tzinfo=UTC),
        state="closed",
        closed_at=datetime(2026, 11, 20, 6, tzinfo=UTC),
    )
    trains_snapshot(now=datetime(2026, 11, 25, 12, tzinfo=UTC))
    TrainSnapshot.objects.filter(day=date(2026, 11, 25)).update(open_issues=7)  # as recorded
    data = burndown_build(series=series, train=_train(series), today=date(2026, 11, 26))
    days = dict(zip(data["days"], zip(data["recorded"], data["reconstructed"], strict=True)))
    assert data["days"][0] == "2026-11-12"  # the day after 7.8's release
    assert data["days"][-1] == "2026-12-23"  # to 7.9's release
    assert days["2026-11-12"] == (None, 1)
    assert days["2026-11-14"] == (None, 2)
    assert days["2026-11-20"] == (None, 1)
    assert days["2026-11-25"] == (7, None)  # the recorded value wins
    assert days["2026-11-27"] == (None, None)  # after today
    ideal = data["chart"]["datasets"][2]["data"]
    assert ideal[0] == 1 and ideal[data["days"].index("2026-12-09")] == 0


def test_the_window_starts_after_the_previous_release(series):
    assert train_window(series, _train(series)) == (date(2026, 11, 12), date(2026, 12, 23))
    # 7.3 follows the skipped slot: its window starts after 7.2's release
    assert train_window(series, _train(series, "7.3"))[0] == date(2026, 1, 22)


def test_the_train_page_draws_the_burndown_with_the_vendored_chart(logged_in_client, series):
    response = logged_in_client.get("/releases/7.9/")
    html = response.content.decode()
    assert 'data-chart="burndown-data"' in html
    assert "vendor/chart.umd.min.js" in html and "js/charts.js" in html
    payload = re.search(
        r'<script id="burndown-data" type="application/json">(.*?)</script>', html, re.S
    )
    chart = json.loads(payload.group(1))
    assert chart["type"] == "line"
    assert [d["label"] for d in chart["datasets"]][:2] == [
        "open, recorded",
        "open, reconstructed from timestamps",
    ]
    assert "<script>" not in html  # no inline script


def test_issue_text_in_the_chart_data_cannot_close_the_script(logged_in_client, make, series):
    make.issue(number=1, title="</script><script>alert(1)</script>")
    html = logged_in_client.get("/releases/7.9/").content.decode()
    assert "<script>alert(1)" not in html


def test_the_schedules_are_installed_on_the_releases_queue(db):
    tasks = {t.task: t for t in PeriodicTask.objects.filter(task__startswith="releases.")}
    assert set(tasks) == {
        "releases.tasks.punt_due_trains",
        "releases.tasks.snapshot_trains",
        "releases.tasks.retrain_forecast",
    }
    assert {t.queue for t in tasks.values()} == {"releases"}
    punt = tasks["releases.tasks.punt_due_trains"].crontab
    assert (punt.minute, punt.hour) == ("5", "*")  # hourly
