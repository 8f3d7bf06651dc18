"""Guessing is slowed down: wrong passwords lock the account out from that address (the login page
and the admin), admins unlock it, the lock lifts after its cool-off; a password sprayed over many
accounts from one address, and wrong old passwords given to the password form, are answered 429
for a while; wrong API tokens from one address are answered 429 for a while, a right one
included; a busy API client is throttled."""

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.core.cache import cache
from django.core.management import call_command
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from tests.conftest import user_with_role

ATTACKER = "203.0.113.66"
COLLEAGUE = "198.51.100.7"
pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def empty_cache():
    cache.clear()
    yield
    cache.clear()


def sign_in(client, path, username, password, address=ATTACKER):
    return client.post(path, {"username": username, "password": password}, REMOTE_ADDR=address)


def signed_in(client) -> bool:
    return "_auth_user_id" in client.session


@pytest.mark.parametrize("path", [reverse("login"), reverse("admin:login")])
def test_sixty_wrong_passwords_lock_the_account_out_from_that_address(client, user, path, settings):
    settings.LOGIN_ADDRESS_FAILURE_LIMIT = 1000  # the address's own limit: the next test
    user.is_staff = True  # the admin's login wants staff
    user.save()
    answers = [sign_in(client, path, "alice", f"guess-{n}").status_code for n in range(60)]
    assert answers[: settings.AXES_FAILURE_LIMIT - 1] == [200] * (settings.AXES_FAILURE_LIMIT - 1)
    assert set(answers[settings.AXES_FAILURE_LIMIT :]) == {429}
    locked = sign_in(client, path, "alice", "pw-alice-1")
    assert locked.status_code == 429 and not signed_in(client)
    assert "Sign-in locked" in locked.content.decode()
    # the pair is locked, not the account: alice signs in from her own address
    assert sign_in(client, path, "alice", "pw-alice-1", address=COLLEAGUE).status_code == 302
    assert signed_in(client)


def test_an_admin_unlocks_an_account_in_the_admin(client, user, django_user_model):
    for n in range(10):
        sign_in(client, reverse("login"), "alice", f"guess-{n}")
    assert sign_in(client, reverse("login"), "alice", "pw-alice-1").status_code == 429
    admin = django_user_model.objects.create_superuser("root", password="pw-root-1")
    staff = client.__class__()
    staff.force_login(admin)
    attempts = reverse("admin:axes_accessattempt_changelist")
    listed = staff.get(attempts).content.decode()
    assert "alice" in listed and ATTACKER in listed
    staff.post(
        attempts,
        {
            "action": "delete_selected",
            "_selected_action": [a.pk for a in AccessAttempt.objects.all()],
            "post": "yes",
        },
    )
    assert not AccessAttempt.objects.exists()
    assert sign_in(client, reverse("login"), "alice", "pw-alice-1").status_code == 302


def test_an_admin_unlocks_an_account_from_the_command_line(client, user):
    for n in range(10):
        sign_in(client, reverse("login"), "alice", f"guess-{n}")
    call_command("axes_reset_username", "alice")
    assert sign_in(client, reverse("login"), "alice", "pw-alice-1").status_code == 302


def test_the_lock_lifts_after_its_cool_off(client, user, settings):
    for n in range(10):
        sign_in(client, reverse("login"), "alice", f"guess-{n}")
    assert sign_in(client, reverse("login"), "alice", "pw-alice-1").status_code == 429
    AccessAttempt.objects.update(
        attempt_time=AccessAttempt.objects.get().attempt_time
        - settings.AXES_COOLOFF_TIME
        - timedelta(seconds=1)
    )
    assert sign_in(client, reverse("login"), "alice", "pw-alice-1").status_code == 302


def api(address: str, key: str) -> APIClient:
    client = APIClient(REMOTE_ADDR=address)
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def test_wrong_api_tokens_from_one_address_are_refused_for_a_while_a_right_one_too(user, settings):
    token = Token.objects.create(user=user)
    wrong = [
        api(ATTACKER, f"{n:040x}").get("/api/issues/").status_code
        for n in range(settings.API_TOKEN_FAILURE_LIMIT)
    ]
    assert set(wrong) == {401}
    refused = api(ATTACKER, token.key).get("/api/issues/")
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) == settings.API_TOKEN_FAILURE_WINDOW_S
    assert api(COLLEAGUE, token.key).get("/api/issues/").status_code == 200


def test_behind_a_proxy_the_client_address_counts_not_the_proxy(user, settings):
    settings.TRUSTED_PROXY_COUNT = 1
    token = Token.objects.create(user=user)
    for n in range(settings.API_TOKEN_FAILURE_LIMIT):
        client = APIClient(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR=f"1.1.1.1, {ATTACKER}")
        client.credentials(HTTP_AUTHORIZATION=f"Token {n:040x}")
        client.get("/api/issues/")
    colleague = APIClient(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR=COLLEAGUE)
    colleague.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert colleague.get("/api/issues/").status_code == 200  # same proxy, another client
    forged = APIClient(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR=f"{COLLEAGUE}, {ATTACKER}")
    forged.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert forged.get("/api/issues/").status_code == 429  # what the client wrote is ignored


def test_a_busy_api_client_is_throttled(django_user_model, monkeypatch):
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {"user": "5/minute"})
    member = user_with_role(django_user_model, "ci-bot", "viewers")
    client = api(ATTACKER, Token.objects.create(user=member).key)
    answers = [client.get("/api/releases/").status_code for _ in range(7)]
    assert answers == [200] * 5 + [429] * 2


@pytest.mark.parametrize("path", [reverse("login"), reverse("admin:login")])
def test_a_password_sprayed_over_many_accounts_from_one_address_is_refused_a_while(
    client, django_user_model, path, settings
):
    settings.LOGIN_ADDRESS_FAILURE_LIMIT = 12
    for n in range(10):
        user_with_role(django_user_model, f"member{n}", "viewers")
    django_user_model.objects.update(is_staff=True)  # the admin's login wants staff
    # four guesses an account: never the pair's lockout (5), but 40 from one address
    answers = [
        sign_in(client, path, f"member{n % 10}", f"Spring2026!{n // 10}").status_code
        for n in range(40)
    ]
    assert answers[:12] == [200] * 12 and set(answers[12:]) == {429}
    refused = sign_in(client, path, "member3", "pw-member3-1")  # a right password too
    assert refused.status_code == 429 and "from this address" in refused.content.decode()
    assert not signed_in(client)
    # another address is not refused
    assert sign_in(client, path, "member3", "pw-member3-1", address=COLLEAGUE).status_code == 302


def test_the_password_form_refuses_a_while_after_wrong_old_passwords(client, user, settings):
    settings.PASSWORD_CHANGE_FAILURE_LIMIT = 3
    client.force_login(user)
    url = reverse("password_change")
    form = {"new_password1": "a-new-Passw0rd!", "new_password2": "a-new-Passw0rd!"}
    answers = [
        client.post(url, {**form, "old_password": f"guess-{n}"}).status_code for n in range(5)
    ]
    assert answers == [200, 200, 200, 429, 429]
    refused = client.post(url, {**form, "old_password": "pw-alice-1"})
    assert refused.status_code == 429
    user.refresh_from_db()
    assert user.check_password("pw-alice-1")
