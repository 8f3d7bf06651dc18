"""Running as a GitHub App: each repository's calls carry its installation's token, through the
real PyGithub against the GitHub emulator (tests/fakes/github_api.py)."""

from __future__ import annotations

import io
import json

import pytest
import requests
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command

from tests.fakes.github_api import APP_PERMISSIONS, github_for_settings
from tests.fakes.github_hooks import app_key_pair
from tests.fakes.github_webhooks import delivery_headers, fixture_payload
from triage.models import WebhookDelivery
from triage.services import tracking
from triage.sources.github import app_auth, sync
from triage.sources.github.client import (
    GitHubError,
    GitHubSource,
    app_bot_login,
    build_client,
    issue_comment_create,
)

pytestmark = pytest.mark.django_db(transaction=True)

REPO, OTHER = "ROCm/ROCm", "other/tool"
APP_ID = 31337


@pytest.fixture(scope="module")
def key_pair():
    return app_key_pair()


@pytest.fixture
def emulator(settings):
    app_auth.app_caches_clear()
    with github_for_settings(settings, token="personal", retries=0) as emu:
        yield emu
    app_auth.app_caches_clear()


@pytest.fixture
def app(emulator, settings, key_pair):
    """The App configured and known to GitHub, and no personal token to fall back on."""
    emulator.add_app(APP_ID, key_pair[1])
    settings.GITHUB_APP_ID, settings.GITHUB_APP_PRIVATE_KEY = str(APP_ID), key_pair[0]
    settings.GITHUB_TOKEN = ""
    return emulator


def token_requests(emulator) -> list[dict]:
    return [r for r in emulator.requests if r["path"].endswith("/access_tokens")]


def repository_requests(emulator, repo: str) -> list[dict]:
    prefix = f"/repos/{repo}/"
    return [
        r
        for r in emulator.requests
        if r["path"].startswith(prefix) and not r["path"].endswith("/installation")
    ]


def test_a_repositorys_sync_goes_with_its_installations_token(app):
    for n in range(1, 4):
        app.add_issue(REPO, title=f"Crash {n}")
    app.add_comment(REPO, 1, body="Same here")
    installation = app.add_installation("ROCm")

    sync.repository_sync(repository=tracking.repository_track(full_name=REPO))

    sent = repository_requests(app, REPO)
    assert len(sent) >= 3
    assert {r["installation"] for r in sent} == {installation}
    assert {r["status"] for r in sent} <= {200, 304}
    assert len(token_requests(app)) == 1  # one token for the whole sync
    assert app.count(path_contains="/installation") == 2  # the lookup, and the token


def test_a_sync_carries_a_token_that_can_only_read_and_a_comment_the_full_one(app):
    app.add_issue(REPO, title="Crash")
    installation = app.add_installation("ROCm")

    sync.repository_sync(repository=tracking.repository_track(full_name=REPO))

    (asked,) = [r["body"]["permissions"] for r in token_requests(app)]
    assert asked == {"metadata": "read", "issues": "read", "pull_requests": "read"}
    assert APP_PERMISSIONS["contents"] == "read", "the installation has more; it is not asked for"
    (token,) = app.installation_tokens(installation)
    refused = requests.post(
        f"{app.url}/repos/{REPO}/issues/1/comments",
        json={"body": "written with the sync's token"},
        headers={"Authorization": f"token {token}"},
        timeout=10,
    )
    assert refused.status_code == 403, "GitHub refuses a write with it"
    with pytest.raises(GitHubError, match="only reads"):
        GitHubSource(full_name=REPO, reads_only=True).post(
            f"/repos/{REPO}/issues/1/comments", {"body": "never sent"}
        )

    issue_comment_create(full_name=REPO, number=1, body="posted")

    assert token_requests(app)[-1]["body"]["permissions"] == {}, "the installation's own"
    assert [c["body"] for c in app.comments(REPO, 1)] == ["posted"]


def test_two_installations_keep_their_tokens_apart(app):
    app.add_issue(REPO, title="Ours")
    app.add_issue(OTHER, title="Theirs")
    ours, theirs = app.add_installation("ROCm"), app.add_installation("other", repos=[OTHER])
    source = GitHubSource()

    for _ in range(2):
        assert source.get(f"/repos/{REPO}/issues/1").items["title"] == "Ours"
        assert source.get(f"/repos/{OTHER}/issues/1").items["title"] == "Theirs"

    assert {r["installation"] for r in repository_requests(app, REPO)} == {ours}
    assert {r["installation"] for r in repository_requests(app, OTHER)} == {theirs}
    assert len(token_requests(app)) == 2
    assert app.installation_tokens(ours) != app.installation_tokens(theirs)
    assert app.count(path_contains="/installation") == 4  # each looked up once, one token each


def test_a_link_header_url_goes_with_the_installation_of_its_repository(app):
    for n in range(1, 4):
        app.add_issue(REPO, title=f"Crash {n}")
    installation = app.add_installation("ROCm")
    source = GitHubSource()

    first = source.get(f"/repos/{REPO}/issues", {"per_page": 2})
    second = source.get(first.links["next"])

    assert len(second.items) == 1
    assert app.requests[-1]["installation"] == installation


def test_an_expired_token_is_renewed_once(app):
    app.add_issue(REPO, title="Hang")
    installation = app.add_installation("ROCm")
    source = GitHubSource()
    source.get(f"/repos/{REPO}/issues/1")

    app.expire_installation_tokens(installation)
    page = source.get(f"/repos/{REPO}/issues/1")

    assert page.items["title"] == "Hang"
    assert [r["status"] for r in repository_requests(app, REPO)] == [200, 401, 200]
    assert len(token_requests(app)) == 2
    assert source.requests == 3


def test_a_second_401_is_an_error_not_a_loop(app):
    app.add_issue(REPO, title="Hang")
    app.add_installation("ROCm")
    app.inject_fault(401, times=None, path_contains=f"/repos/{REPO}/issues")

    with pytest.raises(GitHubError) as error:
        GitHubSource().get(f"/repos/{REPO}/issues/1")

    assert error.value.status == 401
    assert len(repository_requests(app, REPO)) == 2
    assert len(token_requests(app)) == 2


def test_a_token_about_to_expire_is_renewed_before_it_is_used(app):
    app.add_issue(REPO, title="Hang")
    installation = app.add_installation("ROCm")
    app.token_lifetime_s = int(app_auth.RENEW_BEFORE.total_seconds()) - 60
    source = GitHubSource()

    source.get(f"/repos/{REPO}/issues/1")
    source.get(f"/repos/{REPO}/issues/1")

    assert len(app.installation_tokens(installation)) == 2
    assert app.count(status=401) == 0


def test_a_comment_goes_with_the_installation_token_and_survives_a_revoked_one(app):
    app.add_issue(REPO, title="Hang")
    installation = app.add_installation("ROCm")
    issue_comment_create(full_name=REPO, number=1, body="first")
    app.expire_installation_tokens(installation)

    posted = issue_comment_create(full_name=REPO, number=1, body="second")

    assert posted["id"]
    assert [c["body"] for c in app.comments(REPO, 1)] == ["first", "second"]
    writes = [r for r in app.requests if r["method"] == "POST" and "/comments" in r["path"]]
    assert [(r["status"], r["installation"]) for r in writes] == [
        (201, installation),
        (401, installation),
        (201, installation),
    ]


def test_permissions_accepted_on_github_take_effect_at_the_installations_event(
    app, client, settings
):
    app.add_issue(REPO, title="Hang")
    read_only = {"metadata": "read", "issues": "read", "pull_requests": "write"}
    installation = app.add_installation("ROCm", permissions=read_only)
    assert "issues: write (it has read)" in " ".join(app_auth.installation_problems())
    with pytest.raises(GitHubError) as refused:
        issue_comment_create(full_name=REPO, number=1, body="asked too early")
    assert refused.value.status == 403

    # the owner accepts the App's new permissions; the token held still has the old ones
    app.accept_installation_permissions(installation, dict(read_only, issues="write"))
    settings.GITHUB_WEBHOOK_SECRET = "hook-secret"
    payload = fixture_payload("installation__new_permissions_accepted")
    payload["installation"]["id"] = installation
    body = json.dumps(payload).encode()
    headers = delivery_headers("installation", body, "hook-secret")
    headers.pop("Content-Type")
    answer = client.post(
        "/webhooks/github/", body, content_type="application/json", headers=headers
    )
    assert answer.status_code == 202
    assert WebhookDelivery.objects.get().status == WebhookDelivery.Status.PROCESSED

    assert app_auth.installation_problems() == []  # read again, not the cached lack
    tokens = len(token_requests(app))
    assert issue_comment_create(full_name=REPO, number=1, body="now")["id"]
    assert len(token_requests(app)) == tokens + 1, "a new token, with the accepted permissions"


def test_a_repository_the_app_is_not_installed_on_is_a_clear_error(app):
    app.add_issue(OTHER, title="Elsewhere")
    app.add_installation("ROCm")

    with pytest.raises(app_auth.AppNotInstalled) as error:
        GitHubSource().get(f"/repos/{OTHER}/issues/1")

    assert error.value.status == 404
    assert f"the App is not installed on {OTHER}" in str(error.value)
    assert isinstance(error.value, GitHubError)


def test_a_jwt_github_refuses_names_the_settings_and_the_clock(app, settings):
    app.add_issue(REPO, title="Hang")
    app.add_installation("ROCm")
    settings.GITHUB_APP_PRIVATE_KEY = app_key_pair()[0]  # a key, but not the App's

    with pytest.raises(app_auth.AppRefused) as error:
        GitHubSource().get(f"/repos/{REPO}/issues/1")

    assert error.value.status == 401
    assert "GITHUB_APP_ID" in str(error.value) and "clock" in str(error.value)


def test_a_malformed_key_names_the_setting(app, settings):
    settings.GITHUB_APP_PRIVATE_KEY = "-----BEGIN RSA PRIVATE KEY-----\nnot a key\n"

    problems = app_auth.app_configuration_problems()
    with pytest.raises(app_auth.AppMisconfigured) as error:
        GitHubSource().get(f"/repos/{REPO}/issues/1")

    assert len(problems) == 1 and "GITHUB_APP_PRIVATE_KEY is not a PEM private key" in problems[0]
    assert str(error.value) == problems[0]
    assert isinstance(error.value, ImproperlyConfigured) and isinstance(error.value, GitHubError)
    assert app.requests == []  # nothing sent


def test_a_missing_key_file_names_the_setting(app, settings, tmp_path):
    settings.GITHUB_APP_PRIVATE_KEY = ""
    settings.GITHUB_APP_PRIVATE_KEY_PATH = str(tmp_path / "app.pem")

    (problem,) = app_auth.app_configuration_problems()

    assert problem.startswith("GITHUB_APP_PRIVATE_KEY_PATH: cannot read the App's key from")
    with pytest.raises(app_auth.AppMisconfigured):
        build_client(full_name=REPO)


def test_the_key_from_a_file_works(app, settings, tmp_path, key_pair):
    app.add_issue(REPO, title="Hang")
    installation = app.add_installation("ROCm")
    (tmp_path / "app.pem").write_text(key_pair[0])
    settings.GITHUB_APP_PRIVATE_KEY = ""
    settings.GITHUB_APP_PRIVATE_KEY_PATH = str(tmp_path / "app.pem")

    assert app_auth.app_configuration_problems() == []
    assert GitHubSource().get(f"/repos/{REPO}/issues/1").items["title"] == "Hang"
    assert app.requests[-1]["installation"] == installation


def test_an_app_id_without_a_key_or_not_a_number_is_a_problem(settings):
    settings.GITHUB_APP_ID, settings.GITHUB_APP_PRIVATE_KEY = "my-app", ""
    settings.GITHUB_APP_PRIVATE_KEY_PATH = ""

    problems = app_auth.app_configuration_problems()

    assert "GITHUB_APP_ID must be the App's numeric id, not 'my-app'" in problems
    assert any(
        p.startswith("GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_PATH") for p in problems
    )


def test_without_an_app_the_personal_token_works_as_before(emulator, settings):
    settings.GITHUB_APP_ID = settings.GITHUB_APP_PRIVATE_KEY = ""
    emulator.add_issue(REPO, title="Hang")

    assert app_auth.app_configuration_problems() == []
    assert GitHubSource().get(f"/repos/{REPO}/issues/1").items["title"] == "Hang"
    assert GitHubSource(full_name=REPO).get("/user").items["login"] == "octocat"
    issue_comment_create(full_name=REPO, number=1, body="hello")
    assert build_client(full_name=REPO).requester.auth.token == "personal"
    assert {r["installation"] for r in emulator.requests} == {None}
    assert emulator.count(status=401) == 0


def test_the_apps_bot_login_comes_from_the_app(app):
    assert app_bot_login() == "triage-bot[bot]"


def test_github_enterprise_under_a_path_prefix(settings, key_pair):
    app_auth.app_caches_clear()
    with github_for_settings(settings, token="personal", path_prefix="/api/v3") as emu:
        emu.add_app(APP_ID, key_pair[1])
        emu.add_issue(REPO, title="Hang")
        installation = emu.add_installation("ROCm")
        settings.GITHUB_APP_ID, settings.GITHUB_APP_PRIVATE_KEY = str(APP_ID), key_pair[0]
        settings.GITHUB_TOKEN = ""

        page = GitHubSource().get(f"/repos/{REPO}/issues/1")

        assert page.items["title"] == "Hang"
        assert emu.requests[-1]["path"] == f"/api/v3/repos/{REPO}/issues/1"
        assert emu.requests[-1]["installation"] == installation
    app_auth.app_caches_clear()


def test_the_settings_page_check_names_what_an_installation_lacks(app):
    app.add_repo(REPO)
    app.add_repo(OTHER)
    app.add_installation("ROCm")  # all it needs
    partial = app.add_installation(
        "other",
        permissions={"metadata": "read", "issues": "read", "pull_requests": "write"},
        events=("issues", "pull_request"),
    )

    problems = app_auth.installation_problems()

    assert len(problems) == 2, problems
    lacks, events = problems
    assert f"installation {partial} on other" in lacks
    assert "issues: write (it has read)" in lacks and "pull_requests" not in lacks
    assert "issue_comment, label, repository" in events
    checks = app.count(path_contains="/app/installations")
    assert app_auth.installation_problems() == problems
    assert app.count(path_contains="/app/installations") == checks, "kept for a while"


def test_a_clock_github_disagrees_with_is_said_at_start_without_stopping(app, caplog):
    app.add_repo(REPO)
    app.add_installation("ROCm")
    app.skew_clock(2 * 3600)  # this machine's clock two hours behind GitHub's

    app_auth.app_check_at_start()  # beat's start: logs, never raises

    logged = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert len(logged) == 1
    assert "refused the App's JWT" in logged[0] and "clock" in logged[0]
    assert app_auth.installation_problems() == [logged[0].removeprefix("GitHub App: ")]

    app.skew_clock(0)
    assert app_auth.installation_problems(fresh=True) == []


def test_without_an_app_nothing_is_asked(emulator, settings):
    settings.GITHUB_APP_ID = settings.GITHUB_APP_PRIVATE_KEY = ""
    assert app_auth.installation_problems(fresh=True) == []
    assert emulator.requests == []


def test_a_malformed_key_is_a_warning_when_a_process_starts_not_a_refusal(settings):
    settings.GITHUB_APP_ID = str(APP_ID)
    settings.GITHUB_APP_PRIVATE_KEY = "-----BEGIN RSA PRIVATE KEY-----\nnot a key\n"
    app_auth.app_caches_clear()

    out = io.StringIO()
    call_command("check", stdout=out, stderr=out)  # raises SystemCheckError on an error
    assert "triage.W001" in out.getvalue() and "GITHUB_APP_PRIVATE_KEY" in out.getvalue()


def test_sync_github_by_hand_goes_with_the_installations_token_once_the_id_is_known(app):
    """A second `sync_github` reads the repository by its id (/repositories/ID: a rename
    followed); that request names no OWNER/NAME and still carries the installation's token."""
    app.add_issue(REPO, title="Segfault in rocBLAS gemm on gfx942")
    installation = app.add_installation("ROCm")
    for _ in range(2):
        call_command("sync_github", REPO, stdout=io.StringIO(), stderr=io.StringIO())

    by_id = [r for r in app.requests if r["path"].startswith("/repositories/")]
    assert by_id and {r["installation"] for r in by_id} == {installation}
    assert {r["status"] for r in by_id} <= {200, 304}
