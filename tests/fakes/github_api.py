"""An emulator of the GitHub REST API, served over HTTP to the real PyGithub client.

It behaves like api.github.com where our code can tell the difference: object shapes,
pagination with ``Link`` headers, ``ETag``/``If-None-Match`` and 304, rate-limit headers and
the 403 that follows an exhausted limit, and injected 4xx/5xx faults. Reads: repositories,
issues, pull requests and their commits and changed files (``/pulls/N/files``: filename,
status, additions, deletions, changes, previous_filename of a rename; at most 3,000), comments,
labels, reactions. Writes, by the
authenticated user, each counted against the rate limit and open to injected faults (404 for a
repository, issue or comment that does not exist, 422 "Validation Failed" for a bad value):

- ``PATCH /repos/O/N/issues/N``: title, body, state and state_reason (closing without one is
  ``completed``, reopening ``reopened``; closed_at set or cleared), labels and assignees
  (replaced; unknown labels created, unassignable logins 422);
- ``PATCH .../issues/comments/ID``: its body;
- ``POST .../issues/N/labels`` (add), ``PUT`` (replace), ``DELETE .../labels`` (all, 204) and
  ``DELETE .../labels/NAME`` (404 "Label does not exist" when the issue lacks it);
- ``POST .../issues/N/assignees`` (201; logins that may not be assigned silently left out; see
  ``add_collaborator``) and ``DELETE`` of the same path;
- ``POST .../issues/N/comments`` (201);
- ``PUT .../issues/N/lock`` (204; ``lock_reason`` off-topic, too heated, resolved or spam, else
  422; the issue's ``locked`` and ``active_lock_reason``) and ``DELETE`` of it (204; 404 when
  not locked);
- ``POST .../pulls/N/requested_reviewers`` (201 with the pull request, its
  requested_reviewers and requested_teams; 422 for the author, or for a user or team that is not
  a collaborator: see ``add_collaborator`` and ``add_team``), and ``GET`` of the same path;
- ``POST .../issues/N/reactions`` and ``.../issues/comments/ID/reactions``: 201 with a new
  reaction, 200 with the user's existing one of that content.

Reactions show in each issue's and comment's ``reactions`` rollup and, as on GitHub, do not
move updated_at; who reacted is listed by ``GET`` of the same reactions paths. Webhooks of
repositories, organizations and a GitHub App, their deliveries and redelivery:
tests/fakes/github_hooks.py.
A GitHub App (``add_app``, then ``add_installation`` on an account's repositories, all or
chosen): with its JWT, ``GET /app``, ``GET /app/installations[/ID]``,
``GET /repos/O/N/installation`` (404 where not installed) and
``POST /app/installations/ID/access_tokens`` (201, an hour's token; ``token_lifetime_s``).
An installation token opens its repositories' routes (writes only with the permission at
"write"), ``/rate_limit`` and ``/installation/repositories``; other repositories are 404 to it,
other routes 403; once expired (``expire_installation_tokens``) or uninstalled it is 401 "Bad
credentials". The request log names whose token each request carried (``"installation"``).
Each installation spends its own rate budget, by GitHub's rule: 5,000 requests an hour, plus 50
for each repository it holds past 20 and each organization user past 20
(``set_installation_members``), at most 12,500; the personal token spends its own.
The personal token keeps opening everything.
Sign in with GitHub (an OAuth App, ``add_oauth_app``; users and their teams, ``add_oauth_user``;
who is signed in at GitHub, ``oauth_sign_in``): the web flow's ``/login/oauth/authorize`` and
``/login/oauth/access_token`` at the server's root, and ``/user``, ``/user/emails`` and
``/user/teams`` with the user's token: tests/fakes/github_oauth.py.
A renamed repository (``rename_repo``) answers its old name's URLs with ``301 Moved
Permanently`` (``307`` for writes) to ``/repositories/<id>/...`` with the same query, as
GitHub does, until another repository takes the old name; ``/repositories/<id>/...`` serves
every repository route. Stdlib only.

    with GitHubEmulator(token="t") as emu:
        emu.add_issue("ROCm/ROCm", title="Hang on gfx942")
        gh = github.Github(auth=github.Auth.Token("t"), base_url=emu.url)

Objects are stored compactly and serialized once; the serialized bytes carry a placeholder
for the API base URL, replaced per response with ``http://<Host><path_prefix>``.

CLI: ``python -m tests.fakes.github_api --port 8765 --repo OWNER/NAME --issues 100000``
prints ``READY <url>`` and serves until SIGTERM or SIGINT.
"""

from __future__ import annotations

import argparse
import base64
import bisect
import contextlib
import hashlib
import json
import random
import re
import secrets
import threading
import time
import traceback
from datetime import UTC, datetime
from http import HTTPStatus
from operator import attrgetter
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

from tests.fakes.github_hooks import HookApiError, HookStore, link_header
from tests.fakes.github_oauth import WEB_ROUTES, Grant, OAuthStore
from tests.fakes.http_emulator import HttpEmulator, Reply

API = "@@EMULATED_GITHUB_API@@"
API_BYTES = API.encode()
WEB = "https://github.com"
DOCS_URL = "https://docs.github.com/rest"
RATE_DOCS_URL = "https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"
REDIRECT_DOCS_URL = (
    "https://docs.github.com/rest/guides/best-practices-for-using-the-rest-api#follow-redirects"
)
SECONDARY_DOCS_URL = (
    "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
)
ITEM_ID_START = 1_000_000
BULK_EPOCH = 1_640_000_000  # 2021-12-20: bulk data is history, older than anything a test adds


# ---------------------------------------------------------------- time


def iso(epoch: int | None) -> str | None:
    if epoch is None:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))


def to_epoch(value) -> int | None:
    """Epoch seconds from None, an int/float epoch, an ISO 8601 string or a datetime."""
    if value is None:
        return None
    if isinstance(value, int | float):
        return int(value)
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return int(value.timestamp())


# ---------------------------------------------------------------- stored records


class _Issue:
    """One issue or pull request; both share the number space of a repository."""

    __slots__ = (
        "number",
        "id",
        "title",
        "body",
        "user",
        "state",
        "state_reason",
        "labels",
        "assignees",
        "created",
        "updated",
        "closed",
        "comments",
        "locked",
        "lock_reason",
        "author_association",
        "extra",
        "pr_id",
        "base",
        "head",
        "merged",
        "merged_at",
        "merge_commit_sha",
        "merged_by",
        "draft",
        "reactions",
        "commits",
        "closed_by",
        "files",
        "reviewers",
        "review_teams",
        "cache",
    )

    def __init__(self, number, issue_id, title, body, user, created):
        self.number, self.id, self.title, self.body, self.user = number, issue_id, title, body, user
        self.state, self.state_reason, self.labels, self.assignees = "open", None, (), ()
        self.created, self.updated, self.closed, self.comments = created, created, None, 0
        self.locked, self.author_association, self.extra = False, "NONE", None
        self.lock_reason = None
        self.pr_id, self.base, self.head, self.draft = None, "main", None, False
        self.merged, self.merged_at, self.merge_commit_sha, self.merged_by = False, None, None, None
        self.reactions = None  # {content: count}
        self.commits = None  # commit messages of a PR; None: generated from its number
        self.closed_by = None  # who closed it through the API; None: its merger or author
        self.files = None  # a PR's changed files (dicts); None: generated from its number
        self.reviewers, self.review_teams = (), ()  # requested reviews: logins, team slugs
        self.cache = None

    @property
    def is_pr(self) -> bool:
        return self.pr_id is not None


class _Comment:
    __slots__ = (
        "id",
        "issue_number",
        "body",
        "user",
        "created",
        "updated",
        "author_association",
        "extra",
        "reactions",
        "cache",
    )

    def __init__(self, comment_id, issue_number, body, user, created):
        self.id, self.issue_number, self.body, self.user = comment_id, issue_number, body, user
        self.created = self.updated = created
        self.author_association, self.extra, self.cache = "NONE", None, None
        self.reactions = None


class _Reaction:
    """One user's reaction, as the reactions listings and POST .../reactions show it."""

    __slots__ = ("id", "user", "content", "created")

    def __init__(self, reaction_id, user, content, created):
        self.id, self.user, self.content, self.created = reaction_id, user, content, created


class _Repo:
    def __init__(self, full_name: str, repo_id: int, fields: dict):
        self.full_name = full_name
        self.owner, self.name = full_name.split("/")
        self.id = repo_id
        self.fields = fields
        self.issues: dict[int, _Issue] = {}
        self.comments: dict[int, _Comment] = {}
        self.labels: dict[str, dict] = {}
        # who reacted: ("issue", number) or ("comment", id) -> reactions, oldest first
        self.reactions: dict[tuple[str, int], list[_Reaction]] = {}
        # assignable logins (collaborators), lower-cased -> login; empty: everyone
        self.collaborators: dict[str, str] = {}
        # teams with access (review requests), lower-cased slug -> team JSON; empty: any team
        self.teams: dict[str, dict] = {}
        self.next_number = 1
        self._views: dict = {}
        self._by_updated = None
        self._comments_by_updated = None

    def touch(self) -> None:
        """Forget every derived list; call after any change to issues or comments."""
        self._views.clear()
        self._by_updated = None
        self._comments_by_updated = None

    def view(self, key, build):
        found = self._views.get(key)
        if found is None:
            if len(self._views) > 64:
                self._views.clear()
            found = self._views[key] = build()
        return found

    def issues_by_updated(self) -> tuple[list[_Issue], list[int]]:
        if self._by_updated is None:
            ordered = sorted(self.issues.values(), key=attrgetter("updated", "number"))
            self._by_updated = (ordered, [rec.updated for rec in ordered])
        return self._by_updated

    def comments_by_updated(self) -> tuple[list[_Comment], list[int]]:
        if self._comments_by_updated is None:
            ordered = sorted(self.comments.values(), key=attrgetter("updated", "id"))
            self._comments_by_updated = (ordered, [com.updated for com in ordered])
        return self._comments_by_updated


class _Window:
    """items[start:] without copying them: a keyset page costs O(page), not O(remaining)."""

    __slots__ = ("items", "start")

    def __init__(self, items: list, start: int):
        self.items, self.start = items, start

    def __len__(self) -> int:
        return len(self.items) - self.start

    def __getitem__(self, index):
        if not isinstance(index, slice):
            raise TypeError("a window is read in slices")
        first, stop, step = index.indices(len(self))
        return self.items[self.start + first : self.start + stop : step]


def _cached(rec, form: str, build) -> bytes:
    if rec.cache is None:
        rec.cache = {}
    data = rec.cache.get(form)
    if data is None:
        data = rec.cache[form] = _dumps(build())
    return data


def _dumps(obj) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


def _node_id(prefix: str, number: int) -> str:
    return f"{prefix}_kwDO" + base64.b64encode(f"{prefix}{number}".encode()).decode().rstrip("=")


def _sha(*parts) -> str:
    return hashlib.sha1(":".join(map(str, parts)).encode()).hexdigest()


# ---------------------------------------------------------------- JSON shapes

_USER_URLS = (
    ("followers_url", "/followers"),
    ("following_url", "/following{/other_user}"),
    ("gists_url", "/gists{/gist_id}"),
    ("starred_url", "/starred{/owner}{/repo}"),
    ("subscriptions_url", "/subscriptions"),
    ("organizations_url", "/orgs"),
    ("repos_url", "/repos"),
    ("events_url", "/events{/privacy}"),
    ("received_events_url", "/received_events"),
)

_REPO_URLS = (
    ("forks_url", "/forks"),
    ("keys_url", "/keys{/key_id}"),
    ("collaborators_url", "/collaborators{/collaborator}"),
    ("teams_url", "/teams"),
    ("hooks_url", "/hooks"),
    ("issue_events_url", "/issues/events{/number}"),
    ("events_url", "/events"),
    ("assignees_url", "/assignees{/user}"),
    ("branches_url", "/branches{/branch}"),
    ("tags_url", "/tags"),
    ("blobs_url", "/git/blobs{/sha}"),
    ("git_tags_url", "/git/tags{/sha}"),
    ("git_refs_url", "/git/refs{/sha}"),
    ("trees_url", "/git/trees{/sha}"),
    ("statuses_url", "/statuses/{sha}"),
    ("languages_url", "/languages"),
    ("stargazers_url", "/stargazers"),
    ("contributors_url", "/contributors"),
    ("subscribers_url", "/subscribers"),
    ("subscription_url", "/subscription"),
    ("commits_url", "/commits{/sha}"),
    ("git_commits_url", "/git/commits{/sha}"),
    ("comments_url", "/comments{/number}"),
    ("issue_comment_url", "/issues/comments{/number}"),
    ("contents_url", "/contents/{+path}"),
    ("compare_url", "/compare/{base}...{head}"),
    ("merges_url", "/merges"),
    ("archive_url", "/{archive_format}{/ref}"),
    ("downloads_url", "/downloads"),
    ("issues_url", "/issues{/number}"),
    ("pulls_url", "/pulls{/number}"),
    ("milestones_url", "/milestones{/number}"),
    ("notifications_url", "/notifications{?since,all,participating}"),
    ("labels_url", "/labels{/name}"),
    ("releases_url", "/releases{/id}"),
    ("deployments_url", "/deployments"),
)


def user_json(login: str, user_id: int, kind: str = "User") -> dict:
    url = f"{API}/users/{login}"
    user = {
        "login": login,
        "id": user_id,
        "node_id": _node_id("U", user_id),
        "avatar_url": f"https://avatars.githubusercontent.com/u/{user_id}?v=4",
        "gravatar_id": "",
        "url": url,
        "html_url": f"{WEB}/{login}",
    }
    user.update({key: url + suffix for key, suffix in _USER_URLS})
    user.update({"type": kind, "user_view_type": "public", "site_admin": False})
    return user


def repo_json(repo: _Repo, owner: dict, open_issues: int) -> dict:
    url = f"{API}/repos/{repo.full_name}"
    html = f"{WEB}/{repo.full_name}"
    data = {
        "id": repo.id,
        "node_id": _node_id("R", repo.id),
        "name": repo.name,
        "full_name": repo.full_name,
        "private": False,
        "owner": owner,
        "html_url": html,
        "description": f"{repo.name} repository",
        "fork": False,
        "url": url,
    }
    data.update({key: url + suffix for key, suffix in _REPO_URLS})
    data.update(_repo_details(repo, html, open_issues))
    if owner["type"] == "Organization":
        data["organization"] = owner
    data.update(repo.fields)
    return data


def _repo_details(repo: _Repo, html: str, open_issues: int) -> dict:
    return {
        "created_at": "2016-03-14T18:20:43Z",
        "updated_at": "2025-01-06T09:12:00Z",
        "pushed_at": "2025-01-06T09:12:00Z",
        "git_url": f"git://github.com/{repo.full_name}.git",
        "ssh_url": f"git@github.com:{repo.full_name}.git",
        "clone_url": f"{html}.git",
        "svn_url": html,
        "homepage": None,
        "size": 4096,
        "stargazers_count": 42,
        "watchers_count": 42,
        "language": "C++",
        "has_issues": True,
        "has_projects": True,
        "has_downloads": True,
        "has_wiki": True,
        "has_pages": False,
        "has_discussions": False,
        "has_pull_requests": True,
        "forks_count": 7,
        "mirror_url": None,
        "archived": False,
        "disabled": False,
        "open_issues_count": open_issues,
        "license": None,
        "allow_forking": True,
        "is_template": False,
        "web_commit_signoff_required": False,
        "topics": [],
        "visibility": "public",
        "forks": 7,
        "open_issues": open_issues,
        "watchers": 42,
        "default_branch": "main",
        "permissions": {
            "admin": False,
            "maintain": False,
            "push": False,
            "triage": True,
            "pull": True,
        },
        "custom_properties": {},
        "network_count": 7,
        "subscribers_count": 12,
    }


def label_json(repo: _Repo, label_id: int, name: str, color: str, description) -> dict:
    return {
        "id": label_id,
        "node_id": _node_id("LA", label_id),
        "url": f"{API}/repos/{repo.full_name}/labels/{quote(name)}",
        "name": name,
        "color": color,
        "default": name in ("bug", "enhancement", "documentation", "question"),
        "description": description,
    }


_DEPENDENCY_COUNTS = ("blocked_by", "total_blocked_by", "blocking", "total_blocking")
_REACTIONS = ("+1", "-1", "laugh", "hooray", "confused", "heart", "rocket", "eyes")


def reactions_json(url: str, counts: dict | None = None) -> dict:
    """GitHub's reaction rollup: url, total_count, then one count per content."""
    by_content = {content: int((counts or {}).get(content, 0)) for content in _REACTIONS}
    return {"url": f"{url}/reactions", "total_count": sum(by_content.values()), **by_content}


def _reaction_counts(counts) -> dict | None:
    if not counts:
        return None
    unknown = set(counts) - set(_REACTIONS)
    if unknown:
        raise ValueError(f"reactions are one of {', '.join(_REACTIONS)}; got {sorted(unknown)}")
    return {content: int(n) for content, n in counts.items() if n}


def _html_kind(rec: _Issue) -> str:
    return "pull" if rec.is_pr else "issues"


# ---------------------------------------------------------------- data store


class _Store:
    """Repositories, users, ids and the emulated clock. Callers hold the emulator's lock."""

    def __init__(self, login: str):
        self.repos: dict[str, _Repo] = {}
        self.renamed: dict[str, _Repo] = {}  # an old name (lower-cased): the repository now
        self.users: dict[str, dict] = {}
        self._next_user_id = 1
        self._next_id = ITEM_ID_START
        self._clock = 0
        self.login = login
        self.user(login)

    # ids and time
    def new_id(self, count: int = 1) -> int:
        first = self._next_id
        self._next_id += count
        return first

    def tick(self) -> int:
        """A fresh time, later than every time handed out or set so far."""
        self._clock = max(self._clock + 1, int(time.time()))
        return self._clock

    def observe(self, *epochs) -> None:
        self._clock = max([self._clock, *(e for e in epochs if e is not None)])

    def user(self, login: str, kind: str = "User") -> dict:
        found = self.users.get(login)
        if found is None:
            found = self.users[login] = user_json(login, self._next_user_id, kind)
            self._next_user_id += 1
        return found

    # repositories and labels
    def repo(self, full_name: str) -> _Repo | None:
        return self.repos.get(full_name.lower())

    def add_repo(self, full_name: str, fields: dict) -> _Repo:
        if full_name.count("/") != 1:
            raise ValueError(f"repository must be OWNER/NAME, got {full_name!r}")
        existing = self.repo(full_name)
        if existing is not None:
            existing.fields.update(fields)
            existing.touch()
            return existing
        owner_kind = fields.pop("owner_type", "Organization")
        repo = _Repo(full_name, self.new_id(), fields)
        self.user(repo.owner, owner_kind)
        self.repos[full_name.lower()] = repo
        self.renamed.pop(full_name.lower(), None)  # a new repository takes an old name
        return repo

    def rename_repo(self, old: str, new: str) -> _Repo:
        repo = self.repo(old)
        if repo is None:
            raise KeyError(f"no repository {old!r}")
        if new.count("/") != 1 or (self.repo(new) not in (None, repo)):
            raise ValueError(f"cannot rename {old} to {new!r}")
        del self.repos[old.lower()]
        repo.full_name, (repo.owner, repo.name) = new, new.split("/")
        self.user(repo.owner)
        self.repos[new.lower()] = repo
        self.renamed.pop(new.lower(), None)
        if old.lower() != new.lower():
            self.renamed[old.lower()] = repo
        for com in repo.comments.values():
            com.cache = None
        _forget_bytes(repo)
        return repo

    def repo_by_id(self, repo_id: int) -> _Repo | None:
        return next((repo for repo in self.repos.values() if repo.id == repo_id), None)

    def ensure_repo(self, full_name: str) -> _Repo:
        return self.repo(full_name) or self.add_repo(full_name, {})

    def ensure_label(self, repo: _Repo, name: str, color=None, description=None) -> dict:
        key = name.lower()
        label = repo.labels.get(key)
        if label is None or color is not None or description is not None:
            color = color or hashlib.md5(key.encode()).hexdigest()[:6]
            label_id = label["id"] if label else self.new_id()
            changed = label is not None
            label = repo.labels[key] = label_json(repo, label_id, name, color, description)
            if changed:
                _forget_bytes(repo)
        return label

    # issues and pulls
    def issue(self, repo: _Repo, number: int) -> _Issue:
        rec = repo.issues.get(number)
        if rec is None:
            raise KeyError(f"{repo.full_name}#{number} does not exist")
        return rec

    def claim_number(self, repo: _Repo, number: int | None) -> int:
        if number is None:
            number = repo.next_number
        elif number in repo.issues:
            raise ValueError(f"{repo.full_name}#{number} already exists")
        repo.next_number = max(repo.next_number, number + 1)
        return number

    def repo_bytes(self, repo: _Repo) -> bytes:
        def build():
            open_count = sum(1 for rec in repo.issues.values() if rec.state == "open")
            return [_dumps(repo_json(repo, self.users[repo.owner], open_count))]

        return repo.view("repo", build)[0]

    def repo_dict(self, repo: _Repo) -> dict:
        return repo.view("repo-dict", lambda: repo_json(repo, self.users[repo.owner], 0))

    def issue_bytes(self, repo: _Repo, rec: _Issue, single: bool = False) -> bytes:
        if single:
            return _cached(rec, "issue-single", lambda: self.single_issue_dict(repo, rec))
        return _cached(rec, "issue", lambda: self.issue_dict(repo, rec))

    def single_issue_dict(self, repo: _Repo, rec: _Issue) -> dict:
        """GET /issues/N adds who closed it to the listing form."""
        issue = self.issue_dict(repo, rec)
        closer = (rec.closed_by or rec.merged_by or rec.user) if rec.state == "closed" else None
        issue["closed_by"] = self.user(closer) if closer else None
        return issue

    def pull_bytes(self, repo: _Repo, rec: _Issue, full: bool) -> bytes:
        form = "pull" if full else "pull-list"
        return _cached(rec, form, lambda: self.pull_dict(repo, rec, full))

    def comment_bytes(self, repo: _Repo, com: _Comment) -> bytes:
        return _cached(com, "comment", lambda: self.comment_dict(repo, com))

    def issue_dict(self, repo: _Repo, rec: _Issue) -> dict:
        base = f"{API}/repos/{repo.full_name}"
        url = f"{base}/issues/{rec.number}"
        assignees = [self.user(login) for login in rec.assignees]
        issue = {
            "url": url,
            "repository_url": base,
            "labels_url": url + "/labels{/name}",
            "comments_url": url + "/comments",
            "events_url": url + "/events",
            "html_url": f"{WEB}/{repo.full_name}/{_html_kind(rec)}/{rec.number}",
            "id": rec.id,
            "node_id": _node_id("PR" if rec.is_pr else "I", rec.id),
            "number": rec.number,
            "title": rec.title,
            "user": self.user(rec.user),
            "labels": [repo.labels[name.lower()] for name in rec.labels],
            "state": rec.state,
            "locked": rec.locked,
            "assignee": assignees[0] if assignees else None,
            "assignees": assignees,
            "milestone": None,
            "comments": rec.comments,
            "created_at": iso(rec.created),
            "updated_at": iso(rec.updated),
            "closed_at": iso(rec.closed),
            "author_association": rec.author_association,
            "type": None,
            "active_lock_reason": rec.lock_reason if rec.locked else None,
            "sub_issues_summary": {"total": 0, "completed": 0, "percent_completed": 0},
            "issue_dependencies_summary": dict.fromkeys(_DEPENDENCY_COUNTS, 0),
        }
        if rec.is_pr:
            issue["draft"] = rec.draft
            issue["pull_request"] = self._pull_links(repo, rec)
        issue["body"] = rec.body
        issue["reactions"] = reactions_json(url, rec.reactions)
        issue["timeline_url"] = url + "/timeline"
        issue["performed_via_github_app"] = None
        issue["state_reason"] = rec.state_reason
        issue.update(rec.extra or {})
        return issue

    def _pull_links(self, repo: _Repo, rec: _Issue) -> dict:
        html = f"{WEB}/{repo.full_name}/pull/{rec.number}"
        return {
            "url": f"{API}/repos/{repo.full_name}/pulls/{rec.number}",
            "html_url": html,
            "diff_url": html + ".diff",
            "patch_url": html + ".patch",
            "merged_at": iso(rec.merged_at),
        }

    def pull_dict(self, repo: _Repo, rec: _Issue, full: bool) -> dict:
        base = f"{API}/repos/{repo.full_name}"
        url = f"{base}/pulls/{rec.number}"
        html = f"{WEB}/{repo.full_name}/pull/{rec.number}"
        issue_url = f"{base}/issues/{rec.number}"
        head_sha = self.commit_list(repo, rec)[-1][0]
        assignees = [self.user(login) for login in rec.assignees]
        pull = {
            "url": url,
            "id": rec.pr_id,
            "node_id": _node_id("PR", rec.pr_id),
            "html_url": html,
            "diff_url": html + ".diff",
            "patch_url": html + ".patch",
            "issue_url": issue_url,
            "number": rec.number,
            "state": rec.state,
            "locked": rec.locked,
            "title": rec.title,
            "user": self.user(rec.user),
            "body": rec.body,
            "created_at": iso(rec.created),
            "updated_at": iso(rec.updated),
            "closed_at": iso(rec.closed),
            "merged_at": iso(rec.merged_at),
            "merge_commit_sha": rec.merge_commit_sha,
            "assignee": assignees[0] if assignees else None,
            "assignees": assignees,
            "requested_reviewers": [self.user(login) for login in rec.reviewers],
            "requested_teams": [repo.teams[slug.lower()] for slug in rec.review_teams],
            "labels": [repo.labels[name.lower()] for name in rec.labels],
            "milestone": None,
            "draft": rec.draft,
            "commits_url": url + "/commits",
            "review_comments_url": url + "/comments",
            "review_comment_url": base + "/pulls/comments{/number}",
            "comments_url": issue_url + "/comments",
            "statuses_url": f"{base}/statuses/{head_sha}",
            "head": self._branch(repo, rec.head, head_sha),
            "base": self._branch(repo, rec.base, _sha(repo.full_name, rec.base, "base")),
            "_links": _pull_hrefs(base, url, html, issue_url, head_sha),
            "author_association": rec.author_association,
            "auto_merge": None,
            "active_lock_reason": None,
        }
        if full:
            pull.update(self._pull_details(repo, rec))
        pull.update(rec.extra or {})
        return pull

    def commit_list(self, repo: _Repo, rec: _Issue) -> list[tuple[str, str]]:
        """(sha, message) of a PR's commits, oldest first; the last is its head."""
        if rec.commits is not None:
            return [
                (_sha(repo.full_name, rec.number, index, message), message)
                for index, message in enumerate(rec.commits)
            ]
        count = 1 + rec.number % 7
        messages = [f"{rec.title}\n\n{rec.body or ''}".rstrip()]
        messages += [_REVIEW_COMMITS[i % len(_REVIEW_COMMITS)] for i in range(count - 1)]
        shas = [_sha(repo.full_name, rec.number, "commit", i) for i in range(count - 1)]
        shas.append(_sha(repo.full_name, rec.number, "head"))
        return list(zip(shas, messages, strict=True))

    def commit_dict(self, repo: _Repo, rec: _Issue, index: int) -> dict:
        """One entry of GET /repos/O/N/pulls/N/commits, in GitHub's shape."""
        commits = self.commit_list(repo, rec)
        sha, message = commits[index]
        base = f"{API}/repos/{repo.full_name}"
        parent = commits[index - 1][0] if index else _sha(repo.full_name, rec.base, "base")
        when = iso(rec.created + index)
        person = {"name": rec.user, "email": f"{rec.user}@users.noreply.github.com", "date": when}
        return {
            "sha": sha,
            "node_id": _node_id("C", int(sha[:8], 16)),
            "commit": {
                "author": person,
                "committer": dict(person, name="GitHub", email="noreply@github.com"),
                "message": message,
                "tree": {"sha": _sha(sha, "tree"), "url": f"{base}/git/trees/{_sha(sha, 'tree')}"},
                "url": f"{base}/git/commits/{sha}",
                "comment_count": 0,
                "verification": {
                    "verified": False,
                    "reason": "unsigned",
                    "signature": None,
                    "payload": None,
                    "verified_at": None,
                },
            },
            "url": f"{base}/commits/{sha}",
            "html_url": f"{WEB}/{repo.full_name}/commit/{sha}",
            "comments_url": f"{base}/commits/{sha}/comments",
            "author": self.user(rec.user),
            "committer": {**self.user("web-flow"), "type": "User"},
            "parents": [
                {
                    "sha": parent,
                    "url": f"{base}/commits/{parent}",
                    "html_url": f"{WEB}/{repo.full_name}/commit/{parent}",
                }
            ],
        }

    def _pull_details(self, repo: _Repo, rec: _Issue) -> dict:
        is_open = rec.state == "open"
        return {
            "merged": rec.merged,
            "mergeable": True if is_open else None,
            "rebaseable": True if is_open else None,
            "mergeable_state": "clean" if is_open else "unknown",
            "merged_by": self.user(rec.merged_by) if rec.merged_by else None,
            "comments": rec.comments,
            "review_comments": 0,
            "maintainer_can_modify": False,
            "commits": len(self.commit_list(repo, rec)),
            "additions": sum(f["additions"] for f in self.file_list(repo, rec)),
            "deletions": sum(f["deletions"] for f in self.file_list(repo, rec)),
            "changed_files": len(self.file_list(repo, rec)),
        }

    def file_list(self, repo: _Repo, rec: _Issue) -> list[dict]:
        """A PR's changed files ({filename, status, additions, deletions, previous_filename}),
        as given, else a few generated from its number."""
        if rec.files is not None:
            return list(rec.files)
        n = rec.number
        return [
            _file_entry(
                f"src/module{(n + i) % 5}/file{i}.cpp", "modified", 10 + (n * 37 + i) % 90, i
            )
            for i in range(1 + n % 12)
        ]

    def file_dict(self, repo: _Repo, rec: _Issue, entry: dict) -> dict:
        """One entry of GET /repos/O/N/pulls/N/files, in GitHub's shape."""
        head = self.commit_list(repo, rec)[-1][0]
        name = entry["filename"]
        path = quote(name)
        found = {
            "sha": _sha(repo.full_name, head, name),
            "filename": name,
            "status": entry["status"],
            "additions": entry["additions"],
            "deletions": entry["deletions"],
            "changes": entry["additions"] + entry["deletions"],
            "blob_url": f"{WEB}/{repo.full_name}/blob/{head}/{path}",
            "raw_url": f"{WEB}/{repo.full_name}/raw/{head}/{path}",
            "contents_url": f"{API}/repos/{repo.full_name}/contents/{path}?ref={head}",
        }
        if entry["additions"] + entry["deletions"]:  # none for a pure rename, as on GitHub
            lines = "\n".join(["+"] * entry["additions"] + ["-"] * entry["deletions"])
            found["patch"] = f"@@ -1,{entry['deletions']} +1,{entry['additions']} @@\n{lines}"
        if entry.get("previous_filename"):
            found["previous_filename"] = entry["previous_filename"]
        return found

    def _branch(self, repo: _Repo, ref: str, sha: str) -> dict:
        return {
            "label": f"{repo.owner}:{ref}",
            "ref": ref,
            "sha": sha,
            "user": self.users[repo.owner],
            "repo": self.repo_dict(repo),
        }

    def comment_dict(self, repo: _Repo, com: _Comment) -> dict:
        base = f"{API}/repos/{repo.full_name}"
        url = f"{base}/issues/comments/{com.id}"
        issue = repo.issues.get(com.issue_number)
        kind = _html_kind(issue) if issue else "issues"
        comment = {
            "url": url,
            "html_url": f"{WEB}/{repo.full_name}/{kind}/{com.issue_number}#issuecomment-{com.id}",
            "issue_url": f"{base}/issues/{com.issue_number}",
            "id": com.id,
            "node_id": _node_id("IC", com.id),
            "user": self.user(com.user),
            "created_at": iso(com.created),
            "updated_at": iso(com.updated),
            "body": com.body,
            "author_association": com.author_association,
            "reactions": reactions_json(url, com.reactions),
            "performed_via_github_app": None,
        }
        comment.update(com.extra or {})
        return comment

    def reaction_dict(self, reaction: _Reaction) -> dict:
        return {
            "id": reaction.id,
            "node_id": _node_id("REA", reaction.id),
            "user": self.user(reaction.user),
            "content": reaction.content,
            "created_at": iso(reaction.created),
        }

    def react(self, repo: _Repo, target, key: tuple, user: str, content: str):
        """`user` reacts with `content` to `target` (an issue or comment; `key` names it in
        repo.reactions): (the reaction, True) or, when they already had, (that one, False).
        The rollup counts follow; updated_at does not move, as on GitHub."""
        if content not in _REACTIONS:
            raise ValueError(f"reactions are one of {', '.join(_REACTIONS)}; got {content!r}")
        found = repo.reactions.setdefault(key, [])
        for reaction in found:
            if reaction.user.lower() == user.lower() and reaction.content == content:
                return reaction, False
        reaction = _Reaction(self.new_id(), user, content, self.tick())
        found.append(reaction)
        self.count_reaction(repo, target, content)
        return reaction, True

    @staticmethod
    def count_reaction(repo: _Repo, target, content: str) -> None:
        counts = dict(target.reactions or {})
        counts[content] = counts.get(content, 0) + 1
        target.reactions = _reaction_counts(counts)
        target.cache = None
        repo.touch()

    @staticmethod
    def assignable(repo: _Repo, login: str) -> str | None:
        """The login as GitHub spells it when it may be assigned in `repo`, else None; a
        repository without collaborators configured takes every login."""
        if not repo.collaborators:
            return login
        return repo.collaborators.get(login.lower())


_FILE_STATUSES = ("added", "removed", "modified", "renamed", "copied", "changed", "unchanged")


def _file_entry(filename, status="modified", additions=1, deletions=0, previous_filename=None):
    if status not in _FILE_STATUSES:
        raise ValueError(f"a file's status is one of {', '.join(_FILE_STATUSES)}; got {status!r}")
    entry = {"filename": filename, "status": status, "additions": additions}
    entry["deletions"] = deletions
    if previous_filename:
        entry["previous_filename"] = previous_filename
    return entry


def _file_entries(files) -> tuple:
    """Files as add_pull takes them: a path (modified, one line added) or a dict of
    _file_entry's arguments (a rename: status "renamed" and previous_filename)."""
    return tuple(
        _file_entry(item) if isinstance(item, str) else _file_entry(**item) for item in files
    )


def _team_json(repo: _Repo, team_id: int, slug: str, name: str) -> dict:
    org = repo.owner
    url = f"{API}/organizations/{team_id // 1000}/team/{team_id}"
    return {
        "id": team_id,
        "node_id": _node_id("T", team_id),
        "url": url,
        "html_url": f"{WEB}/orgs/{org}/teams/{slug}",
        "name": name,
        "slug": slug,
        "description": None,
        "privacy": "closed",
        "notification_setting": "notifications_enabled",
        "permission": "push",
        "members_url": url + "/members{/member}",
        "repositories_url": url + "/repos",
        "parent": None,
    }


def _pull_hrefs(base: str, url: str, html: str, issue_url: str, head_sha: str) -> dict:
    links = {
        "self": url,
        "html": html,
        "issue": issue_url,
        "comments": issue_url + "/comments",
        "review_comments": url + "/comments",
        "review_comment": base + "/pulls/comments{/number}",
        "commits": url + "/commits",
        "statuses": f"{base}/statuses/{head_sha}",
    }
    return {name: {"href": href} for name, href in links.items()}


def _forget_bytes(repo: _Repo) -> None:
    for rec in repo.issues.values():
        rec.cache = None
    repo.touch()


# ---------------------------------------------------------------- a GitHub App's installations

APP_PERMISSIONS = {
    "metadata": "read",
    "issues": "write",
    "pull_requests": "write",
    "contents": "read",
    "repository_hooks": "read",
}
APP_EVENTS = ("issues", "issue_comment", "pull_request", "label", "repository")
TOKEN_LIFETIME_S = 3600  # GitHub's installation tokens last an hour
INSTALLATION_RATE_MIN, INSTALLATION_RATE_MAX = 5000, 12500  # requests an hour
_NOT_FOR_INTEGRATIONS = "Resource not accessible by integration"
_NOT_GRANTED = "The permissions requested are not granted to this installation."
_LEVELS = {"read": 1, "write": 2}
_INSTALLATION_ROUTES = frozenset({"/rate_limit", "/installation/repositories"})
_WRITE_PERMISSIONS = (("/hooks", "repository_hooks"), ("/pulls", "pull_requests"), ("", "issues"))


class _Installation:
    """The App installed on an account: all its repositories, or the ones chosen (by id, so a
    rename keeps them)."""

    def __init__(self, installation_id: int, account: dict, repo_ids, permissions, events):
        self.id, self.account = installation_id, account
        self.repo_ids: set[int] | None = None if repo_ids is None else set(repo_ids)
        self.permissions, self.events = dict(permissions), tuple(events)
        self.created = int(time.time())
        self.members = 0  # the organization's users (its budget grows past 20 of them)
        self.rate = _RateLimit(INSTALLATION_RATE_MIN)

    def rate_limit(self, repositories: int) -> int:
        """GitHub's rule for an installation's hourly budget: 5,000, plus 50 for each repository
        past 20 and 50 for each of the organization's users past 20, at most 12,500."""
        grown = 50 * max(0, repositories - 20) + 50 * max(0, self.members - 20)
        return min(INSTALLATION_RATE_MAX, INSTALLATION_RATE_MIN + grown)

    def holds(self, repo: _Repo) -> bool:
        if self.repo_ids is None:
            return repo.owner.lower() == self.account["login"].lower()
        return repo.id in self.repo_ids

    def allows(self, method: str, route: str, permissions: dict | None = None) -> bool:
        """A write needs the permission of its kind at "write" (issues for the issue routes), in
        the permissions its token was issued with (GitHub's: fixed when the token is made)."""
        if method in ("GET", "HEAD"):
            return True
        needed = next(name for part, name in _WRITE_PERMISSIONS if part in route)
        return (self.permissions if permissions is None else permissions).get(needed) == "write"


class _Apps:
    """The App's installations and the installation tokens issued; callers hold the lock."""

    def __init__(self, store: _Store, hooks: HookStore):
        self.store, self.hooks = store, hooks
        self.installations: dict[int, _Installation] = {}
        self.tokens: dict[str, tuple[int, int]] = {}  # token: (installation id, expires epoch)
        self.token_permissions: dict[str, dict] = {}  # token: the permissions it was issued with
        self.token_lifetime_s = TOKEN_LIFETIME_S
        self.slug = "triage-bot"
        self.rate = _RateLimit(INSTALLATION_RATE_MIN)  # what the App spends with its JWT

    def add(self, account: str, repos, permissions, events) -> _Installation:
        owner = self.store.user(account, "Organization")  # an existing user stays one
        repo_ids = None if repos is None else [self.store.ensure_repo(r).id for r in repos]
        found = _Installation(self.store.new_id(), owner, repo_ids, permissions, events)
        self.installations[found.id] = found
        return found

    def rate_of(self, installation: _Installation) -> _RateLimit:
        """The installation's budget, its limit grown (or shrunk) with its repositories now."""
        held = sum(installation.holds(repo) for repo in self.store.repos.values())
        rate, limit = installation.rate, installation.rate_limit(held)
        if limit != rate.limit:
            rate.remaining = max(0, rate.remaining + limit - rate.limit)
            rate.limit = limit
        return rate

    def of_repo(self, repo: _Repo) -> _Installation:
        for installation in self.installations.values():
            if installation.holds(repo):
                return installation
        raise _HttpError(404, "Not Found")

    def get(self, installation_id) -> _Installation:
        found = self.installations.get(int(installation_id))
        if found is None:
            raise _HttpError(404, "Not Found")
        return found

    def issue_token(self, installation: _Installation, permissions: dict) -> tuple[str, int]:
        token = "ghs_" + secrets.token_hex(18)
        expires = int(time.time()) + self.token_lifetime_s
        self.tokens[token] = (installation.id, expires)
        self.token_permissions[token] = dict(permissions)
        return token, expires

    def holder(self, token: str) -> _Installation | None:
        """The installation whose unexpired token this is; None otherwise."""
        installation_id, expires = self.tokens.get(token, (None, 0))
        if installation_id is None or expires <= time.time():
            return None
        return self.installations.get(installation_id)

    def expire(self, installation_id: int) -> None:
        for token, (holder, _) in list(self.tokens.items()):
            if holder == installation_id:
                self.tokens[token] = (holder, 0)

    def installation_json(self, installation: _Installation) -> dict:
        stamp = iso(installation.created)
        account = installation.account
        settings_path = "organizations/" if account["type"] == "Organization" else ""
        return {
            "id": installation.id,
            "client_id": f"Iv1.{installation.id:016x}",
            "account": account,
            "repository_selection": "all" if installation.repo_ids is None else "selected",
            "access_tokens_url": f"{API}/app/installations/{installation.id}/access_tokens",
            "repositories_url": f"{API}/installation/repositories",
            "html_url": f"{WEB}/{settings_path}{account['login']}/settings/installations/"
            f"{installation.id}",
            "app_id": int(self.hooks.app_id or 0),
            "app_slug": self.slug,
            "target_id": account["id"],
            "target_type": account["type"],
            "permissions": installation.permissions,
            "events": list(installation.events),
            "created_at": stamp,
            "updated_at": stamp,
            "single_file_name": None,
            "has_multiple_single_files": False,
            "single_file_paths": [],
            "suspended_by": None,
            "suspended_at": None,
        }

    def app_json(self) -> dict:
        app_id = int(self.hooks.app_id or 0)
        return {
            "id": app_id,
            "client_id": f"Iv1.{app_id:016x}",
            "slug": self.slug,
            "node_id": _node_id("A", app_id),
            "owner": self.store.user(self.store.login),
            "name": self.slug,
            "description": "",
            "external_url": "",
            "html_url": f"{WEB}/apps/{self.slug}",
            "created_at": iso(0),
            "updated_at": iso(0),
            "permissions": APP_PERMISSIONS,
            "events": list(APP_EVENTS),
            "installations_count": len(self.installations),
        }


# ---------------------------------------------------------------- list views


_ISSUE_SORT_KEYS = {
    "created": attrgetter("created", "number"),
    "updated": attrgetter("updated", "number"),
    "comments": attrgetter("comments", "number"),
}
_PULL_SORT_KEYS = {
    "created": attrgetter("created", "number"),
    "updated": attrgetter("updated", "number"),
    "popularity": attrgetter("comments", "number"),
    "long-running": attrgetter("created", "number"),
}
_COMMENT_SORT_KEYS = {
    "created": attrgetter("created", "id"),
    "updated": attrgetter("updated", "id"),
}


def _in_state(rec: _Issue, state: str) -> bool:
    return state == "all" or rec.state == state


def _has_labels(rec: _Issue, labels: frozenset) -> bool:
    return not labels or labels <= {name.lower() for name in rec.labels}


def issue_view(repo: _Repo, state, sort, direction, labels, since):
    if sort == "updated" and direction == "asc" and state == "all" and not labels:
        ordered, keys = repo.issues_by_updated()  # the sync's keyset listing
        return _Window(ordered, 0 if since is None else bisect.bisect_left(keys, since))

    def build():
        if sort == "updated":
            ordered, keys = repo.issues_by_updated()
            start = 0 if since is None else bisect.bisect_left(keys, since)
            candidates = ordered[start:]
        else:
            candidates = [r for r in repo.issues.values() if since is None or r.updated >= since]
            candidates.sort(key=_ISSUE_SORT_KEYS[sort])
        if state != "all" or labels:
            candidates = [r for r in candidates if _in_state(r, state) and _has_labels(r, labels)]
        return candidates[::-1] if direction == "desc" else candidates

    return repo.view(("issues", state, sort, direction, labels, since), build)


def pull_view(repo: _Repo, state, sort, direction) -> list[_Issue]:
    def build():
        found = [r for r in repo.issues.values() if r.is_pr and _in_state(r, state)]
        found.sort(key=_PULL_SORT_KEYS[sort], reverse=direction == "desc")
        return found

    return repo.view(("pulls", state, sort, direction), build)


def comment_view(repo: _Repo, issue_number, sort, direction, since):
    if issue_number is None and sort == "updated" and direction == "asc":
        ordered, keys = repo.comments_by_updated()  # the sync's keyset listing
        return _Window(ordered, 0 if since is None else bisect.bisect_left(keys, since))

    def build():
        found = [
            c
            for c in repo.comments.values()
            if (issue_number is None or c.issue_number == issue_number)
            and (since is None or c.updated >= since)
        ]
        found.sort(key=_COMMENT_SORT_KEYS[sort], reverse=direction == "desc")
        return found

    return repo.view(("comments", issue_number, sort, direction, since), build)


# ---------------------------------------------------------------- bulk data

_COMPONENTS = (
    "rocBLAS",
    "hipBLASLt",
    "MIOpen",
    "RCCL",
    "the HIP runtime",
    "rocm-smi",
    "composable_kernel",
    "the Triton AMD backend",
    "rocFFT",
    "PyTorch on ROCm",
    "the amdgpu driver",
    "rocprofv3",
    "hipcc",
)
_ARCHS = ("gfx942", "gfx90a", "gfx1100", "gfx1030", "gfx908", "gfx1201")
_GPUS = {
    "gfx942": "AMD Instinct MI300X",
    "gfx90a": "AMD Instinct MI250X",
    "gfx1100": "Radeon RX 7900 XTX",
    "gfx1030": "Radeon PRO W6800",
    "gfx908": "AMD Instinct MI100",
    "gfx1201": "Radeon RX 9070 XT",
}
_VERSIONS = ("6.0.2", "6.1.3", "6.2.0", "6.2.4", "6.3.1", "6.4.0")
_SYMPTOMS = (
    "Segfault in",
    "Hang in",
    "Wrong results from",
    "NaN outputs from",
    "Performance regression in",
    "Build failure in",
    "hipErrorNoBinaryForGpu from",
    "Memory access fault in",
)
_OPS = (
    "GEMM",
    "batched GEMM",
    "conv2d backward",
    "all-reduce",
    "flash attention",
    "FFT plan creation",
    "softmax",
    "layer norm",
)
_LABELS = (
    ("bug", "d73a4a", "Something isn't working"),
    ("enhancement", "a2eeef", "New feature or request"),
    ("documentation", "0075ca", "Improvements or additions to documentation"),
    ("question", "d876e3", "Further information is requested"),
    ("performance", "fbca04", "Slower than it should be"),
    ("build", "c5def5", "Compilation, packaging or installation"),
    ("needs repro", "e99695", "Waiting for a reproducer"),
    ("gfx942", "5319e7", "MI300 series"),
    ("gfx90a", "5319e7", "MI200 series"),
    ("gfx1100", "5319e7", "RDNA3"),
)
_USERS = tuple(
    f"{first}-{last}"
    for first in ("ada", "bo", "chen", "dana", "eli", "fay", "gus")
    for last in ("hip", "gpu", "rocm")
)
_ISSUE_BODY = """### Problem Description
{symptom} {component} ({op}) on {arch}.

### Operating System
Ubuntu 22.04.4 LTS (Jammy Jellyfish)

### GPU
{gpu}

### ROCm Version
ROCm {version}

### Steps to Reproduce
```python
import torch
x = torch.randn({m}, {m}, device="cuda")
print((x @ x.T).sum())
```
"""
_REVIEW_COMMITS = ("Address review comments", "Fix formatting", "Add a regression test")
_PR_BODY = "Fixes #{target}.\n\n{symptom} {component} ({op}) on {arch}: guard the tile size."
_COMMENT_BODIES = (
    "Can you share the output of `rocminfo` and `hipconfig --full`?",
    "Reproduced on {arch} with ROCm {version}.",
    "This should be fixed in ROCm {version}; please retest.",
    "Same here on {arch}.",
    "Closing as fixed, please reopen if you still see it.",
)


class _BulkGenerator:
    """Realistic GPU-stack history for one repository, deterministic for a seed."""

    def __init__(self, store: _Store, repo: _Repo, seed: int):
        self.store, self.repo, self.rng = store, repo, random.Random(seed)
        self.used_updates: set[int] = set()
        for name, color, description in _LABELS:
            store.ensure_label(repo, name, color, description)

    def run(self, n_issues: int, n_comments: int, pr_every: int) -> None:
        first_id = self.store.new_id(n_issues)
        for offset in range(n_issues):
            number = self.store.claim_number(self.repo, None)
            is_pr = bool(pr_every) and number % pr_every == 0
            rec = self._record(number, first_id + offset, offset, is_pr)
            self.repo.issues[number] = rec
            self._add_comments(rec, n_comments)
            self.store.observe(rec.updated)
        self.repo.touch()

    def _record(self, number: int, issue_id: int, offset: int, is_pr: bool) -> _Issue:
        rng = self.rng
        words = {
            "symptom": rng.choice(_SYMPTOMS),
            "component": rng.choice(_COMPONENTS),
            "op": rng.choice(_OPS),
            "arch": rng.choice(_ARCHS),
            "version": rng.choice(_VERSIONS),
        }
        created = BULK_EPOCH + offset * 600 + rng.randrange(600)
        rec = _Issue(number, issue_id, "", "", rng.choice(_USERS), created)
        rec.updated = self._distinct_update(created + rng.randrange(1, 90 * 86400))
        rec.labels = self._labels(words["arch"])
        if number % 4 == 0:  # some reach: "+1"s, a few hearts and eyes
            rec.reactions = _reaction_counts(
                {"+1": 1 + number % 9, "heart": number % 3, "eyes": number % 2}
            )
        if is_pr:
            self._make_pull(rec, words)
        else:
            self._make_issue(rec, words)
        return rec

    def _make_issue(self, rec: _Issue, words: dict) -> None:
        rec.title = "{symptom} {component} {op} on {arch} (ROCm {version})".format(**words)
        gpu = _GPUS[words["arch"]]
        rec.body = _ISSUE_BODY.format(gpu=gpu, m=1024 * (1 + rec.number % 8), **words)
        if self.rng.random() < 0.6:
            rec.state, rec.state_reason, rec.closed = "closed", "completed", rec.updated

    def _make_pull(self, rec: _Issue, words: dict) -> None:
        rec.pr_id = self.store.new_id()
        rec.title = "Fix {op} in {component} on {arch}".format(**words)
        rec.body = _PR_BODY.format(target=max(1, rec.number - 3), **words)
        rec.head = f"fix/{words['arch']}-{rec.number}"
        rec.labels = ()
        roll = self.rng.random()
        if roll < 0.75:
            rec.state, rec.closed = "closed", rec.updated
        if roll < 0.6:
            rec.merged, rec.merged_at, rec.merged_by = True, rec.updated, _USERS[0]
            rec.merge_commit_sha = _sha(self.repo.full_name, rec.number, "merge")

    def _labels(self, arch: str) -> tuple:
        kind = _LABELS[self.rng.randrange(7)][0]
        return (kind, arch) if arch in ("gfx942", "gfx90a", "gfx1100") else (kind,)

    def _distinct_update(self, epoch: int) -> int:
        while epoch in self.used_updates:
            epoch += 1
        self.used_updates.add(epoch)
        return epoch

    def _add_comments(self, rec: _Issue, count: int) -> None:
        if not count:
            return
        first_id = self.store.new_id(count)
        step = max(1, (rec.updated - rec.created) // (count + 1))
        for index in range(count):
            text = self.rng.choice(_COMMENT_BODIES).format(arch="gfx942", version="6.3.1")
            created = rec.created + step * (index + 1)
            com = _Comment(first_id + index, rec.number, text, self.rng.choice(_USERS), created)
            self.repo.comments[com.id] = com
        rec.comments = count


# ---------------------------------------------------------------- rate limit and faults


class _RateLimit:
    def __init__(self, limit: int):
        self.limit = limit
        self.reset()

    def reset(self) -> None:
        self.remaining = self.limit
        self.reset_at = int(time.time()) + 3600

    def set(self, remaining: int, reset_at: int | None) -> None:
        self.remaining = max(0, remaining)
        self.reset_at = int(reset_at) if reset_at is not None else int(time.time()) + 3600

    def roll_window(self) -> None:
        if time.time() >= self.reset_at:
            self.reset()

    def consume(self) -> None:
        self.remaining = max(0, self.remaining - 1)

    def headers(self, remaining: int | None = None, reset_at: int | None = None) -> list:
        remaining = self.remaining if remaining is None else remaining
        return [
            ("x-ratelimit-limit", str(self.limit)),
            ("x-ratelimit-remaining", str(remaining)),
            ("x-ratelimit-used", str(self.limit - remaining)),
            ("x-ratelimit-reset", str(self.reset_at if reset_at is None else reset_at)),
            ("x-ratelimit-resource", "core"),
        ]

    def body(self) -> dict:
        core = {
            "limit": self.limit,
            "used": self.limit - self.remaining,
            "remaining": self.remaining,
            "reset": self.reset_at,
        }
        fresh = int(time.time()) + 3600
        search = {"limit": 30, "used": 0, "remaining": 30, "reset": int(time.time()) + 60}
        graphql = {"limit": 5000, "used": 0, "remaining": 5000, "reset": fresh}
        return {"resources": {"core": core, "search": search, "graphql": graphql}, "rate": core}


class _Fault:
    __slots__ = ("status", "skip", "times", "path_contains", "retry_after", "body", "limited")

    def __init__(self, status, skip, times, path_contains, retry_after, body, limited=True):
        self.status, self.skip, self.times = status, skip, times
        self.path_contains, self.retry_after, self.body = path_contains, retry_after, body
        self.limited = limited  # a 403/429 that is a rate limit (remaining 0), or a refusal

    def matches(self, path: str) -> bool:
        return self.path_contains is None or self.path_contains in path

    def spent(self) -> bool:
        return self.times is not None and self.times <= 0


class _Faults:
    def __init__(self):
        self.pending: list[_Fault] = []

    def take(self, path: str) -> _Fault | None:
        """Count this request against every matching fault; return the one that fires."""
        fired = None
        for fault in self.pending:
            if not fault.matches(path):
                continue
            if fault.skip > 0:
                fault.skip -= 1
            elif fired is None:
                fired = fault
                if fault.times is not None:
                    fault.times -= 1
        self.pending = [fault for fault in self.pending if not fault.spent()]
        return fired


_RATE_LIMIT_BODY = {
    "message": "API rate limit exceeded for user ID 1.",
    "documentation_url": RATE_DOCS_URL,
}
_FAULT_BODIES = {
    403: _RATE_LIMIT_BODY,
    429: {
        "message": "You have exceeded a secondary rate limit. "
        "Please wait a few minutes before you try again.",
        "documentation_url": SECONDARY_DOCS_URL,
    },
    500: {"message": "Server Error"},
    502: {"message": "Server Error"},
    503: {"message": "Service Unavailable"},
}


# ---------------------------------------------------------------- HTTP plumbing


class _HttpError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


class _Moved(Exception):
    """A renamed repository's old URL: GitHub's redirect to the repository by id."""

    def __init__(self, status: int, location: str):
        super().__init__(location)
        self.status, self.location = status, location


class _Request:
    __slots__ = (
        "method",
        "path",
        "route",
        "query",
        "origin",
        "headers",
        "body",
        "installation",
        "token_permissions",
        "grant",
    )

    def __init__(self, method, path, route, query, origin, headers, body=b"", installation=None):
        self.method, self.path, self.route, self.query = method, path, route, query
        self.grant: Grant | None = None  # an OAuth user's token: whose, with which scopes
        self.origin, self.headers, self.body = origin, headers, body
        self.installation = installation  # an installation token's _Installation, else None
        self.token_permissions: dict | None = None  # what that token was issued with

    def json(self):
        """The request's JSON body; 400 as GitHub answers when it does not parse."""
        try:
            return json.loads(self.body or b"null")
        except ValueError:
            raise _HttpError(400, "Problems parsing JSON") from None


def _choice(query: dict, name: str, allowed: tuple, default: str) -> str:
    value = query.get(name) or default
    if value not in allowed:
        raise _HttpError(422, "Validation Failed")
    return value


def _since(query: dict) -> int | None:
    text = query.get("since")
    if not text:
        return None
    try:
        return to_epoch(text)
    except ValueError:
        raise _HttpError(422, "Validation Failed") from None


def _label_filter(query: dict) -> frozenset:
    text = query.get("labels") or ""
    return frozenset(name.strip().lower() for name in text.split(",") if name.strip())


_STATE_REASONS = ("completed", "not_planned", "duplicate", "reopened")
_LOCK_REASONS = ("off-topic", "too heated", "resolved", "spam")


def _issue_state(rec: _Issue) -> tuple:
    return (rec.title, rec.body, rec.state, rec.state_reason, rec.labels, rec.assignees)


def _field(data, name: str):
    return data.get(name) if isinstance(data, dict) else None


def _label_names(data) -> list[str]:
    """{"labels": [...]} or a bare list, of names or {"name": ...}; 422 otherwise."""
    names = data.get("labels") if isinstance(data, dict) else data
    if not isinstance(names, list):
        raise _HttpError(422, "Validation Failed")
    found = [item.get("name") if isinstance(item, dict) else item for item in names]
    if not all(isinstance(label, str) and label.strip() for label in found):
        raise _HttpError(422, "Validation Failed")
    return found


def _logins(value) -> list[str]:
    """A list of logins; missing (None) is none; 422 for anything else."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise _HttpError(422, "Validation Failed")
    return value


def _int_param(query: dict, name: str, default: int) -> int:
    try:
        return int(query.get(name, default))
    except ValueError:
        return default


def _link_header(req: _Request, page: int, last: int) -> str | None:
    rels = []
    if page > 1:
        rels.append(("prev", min(page - 1, last)))
    if page < last:
        rels += [("next", page + 1), ("last", last)]
    if page > 1:
        rels.append(("first", 1))
    return ", ".join(f'<{_page_url(req, number)}>; rel="{rel}"' for rel, number in rels) or None


def _page_url(req: _Request, page: int) -> str:
    params = dict(req.query)
    params["page"] = str(page)
    return f"{req.origin}{req.path}?{urlencode(params)}"


def paginate(req: _Request, items: list, render) -> tuple[bytes, str | None]:
    per_page = min(100, max(1, _int_param(req.query, "per_page", 30)))
    page = max(1, _int_param(req.query, "page", 1))
    last = max(1, -(-len(items) // per_page))
    chunk = items[(page - 1) * per_page : page * per_page]
    body = b"[" + b",".join(render(item) for item in chunk) + b"]"
    return body, _link_header(req, page, last)


def _etag_matches(header: str | None, etag: str) -> bool:
    if not header:
        return False
    wanted = etag.removeprefix("W/")
    return any(tag.strip().removeprefix("W/") in (wanted, "*") for tag in header.split(","))


# ---------------------------------------------------------------- routes

_REPO = r"/repos/(?P<owner>[^/]+)/(?P<name>[^/]+)"
_BY_NAME = re.compile(r"/repos/([^/]+)/([^/]+)(/.*)?")
_BY_ID = re.compile(r"/repositories/(\d+)(/.*)?")
_ORG = r"/orgs/(?P<org>[^/]+)"
_HOOK = r"(?:/repos/(?P<hook_owner>[^/]+)/(?P<hook_repo>[^/]+)/hooks/(?P<repo_hook>\d+)"
_HOOK += r"|/orgs/(?P<hook_org>[^/]+)/hooks/(?P<org_hook>\d+)|/app/hook)"
# What only the App's JWT opens: /app/... and a repository's installation (also by id).
_JWT_ROUTE = re.compile(r"/app(?:/.*)?|(?:/repos/[^/]+/[^/]+|/repositories/\d+)/installation")
# (method, path pattern, handler): a handler answers (body, Link header) or (body, Link, status).
_ROUTES = tuple(
    (method, re.compile(pattern), handler)
    for method, pattern, handler in (
        ("GET", r"/user", "get_user"),
        # the signed-in user of an OAuth token (tests/fakes/github_oauth.py)
        ("GET", r"/user/emails", "list_user_emails"),
        ("GET", r"/user/teams", "list_user_teams"),
        ("GET", r"/rate_limit", "get_rate_limit"),
        ("GET", _REPO, "get_repo"),
        ("GET", _REPO + r"/issues", "list_issues"),
        ("GET", _REPO + r"/issues/comments", "list_repo_comments"),
        ("GET", _REPO + r"/issues/comments/(?P<id>\d+)", "get_comment"),
        ("PATCH", _REPO + r"/issues/comments/(?P<id>\d+)", "update_comment"),
        ("GET", _REPO + r"/issues/comments/(?P<id>\d+)/reactions", "list_comment_reactions"),
        ("POST", _REPO + r"/issues/comments/(?P<id>\d+)/reactions", "create_comment_reaction"),
        ("GET", _REPO + r"/issues/(?P<number>\d+)", "get_issue"),
        ("PATCH", _REPO + r"/issues/(?P<number>\d+)", "update_issue"),
        ("GET", _REPO + r"/issues/(?P<number>\d+)/comments", "list_issue_comments"),
        ("GET", _REPO + r"/issues/(?P<number>\d+)/labels", "list_issue_labels"),
        ("POST", _REPO + r"/issues/(?P<number>\d+)/labels", "add_issue_labels"),
        ("PUT", _REPO + r"/issues/(?P<number>\d+)/labels", "set_issue_labels"),
        ("DELETE", _REPO + r"/issues/(?P<number>\d+)/labels", "remove_all_issue_labels"),
        ("DELETE", _REPO + r"/issues/(?P<number>\d+)/labels/(?P<label>[^/]+)", "remove_label"),
        ("POST", _REPO + r"/issues/(?P<number>\d+)/assignees", "add_assignees"),
        ("DELETE", _REPO + r"/issues/(?P<number>\d+)/assignees", "remove_assignees"),
        ("GET", _REPO + r"/issues/(?P<number>\d+)/reactions", "list_issue_reactions"),
        ("POST", _REPO + r"/issues/(?P<number>\d+)/reactions", "create_issue_reaction"),
        ("POST", _REPO + r"/issues/(?P<number>\d+)/comments", "create_issue_comment"),
        ("PUT", _REPO + r"/issues/(?P<number>\d+)/lock", "lock_issue"),
        ("DELETE", _REPO + r"/issues/(?P<number>\d+)/lock", "unlock_issue"),
        ("GET", _REPO + r"/pulls", "list_pulls"),
        ("GET", _REPO + r"/pulls/(?P<number>\d+)", "get_pull"),
        ("GET", _REPO + r"/pulls/(?P<number>\d+)/commits", "list_pull_commits"),
        ("GET", _REPO + r"/pulls/(?P<number>\d+)/files", "list_pull_files"),
        ("GET", _REPO + r"/pulls/(?P<number>\d+)/requested_reviewers", "list_requested_reviewers"),
        ("POST", _REPO + r"/pulls/(?P<number>\d+)/requested_reviewers", "request_reviewers"),
        ("GET", _REPO + r"/labels", "list_labels"),
        # webhooks (tests/fakes/github_hooks.py): a repository's, an organization's, the App's
        ("GET", _REPO + r"/hooks", "list_hooks"),
        ("GET", _ORG + r"/hooks", "list_hooks"),
        ("GET", _HOOK + r"/deliveries", "list_hook_deliveries"),
        ("GET", _HOOK + r"/deliveries/(?P<delivery_id>\d+)", "get_hook_delivery"),
        ("POST", _HOOK + r"/deliveries/(?P<delivery_id>\d+)/attempts", "redeliver_hook_delivery"),
        # a GitHub App: itself, its installations and their tokens (the JWT), and what an
        # installation token may list
        ("GET", r"/app", "get_app"),
        ("GET", r"/app/installations", "list_installations"),
        ("GET", r"/app/installations/(?P<installation_id>\d+)", "get_installation"),
        (
            "POST",
            r"/app/installations/(?P<installation_id>\d+)/access_tokens",
            "create_installation_token",
        ),
        ("GET", _REPO + r"/installation", "get_repo_installation"),
        ("GET", r"/installation/repositories", "list_installation_repos"),
    )
)
_MAX_PULL_COMMITS = 250  # GitHub lists at most 250 commits of a pull request
_MAX_PULL_FILES = 3000  # and at most 3,000 of its changed files
_NOT_COLLABORATOR = (
    "Reviews may only be requested from collaborators. One or more of the users or teams you "
    "specified is not a collaborator of the {} repository."
)


class _Api:
    """Maps a request to (body bytes, Link header[, status]); raises _HttpError otherwise."""

    def __init__(
        self, store: _Store, rate: _RateLimit, hooks: HookStore, apps: _Apps, oauth: OAuthStore
    ):
        self.store, self.rate, self.hooks, self.apps = store, rate, hooks, apps
        self.oauth = oauth

    def dispatch(self, req: _Request) -> tuple:
        req.route = self._canonical_route(req)
        if req.installation is not None:
            self._within_installation(req)
        if req.grant is not None and not self.oauth.allows(req.grant, req.route):
            raise _HttpError(403, _NOT_FOR_INTEGRATIONS)
        for method, pattern, handler in _ROUTES:
            match = pattern.fullmatch(req.route) if method == req.method else None
            if match:
                try:
                    return getattr(self, handler)(req, **match.groupdict())
                except HookApiError as error:
                    raise _HttpError(error.status, error.message) from None
        raise _HttpError(404, "Not Found")

    def _canonical_route(self, req: _Request) -> str:
        """/repositories/<id>/... as /repos/<owner>/<name>/...; a renamed repository's old
        name raises _Moved (301 for reads, 307 for writes, the query kept)."""
        by_id = _BY_ID.fullmatch(req.route)
        if by_id:
            repo = self.store.repo_by_id(int(by_id.group(1)))
            if repo is None:
                raise _HttpError(404, "Not Found")
            return f"/repos/{repo.full_name}{by_id.group(2) or ''}"
        by_name = _BY_NAME.fullmatch(req.route)
        moved = by_name and self.store.renamed.get(f"{by_name.group(1)}/{by_name.group(2)}".lower())
        if not moved:
            return req.route
        prefix = req.path[: req.path.find(req.route)]
        location = f"{req.origin}{prefix}/repositories/{moved.id}{by_name.group(3) or ''}"
        if req.query:
            location += f"?{urlencode(req.query)}"
        raise _Moved(301 if req.method in ("GET", "HEAD") else 307, location)

    def _within_installation(self, req: _Request) -> None:
        """An installation token opens its repositories' routes (writes with the permission),
        and /rate_limit and /installation/repositories; other repositories are 404 to it, as
        private ones are, and the rest (/user ...) 403."""
        by_name = _BY_NAME.fullmatch(req.route)
        if by_name is None:
            if req.route not in _INSTALLATION_ROUTES:
                raise _HttpError(403, _NOT_FOR_INTEGRATIONS)
            return
        repo = self.store.repo(f"{by_name.group(1)}/{by_name.group(2)}")
        if repo is None or not req.installation.holds(repo):
            raise _HttpError(404, "Not Found")
        if not req.installation.allows(req.method, by_name.group(3) or "", req.token_permissions):
            raise _HttpError(403, _NOT_FOR_INTEGRATIONS)

    def _repo(self, owner: str, name: str) -> _Repo:
        repo = self.store.repo(f"{owner}/{name}")
        if repo is None:
            raise _HttpError(404, "Not Found")
        return repo

    def _issue(self, repo: _Repo, number: str) -> _Issue:
        rec = repo.issues.get(int(number))
        if rec is None:
            raise _HttpError(404, "Not Found")
        return rec

    def _login(self, req) -> str:
        return req.grant.login if req.grant is not None else self.store.login

    def get_user(self, req):
        if req.grant is not None:
            user = self.oauth.user_json(req.grant.login, self.store.user(req.grant.login))
            user.update(company=None, public_repos=0, followers=0, following=0)
            user.update(created_at="2015-03-02T10:00:00Z", updated_at="2025-01-01T00:00:00Z")
            return _dumps(user), None
        user = dict(self.store.users[self.store.login], name="Emulated User", company=None)
        user.update(public_repos=len(self.store.repos), followers=0, following=0)
        user.update(created_at="2011-01-26T19:01:12Z", updated_at="2025-01-01T00:00:00Z")
        return _dumps(user), None

    def list_user_emails(self, req):
        return paginate(req, self.oauth.emails_json(self._login(req)), _dumps)

    def list_user_teams(self, req):
        return paginate(req, self.oauth.teams_json(self._login(req)), _dumps)

    def get_rate_limit(self, req):
        rate = self.apps.rate_of(req.installation) if req.installation else self.rate
        return _dumps(rate.body()), None

    def get_repo(self, req, owner, name):
        return self.store.repo_bytes(self._repo(owner, name)), None

    def list_issues(self, req, owner, name):
        repo, query = self._repo(owner, name), req.query
        state = _choice(query, "state", ("open", "closed", "all"), "open")
        sort = _choice(query, "sort", tuple(_ISSUE_SORT_KEYS), "created")
        direction = _choice(query, "direction", ("asc", "desc"), "desc")
        view = issue_view(repo, state, sort, direction, _label_filter(query), _since(query))
        return paginate(req, view, lambda rec: self.store.issue_bytes(repo, rec))

    def get_issue(self, req, owner, name, number):
        repo = self._repo(owner, name)
        return self.store.issue_bytes(repo, self._issue(repo, number), single=True), None

    def list_issue_comments(self, req, owner, name, number):
        repo = self._repo(owner, name)
        rec = self._issue(repo, number)
        view = comment_view(repo, rec.number, "created", "asc", _since(req.query))
        return paginate(req, view, lambda com: self.store.comment_bytes(repo, com))

    def list_repo_comments(self, req, owner, name):
        repo, query = self._repo(owner, name), req.query
        sort = _choice(query, "sort", tuple(_COMMENT_SORT_KEYS), "created")
        direction = _choice(query, "direction", ("asc", "desc"), "asc")
        view = comment_view(repo, None, sort, direction, _since(query))
        return paginate(req, view, lambda com: self.store.comment_bytes(repo, com))

    def _comment(self, repo: _Repo, comment_id: str) -> _Comment:
        com = repo.comments.get(int(comment_id))
        if com is None:
            raise _HttpError(404, "Not Found")
        return com

    def get_comment(self, req, owner, name, id):
        repo = self._repo(owner, name)
        return self.store.comment_bytes(repo, self._comment(repo, id)), None

    def list_pulls(self, req, owner, name):
        repo, query = self._repo(owner, name), req.query
        state = _choice(query, "state", ("open", "closed", "all"), "open")
        sort = _choice(query, "sort", tuple(_PULL_SORT_KEYS), "created")
        default_direction = "desc" if sort == "created" else "asc"
        direction = _choice(query, "direction", ("asc", "desc"), default_direction)
        view = pull_view(repo, state, sort, direction)
        return paginate(req, view, lambda rec: self.store.pull_bytes(repo, rec, full=False))

    def get_pull(self, req, owner, name, number):
        repo = self._repo(owner, name)
        rec = self._issue(repo, number)
        if not rec.is_pr:
            raise _HttpError(404, "Not Found")
        return self.store.pull_bytes(repo, rec, full=True), None

    def list_labels(self, req, owner, name):
        labels = list(self._repo(owner, name).labels.values())
        return paginate(req, labels, _dumps)

    def list_pull_commits(self, req, owner, name, number):
        repo = self._repo(owner, name)
        rec = self._issue(repo, number)
        if not rec.is_pr:
            raise _HttpError(404, "Not Found")
        indexes = list(range(len(self.store.commit_list(repo, rec))))[:_MAX_PULL_COMMITS]
        return paginate(req, indexes, lambda i: _dumps(self.store.commit_dict(repo, rec, i)))

    def _pull(self, repo: _Repo, number: str) -> _Issue:
        rec = self._issue(repo, number)
        if not rec.is_pr:
            raise _HttpError(404, "Not Found")
        return rec

    def list_pull_files(self, req, owner, name, number):
        """GitHub's order, 30 a page by default (per_page up to 100), at most 3,000 files."""
        repo = self._repo(owner, name)
        rec = self._pull(repo, number)
        files = self.store.file_list(repo, rec)[:_MAX_PULL_FILES]
        return paginate(req, files, lambda entry: _dumps(self.store.file_dict(repo, rec, entry)))

    def list_requested_reviewers(self, req, owner, name, number):
        repo = self._repo(owner, name)
        rec = self._pull(repo, number)
        users = [self.store.user(login) for login in rec.reviewers]
        return _dumps(
            {"users": users, "teams": [repo.teams[t.lower()] for t in rec.review_teams]}
        ), None

    def request_reviewers(self, req, owner, name, number):
        """POST {"reviewers": [logins], "team_reviewers": [slugs]}: 201 with the pull request.
        422 as GitHub answers: the author asked, or a user (team) that is not a collaborator
        (has no access) once the repository has collaborators (teams) set; nothing changes."""
        repo = self._repo(owner, name)
        rec = self._pull(repo, number)
        data = req.json()
        users, teams = _logins(_field(data, "reviewers")), _logins(_field(data, "team_reviewers"))
        if not users and not teams:
            raise _HttpError(422, "Validation Failed")
        if any(login.lower() == rec.user.lower() for login in users):
            raise _HttpError(422, "Review cannot be requested from pull request author.")
        found = [self.store.assignable(repo, login) for login in users]
        unknown = [slug for slug in teams if slug.lower() not in repo.teams]
        if None in found or (unknown and repo.teams) or (teams and not repo.teams):
            raise _HttpError(422, _NOT_COLLABORATOR.format(repo.full_name))
        held = {login.lower() for login in rec.reviewers}
        rec.reviewers += tuple(login for login in found if login.lower() not in held)
        held = {slug.lower() for slug in rec.review_teams}
        slugs = [repo.teams[slug.lower()]["slug"] for slug in teams]
        rec.review_teams += tuple(slug for slug in slugs if slug.lower() not in held)
        self._changed(repo, rec)
        return self.store.pull_bytes(repo, rec, full=False), None, 201

    def list_issue_labels(self, req, owner, name, number):
        repo = self._repo(owner, name)
        rec = self._issue(repo, number)
        return paginate(req, [repo.labels[n.lower()] for n in rec.labels], _dumps)

    def add_issue_labels(self, req, owner, name, number):
        """POST {"labels": [...]} (or a bare list): adds them, creating unknown labels."""
        repo = self._repo(owner, name)
        rec = self._issue(repo, number)
        names = _label_names(req.json())
        if self._set_labels(repo, rec, [*rec.labels, *names]):
            self._changed(repo, rec)
        return self._labels_bytes(repo, rec), None

    def set_issue_labels(self, req, owner, name, number):
        """PUT {"labels": [...]} (or a bare list): the issue's labels become these; 200."""
        repo = self._repo(owner, name)
        rec = self._issue(repo, number)
        if self._set_labels(repo, rec, _label_names(req.json())):
            self._changed(repo, rec)
        return self._labels_bytes(repo, rec), None

    def remove_label(self, req, owner, name, number, label):
        """DELETE .../labels/NAME (URL-encoded, any case): 200 with the labels left; 404
        "Label does not exist" when the issue does not carry it."""
        repo = self._repo(owner, name)
        rec = self._issue(repo, number)
        wanted = unquote(label).lower()
        kept = tuple(held for held in rec.labels if held.lower() != wanted)
        if len(kept) == len(rec.labels):
            raise _HttpError(404, "Label does not exist")
        rec.labels = kept
        self._changed(repo, rec)  # an unlabeled event moves updated_at
        return self._labels_bytes(repo, rec), None

    def lock_issue(self, req, owner, name, number):
        """PUT .../lock {"lock_reason": off-topic | too heated | resolved | spam} (optional):
        204; another reason 422. Locking moves updated_at (a locked event)."""
        repo = self._repo(owner, name)
        rec = self._issue(repo, number)
        data = req.json() if req.body else {}
        reason = (data or {}).get("lock_reason")
        if reason not in (None, *_LOCK_REASONS):
            raise _HttpError(422, "Validation Failed")
        rec.locked, rec.lock_reason = True, reason
        self._changed(repo, rec)
        return b"", None, 204

    def unlock_issue(self, req, owner, name, number):
        """DELETE .../lock: 204; 404 when the issue is not locked."""
        repo = self._repo(owner, name)
        rec = self._issue(repo, number)
        if not rec.locked:
            raise _HttpError(404, "Not Found")
        rec.locked, rec.lock_reason = False, None
        self._changed(repo, rec)
        return b"", None, 204

    def remove_all_issue_labels(self, req, owner, name, number):
        repo = self._repo(owner, name)
        rec = self._issue(repo, number)
        if self._set_labels(repo, rec, []):
            self._changed(repo, rec)
        return b"", None, 204

    def _set_labels(self, repo: _Repo, rec: _Issue, names: list[str]) -> bool:
        """The issue's labels become `names` (first spelling of each, unknown ones created);
        whether they changed (which moves updated_at, as labeled and unlabeled events do)."""
        wanted: dict[str, str] = {}
        for label in names:
            wanted.setdefault(label.lower(), label)
        labels = tuple(self.store.ensure_label(repo, n)["name"] for n in wanted.values())
        changed, rec.labels = labels != rec.labels, labels
        return changed

    def _labels_bytes(self, repo: _Repo, rec: _Issue) -> bytes:
        return _dumps([repo.labels[n.lower()] for n in rec.labels])

    def _changed(self, repo: _Repo, rec: _Issue, now: int | None = None) -> None:
        rec.updated = now or self.store.tick()
        rec.cache = None
        repo.touch()

    def list_hooks(self, req, owner=None, name=None, org=None):
        if org is not None:
            hooks = self.hooks.of_target("organization", org)
        else:
            hooks = self.hooks.of_target("repository", self._repo(owner, name).full_name)
        return paginate(req, hooks, lambda hook: _dumps(self.hooks.hook_json(hook)))

    def _hook(self, hook_owner, hook_repo, repo_hook, hook_org, org_hook):
        if repo_hook is not None:
            return self.hooks.find("repository", f"{hook_owner}/{hook_repo}", repo_hook)
        if org_hook is not None:
            return self.hooks.find("organization", hook_org, org_hook)
        app_hooks = [h for h in self.hooks.hooks.values() if h.target_type == "integration"]
        if not app_hooks:
            raise _HttpError(404, "Not Found")
        return app_hooks[0]

    def list_hook_deliveries(self, req, **where):
        items, links = self.hooks.listing(self._hook(**where), req.query)
        return _dumps(items), link_header(f"{req.origin}{req.path}", req.query, links)

    def get_hook_delivery(self, req, delivery_id, **where):
        hook = self._hook(**where)
        return _dumps(self.hooks.detail_json(hook, self.hooks.get(hook, delivery_id))), None

    def redeliver_hook_delivery(self, req, delivery_id, **where):
        """202 Accepted; the delivery is sent again, after the answer (github_hooks.py)."""
        self.hooks.redeliver(self._hook(**where), delivery_id)
        return b"{}", None, 202

    # a GitHub App
    def get_app(self, req):
        return _dumps(self.apps.app_json()), None

    def list_installations(self, req):
        found = sorted(self.apps.installations.values(), key=attrgetter("id"))
        return paginate(req, found, lambda i: _dumps(self.apps.installation_json(i)))

    def get_installation(self, req, installation_id):
        return _dumps(self.apps.installation_json(self.apps.get(installation_id))), None

    def create_installation_token(self, req, installation_id):
        """201 {"token", "expires_at", "permissions", "repository_selection"}; the permissions
        asked ({"issues": "read"}) must be within the installation's (422 otherwise)."""
        installation = self.apps.get(installation_id)
        asked = (req.json() or {}).get("permissions") or {}
        granted = installation.permissions
        for name, level in asked.items():
            have = granted.get(name)
            if level not in _LEVELS or have not in _LEVELS or _LEVELS[level] > _LEVELS[have]:
                raise _HttpError(422, _NOT_GRANTED)
        token, expires = self.apps.issue_token(installation, asked or granted)
        body = {
            "token": token,
            "expires_at": iso(expires),
            "permissions": asked or granted,
            "repository_selection": "all" if installation.repo_ids is None else "selected",
        }
        return _dumps(body), None, 201

    def get_repo_installation(self, req, owner, name):
        installation = self.apps.of_repo(self._repo(owner, name))
        return _dumps(self.apps.installation_json(installation)), None

    def list_installation_repos(self, req):
        installation = req.installation
        if installation is None:  # GitHub: only an installation token lists these
            raise _HttpError(403, "You must authenticate with an installation access token")
        found = sorted(
            (r for r in self.store.repos.values() if installation.holds(r)), key=attrgetter("id")
        )
        page, link = paginate(req, found, self.store.repo_bytes)
        return b'{"total_count":%d,"repositories":%s}' % (len(found), page), link

    def create_issue_comment(self, req, owner, name, number):
        """POST {"body": "..."}: a comment by the authenticated user; 201, as GitHub answers."""
        repo = self._repo(owner, name)
        rec = self._issue(repo, number)
        data = req.json()
        if not isinstance(data, dict) or not isinstance(data.get("body"), str) or not data["body"]:
            raise _HttpError(422, "Validation Failed")
        com = _Comment(self.store.new_id(), rec.number, data["body"], self.store.login, 0)
        com.created = com.updated = rec.updated = self.store.tick()
        com.author_association = "OWNER"
        repo.comments[com.id] = com
        rec.comments += 1
        rec.cache = None
        repo.touch()
        return self.store.comment_bytes(repo, com), None, 201

    def update_comment(self, req, owner, name, id):
        """PATCH {"body": "..."}: 200 with the comment; a new body moves its updated_at."""
        repo = self._repo(owner, name)
        com = self._comment(repo, id)
        data = req.json()
        body = data.get("body") if isinstance(data, dict) else None
        if not isinstance(body, str) or not body:
            raise _HttpError(422, "Validation Failed")
        if body != com.body:
            com.body, com.updated = body, self.store.tick()
            com.cache = None
            repo.touch()
        return self.store.comment_bytes(repo, com), None

    def update_issue(self, req, owner, name, number):
        """PATCH: title, body, state and state_reason, labels and assignees (both replaced;
        unknown labels created). 200 with the issue; 422 for a value GitHub refuses."""
        repo = self._repo(owner, name)
        rec = self._issue(repo, number)
        data = req.json()
        if not isinstance(data, dict):
            raise _HttpError(422, "Validation Failed")
        changes = self._issue_changes(repo, rec, data)  # all checked before anything changes
        before, now = _issue_state(rec), self.store.tick()
        for key in ("title", "body", "assignees"):
            if key in changes:
                setattr(rec, key, changes[key])
        if "labels" in changes:
            self._set_labels(repo, rec, changes["labels"])
        if "state" in changes:
            self._change_state(rec, changes["state"], changes["state_reason"], now)
        if _issue_state(rec) != before:
            self._changed(repo, rec, now)  # closed_at and updated_at: the same moment
        return self.store.issue_bytes(repo, rec, single=True), None

    def _issue_changes(self, repo: _Repo, rec: _Issue, data: dict) -> dict:
        changes = {}
        title = data.get("title")
        if isinstance(title, int) and not isinstance(title, bool):
            title = str(title)  # GitHub takes a number for a title
        if "title" in data and (not isinstance(title, str) or not title.strip()):
            raise _HttpError(422, "Validation Failed")
        if "title" in data:
            changes["title"] = title
        if "body" in data:
            if data["body"] is not None and not isinstance(data["body"], str):
                raise _HttpError(422, "Validation Failed")
            changes["body"] = data["body"]
        if data.get("milestone") not in (None, ""):  # no milestones here: every one is unknown
            raise _HttpError(422, "Validation Failed")
        if "labels" in data:
            changes["labels"] = _label_names(data["labels"])
        if "assignees" in data or "assignee" in data:
            changes["assignees"] = self._assignees(repo, data)
        if "state_reason" in data and data["state_reason"] not in (None, *_STATE_REASONS):
            raise _HttpError(422, "Validation Failed")
        if "state" in data:
            changes["state"], changes["state_reason"] = self._state(rec, data)
        return changes

    def _assignees(self, repo: _Repo, data: dict) -> tuple:
        """PATCH's assignees (or the deprecated single assignee): each must be assignable."""
        if "assignees" in data:
            logins = _logins(data["assignees"])
        else:
            one = data["assignee"]
            logins = [] if one is None else _logins([one])
        found = [self.store.assignable(repo, login) for login in logins]
        if None in found:
            raise _HttpError(422, "Validation Failed")
        return tuple({login.lower(): login for login in found}.values())

    @staticmethod
    def _state(rec: _Issue, data: dict) -> tuple[str, str | None]:
        """(state, state_reason) that a PATCH with "state" leaves: closing without a reason
        is "completed", reopening is "reopened"; pull requests carry no reason."""
        state, reason = data["state"], data.get("state_reason")
        if state == "closed" and reason != "reopened":
            if rec.state == "closed" and reason is None:
                reason = rec.state_reason
            return state, None if rec.is_pr else (reason or "completed")
        if state == "open" and reason in (None, "reopened") and not rec.merged:
            if rec.state == "open":
                return state, rec.state_reason
            return state, None if rec.is_pr else "reopened"
        raise _HttpError(422, "Validation Failed")  # a merged pull request stays closed

    def _change_state(self, rec: _Issue, state: str, reason: str | None, now: int) -> None:
        if state == "closed" and rec.state == "open":
            rec.closed, rec.closed_by = now, self.store.login
        elif state == "open" and rec.state == "closed":
            rec.closed = rec.closed_by = None
        rec.state, rec.state_reason = state, reason

    def add_assignees(self, req, owner, name, number):
        """POST {"assignees": [...]}: 201 with the issue; logins that may not be assigned are
        silently left out, as GitHub does."""
        repo = self._repo(owner, name)
        rec = self._issue(repo, number)
        logins = _logins(_field(req.json(), "assignees"))
        held = {login.lower() for login in rec.assignees}
        added = []
        for asked in logins:
            login = self.store.assignable(repo, asked)
            if login is not None and login.lower() not in held:
                added.append(login)
                held.add(login.lower())
        if added:
            rec.assignees = (*rec.assignees, *added)
            self._changed(repo, rec)
        return self.store.issue_bytes(repo, rec, single=True), None, 201

    def remove_assignees(self, req, owner, name, number):
        """DELETE {"assignees": [...]}: 200 with the issue; logins not assigned are ignored."""
        repo = self._repo(owner, name)
        rec = self._issue(repo, number)
        gone = {login.lower() for login in _logins(_field(req.json(), "assignees"))}
        kept = tuple(login for login in rec.assignees if login.lower() not in gone)
        if kept != rec.assignees:
            rec.assignees = kept
            self._changed(repo, rec)
        return self.store.issue_bytes(repo, rec, single=True), None

    def create_issue_reaction(self, req, owner, name, number):
        repo = self._repo(owner, name)
        rec = self._issue(repo, number)
        return self._react(req, repo, rec, ("issue", rec.number))

    def create_comment_reaction(self, req, owner, name, id):
        repo = self._repo(owner, name)
        com = self._comment(repo, id)
        return self._react(req, repo, com, ("comment", com.id))

    def _react(self, req, repo: _Repo, target, key: tuple):
        """POST {"content": ...}: 201 with a new reaction by the authenticated user, 200 with
        the one they already made; 422 for a content GitHub does not know."""
        content = _field(req.json(), "content")
        if not isinstance(content, str) or content not in _REACTIONS:
            raise _HttpError(422, "Validation Failed")
        reaction, created = self.store.react(repo, target, key, self.store.login, content)
        return _dumps(self.store.reaction_dict(reaction)), None, 201 if created else 200

    def list_issue_reactions(self, req, owner, name, number):
        repo = self._repo(owner, name)
        return self._reactions(req, repo, ("issue", self._issue(repo, number).number))

    def list_comment_reactions(self, req, owner, name, id):
        repo = self._repo(owner, name)
        return self._reactions(req, repo, ("comment", self._comment(repo, id).id))

    def _reactions(self, req, repo: _Repo, key: tuple):
        """Who reacted, oldest first, paginated; ?content= keeps one kind."""
        content = req.query.get("content")
        if content and content not in _REACTIONS:
            raise _HttpError(422, "Validation Failed")
        found = [r for r in repo.reactions.get(key, ()) if not content or r.content == content]
        return paginate(req, found, lambda r: _dumps(self.store.reaction_dict(r)))


# ---------------------------------------------------------------- the emulator


class GitHubEmulator(HttpEmulator):
    """A GitHub REST API on 127.0.0.1 for PyGithub: data, rate limit, faults, request log."""

    server_software = "GitHub.com"
    thread_name = "github-emulator"

    def __init__(
        self,
        token: str = "test-token",
        path_prefix: str = "",
        *,
        login: str = "octocat",
        rate_limit: int = 5000,
    ):
        self.token = token
        self.path_prefix = path_prefix.rstrip("/")
        self.requests: list[dict] = []
        self._lock = threading.RLock()
        self._store = _Store(login)
        self._rate = _RateLimit(rate_limit)
        self._spending = self._rate  # the budget of the request being answered
        self._faults = _Faults()
        self._hooks = HookStore(API, self._store.new_id)
        self._hooks.record_lock = self._lock
        self._apps = _Apps(self._store, self._hooks)
        self._oauth = OAuthStore(API, self._store.new_id, self._store.user)
        self._api = _Api(self._store, self._rate, self._hooks, self._apps, self._oauth)

    # data
    def add_repo(self, full_name: str, **fields) -> dict:
        with self._lock:
            repo = self._store.add_repo(full_name, fields)
            return self._resolved(self._store.repo_bytes(repo))

    def rename_repo(self, old: str, new: str) -> dict:
        """Rename a repository as GitHub does: same id, its data under the new name, the old
        name's URLs redirected (301) until another repository takes that name."""
        with self._lock:
            return self._resolved(self._store.repo_bytes(self._store.rename_repo(old, new)))

    def add_label(self, repo: str, name: str, color=None, description=None) -> dict:
        with self._lock:
            found = self._store.ensure_repo(repo)
            return self._resolved(_dumps(self._store.ensure_label(found, name, color, description)))

    def add_issue(
        self,
        repo: str,
        number: int | None = None,
        title: str = "Issue",
        body: str | None = "",
        state: str = "open",
        labels=(),
        user: str = "octocat",
        created_at=None,
        updated_at=None,
        closed_at=None,
        assignees=(),
        comments: int = 0,
        **fields,
    ) -> dict:
        with self._lock:
            found, rec = self._new_record(repo, number, title, body, user, created_at)
            self._fill_record(found, rec, state, labels, assignees, comments, fields)
            self._set_times(rec, updated_at, closed_at)
            found.issues[rec.number] = rec
            found.touch()
            return self._resolved(self._store.issue_bytes(found, rec))

    def add_pull(
        self,
        repo: str,
        number: int | None = None,
        title: str = "Pull request",
        body: str | None = "",
        base: str = "main",
        head: str = "feature-x",
        merged: bool = False,
        merged_at=None,
        merge_commit_sha: str | None = None,
        user: str = "octocat",
        updated_at=None,
        state: str = "open",
        labels=(),
        created_at=None,
        closed_at=None,
        assignees=(),
        comments: int = 0,
        draft: bool = False,
        merged_by: str | None = None,
        **fields,
    ) -> dict:
        """Add a pull request: served in issue form by /issues and in full by /pulls/N."""
        with self._lock:
            found, rec = self._new_record(repo, number, title, body, user, created_at)
            rec.pr_id, rec.base, rec.head, rec.draft = self._store.new_id(), base, head, draft
            self._fill_record(found, rec, state, labels, assignees, comments, fields)
            if merged:
                rec.state, rec.merged = "closed", True
                rec.merged_at = to_epoch(merged_at) or to_epoch(closed_at) or self._store.tick()
                rec.merge_commit_sha = merge_commit_sha or _sha(found.full_name, rec.number, "m")
                rec.merged_by = merged_by or found.owner
                closed_at = closed_at or rec.merged_at
            else:
                rec.merge_commit_sha = merge_commit_sha
            self._set_times(rec, updated_at, closed_at)
            found.issues[rec.number] = rec
            found.touch()
            return self._resolved(self._store.pull_bytes(found, rec, full=True))

    def add_comment(
        self,
        repo: str,
        issue_number: int,
        body: str = "",
        user: str = "octocat",
        created_at=None,
        updated_at=None,
        **fields,
    ) -> dict:
        """Add a comment; like GitHub, the issue's comment count and updated_at follow."""
        with self._lock:
            found = self._existing_repo(repo)
            issue = self._store.issue(found, issue_number)
            created = to_epoch(created_at) or self._store.tick()
            com = _Comment(self._store.new_id(), issue.number, body, user, created)
            com.updated = to_epoch(updated_at) or created
            com.author_association = fields.pop("author_association", "NONE")
            com.reactions = _reaction_counts(fields.pop("reactions", None))
            com.extra = fields or None
            self._store.observe(com.created, com.updated)
            found.comments[com.id] = com
            issue.comments += 1
            issue.updated = max(issue.updated, com.created)
            issue.cache = None
            found.touch()
            return self._resolved(self._store.comment_bytes(found, com))

    def update_issue(self, repo: str, number: int, **changes) -> dict:
        """Change an issue or pull request; updated_at moves to a fresh time unless given."""
        with self._lock:
            found = self._existing_repo(repo)
            rec = self._store.issue(found, number)
            self._apply_issue_changes(found, rec, changes)
            rec.cache = None
            found.touch()
            return self._resolved(self._store.issue_bytes(found, rec))

    def add_reaction(
        self,
        repo: str,
        number: int,
        content: str = "+1",
        *,
        comment_id: int | None = None,
        user: str | None = None,
    ) -> None:
        """React to an issue (or one of its comments). Like GitHub: updated_at does not move.
        With a `user` the reaction is theirs (once per content) and shows in the reactions
        listings; without, only the rollup counts move."""
        with self._lock:
            found = self._existing_repo(repo)
            rec = self._store.issue(found, number)
            target = rec if comment_id is None else self._existing_comment(found, comment_id)
            if user is not None:
                key = ("issue", rec.number) if comment_id is None else ("comment", target.id)
                self._store.react(found, target, key, user, content)
                return
            _reaction_counts({content: 1})  # a ValueError for an unknown content
            self._store.count_reaction(found, target, content)

    def add_collaborator(self, repo: str, login: str) -> None:
        """`login` may be assigned to `repo`'s issues. Once a repository has collaborators only
        they may be: POST .../assignees leaves others out, PATCH answers 422 for them."""
        with self._lock:
            found = self._store.ensure_repo(repo)
            self._store.user(login)
            found.collaborators[login.lower()] = login

    def add_team(self, repo: str, slug: str, name: str | None = None) -> dict:
        """A team of the repository's organization with access to it (reviews may be requested
        of it). Once a repository has teams only they may be: others are 422, as GitHub does;
        a repository without teams has none to request."""
        with self._lock:
            found = self._store.ensure_repo(repo)
            team = _team_json(found, self._store.new_id(), slug, name or slug)
            found.teams[slug.lower()] = team
            return self._resolved(_dumps(team))

    def requested_reviewers(self, repo: str, number: int) -> dict:
        """Whose review a pull request waits for: {"users": [logins], "teams": [slugs]}."""
        with self._lock:
            rec = self._store.issue(self._existing_repo(repo), number)
            return {"users": list(rec.reviewers), "teams": list(rec.review_teams)}

    def pull_files(self, repo: str, number: int) -> list[dict]:
        """A pull request's changed files as GET /pulls/N/files lists them (all pages)."""
        with self._lock:
            found = self._existing_repo(repo)
            rec = self._store.issue(found, number)
            files = self._store.file_list(found, rec)[:_MAX_PULL_FILES]
            return [self._resolved(_dumps(self._store.file_dict(found, rec, f))) for f in files]

    def comments(self, repo: str, number: int) -> list[dict]:
        """An issue's comments, oldest first, as GET .../issues/N/comments shows them."""
        with self._lock:
            found = self._existing_repo(repo)
            rec = self._store.issue(found, number)
            view = comment_view(found, rec.number, "created", "asc", None)
            return [self._resolved(self._store.comment_bytes(found, com)) for com in view]

    def reactions(
        self, repo: str, number: int | None = None, *, comment_id: int | None = None
    ) -> list[dict]:
        """Who reacted to an issue (or, given comment_id, to a comment), oldest first: the
        reactions made through the API or by add_reaction with a user."""
        with self._lock:
            found = self._existing_repo(repo)
            if comment_id is not None:
                key = ("comment", self._existing_comment(found, comment_id).id)
            elif number is not None:
                key = ("issue", self._store.issue(found, number).number)
            else:
                raise TypeError("reactions of an issue (number) or of a comment (comment_id)")
            return [
                self._resolved(_dumps(self._store.reaction_dict(reaction)))
                for reaction in found.reactions.get(key, ())
            ]

    def commits(self, repo: str, number: int) -> list[dict]:
        """A pull request's commits as GET /pulls/N/commits lists them."""
        with self._lock:
            found = self._existing_repo(repo)
            rec = self._store.issue(found, number)
            count = len(self._store.commit_list(found, rec))
            return [
                self._resolved(_dumps(self._store.commit_dict(found, rec, i))) for i in range(count)
            ]

    def update_comment(self, repo: str, comment_id: int, **changes) -> dict:
        with self._lock:
            found = self._existing_repo(repo)
            com = self._existing_comment(found, comment_id)
            updated_at = changes.pop("updated_at", None)
            for key in ("body", "user", "author_association"):
                if key in changes:
                    setattr(com, key, changes.pop(key))
            if "reactions" in changes:
                com.reactions = _reaction_counts(changes.pop("reactions"))
            com.extra = {**(com.extra or {}), **changes} or None
            com.updated = to_epoch(updated_at) or self._store.tick()
            self._store.observe(com.updated)
            com.cache = None
            found.touch()
            return self._resolved(self._store.comment_bytes(found, com))

    def delete_issue(self, repo: str, number: int) -> None:
        with self._lock:
            found = self._existing_repo(repo)
            self._store.issue(found, number)
            del found.issues[number]
            found.reactions.pop(("issue", number), None)
            for com in [c for c in found.comments.values() if c.issue_number == number]:
                del found.comments[com.id]
                found.reactions.pop(("comment", com.id), None)
            found.touch()

    def delete_comment(self, repo: str, comment_id: int) -> None:
        with self._lock:
            found = self._existing_repo(repo)
            com = self._existing_comment(found, comment_id)
            del found.comments[com.id]
            found.reactions.pop(("comment", com.id), None)
            issue = found.issues.get(com.issue_number)
            if issue is not None:
                issue.comments = max(0, issue.comments - 1)
                issue.cache = None
            found.touch()

    def issue(self, repo: str, number: int) -> dict:
        with self._lock:
            found = self._existing_repo(repo)
            rec = self._store.issue(found, number)
            return self._resolved(self._store.issue_bytes(found, rec, single=True))

    def bulk_generate(
        self,
        repo: str,
        n_issues: int,
        n_comments_per_issue: int = 0,
        pr_every: int = 10,
        seed: int = 0,
    ) -> None:
        """Append n_issues realistic issues (every pr_every-th a PR) with their comments."""
        with self._lock:
            found = self._store.ensure_repo(repo)
            _BulkGenerator(self._store, found, seed).run(n_issues, n_comments_per_issue, pr_every)

    def prerender(self, repo: str) -> None:
        """Serialize every issue, pull request and comment of `repo` now, as listings show them.

        The emulator shares the machine's cores with the code under test; a benchmark renders
        up front so that GitHub's side of a backfill does not compete with the sync for CPU.
        """
        with self._lock:
            found = self._existing_repo(repo)
            for rec in found.issues.values():
                self._store.issue_bytes(found, rec)
                if rec.is_pr:
                    self._store.pull_bytes(found, rec, full=False)
            for com in found.comments.values():
                self._store.comment_bytes(found, com)
            found.issues_by_updated()
            found.comments_by_updated()

    # webhooks (tests/fakes/github_hooks.py)
    def add_hook(
        self,
        *,
        url: str,
        secret: str,
        repo: str | None = None,
        org: str | None = None,
        app: bool = False,
        events=("issues", "issue_comment", "pull_request", "label"),
    ) -> int:
        """A webhook of a repository, an organization or the App (add_app first); its id."""
        if [repo is not None, org is not None, app].count(True) != 1:
            raise ValueError("a hook belongs to one repository, one organization or the App")
        with self._lock:
            if repo is not None:
                found = self._store.ensure_repo(repo)
                kind, target, target_id = "repository", found.full_name, found.id
            elif org is not None:
                kind, target = "organization", org
                target_id = self._store.user(org, "Organization")["id"]
            else:
                if not self._hooks.app_id:
                    raise ValueError("add_app() before the App's hook")
                kind, target, target_id = "integration", "", int(self._hooks.app_id)
            hook = self._hooks.add(
                target_type=kind,
                target=target,
                target_id=target_id,
                url=url,
                secret=secret,
                events=events,
            )
            return hook.id

    def add_app(self, app_id: int, public_numbers: tuple[int, int]) -> None:
        """The GitHub App whose JWTs (RS256, the key's public numbers (n, e)) /app/ accepts."""
        with self._lock:
            self._hooks.app_id, self._hooks.app_public_numbers = str(app_id), public_numbers

    # the App's installations and their tokens
    def add_installation(
        self,
        account: str,
        *,
        repos=None,
        permissions: dict | None = None,
        events=APP_EVENTS,
    ) -> int:
        """The App installed on `account` (an organization unless it is a known user): on all
        its repositories (`repos` None), or on the OWNER/NAME ones given; its id. Its tokens
        open those repositories' routes, writes only with the permission at "write"
        (APP_PERMISSIONS unless given)."""
        with self._lock:
            found = self._apps.add(account, repos, permissions or APP_PERMISSIONS, events)
            return found.id

    def remove_installation(self, installation_id: int) -> None:
        """The App uninstalled: its tokens refused (401), its repositories' lookup 404."""
        with self._lock:
            self._apps.expire(installation_id)
            self._apps.installations.pop(installation_id)

    def accept_installation_permissions(self, installation_id: int, permissions: dict) -> None:
        """The account's owner accepted the permissions the App asked for: new tokens carry them;
        a token issued before keeps the permissions it was issued with (GitHub then sends the
        installation event `new_permissions_accepted`)."""
        with self._lock:
            self._apps.get(installation_id).permissions = dict(permissions)

    def expire_installation_tokens(self, installation_id: int) -> None:
        """Every token issued so far to the installation is answered 401 "Bad credentials"
        from now on (expired or revoked); a new one from access_tokens works."""
        with self._lock:
            self._apps.expire(installation_id)

    def installation_tokens(self, installation_id: int) -> list[str]:
        """The tokens issued to the installation, oldest first."""
        with self._lock:
            return [t for t, (i, _) in self._apps.tokens.items() if i == installation_id]

    @property
    def token_lifetime_s(self) -> int:
        return self._apps.token_lifetime_s

    @token_lifetime_s.setter
    def token_lifetime_s(self, seconds: int) -> None:
        """How long the next installation tokens last (GitHub: an hour)."""
        with self._lock:
            self._apps.token_lifetime_s = seconds

    # Sign in with GitHub: an OAuth App, its users and their teams (tests/fakes/github_oauth.py)
    def add_oauth_app(
        self, client_id: str, client_secret: str, *, callback_url: str | None = None
    ) -> None:
        """An OAuth App; `callback_url` (as registered on GitHub) bounds the redirect_uri."""
        with self._lock:
            self._oauth.add_app(client_id, client_secret, callback_url)

    def add_oauth_user(
        self,
        login: str,
        *,
        teams=(),
        emails=None,
        name: str | None = None,
        sign_in: bool = True,
    ) -> None:
        """A GitHub user and the organization teams ("ORG/team-slug") they belong to; with
        `sign_in`, the one the next authorize acts for (see oauth_sign_in)."""
        with self._lock:
            self._oauth.add_user(login, teams, emails, name)
            if sign_in:
                self._oauth.signed_in = login

    def set_oauth_user_teams(self, login: str, teams) -> None:
        """The user joined or left teams: /user/teams answers these from now on."""
        with self._lock:
            self._oauth.user(login).teams = list(teams)

    def oauth_sign_in(self, login: str | None) -> None:
        """Who the browser is signed in as at GitHub: /login/oauth/authorize authorizes for
        them; None: the user denies the app (error=access_denied)."""
        with self._lock:
            if login is not None:
                self._oauth.user(login)
            self._oauth.signed_in = login

    def revoke_oauth_tokens(self, login: str) -> None:
        """The user revoked the app: their tokens are 401 "Bad credentials" from now on."""
        with self._lock:
            self._oauth.revoke(login)

    def oauth_tokens(self, login: str) -> list[str]:
        with self._lock:
            return [t for t, g in self._oauth.tokens.items() if g.login.lower() == login.lower()]

    def set_hook(self, hook_id: int, *, url: str | None = None, active: bool | None = None):
        with self._lock:
            hook = self._hooks.hooks[hook_id]
            hook.url = hook.url if url is None else url
            hook.active = hook.active if active is None else active

    def deny_hooks(self, target: str) -> None:
        """The token has no admin rights on this repository or organization: its hooks 404."""
        with self._lock:
            self._hooks.denied.add(target.lower())

    def deliver(self, hook_id: int, event: str, payload: dict, *, guid: str | None = None):
        """GitHub sends an event to the hook now; the recorded delivery (summary) comes back."""
        with self._lock:
            hook = self._hooks.hooks[hook_id]
            delivery = self._hooks.new_delivery(hook, event, payload, guid)
        return self._hooks.send(delivery).summary()

    def record_delivery(
        self,
        hook_id: int,
        event: str,
        payload: dict,
        *,
        status_code: int,
        guid: str | None = None,
        delivered_at: float | None = None,
        redelivery: bool = False,
    ) -> dict:
        """A delivery GitHub made earlier (no request now): its answer, when it was sent."""
        with self._lock:
            hook = self._hooks.hooks[hook_id]
            delivery = self._hooks.new_delivery(hook, event, payload, guid)
            delivery.redelivery = redelivery
            delivery.delivered_at = time.time() if delivered_at is None else delivered_at
            delivery.status_code = status_code
            ok = 200 <= status_code < 300
            failed = f"Invalid HTTP Response: {status_code}" if status_code else "timed out"
            delivery.status = "OK" if ok else failed
            self._hooks.record(delivery)
            return delivery.summary()

    def hook_deliveries(self, hook_id: int) -> list[dict]:
        """Every recorded delivery of the hook, newest first."""
        with self._lock:
            hook = self._hooks.hooks[hook_id]
            return self._hooks.listing(hook, {"per_page": 100_000})[0]

    @property
    def manual_redeliveries(self) -> bool:
        return self._hooks.manual

    @manual_redeliveries.setter
    def manual_redeliveries(self, manual: bool) -> None:
        """True: redeliveries asked for wait for run_redeliveries() instead of a thread."""
        self._hooks.manual = manual

    def run_redeliveries(self) -> list[dict]:
        """Send the redeliveries asked for (manual mode) now, in this thread."""
        with self._lock:
            waiting = self._hooks.take_waiting()
        return [self._hooks.send(delivery).summary() for delivery in waiting]

    def wait_for_redeliveries(self) -> None:
        """Until every redelivery asked for (thread mode) has been sent and answered."""
        self._hooks.wait_sent()

    # rate limit, faults, log
    def set_rate_limit(self, remaining: int, reset_at_epoch: int | None = None) -> None:
        with self._lock:
            self._rate.set(remaining, reset_at_epoch)

    def reset_rate_limit(self) -> None:
        with self._lock:
            self._rate.reset()

    @property
    def rate_limit_remaining(self) -> int:
        return self._rate.remaining

    def installation_rate_limit(self, installation_id: int) -> dict:
        """An installation's budget now: {"limit", "remaining", "reset"} (epoch seconds)."""
        with self._lock:
            rate = self._apps.rate_of(self._apps.get(installation_id))
            rate.roll_window()
            return {"limit": rate.limit, "remaining": rate.remaining, "reset": rate.reset_at}

    def set_installation_rate_limit(
        self, installation_id: int, remaining: int, reset_at_epoch: int | None = None
    ) -> None:
        with self._lock:
            rate = self._apps.rate_of(self._apps.get(installation_id))
            rate.set(remaining, reset_at_epoch)

    def skew_clock(self, seconds: float) -> None:
        """GitHub's clock `seconds` ahead of this machine's (behind if negative): a JWT issued
        here is judged by it (more than a minute off and GitHub refuses it)."""
        with self._lock:
            self._hooks.clock_offset_s = seconds

    def set_installation_members(self, installation_id: int, members: int) -> None:
        """The organization's users (an installation's budget grows with those past 20)."""
        with self._lock:
            self._apps.get(installation_id).members = members

    def inject_fault(
        self,
        status: int,
        *,
        after_requests: int = 0,
        times: int | None = 1,
        path_contains: str | None = None,
        retry_after: int | None = None,
        body=None,
        rate_limited: bool = True,
    ) -> None:
        """Answer `times` matching requests (None: all) with `status`, after `after_requests`.

        A 403 or 429 is a rate limit (remaining 0 until the reset) unless `rate_limited` is
        False: then it is a refusal with the limit left as it is, like GitHub's "Resource not
        accessible by integration" or a locked issue's 403."""
        fault = _Fault(
            status, after_requests, times, path_contains, retry_after, body, rate_limited
        )
        with self._lock:
            self._faults.pending.append(fault)

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.pending.clear()

    def clear_log(self) -> None:
        with self._lock:
            self.requests.clear()

    def count(self, status: int | None = None, path_contains: str | None = None) -> int:
        with self._lock:
            return sum(
                1
                for entry in self.requests
                if (status is None or entry["status"] == status)
                and (path_contains is None or path_contains in entry["path"])
            )

    # request handling (called by the HTTP handler threads)
    def handle(self, method: str, raw_path: str, headers, body: bytes = b"") -> Reply:
        parts = urlsplit(raw_path)
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        with self._lock:
            try:
                if parts.path.rstrip("/") in WEB_ROUTES:  # GitHub's web host, not the API's
                    reply = self._web(method, parts.path.rstrip("/"), query, headers, body)
                else:
                    reply = self._respond(method, parts.path, query, headers, body)
            except Exception:
                traceback.print_exc()
                reply = self._error_reply(500, "Emulator error")
            self._log_request(method, parts.path, query, reply.status, headers, body)
        return reply

    def _web(self, method: str, path: str, query: dict, headers, body: bytes) -> Reply:
        if path == "/login/oauth/authorize" and method == "GET":
            return Reply(*self._oauth.authorize(query))
        if path == "/login/oauth/access_token" and method == "POST":
            return Reply(*self._oauth.access_token(headers, body))
        return Reply(404, [("Content-Type", "text/html; charset=utf-8")], b"<h1>Not Found</h1>")

    def _respond(self, method: str, path: str, query: dict, headers, body: bytes) -> Reply:
        installation = grant = None
        self._spending = self._rate
        if _JWT_ROUTE.fullmatch(self._route_path(path)):  # a GitHub App's own: its JWT only
            problem = self._hooks.app_problem(headers.get("Authorization"))
            if problem:
                return self._error_reply(401, problem)
            self._spending = self._apps.rate  # the App's own requests: neither budget above
        else:
            credential = self._credential(headers.get("Authorization"))
            if credential is None:
                return self._error_reply(401, "Bad credentials")
            installation = credential if isinstance(credential, _Installation) else None
            grant = credential if isinstance(credential, Grant) else None
            if installation is not None:  # it spends its installation's own budget
                self._spending = self._apps.rate_of(installation)
        fault = self._faults.take(path)
        if fault is not None:
            return self._fault_reply(fault)
        self._spending.roll_window()
        route = self._route_path(path)
        counted = route != "/rate_limit"
        if counted and self._spending.remaining <= 0:
            body = _RATE_LIMIT_BODY
            if installation is not None:
                message = f"API rate limit exceeded for installation ID {installation.id}."
                body = dict(body, message=message)
            return self._json_reply(403, body, self._spending.headers())
        origin = f"http://{headers.get('Host') or f'127.0.0.1:{self.port}'}"
        req = _Request(method, path, route, query, origin, headers, body, installation)
        req.grant = grant
        if installation is not None:
            token = (headers.get("Authorization") or "").partition(" ")[2].strip()
            req.token_permissions = self._apps.token_permissions.get(token)
        return self._answer(req, counted)

    def _answer(self, req: _Request, counted: bool) -> Reply:
        try:
            body, link, *status = self._api.dispatch(req)
        except _HttpError as error:
            self._spending.consume()
            return self._error_reply(error.status, error.message)
        except _Moved as moved:
            self._spending.consume()
            body = {"message": HTTPStatus(moved.status).phrase, "url": moved.location}
            body["documentation_url"] = REDIRECT_DOCS_URL
            headers = [("Location", moved.location)] + self._spending.headers()
            return self._json_reply(moved.status, body, headers)
        body = body.replace(API_BYTES, (req.origin + self.path_prefix).encode())
        etag = f'W/"{hashlib.sha1(body).hexdigest()}"'
        extra = [("ETag", etag)] + ([("Link", link)] if link else [])
        if req.method == "GET" and _etag_matches(req.headers.get("If-None-Match"), etag):
            return Reply(304, extra + self._spending.headers(), None)
        if counted:
            self._spending.consume()
        return self._reply(status[0] if status else 200, body, extra + self._spending.headers())

    def _route_path(self, path: str) -> str:
        if not path.startswith(self.path_prefix + "/"):
            return "/-not-under-prefix-"
        return path[len(self.path_prefix) :].rstrip("/") or "/"

    def _authorized(self, value: str | None) -> bool:
        return self._credential(value) is not None

    def _credential(self, value: str | None):
        """True for the personal token, the _Installation for an unexpired installation token,
        the Grant of an OAuth user's token, None for anything else."""
        scheme, _, credential = (value or "").partition(" ")
        if scheme.lower() not in ("token", "bearer"):
            return None
        credential = credential.strip()
        if credential == self.token:
            return True
        return self._apps.holder(credential) or self._oauth.grant(credential)

    def _fault_reply(self, fault: _Fault) -> Reply:
        body = fault.body if fault.body is not None else _FAULT_BODIES.get(fault.status)
        if body is None:
            body = {"message": HTTPStatus(fault.status).phrase}
        headers = self._spending.headers()
        if fault.status in (403, 429) and fault.limited:
            reset_at = int(time.time()) + (fault.retry_after or 1)
            headers = self._spending.headers(remaining=0, reset_at=reset_at)
        if fault.retry_after is not None:
            headers.append(("Retry-After", str(fault.retry_after)))
        if isinstance(body, dict | list):
            return self._json_reply(fault.status, body, headers)
        raw = body.encode() if isinstance(body, str) else body
        return Reply(fault.status, [("Content-Type", "text/plain; charset=utf-8")] + headers, raw)

    def _error_reply(self, status: int, message: str) -> Reply:
        body = {"message": message, "documentation_url": DOCS_URL, "status": str(status)}
        return self._json_reply(status, body, self._spending.headers())

    def _json_reply(self, status: int, body, headers: list) -> Reply:
        return self._reply(status, _dumps(body), headers)

    def _reply(self, status: int, body: bytes, headers: list) -> Reply:
        common = [
            ("Content-Type", "application/json; charset=utf-8"),
            ("X-GitHub-Media-Type", "github.v3; format=json"),
            ("Cache-Control", "private, max-age=60, s-maxage=60"),
            ("Vary", "Accept, Authorization, Cookie, X-GitHub-OTP"),
        ]
        return Reply(status, common + headers, body)

    def _log_request(self, method, path, query, status, headers, body=b"") -> None:
        seen = {
            "If-None-Match": headers.get("If-None-Match"),
            "Authorization": headers.get("Authorization") is not None,
        }
        _, _, credential = (headers.get("Authorization") or "").partition(" ")
        issued = self._apps.tokens.get(credential.strip())
        try:
            sent = json.loads(body) if body else None
        except ValueError:
            sent = body
        self.requests.append(
            {
                "method": method,
                "path": path,
                "query": query,
                "status": status,
                "headers": seen,
                "body": sent,
                "installation": issued[0] if issued else None,  # whose token, even expired
            }
        )

    # data helpers (lock held)
    def _resolved(self, data: bytes) -> dict:
        base = self.url if self._server else f"http://127.0.0.1{self.path_prefix}"
        return json.loads(data.replace(API_BYTES, base.encode()))

    def _existing_repo(self, repo: str) -> _Repo:
        found = self._store.repo(repo)
        if found is None:
            raise KeyError(f"no repository {repo!r}")
        return found

    def _existing_comment(self, repo: _Repo, comment_id: int) -> _Comment:
        com = repo.comments.get(comment_id)
        if com is None:
            raise KeyError(f"no comment {comment_id} in {repo.full_name}")
        return com

    def _new_record(self, repo, number, title, body, user, created_at) -> tuple[_Repo, _Issue]:
        found = self._store.ensure_repo(repo)
        number = self._store.claim_number(found, number)
        created = to_epoch(created_at) or self._store.tick()
        self._store.observe(created)
        return found, _Issue(number, self._store.new_id(), title, body, user, created)

    def _fill_record(self, repo, rec, state, labels, assignees, comments, fields) -> None:
        if state not in ("open", "closed"):
            raise ValueError(f"state must be open or closed, got {state!r}")
        rec.state = state
        rec.labels = tuple(self._store.ensure_label(repo, name)["name"] for name in labels)
        rec.assignees = tuple(assignees)
        rec.comments = comments
        rec.locked = fields.pop("locked", False)
        rec.author_association = fields.pop("author_association", "NONE")
        rec.reactions = _reaction_counts(fields.pop("reactions", None))
        commits = fields.pop("commits", None)
        rec.commits = tuple(commits) if commits is not None else None
        files = fields.pop("files", None)
        rec.files = _file_entries(files) if files is not None else None
        default_reason = "completed" if state == "closed" and not rec.is_pr else None
        rec.state_reason = fields.pop("state_reason", default_reason)
        rec.extra = fields or None

    def _set_times(self, rec: _Issue, updated_at, closed_at) -> None:
        closed = to_epoch(closed_at)
        if rec.state == "closed" and closed is None:
            closed = to_epoch(updated_at) or max(rec.created, self._store.tick())
        rec.closed = closed if rec.state == "closed" else None
        rec.updated = to_epoch(updated_at) or max(rec.created, rec.closed or 0)
        self._store.observe(rec.created, rec.closed, rec.updated)

    _SIMPLE_FIELDS = (
        "title",
        "body",
        "user",
        "locked",
        "author_association",
        "comments",
        "draft",
        "base",
        "head",
        "merge_commit_sha",
        "merged_by",
        "state_reason",
    )

    def _apply_issue_changes(self, repo: _Repo, rec: _Issue, changes: dict) -> None:
        changes = dict(changes)
        updated_at = changes.pop("updated_at", None)
        was_closed = rec.state == "closed"
        for key in self._SIMPLE_FIELDS:
            if key in changes:
                setattr(rec, key, changes.pop(key))
        self._apply_collections(repo, rec, changes)
        now = to_epoch(updated_at) or self._store.tick()
        self._apply_state(rec, changes, was_closed, now)
        rec.created = to_epoch(changes.pop("created_at", None)) or rec.created
        rec.extra = {**(rec.extra or {}), **changes} or None
        rec.updated = now
        self._store.observe(now)

    def _apply_collections(self, repo: _Repo, rec: _Issue, changes: dict) -> None:
        if "reactions" in changes:
            rec.reactions = _reaction_counts(changes.pop("reactions"))
        if "commits" in changes:  # a push to the PR's branch: a new head commit
            commits = changes.pop("commits")
            rec.commits = tuple(commits) if commits is not None else None
        if "files" in changes:  # what that push changes, all told
            files = changes.pop("files")
            rec.files = _file_entries(files) if files is not None else None
        if "labels" in changes:
            names = changes.pop("labels")
            rec.labels = tuple(self._store.ensure_label(repo, name)["name"] for name in names)
        if "assignees" in changes:
            rec.assignees = tuple(changes.pop("assignees"))

    def _apply_state(self, rec: _Issue, changes: dict, was_closed: bool, now: int) -> None:
        if changes.get("merged") and not rec.merged:
            rec.merged, changes["state"] = True, "closed"
            rec.merged_at = to_epoch(changes.pop("merged_at", None)) or now
            rec.merge_commit_sha = rec.merge_commit_sha or _sha(rec.id, rec.number, "m")
            rec.merged_by = rec.merged_by or rec.user
        changes.pop("merged", None)
        if "merged_at" in changes:
            rec.merged_at = to_epoch(changes.pop("merged_at"))
        rec.state = changes.pop("state", rec.state)
        if "closed_at" in changes:
            rec.closed = to_epoch(changes.pop("closed_at"))
        elif rec.state == "closed" and not was_closed:
            rec.closed = now
            if not rec.is_pr and rec.state_reason is None:
                rec.state_reason = "completed"
        elif rec.state == "open" and was_closed:
            rec.closed = rec.closed_by = None
            rec.state_reason = None if rec.is_pr else "reopened"


# ---------------------------------------------------------------- CLI


def _parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Serve an emulated GitHub REST API.")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--repo", action="append", help="OWNER/NAME; repeatable")
    parser.add_argument("--issues", type=int, default=100)
    parser.add_argument("--comments-per-issue", type=int, default=0)
    parser.add_argument("--pr-every", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--path-prefix", default="")
    parser.add_argument("--token", default="test-token")
    parser.add_argument("--rate-limit", type=int, default=5000, help="requests per hour")
    parser.add_argument(
        "--lazy", action="store_true", help="serialize items when first served, not before READY"
    )
    return parser.parse_args(argv)


@contextlib.contextmanager
def github_for_settings(settings, *, token: str, retries: int | None = None, **options):
    """A GitHubEmulator with the service's settings pointed at it (the pytest-django `settings`
    fixture): its URL and token, no backoff between retries, and `retries` when given."""
    with GitHubEmulator(token=token, **options) as emulator:
        settings.GITHUB_API_URL = emulator.url
        settings.GITHUB_TOKEN = token
        settings.GITHUB_RETRY_BACKOFF = 0
        if retries is not None:
            settings.GITHUB_RETRIES = retries
        yield emulator


def main(argv=None) -> None:
    args = _parse_args(argv)
    emulator = GitHubEmulator(
        token=args.token, path_prefix=args.path_prefix, rate_limit=args.rate_limit
    )
    for repo in args.repo or ["ROCm/ROCm"]:
        emulator.add_repo(repo)
        emulator.bulk_generate(
            repo, args.issues, args.comments_per_issue, pr_every=args.pr_every, seed=args.seed
        )
        if not args.lazy:
            emulator.prerender(repo)
    emulator.serve_until_signalled(port=args.port)


if __name__ == "__main__":
    main()
