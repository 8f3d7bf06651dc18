"""GitHub's REST API through the real PyGithub client: the one module that talks to GitHub.

We use PyGithub's Requester (its HTTP session, auth, base URL handling for GitHub Enterprise,
and its exceptions) and read pages as raw JSON, because the sync needs what PyGithub's lazy
objects hide: conditional requests with the stored ETag (304 costs no rate limit), the Link
header of each page, and the rate-limit headers.

Writes (the outbox's comments, labels, assignees, state and reactions: triage/services/outbox.py,
and the label write-back) go through the same Requester; they count against the rate limit like
reads and are never retried by the adapter.

Retries: 5xx answers are retried with backoff inside the HTTP adapter (urllib3 Retry, GET only).
A rate limit is never slept on here; it raises RateLimited with the reset time, and the caller
(a Celery task) reschedules itself for then.

Credentials: the personal token of GITHUB_TOKEN, or, with a GitHub App configured (GITHUB_APP_ID
and its key), the token of the installation that holds the repository a call is for
(triage/sources/github/app_auth.py): `build_client(full_name=...)`, and GitHubSource picks it per
request from the URL's /repos/OWNER/NAME. A request answered 401 with an installation token
(expired early, revoked) is made once more with a new token; a second 401 is a GitHubError.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import unquote, urlsplit

import github
from django.conf import settings
from github import GithubException
from github.HookDelivery import HookDeliverySummary
from github.PaginatedList import PaginatedList
from urllib3.util.retry import Retry

from config import linear_re

LINK_PART = linear_re.compile(r'<([^>]+)>;\s*rel="([^"]+)"')
PAGE_PARAM = linear_re.compile(r"[?&]page=(\d+)")
REPOSITORY_PATH = linear_re.compile(r"/repos/([^/]+)/([^/]+)(?:/.*)?")


class GitHubError(Exception):
    """GitHub answered with an error we cannot fix by waiting (4xx other than rate limits)."""

    def __init__(self, status: int | None, message: str):
        super().__init__(f"GitHub answered {status}: {message}" if status else message)
        self.status = status


class TransientGitHubError(GitHubError):
    """5xx after the adapter's retries, or the connection failed: try again later."""


class RateLimited(GitHubError):
    def __init__(self, reset_at: datetime, message: str = "rate limit exceeded"):
        super().__init__(None, f"{message}; resets at {reset_at.isoformat()}")
        self.reset_at = reset_at

    def seconds_to_wait(self) -> float:
        return max(1.0, (self.reset_at - datetime.now(UTC)).total_seconds() + 1)


class BudgetReserved(RateLimited):
    """Not GitHub's limit: this source (a backfill) stopped at its reserve, leaving the rest of
    the budget to the other repositories until the reset; they are not held back."""


class SliceSpent(BudgetReserved):
    """Not a limit: this source (a backfill) made its slice of requests and steps aside; it goes
    on at once, at the back of the queue, behind the syncs that waited meanwhile."""

    def seconds_to_wait(self) -> float:
        return 1.0


@dataclass
class Page:
    items: list | dict | None  # None when GitHub answered 304 Not Modified
    etag: str
    links: dict[str, str]
    rate_remaining: int | None
    rate_reset_at: datetime | None

    @property
    def not_modified(self) -> bool:
        return self.items is None

    @property
    def last_page(self) -> int | None:
        match = PAGE_PARAM.search(self.links.get("last", ""))
        return int(match.group(1)) if match else None


def parse_links(header: str | None) -> dict[str, str]:
    return {rel: url for url, rel in LINK_PART.findall(header or "")}


def _epoch(value: str | None) -> datetime | None:
    try:
        return datetime.fromtimestamp(int(value), tz=UTC) if value else None
    except ValueError:
        return None


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _app_auth():  # app_auth builds on this module (its errors, build_client)
    from triage.sources.github import app_auth  # it imports this module

    return app_auth


def build_client(
    *, auth: github.Auth.Auth | None = None, full_name: str | None = None, reads_only: bool = False
) -> github.Github:
    """The service's client: `auth` when given; with a GitHub App configured and `full_name`
    (OWNER/NAME) given, the token of the installation that holds that repository (AppNotInstalled
    when none does, AppMisconfigured naming the setting; `reads_only`: a token that can only
    read); else the token of GITHUB_TOKEN."""
    if auth is None and full_name and _app_auth().app_configured():
        auth = _app_auth().installation_auth(full_name, reads_only=reads_only)
    if auth is None and settings.GITHUB_TOKEN:
        auth = github.Auth.Token(settings.GITHUB_TOKEN)
    retry = Retry(
        total=settings.GITHUB_RETRIES,
        backoff_factor=settings.GITHUB_RETRY_BACKOFF,
        status_forcelist=(500, 502, 503, 504),
        allowed_methods=frozenset({"GET"}),
        respect_retry_after_header=False,
        raise_on_status=False,
    )
    return github.Github(
        auth=auth,
        base_url=settings.GITHUB_API_URL,
        per_page=100,
        timeout=settings.GITHUB_HTTP_TIMEOUT,
        retry=retry,
        seconds_between_requests=None,
        seconds_between_writes=None,
    )


def repository_of(url: str) -> str | None:
    """OWNER/NAME of a /repos/OWNER/NAME/... URL (a path, or a full URL under GITHUB_API_URL,
    as Link headers give); None for other routes (/user, /repositories/ID/...)."""
    parts = urlsplit(url)
    path = parts.path
    if parts.scheme:
        prefix = urlsplit(settings.GITHUB_API_URL).path.rstrip("/")
        path = path.removeprefix(prefix)
    match = REPOSITORY_PATH.fullmatch(path)
    return f"{unquote(match.group(1))}/{unquote(match.group(2))}" if match else None


def renewed(client: github.Github, exc: GithubException) -> bool:
    """GitHub answered 401 to an installation token: drop it so the next request asks for a
    new one (True), once per request (the caller retries once)."""
    auth = client.requester.auth
    if exc.status != 401 or not isinstance(auth, _app_auth().InstallationAuth):
        return False
    auth.renew()
    return True


class GitHubSource:
    """Reads GitHub one request at a time and counts the requests it makes.

    Its client: the one given; else, with a GitHub App configured, the client of the installation
    that holds each request's repository (the URL's /repos/OWNER/NAME; for other URLs, e.g.
    /repositories/ID/... after a rename, `full_name`, else the repository of its last request);
    else the personal token's (GITHUB_TOKEN).

    `reads_only` (the sync): it refuses to send anything but GET, whatever the token, and as a
    GitHub App it carries tokens that can only read (app_auth: least privilege)."""

    def __init__(
        self,
        client: github.Github | None = None,
        *,
        full_name: str | None = None,
        reads_only: bool = False,
    ):
        self._client = client
        self.full_name = full_name
        self.reads_only = reads_only
        self._installation_clients: dict[int, github.Github] = {}
        self._last_repository = full_name
        self.requests = 0
        self.not_modified = 0
        self.rate_remaining: int | None = None
        self.rate_reset_at: datetime | None = None
        # A backfill stops when the budget falls to this (sync: GITHUB_RATE_RESERVE), so that
        # one large repository never spends what the webhook-fed ones need; 0: no reserve.
        self.reserve = 0
        # A backfill stops after this many requests (sync: GITHUB_BACKFILL_SLICE_REQUESTS) and
        # goes on behind the syncs that queued meanwhile; 0: no slice.
        self.slice = 0

    @property
    def client(self) -> github.Github:
        """The client given, else the one for `full_name` (built at first use)."""
        if self._client is None:
            self._client = build_client(full_name=self.full_name, reads_only=self.reads_only)
        return self._client

    def client_for(self, url: str) -> github.Github:
        if self._client is not None or not _app_auth().app_configured():
            return self.client
        repository = repository_of(url) or self.full_name or self._last_repository
        if repository is None:
            return build_client()  # /user, /rate_limit ...: the personal token, if any
        self._last_repository = repository
        auth = _app_auth().installation_auth(repository, reads_only=self.reads_only)
        found = self._installation_clients.get(auth.installation_id)
        if found is None or found.requester.auth is not auth:
            found = self._installation_clients[auth.installation_id] = build_client(auth=auth)
        return found

    def get(self, url: str, params: dict | None = None, etag: str = "") -> Page:
        headers = {"If-None-Match": etag} if etag else None
        return self._request("GET", url, parameters=params, headers=headers)

    def post(self, url: str, body: dict | list) -> Page:
        """POST a JSON body (e.g. /repos/O/N/issues/N/labels); the answer as a Page."""
        return self._request("POST", url, input=body)

    def patch(self, url: str, body: dict) -> Page:
        return self._request("PATCH", url, input=body)

    def put(self, url: str, body: dict | None = None) -> Page:
        return self._request("PUT", url, input=body) if body else self._request("PUT", url)

    def delete(self, url: str, body: dict | None = None) -> Page:
        return self._request("DELETE", url, input=body) if body else self._request("DELETE", url)

    def _request(self, verb: str, url: str, **kwargs) -> Page:
        if self.reads_only and verb != "GET":
            raise GitHubError(None, f"{verb} {url}: this source only reads (a sync writes nothing)")
        if self.slice and self.requests >= self.slice:
            raise SliceSpent(datetime.now(UTC), f"{self.requests} requests: this slice is spent")
        if (
            self.reserve
            and self.rate_remaining is not None
            and self.rate_remaining <= self.reserve
            and self.rate_reset_at is not None
            and self.rate_reset_at > datetime.now(UTC)  # what was read before a reset is stale
        ):
            reset_at = self.rate_reset_at
            raise BudgetReserved(
                reset_at, f"{self.rate_remaining} requests left: kept for the other repositories"
            )
        client = self.client_for(url)
        for attempt in (1, 2):  # the second after a 401 with an installation token renewed
            self.requests += 1
            try:
                response_headers, data = client.requester.requestJsonAndCheck(verb, url, **kwargs)
                break
            except GithubException as exc:
                if attempt == 1 and renewed(client, exc):
                    continue
                raise self._translate(exc) from exc
            except OSError as exc:  # connection refused, reset, timed out
                raise TransientGitHubError(None, f"cannot reach GitHub: {exc}") from exc
        page = Page(
            items=data,
            etag=response_headers.get("etag", ""),
            links=parse_links(response_headers.get("link")),
            rate_remaining=_int(response_headers.get("x-ratelimit-remaining")),
            rate_reset_at=_epoch(response_headers.get("x-ratelimit-reset")),
        )
        if page.not_modified:
            self.not_modified += 1
        self.rate_remaining, self.rate_reset_at = page.rate_remaining, page.rate_reset_at
        return page

    def _translate(self, exc: GithubException) -> GitHubError:
        headers = {k.lower(): v for k, v in (exc.headers or {}).items()}
        message = exc.data.get("message", "") if isinstance(exc.data, dict) else str(exc.data)
        remaining = _int(headers.get("x-ratelimit-remaining"))
        retry_after = _int(headers.get("retry-after"))
        if exc.status in (403, 429) and (
            remaining == 0
            or retry_after is not None
            or isinstance(exc, github.RateLimitExceededException)
        ):
            if retry_after is not None:
                reset_at = datetime.fromtimestamp(time.time() + retry_after, tz=UTC)
            else:
                reset_at = _epoch(headers.get("x-ratelimit-reset")) or datetime.fromtimestamp(
                    time.time() + 60, tz=UTC
                )
            self.rate_remaining, self.rate_reset_at = remaining, reset_at
            return RateLimited(reset_at, message or "rate limit exceeded")
        if exc.status is None or exc.status >= 500:
            return TransientGitHubError(exc.status, message or "server error")
        return GitHubError(exc.status, message or "request failed")


def issue_comment_create(*, full_name: str, number: int, body: str) -> dict:
    """POST one comment on an issue through PyGithub (kernels_ci's opt-in result comment):
    {"id", "html_url"}. Never retried by the adapter (but once after a 401 that renewed an
    installation token: GitHub did nothing); errors as GitHubError and its kinds."""
    client = build_client(full_name=full_name)
    issue = client.withLazy(True).get_repo(full_name).get_issue(number)  # no GET
    try:
        try:
            comment = issue.create_comment(body)
        except GithubException as exc:
            if not renewed(client, exc):
                raise
            comment = issue.create_comment(body)
    except GithubException as exc:
        raise GitHubSource(client)._translate(exc) from exc
    except OSError as exc:
        raise TransientGitHubError(None, f"cannot reach GitHub: {exc}") from exc
    return {"id": comment.id, "html_url": comment.html_url}


# --- webhooks: the hooks' deliveries and their redelivery (triage/sources/github/redelivery.py)


@dataclass(frozen=True)
class HookAddress:
    """A webhook as GitHub's API names it: a repository's (target OWNER/NAME), an
    organization's (target its login) or the GitHub App's (integration, target "")."""

    target_type: str
    target: str
    hook_id: int

    @property
    def path(self) -> str:
        if self.target_type == "repository":
            return f"/repos/{self.target}/hooks/{self.hook_id}"
        if self.target_type == "organization":
            return f"/orgs/{self.target}/hooks/{self.hook_id}"
        return "/app/hook"

    def __str__(self) -> str:
        return f"{self.target_type} hook {self.hook_id}" + (
            f" of {self.target}" if self.target else ""
        )


@dataclass(frozen=True)
class HookDelivery:
    id: int
    guid: str
    delivered_at: datetime
    ok: bool
    status: str
    event: str
    action: str


def build_app_client() -> github.Github | None:
    """A client authenticated as the GitHub App (a JWT signed with its private key), for the
    App's own endpoints; None unless the App is configured (GITHUB_APP_ID and its key);
    AppMisconfigured, naming the setting, when its settings cannot work."""
    if not _app_auth().app_configured():
        return None
    return build_client(auth=_app_auth().app_credentials())


def app_bot_login(client: github.Github | None = None) -> str:
    """The login the App writes as ("SLUG[bot]", GET /app with its JWT); "" without an App."""
    client = client or build_app_client()
    if client is None:
        return ""
    try:
        _, data = client.requester.requestJsonAndCheck("GET", "/app")
    except GithubException as exc:
        raise GitHubSource(client)._translate(exc) from exc
    except OSError as exc:
        raise TransientGitHubError(None, f"cannot reach GitHub: {exc}") from exc
    return f"{data['slug']}[bot]"


def _deliveries_listing(client: github.Github, hook: HookAddress):
    if hook.target_type == "repository":
        return client.withLazy(True).get_repo(hook.target).get_hook_deliveries(hook.hook_id)
    if hook.target_type == "organization":
        organization = client.withLazy(True).get_organization(hook.target)
        return organization.get_hook_deliveries(hook.hook_id)
    # the App's: PyGithub has no call for it, its PaginatedList reads the same cursor pages
    return PaginatedList(HookDeliverySummary, client.requester, f"{hook.path}/deliveries", None)


def hook_deliveries(*, client: github.Github, hook: HookAddress) -> Iterator[HookDelivery]:
    """The hook's deliveries as GitHub lists them: newest first, 100 a page (cursor pagination
    through the Link header), read page by page as the caller goes on."""
    try:
        for item in _deliveries_listing(client, hook):
            code = item.status_code or 0
            yield HookDelivery(
                id=item.id,
                guid=item.guid or "",
                delivered_at=item.delivered_at,
                ok=item.status == "OK" or 200 <= code < 300,
                status=item.status or "",
                event=item.event or "",
                action=item.action or "",
            )
    except GithubException as exc:
        raise GitHubSource(client)._translate(exc) from exc
    except OSError as exc:
        raise TransientGitHubError(None, f"cannot reach GitHub: {exc}") from exc


def hook_delivery_redeliver(*, client: github.Github, hook: HookAddress, delivery_id: int) -> None:
    """Ask GitHub to send a delivery again (POST .../deliveries/{id}/attempts: 202; PyGithub has
    no call for it, its requester makes it). Never retried by the adapter (a POST)."""
    url = f"{hook.path}/deliveries/{delivery_id}/attempts"
    GitHubSource(client).post(url, {})


def repository_hooks(*, client: github.Github | None = None, full_name: str) -> list[dict]:
    """The repository's webhooks ({"id", "active", "url"}): needs admin rights on it, which a
    token may lack (GitHubError 404 or 403); `client` None: build_client(full_name=...)."""
    try:
        client = client or build_client(full_name=full_name)
        hooks = client.withLazy(True).get_repo(full_name).get_hooks()
        return [
            {"id": hook.id, "active": hook.active, "url": (hook.config or {}).get("url", "")}
            for hook in hooks
        ]
    except GithubException as exc:
        raise GitHubSource(client)._translate(exc) from exc
    except OSError as exc:
        raise TransientGitHubError(None, f"cannot reach GitHub: {exc}") from exc
