from datetime import timedelta

import pytest
from django.utils import timezone

from config import wiring
from releases.selectors import priority_train_closeness
from releases.services.series import series_create
from releases.services.targets import target_set
from triage.models import IssuePriority
from triage.services.priority import issues_prioritize


@pytest.fixture
def near_series(make):
    """A series whose next train is cut in 3 days (the dates follow today's clock)."""
    today = timezone.now().date()
    return series_create(
        name="near",
        epoch_version="9.0",
        epoch_date=today + timedelta(days=17),  # GA in 17 days: branch cut in 3
        repositories=[make.repository("ROCm/ROCm")],
    )


def test_the_next_train_close_to_its_cut_gives_the_most_points(make, near_series):
    issue = make.issue(number=1)
    assert priority_train_closeness(issue_ids=[issue.id]) == {
        issue.id: (5.0, "train 9.0 cuts in 3 days")
    }


def test_an_issue_targeted_at_a_later_train_gets_fewer(make, near_series):
    issue = make.issue(number=1)
    target_set(issue=issue, series=near_series, version="9.1")
    points, why = priority_train_closeness(issue_ids=[issue.id])[issue.id]
    assert (points, why) == (0.0, "train 9.1 cuts in 45 days")


def test_issues_of_no_series_are_left_out(make, near_series):
    other = make.issue(repository=make.repository("someone/else"), number=1)
    assert priority_train_closeness(issue_ids=[other.id]) == {}


def test_the_priority_shows_the_release_train_part(make, near_series):
    assert "releases.selectors.priority_train_closeness" in wiring.PRIORITY_PARTS
    issue = make.issue(number=1)
    issues_prioritize(ids=[issue.id])
    parts = {p["name"]: p for p in IssuePriority.objects.get(issue=issue).parts}
    assert (parts["release_train"]["points"], parts["release_train"]["why"]) == (
        5,
        "train 9.0 cuts in 3 days",
    )
