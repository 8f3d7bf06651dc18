from datetime import timedelta

from django.test.utils import override_settings
from django.urls import reverse

from triage.models import SyncState, WebhookDelivery


def test_it_explains_what_to_do_when_nothing_is_tracked(logged_in_client):
    with override_settings(GITHUB_REPOS=[]):
        content = logged_in_client.get(reverse("home")).content.decode()
    assert "No repositories tracked yet" in content
    assert "GITHUB_REPOS" in content
    assert "python manage.py sync_github OWNER/NAME" in content
    assert "python manage.py load_demo" in content


def test_it_names_the_configured_repositories_to_sync(logged_in_client):
    with override_settings(GITHUB_REPOS=["ROCm/hip"]):
        content = logged_in_client.get(reverse("home")).content.decode()
    assert "python manage.py sync_github ROCm/hip" in content


def test_it_counts_issues_prs_and_comments_per_repository(logged_in_client, make):
    repo = make.repository("ROCm/hip")
    other = make.repository("ROCm/rocBLAS")
    make.issue(repository=repo, number=1)
    make.issue(repository=repo, number=2)
    make.issue(repository=repo, number=3, state="closed")
    make.issue(repository=repo, number=4, deleted_at=make.now)
    pr = make.pull_request(repository=repo, number=5)
    make.pull_request(repository=other, number=1)
    make.comment(pr)
    make.comment(pr)
    make.comment(pr, deleted_at=make.now)

    response = logged_in_client.get(reverse("home"))

    overview = {o.repository.full_name: o for o in response.context["overviews"]}
    hip = overview["ROCm/hip"]
    assert (hip.open_issues, hip.open_prs, hip.total, hip.comments) == (2, 1, 4, 2)
    assert overview["ROCm/rocBLAS"].open_prs == 1
    assert "ROCm/hip" in response.content.decode()


def test_it_lists_only_tracked_repositories(logged_in_client, make):
    make.repository("ROCm/old", tracked=False)
    content = logged_in_client.get(reverse("home")).content.decode()
    assert "ROCm/old" not in content


def test_it_shows_the_last_sync_and_its_errors(logged_in_client, make):
    repo = make.repository("ROCm/hip")
    make.sync_state(repo, last_success_at=make.now - timedelta(minutes=5))
    make.sync_state(
        repo, SyncState.Resource.COMMENTS, last_error="403 rate limit exceeded <b>now</b>"
    )

    content = logged_in_client.get(reverse("home")).content.decode()

    assert "5\xa0minutes ago" in content
    assert "403 rate limit exceeded &lt;b&gt;now&lt;/b&gt;" in content


def test_it_summarizes_recent_webhook_deliveries(logged_in_client, make):
    make.delivery(status=WebhookDelivery.Status.PROCESSED, repository_full_name="ROCm/hip")
    make.delivery(status=WebhookDelivery.Status.FAILED, error="boom")
    make.delivery(received_at=make.now - timedelta(days=3))

    response = logged_in_client.get(reverse("home"))

    summary = response.context["deliveries"]
    assert summary.total == 2
    assert summary.by_status == {"processed": 1, "failed": 1}
    assert len(summary.recent) == 3
    assert "issues.opened" in response.content.decode()


def test_it_uses_a_fixed_number_of_queries(logged_in_client, make, django_assert_max_num_queries):
    for n in range(5):
        repo = make.repository(f"ROCm/repo{n}")
        make.sync_state(repo)
        make.issue(repository=repo, number=1)
    with django_assert_max_num_queries(10):
        logged_in_client.get(reverse("home"))
