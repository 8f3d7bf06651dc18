"""Sign in with GitHub through the real allauth flow against the GitHub emulator: the login page's
button, GitHub's authorize page (the emulator's), the callback, the token and /user/teams."""

import re
from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest
import requests
from allauth.socialaccount.models import SocialAccount, SocialToken
from django.contrib.auth.models import Group, User
from django.core.exceptions import ImproperlyConfigured
from django.urls import reverse

from config.settings import _github_team_roles
from tests.conftest import user_with_role
from tests.fakes.github_api import github_for_settings
from triage.models import UserPreference
from triage.services.github_signin import github_roles_refresh, schedules_install

CLIENT_ID, CLIENT_SECRET = "Iv1.0123456789abcdef", "oauth-app-secret"
CALLBACK = "http://testserver/accounts/github/login/callback/"
TEAM_ROLES = {
    "ROCm/triage-team": ["triagers"],
    "ROCm/release-managers": ["release managers"],
}


@pytest.fixture
def github(settings, db):
    with github_for_settings(settings, token="service-token") as emulator:
        emulator.add_oauth_app(CLIENT_ID, CLIENT_SECRET, callback_url=CALLBACK)
        settings.GITHUB_WEB_URL = emulator.url
        settings.GITHUB_OAUTH_CLIENT_ID = CLIENT_ID
        settings.GITHUB_OAUTH_CLIENT_SECRET = CLIENT_SECRET
        settings.GITHUB_TEAM_ROLES = TEAM_ROLES
        yield emulator


def authorize(client, settings, next_url: str = "") -> str:
    """The login page's "Sign in with GitHub" form, then GitHub's authorize page: the callback
    URL (path and query) GitHub sends the browser back to."""
    page = client.get(reverse("login")).content.decode()
    action = re.search(r'<form method="post" action="([^"]+)" class="github-signin"', page)
    start = client.post(action.group(1), {"next": next_url} if next_url else {})
    assert start.status_code == 302
    assert start.url.startswith(f"{settings.GITHUB_WEB_URL}/login/oauth/authorize?")
    at_github = requests.get(start.url, allow_redirects=False, timeout=5)
    assert at_github.status_code == 302
    back = urlsplit(at_github.headers["Location"])
    assert f"http://testserver{back.path}" == CALLBACK
    return f"{back.path}?{back.query}"


def sign_in(client, settings, next_url: str = ""):
    return client.get(authorize(client, settings, next_url), follow=True)


def roles(login: str) -> set[str]:
    user = SocialAccount.objects.get(provider="github", extra_data__login=login).user
    return set(user.groups.values_list("name", flat=True))


def test_it_signs_a_team_member_in_as_a_triager(client, github, settings):
    github.add_oauth_user("tess-gh", teams=["ROCm/triage-team"], name="Tess Triager")

    response = sign_in(client, settings)

    assert response.redirect_chain[-1][0] == reverse("home")
    assert response.status_code == 200
    assert roles("tess-gh") == {"triagers"}
    user = SocialAccount.objects.get(extra_data__login="tess-gh").user
    assert UserPreference.objects.get(user=user).github_login == "tess-gh"
    assert SocialToken.objects.get(account__user=user).token in github.oauth_tokens("tess-gh")
    assert not user.has_usable_password()
    scopes = [e["query"].get("scope") for e in github.requests if "authorize" in e["path"]]
    assert set(scopes[0].split()) == {"read:user", "user:email", "read:org"}


def test_it_goes_on_to_the_page_asked_for(client, github, settings):
    github.add_oauth_user("tess-gh", teams=["ROCm/triage-team"])
    response = sign_in(client, settings, next_url=reverse("issue-list"))
    assert response.redirect_chain[-1][0] == reverse("issue-list")
    assert response.status_code == 200


def test_it_gives_someone_outside_the_teams_no_role_and_a_page_saying_so(client, github, settings):
    github.add_oauth_user("stranger", teams=["elsewhere/friends"])

    response = sign_in(client, settings)

    assert response.redirect_chain[-1][0] == reverse("github-no-role")
    assert response.status_code == 403
    page = response.content.decode()
    assert "You are signed in as <strong>stranger</strong>" in page
    assert "ROCm/triage-team" in page and "ROCm/release-managers" in page
    assert roles("stranger") == set()
    assert client.get(reverse("home")).status_code == 403


def test_it_takes_the_role_away_when_a_member_left_the_team_and_signs_in_again(
    client, github, settings
):
    github.add_oauth_user("rm-gh", teams=["ROCm/triage-team", "rocm/Release-Managers"])
    sign_in(client, settings)
    assert roles("rm-gh") == {"triagers", "release managers"}
    client.post(reverse("logout"))

    github.set_oauth_user_teams("rm-gh", ["ROCm/release-managers"])
    response = sign_in(client, settings)

    assert response.redirect_chain[-1][0] == reverse("home")
    assert roles("rm-gh") == {"release managers"}
    assert SocialAccount.objects.filter(provider="github").count() == 1


def test_the_daily_refresh_follows_teams_and_leaves_unmapped_roles_alone(client, github, settings):
    github.add_oauth_user("tess-gh", teams=["ROCm/triage-team"])
    sign_in(client, settings)
    user = SocialAccount.objects.get(extra_data__login="tess-gh").user
    user.groups.add(Group.objects.get(name="viewers"))  # given by hand, mapped to no team

    github.set_oauth_user_teams("tess-gh", [])
    assert github_roles_refresh() == {"updated": 1, "unverifiable": 0, "failed": 0}
    assert roles("tess-gh") == {"viewers"}

    github.set_oauth_user_teams("tess-gh", ["ROCm/triage-team"])
    github_roles_refresh()
    assert roles("tess-gh") == {"viewers", "triagers"}


def test_the_refresh_takes_roles_from_a_revoked_token_and_keeps_them_when_github_fails(
    client, github, settings
):
    github.add_oauth_user("tess-gh", teams=["ROCm/triage-team"])
    sign_in(client, settings)

    settings.GITHUB_RETRIES = 0
    github.inject_fault(502, path_contains="/user/teams")
    assert github_roles_refresh() == {"updated": 0, "unverifiable": 0, "failed": 1}
    assert roles("tess-gh") == {"triagers"}

    github.revoke_oauth_tokens("tess-gh")
    assert github_roles_refresh() == {"updated": 0, "unverifiable": 1, "failed": 0}
    assert roles("tess-gh") == set()


def test_the_refresh_leaves_local_accounts_alone(github, django_user_model):
    local = user_with_role(django_user_model, "breakglass", "triagers", "admins")
    assert github_roles_refresh() == {"updated": 0, "unverifiable": 0, "failed": 0}
    assert set(local.groups.values_list("name", flat=True)) == {"triagers", "admins"}


def test_local_login_still_works_beside_github(client, github, django_user_model):
    user_with_role(django_user_model, "alice", "viewers")
    login_page = client.get(reverse("login"))
    page = login_page.content.decode()
    assert "Sign in with GitHub" in page and 'id="id_password"' in page
    policy = login_page["Content-Security-Policy"]
    directives = dict(d.strip().partition(" ")[::2] for d in policy.split(";"))
    assert directives["form-action"] == f"'self' {github.url}"
    assert directives["script-src"] == "'self'"

    response = client.post(
        reverse("login"), {"username": "alice", "password": "pw-alice-1"}, follow=True
    )
    assert response.redirect_chain[-1][0] == reverse("home")


def test_a_github_login_that_names_a_local_account_gets_an_account_of_its_own(
    client, github, settings, django_user_model
):
    local = user_with_role(django_user_model, "tess", "admins")
    github.add_oauth_user("tess", teams=["ROCm/triage-team"])

    sign_in(client, settings)

    github_user = SocialAccount.objects.get(extra_data__login="tess").user
    assert github_user.pk != local.pk and github_user.username != "tess"
    assert roles("tess") == {"triagers"}
    assert set(local.groups.values_list("name", flat=True)) == {"admins"}


def test_without_a_client_id_there_is_no_github_button(client, db, settings):
    settings.GITHUB_OAUTH_CLIENT_ID = ""
    page = client.get(reverse("login")).content.decode()
    assert "Sign in with GitHub" not in page
    assert 'id="id_password"' in page
    policy = client.get(reverse("login"))["Content-Security-Policy"]
    assert "form-action 'self'" in policy and "form-action 'self' " not in policy
    assert client.post(reverse("github_login")).status_code == 404


@pytest.mark.parametrize("tamper", ["state", "code"])
def test_a_bad_state_or_code_is_refused_with_a_clear_message(client, github, settings, tamper):
    github.add_oauth_user("tess-gh", teams=["ROCm/triage-team"])
    path, _, query = authorize(client, settings).partition("?")
    params = dict(parse_qsl(query))
    params[tamper] = "forged"

    response = client.get(f"{path}?{urlencode(params)}")

    assert "Sign-in with GitHub failed" in response.content.decode()
    assert not SocialAccount.objects.exists()
    assert "_auth_user_id" not in client.session


def test_a_callback_used_twice_is_refused(client, github, settings):
    github.add_oauth_user("tess-gh", teams=["ROCm/triage-team"])
    callback = authorize(client, settings)
    client.get(callback)
    client.post(reverse("logout"))

    response = client.get(callback)

    assert "Sign-in with GitHub failed" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_a_denied_authorization_says_it_was_cancelled(client, github, settings):
    github.add_oauth_user("tess-gh", teams=["ROCm/triage-team"])
    github.oauth_sign_in(None)

    response = client.get(authorize(client, settings), follow=True)

    assert "Sign-in cancelled" in response.content.decode()
    assert not User.objects.exists()


def test_the_emulator_answers_the_token_as_json_when_asked(github, settings):
    github.add_oauth_user("tess-gh", teams=["ROCm/triage-team"])
    query = {"client_id": CLIENT_ID, "redirect_uri": CALLBACK, "scope": "read:org", "state": "s"}
    at_github = requests.get(
        f"{github.url}/login/oauth/authorize?{urlencode(query)}", allow_redirects=False, timeout=5
    )
    code = dict(parse_qsl(urlsplit(at_github.headers["Location"]).query))["code"]
    form = {"client_id": CLIENT_ID, "client_secret": CLIENT_SECRET, "code": code}

    answer = requests.post(
        f"{github.url}/login/oauth/access_token",
        json=form,
        headers={"Accept": "application/json"},
        timeout=5,
    ).json()
    again = requests.post(f"{github.url}/login/oauth/access_token", data=form, timeout=5)

    assert answer["token_type"] == "bearer" and answer["scope"] == "read:org"
    assert dict(parse_qsl(again.text))["error"] == "bad_verification_code"
    teams = requests.get(
        f"{github.url}/user/teams",
        headers={"Authorization": f"token {answer['access_token']}"},
        timeout=5,
    ).json()
    assert [(t["organization"]["login"], t["slug"]) for t in teams] == [("ROCm", "triage-team")]


def test_the_daily_refresh_is_scheduled_only_when_configured(db, settings):
    settings.GITHUB_OAUTH_CLIENT_ID = ""
    assert schedules_install() == []
    settings.GITHUB_OAUTH_CLIENT_ID, settings.GITHUB_TEAM_ROLES = CLIENT_ID, TEAM_ROLES
    (job,) = schedules_install()
    assert job.task == "triage.tasks.github_roles_refresh"


def test_the_team_mapping_setting_is_parsed_and_checked():
    parsed = _github_team_roles("ROCm/triage-team=triagers, ROCm/rm=release managers,")
    assert parsed == {"ROCm/triage-team": ["triagers"], "ROCm/rm": ["release managers"]}
    with pytest.raises(ImproperlyConfigured, match="not a role"):
        _github_team_roles("ROCm/triage-team=triager")
    with pytest.raises(ImproperlyConfigured, match="ORG/team-slug=role"):
        _github_team_roles("triage-team=triagers")
