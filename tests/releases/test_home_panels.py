import pytest
from django.urls import reverse
from django.utils import timezone

from releases import calendar
from releases.services.targets import target_set


@pytest.mark.django_db
def test_home_shows_the_next_train_its_verdict_and_days_to_branch_cut(
    logged_in_client, series, make
):
    train = calendar.train_current(series.spec(), timezone.now())
    blocker = make.issue(repository=make.repository("ROCm/ROCm"), number=42, labels=["blocker"])
    target_set(issue=blocker, series=series, version=train.version)

    response = logged_in_client.get(reverse("home"))

    panel = next(p for p in response.context["panels"] if p.slug == "train")
    row = panel.context["rows"][0]
    assert row["train"].version == train.version
    assert row["verdict"] == "NO-GO"
    assert row["days_to_branch_cut"] == (train.branch_cut - timezone.now().date()).days
    content = response.content.decode()
    assert f"{series} {train.label}" in content
    assert "NO-GO" in content


@pytest.mark.django_db
def test_home_says_how_to_add_a_series_when_there_is_none(logged_in_client):
    content = logged_in_client.get(reverse("home")).content.decode()
    assert "No release series yet" in content
