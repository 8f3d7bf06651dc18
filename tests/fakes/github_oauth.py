"""GitHub's OAuth web flow, as github.com (or GitHub Enterprise) serves it to an OAuth App, for
the GitHub emulator (tests/fakes/github_api.py), which serves these pages on the same server.

- ``GET /login/oauth/authorize?client_id&redirect_uri&scope&state[&code_challenge]``: the user
  the "browser" is signed in as at GitHub (``GitHubEmulator.oauth_sign_in``) authorizes at once
  (as GitHub does for an app already authorized) and is sent back to ``redirect_uri`` with
  ``code`` and ``state``; with nobody signed in it is a denial (``error=access_denied``). An
  unknown client_id is GitHub's 404 page; a redirect_uri outside the app's callback URL is sent
  to the callback URL with ``error=redirect_uri_mismatch``.
- ``POST /login/oauth/access_token`` (form or JSON body): the code (single use, ten minutes,
  bound to its client and redirect_uri, and to its PKCE challenge when it had one) for a token.
  The answer is form-encoded, or JSON with ``Accept: application/json``; failures are 200 with
  ``error`` (``bad_verification_code``, ``incorrect_client_credentials``,
  ``redirect_uri_mismatch``), as on GitHub.
- With the token, the API's ``GET /user``, ``/user/emails`` (scope ``user:email`` or ``user``)
  and ``/user/teams`` (scope ``read:org``, ``user`` or ``repo``; 403 without) answer for that
  user; a revoked token (``revoke_oauth_tokens``) is 401 "Bad credentials". Stdlib only.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode, urlsplit

WEB_ROUTES = frozenset({"/login/oauth/authorize", "/login/oauth/access_token"})
OAUTH_DOCS = "https://docs.github.com/apps/oauth-apps/maintaining-oauth-apps"
CODE_LIFETIME_S = 600
SCOPES_FOR = {  # route: scopes any one of which opens it
    "/user/emails": frozenset({"user:email", "user"}),
    "/user/teams": frozenset({"read:org", "user", "repo", "admin:org", "write:org"}),
}


@dataclass
class OAuthApp:
    client_id: str
    secret: str
    callback_url: str | None


@dataclass
class OAuthUser:
    login: str
    teams: list[str]  # "org/team-slug"
    emails: list[str]
    name: str


@dataclass
class Grant:
    """What a token stands for: whose, and the scopes it was granted."""

    login: str
    scopes: frozenset = field(default_factory=frozenset)


@dataclass
class _Code:
    client_id: str
    redirect_uri: str
    login: str
    scopes: frozenset
    challenge: str | None
    expires: float


class OAuthStore:
    """Apps, users, codes and tokens. Callers hold the emulator's lock."""

    def __init__(self, api: str, new_id, user_of):
        self.api, self.new_id, self.user_of = api, new_id, user_of
        self.apps: dict[str, OAuthApp] = {}
        self.users: dict[str, OAuthUser] = {}  # by lower-cased login
        self.signed_in: str | None = None
        self.codes: dict[str, _Code] = {}
        self.tokens: dict[str, Grant] = {}
        self.team_ids: dict[str, int] = {}

    # helpers' side
    def add_app(self, client_id: str, secret: str, callback_url: str | None) -> None:
        self.apps[client_id] = OAuthApp(client_id, secret, callback_url)

    def add_user(self, login: str, teams, emails, name: str | None) -> OAuthUser:
        self.user_of(login)
        found = OAuthUser(login, list(teams), list(emails or [f"{login}@example.com"]), name or "")
        self.users[login.lower()] = found
        return found

    def user(self, login: str) -> OAuthUser:
        found = self.users.get(login.lower())
        if found is None:
            raise KeyError(f"no OAuth user {login!r}: add_oauth_user first")
        return found

    def revoke(self, login: str) -> None:
        for token, grant in list(self.tokens.items()):
            if grant.login.lower() == login.lower():
                del self.tokens[token]

    # the web pages
    def authorize(self, query: dict) -> tuple[int, list, bytes]:
        app = self.apps.get(query.get("client_id", ""))
        if app is None:
            return 404, [("Content-Type", "text/html; charset=utf-8")], b"<h1>Not Found</h1>"
        redirect_uri = query.get("redirect_uri") or app.callback_url or ""
        state = query.get("state")
        if app.callback_url and not _within(redirect_uri, app.callback_url):
            return _back(
                app.callback_url,
                state,
                "redirect_uri_mismatch",
                "The redirect_uri MUST match the registered callback URL for this application.",
            )
        if self.signed_in is None:
            return _back(
                redirect_uri, state, "access_denied", "The user has denied your application access."
            )
        scopes = frozenset(s for s in query.get("scope", "").replace(",", " ").split() if s)
        challenge = query.get("code_challenge")
        if challenge and query.get("code_challenge_method", "plain") != "S256":
            challenge = None  # GitHub supports S256 only
        code = secrets.token_hex(10)
        self.codes[code] = _Code(
            app.client_id,
            redirect_uri,
            self.signed_in,
            scopes,
            challenge,
            time.time() + CODE_LIFETIME_S,
        )
        return _redirect(redirect_uri, {"code": code, **({"state": state} if state else {})})

    def access_token(self, headers, body: bytes) -> tuple[int, list, bytes]:
        data = _form_or_json(headers.get("Content-Type") or "", body)
        answer = self._exchange(data)
        if "json" in (headers.get("Accept") or ""):
            return (
                200,
                [("Content-Type", "application/json; charset=utf-8")],
                json.dumps(answer).encode(),
            )
        return (
            200,
            [("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")],
            (urlencode(answer).encode()),
        )

    def _exchange(self, data: dict) -> dict:
        app = self.apps.get(data.get("client_id", ""))
        if app is None or not secrets.compare_digest(data.get("client_secret", ""), app.secret):
            return _error(
                "incorrect_client_credentials",
                "The client_id and/or client_secret passed are incorrect.",
            )
        code = self.codes.pop(data.get("code", ""), None)
        if code is None or code.client_id != app.client_id or code.expires < time.time():
            return _error("bad_verification_code", "The code passed is incorrect or expired.")
        if data.get("redirect_uri") and data["redirect_uri"] != code.redirect_uri:
            return _error(
                "redirect_uri_mismatch",
                "The redirect_uri MUST match the registered callback URL for this application.",
            )
        if code.challenge and _s256(data.get("code_verifier", "")) != code.challenge:
            return _error("bad_verification_code", "The code_verifier does not match.")
        token = "gho_" + secrets.token_urlsafe(27)
        self.tokens[token] = Grant(code.login, code.scopes)
        return {
            "access_token": token,
            "token_type": "bearer",
            "scope": ",".join(sorted(code.scopes)),
        }

    # the API's side
    def grant(self, token: str) -> Grant | None:
        return self.tokens.get(token)

    def allows(self, grant: Grant, route: str) -> bool:
        needed = SCOPES_FOR.get(route)
        return needed is None or bool(needed & grant.scopes)

    def user_json(self, login: str, base: dict) -> dict:
        found = self.users.get(login.lower())
        emails = found.emails if found else []
        return dict(base, name=found.name if found else None, email=emails[0] if emails else None)

    def emails_json(self, login: str) -> list[dict]:
        found = self.users.get(login.lower())
        emails = found.emails if found else []
        return [
            {"email": email, "primary": i == 0, "verified": True, "visibility": "private"}
            for i, email in enumerate(emails)
        ]

    def teams_json(self, login: str) -> list[dict]:
        found = self.users.get(login.lower())
        return [self._team_json(team) for team in (found.teams if found else [])]

    def _team_json(self, team: str) -> dict:
        org, _, slug = team.partition("/")
        team_id = self.team_ids.setdefault(team.lower(), self.new_id())
        url = f"{self.api}/organizations/{self.user_of(org, 'Organization')['id']}/team/{team_id}"
        organization = dict(self.user_of(org, "Organization"))
        organization.update(name=org, description=None, public_repos=0)
        return {
            "name": slug.replace("-", " ").title(),
            "id": team_id,
            "node_id": base64.b64encode(f"04:Team{team_id}".encode()).decode(),
            "slug": slug.lower(),
            "description": "",
            "privacy": "closed",
            "notification_setting": "notifications_enabled",
            "url": url,
            "html_url": f"https://github.com/orgs/{org}/teams/{slug.lower()}",
            "members_url": f"{url}/members{{/member}}",
            "repositories_url": f"{url}/repos",
            "permission": "pull",
            "parent": None,
            "members_count": 1,
            "repos_count": 0,
            "created_at": "2020-01-01T00:00:00Z",
            "updated_at": "2020-01-01T00:00:00Z",
            "organization": organization,
        }


def _within(redirect_uri: str, callback_url: str) -> bool:
    """GitHub: the same scheme, host and port, and a path under the callback URL's."""
    given, registered = urlsplit(redirect_uri), urlsplit(callback_url)
    return (given.scheme, given.netloc) == (registered.scheme, registered.netloc) and (
        given.path.startswith(registered.path.rstrip("/") + "/") or given.path == registered.path
    )


def _redirect(url: str, params: dict) -> tuple[int, list, bytes]:
    location = url + ("&" if "?" in url else "?") + urlencode(params)
    return 302, [("Location", location), ("Content-Type", "text/html; charset=utf-8")], b""


def _back(url: str, state: str | None, error: str, description: str) -> tuple[int, list, bytes]:
    params = {"error": error, "error_description": description, "error_uri": OAUTH_DOCS}
    return _redirect(url, {**params, **({"state": state} if state else {})})


def _error(error: str, description: str) -> dict:
    return {"error": error, "error_description": description, "error_uri": OAUTH_DOCS}


def _form_or_json(content_type: str, body: bytes) -> dict:
    if "json" in content_type:
        try:
            data = json.loads(body or b"{}")
        except ValueError:
            return {}
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}
    return dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))


def _s256(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
