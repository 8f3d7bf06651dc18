"""The GitHub sync, through the real PyGithub client, against our GitHub REST emulator."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.fakes.github_api import GitHubEmulator
from triage.models import Comment, Issue, Label, Person, Repository, SyncState
from triage.services import sync, tracking
from triage.sources.github import GitHubSource, RateLimited

pytestmark = pytest.mark.django_db(transaction=True)

REPO = "ROCm/ROCm"


@pytest.fixture
def emulator(settings):
    with GitHubEmulator(token="sync-token") as emu:
        settings.GITHUB_API_URL = emu.url
        settings.GITHUB_TOKEN = "sync-token"
        settings.GITHUB_RETRY_BACKOFF = 0
        yield emu


@pytest.fixture
def populated(emulator):
    emulator.add_repo(REPO)
    for n in range(1, 251):
        emulator.add_issue(REPO, title=f"Crash number {n} on gfx942", labels=["bug", "gfx942"])
    emulator.add_pull(
        REPO,
        title="Fix the crash",
        body="Fixes #3",
        merged=True,
        base="release/rocm-rel-7.1",
        head="fix-crash",
    )
    for n in (1, 2, 3):
        emulator.add_comment(REPO, n, body=f"Same here on issue {n}")
    return emulator


def run_sync(full=False):
    repository = tracking.repository_track(full_name=REPO)
    return sync.repository_sync(repository=repository, full=full)


def issue_requests(emulator):
    return [r for r in emulator.requests if r["path"].endswith("/issues") and r["method"] == "GET"]


def test_it_backfills_every_issue_pr_and_comment_once(populated):
    report = run_sync()
    assert Issue.objects.count() == 251
    assert Issue.objects.filter(is_pull_request=True).count() == 1
    assert Comment.objects.count() == 3
    assert report.created == 251 + 3
    assert set(Label.objects.values_list("name", flat=True)) == {"bug", "gfx942"}
    assert Issue.objects.get(number=5).labels.count() == 2
    assert all(r["query"].get("per_page") == "100" for r in issue_requests(populated))
    assert all(r["query"].get("sort") == "updated" for r in issue_requests(populated))


def test_it_stores_pull_request_details(populated):
    run_sync()
    pr = Issue.objects.get(is_pull_request=True)
    assert pr.merged is True
    assert pr.merged_at is not None
    assert len(pr.merge_commit_sha) == 40
    assert pr.base_ref == "release/rocm-rel-7.1"
    assert pr.head_ref == "fix-crash"
    assert pr.pr_github_id is not None and pr.pr_github_id != pr.github_id


def test_an_unchanged_repository_costs_one_request_per_resource_answered_304(populated):
    run_sync()
    run_sync()  # the first incremental run records the ETag of its `since` request
    populated.clear_log()
    report = run_sync()
    assert len(populated.requests) == 3
    assert [r["status"] for r in populated.requests] == [304, 304, 304]
    assert report.not_modified == 3
    assert report.created == report.updated == 0


def test_an_incremental_sync_fetches_only_what_changed(populated):
    run_sync()
    populated.update_issue(REPO, 7, title="Crash on gfx942 (edited)")
    populated.add_issue(REPO, title="A new report")
    report = run_sync()
    assert report.created == 1
    assert report.updated == 1
    assert Issue.objects.get(number=7).title == "Crash on gfx942 (edited)"
    assert Issue.objects.count() == 252


def test_a_502_in_the_middle_of_a_backfill_loses_and_doubles_nothing(populated, settings):
    settings.GITHUB_RETRIES = 0  # no retry inside the request: the sync itself must cope
    populated.inject_fault(502, after_requests=2, path_contains="/issues")
    repository = tracking.repository_track(full_name=REPO)
    with pytest.raises(Exception, match="502"):
        sync.repository_sync(repository=repository)
    partial = Issue.objects.count()
    assert 0 < partial < 251
    run_sync()
    assert Issue.objects.count() == 251
    assert sorted(Issue.objects.values_list("number", flat=True)) == list(range(1, 252))


def test_a_502_is_retried_with_backoff_inside_the_request(populated):
    populated.inject_fault(502, after_requests=2, path_contains="/issues")
    run_sync()
    assert Issue.objects.count() == 251
    assert populated.count(status=502) == 1


def test_a_rate_limit_mid_backfill_stops_with_the_reset_time_and_resumes(populated):
    populated.inject_fault(403, after_requests=2, path_contains="/issues")
    repository = tracking.repository_track(full_name=REPO)
    with pytest.raises(RateLimited) as raised:
        sync.repository_sync(repository=repository)
    assert raised.value.seconds_to_wait() >= 1
    state = SyncState.objects.get(repository=repository, resource="issues")
    assert state.watermark is not None
    done_before = Issue.objects.count()
    populated.clear_log()
    run_sync()
    assert Issue.objects.count() == 251
    first = issue_requests(populated)[0]
    assert "since" in first["query"], "the resumed sync starts from its watermark"
    assert done_before >= 100


def test_a_429_with_retry_after_is_a_rate_limit(populated):
    populated.inject_fault(429, retry_after=30, path_contains="/issues")
    repository = tracking.repository_track(full_name=REPO)
    with pytest.raises(RateLimited) as raised:
        sync.repository_sync(repository=repository)
    assert 25 <= raised.value.seconds_to_wait() <= 32


def test_an_item_updated_during_the_backfill_is_not_skipped(populated):
    # After the first page, an issue of that page is edited: it moves to the end of the
    # updated-ascending listing. Page-number paging would shift every later item one place
    # and skip one; keyset paging by `since` does not.
    original = populated.handle
    edited = []

    def handle_and_edit(method, raw_path, headers):
        reply = original(method, raw_path, headers)
        if not edited and "/issues?" in raw_path:
            edited.append(True)
            populated.update_issue(REPO, 10, title="edited while syncing")
        return reply

    populated.handle = handle_and_edit
    run_sync()
    assert Issue.objects.count() == 251
    assert Issue.objects.get(number=10).title == "edited while syncing"


def test_comments_of_issues_not_yet_stored_fetch_their_issue(emulator):
    emulator.add_repo(REPO)
    emulator.add_issue(REPO, title="first")
    run_sync()
    emulator.add_issue(REPO, title="second")
    emulator.add_comment(REPO, 2, body="hello")
    # Only the comments resource runs: its issue is not stored yet.
    repository = Repository.objects.get()
    source = GitHubSource()
    report = sync.SyncReport(repository=REPO)
    sync._sync_comments(repository, source, report, False, None)
    assert Comment.objects.get().issue.number == 2


def test_github_enterprise_path_prefix(settings):
    with GitHubEmulator(token="ghe", path_prefix="/api/v3") as emu:
        settings.GITHUB_API_URL = emu.url
        settings.GITHUB_TOKEN = "ghe"
        emu.add_repo(REPO)
        emu.add_issue(REPO, title="on an enterprise server")
        run_sync()
    assert Issue.objects.get().title == "on an enterprise server"


def test_the_command_prints_one_summary_line(populated):
    out = io.StringIO()
    call_command("sync_github", REPO, stdout=out)
    lines = out.getvalue().strip().splitlines()
    assert len(lines) == 1
    # 251 issues and PRs and 3 comments are new; the PR's details from the pulls listing update
    # its row, and keyset paging reads each page's boundary item again (unchanged).
    assert lines[0].startswith(f"{REPO}: fetched 257, created 254, updated 1, unchanged 2")
    assert "requests 6 (0 answered 304)" in lines[0]
    assert Repository.objects.get().tracked


def test_the_command_rejects_a_bad_repository_name(emulator):
    with pytest.raises(CommandError, match="OWNER/NAME"):
        call_command("sync_github", "not-a-repo")


def test_the_command_waits_for_a_short_rate_limit_and_finishes(populated):
    populated.inject_fault(403, after_requests=1, path_contains="/issues")
    out = io.StringIO()
    call_command("sync_github", REPO, stdout=out)
    assert Issue.objects.count() == 251
    assert "fetched" in out.getvalue()


def test_the_token_never_appears_in_logs(populated, caplog):
    caplog.set_level("DEBUG")
    run_sync()
    assert "sync-token" not in caplog.text


def test_tracking_schedules_a_sync_in_celery_beat(db, settings):
    from django_celery_beat.models import PeriodicTask

    settings.GITHUB_REPOS = ["ROCm/HIP", "triton-lang/triton"]
    tracking.repositories_track_configured()
    tasks = PeriodicTask.objects.filter(task="triage.tasks.sync_repository")
    assert tasks.count() == 2
    assert {t.interval.every for t in tasks} == {10}
    assert all(t.queue == "ingest" for t in tasks)
    tracking.repositories_track_configured()
    assert PeriodicTask.objects.filter(task="triage.tasks.sync_repository").count() == 2
    assert Person.objects.count() == 0
