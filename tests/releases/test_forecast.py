import io
import json
from datetime import UTC, date, datetime, timedelta

import pytest
from django.core.management import CommandError, call_command

from classifiers import artifacts
from releases import calendar, forecast
from releases.history import history_load
from releases.readiness import readiness_build
from releases.report_formats import report_render
from releases.services.fixes import fix_links_sync
from releases.services.forecast import forecast_retrain
from releases.services.targets import target_set

NOW = datetime(2026, 12, 2, 12, tzinfo=UTC)  # 7.9 is cut on 2026-12-09


@pytest.fixture
def history_data(make, series):
    """Trains 7.4 to 7.8: per train two issues fixed before the cut (a PR opened three weeks
    before it that says "Fixes #N") and two that nobody fixed (closed at the release); and
    three issues open on 7.9 today, one with a fix in review."""
    spec = series.spec()
    number = iter(range(1, 1000))
    for version in ("7.4", "7.5", "7.6", "7.7", "7.8"):
        train = calendar.train_get(spec, version)
        cut = train.branch_cut_at
        start = cut - timedelta(days=27)
        for fixed in (True, True, False, False):
            issue = make.issue(
                number=next(number),
                created_at=start,
                state="closed",
                closed_at=cut - timedelta(days=2) if fixed else train.release_at,
                labels=["bug"],
            )
            make.comment(issue, created_at=start + timedelta(days=1))
            if fixed:
                pr = make.pull_request(
                    number=next(number),
                    body=f"Fixes #{issue.number}",
                    merged=True,
                    base_ref="develop",
                    created_at=cut - timedelta(days=21),
                    merged_at=cut - timedelta(days=3),
                    state="closed",
                    closed_at=cut - timedelta(days=3),
                )
                fix_links_sync(pull_request=pr)
    today = []
    for in_review in (True, False, False):
        issue = make.issue(
            number=next(number),
            title="in review" if in_review else "nobody on it",
            created_at=NOW - timedelta(days=10),
            labels=["bug"],
        )
        target_set(issue=issue, series=series, version="7.9")
        if in_review:
            make.pull_request(
                number=next(number),
                body=f"Fixes #{issue.number}",
                created_at=NOW - timedelta(days=2),
            )
        today.append(issue)
    return {"series": series, "today": today}


def test_the_replay_sees_only_what_was_known_at_each_snapshot(make, series):
    spec = series.spec()
    train = calendar.train_get(spec, "7.8")
    cut = train.branch_cut_at
    issue = make.issue(number=1, created_at=cut - timedelta(days=30))
    make.comment(issue, created_at=cut - timedelta(days=25))
    make.comment(issue, created_at=cut - timedelta(days=2))  # after the 3-day snapshot
    pr = make.pull_request(
        number=2,
        body="Fixes #1",
        merged=True,
        base_ref="develop",
        created_at=cut - timedelta(days=10),
        merged_at=cut - timedelta(hours=12),
    )
    fix_links_sync(pull_request=pr)
    rows = {
        round((cut - r.moment).days): r
        for r in forecast.replay(history_load(series), [train])
        if r.issue_id == issue.id
    }
    assert sorted(rows) == [1, 3, 7, 14, 21, 28]
    assert rows[14].features["open_pull_request"] == 0.0  # the PR was opened 10 days before
    assert rows[7].features["open_pull_request"] == 1.0
    assert rows[3].features["comments_log"] == pytest.approx(0.6931, abs=1e-3)  # one comment
    assert rows[1].features["comments_log"] == pytest.approx(1.0986, abs=1e-3)  # two
    assert rows[28].features["weeks_left"] == pytest.approx(4.0)
    assert all(r.label == 1 for r in rows.values())  # merged 12 hours before the cut


def test_an_issue_fixed_after_the_cut_is_a_miss(make, series):
    train = calendar.train_get(series.spec(), "7.8")
    make.issue(number=1, created_at=train.branch_cut_at - timedelta(days=30))
    pr = make.pull_request(
        number=2,
        body="Fixes #1",
        merged=True,
        base_ref="develop",
        merged_at=train.branch_cut_at + timedelta(hours=1),
    )
    fix_links_sync(pull_request=pr)
    rows = forecast.replay(history_load(series), [train])
    assert rows and {r.label for r in rows} == {0}


def test_retraining_stores_a_versioned_artifact_with_its_metadata(history_data):
    result = forecast_retrain(series=history_data["series"], now=NOW)
    assert result.skipped == ""
    assert result.trains[-1] == "7.8" and result.rows > 40
    name = forecast.model_name(history_data["series"])
    assert artifacts.active_version(name) == result.version
    metadata = artifacts.metadata_read(name, result.version)
    assert metadata["n_samples"] == result.rows
    assert len(metadata["data_sha256"]) == 64 and metadata["sklearn_version"]
    assert metadata["cv_metrics"]["evaluated_trains"] >= 1
    assert metadata["trains"] == result.trains
    loaded = forecast.forecast_model_load(history_data["series"])
    assert loaded.version == result.version


def test_the_report_forecasts_the_open_issues_of_the_next_train(history_data):
    forecast_retrain(series=history_data["series"], now=NOW)
    report = readiness_build(series=history_data["series"], version="7.9", as_of=NOW.date())
    section = report["forecast"]
    assert section["available"] and section["trained_on"][-1] == "7.8"
    by_title = {r["title"]: r for r in section["issues"]}
    assert set(by_title) == {"in review", "nobody on it"}
    assert all(0.0 <= r["probability"] <= 1.0 for r in section["issues"])
    assert by_title["in review"]["open_pull_request"] is True
    # the replayed history: issues with a fix in review got fixed, the others did not
    assert by_title["in review"]["probability"] > by_title["nobody on it"]["probability"]
    assert section["issues"][0]["title"] == "in review"  # most likely first


@pytest.mark.parametrize("fmt", ["md", "json", "html"])
def test_the_forecast_is_in_every_format_byte_for_byte(history_data, fmt):
    forecast_retrain(series=history_data["series"], now=NOW)

    def render():
        report = readiness_build(series=history_data["series"], version="7.9", as_of=NOW.date())
        return report_render(report, fmt).encode()

    first = render()
    assert first == render()
    assert {"md": b"## Forecast", "json": b'"forecast"', "html": b'id="forecast"'}[fmt] in first
    assert b"in review" in first


def test_without_a_model_the_report_says_how_to_train_one(history_data):
    report = readiness_build(series=history_data["series"], version="7.9", as_of=NOW.date())
    assert report["forecast"]["available"] is False
    assert "train_forecast" in report["forecast"]["note"]


def test_after_the_branch_cut_there_is_nothing_to_forecast(history_data):
    forecast_retrain(series=history_data["series"], now=NOW)
    report = readiness_build(series=history_data["series"], version="7.9", as_of=date(2026, 12, 10))
    assert report["forecast"]["issues"] == []
    assert "branch cut has passed" in report["forecast"]["note"]


def test_a_model_from_another_scikit_learn_is_refused(history_data):
    result = forecast_retrain(series=history_data["series"], now=NOW)
    name = forecast.model_name(history_data["series"])
    path = artifacts.artifact_root() / name / result.version / artifacts.METADATA_FILE
    metadata = json.loads(path.read_text())
    metadata["sklearn_version"] = "0.0.1"
    path.write_text(json.dumps(metadata))
    report = readiness_build(series=history_data["series"], version="7.9", as_of=NOW.date())
    assert report["forecast"]["available"] is False
    assert "scikit-learn 0.0.1" in report["forecast"]["note"]


def test_a_changed_model_file_is_refused(history_data):
    result = forecast_retrain(series=history_data["series"], now=NOW)
    name = forecast.model_name(history_data["series"])
    path = artifacts.artifact_root() / name / result.version / artifacts.MODEL_FILE
    path.write_bytes(path.read_bytes() + b"changed")
    report = readiness_build(series=history_data["series"], version="7.9", as_of=NOW.date())
    assert report["forecast"]["available"] is False
    assert "not the file that was saved" in report["forecast"]["note"]


def test_too_little_history_trains_nothing(series):
    result = forecast_retrain(series=series, now=NOW)
    assert result.version == "" and "need 20 rows" in result.skipped
    assert artifacts.active_version(forecast.model_name(series)) is None


def test_rolling_evaluation_beats_the_base_rate_when_a_feature_predicts(series):
    rows = [
        forecast.Row(
            train=f"7.{t}",
            issue_id=i,
            moment=NOW,
            features={"open_pull_request": float(i % 3 == 0), "repository": "rocm/rocm"},
            label=int(i % 3 == 0),
        )
        for t in range(2, 7)
        for i in range(30)
    ]
    metrics = forecast.evaluate_rolling(rows)
    assert metrics["evaluated_trains"] == 3  # 7.4, 7.5, 7.6 after two earlier trains each
    assert metrics["brier"] < metrics["base_rate_brier"]
    assert sum(b["n"] for b in metrics["calibration"]) == metrics["evaluated_rows"] == 90


def test_the_command_trains_and_prints_its_metrics(history_data):
    out = io.StringIO()
    call_command("train_forecast", "--json", stdout=out)
    payload = json.loads(out.getvalue())
    assert payload["series"] == "rocm" and payload["version"]
    assert {"brier", "base_rate_brier", "calibration"} <= set(payload["metrics"])


def test_the_command_fails_clearly_without_history(series):
    with pytest.raises(CommandError, match="need 20 rows"):
        call_command("train_forecast", stdout=io.StringIO())
