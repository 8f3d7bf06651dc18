from datetime import UTC, datetime

import pytest
from django.urls import reverse

from triage.models import UserPreference


@pytest.mark.django_db
def test_it_saves_the_time_zone_and_shows_times_in_it(logged_in_client, user, make):
    issue = make.issue(number=7, updated_at=datetime(2026, 1, 15, 12, 0, tzinfo=UTC))
    make.comment(issue, created_at=datetime(2026, 1, 15, 12, 0, tzinfo=UTC))
    url = reverse("issue-detail", args=["ROCm", "ROCm", 7])
    before = logged_in_client.get(url).content.decode()

    response = logged_in_client.post(reverse("preferences"), {"time_zone": "Asia/Tokyo"})

    assert response.status_code == 302
    assert UserPreference.objects.get(user=user).time_zone == "Asia/Tokyo"
    after = logged_in_client.get(url).content.decode()
    assert "21:00" in after  # 12:00 UTC is 21:00 in Tokyo
    assert "21:00" not in before


@pytest.mark.django_db
def test_it_refuses_an_unknown_time_zone_and_keeps_the_old_one(logged_in_client, user):
    UserPreference.objects.create(user=user, time_zone="Europe/Berlin")
    response = logged_in_client.post(reverse("preferences"), {"time_zone": "Mars/Olympus"})
    assert response.status_code == 200
    assert "Select a valid choice" in response.content.decode()
    assert UserPreference.objects.get(user=user).time_zone == "Europe/Berlin"


@pytest.mark.django_db
def test_saving_a_github_login_says_so_and_not_that_the_time_zone_changed(logged_in_client, user):
    answer = logged_in_client.post(
        reverse("preferences"), {"time_zone": "UTC", "github_login": "maint-alice"}, follow=True
    )
    text = answer.content.decode()
    assert "Your GitHub login is now @maint-alice." in text
    assert "Times are now shown" not in text
    answer = logged_in_client.post(
        reverse("preferences"), {"time_zone": "UTC", "github_login": "maint-alice"}, follow=True
    )
    assert "Nothing changed." in answer.content.decode()
