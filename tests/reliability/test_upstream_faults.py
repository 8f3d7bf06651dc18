"""GitHub answering 502s and a 403 rate limit in the middle of its pagination and X answering
429, with one real worker of concurrency 1: each sync waits for its countdown without holding the
worker (the other sync runs meanwhile), resumes from its watermark, and stores everything once."""

from __future__ import annotations

import pytest
from django.db.models import Count

from tests.processes import wait_for
from tests.reliability.conftest import X_TOKEN, record
from triage.models import Issue, Post, SavedSearch, SyncState
from triage.services import social, tracking

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SEARCH_PATH = "/2/tweets/search/recent"


def first_after(entries: list[dict], moment: float) -> dict:
    return next(entry for entry in entries if entry["time"] > moment)


def test_syncs_hit_by_5xx_and_rate_limits_free_their_worker_and_resume_from_their_watermarks(
    cluster, github, x_api
):
    worker = cluster.worker("ingest", concurrency=1, GITHUB_RETRIES=1, X_BEARER_TOKEN=X_TOKEN)
    cluster.start(worker)
    # X: a search whose earlier run stored 30 posts; its watermark (since_id) is the newest
    word = "zebrafish"
    old = [x_api.add_post(f"ROCm {word} build broke again {n}") for n in range(30)]
    search, _ = social.saved_search_for_query(query=f"ROCm {word}", name="reliability 429")
    cluster.send("triage.tasks.sync_saved_search", queue="ingest", search_id=search.pk)
    watermark = str(old[-1]["id"])
    wait_for(lambda: SavedSearch.objects.filter(pk=search.pk, since_id=watermark).exists())
    new = [
        x_api.add_post(f"ROCm {word} hangs on MI300X {n}", username=f"u{n % 7}") for n in range(250)
    ]
    x_api.clear_log()
    x_api.inject_fault(429, after_requests=1, reset_in=2)  # page 2 of 3
    # GitHub: 5 pages; page 2 answers 502 twice (more than the adapter's one retry), page 4 403
    repo = "ROCm/reliability-upstream-faults"
    github.add_repo(repo)
    for n in range(1, 501):
        github.add_issue(repo, title=f"rocBLAS sgemm NaN on gfx1100 ({n})")
    repository = tracking.repository_track(full_name=repo)
    issues_path = f"/repos/{repo}/issues"
    github.inject_fault(502, after_requests=1, times=2, path_contains=issues_path)
    github.inject_fault(403, after_requests=5, retry_after=1, path_contains=issues_path)

    cluster.send("triage.tasks.sync_saved_search", queue="ingest", search_id=search.pk)
    cluster.send("triage.tasks.sync_repository", queue="ingest", repository_id=repository.pk)
    newest = str(max(int(p["id"]) for p in new))
    wait_for(
        lambda: (
            SyncState.objects.filter(repository=repository, backfill_done=True).count()
            == len(SyncState.Resource)
            and SavedSearch.objects.filter(pk=search.pk, since_id=newest).exists()
        ),
        timeout=120,
        message="the syncs did not finish",
    )

    issues = Issue.objects.filter(repository=repository)
    assert issues.count() == 500
    assert not issues.values("external_id").annotate(n=Count("id")).filter(n__gt=1).exists()
    posts = Post.objects.filter(text__contains=word)
    assert posts.count() == 280
    assert not posts.values("external_id").annotate(n=Count("id")).filter(n__gt=1).exists()

    gh = github.requests_to(issues_path)
    gh_502 = [e for e in gh if e["status"] == 502]
    gh_403 = [e for e in gh if e["status"] == 403]
    assert len(gh_502) == 2 and len(gh_403) == 1
    gh_resume_502 = first_after(gh, gh_502[-1]["time"])
    gh_resume_403 = first_after(gh, gh_403[0]["time"])
    # both resumed from the watermark their last committed page left (keyset `since`)
    for resumed in (gh_resume_502, gh_resume_403):
        assert resumed["status"] == 200 and "since=" in resumed["query"]
    xs = [e for e in x_api.requests if e["path"] == SEARCH_PATH]
    x_429 = next(e for e in xs if e["status"] == 429)
    x_resume = first_after(xs, x_429["time"])
    assert xs and all(e["query"]["since_id"] == watermark for e in xs)  # the watermark held
    # one worker, concurrency 1: each sync's wait let the other one run
    assert x_429["time"] < gh[0]["time"] < x_resume["time"]
    assert gh_502[-1]["time"] < x_resume["time"] < gh_resume_502["time"]
    record(
        "502s, a 403 and a 429 mid-pagination",
        issues=issues.count(),
        posts=posts.count(),
        duplicates=0,
        github_wait_after_502_s=round(gh_resume_502["time"] - gh_502[-1]["time"], 1),
        github_wait_after_403_s=round(gh_resume_403["time"] - gh_403[0]["time"], 1),
        x_wait_after_429_s=round(x_resume["time"] - x_429["time"], 1),
        github_requests=len(gh),
        x_requests=len(xs),
    )
