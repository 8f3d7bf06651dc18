from datetime import UTC, datetime

from releases.models import Punt, TrainTarget
from releases.services.punting import train_punt, trains_punt_due
from releases.services.targets import target_set


def test_open_issues_move_to_the_next_train_unless_exempt(make, series):
    moved = make.issue(number=1, labels=["bug"])
    blocker = make.issue(number=2, labels=["blocker"])
    flagged = make.issue(number=3)
    closed = make.issue(number=4, state="closed")
    for issue in (moved, blocker, flagged, closed):
        target_set(issue=issue, series=series, version="7.9")
    target_set(issue=flagged, series=series, flags=["Security"])

    result = train_punt(series=series, version="7.9")

    assert (result.moved, sorted(result.kept), result.to_version) == (
        [moved.id],
        sorted([blocker.id, flagged.id]),
        "7.10",
    )
    assert TrainTarget.objects.get(issue=moved).train_version == "7.10"
    assert TrainTarget.objects.get(issue=closed).train_version == "7.9"
    punt = Punt.objects.get()
    assert (punt.issue, punt.from_version, punt.to_version) == (moved, "7.9", "7.10")


def test_exempt_labels_are_configurable(make, series, settings):
    settings.RELEASES_LABELS = {"punt_exempt": ["keep me"]}
    kept = make.issue(number=1, labels=["keep me"])
    blocker = make.issue(number=2, labels=["blocker"])
    for issue in (kept, blocker):
        target_set(issue=issue, series=series, version="7.9")
    assert train_punt(series=series, version="7.9").moved == [blocker.id]


def test_punting_due_trains_runs_once(make, series):
    issue = make.issue(number=1)
    target_set(issue=issue, series=series, version="7.9")
    after_cut = datetime(2026, 12, 12, tzinfo=UTC)
    trains_punt_due(now=after_cut)
    trains_punt_due(now=after_cut)
    assert TrainTarget.objects.get(issue=issue).train_version == "7.10"
    assert Punt.objects.count() == 1


def test_nothing_is_punted_before_branch_cut(make, series):
    issue = make.issue(number=1)
    target_set(issue=issue, series=series, version="7.9")
    assert trains_punt_due(now=datetime(2026, 12, 2, tzinfo=UTC)) == []
    assert not Punt.objects.exists()
