"""Fix-by-branch-cut forecast: for each open issue on a train, the probability that a fix merges
before the train's branch cut, from a scikit-learn logistic regression over what is known at
that moment, trained by replaying past trains (releases.history).

Replay: for every past train and every snapshot (28, 21, 14, 7, 3 and 1 days before its branch
cut), each issue open and on the train at the snapshot and not yet fixed is one row; its label
is whether a fix of it merged after the snapshot and by the branch cut. Features at the
snapshot: age, comments so far, an open pull request that says it fixes the issue (or a
maintainer linked), days left to the branch cut, explicitly targeted, punted before, and the
issue's blocker/regression/critical/high/known-issue kinds, kind, severity, component,
repository and whether it has an assignee. Nothing after the snapshot enters a row's features;
labels, flags, predictions and assignees have no stored history and are taken as they are now
(releases.history says so too).

Models are stored with classifiers.artifacts (a version folder with the fitted pipeline and its
metadata: library versions, data hash, the replay's rolling-origin Brier score), one model
name per series; loading checks the scikit-learn version and the file's hash first.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta

from sklearn.feature_extraction import DictVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MaxAbsScaler

from classifiers import artifacts
from releases import calendar, selectors
from releases.history import SeriesHistory
from releases.models import ReleaseSeries

FEATURE_VERSION = 1
SNAPSHOT_DAYS = (28, 21, 14, 7, 3, 1)
MAX_PAST_TRAINS = 26  # about three years of six-week trains
MIN_ROWS = 20
KINDS = ("blocker", "regression", "critical", "high", "known_issue")
CALIBRATION_BINS = 10


class ForecastUnavailable(ValueError):
    """Too little history to train (too few rows, or only one outcome)."""


def model_name(series: ReleaseSeries) -> str:
    return f"release_forecast_{series.name}"


@dataclass
class Row:
    train: str
    issue_id: int
    moment: datetime
    features: dict
    label: int  # 1: a fix merged by the branch cut


def features_at(
    history: SeriesHistory, issue_id: int, train: calendar.Train, moment: datetime, facts: dict
) -> dict:
    """The row's features: only what was known at `moment` (and the history-less facts)."""
    issue = history.issues[issue_id]
    age_days = max(0.0, (moment - issue.created_at).total_seconds() / 86400)
    days_left = (train.branch_cut_at - moment).total_seconds() / 86400
    row = {
        "age_log": math.log1p(age_days),
        "comments_log": math.log1p(history.comments_by(issue_id, moment)),
        "open_pull_request": 1.0 if history.open_pulls_at(issue_id, moment) else 0.0,
        "weeks_left": min(max(days_left, 0.0), 42.0) / 7,
        "targeted": 1.0 if history.target_at(issue_id, moment) else 0.0,
        "punted": float(history.punts_before(issue_id, moment)),
        "assignee": 1.0 if facts.get("assignees") else 0.0,
        "repository": issue.repository.lower(),
        "component": (facts.get("component") or "none").lower(),
        "kind": facts.get("kind") or "none",
        "severity": facts.get("severity") or "none",
    }
    for kind in KINDS:
        if kind in facts.get("kinds", ()):
            row[f"is_{kind}"] = 1.0
    return row


def past_trains(history: SeriesHistory, now: datetime) -> list[calendar.Train]:
    """Trains whose branch cut passed by `now`, oldest first (the last MAX_PAST_TRAINS)."""
    trains = []
    for train in calendar.iter_trains(history.spec):
        if train.branch_cut_at > now:
            break
        trains.append(train)
    return trains[-MAX_PAST_TRAINS:]


def replay(history: SeriesHistory, trains: list[calendar.Train]) -> list[Row]:
    """One row per (train, snapshot, open and unfixed issue on the train then)."""
    rows = []
    for train in trains:
        cut = train.branch_cut_at
        for days in SNAPSHOT_DAYS:
            moment = cut - timedelta(days=days)
            scope = [i for i in history.scope(train, moment) if not history.fixed_by(i, moment)]
            known = history.facts(scope)
            for issue_id in scope:
                if issue_id not in known:
                    continue
                rows.append(
                    Row(
                        train=train.version,
                        issue_id=issue_id,
                        moment=moment,
                        features=features_at(history, issue_id, train, moment, known[issue_id]),
                        label=int(history.fixed_between(issue_id, moment, cut)),
                    )
                )
    return rows


class ForecastModel:
    """DictVectorizer (one-hot of the categories) → MaxAbsScaler → logistic regression."""

    classes = ["not fixed by branch cut", "fixed by branch cut"]
    thresholds: dict = {}

    def __init__(self, pipeline=None, base_rate: float = 0.0, trains=(), cv_metrics=None):
        self.pipeline = pipeline
        self.base_rate = base_rate
        self.trains = list(trains)
        self.cv_metrics = dict(cv_metrics or {})

    def fit(self, rows: list[Row]) -> ForecastModel:
        labels = [r.label for r in rows]
        if len(rows) < MIN_ROWS or len(set(labels)) < 2:
            raise ForecastUnavailable(
                f"{len(rows)} replayed rows, {sum(labels)} fixed: need {MIN_ROWS} rows and "
                "both outcomes"
            )
        self.pipeline = make_pipeline(
            DictVectorizer(sparse=True),
            MaxAbsScaler(),
            LogisticRegression(C=1.0, max_iter=2000, solver="liblinear", random_state=0),
        )
        self.pipeline.fit([r.features for r in rows], labels)
        self.base_rate = sum(labels) / len(labels)
        self.trains = sorted({r.train for r in rows}, key=calendar.parse_version)
        return self

    def predict(self, feature_rows: list[dict]) -> list[float]:
        if not feature_rows:
            return []
        return [float(p) for p in self.pipeline.predict_proba(feature_rows)[:, 1]]

    def state(self) -> dict:
        return {
            "feature_version": FEATURE_VERSION,
            "pipeline": self.pipeline,
            "base_rate": self.base_rate,
            "trains": self.trains,
            "cv_metrics": self.cv_metrics,
        }

    @classmethod
    def from_state(cls, state: dict) -> ForecastModel:
        if state.get("feature_version") != FEATURE_VERSION:
            raise artifacts.ArtifactError(
                f"forecast features changed (version {state.get('feature_version')}, "
                f"now {FEATURE_VERSION}): retrain it (python manage.py train_forecast)"
            )
        return cls(state["pipeline"], state["base_rate"], state["trains"], state["cv_metrics"])


def rows_hash(rows: list[Row]) -> str:
    digest = hashlib.sha256()
    for row in rows:
        digest.update(json.dumps([row.train, row.issue_id, row.label, row.features]).encode())
    return digest.hexdigest()


# --- evaluation: train on earlier trains, predict the next one ---------------------------------


def calibration_table(pairs: list[tuple[float, int]], bins: int = CALIBRATION_BINS) -> list[dict]:
    table = []
    for index in range(bins):
        low, high = index / bins, (index + 1) / bins
        members = [(p, y) for p, y in pairs if low <= p < high or (index == bins - 1 and p == 1.0)]
        if members:
            table.append(
                {
                    "bin": f"{low:.1f}-{high:.1f}",
                    "n": len(members),
                    "mean_predicted": round(sum(p for p, _ in members) / len(members), 3),
                    "observed": round(sum(y for _, y in members) / len(members), 3),
                }
            )
    return table


def evaluate_rolling(rows: list[Row], *, min_trains: int = 2) -> dict:
    """Rolling origin over the trains in order: fit on the trains before, score the next one.
    Brier score of the model and of the training base rate, and a calibration table."""
    order = sorted({r.train for r in rows}, key=calendar.parse_version)
    model_pairs: list[tuple[float, int]] = []
    base_squares: list[float] = []
    per_train = []
    for k in range(min_trains, len(order)):
        earlier = [r for r in rows if r.train in set(order[:k])]
        later = [r for r in rows if r.train == order[k]]
        if not later:
            continue
        try:
            model = ForecastModel().fit(earlier)
        except ForecastUnavailable:
            continue
        predicted = model.predict([r.features for r in later])
        squares = [(p - r.label) ** 2 for p, r in zip(predicted, later, strict=True)]
        base = [(model.base_rate - r.label) ** 2 for r in later]
        model_pairs += [(p, r.label) for p, r in zip(predicted, later, strict=True)]
        base_squares += base
        per_train.append(
            {
                "train": order[k],
                "n": len(later),
                "fixed": sum(r.label for r in later),
                "brier": round(sum(squares) / len(squares), 4),
                "base_rate_brier": round(sum(base) / len(base), 4),
            }
        )
    n = len(model_pairs)
    return {
        "rows": len(rows),
        "trains": len(order),
        "evaluated_rows": n,
        "evaluated_trains": len(per_train),
        "brier": round(sum((p - y) ** 2 for p, y in model_pairs) / n, 4) if n else None,
        "base_rate_brier": round(sum(base_squares) / n, 4) if n else None,
        "per_train": per_train,
        "calibration": calibration_table(model_pairs),
    }


# --- the stored model ----------------------------------------------------------------------


@dataclass
class LoadedForecast:
    version: str
    model: ForecastModel
    metadata: dict


_cache: dict[tuple[str, str, str], LoadedForecast] = {}
_cache_lock = threading.Lock()


def forecast_model_load(series: ReleaseSeries) -> LoadedForecast | None:
    """The series' active forecast model, None when none was trained; ArtifactError when the
    stored one cannot be used (another scikit-learn, a changed file, older features)."""
    name = model_name(series)
    version = artifacts.active_version(name)
    if version is None:
        return None
    key = (str(artifacts.artifact_root()), name, version)
    with _cache_lock:
        if key in _cache:
            return _cache[key]
    state, metadata = artifacts.state_load(name, version)
    loaded = LoadedForecast(version, ForecastModel.from_state(state), metadata)
    with _cache_lock:
        _cache[key] = loaded
    return loaded


def forecast_for_train(
    history: SeriesHistory, train: calendar.Train, moment: datetime, issue_ids: list[int]
) -> dict:
    """The report's forecast section for the open issues `issue_ids` of `train` at `moment`."""
    section = {
        "available": False,
        "note": "",
        "model_version": "",
        "trained_on": [],
        "base_rate": None,
        "expected_fixed": None,
        "branch_cut_at": train.branch_cut_at.isoformat(),
        "issues": [],
    }
    if moment >= train.branch_cut_at:
        section["note"] = "the branch cut has passed: no forecast"
        return section
    try:
        loaded = forecast_model_load(history.series)
    except artifacts.ArtifactError as exc:
        section["note"] = f"the forecast model cannot be used: {exc}"
        return section
    if loaded is None:
        section["note"] = "no forecast model trained yet (python manage.py train_forecast)"
        return section
    unfixed = [i for i in issue_ids if not history.fixed_by(i, moment)]
    facts = history.facts(unfixed)
    unfixed = [i for i in unfixed if i in facts]
    rows = [features_at(history, i, train, moment, facts[i]) for i in unfixed]
    probabilities = loaded.model.predict(rows)
    issues = selectors.issues_by_id(unfixed)
    found = []
    for issue_id, features, probability in zip(unfixed, rows, probabilities, strict=True):
        issue = issues[issue_id]
        found.append(
            {
                "reference": issue.reference,
                "title": issue.title,
                "url": selectors.github_url(issue),
                "probability": round(probability, 3),
                "open_pull_request": bool(features["open_pull_request"]),
                "days_left": round(features["weeks_left"] * 7, 1),
            }
        )
    found.sort(key=lambda r: (-r["probability"], r["reference"]))
    section.update(
        available=True,
        model_version=loaded.version,
        trained_on=list(loaded.model.trains),
        base_rate=round(loaded.model.base_rate, 3),
        issues=found,
        expected_fixed=round(sum(r["probability"] for r in found), 1),
    )
    return section
