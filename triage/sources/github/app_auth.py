"""Running as a GitHub App: its settings, its JWT, and the installation tokens that every call
for a repository carries.

A GitHub App signs a short JWT with its private key (PyGithub's `Auth.AppAuth`); with it, it
finds the installation that holds a repository (GET /repos/O/N/installation) and asks for that
installation's token (POST /app/installations/ID/access_tokens, an hour's life). Here:

- the settings: GITHUB_APP_ID and the PEM key, as text (GITHUB_APP_PRIVATE_KEY) or as a file
  (GITHUB_APP_PRIVATE_KEY_PATH), checked before first use; what is wrong is said by
  `app_configuration_problems()` (the settings page) and raised as AppMisconfigured, naming the
  setting, at first use;
- which installation holds a repository, looked up once and kept for INSTALLATION_TTL_S
  (`installation_forget` drops one: the installation events of part 2 call it);
- one InstallationAuth per installation and access, shared by every client of this process: its
  token is kept until RENEW_BEFORE before it expires, then asked again; `renew()` drops it at
  once (the caller got 401 with it: expired early or revoked; triage/sources/github/client.py
  retries that request once);
- an installation's change (new permissions accepted, suspended, removed) reaches every process:
  the one that handles its webhook event writes a new mark in the shared cache (Redis), and each
  process compares the mark at most every INSTALLATION_CHANGE_CHECK_S before it uses what it holds
  of that installation (its id, permissions, tokens), which it then asks GitHub for again;
- least privilege: what only reads (the sync: GitHubSource(reads_only=True)) carries a token
  asked for with READ_PERMISSIONS at "read" (those the installation has), so a write made by
  mistake on that path is refused by GitHub; what writes (the outbox, the label write-back, the
  repro comment, redelivery) carries the installation's full token.

PyGithub's own AppInstallationAuth renews 20 s before expiry; ours renews earlier, as a sync's
page requests can queue behind a slow one for longer than that.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import github
from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured
from github import GithubException

from config import linear_re
from triage.sources.github.client import (
    GitHubError,
    GitHubSource,
    TransientGitHubError,
    build_client,
)

logger = logging.getLogger(__name__)

RENEW_BEFORE = timedelta(minutes=5)
INSTALLATION_TTL_S = 3600
# How often a process asks the shared cache whether another process heard that an installation
# changed (installation_changed): what it holds of that installation is then asked for again.
INSTALLATION_CHANGE_CHECK_S = 30
APP_ID = linear_re.compile(r"\d+")


class AppMisconfigured(GitHubError, ImproperlyConfigured):
    """The App's settings cannot work (missing, malformed key, unreadable key file)."""

    def __init__(self, message: str):
        super().__init__(None, message)


class AppNotInstalled(GitHubError):
    """The App has no installation holding this repository (or it was uninstalled)."""


class AppRefused(GitHubError):
    """GitHub refused the App's JWT (wrong App id, a key not the App's, the clock far off)."""


# --- the settings ---------------------------------------------------------------------------


def app_configured() -> bool:
    """Any of the App's settings is set: the service runs as the App (and says what is wrong
    with its settings rather than falling back to the personal token)."""
    return bool(
        settings.GITHUB_APP_ID
        or settings.GITHUB_APP_PRIVATE_KEY
        or settings.GITHUB_APP_PRIVATE_KEY_PATH
    )


def app_configuration_problems() -> list[str]:
    """What is wrong with the App's settings, for people ([] when none is set, or all is well)."""
    if not app_configured():
        return []
    problems = []
    app_id = str(settings.GITHUB_APP_ID).strip()
    if not app_id:
        problems.append("GITHUB_APP_ID is not set: the App's numeric id (its settings page)")
    elif not APP_ID.fullmatch(app_id):
        problems.append(f"GITHUB_APP_ID must be the App's numeric id, not {app_id!r}")
    try:
        _checked_key(_key_text())
    except AppMisconfigured as exc:
        problems.append(str(exc))
    return problems


def app_credentials() -> github.Auth.AppAuth:
    """The App's auth (its JWT); AppMisconfigured naming the setting when it cannot work."""
    problems = app_configuration_problems()
    if problems:
        raise AppMisconfigured("; ".join(problems))
    return _app_auth(str(settings.GITHUB_APP_ID).strip(), _key_text())


def _key_text() -> str:
    text, path = settings.GITHUB_APP_PRIVATE_KEY, settings.GITHUB_APP_PRIVATE_KEY_PATH
    if text and path:
        raise AppMisconfigured(
            "set GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_PATH, not both"
        )
    if path:
        try:
            return Path(path).read_text()
        except (OSError, UnicodeDecodeError) as exc:
            raise AppMisconfigured(
                f"GITHUB_APP_PRIVATE_KEY_PATH: cannot read the App's key from {path}: {exc}"
            ) from exc
    if not text:
        raise AppMisconfigured(
            "GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_PATH is not set: the App's "
            "private key (a PEM file generated on the App's settings page)"
        )
    return text.replace("\\n", "\n")  # a PEM in one line of an env file, newlines written \n


def _checked_key(pem: str) -> None:
    # cryptography: only for a GitHub App's key, read once when the App is configured
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    setting = (
        "GITHUB_APP_PRIVATE_KEY_PATH"
        if settings.GITHUB_APP_PRIVATE_KEY_PATH
        else "GITHUB_APP_PRIVATE_KEY"
    )
    try:
        key = _loaded_key(pem, load_pem_private_key)
    except (ValueError, TypeError) as exc:
        raise AppMisconfigured(
            f"{setting} is not a PEM private key (-----BEGIN RSA PRIVATE KEY----- ...): "
            f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
        ) from exc
    if not isinstance(key, rsa.RSAPrivateKey):
        raise AppMisconfigured(f"{setting} must be the App's RSA key, not {type(key).__name__}")


_loaded: dict[str, object] = {}


def _loaded_key(pem: str, load):
    digest = hashlib.sha256(pem.encode()).hexdigest()
    if digest not in _loaded:
        _loaded[digest] = load(pem.encode(), password=None)
    return _loaded[digest]


_auths: dict[tuple[str, str], github.Auth.AppAuth] = {}


def _app_auth(app_id: str, pem: str) -> github.Auth.AppAuth:
    key = (app_id, hashlib.sha256(pem.encode()).hexdigest())
    if key not in _auths:
        _auths[key] = github.Auth.AppAuth(app_id, pem)
    return _auths[key]


# --- installations and their tokens --------------------------------------------------------


class InstallationAuth(github.Auth.AppInstallationAuth):
    """An installation's token, kept until RENEW_BEFORE its expiry; one per installation and
    process, safe to share between threads and clients."""

    def __init__(
        self,
        app_auth: github.Auth.AppAuth,
        installation_id: int,
        token_permissions: dict[str, str] | None = None,
    ):
        super().__init__(app_auth, installation_id, token_permissions)
        self._lock = threading.Lock()
        self._authorization = None
        self.issued = 0  # tokens asked for so far

    @property
    def token(self) -> str:
        with self._lock:
            if self._authorization is None or self._expiring():
                self._authorization = self._asked()
                self.issued += 1
            return self._authorization.token

    def renew(self) -> None:
        """The next request asks for a new token (GitHub answered 401 to this one)."""
        with self._lock:
            self._authorization = None

    def _expiring(self) -> bool:
        return self._authorization.expires_at - RENEW_BEFORE <= datetime.now(UTC)

    def _asked(self):
        try:
            return self._get_installation_authorization()
        except GithubException as exc:
            raise _token_refused(self.installation_id, exc) from exc
        except OSError as exc:  # connection refused, reset, timed out
            raise TransientGitHubError(None, f"cannot reach GitHub: {exc}") from exc


def _token_refused(installation_id: int, exc: GithubException) -> GitHubError:
    if exc.status == 404:
        _forget_installation_id(installation_id)
        return AppNotInstalled(
            404, f"the App's installation {installation_id} is gone (uninstalled?)"
        )
    if exc.status == 401:
        return _jwt_refused(exc)
    return GitHubSource(client=None)._translate(exc)


def _jwt_refused(exc: GithubException) -> AppRefused:
    message = exc.data.get("message", "") if isinstance(exc.data, dict) else str(exc.data)
    return AppRefused(
        401,
        f"GitHub refused the App's JWT ({message or 'Bad credentials'}): check GITHUB_APP_ID, "
        "that the private key is the App's, and this machine's clock",
    )


_lock = threading.Lock()
_installations: dict[tuple, InstallationAuth] = {}  # (API, app, installation, reads_only)
_repository_installations: dict[tuple, tuple[int, float]] = {}
_installation_permissions: dict[int, dict[str, str]] = {}  # as GitHub last gave them


def _scope(app_auth: github.Auth.AppAuth) -> tuple[str, str]:
    return settings.GITHUB_API_URL, str(app_auth.app_id)


def installation_auth(full_name: str, *, reads_only: bool = False) -> InstallationAuth:
    """The auth of the installation that holds OWNER/NAME (AppNotInstalled when none does);
    `reads_only`: its token asked for with the installation's permissions at "read" only."""
    app_auth = app_credentials()
    installation_id = installation_id_for(full_name, app_auth=app_auth)
    if _changed_elsewhere(installation_id):
        _forget_installation_id(installation_id)
        installation_id = installation_id_for(full_name, app_auth=app_auth)
    key = (*_scope(app_auth), installation_id, reads_only)
    with _lock:
        found = _installations.get(key)
        if found is None or found._app_auth is not app_auth:
            narrowed = None
            if reads_only:
                narrowed = _read_only(_installation_permissions.get(installation_id, {}))
            found = _installations[key] = InstallationAuth(app_auth, installation_id, narrowed)
        return found


# What the sync reads with: the repository, its issues, comments and labels, its pull requests
# with their commits and changed files.
READ_PERMISSIONS = ("metadata", "issues", "pull_requests")


def _read_only(permissions: dict) -> dict[str, str] | None:
    """READ_PERMISSIONS at "read", those the installation has (GitHub refuses a token that asks
    for a permission the installation lacks); None when its permissions are not known."""
    found = {name: "read" for name in READ_PERMISSIONS if permissions.get(name) in _LEVELS}
    return found or None


def installation_id_for(full_name: str, *, app_auth: github.Auth.AppAuth | None = None) -> int:
    app_auth = app_auth or app_credentials()
    key = (*_scope(app_auth), full_name.lower())
    with _lock:
        known = _repository_installations.get(key)
    if known and time.monotonic() - known[1] < INSTALLATION_TTL_S:
        return known[0]
    owner, _, name = full_name.partition("/")
    client = build_client(auth=app_auth)
    try:
        _, data = client.requester.requestJsonAndCheck("GET", f"/repos/{owner}/{name}/installation")
    except GithubException as exc:
        if exc.status == 404:
            raise AppNotInstalled(
                404,
                f"the App is not installed on {full_name}: install it on the repository or its "
                "organization (GitHub: the App's settings, Install App)",
            ) from exc
        if exc.status == 401:
            raise _jwt_refused(exc) from exc
        raise GitHubSource(client)._translate(exc) from exc
    except OSError as exc:
        raise TransientGitHubError(None, f"cannot reach GitHub: {exc}") from exc
    with _lock:
        _repository_installations[key] = (int(data["id"]), time.monotonic())
        if isinstance(data.get("permissions"), dict):
            _installation_permissions[int(data["id"])] = dict(data["permissions"])
    return int(data["id"])


def installation_forget(full_name: str) -> None:
    """Look the repository's installation up again at its next call (it moved, or the App was
    uninstalled from it)."""
    with _lock:
        for key in [k for k in _repository_installations if k[-1] == full_name.lower()]:
            del _repository_installations[key]


_CHANGED_KEY = "github-app-installation-changed:{}"
_changes_seen: dict[int, tuple[str | None, float]] = {}  # installation: (mark, when looked)


def _changed_elsewhere(installation_id: int) -> bool:
    """Whether another process marked the installation changed since this one last looked (it
    looks at most every INSTALLATION_CHANGE_CHECK_S); the first look only notes the mark, as
    nothing of the installation is held before it."""
    now = time.monotonic()
    with _lock:
        seen = _changes_seen.get(installation_id)
    if seen is not None and now - seen[1] < INSTALLATION_CHANGE_CHECK_S:
        return False
    try:
        mark = cache.get(_CHANGED_KEY.format(installation_id))
    except Exception as exc:  # noqa: BLE001 - each cache backend raises its own (Redis down)
        logger.warning("cannot read whether installation %s changed: %s", installation_id, exc)
        return False  # keep what is held (at worst an hour-old token); look again next call
    with _lock:
        _changes_seen[installation_id] = (mark, now)
    return seen is not None and seen[0] != mark


def _mark_changed(installation_id: int) -> None:
    """Tell every process that the installation changed; this one has already forgotten it."""
    mark = uuid.uuid4().hex
    # A mark that expires (tokens live an hour) makes each process ask once more: harmless.
    cache.set(_CHANGED_KEY.format(installation_id), mark, timeout=2 * 3600)
    with _lock:
        _changes_seen[installation_id] = (mark, time.monotonic())


def _forget_installation_id(installation_id: int) -> None:
    with _lock:
        for key in [k for k, v in _repository_installations.items() if v[0] == installation_id]:
            del _repository_installations[key]
        for key in [k for k in _installations if k[2] == installation_id]:
            del _installations[key]
        _installation_permissions.pop(installation_id, None)


# --- what each installation lacks ------------------------------------------------------------

# What the service does with an installation's token (docs/DEPLOYMENT.md, "Running as a GitHub
# App"): reads issues, pull requests and their commits; writes labels, comments, assignees,
# reactions, closing (issues) and review requests (pull requests).
REQUIRED_PERMISSIONS = {"metadata": "read", "issues": "write", "pull_requests": "write"}
# Without these events, changes wait for the scheduled sync (a reconciliation every few hours).
REQUIRED_EVENTS = ("issues", "issue_comment", "pull_request", "label", "repository")
_LEVELS = {"read": 1, "write": 2, "admin": 3}
INSTALLATION_CHECK_TTL_S = 600
_CHECK_KEY = "github-app-installation-problems"


def installation_lacks(data: dict) -> list[str]:
    """What one installation (GitHub's JSON of it) lacks of REQUIRED_PERMISSIONS and events."""
    granted, subscribed = data.get("permissions") or {}, set(data.get("events") or ())
    missing = [
        f"{name}: {level}" + (f" (it has {granted[name]})" if granted.get(name) else "")
        for name, level in REQUIRED_PERMISSIONS.items()
        if _LEVELS.get(granted.get(name), 0) < _LEVELS[level]
    ]
    unsubscribed = [event for event in REQUIRED_EVENTS if event not in subscribed]
    account = (data.get("account") or {}).get("login", "?")
    where = f"installation {data.get('id')} on {account}"
    problems = []
    if missing:
        problems.append(
            f"{where} lacks the permission{'s' if len(missing) > 1 else ''} "
            f"{', '.join(missing)}: grant it on the App's settings page (Permissions & events), "
            "then accept the new permissions on the installation"
        )
    if unsubscribed:
        problems.append(
            f"{where} is not subscribed to the event{'s' if len(unsubscribed) > 1 else ''} "
            f"{', '.join(unsubscribed)}: those changes wait for the scheduled sync"
        )
    return problems


def installation_problems(*, fresh: bool = False) -> list[str]:
    """What keeps the App from working, for people: its settings, GitHub refusing its JWT (a
    wrong key or id, this machine's clock), and what each installation lacks. [] without an App
    or when all is well. Asks GitHub (one request a page, with the JWT) at most every
    INSTALLATION_CHECK_TTL_S; never raises."""
    if not app_configured():
        return []
    problems = app_configuration_problems()
    if problems:
        return problems
    if not fresh:
        known = cache.get(_CHECK_KEY)
        if known is not None:
            return known
    try:
        client = build_client(auth=app_credentials())
        installations = github.PaginatedList.PaginatedList(
            github.Installation.Installation, client.requester, "/app/installations", None
        )
        problems = [p for found in installations for p in installation_lacks(found.raw_data)]
    except GithubException as exc:
        problems = [str(_jwt_refused(exc) if exc.status == 401 else exc)]
    except (GitHubError, OSError) as exc:
        problems = [f"cannot ask GitHub about the App's installations: {exc}"]
    cache.set(_CHECK_KEY, problems, timeout=INSTALLATION_CHECK_TTL_S)
    return problems


def app_check_at_start() -> None:
    """Log, as errors, what keeps the App from working (beat's start; the settings page shows the
    same). Nothing stops: every sync of an affected repository fails alone, with its reason."""
    for problem in installation_problems(fresh=True):
        logger.error("GitHub App: %s", problem)


def installation_changed(installation_id: int | None) -> None:
    """An installation was created, removed, suspended or given new permissions: its tokens are
    asked for again (a token keeps the permissions it was issued with) and what the App lacks is
    read again at the next look (the settings and home pages, beat's start)."""
    if installation_id is not None:
        _forget_installation_id(installation_id)
        _mark_changed(installation_id)
    cache.delete(_CHECK_KEY)


def app_caches_clear() -> None:
    """Forget every installation and token (tests; a changed App)."""
    with _lock:
        _installations.clear()
        _repository_installations.clear()
        _installation_permissions.clear()
        _changes_seen.clear()
        _auths.clear()
        _loaded.clear()
    cache.delete(_CHECK_KEY)
