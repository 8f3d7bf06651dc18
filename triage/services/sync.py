"""Sync a repository's issues, pull requests and comments from GitHub.

Issues and comments are read sorted by updated ascending, 100 a page, and paged by their own
`since`: each page's newest updated_at becomes the next request's `since` (keyset paging), so an
item updated during the backfill moves ahead of us instead of shifting a page under us. Each page
is written together with its watermark in one transaction: an interrupted sync resumes from the
watermark and loses nothing; `since` is inclusive, so the boundary items come again and are
counted unchanged, never stored twice. When more than a page of items share one updated_at the
keyset cannot move, and the sync follows GitHub's Link header through that window instead.

The first request of an incremental sync carries the ETag of the last such request: an
unchanged repository costs one request per resource, answered 304, which GitHub does not count.

Pull-request details (merge commit, base and head branch) come from the pulls listing, sorted by
updated descending and read down to the pulls watermark (that listing has no `since`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from triage.models import Repository, SyncState
from triage.services import ingest
from triage.sources.github import GitHubError, GitHubSource

logger = logging.getLogger(__name__)

PER_PAGE = 100
SYNC_LEASE = timedelta(minutes=30)

Progress = Callable[[str, int, int | None], None]  # (resource, items in this page, total guess)


@dataclass
class SyncReport:
    repository: str
    fetched: int = 0
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    requests: int = 0
    not_modified: int = 0
    rate_remaining: int | None = None
    by_resource: dict[str, ingest.UpsertResult] = field(default_factory=dict)

    def record(self, resource: str, result: ingest.UpsertResult, fetched: int) -> None:
        self.fetched += fetched
        self.created += result.created
        self.updated += result.updated
        self.unchanged += result.unchanged
        self.by_resource.setdefault(resource, ingest.UpsertResult()).add(result)

    def summary(self) -> str:
        remaining = (
            "" if self.rate_remaining is None else f", rate limit left {self.rate_remaining}"
        )
        return (
            f"{self.repository}: fetched {self.fetched}, created {self.created}, "
            f"updated {self.updated}, unchanged {self.unchanged}, "
            f"requests {self.requests} ({self.not_modified} answered 304){remaining}"
        )


class SyncBusy(Exception):
    """Another sync of this repository holds its lease."""


def _state(repository: Repository, resource: str, full: bool) -> SyncState:
    state, _ = SyncState.objects.get_or_create(repository=repository, resource=resource)
    if full:
        state.watermark, state.etag, state.backfill_done = None, "", False
    state.last_run_at = timezone.now()
    state.save()
    return state


def _note_success(state: SyncState, source: GitHubSource) -> None:
    state.last_success_at = timezone.now()
    state.last_error = ""
    state.backfill_done = True
    state.rate_limit_remaining = source.rate_remaining
    state.rate_limit_reset_at = source.rate_reset_at
    state.save()


def _newest(items: list[dict]):
    stamps = [ingest.parse_timestamp(item.get("updated_at")) for item in items]
    return max((s for s in stamps if s), default=None)


def _keyset_listing(
    *,
    source: GitHubSource,
    state: SyncState,
    path: str,
    write_page: Callable[[list[dict]], ingest.UpsertResult],
    report: SyncReport,
    progress: Progress | None,
    prefetch: bool = False,
) -> None:
    """Read an updated-ascending listing with `since`, committing each page with its watermark.

    With `prefetch`, the next page is requested while this one is written (the next `since` is
    known from the page itself), so HTTP and the database overlap. Only for writers that make
    no requests of their own: the client is then used by one thread at a time.
    """
    params = {"state": "all", "sort": "updated", "direction": "asc", "per_page": PER_PAGE}

    def fetch(url: str, since, etag: str = ""):
        query = dict(params, since=since.isoformat().replace("+00:00", "Z")) if since else params
        return source.get(url, query if url == path else None, etag=etag)

    since, first = state.watermark, True
    pool = ThreadPoolExecutor(max_workers=1) if prefetch else None
    try:
        page = fetch(path, since, state.etag)
        while not page.not_modified:
            items = [item for item in page.items or [] if isinstance(item, dict)]
            newest = _newest(items)
            watermark = max(filter(None, (state.watermark, newest)), default=None)
            following = None
            if "next" in page.links:
                if watermark and (since is None or watermark > since):
                    following = (path, watermark)  # keyset: ask again from the new watermark
                else:
                    following = (page.links["next"], since)  # one updated_at fills a page
            pending = pool.submit(fetch, *following) if pool and following else None
            with transaction.atomic():
                result = write_page(items)
                state.watermark = watermark
                if first:
                    state.etag = page.etag
                state.requests_used += 1
                state.save(update_fields=["watermark", "etag", "requests_used"])
            report.record(state.resource, result, len(items))
            if progress:
                progress(state.resource, len(items), page.last_page and page.last_page * PER_PAGE)
            if following is None:
                return
            first, since = False, following[1]
            page = pending.result() if pending else fetch(*following)
    finally:
        if pool:
            pool.shutdown(wait=True)


def _sync_issues(repository, source, report, full, progress) -> None:
    state = _state(repository, SyncState.Resource.ISSUES, full)
    _keyset_listing(
        source=source,
        state=state,
        path=f"/repos/{repository.full_name}/issues",
        write_page=lambda items: ingest.issues_upsert(repository=repository, items=items),
        report=report,
        progress=progress,
        prefetch=True,
    )
    _note_success(state, source)


def _fetch_missing_issues(repository, source, numbers: set[int], report) -> None:
    for number in sorted(numbers):
        try:
            page = source.get(f"/repos/{repository.full_name}/issues/{number}")
        except GitHubError as exc:
            if exc.status in (404, 410):
                logger.warning("%s#%s is gone; its comments are skipped", repository, number)
                continue
            raise
        if isinstance(page.items, dict):
            report.record(
                "issues", ingest.issues_upsert(repository=repository, items=[page.items]), 1
            )


def _sync_comments(repository, source, report, full, progress) -> None:
    state = _state(repository, SyncState.Resource.COMMENTS, full)

    def write_page(items: list[dict]) -> ingest.UpsertResult:
        result = ingest.comments_upsert(repository=repository, items=items)
        if result.missing_issue_numbers:
            _fetch_missing_issues(repository, source, result.missing_issue_numbers, report)
            retry = ingest.comments_upsert(repository=repository, items=items)
            result.created, result.updated = retry.created, retry.updated
            result.unchanged += retry.unchanged
            result.changed_ids += retry.changed_ids
        return result

    _keyset_listing(
        source=source,
        state=state,
        path=f"/repos/{repository.full_name}/issues/comments",
        write_page=write_page,
        report=report,
        progress=progress,
    )
    _note_success(state, source)


def _sync_pulls(repository, source, report, full, progress) -> None:
    state = _state(repository, SyncState.Resource.PULLS, full)
    stop_at, newest = state.watermark, None
    params = {"state": "all", "sort": "updated", "direction": "desc", "per_page": PER_PAGE}
    url, first = f"/repos/{repository.full_name}/pulls", True
    while url:
        page = source.get(url, params if first else None, etag=state.etag if first else "")
        if page.not_modified:
            break
        items = [item for item in page.items or [] if isinstance(item, dict)]
        fresh = [
            i
            for i in items
            if stop_at is None or ingest.parse_timestamp(i["updated_at"]) >= stop_at
        ]
        with transaction.atomic():
            result = ingest.pulls_upsert(repository=repository, items=fresh)
            if first:
                state.etag = page.etag
                newest = _newest(items)
            state.requests_used += 1
            state.save(update_fields=["etag", "requests_used"])
        report.record(state.resource, result, len(fresh))
        if progress:
            progress(state.resource, len(fresh), page.last_page and page.last_page * PER_PAGE)
        first = False
        url = page.links.get("next") if len(fresh) == len(items) else None
    if newest and (state.watermark is None or newest > state.watermark):
        state.watermark = newest
    _note_success(state, source)


def _refresh_repository(repository: Repository, source: GitHubSource) -> None:
    page = source.get(f"/repos/{repository.full_name}")
    if isinstance(page.items, dict):
        ingest.repository_update_from_github(repository=repository, data=page.items)


def _claim(repository: Repository) -> bool:
    now = timezone.now()
    claimed = (
        Repository.objects.filter(pk=repository.pk)
        .exclude(sync_lease_until__gt=now)
        .update(sync_lease_until=now + SYNC_LEASE)
    )
    return claimed == 1


def _release(repository: Repository) -> None:
    Repository.objects.filter(pk=repository.pk).update(sync_lease_until=None)


def repository_sync(
    *,
    repository: Repository,
    full: bool = False,
    source: GitHubSource | None = None,
    progress: Progress | None = None,
    report: SyncReport | None = None,
) -> SyncReport:
    """Bring one repository's issues, PRs and comments up to date. Raises GitHubError kinds.

    Pass `report` to add to the figures of an earlier, interrupted attempt.
    """
    if not _claim(repository):
        raise SyncBusy(f"{repository.full_name} is being synced by another worker")
    source = source or GitHubSource()
    report = report or SyncReport(repository=repository.full_name)
    resource = "repository"
    try:
        if full or repository.github_id is None:
            _refresh_repository(repository, source)
        for resource, step in (  # noqa: B007 - `resource` names the failing step below
            (SyncState.Resource.ISSUES, _sync_issues),
            (SyncState.Resource.PULLS, _sync_pulls),
            (SyncState.Resource.COMMENTS, _sync_comments),
        ):
            step(repository, source, report, full, progress)
    except Exception as exc:
        SyncState.objects.filter(repository=repository, resource=resource).update(
            last_error=str(exc)[:2000],
            rate_limit_remaining=source.rate_remaining,
            rate_limit_reset_at=source.rate_reset_at,
        )
        raise
    finally:
        report.requests, report.not_modified = source.requests, source.not_modified
        report.rate_remaining = source.rate_remaining
        _release(repository)
    return report
