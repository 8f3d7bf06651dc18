"""The demo's release story (load_demo with only the GitHub data and releases' loader: fast)."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone

from config import wiring
from releases import calendar, forecast
from releases.models import Backport, FixLink, ReleaseSeries, TrainSnapshot
from releases.readiness import readiness_build

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(monkeypatch):
    monkeypatch.setattr(
        wiring,
        "DEMO_LOADERS",
        ["triage.services.demo.demo_load", "releases.services.demo.demo_load"],
    )
    out = io.StringIO()
    call_command("load_demo", stdout=out)
    return out.getvalue()


def test_the_demo_tells_the_release_story(demo):
    demo_user = get_user_model().objects.get(username="demo")
    assert demo_user.groups.filter(name="release managers").exists()
    assert demo_user.has_perm("releases.approve_backport")

    release_fix = FixLink.objects.get(via=FixLink.Via.RELEASE_BRANCH, removed=False)
    assert release_fix.base_ref.startswith("release/") and release_fix.train_version == "7.3"
    assert any(
        link.issue.repository_id != link.pull_request.repository_id
        for link in FixLink.objects.filter(removed=False).select_related("issue", "pull_request")
    ), "a fix across repositories"

    backport = Backport.objects.get()
    assert (backport.state, backport.decided_by, backport.merged_pull_request) == (
        "merged",
        demo_user,
        release_fix.pull_request,
    )
    assert backport.nominated_by == demo_user and backport.decided_at is not None

    series = ReleaseSeries.objects.get(name="rocm")
    current = calendar.train_current(series.spec(), timezone.now())
    report = readiness_build(
        series=series,
        version=current.version,
        as_of=calendar.day_in(timezone.now(), series.time_zone),
    )
    assert report["verdict"] == "NO-GO"
    assert report["counts"]["open_blockers"] >= 1
    assert report["counts"]["open_critical_regressions"] >= 1
    assert any(reason.startswith("1 open blocker(s)") for reason in report["reasons"])
    assert forecast.forecast_model_load(series) is not None  # trained on the past trains
    if report["phase"] == "open":  # before the branch cut the train page forecasts
        assert report["forecast"]["available"] is True and report["forecast"]["issues"]
    assert TrainSnapshot.objects.filter(train_version=current.version).exists()
    assert f"current train {current.label} is NO-GO" in demo


def test_the_demo_loads_twice_without_changes(demo, settings):
    counts = (FixLink.objects.count(), Backport.objects.count())
    call_command("load_demo", stdout=io.StringIO())
    assert (FixLink.objects.count(), Backport.objects.count()) == counts
    assert Backport.objects.get().state == "merged"
