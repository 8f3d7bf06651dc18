"""The GitHub sync, through the real PyGithub client, against our GitHub REST emulator."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from tests.fakes.github_api import GitHubEmulator, github_for_settings
from triage.models import Comment, Issue, Label, Person, Repository, SyncState
from triage.services import tracking, upsert
from triage.sources.github import sync
from triage.sources.github.client import GitHubSource, RateLimited
from triage.sources.records import PersonRecord

pytestmark = pytest.mark.django_db(transaction=True)

REPO = "ROCm/ROCm"


@pytest.fixture
def emulator(settings):
    with github_for_settings(settings, token="sync-token") as emu:
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


def populated_id(emulator) -> int:
    return emulator.add_repo(REPO)["id"]


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
    assert pr.pr_github_id is not None and str(pr.pr_github_id) != pr.external_id


def test_an_unchanged_repository_costs_one_request_per_resource_answered_304(populated):
    run_sync()
    run_sync()  # the first incremental run records the ETag of its `since` request
    populated.clear_log()
    report = run_sync()
    # the repository itself (its name, by its id), issues, pull requests, comments
    assert [r["path"] for r in populated.requests][0] == f"/repositories/{populated_id(populated)}"
    assert [r["status"] for r in populated.requests] == [304, 304, 304, 304]
    assert report.not_modified == 4
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

    def handle_and_edit(method, raw_path, *rest):
        reply = original(method, raw_path, *rest)
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
    # 251 issues and PRs and 3 comments are new; the PR's details from the pulls listing and
    # then its commit messages update its row, and keyset paging reads each page's boundary
    # item again (unchanged).
    assert lines[0].startswith(f"{REPO}: fetched 258, created 254, updated 2, unchanged 2")
    assert "requests 7 (0 answered 304)" in lines[0]
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


# --- pull-request details: an interrupted listing resumes ------------------------------------


def pulls_requests(emulator):
    return [r for r in emulator.requests if r["path"] == f"/repos/{REPO}/pulls"]


def test_an_interrupted_pulls_listing_resumes_at_its_page_and_every_pr_gets_its_details(
    emulator,
):
    emulator.add_repo(REPO)
    for n in range(201):  # three pages of pulls
        emulator.add_pull(REPO, title=f"pr {n}", merged=True, base="release/x", head=f"h{n}")
    repository = tracking.repository_track(full_name=REPO)
    emulator.inject_fault(403, after_requests=1, path_contains="/pulls")  # its second page
    with pytest.raises(RateLimited):
        sync.repository_sync(repository=repository)
    state = SyncState.objects.get(repository=repository, resource="pulls")
    assert (state.resume_page, state.etag, state.watermark) == (2, "", None)

    emulator.clear_log()
    sync.repository_sync(repository=repository)
    resumed = pulls_requests(emulator)
    assert [r["query"].get("page") for r in resumed] == ["2", "3"]
    assert resumed[0]["headers"]["If-None-Match"] is None, "a 304 of page 1 would end it"
    pulls = Issue.objects.filter(is_pull_request=True)
    assert pulls.count() == 201
    assert not pulls.filter(base_ref="").exists() and not pulls.filter(merge_commit_sha="").exists()
    assert sorted(pulls.values_list("head_ref", flat=True)) == sorted(f"h{n}" for n in range(201))
    state.refresh_from_db()
    assert state.resume_page is None and state.watermark is not None

    # page 1 of the completed listing is read once more (its ETag was of the interrupted run),
    # then the listing is one request answered 304.
    sync.repository_sync(repository=repository)
    emulator.clear_log()
    sync.repository_sync(repository=repository)
    assert [r["status"] for r in pulls_requests(emulator)] == [304]


def test_a_pull_updated_while_a_listing_was_interrupted_is_read_by_the_next_run(emulator):
    emulator.add_repo(REPO)
    for n in range(150):
        emulator.add_pull(REPO, title=f"pr {n}")
    repository = tracking.repository_track(full_name=REPO)
    emulator.inject_fault(403, after_requests=1, path_contains="/pulls")
    with pytest.raises(RateLimited):
        sync.repository_sync(repository=repository)
    emulator.update_issue(REPO, 10, base="release/rocm-rel-7.2")  # page 2 -> page 1
    sync.repository_sync(repository=repository)  # resumes at page 2: #10 is no longer there
    assert Issue.objects.get(number=10).base_ref == ""
    sync.repository_sync(repository=repository)  # page 1, down to the watermark
    assert Issue.objects.get(number=10).base_ref == "release/rocm-rel-7.2"
    assert not Issue.objects.filter(base_ref="").exists()


# --- commit messages of merged pull requests -----------------------------------------------


def commits_requests(emulator):
    return [r for r in emulator.requests if r["path"].endswith("/commits")]


def test_it_reads_the_commit_messages_of_merged_pull_requests_once(emulator):
    emulator.add_repo(REPO)
    emulator.add_issue(REPO, number=1, title="Crash")
    emulator.add_pull(
        REPO, number=2, merged=True, commits=["Guard the tile size\n\nFixes #1", "Add a test"]
    )
    emulator.add_pull(REPO, number=3, merged=True, commits=[f"step {i}" for i in range(130)])
    emulator.add_pull(REPO, number=4, commits=["not merged"])
    run_sync()
    assert Issue.objects.get(number=2).commit_messages == [
        "Guard the tile size\n\nFixes #1",
        "Add a test",
    ]
    assert len(Issue.objects.get(number=3).commit_messages) == 130
    assert Issue.objects.get(number=4).commit_messages == []
    assert sorted(r["path"] for r in commits_requests(emulator)) == [
        f"/repos/{REPO}/pulls/2/commits",
        f"/repos/{REPO}/pulls/3/commits",
        f"/repos/{REPO}/pulls/3/commits",  # 130 commits: two pages of 100
    ]

    emulator.clear_log()
    run_sync()
    assert commits_requests(emulator) == [], "once per pull request"

    emulator.update_issue(REPO, 2, commits=["Guard the tile size", "Rebased: Fixes #1"])
    run_sync()
    assert len(commits_requests(emulator)) == 1, "again only when its head commit changed"
    assert Issue.objects.get(number=2).commit_messages[-1] == "Rebased: Fixes #1"


def test_commit_messages_interrupted_by_a_rate_limit_are_finished_by_the_next_run(emulator):
    emulator.add_repo(REPO)
    for n in range(1, 6):
        emulator.add_pull(REPO, number=n, merged=True, commits=[f"commit of {n}"])
    repository = tracking.repository_track(full_name=REPO)
    emulator.inject_fault(403, after_requests=2, path_contains="/commits")
    with pytest.raises(RateLimited):
        sync.repository_sync(repository=repository)
    assert Issue.objects.exclude(commit_messages=[]).count() == 2
    emulator.clear_log()
    sync.repository_sync(repository=repository)
    assert len(commits_requests(emulator)) == 3
    assert sorted(Issue.objects.values_list("commit_messages", flat=True)) == [
        [f"commit of {n}"] for n in range(1, 6)
    ]


def test_stored_commit_messages_send_the_pull_request_down_the_pipeline(emulator, settings):
    from releases.models import FixLink

    emulator.add_repo(REPO)
    emulator.add_issue(REPO, number=1, title="Crash in rocBLAS")
    emulator.add_pull(REPO, number=2, body="A fix.", merged=True, commits=["Guard\n\nFixes #1"])
    run_sync()
    link = FixLink.objects.get()
    assert (link.issue.number, link.pull_request.number) == (1, 2)


# --- reactions -----------------------------------------------------------------------------


def test_it_stores_reactions_of_issues_and_comments(emulator):
    emulator.add_repo(REPO)
    emulator.add_issue(REPO, number=1, title="Hang", reactions={"+1": 4, "eyes": 1})
    comment = emulator.add_comment(REPO, 1, body="same", reactions={"+1": 2})
    run_sync()
    issue = Issue.objects.get(number=1)
    assert issue.reactions_total == 5
    assert issue.reactions == {"+1": 4, "eyes": 1}
    assert Comment.objects.get(external_id=str(comment["id"])).reactions_total == 2


def test_a_full_sync_refreshes_reaction_counts_that_did_not_move_updated_at(emulator):
    emulator.add_repo(REPO)
    emulator.add_issue(REPO, number=1, title="Hang")
    emulator.add_issue(REPO, number=2, title="Newer")  # the watermark's item, read again
    run_sync()
    emulator.add_reaction(REPO, 1, "+1")  # GitHub leaves updated_at as it was
    emulator.add_reaction(REPO, 1, "heart")
    run_sync()
    assert Issue.objects.get(number=1).reactions_total == 0, "an incremental sync cannot know"
    report = run_sync(full=True)
    issue = Issue.objects.get(number=1)
    assert (issue.reactions_total, issue.reactions) == (2, {"+1": 1, "heart": 1})
    assert report.by_resource["issues"].updated == 1


# --- a repository GitHub does not know ---------------------------------------------------------


def test_the_command_untracks_a_repository_github_does_not_know(emulator):
    from django_celery_beat.models import PeriodicTask

    emulator.add_repo(REPO)
    with pytest.raises(CommandError, match="ROCm/typo was not found on GitHub"):
        call_command("sync_github", "ROCm/typo", "--no-wait", stdout=io.StringIO())
    assert not Repository.objects.filter(full_name="ROCm/typo").exists()
    assert not PeriodicTask.objects.filter(name__contains="ROCm/typo").exists()


def test_a_404_for_a_repository_synced_before_keeps_its_data(emulator):
    emulator.add_repo(REPO)
    emulator.add_issue(REPO, title="kept")
    run_sync()
    repository = Repository.objects.get()
    emulator.inject_fault(404, path_contains=f"/repos/{REPO}", times=None)
    with pytest.raises(Exception, match="404"):
        sync.repository_sync(repository=repository, full=True)
    assert Repository.objects.get().tracked
    assert Issue.objects.count() == 1


# --- a repository renamed on GitHub ----------------------------------------------------------


def test_a_repository_renamed_on_github_keeps_its_history_and_every_issue(populated):
    run_sync()
    before = set(Issue.objects.values_list("pk", flat=True))
    populated.rename_repo(REPO, "ROCm/rocm-systems")
    for n in range(1, 41):  # closed while it was renamed: only a listing of every state has them
        populated.update_issue("ROCm/rocm-systems", n, state="closed")
    populated.clear_log()
    report = run_sync()
    repository = Repository.objects.get()
    assert repository.full_name == "ROCm/rocm-systems"
    assert repository.known_names() == ["ROCm/rocm-systems", REPO]
    assert report.repository == "ROCm/rocm-systems"
    assert set(Issue.objects.values_list("pk", flat=True)) == before
    assert Issue.objects.filter(state="closed", is_pull_request=False).count() == 40
    assert all(r["status"] != 301 for r in populated.requests)  # asked by id, then the new name
    assert tracking.repository_track(full_name=REPO) == repository  # GITHUB_REPOS' old name


def test_a_sync_answered_301_follows_it_and_takes_the_new_name(populated):
    from django_celery_beat.models import PeriodicTask

    populated.rename_repo(REPO, "ROCm/rocm-systems")
    repository = tracking.repository_track(full_name=REPO)  # known by its old name only
    sync.repository_sync(repository=repository)
    assert populated.requests[0]["status"] == 301  # GET /repos/ROCm/ROCm
    repository.refresh_from_db()
    assert repository.full_name == "ROCm/rocm-systems"
    assert Issue.objects.filter(is_pull_request=False).count() == 250  # every state, every page
    assert list(
        PeriodicTask.objects.filter(name__startswith="sync GitHub").values_list("name", flat=True)
    ) == ["sync GitHub ROCm/rocm-systems"]


def test_a_backfill_stops_at_its_reserve_and_leaves_the_budget_to_the_others(populated, settings):
    import time

    settings.GITHUB_RATE_RESERVE = 40
    populated.set_rate_limit(42, int(time.time()) + 600)
    repository = tracking.repository_track(full_name=REPO)
    with pytest.raises(sync.BudgetReserved) as raised:
        sync.repository_sync(repository=repository)
    assert "kept for the other repositories" in str(raised.value)
    assert populated.rate_limit_remaining == 40, "it stopped at the reserve, not at zero"
    assert sync.rate_limited_until(repository) is None, "the budget is not marked exhausted"
    # a repository already backfilled (webhook-fed, incremental) syncs on the reserve
    other = "ROCm/HIP"
    populated.add_repo(other)
    populated.add_issue(other, title="hipcc crash")
    hip = tracking.repository_track(full_name=other)
    SyncState.objects.create(repository=hip, resource="issues", backfill_done=True)
    sync.repository_sync(repository=hip)
    assert populated.rate_limit_remaining < 40


def test_a_rate_limit_holds_only_the_repositories_of_its_budget(populated):
    from datetime import timedelta

    from django.utils import timezone

    token = tracking.repository_track(full_name=REPO)
    installed = tracking.repository_track(full_name="ROCm/HIP")
    Repository.objects.filter(pk=installed.pk).update(installation_id=77)
    installed.refresh_from_db()
    SyncState.objects.create(
        repository=installed,
        resource="issues",
        rate_limit_remaining=0,
        rate_limit_reset_at=timezone.now() + timedelta(minutes=5),
    )
    assert sync.rate_limited_until(installed) is not None
    assert sync.rate_limited_until(token) is None, "another budget"


def test_a_backfill_writes_each_person_and_label_once_not_on_every_page(populated):
    with CaptureQueriesContext(connection) as queries:
        run_sync()

    def writes(table):  # a statement of its own (SQLite) or a step of one (Postgres)
        return [q for q in queries.captured_queries if f'INSERT INTO "{table}"' in q["sql"]]

    assert Issue.objects.count() == 251  # three pages of issues, all by one author, two labels
    assert len(writes("triage_label")) == 1
    assert len(writes("triage_person")) == 1
    assert Issue.objects.get(number=250).labels.count() == 2


def test_within_a_sync_a_changed_person_is_written_and_a_rolled_back_one_is_written_again():
    def person(login):
        return PersonRecord(source="github", external_id="583231", login=login, name="Mona")

    key = ("github", "583231")
    with upsert.sync_memo():
        upsert.persons_upsert(people=[person("mona")])
        upsert.persons_upsert(people=[person("mona-renamed")])
        assert Person.objects.get().login == "mona-renamed"

        with pytest.raises(RuntimeError), transaction.atomic():  # a page that fails
            upsert.persons_upsert(people=[person("hubot")])
            raise RuntimeError("the page's issue upsert failed")
        found = upsert.persons_upsert(people=[person("hubot")])  # the next try of that page
    assert Person.objects.get(pk=found[key]).login == "hubot"


def test_pages_of_one_transaction_write_a_person_once_and_a_failed_transaction_forgets_it():
    def person(login):
        return PersonRecord(source="github", external_id="583231", login=login, name="Mona")

    def person_writes(queries):
        return [q for q in queries.captured_queries if 'INSERT INTO "triage_person"' in q["sql"]]

    with upsert.sync_memo():
        with (  # pages that fail
            pytest.raises(RuntimeError),
            transaction.atomic(),
            upsert.sync_memo_transaction(),
        ):
            upsert.persons_upsert(people=[person("hubot")])
            raise RuntimeError("a later page's upsert failed")
        with transaction.atomic(), upsert.sync_memo_transaction():
            with CaptureQueriesContext(connection) as first_page:
                found = upsert.persons_upsert(people=[person("hubot")])  # written again
            with CaptureQueriesContext(connection) as second_page:
                upsert.persons_upsert(people=[person("hubot")])  # the same transaction's
        with CaptureQueriesContext(connection) as next_transaction:
            upsert.persons_upsert(people=[person("hubot")])

    assert len(person_writes(first_page)) == 1
    assert person_writes(second_page) == person_writes(next_transaction) == []
    assert Person.objects.get(pk=found[("github", "583231")]).login == "hubot"


# --- the pipeline's steps after a listing --------------------------------------------------


@pytest.fixture
def steps_run():
    """(task name, ids) of each pipeline step as it runs (in process here: no broker)."""
    from celery.signals import task_prerun

    ran: list[tuple[str, list[int]]] = []

    def record(sender=None, kwargs=None, **_):
        if kwargs and "ids" in kwargs:
            ran.append((sender.name, list(kwargs["ids"])))

    task_prerun.connect(record, weak=False)
    yield ran
    task_prerun.disconnect(record)


def _runs_of(ran, name: str) -> list[list[int]]:
    return [ids for task, ids in ran if task == name]


def test_a_backfill_sends_each_step_each_issue_once_a_transaction_not_a_page_at_a_time(
    populated, steps_run
):
    run_sync()

    runs = _runs_of(steps_run, "triage.tasks.classify_issues")
    # the merged PR goes on again from the pulls listing and its commit messages
    issues = set(Issue.objects.filter(is_pull_request=False).values_list("pk", flat=True))
    sent = [pk for ids in runs for pk in ids if pk in issues]
    assert len(sent) == len(set(sent)) == len(issues) == 250
    assert len([ids for ids in runs if issues & set(ids)]) <= 3  # 3 pages: one send each at most
    assert SyncState.objects.exclude(pipeline_held={}).count() == 0


def test_ids_an_interrupted_sync_held_are_sent_first_by_the_next(populated, steps_run):
    run_sync()
    issue = Issue.objects.get(number=7)
    held = SyncState.objects.get(resource="issues")
    held.pipeline_held = {"issues_changed": [issue.pk]}  # a sync stopped before sending them
    held.save()
    steps_run.clear()

    run_sync()  # nothing changed on GitHub: the held ids are all there is to send

    assert _runs_of(steps_run, "triage.tasks.classify_issues") == [[issue.pk]]
    assert SyncState.objects.get(pk=held.pk).pipeline_held == {}


def test_a_listing_stopped_by_a_rate_limit_sends_what_its_pages_changed(populated, steps_run):
    populated.inject_fault(403, after_requests=3, path_contains="/issues")
    with pytest.raises(RateLimited):
        run_sync()

    stored = set(Issue.objects.values_list("pk", flat=True))
    sent = _runs_of(steps_run, "triage.tasks.classify_issues")
    assert stored and {pk for ids in sent for pk in ids} == stored
    assert SyncState.objects.get(resource="issues").pipeline_held == {}


def test_ids_a_failed_send_could_not_hand_on_are_kept_for_the_next_sync(
    populated, steps_run, monkeypatch
):
    from config import wiring

    # the sends fail as they would with the broker down: the steps cannot be handed on
    monkeypatch.setattr(wiring, "AFTER_ISSUES_CHANGED", ["triage.tasks.no_such_step"])
    with pytest.raises(ImportError):
        run_sync()
    held = SyncState.objects.get(resource="issues").pipeline_held["issues_changed"]
    assert sorted(held) == sorted(Issue.objects.values_list("pk", flat=True))

    monkeypatch.undo()
    steps_run.clear()
    run_sync()  # nothing changed on GitHub: what was held is sent first

    assert sorted(_runs_of(steps_run, "triage.tasks.classify_issues")[0]) == sorted(held)
    assert SyncState.objects.get(resource="issues").pipeline_held == {}
