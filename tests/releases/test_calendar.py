from datetime import UTC, date, datetime

import pytest

from releases import calendar
from releases.calendar import CalendarError, Override, SeriesSpec

RUST = SeriesSpec(name="rust", epoch_version="1.5", epoch_date=date(2015, 12, 10))


def test_it_gives_rusts_trains():
    assert calendar.train_get(RUST, "1.80").release == date(2024, 7, 25)
    assert calendar.train_get(RUST, "1.85").release == date(2025, 2, 20)


def test_it_derives_the_default_offsets():
    train = calendar.train_get(RUST, "1.80")
    assert train.branch_cut == date(2024, 7, 11)
    assert train.code_freeze == date(2024, 7, 11)
    assert train.rc == date(2024, 7, 18)


def test_a_slip_moves_one_train_and_its_offsets():
    spec = SeriesSpec(
        name="rust",
        epoch_version="1.5",
        epoch_date=date(2015, 12, 10),
        overrides=(Override(slot=date(2024, 7, 25), release=date(2024, 8, 1), note="slipped"),),
    )
    train = calendar.train_get(spec, "1.80")
    assert (train.release, train.branch_cut, train.note) == (
        date(2024, 8, 1),
        date(2024, 7, 18),
        "slipped",
    )
    assert calendar.train_get(spec, "1.81").release == date(2024, 9, 5)


def test_a_skipped_slot_does_not_use_up_a_version():
    spec = SeriesSpec(
        name="rocm",
        epoch_version="7.2",
        epoch_date=date(2026, 1, 21),
        overrides=(Override(slot=date(2026, 3, 4), skip=True),),
    )
    assert calendar.train_get(spec, "7.3").release == date(2026, 4, 15)
    assert calendar.train_get(spec, "7.8.0").release == date(2026, 11, 11)


def test_a_series_can_start_a_new_major():
    spec = SeriesSpec(
        name="rocm",
        epoch_version="7.2",
        epoch_date=date(2026, 1, 21),
        overrides=(Override(slot=date(2026, 4, 15), version="8.0"),),
    )
    versions = [t.version for _, t in zip(range(4), calendar.iter_trains(spec), strict=False)]
    assert versions == ["7.2", "7.3", "8.0", "8.1"]
    assert calendar.train_get(spec, "7.4") is None


def test_an_aoe_deadline_ends_twelve_hours_after_the_utc_day():
    assert calendar.end_of_day(date(2026, 12, 9), "AoE") == datetime(2026, 12, 10, 12, tzinfo=UTC)
    assert calendar.end_of_day(date(2026, 12, 9), "UTC") == datetime(2026, 12, 10, tzinfo=UTC)


def test_a_merge_eleven_hours_after_the_days_end_in_utc_still_counts_for_that_aoe_day():
    spec = SeriesSpec(name="s", epoch_version="1.0", epoch_date=date(2026, 1, 21), time_zone="AoE")
    cut = calendar.train_get(spec, "1.1").branch_cut  # 2026-02-18
    merged_at = datetime.combine(cut, datetime.min.time(), tzinfo=UTC).replace(
        day=cut.day + 1, hour=11
    )
    assert calendar.train_for_merge(spec, merged_at).version == "1.1"
    utc = SeriesSpec(name="s", epoch_version="1.0", epoch_date=date(2026, 1, 21))
    assert calendar.train_for_merge(utc, merged_at).version == "1.2"


def test_the_current_train_is_the_first_not_released():
    now = datetime(2024, 8, 1, tzinfo=UTC)
    past, current, after = calendar.trains_window(RUST, now, past=2, upcoming=2)
    assert [t.version for t in past] == ["1.79", "1.80"]
    assert current.version == "1.81"
    assert [t.version for t in after] == ["1.82", "1.83"]
    assert current.phase(now) == "open"


@pytest.mark.parametrize("bad", ["7", "seven", "7.x", ""])
def test_it_refuses_a_bad_version(bad):
    with pytest.raises(CalendarError):
        calendar.parse_version(bad)


def test_it_refuses_an_unknown_time_zone():
    with pytest.raises(CalendarError):
        SeriesSpec(
            name="s", epoch_version="1.0", epoch_date=date(2026, 1, 1), time_zone="Mars/Base"
        ).validate()
