"""Sync a repository's issues, pull requests and comments from GitHub.

Issues and comments are read sorted by updated ascending, 100 a page, and paged by their own
`since`: each page's newest updated_at becomes the next request's `since` (keyset paging), so an
item updated during the backfill moves ahead of us instead of shifting a page under us. Pages are
written a few at a time (PAGES_PER_TRANSACTION), in one transaction with their watermark and the
ids they hand the pipeline (sent on after the commit): an interrupted sync resumes from the
watermark and loses nothing; `since` is inclusive, so the boundary items come again and are
counted unchanged, never stored twice. When more than a page of items share one updated_at the
keyset cannot move, and the sync follows GitHub's Link header through that window instead.

The first request of an incremental sync carries the ETag of the last such request: an
unchanged repository costs one request per resource, answered 304, which GitHub does not count.

Pull-request details (merge commit, base and head branch) come from the pulls listing, sorted by
updated descending and read down to the pulls watermark (that listing has no `since`). Its ETag
and watermark are saved only when the listing completes: an interrupted listing keeps its next
page and the watermark it will set (resume_page, resume_watermark) and the next run goes on from
that page, without If-None-Match (a 304 of page 1 would end it early). An item updated meanwhile
moves to page 1, above that watermark, and the run after reads it.

Commit messages of merged pull requests (what the release linker reads) come next, from
/pulls/N/commits, once per pull request and head commit: one request per 100 commits, and only
for merged PRs whose messages were not read at their current head_sha. The changed files of open
pull requests (what path ownership rules match) come last, from /pulls/N/files, the same way:
once per head commit, one request per 100 files (GitHub lists at most 3,000), and only in a
repository a path rule applies to.

One sync of a repository runs at a time: it holds a lease on the repository row and, on
Postgres, a session lock (config/session_locks.py) that the server releases when the worker's
connection ends. A sync redelivered after its worker was killed gets the lock, takes the lease
over and resumes from the watermarks; one that finds the lock held leaves (SyncBusy).

A repository that GitHub answers 404 for and that was never synced (a typo, or a private
repository the token cannot read) is untracked and its schedule removed: RepositoryNotFound.

Every sync first reads the repository itself, with its ETag (304 when nothing changed, which
costs no rate limit): by its GitHub id once known (/repositories/<id>), else by name. GitHub
answers a renamed repository's old name with 301 Moved Permanently to /repositories/<id>/...;
PyGithub follows a 301 but drops the query string, so a listing requested under the old name
would come back as GitHub's default listing (open issues, newest first, 30 a page) and move the
watermarks past what it never read. The repository read first gives its name now (a rename is
recorded: tracking.repository_rename), and every listing after it asks under that name.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from config import session_locks, wiring
from triage import pipeline
from triage.models import Issue, PullRequestFiles, Repository, SyncState
from triage.services import tracking, upsert
from triage.services.upsert import UpsertResult
from triage.sources.github import app_auth, ingest
from triage.sources.github.client import (
    BudgetReserved,
    GitHubError,
    GitHubSource,
    Page,
    RateLimited,
    SliceSpent,
)
from triage.sources.records import parse_timestamp

logger = logging.getLogger(__name__)

PER_PAGE = 100
SYNC_LEASE = timedelta(minutes=30)
# At most this many pages of a keyset listing written in one transaction, with their
# watermark and the ids they hand the pipeline (sent after the commit, one send a step for all
# of them): those that arrived while the one before was written. A commit, a state write and
# the pipeline's sends a page cost a backfill a quarter of its time. A listing that is
# interrupted loses none of them: its committed pages are kept, the others read again.
PAGES_PER_TRANSACTION = 5

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
    by_resource: dict[str, UpsertResult] = field(default_factory=dict)

    def record(self, resource: str, result: UpsertResult, fetched: int) -> None:
        self.fetched += fetched
        self.created += result.created
        self.updated += result.updated
        self.unchanged += result.unchanged
        self.by_resource.setdefault(resource, UpsertResult()).add(result)

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


class RepositoryNotFound(GitHubError):
    """GitHub answered 404 for a repository we never synced; it is no longer tracked."""


def _state(repository: Repository, resource: str, full: bool) -> SyncState:
    state, _ = SyncState.objects.get_or_create(repository=repository, resource=resource)
    if full:
        state.watermark, state.etag, state.backfill_done = None, "", False
        state.resume_page, state.resume_watermark = None, None
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
    stamps = [parse_timestamp(item.get("updated_at")) for item in items]
    return max((s for s in stamps if s), default=None)


class _HeldSender:
    """Sends a listing's held pipeline ids (`SyncState.pipeline_held`) on after each commit.

    With a broker, a send runs on a thread of its own while the listing goes on, so the listing
    never waits for the broker: not for its round trips, and not through an outage, when its
    pages are still written and their ids held in the row. Ids leave the row only once a send
    of them succeeded; a failed send is logged and its ids go with the next. Ids held by an
    interrupted sync are sent by the next, first: none is lost, and one sent twice (the sync
    stopped between a send and the clearing) is a step run again on the same rows, which every
    step allows. Tasks in process (no broker) run at once, on the listing's thread. Every
    database call is made on the listing's thread."""

    def __init__(self, state: SyncState):
        self.state = state
        self.pool = None if pipeline.runs_in_process() else ThreadPoolExecutor(max_workers=1)
        self.in_flight: tuple[Future, dict] | None = None
        self.added: pipeline.Gathered = {}  # held since the send in flight started

    @contextmanager
    def page(self):
        """Within a transaction: the pipeline's ids of what its pages change are added to those
        the listing holds (`state.pipeline_held`), which its save commits with them."""
        with pipeline.gathered() as gathered:
            yield
        self.state.pipeline_held = pipeline.gathered_merge(self.state.pipeline_held or {}, gathered)
        self.added = pipeline.gathered_merge(self.added, gathered)

    def after_commit(self) -> None:
        self._settle(wait=False)
        held = self.state.pipeline_held
        if not held or self.in_flight is not None:
            return
        if self.pool is None or connection.in_atomic_block:  # in a caller's transaction: later
            transaction.on_commit(self._send_now)
        else:
            self.in_flight = (self.pool.submit(pipeline.gathered_send, dict(held)), dict(held))
            self.added = {}

    def finish(self) -> None:
        """At the listing's end: wait for the send in flight, then send what is left (raises
        when that fails: the ids stay in the row)."""
        try:
            self._settle(wait=True)
            self._send_now()
        finally:
            if self.pool:
                self.pool.shutdown(wait=True)

    def _send_now(self) -> None:
        """Send all that is held, on this thread."""
        held = dict(self.state.pipeline_held or {})
        if held:
            self.added = {}
            pipeline.gathered_send(held)
            self._sent(held)

    def _settle(self, *, wait: bool) -> None:
        if self.in_flight is None or not (wait or self.in_flight[0].done()):
            return
        (future, held), self.in_flight = self.in_flight, None
        try:
            future.result()
        except Exception:  # noqa: BLE001 - the ids stay held and go with the next send
            logger.warning(
                "%s: a pipeline send failed; its ids stay held", self.state, exc_info=True
            )
            return
        self._sent(held)

    def _sent(self, held: dict) -> None:
        # an id held again since (its row changed again) was not sent with that change
        sent = pipeline.gathered_without(held, self.added)
        remaining = pipeline.gathered_without(self.state.pipeline_held or {}, sent)
        self.state.pipeline_held = remaining
        SyncState.objects.filter(pk=self.state.pk).update(pipeline_held=remaining)


@contextmanager
def _held_sent(state: SyncState):
    """A listing's _HeldSender: what an interrupted sync left is sent first; at the end what is
    held is sent, and a listing that stops early (a spent slice, an error) still sends what its
    committed pages hold, read back from its row (not a page that rolled back). When that
    fails too (the broker is down), the ids stay in the row for the next sync, and the
    listing's own error goes on."""
    sender = _HeldSender(state)
    sender.after_commit()
    try:
        yield sender
    except BaseException:
        try:
            held = SyncState.objects.filter(pk=state.pk).values_list("pipeline_held", flat=True)
            state.pipeline_held = held.first() or {}
            sender.finish()
        except Exception:  # noqa: BLE001 - kept for the next sync; the listing's error goes on
            logger.warning("%s: held pipeline ids kept for the next sync", state, exc_info=True)
        finally:
            if sender.pool:
                sender.pool.shutdown(wait=True)
        raise
    sender.finish()


def _keyset_listing(
    *,
    source: GitHubSource,
    state: SyncState,
    path: str,
    write_page: Callable[[list[dict]], UpsertResult],
    report: SyncReport,
    progress: Progress | None,
    prefetch: bool = False,
) -> None:
    """Read an updated-ascending listing with `since`, committing its pages with their watermark
    (up to PAGES_PER_TRANSACTION in one transaction).

    With `prefetch`, the next page is requested while this one is written (the next `since` is
    known from the page itself), so HTTP and the database overlap. Only for writers that make
    no requests of their own: the client is then used by one thread at a time. Pages that
    arrive while the one before is written (a backfill whose database is slower than GitHub)
    share a transaction, up to PAGES_PER_TRANSACTION; a transaction never waits for a request,
    so a request that fails (a rate limit, a spent slice, a 502) ends the listing after every
    page before it is committed.
    """
    params = {"state": "all", "sort": "updated", "direction": "asc", "per_page": PER_PAGE}

    def fetch(url: str, since, etag: str = ""):
        query = dict(params, since=since.isoformat().replace("+00:00", "Z")) if since else params
        return source.get(url, query if url == path else None, etag=etag)

    def pages_write(page: Page, since) -> tuple[list, tuple | None]:
        """Write pages from `page` in the caller's transaction: the next one too when it has
        already arrived (the prefetch), up to PAGES_PER_TRANSACTION, so that the transaction
        never waits for GitHub. Returns (what each wrote, the next request: (its prefetch or
        None, (url, since)), or None after the listing's last page)."""
        written: list[tuple[UpsertResult, int, int | None]] = []
        while True:
            items = [item for item in page.items or [] if isinstance(item, dict)]
            watermark = max(filter(None, (state.watermark, _newest(items))), default=None)
            following = _following(page, path, since, watermark)
            pending = pool.submit(fetch, *following) if pool and following else None
            written.append((write_page(items), len(items), page.last_page))
            state.watermark = watermark
            state.requests_used += 1
            if following is None:
                return written, None
            ready = pending is not None and pending.done() and pending.exception() is None
            if len(written) == PAGES_PER_TRANSACTION or not ready:
                return written, (pending, following)
            page, since = pending.result(), following[1]

    pool = ThreadPoolExecutor(max_workers=1) if prefetch else None
    try:
        with _held_sent(state) as sender:
            page = fetch(path, state.watermark, state.etag)
            if page.not_modified:
                return
            state.etag = page.etag  # saved with the first pages
            since = state.watermark
            while True:
                with transaction.atomic():
                    with sender.page(), upsert.sync_memo_transaction():
                        written, following = pages_write(page, since)
                    state.save(
                        update_fields=["watermark", "etag", "requests_used", "pipeline_held"]
                    )
                sender.after_commit()
                for result, count, last_page in written:
                    report.record(state.resource, result, count)
                    if progress:
                        progress(state.resource, count, last_page and last_page * PER_PAGE)
                if following is None:
                    return
                pending, (url, since) = following
                page = pending.result() if pending else fetch(url, since)  # after the commit
    finally:
        if pool:
            pool.shutdown(wait=True)


def _following(page: Page, path: str, since, watermark) -> tuple[str, datetime] | None:
    """The next request of a keyset listing, (url, since), or None after its last page."""
    if "next" not in page.links:
        return None
    if watermark and (since is None or watermark > since):
        return (path, watermark)  # keyset: ask again from the new watermark
    return (page.links["next"], since)  # one updated_at fills a page: follow the Link header


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

    def write_page(items: list[dict]) -> UpsertResult:
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
    params = {"state": "all", "sort": "updated", "direction": "desc", "per_page": PER_PAGE}
    path, stop_at = f"/repos/{repository.full_name}/pulls", state.watermark
    # An interrupted listing goes on from its next page, with the watermark its first page gave.
    number, newest = state.resume_page or 1, state.resume_watermark
    resumed = number > 1

    def fetch(number: int):
        query = dict(params, page=number) if number > 1 else params
        return source.get(path, query, etag="" if resumed else state.etag if number == 1 else "")

    # The next page is requested while this one is written (pulls_upsert makes no requests).
    with ThreadPoolExecutor(max_workers=1) as pool, _held_sent(state) as sender:
        _pulls_pages(
            sender=sender,
            repository=repository,
            state=state,
            report=report,
            progress=progress,
            prefetch=lambda number: pool.submit(fetch, number),
            page=fetch(number),
            number=number,
            newest=newest,
            stop_at=stop_at,
        )
    _note_success(state, source)


def _pulls_pages(
    *, sender, repository, state, report, progress, prefetch, page, number, newest, stop_at
):
    first_etag = ""
    while True:
        if page.not_modified:
            return
        items = [item for item in page.items or [] if isinstance(item, dict)]
        if number == 1:
            newest, first_etag = _newest(items), page.etag
        fresh = [i for i in items if stop_at is None or parse_timestamp(i["updated_at"]) >= stop_at]
        more = "next" in page.links and len(fresh) == len(items)
        pending = prefetch(number + 1) if more else None
        with transaction.atomic():
            with sender.page():
                result = ingest.pulls_upsert(repository=repository, items=fresh)
            state.requests_used += 1
            if more:
                state.resume_page, state.resume_watermark = number + 1, newest
            else:  # the listing is complete: now its ETag and watermark hold
                state.resume_page = state.resume_watermark = None
                if newest and (state.watermark is None or newest > state.watermark):
                    state.watermark = newest
                state.etag = first_etag  # "" after a resumed listing: its page 1 is stale
            state.save(
                update_fields=[
                    "resume_page",
                    "resume_watermark",
                    "watermark",
                    "etag",
                    "requests_used",
                    "pipeline_held",
                ]
            )
        sender.after_commit()
        report.record(state.resource, result, len(fresh))
        if progress:
            progress(state.resource, len(fresh), page.last_page and page.last_page * PER_PAGE)
        if pending is None:
            return
        number += 1
        page = pending.result()


# --- commit messages of merged pull requests -------------------------------------------------

PULLS_BATCH = 50  # pull requests whose commits (or files) are read between two commits


def _listing(source: GitHubSource, url: str) -> Iterator[dict]:
    """The items of a listing, 100 a page, following GitHub's Link header page by page."""
    page = source.get(url, {"per_page": PER_PAGE})
    while True:
        yield from (item for item in page.items or [] if isinstance(item, dict))
        if "next" not in page.links:
            return
        page = source.get(page.links["next"])


def _commit_messages(source: GitHubSource, repository: Repository, number: int) -> list[str]:
    """Every commit message of one pull request (GitHub lists at most 250), 100 a page."""
    messages: list[str] = []
    for item in _listing(source, f"/repos/{repository.full_name}/pulls/{number}/commits"):
        commit = item.get("commit")
        if isinstance(commit, dict) and isinstance(commit.get("message"), str):
            messages.append(commit["message"])
    return messages


def _pulls_needing_commits():
    """Merged PRs whose commit messages were not read at their current head commit."""
    return (
        Issue.objects.filter(is_pull_request=True, merged=True, deleted_at__isnull=True)
        .exclude(head_sha="")
        .exclude(commits_head_sha=F("head_sha"))
    )


def _store_commit_messages(found: dict[int, tuple[str, list[str]]]) -> None:
    """Save what was read ({pk: (head_sha, messages)}) and send those PRs down the pipeline."""
    if not found:
        return
    rows = [
        Issue(pk=pk, commit_messages=messages, commits_head_sha=head_sha)
        for pk, (head_sha, messages) in found.items()
    ]
    with transaction.atomic():
        Issue.objects.bulk_update(rows, ["commit_messages", "commits_head_sha"])
        pipeline.issues_changed(sorted(found))  # the release linker reads commit messages


def _read_each(pulls: list[tuple[int, int, str]], read_one, store, gone) -> dict:
    """{pk: (head_sha, read_one(number))} of (pk, number, head_sha) PRs, `gone` for one GitHub
    no longer has (404, 410); stored with `store`, also when interrupted."""
    found: dict = {}
    try:
        for pk, number, head_sha in pulls:
            try:
                found[pk] = (head_sha, read_one(number))
            except GitHubError as exc:
                if exc.status not in (404, 410):
                    raise
                logger.warning("pull request %s is gone (%s)", number, exc)
                found[pk] = (head_sha, gone)
    finally:
        store(found)
    return found


def pull_commits_read(
    *, repository: Repository, source: GitHubSource, pulls: list[tuple[int, int, str]]
) -> dict[int, tuple[str, list[str]]]:
    """Read commit messages of (pk, number, head_sha) PRs; store them, also when interrupted."""
    return _read_each(
        pulls,
        lambda number: _commit_messages(source, repository, number),
        _store_commit_messages,
        gone=[],
    )


def _per_pull_step(resource: str, pending, read, applies=None):
    """A sync step: what `pending()` pull requests lack is read with `read`, a batch of them at a
    time (each batch stored as it is read); only in a repository `applies` to, when given."""

    def step(repository, source, report, full, progress) -> None:
        state = _state(repository, resource, full=False)
        while applies is None or applies(repository.pk):
            batch = list(
                pending()
                .filter(repository=repository)
                .order_by("pk")
                .values_list("pk", "number", "head_sha")[:PULLS_BATCH]
            )
            if not batch:
                break
            requests_before = source.requests
            try:
                found = read(repository=repository, source=source, pulls=batch)
            finally:
                SyncState.objects.filter(pk=state.pk).update(
                    requests_used=F("requests_used") + (source.requests - requests_before)
                )
            report.record(state.resource, UpsertResult(updated=len(found)), len(found))
            if progress:
                progress(state.resource, len(found), None)
        state.refresh_from_db(fields=["requests_used"])
        _note_success(state, source)

    return step


_sync_commits = _per_pull_step(
    SyncState.Resource.COMMITS, _pulls_needing_commits, pull_commits_read
)


def pull_request_commits_sync(*, issue_id: int, source: GitHubSource | None = None) -> str:
    """Read the commit messages of one merged PR (after a `pull_request` closed+merged delivery).

    Nothing is requested when they were read at its current head_sha already.
    """
    issue = (
        _pulls_needing_commits()
        .filter(pk=issue_id)
        .select_related("repository")
        .only("pk", "number", "head_sha", "repository")
        .first()
    )
    if issue is None:
        return "nothing to read"
    found = pull_commits_read(
        repository=issue.repository,
        source=source or GitHubSource(reads_only=True),
        pulls=[(issue.pk, issue.number, issue.head_sha)],
    )
    return f"{issue.reference}: {len(found.get(issue.pk, ('', []))[1])} commit messages"


# --- changed files of open pull requests (what path ownership rules match) -------------------

FILES_MAX = 3000  # GitHub lists at most 3,000 files of a pull request


def _changed_files(
    source: GitHubSource, repository: Repository, number: int
) -> tuple[list[dict], bool]:
    """The files one pull request changes, 100 a page: ([{"filename", "status",
    "previous_filename" (renamed)}], whether GitHub's listing stopped at its 3,000)."""
    files: list[dict] = []
    for item in _listing(source, f"/repos/{repository.full_name}/pulls/{number}/files"):
        if not isinstance(item.get("filename"), str):
            continue
        entry = {"filename": item["filename"], "status": str(item.get("status") or "")}
        if isinstance(item.get("previous_filename"), str):
            entry["previous_filename"] = item["previous_filename"]
        files.append(entry)
        if len(files) >= FILES_MAX:
            break
    return files, len(files) >= FILES_MAX


def _pulls_needing_files():
    """Open pull requests whose changed files were not read at their current head commit."""
    return (
        Issue.objects.filter(is_pull_request=True, state=Issue.State.OPEN, deleted_at__isnull=True)
        .exclude(head_sha="")
        .exclude(pull_files__head_sha=F("head_sha"))
    )


def pull_files_read(
    *, repository: Repository, source: GitHubSource, pulls: list[tuple[int, int, str]]
) -> dict[int, tuple[str, tuple[list[dict], bool]]]:
    """Read the changed files of (pk, number, head_sha) pull requests; store them, also when
    interrupted, and send those pull requests on (pipeline.pull_files_read)."""
    return _read_each(
        pulls,
        lambda number: _changed_files(source, repository, number),
        _store_files,
        gone=([], False),
    )


def _store_files(found: dict[int, tuple[str, tuple[list[dict], bool]]]) -> None:
    if not found:
        return
    now = timezone.now()
    with transaction.atomic():
        for pk, (head_sha, (files, truncated)) in found.items():
            PullRequestFiles.objects.update_or_create(
                issue_id=pk,
                defaults={
                    "head_sha": head_sha,
                    "files": files,
                    "truncated": truncated,
                    "read_at": now,
                },
            )
        pipeline.pull_files_read(sorted(found))  # the owners of those files review


def pull_files_wanted(repository_id: int) -> bool:
    """Whether a later stage reads the changed files of the repository's pull requests
    (wiring.PULL_FILES_WANTED: ownership's path rules): reading them costs a request per 100."""
    return any(wiring.load(dotted)(repository_id) for dotted in wiring.PULL_FILES_WANTED)


_sync_files = _per_pull_step(
    SyncState.Resource.FILES, _pulls_needing_files, pull_files_read, pull_files_wanted
)


def pull_request_files_sync(*, issue_id: int, source: GitHubSource | None = None) -> str:
    """Read the changed files of one open pull request (after a `pull_request` opened,
    synchronize, reopened or ready_for_review delivery), where a path rule applies.

    Nothing is requested when they were read at its current head_sha already; the pull request
    still goes on to its owners (a draft made ready for review), who are never asked twice."""
    pull = (
        Issue.objects.filter(
            pk=issue_id, is_pull_request=True, state=Issue.State.OPEN, deleted_at__isnull=True
        )
        .exclude(head_sha="")
        .select_related("repository")
        .first()
    )
    if pull is None or not pull_files_wanted(pull.repository_id):
        return "nothing to read"
    if PullRequestFiles.objects.filter(issue_id=pull.pk, head_sha=pull.head_sha).exists():
        pipeline.pull_files_read([pull.pk])
        return f"{pull.reference}: its files were read at {pull.head_sha[:12]} already"
    found = pull_files_read(
        repository=pull.repository,
        source=source or GitHubSource(full_name=pull.repository.full_name, reads_only=True),
        pulls=[(pull.pk, pull.number, pull.head_sha)],
    )
    files, _ = found[pull.pk][1]
    return f"{pull.reference}: {len(files)} changed files"


def _never_synced(repository: Repository) -> bool:
    return (
        repository.github_id is None
        and not repository.issues.exists()
        and not SyncState.objects.filter(
            repository=repository, last_success_at__isnull=False
        ).exists()
    )


def _refresh_repository(repository: Repository, source: GitHubSource, full: bool) -> None:
    """Read the repository (by id once known) and take its name and fields from GitHub."""
    state = _state(repository, SyncState.Resource.REPOSITORY, full)
    by_id = repository.github_id is not None
    path = f"/repositories/{repository.github_id}" if by_id else f"/repos/{repository.full_name}"
    try:
        page = source.get(path, etag=state.etag)
    except GitHubError as exc:
        if exc.status == 404 and _never_synced(repository):
            tracking.repository_forget(repository=repository)
            raise RepositoryNotFound(
                404,
                f"{repository.full_name} was not found on GitHub (a typo, or a private "
                "repository GITHUB_TOKEN cannot read); it is no longer tracked",
            ) from exc
        raise
    if isinstance(page.items, dict):
        _take_identity(repository, page.items)
    state.etag = page.etag or state.etag
    state.requests_used += 1
    _note_success(state, source)


def _take_identity(repository: Repository, data: dict) -> None:
    """GitHub's name and fields for the repository; another repository's answer (its old name
    given to a new repository, or one tracked under another name) is a conflict."""
    held = Repository.objects.filter(github_id=data.get("id")).exclude(pk=repository.pk)
    if repository.github_id not in (None, data.get("id")) or held.exists():
        raise tracking.RepositoryConflict(
            f"{repository.full_name}: GitHub answered for repository {data.get('id')} "
            f"({data.get('full_name')}), not ours ({repository.github_id})"
        )
    with transaction.atomic():
        tracking.repository_rename(repository=repository, full_name=str(data.get("full_name")))
        ingest.repository_update_from_github(repository=repository, data=data)


def _claim(repository: Repository, *, lock: bool | None) -> bool:
    """Take the repository's sync lease. `lock` is the session lock on it (None: no such locks
    on this database): holding it, the lease of a sync whose worker died is taken over at once;
    without session locks, only an expired lease is."""
    if lock is False:
        return False
    now = timezone.now()
    unexpired = Repository.objects.filter(pk=repository.pk)
    if lock is None:
        unexpired = unexpired.exclude(sync_lease_until__gt=now)
    return unexpired.update(sync_lease_until=now + SYNC_LEASE) == 1


def _release(repository: Repository) -> None:
    Repository.objects.filter(pk=repository.pk).update(sync_lease_until=None)


def repository_sync(
    *,
    repository: Repository,
    full: bool = False,
    source: GitHubSource | None = None,
    progress: Progress | None = None,
    report: SyncReport | None = None,
    sliced: bool = False,
) -> SyncReport:
    """Bring one repository's issues, PRs and comments up to date. Raises GitHubError kinds.

    Pass `report` to add to the figures of an earlier, interrupted attempt. `sliced`: a turn of
    the queue's (schedule.sync_turn): a backfill stops after GITHUB_BACKFILL_SLICE_REQUESTS
    requests (SliceSpent) and goes on in the next turn; a sync run by hand goes to its end.
    """
    # The session lock is held while the sync runs: Postgres releases it when this worker's
    # connection ends, so a sync redelivered after its worker was killed takes over at once.
    with session_locks.held("repository-sync", repository.pk) as lock:
        if not _claim(repository, lock=lock):
            raise SyncBusy(f"{repository.full_name} is being synced by another worker")
        return _repository_sync(
            repository=repository,
            full=full,
            source=source,
            progress=progress,
            report=report,
            sliced=sliced,
        )


def _installation_note(repository: Repository) -> None:
    """With a GitHub App, which installation holds the repository (its rate budget)."""
    if repository.installation_id is not None or not app_auth.app_configured():
        return
    try:
        found = app_auth.installation_id_for(repository.full_name)
    except GitHubError as exc:  # not installed, a bad key: the sync's own request will say so
        logger.debug("installation of %s not found: %s", repository.full_name, exc)
        return
    Repository.objects.filter(pk=repository.pk).update(installation_id=found)
    repository.installation_id = found


def _backfilling(repository: Repository, full: bool) -> bool:
    return (
        full
        or not SyncState.objects.filter(
            repository=repository, resource=SyncState.Resource.ISSUES, backfill_done=True
        ).exists()
    )


def _repository_sync(*, repository, full, source, progress, report, sliced) -> SyncReport:
    source = source or GitHubSource(full_name=repository.full_name, reads_only=True)
    report = report or SyncReport(repository=repository.full_name)
    pipeline.broker_connect_ahead()  # while the repository and the first page are requested
    _installation_note(repository)
    if _backfilling(repository, full):
        source.reserve = settings.GITHUB_RATE_RESERVE
        source.slice = settings.GITHUB_BACKFILL_SLICE_REQUESTS if sliced else 0
    resource = SyncState.Resource.REPOSITORY
    if full:  # every resource starts over; a retry after an interruption goes on incrementally
        SyncState.objects.filter(repository=repository).update(
            watermark=None, etag="", backfill_done=False, resume_page=None, resume_watermark=None
        )
    try:
        _refresh_repository(repository, source, full)
        report.repository = repository.full_name  # its name now, after a rename
        with upsert.sync_memo():  # people and labels are written once a sync, not each page
            for resource, step in (  # noqa: B007 - `resource` names the failing step below
                (SyncState.Resource.ISSUES, _sync_issues),
                (SyncState.Resource.PULLS, _sync_pulls),
                (SyncState.Resource.COMMENTS, _sync_comments),
                (SyncState.Resource.COMMITS, _sync_commits),
                (SyncState.Resource.FILES, _sync_files),
            ):
                step(repository, source, report, full, progress)
    except RepositoryNotFound:
        raise
    except Exception as exc:
        # GitHub's limit holds every repository of the budget; a backfill's reserve only itself
        limited = isinstance(exc, RateLimited) and not isinstance(exc, BudgetReserved)
        SyncState.objects.filter(repository=repository, resource=resource).update(
            # a spent slice is a turn taken, not an error: the sync goes on in the next task
            last_error="" if isinstance(exc, SliceSpent) else str(exc)[:2000],
            # a rate limit holds every resource of the token until its reset
            rate_limit_remaining=0 if limited else source.rate_remaining,
            rate_limit_reset_at=exc.reset_at if limited else source.rate_reset_at,
        )
        raise
    finally:
        report.requests, report.not_modified = source.requests, source.not_modified
        report.rate_remaining = source.rate_remaining
        _release(repository)
    return report


# --- rate limits, as the scheduled task sees them ------------------------------------------------


def rate_limited_until(repository: Repository | None = None) -> datetime | None:
    """When the rate limit the last syncs hit resets (None: not limited now).

    A limit belongs to a budget: the token (GITHUB_TOKEN), which every repository without a
    GitHub App installation shares, or one installation, which its repositories share. Without
    `repository`: any budget."""
    states = SyncState.objects.filter(
        rate_limit_remaining__lte=0, rate_limit_reset_at__gt=timezone.now()
    )
    if repository is not None:  # None is the token's budget (IS NULL)
        states = states.filter(repository__installation_id=repository.installation_id)
    return (
        states.order_by("-rate_limit_reset_at")
        .values_list("rate_limit_reset_at", flat=True)
        .first()
    )


def retry_countdown(seconds: float) -> float:
    """A countdown for a task retry, kept under the broker's visibility timeout.

    Redis hands an unacknowledged message (an acks_late task waiting for its ETA) to another
    worker after the visibility timeout; a longer wait would run the task twice. A task that
    wakes before the reset finds the token still rate-limited and waits again.
    """
    options = getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", {}) or {}
    visibility = float(options.get("visibility_timeout", 3600))
    return max(1.0, min(float(seconds), visibility * 0.9))
