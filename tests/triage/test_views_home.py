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


def test_it_uses_a_fixed_number_of_queries(logged_in_client, make):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def queries_for_home() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert logged_in_client.get(reverse("home")).status_code == 200
        return len(captured)

    repo = make.repository("ROCm/repo0")
    make.sync_state(repo)
    make.issue(repository=repo, number=1)
    few = queries_for_home()
    for n in range(1, 8):
        repo = make.repository(f"ROCm/repo{n}")
        make.sync_state(repo)
        for number in range(1, 4):
            make.issue(repository=repo, number=number)
    assert queries_for_home() == few


def test_it_counts_untriaged_issues_and_shows_the_top_of_the_queue(logged_in_client, make):
    from triage.models import IssuePrediction

    sure = make.issue(number=1, title="sure bug")
    unsure = make.issue(number=2, title="unsure thing")
    make.issue(number=3, title="never classified")
    make.issue(number=4, title="closed one", state="closed")
    for issue, needs in ((sure, False), (unsure, True)):
        IssuePrediction.objects.create(
            issue=issue, model_name="kind", label="bug", confidence=0.9, needs_triage=needs
        )
    make.priority(unsure, 80)
    make.priority(sure, 20)

    response = logged_in_client.get(reverse("home"))

    panel = next(p for p in response.context["panels"] if p.slug == "triage")
    assert panel.context["untriaged"] == 2
    assert panel.context["open"] == 3
    assert [i.number for i in panel.context["top"]][:2] == [2, 1]


def test_it_charts_issues_opened_and_closed_per_week(logged_in_client, make):
    from datetime import timedelta

    from django.utils import timezone

    now = timezone.now()
    make.issue(number=1, created_at=now - timedelta(days=1))
    make.issue(number=2, created_at=now - timedelta(days=1), state="closed", closed_at=now)
    make.issue(number=3, created_at=now - timedelta(days=200))

    response = logged_in_client.get(reverse("home"))

    chart = next(p for p in response.context["panels"] if p.slug == "activity").context["chart"]
    opened, closed = (d["data"] for d in chart["datasets"])
    assert len(chart["labels"]) == 12
    assert sum(opened) == 2 and sum(closed) == 1
    assert opened[-1] + opened[-2] == 2
    assert 'data-chart="chart-activity"' in response.content.decode()


def test_it_says_when_deliveries_wait_in_this_hosts_spool(logged_in_client, settings, tmp_path):
    from triage.services.webhook_spool import SpooledDelivery, spool_put

    settings.WEBHOOK_SPOOL_DIR = tmp_path / "spool"
    page = logged_in_client.get(reverse("home")).content.decode()
    assert "spool" not in page
    spool_put(delivery=SpooledDelivery(delivery_id="d-1", event="issues", body=b"{}"))
    (tmp_path / "spool" / "quarantine" / "d-0.delivery").write_bytes(b"truncated")
    page = logged_in_client.get(reverse("home")).content.decode()
    assert "1 delivery (284\xa0bytes) waits in this web host's spool" in page
    assert "1 spooled delivery could not be read back" in page


def test_the_repositories_table_adds_up_to_the_open_count_of_the_home_page(logged_in_client, make):
    import re

    tracked = make.repository("ROCm/hip")
    untracked = make.repository("demo/kernels", tracked=False)
    make.issue(repository=tracked, number=1)
    make.issue(repository=untracked, number=1)
    make.issue(repository=untracked, number=2)
    page = logged_in_client.get(reverse("home")).content.decode()
    opened = int(re.search(r"<strong>(\d+)</strong> open issues", page).group(1))
    cells = re.findall(r'type=issue">(\d+)</a>', page)
    assert opened == 3 and sum(int(n) for n in cells) == opened
    assert 'demo/kernels</a> <span class="badge">not tracked</span>' in page
