from datetime import date

import pytest

from releases.services.series import override_set, series_create


@pytest.fixture
def series(make):
    """ROCm-like: 7.2 on 2026-01-21, every 42 days, UTC; 7.9 ships 2026-12-23 (cut 12-09)."""
    repository = make.repository("ROCm/ROCm", default_branch="develop")
    series = series_create(
        name="rocm",
        epoch_version="7.2",
        epoch_date=date(2026, 1, 21),
        version_suffix=".0",
        repositories=[repository],
    )
    override_set(series=series, slot=date(2026, 3, 4), skip=True, note="7.2.1 patch")
    return series
