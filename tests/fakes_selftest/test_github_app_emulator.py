"""The GitHub emulator as a GitHub App sees it: installations, their tokens, and what a token
opens, through the real PyGithub (GithubIntegration, Auth.AppInstallationAuth)."""

from __future__ import annotations

import github
import pytest
import requests

from tests.fakes.github_api import GitHubEmulator
from tests.fakes.github_hooks import app_key_pair

APP_ID = 4242


@pytest.fixture(scope="module")
def key_pair():
    return app_key_pair()


@pytest.fixture
def emu(key_pair):
    with GitHubEmulator(token="personal") as emulator:
        emulator.add_app(APP_ID, key_pair[1])
        yield emulator


@pytest.fixture
def app(emu, key_pair) -> github.Auth.AppAuth:
    return github.Auth.AppAuth(APP_ID, key_pair[0])


def integration(emu, app) -> github.GithubIntegration:
    return github.GithubIntegration(auth=app, base_url=emu.url, retry=0)


def installation_client(emu, app, installation_id: int) -> github.Github:
    auth = app.get_installation_auth(installation_id)
    return github.Github(auth=auth, base_url=emu.url, retry=0)


def get(emu, path: str, token: str) -> requests.Response:
    return requests.get(f"{emu.url}{path}", headers={"Authorization": f"token {token}"}, timeout=5)


def test_it_finds_the_installation_of_a_repository(emu, app):
    emu.add_repo("ROCm/ROCm")
    emu.add_repo("ROCm/hip")
    emu.add_repo("other/tool")
    whole_org = emu.add_installation("ROCm")
    chosen = emu.add_installation("other", repos=["other/tool"])

    found = integration(emu, app)

    assert found.get_repo_installation("ROCm", "hip").id == whole_org
    assert found.get_repo_installation("other", "tool").id == chosen
    assert found.get_repo_installation("ROCm", "ROCm").raw_data["repository_selection"] == "all"
    assert sorted(i.id for i in found.get_installations()) == sorted([whole_org, chosen])
    emu.add_repo("nobody/else")
    with pytest.raises(github.UnknownObjectException):
        found.get_repo_installation("nobody", "else")


def test_an_installation_token_is_201_with_its_expiry_and_permissions(emu, app):
    emu.add_repo("ROCm/ROCm")
    installation = emu.add_installation("ROCm", permissions={"issues": "write", "metadata": "read"})

    token = integration(emu, app).get_access_token(installation)

    assert token.token.startswith("ghs_")
    assert token.expires_at is not None
    assert token.raw_data["permissions"] == {"issues": "write", "metadata": "read"}
    assert token.raw_data["repository_selection"] == "all"
    assert emu.requests[-1]["status"] == 201
    assert emu.installation_tokens(installation) == [token.token]


def test_only_the_apps_jwt_opens_the_app_routes(emu, app):
    emu.add_repo("ROCm/ROCm")
    installation = emu.add_installation("ROCm")
    for path in (f"/app/installations/{installation}", "/repos/ROCm/ROCm/installation"):
        assert get(emu, path, "personal").status_code == 401
    with pytest.raises(github.GithubException) as refused:
        integration(emu, github.Auth.AppAuth(APP_ID + 1, app_key_pair()[0])).get_access_token(
            installation
        )
    assert refused.value.status == 401


def test_a_token_opens_its_installations_repositories_only(emu, app):
    emu.add_repo("ROCm/ROCm")
    emu.add_issue("ROCm/ROCm", title="Hang on gfx942")
    emu.add_issue("other/tool", title="Elsewhere")
    installation = emu.add_installation("ROCm")
    client = installation_client(emu, app, installation)

    assert client.get_repo("ROCm/ROCm").get_issue(1).title == "Hang on gfx942"
    assert emu.requests[-1]["installation"] == installation
    with pytest.raises(github.UnknownObjectException):
        client.get_repo("other/tool")
    with pytest.raises(github.GithubException) as refused:
        client.get_user().login  # noqa: B018 (a GET)
    assert refused.value.status == 403
    assert client.get_rate_limit().resources.core.limit == 5000
    listed = get(emu, "/installation/repositories", emu.installation_tokens(installation)[0])
    assert [r["full_name"] for r in listed.json()["repositories"]] == ["ROCm/ROCm"]


def test_two_installations_keep_their_tokens_apart(emu, app):
    emu.add_issue("ROCm/ROCm", title="Ours")
    emu.add_issue("other/tool", title="Theirs")
    ours, theirs = emu.add_installation("ROCm"), emu.add_installation("other")

    our_token = integration(emu, app).get_access_token(ours).token
    their_token = integration(emu, app).get_access_token(theirs).token

    assert get(emu, "/repos/ROCm/ROCm/issues/1", our_token).status_code == 200
    assert get(emu, "/repos/other/tool/issues/1", our_token).status_code == 404
    assert get(emu, "/repos/other/tool/issues/1", their_token).status_code == 200


def test_an_expired_token_is_bad_credentials_and_a_new_one_works(emu, app):
    emu.add_issue("ROCm/ROCm", title="Hang")
    installation = emu.add_installation("ROCm")
    old = integration(emu, app).get_access_token(installation).token

    emu.expire_installation_tokens(installation)

    answer = get(emu, "/repos/ROCm/ROCm/issues/1", old)
    assert (answer.status_code, answer.json()["message"]) == (401, "Bad credentials")
    assert emu.requests[-1]["installation"] == installation  # logged as its token, expired
    new = integration(emu, app).get_access_token(installation).token
    assert get(emu, "/repos/ROCm/ROCm/issues/1", new).status_code == 200


def test_writes_need_the_permission(emu, app):
    emu.add_issue("ROCm/ROCm", title="Hang")
    installation = emu.add_installation("ROCm", permissions={"issues": "read", "metadata": "read"})
    issue = installation_client(emu, app, installation).get_repo("ROCm/ROCm").get_issue(1)

    with pytest.raises(github.GithubException) as refused:
        issue.create_comment("hello")

    assert refused.value.status == 403
    assert refused.value.data["message"] == "Resource not accessible by integration"
    with pytest.raises(github.GithubException) as too_much:
        integration(emu, app).get_access_token(installation, permissions={"issues": "write"})
    assert too_much.value.status == 422


def test_an_uninstalled_app_has_no_installation_and_its_tokens_stop(emu, app):
    emu.add_issue("ROCm/ROCm", title="Hang")
    installation = emu.add_installation("ROCm")
    token = integration(emu, app).get_access_token(installation).token

    emu.remove_installation(installation)

    assert get(emu, "/repos/ROCm/ROCm/issues/1", token).status_code == 401
    with pytest.raises(github.UnknownObjectException):
        integration(emu, app).get_repo_installation("ROCm", "ROCm")


def test_the_personal_token_still_opens_everything(emu):
    emu.add_issue("ROCm/ROCm", title="Hang")
    emu.add_installation("ROCm")
    assert get(emu, "/repos/ROCm/ROCm/issues/1", "personal").status_code == 200
    assert get(emu, "/user", "personal").status_code == 200
    assert emu.requests[-1]["installation"] is None


def test_each_installation_spends_its_own_budget_grown_by_githubs_rule(emu, app):
    for n in range(25):
        emu.add_repo(f"ROCm/repo{n}")
    emu.add_repo("other/tool")
    big = emu.add_installation("ROCm")  # 25 repositories: 5 past 20
    small = emu.add_installation("other", repos=["other/tool"])

    client = installation_client(emu, app, big)
    client.get_repo("ROCm/repo3").get_issues().totalCount  # noqa: B018 - spends requests
    limit = client.get_rate_limit().resources.core
    assert limit.limit == 5000 + 5 * 50
    assert emu.installation_rate_limit(big)["remaining"] < limit.limit
    assert emu.installation_rate_limit(small)["remaining"] == 5000, "not its budget"
    assert emu.rate_limit_remaining == 5000, "nor the personal token's"

    emu.set_installation_members(big, 500)  # the organization's users grow it too, to a cap
    assert emu.installation_rate_limit(big)["limit"] == 12500


def test_an_installation_out_of_budget_is_refused_until_its_reset(emu, app):
    emu.add_repo("ROCm/hip")
    installation = emu.add_installation("ROCm")
    client = installation_client(emu, app, installation)
    client.get_repo("ROCm/hip")  # the token is issued while there is budget
    emu.set_installation_rate_limit(installation, 0)

    with pytest.raises(github.RateLimitExceededException) as refused:
        client.get_repo("ROCm/hip").get_issues()[0]  # noqa: B018
    assert f"installation ID {installation}" in refused.value.data["message"]
    assert get(emu, "/repos/ROCm/hip", "personal").status_code == 200, "the token still has its own"
