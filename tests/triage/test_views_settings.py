import pytest
from django.urls import reverse

from triage.models import SavedSearch


@pytest.mark.django_db
def test_it_lists_repositories_searches_and_series(logged_in_client, make):
    make.repository("ROCm/HIP", label_writeback=True)
    SavedSearch.objects.create(name="sucks", query='"ROCm sucks" -is:retweet')
    content = logged_in_client.get(reverse("settings")).content.decode()
    assert "ROCm/HIP" in content
    assert "&quot;ROCm sucks&quot; -is:retweet" in content
    assert "Release series" in content
    # a viewer gets no edit links
    assert "/admin/triage/repository/" not in content


@pytest.mark.django_db
def test_it_links_the_admin_for_those_who_may_edit(admin_client, make):
    repo = make.repository("ROCm/HIP")
    content = admin_client.get(reverse("settings")).content.decode()
    assert reverse("admin:triage_repository_change", args=[repo.pk]) in content
    assert reverse("admin:releases_releaseseries_add") in content


@pytest.mark.django_db
def test_a_github_app_that_cannot_work_is_said_on_the_settings_page(logged_in_client, settings):
    from triage.sources.github import app_auth

    settings.GITHUB_APP_ID = "12345"
    settings.GITHUB_APP_PRIVATE_KEY = "not a PEM key"
    app_auth.app_caches_clear()
    content = logged_in_client.get(reverse("settings")).content.decode()
    assert "What keeps the GitHub App from working" in content
    assert "GITHUB_APP_PRIVATE_KEY" in content


@pytest.mark.django_db
def test_it_shows_each_rate_budget_with_its_repositories(logged_in_client, make):
    from datetime import timedelta

    from django.utils import timezone

    from triage.models import SyncState

    rocm = make.repository("ROCm/ROCm")
    hip = make.repository("ROCm/HIP", installation_id=57412803)
    SyncState.objects.create(
        repository=hip,
        resource="issues",
        rate_limit_remaining=0,
        rate_limit_reset_at=timezone.now() + timedelta(minutes=30),
        last_run_at=timezone.now(),
    )
    SyncState.objects.create(
        repository=rocm, resource="issues", rate_limit_remaining=4200, last_run_at=timezone.now()
    )
    content = logged_in_client.get(reverse("settings")).content.decode()
    assert "GitHub rate budgets" in content
    assert "installation 57412803" in content and "the token" in content
    assert "4200" in content and "limited" in content


@pytest.mark.django_db
def test_the_home_page_shows_each_budget_its_reset_and_what_still_backfills(logged_in_client, make):
    from datetime import timedelta

    from django.utils import timezone

    from triage.models import SyncState

    assert "GitHub rate budgets" not in logged_in_client.get(reverse("home")).content.decode()
    done = make.repository("ROCm/ROCm", installation_id=57412803)
    make.repository("ROCm/rocBLAS", installation_id=57412803)  # installed, not synced yet
    reset = timezone.now() + timedelta(minutes=42)
    SyncState.objects.create(
        repository=done,
        resource="issues",
        backfill_done=True,
        rate_limit_remaining=3170,
        rate_limit_reset_at=reset,
        last_run_at=timezone.now(),
    )
    content = logged_in_client.get(reverse("home")).content.decode()
    assert "GitHub rate budgets" in content
    assert "installation 57412803" in content and "3170" in content
    assert reset.isoformat(timespec="seconds")[:16] in content
    assert "1 backfilling" in content and 'title="ROCm/rocBLAS"' in content
