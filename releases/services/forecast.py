"""Training the fix-by-branch-cut forecast of a series (beat: nightly; `train_forecast`)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from django.utils import timezone

from classifiers import artifacts
from releases import forecast
from releases.history import history_load
from releases.models import ReleaseSeries

logger = logging.getLogger(__name__)


@dataclass
class ForecastTraining:
    series: str
    version: str = ""
    rows: int = 0
    trains: list[str] = field(default_factory=list)
    metrics: dict = field(default_factory=dict)
    skipped: str = ""

    def summary(self) -> str:
        if self.skipped:
            return f"{self.series}: forecast not trained: {self.skipped}"
        brier, base = self.metrics.get("brier"), self.metrics.get("base_rate_brier")
        scores = (
            f"rolling Brier {brier:.4f} vs base rate {base:.4f}"
            if brier is not None
            else "too few trains to evaluate"
        )
        return (
            f"{self.series}: forecast {self.version} on {self.rows} rows of "
            f"{len(self.trains)} trains ({scores}); active"
        )


def forecast_retrain(*, series: ReleaseSeries, now=None) -> ForecastTraining:
    """Replay the series' past trains, evaluate by rolling origin, fit on all, save, activate."""
    now = now or timezone.now()
    result = ForecastTraining(series=series.name)
    history = history_load(series)
    rows = forecast.replay(history, forecast.past_trains(history, now))
    result.rows = len(rows)
    try:
        model = forecast.ForecastModel().fit(rows)
    except forecast.ForecastUnavailable as exc:
        result.skipped = str(exc)
        return result
    model.cv_metrics = forecast.evaluate_rolling(rows)
    result.trains, result.metrics = model.trains, model.cv_metrics
    name = forecast.model_name(series)
    result.version = artifacts.artifact_save(
        name=name,
        model=model,
        data_sha256=forecast.rows_hash(rows),
        n_samples=len(rows),
        source=f"replay of {len(model.trains)} past trains of {series.name} at {now.isoformat()}",
        extra={
            "feature_version": forecast.FEATURE_VERSION,
            "snapshot_days": list(forecast.SNAPSHOT_DAYS),
            "base_rate": model.base_rate,
            "trains": model.trains,
        },
    )
    artifacts.artifact_activate(name=name, version=result.version)
    logger.info("%s", result.summary())
    return result


def forecasts_retrain(*, now=None) -> list[ForecastTraining]:
    return [forecast_retrain(series=s, now=now) for s in ReleaseSeries.objects.order_by("name")]
