from datetime import UTC, date, datetime

import pytest

from releases import calendar
from releases.assignment import train_for_pull
from releases.models import FixLink
from releases.services.fixes import fix_links_sync
from releases.services.series import override_set

SPEC = calendar.SeriesSpec(
    name="rocm",
    epoch_version="7.2",
    epoch_date=date(2026, 1, 21),
    overrides=(calendar.Override(slot=date(2026, 3, 4), skip=True),),
)


def at(text):
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


@pytest.mark.parametrize(
    ("base_ref", "merged_at", "expected"),
    [
        ("develop", "2026-12-09T23:59:00", ("7.9", "default_branch")),  # on the cut day
        ("develop", "2026-12-10T00:00:00", ("7.10", "default_branch")),  # the day after
        ("develop", "2026-04-01T00:00:00", ("7.3", "default_branch")),
        ("release/rocm-rel-7.4", "2026-12-01T00:00:00", ("7.4", "release_branch")),
        ("release/7.8", "2026-12-01T00:00:00", ("7.8", "release_branch")),
        ("feature/x", "2026-12-01T00:00:00", ("", "other_branch")),
        ("develop", "2024-01-01T00:00:00", ("", "default_branch")),  # before the series
    ],
)
def test_a_merge_joins_its_train(base_ref, merged_at, expected):
    assignment = train_for_pull(
        SPEC, base_ref=base_ref, default_branch="develop", merged_at=at(merged_at)
    )
    assert (assignment.version, assignment.via) == expected


def test_an_unmerged_pull_request_joins_no_train():
    assert (
        train_for_pull(SPEC, base_ref="develop", default_branch="develop", merged_at=None).version
        == ""
    )


def test_a_slipped_train_takes_the_merges_until_its_new_cut(
    series, make, django_capture_on_commit_callbacks
):
    issue = make.issue(number=1)
    pr = make.pull_request(
        number=2,
        body="Fixes #1",
        merged=True,
        merged_at=at("2026-12-12T00:00:00"),
        base_ref="develop",
        merge_commit_sha="abc123",
    )
    fix_links_sync(pull_request=pr)
    assert FixLink.objects.get(issue=issue).train_version == "7.10"
    with django_capture_on_commit_callbacks(execute=True):
        override_set(series=series, slot=date(2026, 12, 23), release_date=date(2026, 12, 30))
    assert FixLink.objects.get(issue=issue).train_version == "7.9"
