from datetime import timedelta

import pytest
from django.contrib.auth.models import Permission
from django_celery_beat.models import PeriodicTask

from config import wiring
from triage import tasks
from triage.models import IssuePrediction, IssuePriority, PredictionCorrection
from triage.services import classification_schedule, priority

pytestmark = pytest.mark.django_db

# Stand-ins for a later stage's priority part (wiring.PRIORITY_PARTS names them).
TRAIN_POINTS: dict[int, tuple[float, str]] = {}


def release_train_part(*, issue_ids: list[int]) -> dict[int, tuple[float, str]]:
    return {i: TRAIN_POINTS[i] for i in issue_ids if i in TRAIN_POINTS}


def broken_part(*, issue_ids: list[int]) -> dict:
    raise RuntimeError("the releases app is down")


def predict(issue, model_name, label, needs_triage=False):
    IssuePrediction.objects.create(
        issue=issue, model_name=model_name, label=label, confidence=0.9, needs_triage=needs_triage
    )


def parts_of(issue):
    return {p["name"]: p for p in IssuePriority.objects.get(issue=issue).parts}


def test_the_parts_add_up_to_the_score(make):
    issue = make.issue(
        title="Regression: hipMemcpy hangs after upgrading to ROCm 7.1",
        created_at=make.now - timedelta(days=4),
    )
    predict(issue, "kind", "bug")
    predict(issue, "severity", "high")
    predict(issue, "environment", "gfx942 gfx1100")
    make.comment(issue, body="+1", author="a")
    make.comment(issue, body="+1, same here!", author="b")
    make.comment(issue, body="Same here on MI300X with ROCm 7.1", author="c")
    priority.issues_prioritize(ids=[issue.id])
    stored = IssuePriority.objects.get(issue=issue)
    parts = parts_of(issue)
    assert stored.score == sum(p["points"] for p in stored.parts)
    assert parts["kind"]["points"] == 15
    assert parts["severity"]["points"] == 18
    assert parts["regression"]["points"] == 10
    assert parts["architecture"]["points"] == 10  # the datacenter part counts
    assert parts["reach"]["why"] == (
        "3 other commenters, 2 '+1' comments, 0 '+1' reactions, 0 other reactions, "
        "0 linked posts on X"
    )
    assert parts["reach"]["points"] == 3 * 3 + 2 * 2
    assert parts["waiting"]["points"] == 4
    assert stored.score == 15 + 18 + 13 + 10 + 10 + 4


def test_a_maintainer_response_stops_the_waiting_clock(make):
    issue = make.issue(title="Question", created_at=make.now - timedelta(days=30))
    priority.issues_prioritize(ids=[issue.id])
    assert parts_of(issue)["waiting"]["points"] == 15
    make.comment(issue, body="Looking into it", author="maintainer", author_association="MEMBER")
    priority.issues_prioritize(ids=[issue.id])
    assert parts_of(issue)["waiting"]["points"] == 0
    assert parts_of(issue)["kind"]["why"] == "not classified"


def test_weights_are_configurable_and_the_score_is_capped_with_a_visible_part(make, settings):
    settings.PRIORITY_WEIGHTS = {"regression": 90, "kind": {"bug": 30}}
    issue = make.issue(title="Regression in rocBLAS", created_at=make.now - timedelta(days=1))
    predict(issue, "kind", "bug")
    priority.issues_prioritize(ids=[issue.id])
    stored = IssuePriority.objects.get(issue=issue)
    assert stored.score == 100
    assert sum(p["points"] for p in stored.parts) == 100
    assert parts_of(issue)["cap"]["points"] == 100 - (90 + 30 + 1)


def test_closed_issues_lose_their_priority(make):
    issue = make.issue(title="Crash")
    priority.issues_prioritize(ids=[issue.id])
    assert IssuePriority.objects.filter(issue=issue).exists()
    issue.state = "closed"
    issue.save()
    priority.issues_prioritize(ids=[issue.id])
    assert not IssuePriority.objects.filter(issue=issue).exists()


def test_reactions_count_toward_reach(make):
    issue = make.issue(title="Crash", reactions_total=7, reactions={"+1": 4, "heart": 2, "eyes": 1})
    priority.issues_prioritize(ids=[issue.id])
    reach = parts_of(issue)["reach"]
    assert reach["points"] == round(4 * 1 + 3 * 0.5)
    assert "4 '+1' reactions, 3 other reactions" in reach["why"]


def test_a_later_stages_part_is_the_release_train_part_and_still_adds_up(make, monkeypatch, caplog):
    monkeypatch.setattr(
        wiring,
        "PRIORITY_PARTS",
        [
            "tests.triage.test_priority.release_train_part",
            "tests.triage.test_priority.broken_part",
        ],
    )
    soon, far, none = (make.issue(title=t, created_at=make.now) for t in ("Soon", "Far", "None"))
    TRAIN_POINTS.clear()
    TRAIN_POINTS.update({soon.id: (4, "fix targets 7.2, branch cut in 3 days"), far.id: (40, "x")})
    priority.issues_prioritize(ids=[soon.id, far.id, none.id])

    assert parts_of(soon)["release_train"] == {
        "name": "release_train",
        "points": 4,
        "why": "fix targets 7.2, branch cut in 3 days",
    }
    assert parts_of(far)["release_train"]["points"] == 5  # kept within release_train_max
    assert "kept within 0..5" in parts_of(far)["release_train"]["why"]
    assert parts_of(none)["release_train"]["points"] == 0
    for issue in (soon, far, none):
        stored = IssuePriority.objects.get(issue=issue)
        assert stored.score == sum(p["points"] for p in stored.parts)
    assert "priority part tests.triage.test_priority.broken_part failed" in caplog.text


@pytest.fixture
def triager(user):
    user.user_permissions.add(
        Permission.objects.get(content_type__app_label="triage", codename="triage_issue")
    )
    return user


def test_a_triager_overrides_the_priority_and_the_parts_still_add_up(make, triager):
    issue = make.issue(title="Regression in rocBLAS", created_at=make.now - timedelta(days=3))
    priority.issues_prioritize(ids=[issue.id])
    computed = IssuePriority.objects.get(issue=issue).score
    priority.priority_override(issue=issue, label="80", user=triager)
    stored = IssuePriority.objects.get(issue=issue)
    assert stored.score == 80 == sum(p["points"] for p in stored.parts)
    override = parts_of(issue)["override"]
    assert override["points"] == 80 - computed
    assert override["why"].startswith("set to 80 by alice")
    priority.issues_prioritize(ids=[issue.id])  # the hourly recomputation keeps it
    assert IssuePriority.objects.get(issue=issue).score == 80
    correction = PredictionCorrection.objects.get(model_name="priority")
    assert (correction.before, correction.after, correction.user) == (str(computed), "80", triager)

    priority.priority_override(issue=issue, label="auto", user=triager)
    assert IssuePriority.objects.get(issue=issue).score == computed
    assert "override" not in parts_of(issue)
    for bad in ("101", "-1", "high"):
        with pytest.raises(priority.OverrideError):
            priority.priority_override(issue=issue, label=bad, user=triager)


def test_the_override_is_set_from_the_issue_page_by_triagers_only(make, logged_in_client, user):
    issue = make.issue(number=55, title="Crash")
    priority.issues_prioritize(ids=[issue.id])
    url = "/issues/ROCm/ROCm/55/predictions/priority/"
    assert logged_in_client.post(url, {"label": "90"}).status_code == 403
    user.user_permissions.add(
        Permission.objects.get(content_type__app_label="triage", codename="triage_issue")
    )
    assert (
        'id="priority-override"' in logged_in_client.get("/issues/ROCm/ROCm/55/").content.decode()
    )
    response = logged_in_client.post(url, {"label": "90"}, HTTP_HX_REQUEST="true")
    fragment = response.content.decode()
    assert response.status_code == 200 and "Priority set to 90." in fragment
    assert '<p class="priority-score"><strong>90</strong> / 100</p>' in fragment
    assert "Clear the override" in fragment
    bad = logged_in_client.post(url, {"label": "500"}, follow=True).content.decode()
    assert "a priority is a whole number from 0 to 100" in bad
    assert IssuePriority.objects.get(issue=issue).score == 90


def test_the_hourly_task_refreshes_the_waiting_time_of_every_open_issue(
    make, django_capture_on_commit_callbacks
):
    stale = make.issue(title="Old", created_at=make.now - timedelta(days=10))
    IssuePriority.objects.create(issue=stale, score=0, parts=[])
    closed = make.issue(title="Done", state="closed")
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.classify_reprioritize_open.apply().get() == 1  # one chunk
    assert parts_of(stale)["waiting"]["points"] == 10
    assert IssuePriority.objects.get(issue=stale).score == 10
    assert not IssuePriority.objects.filter(issue=closed).exists()


def test_beat_runs_the_reprioritization_hourly_on_the_classify_queue():
    classification_schedule.schedules_install()
    classification_schedule.schedules_install()  # idempotent
    entry = PeriodicTask.objects.get(task="triage.tasks.classify_reprioritize_open")
    assert (entry.interval.every, entry.interval.period, entry.queue) == (1, "hours", "classify")
    assert entry.task in tasks.classify_reprioritize_open.app.tasks
    retrain = PeriodicTask.objects.get(task="triage.tasks.classify_retrain_models")
    cron = retrain.crontab
    assert (cron.minute, cron.hour, cron.day_of_week, str(cron.timezone)) == ("0", "3", "0", "UTC")
    assert retrain.queue == "classify"
