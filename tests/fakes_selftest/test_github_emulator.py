"""The GitHub emulator, driven by the real PyGithub client (and requests for raw headers)."""

import hashlib
import hmac
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import github
import pytest
import requests

from tests.fakes.github_api import GitHubEmulator
from tests.fakes.github_hooks import app_key_pair
from tests.fakes.http_emulator import HttpEmulator, Reply

REPO = "ROCm/hipBLASLt"
PROJECT_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def emu():
    with GitHubEmulator(token="t") as emulator:
        emulator.add_repo(REPO)
        yield emulator


def client(emulator: GitHubEmulator) -> github.Github:
    return github.Github(
        auth=github.Auth.Token("t"),
        base_url=emulator.url,
        per_page=100,
        retry=0,
        seconds_between_requests=None,
    )


def raw_get(emulator: GitHubEmulator, path: str, **headers) -> requests.Response:
    headers.setdefault("Authorization", "token t")
    return requests.get(emulator.url + path, headers=headers, timeout=10)


def add_issues(emulator: GitHubEmulator, count: int) -> None:
    for index in range(count):
        emulator.add_issue(REPO, title=f"Issue {index}", state="closed" if index % 3 else "open")


def test_it_pages_through_every_issue_in_updated_order(emu):
    add_issues(emu, 250)
    emu.update_issue(REPO, 1, title="Touched last")
    repo = client(emu).get_repo(REPO)
    emu.clear_log()

    issues = list(repo.get_issues(state="all", sort="updated", direction="asc"))

    assert emu.count(path_contains="/issues") == 3
    assert sorted(issue.number for issue in issues) == list(range(1, 251))
    stamps = [issue.updated_at for issue in issues]
    assert stamps == sorted(stamps) and len(set(stamps)) == 250
    assert issues[-1].title == "Touched last"


def test_it_sends_github_link_headers(emu):
    add_issues(emu, 250)

    response = raw_get(emu, f"/repos/{REPO}/issues?state=all&per_page=100&page=2")

    assert set(response.links) == {"prev", "next", "last", "first"}
    assert response.links["last"]["url"].startswith(emu.url)
    assert "state=all" in response.links["next"]["url"]
    assert "page=3" in response.links["next"]["url"]
    assert len(response.json()) == 100


def test_it_filters_by_since(emu):
    add_issues(emu, 20)
    cutoff = emu.issue(REPO, 15)["updated_at"]
    emu.update_issue(REPO, 3, body="edited")

    numbers = [
        issue.number
        for issue in client(emu)
        .get_repo(REPO)
        .get_issues(
            state="all", since=datetime.fromisoformat(cutoff), sort="updated", direction="asc"
        )
    ]

    assert numbers == [15, 16, 17, 18, 19, 20, 3]


def test_it_lists_only_open_issues_by_default_newest_first(emu):
    add_issues(emu, 6)

    numbers = [issue.number for issue in client(emu).get_repo(REPO).get_issues()]

    assert numbers == [4, 1]


def test_it_serves_a_pull_request_in_both_forms(emu):
    emu.add_issue(REPO, title="Hang on gfx942")
    emu.add_pull(REPO, title="Fix hang", merged=True, head="fix/hang")
    repo = client(emu).get_repo(REPO)

    listed = {issue.number: issue for issue in repo.get_issues(state="all")}
    pull = repo.get_pull(2)

    assert listed[1].pull_request is None
    assert listed[2].pull_request.html_url.endswith(f"/{REPO}/pull/2")
    assert pull.merged and pull.head.ref == "fix/hang" and pull.base.ref == "main"
    assert pull.id != listed[2].id
    assert [p.number for p in repo.get_pulls(state="closed")] == [2]


def test_it_serves_comments_per_issue_and_per_repository(emu):
    emu.add_issue(REPO, title="One")
    first = emu.add_comment(REPO, 1, "Can you share rocminfo?", user="ada-hip")
    emu.add_comment(REPO, 1, "Attached.", user="bo-gpu")
    repo = client(emu).get_repo(REPO)

    issue_comments = list(repo.get_issue(1).get_comments())
    repo_comments = list(repo.get_issues_comments(sort="updated", direction="desc"))

    assert [c.body for c in issue_comments] == ["Can you share rocminfo?", "Attached."]
    assert [c.user.login for c in repo_comments] == ["bo-gpu", "ada-hip"]
    assert first["html_url"] == f"https://github.com/{REPO}/issues/1#issuecomment-{first['id']}"
    assert first["issue_url"] == f"{emu.url}/repos/{REPO}/issues/1"
    assert repo.get_issue(1).comments == 2


def test_it_forgets_deleted_issues(emu):
    add_issues(emu, 3)
    emu.delete_issue(REPO, 2)
    repo = client(emu).get_repo(REPO)

    assert [i.number for i in repo.get_issues(state="all", direction="asc")] == [1, 3]
    with pytest.raises(github.UnknownObjectException):
        repo.get_issue(2)


def test_it_answers_304_to_a_matching_etag_without_using_rate_limit(emu):
    add_issues(emu, 3)
    first = raw_get(emu, f"/repos/{REPO}/issues")

    again = raw_get(emu, f"/repos/{REPO}/issues", **{"If-None-Match": first.headers["ETag"]})

    assert first.headers["ETag"].startswith('W/"')
    assert again.status_code == 304 and again.content == b""
    remaining = first.headers["x-ratelimit-remaining"]
    assert again.headers["x-ratelimit-remaining"] == remaining
    assert emu.requests[-1]["headers"] == {
        "If-None-Match": first.headers["ETag"],
        "Authorization": True,
    }


def test_it_counts_requests_against_the_rate_limit(emu):
    emu.set_rate_limit(10)

    response = raw_get(emu, f"/repos/{REPO}")

    assert response.headers["x-ratelimit-remaining"] == "9"
    assert response.headers["x-ratelimit-used"] == "4991"
    assert response.headers["x-ratelimit-resource"] == "core"


def test_an_exhausted_rate_limit_raises_rate_limit_exceeded(emu):
    repo = client(emu).get_repo(REPO)
    emu.set_rate_limit(0)

    with pytest.raises(github.RateLimitExceededException) as raised:
        repo.get_issue(1)

    assert raised.value.status == 403
    assert raised.value.headers["x-ratelimit-remaining"] == "0"


def test_an_injected_rate_limit_hits_the_middle_of_a_backfill(emu):
    add_issues(emu, 250)
    repo = client(emu).get_repo(REPO)
    emu.inject_fault(403, after_requests=1, path_contains="/issues")

    with pytest.raises(github.RateLimitExceededException):
        list(repo.get_issues(state="all"))

    assert emu.count(status=403) == 1
    assert len(list(repo.get_issues(state="all"))) == 250


def test_an_injected_502_surfaces_as_github_exception(emu):
    add_issues(emu, 150)
    repo = client(emu).get_repo(REPO)
    emu.inject_fault(502, after_requests=1, path_contains="/issues")

    with pytest.raises(github.GithubException) as raised:
        list(repo.get_issues(state="all"))

    assert raised.value.status == 502
    assert raised.value.data == {"message": "Server Error"}


def test_an_injected_429_carries_retry_after(emu):
    emu.inject_fault(429, retry_after=7)

    response = raw_get(emu, f"/repos/{REPO}")

    assert response.status_code == 429
    assert response.headers["Retry-After"] == "7"
    assert raw_get(emu, f"/repos/{REPO}").status_code == 200


def test_it_serves_github_enterprise_under_a_path_prefix():
    with GitHubEmulator(token="t", path_prefix="/api/v3") as emu:
        for index in range(120):
            emu.add_issue(REPO, title=f"Issue {index}")

        repo = client(emu).get_repo(REPO)
        issues = list(repo.get_issues())

        assert emu.url.endswith("/api/v3")
        assert len(issues) == 120
        assert issues[0].url.startswith(emu.url + "/repos/")
        assert all(entry["path"].startswith("/api/v3/") for entry in emu.requests)


def test_it_rejects_requests_without_the_token(emu):
    missing = requests.get(f"{emu.url}/repos/{REPO}", timeout=10)
    wrong = raw_get(emu, f"/repos/{REPO}", Authorization="token nope")

    assert missing.status_code == 401 == wrong.status_code
    assert missing.json()["message"] == "Bad credentials"
    with pytest.raises(github.BadCredentialsException):
        github.Github(auth=github.Auth.Token("nope"), base_url=emu.url, retry=0).get_user().login


def test_unknown_repositories_are_not_found_and_lookups_ignore_case(emu):
    gh = client(emu)

    assert gh.get_repo(REPO.upper()).full_name == REPO
    with pytest.raises(github.UnknownObjectException):
        gh.get_repo("ROCm/nothing-here")


def test_it_serves_the_user_rate_limit_and_labels(emu):
    emu.add_issue(REPO, labels=["bug", "gfx942"])
    gh = client(emu)

    assert gh.get_user().login == "octocat"
    assert gh.get_rate_limit().resources.core.limit == 5000
    assert {label.name for label in gh.get_repo(REPO).get_labels()} == {"bug", "gfx942"}


def test_bulk_generate_builds_a_realistic_repository(emu):
    emu.bulk_generate(REPO, 1000, n_comments_per_issue=2)
    repo = client(emu).get_repo(REPO)

    pulls = list(repo.get_pulls(state="all"))
    first = repo.get_issue(1)

    assert len(pulls) == 100
    assert any(repo.get_pull(p.number).merged for p in pulls[:20])
    assert first.comments == 2 and first.labels
    assert repo.get_issues(state="all").totalCount == 1000


def test_the_command_line_serves_generated_issues_until_terminated():
    command = [sys.executable, "-m", "tests.fakes.github_api", "--repo", REPO, "--issues", "50"]
    server = subprocess.Popen(
        command + ["--token", "cli"], stdout=subprocess.PIPE, text=True, cwd=PROJECT_ROOT
    )
    try:
        ready = server.stdout.readline().split()
        response = requests.get(
            f"{ready[1]}/repos/{REPO}/issues?state=all&per_page=20",
            headers={"Authorization": "Bearer cli"},
            timeout=10,
        )
    finally:
        server.terminate()

    assert ready[0] == "READY"
    assert len(response.json()) == 20 and "last" in response.links
    assert server.wait(timeout=10) == 0


def test_reactions_roll_up_like_githubs_without_moving_updated_at(emu):
    emu.add_issue(REPO, title="Hang", reactions={"+1": 2})
    comment = emu.add_comment(REPO, 1, "Same")
    before = emu.issue(REPO, 1)["updated_at"]
    emu.add_reaction(REPO, 1, "heart")
    emu.add_reaction(REPO, 1, "+1", comment_id=comment["id"])
    repo = client(emu).get_repo(REPO)

    issue = repo.get_issue(1)
    raw = raw_get(emu, f"/repos/{REPO}/issues/1").json()["reactions"]

    assert list(raw) == ["url", "total_count", "+1", "-1", "laugh", "hooray", "confused"] + [
        "heart",
        "rocket",
        "eyes",
    ]
    assert (raw["total_count"], raw["+1"], raw["heart"]) == (3, 2, 1)
    assert raw["url"] == f"{emu.url}/repos/{REPO}/issues/1/reactions"
    assert issue.reactions["total_count"] == 3
    assert issue.raw_data["updated_at"] == before
    assert next(iter(issue.get_comments())).raw_data["reactions"]["+1"] == 1
    with pytest.raises(ValueError, match="reactions are one of"):
        emu.add_issue(REPO, reactions={"thumbsup": 1})


def test_it_lists_a_pull_requests_commits_paginated_with_its_head_last(emu):
    emu.add_pull(REPO, title="Fix", merged=True, commits=[f"step {i}" for i in range(120)])
    pull = client(emu).get_repo(REPO).get_pull(1)
    emu.clear_log()

    commits = list(pull.get_commits())

    assert [c.commit.message for c in commits] == [f"step {i}" for i in range(120)]
    assert emu.count(path_contains="/pulls/1/commits") == 2
    assert commits[-1].sha == pull.head.sha
    assert pull.commits == 120
    assert commits[1].parents[0].sha == commits[0].sha
    assert commits[0].commit.author.name == "octocat"
    emu.update_issue(REPO, 1, commits=["squashed"])
    assert client(emu).get_repo(REPO).get_pull(1).head.sha != pull.head.sha


def test_a_pull_request_without_given_commits_has_generated_ones(emu):
    emu.add_pull(REPO, number=6, title="Fix tiles", body="Fixes #3")
    commits = emu.commits(REPO, 6)
    assert len(commits) == 1 + 6 % 7
    assert commits[0]["commit"]["message"] == "Fix tiles\n\nFixes #3"
    assert raw_get(emu, f"/repos/{REPO}/pulls/6").json()["head"]["sha"] == commits[-1]["sha"]


def test_it_lists_a_pull_requests_changed_files_paginated_with_a_rename(emu):
    files = [f"src/hip/kernel{i}.cpp" for i in range(149)]
    files.append({"filename": "docs/new.md", "status": "renamed", "previous_filename": "old.md"})
    emu.add_pull(REPO, number=3, files=files)
    pull = client(emu).get_repo(REPO).get_pull(3)
    emu.clear_log()

    listed = list(pull.get_files())

    assert [f.filename for f in listed] == [*files[:149], "docs/new.md"]
    assert emu.count(path_contains="/pulls/3/files") == 2
    assert pull.changed_files == 150
    assert (listed[0].status, listed[0].additions, listed[0].changes) == ("modified", 1, 1)
    assert (listed[-1].status, listed[-1].previous_filename) == ("renamed", "old.md")
    assert listed[0].blob_url.endswith(f"/blob/{pull.head.sha}/src/hip/kernel0.cpp")
    emu.update_issue(REPO, 3, commits=["push"], files=["README.md"])
    assert [f["filename"] for f in emu.pull_files(REPO, 3)] == ["README.md"]


def test_a_pull_requests_files_stop_at_3000_as_on_github(emu):
    emu.add_pull(REPO, number=4, files=[f"f{i}" for i in range(3005)])
    assert len(emu.pull_files(REPO, 4)) == 3000
    last = raw_get(emu, f"/repos/{REPO}/pulls/4/files?per_page=100&page=30").json()
    assert last[-1]["filename"] == "f2999"


def test_pygithub_requests_reviews_from_collaborators_and_teams(emu):
    emu.add_collaborator(REPO, "ada-hip")
    emu.add_team(REPO, "hip-team")
    emu.add_pull(REPO, number=5, user="author1")
    pull = client(emu).get_repo(REPO).get_pull(5)

    pull.create_review_request(reviewers=["ADA-HIP"], team_reviewers=["hip-team"])
    again = requests.post(
        f"{emu.url}/repos/{REPO}/pulls/5/requested_reviewers",
        json={"reviewers": ["ada-hip"]},
        headers={"Authorization": "token t"},
        timeout=10,
    )

    assert again.status_code == 201 and again.json()["number"] == 5
    answer = client(emu).get_repo(REPO).get_pull(5)
    assert [u.login for u in answer.requested_reviewers] == ["ada-hip"]
    assert [t.slug for t in answer.requested_teams] == ["hip-team"]
    users, teams = pull.get_review_requests()
    assert ([u.login for u in users], [t.slug for t in teams]) == (["ada-hip"], ["hip-team"])
    assert emu.requested_reviewers(REPO, 5) == {"users": ["ada-hip"], "teams": ["hip-team"]}


@pytest.mark.parametrize(
    ("reviewers", "teams", "message"),
    [
        (["mallory"], [], "Reviews may only be requested from collaborators"),
        ([], ["other-team"], "Reviews may only be requested from collaborators"),
        (["author1"], [], "Review cannot be requested from pull request author."),
    ],
)
def test_a_review_request_github_refuses_is_422_and_changes_nothing(emu, reviewers, teams, message):
    emu.add_collaborator(REPO, "ada-hip")
    emu.add_collaborator(REPO, "author1")
    emu.add_team(REPO, "hip-team")
    emu.add_pull(REPO, number=5, user="author1")
    pull = client(emu).get_repo(REPO).get_pull(5)

    with pytest.raises(github.GithubException) as refused:
        pull.create_review_request(reviewers=["ada-hip", *reviewers], team_reviewers=teams)

    assert refused.value.status == 422 and message in refused.value.data["message"]
    assert emu.requested_reviewers(REPO, 5) == {"users": [], "teams": []}


def test_pygithub_adds_labels_and_the_write_counts_against_the_rate_limit(emu):
    emu.add_label(REPO, "bug")
    emu.add_issue(REPO, title="Crash", labels=["question"])
    issue = client(emu).get_repo(REPO).get_issue(1)
    remaining = emu.rate_limit_remaining
    before = emu.issue(REPO, 1)["updated_at"]

    issue.add_to_labels("BUG", "triaged")  # PyGithub posts a bare list of names
    answer = requests.post(
        f"{emu.url}/repos/{REPO}/issues/1/labels",
        json={"labels": ["question", "needs repro"]},
        headers={"Authorization": "token t"},
        timeout=10,
    )

    assert answer.status_code == 200
    assert [label["name"] for label in answer.json()] == [
        "question",
        "bug",
        "triaged",
        "needs repro",
    ]
    assert emu.rate_limit_remaining == remaining - 2
    assert emu.requests[-1]["body"] == {"labels": ["question", "needs repro"]}
    assert emu.issue(REPO, 1)["updated_at"] >= before
    bad = requests.post(
        f"{emu.url}/repos/{REPO}/issues/1/labels",
        json={"labels": "bug"},
        headers={"Authorization": "token t"},
        timeout=10,
    )
    assert bad.status_code == 422
    missing = requests.post(
        f"{emu.url}/repos/{REPO}/issues/99/labels",
        json=["bug"],
        headers={"Authorization": "token t"},
        timeout=10,
    )
    assert missing.status_code == 404


# --- writes a bot makes: issue and comment edits, labels, assignees, reactions ---------------

AUTH = {"Authorization": "token t"}


def test_pygithub_edits_an_issue_and_closes_it_as_not_planned(emu):
    emu.add_issue(REPO, title="Crash", labels=["bug"], assignees=["ada-hip"])
    issue = client(emu).get_repo(REPO).get_issue(1)
    before = issue.updated_at

    issue.edit(
        title="Crash in GEMM",
        body="Repro attached",
        labels=["bug", "triaged"],
        assignees=["bo-gpu"],
        state="closed",
        state_reason="not_planned",
    )

    assert (issue.title, issue.body, issue.state) == ("Crash in GEMM", "Repro attached", "closed")
    assert issue.state_reason == "not_planned" and issue.closed_by.login == "octocat"
    assert [label.name for label in issue.labels] == ["bug", "triaged"]
    assert [user.login for user in issue.assignees] == ["bo-gpu"]
    assert issue.closed_at == issue.updated_at > before
    assert emu.issue(REPO, 1)["state_reason"] == "not_planned"


def test_closing_without_a_reason_is_completed_and_reopening_is_reopened(emu):
    emu.add_issue(REPO)
    issue = client(emu).get_repo(REPO).get_issue(1)

    issue.edit(state="closed")
    closed = (issue.state_reason, issue.closed_at is not None)
    issue.edit(state="open")

    assert closed == ("completed", True)
    assert (issue.state, issue.state_reason, issue.closed_at) == ("open", "reopened", None)


def test_an_issue_edit_with_a_bad_value_is_422_and_changes_nothing(emu):
    emu.add_issue(REPO, title="Crash")
    emu.add_collaborator(REPO, "ada-hip")
    issue = client(emu).get_repo(REPO).get_issue(1)

    for bad in (
        {"state": "merged"},
        {"state": "closed", "state_reason": "reopened"},
        {"title": ""},
        {"title": "Renamed", "assignees": ["mallory"]},
    ):
        with pytest.raises(github.GithubException) as raised:
            issue.edit(**bad)
        assert raised.value.status == 422
        assert raised.value.data["message"] == "Validation Failed"
    labels = requests.patch(issue.url, json={"labels": "bug"}, headers=AUTH, timeout=10)
    assert labels.status_code == 422
    assert (emu.issue(REPO, 1)["title"], emu.issue(REPO, 1)["state"]) == ("Crash", "open")


def test_pygithub_edits_a_comment(emu):
    emu.add_issue(REPO)
    emu.add_comment(REPO, 1, "Draft")
    comment = next(iter(client(emu).get_repo(REPO).get_issue(1).get_comments()))

    comment.edit("Final")

    assert comment.body == "Final" and comment.updated_at > comment.created_at
    assert [c["body"] for c in emu.comments(REPO, 1)] == ["Final"]
    missing = requests.patch(
        f"{emu.url}/repos/{REPO}/issues/comments/999", json={"body": "x"}, headers=AUTH, timeout=10
    )
    assert missing.status_code == 404


def test_pygithub_removes_a_label_by_name_and_a_label_it_lacks_is_404(emu):
    emu.add_issue(REPO, labels=["bug", "needs repro", "gfx942"])
    issue = client(emu).get_repo(REPO).get_issue(1)

    issue.remove_from_labels("Needs Repro")  # any case, URL-encoded by PyGithub
    left = requests.delete(f"{emu.url}/repos/{REPO}/issues/1/labels/bug", headers=AUTH, timeout=10)

    assert left.status_code == 200 and [label["name"] for label in left.json()] == ["gfx942"]
    with pytest.raises(github.GithubException) as raised:  # not "Not Found": no UnknownObject
        issue.remove_from_labels("triaged")
    assert (raised.value.status, raised.value.data["message"]) == (404, "Label does not exist")


def test_pygithub_locks_and_unlocks_an_issue_as_github_does(emu):
    emu.add_issue(REPO)
    issue = client(emu).get_repo(REPO).get_issue(1)
    before = emu.issue(REPO, 1)["updated_at"]

    issue.lock("too heated")
    locked = emu.issue(REPO, 1)
    bad = requests.put(
        f"{emu.url}/repos/{REPO}/issues/1/lock",
        json={"lock_reason": "boring"},
        headers=AUTH,
        timeout=10,
    )
    issue.unlock()
    again = requests.delete(f"{emu.url}/repos/{REPO}/issues/1/lock", headers=AUTH, timeout=10)

    assert (locked["locked"], locked["active_lock_reason"]) == (True, "too heated")
    assert locked["updated_at"] >= before and bad.status_code == 422
    assert emu.issue(REPO, 1)["locked"] is False and again.status_code == 404


def test_pygithub_replaces_an_issues_labels(emu):
    emu.add_issue(REPO, labels=["bug"])
    issue = client(emu).get_repo(REPO).get_issue(1)

    issue.set_labels("question", "gfx942", "QUESTION")
    after = [label["name"] for label in emu.issue(REPO, 1)["labels"]]
    cleared = requests.put(
        f"{emu.url}/repos/{REPO}/issues/1/labels", json={"labels": []}, headers=AUTH, timeout=10
    )

    assert after == ["question", "gfx942"]
    assert (cleared.status_code, cleared.json()) == (200, [])


def test_only_collaborators_are_assigned_and_others_are_silently_left_out(emu):
    emu.add_collaborator(REPO, "ada-hip")
    emu.add_collaborator(REPO, "bo-gpu")
    emu.add_issue(REPO)
    issue = client(emu).get_repo(REPO).get_issue(1)

    issue.add_to_assignees("ada-hip", "mallory", "BO-GPU")
    added = [user.login for user in issue.assignees]
    issue.remove_from_assignees("ada-hip", "nobody")

    assert added == ["ada-hip", "bo-gpu"]
    assert [user.login for user in issue.assignees] == ["bo-gpu"]
    assert [e["status"] for e in emu.requests if e["path"].endswith("/assignees")] == [201, 200]


def test_without_collaborators_every_login_is_assignable(emu):
    emu.add_issue(REPO)
    issue = client(emu).get_repo(REPO).get_issue(1)

    issue.add_to_assignees("anyone")

    assert [user["login"] for user in emu.issue(REPO, 1)["assignees"]] == ["anyone"]


def test_a_reaction_is_201_then_200_for_the_same_content_and_422_for_an_unknown_one(emu):
    emu.add_issue(REPO)
    comment = emu.add_comment(REPO, 1, "Same here")
    repo = client(emu).get_repo(REPO)
    issue = repo.get_issue(1)

    first = issue.create_reaction("heart")
    again = issue.create_reaction("heart")
    on_comment = issue.get_comment(comment["id"]).create_reaction("+1")
    with pytest.raises(github.GithubException) as raised:
        issue.create_reaction("thumbsup")

    statuses = [e["status"] for e in emu.requests if e["path"].endswith("/reactions")]
    assert statuses == [201, 200, 201, 422] and raised.value.status == 422
    assert (again.id, first.user.login, first.content) == (first.id, "octocat", "heart")
    assert [(r.user.login, r.content) for r in issue.get_reactions()] == [("octocat", "heart")]
    assert emu.reactions(REPO, comment_id=comment["id"])[0]["id"] == on_comment.id
    refreshed = repo.get_issue(1)
    assert refreshed.reactions["heart"] == 1 and refreshed.updated_at == issue.updated_at


def test_every_write_counts_against_the_rate_limit(emu):
    emu.add_issue(REPO)
    comment = emu.add_comment(REPO, 1, "Draft")
    issue = client(emu).get_repo(REPO).get_issue(1)
    draft = issue.get_comment(comment["id"])  # a GET
    remaining = emu.rate_limit_remaining

    issue.edit(title="Triaged")
    draft.edit("Final")
    issue.set_labels("bug")
    issue.remove_from_labels("bug")
    issue.add_to_assignees("ada-hip")
    issue.remove_from_assignees("ada-hip")
    issue.create_reaction("eyes")

    assert emu.rate_limit_remaining == remaining - 7
    emu.set_rate_limit(0)
    with pytest.raises(github.RateLimitExceededException):
        issue.edit(state="closed")
    assert emu.issue(REPO, 1)["state"] == "open"


def test_an_injected_403_on_a_write_surfaces_as_github_exception(emu):
    emu.add_issue(REPO)
    issue = client(emu).get_repo(REPO).get_issue(1)
    emu.inject_fault(403, path_contains="/issues/1/assignees", body={"message": "Forbidden"})

    with pytest.raises(github.GithubException) as raised:
        issue.add_to_assignees("ada-hip")

    assert raised.value.status == 403 and raised.value.data == {"message": "Forbidden"}
    assert emu.issue(REPO, 1)["assignees"] == []
    issue.add_to_assignees("ada-hip")  # the fault fired once
    assert [user.login for user in issue.assignees] == ["ada-hip"]


def test_writes_to_what_does_not_exist_are_404(emu):
    emu.add_issue(REPO)
    writes = [
        ("patch", "/repos/ROCm/nothing/issues/1", {"title": "x"}),
        ("patch", f"/repos/{REPO}/issues/99", {"title": "x"}),
        ("put", f"/repos/{REPO}/issues/99/labels", {"labels": ["bug"]}),
        ("post", f"/repos/{REPO}/issues/99/assignees", {"assignees": ["ada-hip"]}),
        ("delete", f"/repos/{REPO}/issues/99/assignees", {"assignees": ["ada-hip"]}),
        ("post", f"/repos/{REPO}/issues/99/reactions", {"content": "+1"}),
        ("post", f"/repos/{REPO}/issues/comments/99/reactions", {"content": "+1"}),
    ]

    for method, path, body in writes:
        answer = requests.request(method, emu.url + path, json=body, headers=AUTH, timeout=10)
        assert answer.status_code == 404, (method, path)


# --- webhooks: hooks, their deliveries, redelivery (tests/fakes/github_hooks.py) --------------


class Receiver(HttpEmulator):
    """A webhook endpoint for the emulator to deliver to: answers `status`, keeps each request."""

    thread_name = "hook-receiver"

    def __init__(self, status: int = 202):
        self.status, self.received = status, []

    def handle(self, method, raw_path, headers, body=b""):
        self.received.append({"path": raw_path, "headers": dict(headers), "body": body})
        return Reply(self.status, [("Content-Type", "application/json")], b'{"ok": true}')


@pytest.fixture
def receiver():
    with Receiver() as endpoint:
        yield endpoint


def issue_event(number: int = 1) -> dict:
    return {
        "action": "opened",
        "issue": {"number": number, "title": f"Issue {number}"},
        "repository": {"id": 42, "full_name": REPO},
    }


def test_a_hook_delivers_signed_with_githubs_headers_and_records_the_answer(emu, receiver):
    hook_id = emu.add_hook(repo=REPO, url=f"{receiver.url}/webhooks/github/", secret="s3cret")

    ok = emu.deliver(hook_id, "issues", issue_event(1))
    receiver.status = 503
    failed = emu.deliver(hook_id, "issues", issue_event(2))

    first = receiver.received[0]
    headers, body = first["headers"], first["body"]
    assert first["path"] == "/webhooks/github/"
    assert headers["X-GitHub-Delivery"] == ok["guid"]
    assert headers["X-GitHub-Event"] == "issues"
    assert headers["X-GitHub-Hook-ID"] == str(hook_id)
    assert headers["X-GitHub-Hook-Installation-Target-Type"] == "repository"
    assert headers["X-GitHub-Hook-Installation-Target-ID"] == str(emu.add_repo(REPO)["id"])
    expected = hmac.new(b"s3cret", body, hashlib.sha256).hexdigest()
    assert headers["X-Hub-Signature-256"] == f"sha256={expected}"
    assert headers["User-Agent"].startswith("GitHub-Hookshot/")
    listed = list(client(emu).get_repo(REPO).get_hook_deliveries(hook_id))
    assert [(d.guid, d.status, d.status_code, d.redelivery) for d in listed] == [
        (failed["guid"], "Invalid HTTP Response: 503", 503, False),
        (ok["guid"], "OK", 202, False),
    ]
    assert (listed[1].event, listed[1].action, listed[1].repository_id) == ("issues", "opened", 42)
    assert listed[1].installation_id is None


def test_an_unreachable_hook_is_recorded_as_failed_to_connect(emu):
    hook_id = emu.add_hook(repo=REPO, url="http://127.0.0.1:9/webhooks/github/", secret="s")

    delivery = emu.deliver(hook_id, "issues", issue_event())

    assert (delivery["status"], delivery["status_code"]) == ("failed to connect to host", 0)


def test_deliveries_are_listed_newest_first_in_cursor_pages_of_up_to_100(emu):
    hook_id = emu.add_hook(repo=REPO, url="http://127.0.0.1:9/hook", secret="s")
    for number in range(250):
        emu.record_delivery(hook_id, "issues", issue_event(number), status_code=200)

    page = raw_get(emu, f"/repos/{REPO}/hooks/{hook_id}/deliveries?per_page=500")
    assert len(page.json()) == 100
    assert set(page.links) == {"next"} and "cursor=" in page.links["next"]["url"]
    second = requests.get(
        page.links["next"]["url"], headers={"Authorization": "token t"}, timeout=10
    )
    assert set(second.links) == {"next", "prev"}
    assert second.json()[0]["id"] == page.json()[-1]["id"] - 1
    emu.clear_log()
    listed = list(client(emu).get_repo(REPO).get_hook_deliveries(hook_id))
    ids = [delivery.id for delivery in listed]
    assert len(ids) == 250 and ids == sorted(ids, reverse=True)
    assert emu.count(path_contains="/deliveries") == 3
    assert raw_get(emu, f"/repos/{REPO}/hooks/{hook_id}/deliveries?cursor=junk").status_code == 400


def test_a_redelivery_is_answered_202_and_sent_again_with_the_same_guid(emu, receiver):
    hook_id = emu.add_hook(repo=REPO, url=f"{receiver.url}/hook", secret="s")
    receiver.status = 500
    failed = emu.deliver(hook_id, "issues", issue_event())
    receiver.status = 202
    gh = client(emu)

    headers, _ = gh.requester.requestJsonAndCheck(
        "POST", f"/repos/{REPO}/hooks/{hook_id}/deliveries/{failed['id']}/attempts"
    )
    emu.wait_for_redeliveries()

    assert emu.requests[-1]["status"] == 202
    again = receiver.received[-1]
    assert again["headers"]["X-GitHub-Delivery"] == failed["guid"]
    assert again["body"] == receiver.received[0]["body"]
    newest, oldest = emu.hook_deliveries(hook_id)
    assert (newest["guid"], newest["redelivery"], newest["status"]) == (failed["guid"], True, "OK")
    assert newest["id"] > oldest["id"] and oldest["status"] == "Invalid HTTP Response: 500"
    only_redeliveries = gh.get_repo(REPO).get_hook_delivery(hook_id, newest["id"])
    assert only_redeliveries.request.headers["X-GitHub-Delivery"] == failed["guid"]


def test_a_delivery_older_than_3_days_is_not_redelivered(emu):
    hook_id = emu.add_hook(repo=REPO, url="http://127.0.0.1:9/hook", secret="s")
    old = emu.record_delivery(
        hook_id, "issues", issue_event(), status_code=500, delivered_at=time.time() - 4 * 86400
    )

    answer = requests.post(
        f"{emu.url}/repos/{REPO}/hooks/{hook_id}/deliveries/{old['id']}/attempts",
        headers={"Authorization": "token t"},
        timeout=10,
    )

    assert answer.status_code == 422
    assert len(emu.hook_deliveries(hook_id)) == 1


def test_hooks_are_listed_with_their_url_and_no_secret_and_need_admin_rights(emu):
    hook_id = emu.add_hook(repo=REPO, url="https://triage.example.org/webhooks/github/", secret="s")

    (hook,) = client(emu).get_repo(REPO).get_hooks()
    assert (hook.id, hook.active, hook.config["url"]) == (
        hook_id,
        True,
        "https://triage.example.org/webhooks/github/",
    )
    assert hook.config["secret"] == "********"
    emu.deny_hooks(REPO)
    assert raw_get(emu, f"/repos/{REPO}/hooks").status_code == 404
    assert raw_get(emu, f"/repos/{REPO}/hooks/{hook_id}/deliveries").status_code == 200


def test_an_organization_hook_lists_and_redelivers_under_orgs(emu, receiver):
    hook_id = emu.add_hook(org="ROCm", url=f"{receiver.url}/hook", secret="s")
    emu.deliver(hook_id, "issues", issue_event())
    org = client(emu).withLazy(True).get_organization("ROCm")

    (delivery,) = org.get_hook_deliveries(hook_id)

    assert receiver.received[0]["headers"]["X-GitHub-Hook-Installation-Target-Type"] == (
        "organization"
    )
    assert delivery.status == "OK"
    assert raw_get(emu, f"/repos/{REPO}/hooks/{hook_id}/deliveries").status_code == 404
    assert [h.id for h in org.get_hooks()] == [hook_id]


def test_the_app_hook_takes_only_the_apps_jwt(emu, receiver):
    pem, public = app_key_pair()
    emu.add_app(4242, public)
    hook_id = emu.add_hook(app=True, url=f"{receiver.url}/hook", secret="s")
    emu.deliver(hook_id, "issues", issue_event())

    def app_client(app_id, key):
        return github.Github(auth=github.Auth.AppAuth(app_id, key), base_url=emu.url, retry=0)

    headers, items = app_client(4242, pem).requester.requestJsonAndCheck(
        "GET", "/app/hook/deliveries"
    )
    assert [item["status"] for item in items] == ["OK"]
    assert receiver.received[0]["headers"]["X-GitHub-Hook-Installation-Target-Type"] == (
        "integration"
    )
    other_pem, _ = app_key_pair()
    for refused in (app_client(4242, other_pem), app_client(99, pem), client(emu)):
        with pytest.raises(github.GithubException) as error:
            refused.requester.requestJsonAndCheck("GET", "/app/hook/deliveries")
        assert error.value.status == 401
