"""Walk every URL pattern as anonymous, viewer, triager and release manager.

Every pattern must be classified below; a new URL that is not fails the walk until someone
decides who may use it. GETs never answer 5xx; anonymous users reach only the public pages;
every state-changing request without the role's permission is refused with 403 and changes
nothing that the walk can see (the audit tables stay empty).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from releases.models import Backport
from tests.conftest import user_with_role
from tests.releases.conftest import series  # noqa: F401  (a fixture)
from triage.models import (
    PostIssueLink,
    PredictionCorrection,
    SavedView,
    SentimentCorrection,
    TriageAction,
)
from triage.permissions import APPROVE_BACKPORT, APPROVE_REPRO, MANAGE_TRAINS, TRIAGE

PUBLIC = {
    "login",
    "github-webhook",
    "healthz",
    # Sign in with GitHub (triage/views/github_signin.py): 404 unless configured
    "account_login",  # allauth's name for the login page
    "github_login",
    "github_callback",
    "github-no-role",  # signed in without a role; anonymous users are sent to the login page
    "socialaccount_login_cancelled",
    "socialaccount_signup",
}
SELF_SERVICE = {
    "logout",
    "preferences",
    "password_change",
    "password_change_done",
    "saved-view-create",
    "saved-view-delete",
    # one's own inbox, and what one follows
    "inbox-item-set",
    "inbox-all-read",
    "issue-follow-set",
}
ACTIONS = {  # url name -> the permission a POST needs
    "prediction-decide": TRIAGE,
    "post-link-decide": TRIAGE,
    "post-sentiment-decide": TRIAGE,
    "models-retrain": TRIAGE,
    "known-error-decide": TRIAGE,
    "issue-assignees-set": TRIAGE,
    "issue-reply-set": TRIAGE,
    "issue-reply-preview": TRIAGE,
    "issue-state-set": TRIAGE,
    "issue-labels-set": TRIAGE,
    "api-issue-reply-set": TRIAGE,
    "api-issue-close-set": TRIAGE,
    "api-issue-reopen-set": TRIAGE,
    "api-issue-labels-set": TRIAGE,
    "issue-title-set": TRIAGE,
    "api-issue-title-set": TRIAGE,
    "issue-lock-set": TRIAGE,
    "api-issue-lock-set": TRIAGE,
    "decision-undo": TRIAGE,
    # each bulk action has its own (triage.permissions.ACTION_PERMISSIONS): deciding is the
    # triagers', targeting a train the release managers'
    "triage-bulk-apply": (TRIAGE, MANAGE_TRAINS),
    "triage-bulk-undo": (TRIAGE, MANAGE_TRAINS),
    "github-writes-switch": TRIAGE,  # to stop; allowing writes again is an admin's
    "repro-case-approve": APPROVE_REPRO,
    "api-repro-case-approve": APPROVE_REPRO,
    "api-prediction-decide": TRIAGE,
    "release-backport-nominate": MANAGE_TRAINS,
    "release-fix-link": MANAGE_TRAINS,
    "release-target-set": MANAGE_TRAINS,
    "release-rc-tag": MANAGE_TRAINS,
    "release-notes-save": MANAGE_TRAINS,
    "release-backport-decide": APPROVE_BACKPORT,
    "api-release-backport-nominate": MANAGE_TRAINS,
    "api-release-fix-link-add": MANAGE_TRAINS,
    "api-release-fix-link-remove": MANAGE_TRAINS,
    "api-release-target-set": MANAGE_TRAINS,
    "api-release-rc-tag": MANAGE_TRAINS,
    "api-release-backport-decide": APPROVE_BACKPORT,
}
ROLE_PERMISSIONS = {
    "viewers": set(),
    "triagers": {TRIAGE, APPROVE_REPRO},
    "release managers": {MANAGE_TRAINS, APPROVE_BACKPORT},
}


def walk(patterns, prefix="", namespace=""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from walk(
                pattern.url_patterns, prefix + str(pattern.pattern), pattern.namespace or namespace
            )
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern), pattern.name or ""


def all_urls(samples: dict) -> list[tuple[str, str]]:
    """(url name, path) of every non-admin pattern, converters filled from `samples`."""
    found = []
    for route, name in walk(get_resolver().url_patterns):
        if route.startswith("admin/") or name.endswith("-format") or "(?P<format>" in route:
            continue
        keys = re.findall(r"<(?:\w+:)?(\w+)>", route)
        missing = [k for k in keys if k not in samples]
        assert not missing, f"{route}: add sample values for {missing} to the walk"
        path = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: str(samples[m.group(1)]), route)
        found.append((name, "/" + path))
    return found


@pytest.fixture
def world(make, series):  # noqa: F811
    issue = make.issue(repository=make.repository("ROCm/ROCm"), number=1, title="crash")
    comment = make.comment(issue, body="Same here on an MI210.")
    pr = make.pull_request(repository=issue.repository, number=2, merged=True)
    from kernels_ci.services.cases import case_refresh
    from tests.kernels_ci.factories import issue_body
    from triage.models import Post, SavedSearch

    repro = make.issue(repository=issue.repository, number=3, body=issue_body())
    case = case_refresh(issue=repro)
    search = SavedSearch.objects.create(name="sucks", query="ROCm sucks")
    post = Post.objects.create(external_id="1", text="ROCm sucks", created_at=make.now)
    link = PostIssueLink.objects.create(
        post=post, issue=issue, kind="suggested", status="suggested"
    )
    backport = Backport.objects.create(issue=issue, series=series, train_version="7.8")
    return {
        "owner": "ROCm",
        "name": "ROCm",
        "number": 1,
        "version": "7.9",
        "pk": 1,
        "case_id": case.pk,
        "comment_id": comment.external_id,
        "model_name": "kind",
        "decision": "approve",
        "action": "add",
        "_ids": {
            "search": search.pk,
            "link": link.pk,
            "post": post.pk,
            "backport": backport.pk,
            "pr": pr.pk,
        },
    }


def pks_for(name: str, world: dict) -> dict:
    ids = world["_ids"]
    return {
        "saved-search-detail": ids["search"],
        "post-link-decide": ids["link"],
        "post-sentiment-decide": ids["post"],
        "release-backport-decide": ids["backport"],
        "api-release-backport-decide": ids["backport"],
    }.get(name, 1)


def resolve_pk(name, path, world):
    return path.replace("/PK/", f"/{pks_for(name, world)}/")


def nothing_changed() -> bool:
    return not (
        PredictionCorrection.objects.exists()
        or TriageAction.objects.exists()
        or PostIssueLink.objects.exclude(status="suggested").exists()
        or SentimentCorrection.objects.exists()
        or Backport.objects.exclude(state="nominated").exists()
    )


@pytest.mark.django_db
def test_every_url_is_classified(world):
    for name, _ in all_urls({**world, "pk": 1}):
        assert name, "every URL pattern needs a name"
        assert name in PUBLIC | SELF_SERVICE | set(ACTIONS) or not name.endswith(
            ("-decide", "-approve", "-save", "-set", "-add", "-remove", "-nominate", "-tag")
        ), f"{name}: classify it in tests/config/test_url_permissions.py"


@pytest.mark.django_db
def test_anonymous_users_reach_only_the_public_pages(world):
    client = Client()
    for name, path in all_urls({**world, "pk": 1}):
        for method in ("get", "post"):
            response = getattr(client, method)(path)
            if name in PUBLIC:
                assert response.status_code < 500, (method, path, response.status_code)
                continue
            if path.startswith("/api/"):
                assert response.status_code in (401, 403), (method, path, response.status_code)
            else:
                assert response.status_code == 302, (method, path, response.status_code)
                assert response["Location"].startswith("/accounts/login/"), path
    assert nothing_changed()


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["viewers", "triagers", "release managers"])
def test_each_role_reads_every_page_and_acts_only_within_its_permissions(
    world, django_user_model, role
):
    from rest_framework.authtoken.models import Token

    member = user_with_role(django_user_model, "member", role)
    client = Client()
    client.force_login(member)
    token = Token.objects.create(user=member).key
    granted = ROLE_PERMISSIONS[role]
    wrong = []
    for name, path in all_urls({**world, "pk": "PK"}):
        path = resolve_pk(name, path, world)
        if name in PUBLIC or name == "logout":
            continue
        headers = {"HTTP_AUTHORIZATION": f"Token {token}"} if path.startswith("/api/") else {}
        response = client.get(path, **headers)
        allowed = (200, 302, 404, 405) if name not in ACTIONS else (403, 404, 405)
        assert response.status_code in allowed, (role, "GET", path, response.status_code)
        if name in ACTIONS:
            response = client.post(path, {}, **headers)
            needed = ACTIONS[name]
            if granted & ({needed} if isinstance(needed, str) else set(needed)):
                assert response.status_code != 403, (role, "POST", path)
            else:
                assert response.status_code == 403, (role, "POST", path, response.status_code)
        elif name not in SELF_SERVICE:
            response = client.post(path, {}, **headers)
            if response.status_code not in (403, 405):
                wrong.append((role, "POST", path, response.status_code))
    assert wrong == []
    if role == "viewers":
        assert nothing_changed()
        assert not SavedView.objects.exclude(user=member).exists()


# --- CSRF: every state-changing request needs the token; only the signed webhook is exempt -----

CSRF_EXEMPT = {"github-webhook"}  # verified by its HMAC signature instead


def full_permissions_client(django_user_model, *, enforce_csrf: bool) -> Client:
    member = user_with_role(django_user_model, "boss", "admins")
    client = Client(enforce_csrf_checks=enforce_csrf)
    client.force_login(member)
    return client


def is_csrf_refusal(response) -> bool:
    # 403 only: the same request with the token is then compared (it must not be 403)
    return response.status_code == 403


@pytest.mark.django_db
def test_only_the_webhook_is_exempt_from_csrf_among_the_dashboard_views(world):
    exempt = set()
    for pattern_route, name in walk(get_resolver().url_patterns):
        if pattern_route.startswith("admin/") or pattern_route.startswith("api/"):
            continue
        match = get_resolver().resolve(
            "/"
            + re.sub(r"<(?:\w+:)?(\w+)>", lambda m: str(world.get(m.group(1), 1)), pattern_route)
        )
        if getattr(match.func, "csrf_exempt", False):
            exempt.add(name)
    assert exempt == CSRF_EXEMPT


@pytest.mark.django_db
def test_every_post_without_the_csrf_token_is_refused_and_with_it_is_not(world, django_user_model):
    client = full_permissions_client(django_user_model, enforce_csrf=True)
    client.get("/")  # the CSRF cookie
    token = client.cookies["csrftoken"].value
    accepting = []
    urls = sorted(all_urls({**world, "pk": "PK"}), key=lambda url: url[0] == "logout")  # last
    for name, path in urls:
        path = resolve_pk(name, path, world)
        if name in CSRF_EXEMPT:
            continue
        refused = client.post(path, {})
        assert is_csrf_refusal(refused), (name, path, refused.status_code)
        with_header = client.post(path, {}, headers={"X-CSRFToken": token})  # htmx's way
        assert not is_csrf_refusal(with_header), (name, path, with_header.content[:200])
        if with_header.status_code != 405:
            accepting.append(name)
            if not path.startswith("/api/"):  # a plain form's way: the hidden field
                with_field = client.post(path, {"csrfmiddlewaretoken": token})
                assert not is_csrf_refusal(with_field), (name, path)
    assert set(ACTIONS) <= set(accepting)  # every action takes a POST, and only with the token
    assert {"prediction-decide", "repro-case-approve", "release-notes-save"} <= set(accepting)


@pytest.mark.django_db
def test_the_api_takes_a_token_without_csrf_but_a_session_only_with_it(world, django_user_model):
    from rest_framework.authtoken.models import Token

    member = user_with_role(django_user_model, "rm", "release managers")
    session = Client(enforce_csrf_checks=True)
    session.force_login(member)
    url = "/api/releases/targets/"
    refused = session.post(url, {}, content_type="application/json")
    assert refused.status_code == 403 and "CSRF" in refused.json()["detail"]
    token = Token.objects.create(user=member).key
    bearer = Client(enforce_csrf_checks=True)  # no session cookie: nothing a page could forge
    answered = bearer.post(
        url, {}, content_type="application/json", HTTP_AUTHORIZATION=f"Token {token}"
    )
    assert answered.status_code == 400  # validated (no issue given), not refused


class _PostForms(HTMLParser):
    def __init__(self):
        super().__init__()
        self.forms, self.current, self.hx_posts, self.hx_headers = [], None, 0, ""

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "body":
            self.hx_headers = attrs.get("hx-headers") or ""
        if any(attrs.get(k) for k in ("hx-post", "hx-put", "hx-patch", "hx-delete")):
            self.hx_posts += 1
        if tag == "form" and (attrs.get("method") or "get").lower() == "post":
            self.current = {"action": attrs.get("action"), "token": False}
            self.forms.append(self.current)
        named_token = attrs.get("name") == "csrfmiddlewaretoken" and attrs.get("value")
        if tag == "input" and self.current is not None and named_token:
            self.current["token"] = True

    def handle_endtag(self, tag):
        if tag == "form":
            self.current = None


@pytest.mark.django_db
def test_every_post_form_and_htmx_request_on_every_page_carries_the_csrf_token(
    world, django_user_model
):
    client = full_permissions_client(django_user_model, enforce_csrf=False)
    forms_seen = 0
    for name, path in all_urls({**world, "pk": "PK"}):
        path = resolve_pk(name, path, world)
        if path.startswith("/api/") or name in PUBLIC | {"logout"}:
            continue
        response = client.get(path)
        if response.status_code != 200 or "text/html" not in response["Content-Type"]:
            continue
        parser = _PostForms()
        parser.feed(response.content.decode())
        missing = [form["action"] for form in parser.forms if not form["token"]]
        assert missing == [], (path, missing)
        forms_seen += len(parser.forms)
        if parser.hx_posts:
            assert "X-CSRFToken" in parser.hx_headers, path
    assert forms_seen >= 10  # the walk saw the forms it is about


# --- the admin: staff status adds no permission ---------------------------------------------


def _admin_snapshot() -> dict:
    from django.contrib import admin

    return {
        model._meta.label: list(model.objects.order_by("pk").values())
        for model in admin.site._registry
    }


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["viewers", "triagers"])
def test_a_staff_member_changes_nothing_in_the_admin_that_their_role_forbids(
    world, django_user_model, role
):
    from django.contrib import admin
    from django.urls import reverse

    member = user_with_role(django_user_model, "staffer", role)
    member.is_staff = True
    member.save()
    client = Client()
    client.force_login(member)
    before = _admin_snapshot()
    assert client.get("/admin/").status_code == 200
    for model, model_admin in admin.site._registry.items():
        info = (model._meta.app_label, model._meta.model_name)
        obj = model.objects.order_by("pk").first()
        assert client.post(reverse("admin:{}_{}_add".format(*info)), {}).status_code == 403, info
        if obj is not None:
            for view in ("change", "delete"):
                url = reverse(f"admin:{info[0]}_{info[1]}_{view}", args=[obj.pk])
                assert client.post(url, {"post": "yes"}).status_code == 403, (view, info)
            changelist = reverse("admin:{}_{}_changelist".format(*info))
            for action in model_admin.get_action_choices(_request_as(member)) or []:
                client.post(changelist, {"action": action[0], "_selected_action": [obj.pk]})
            for action in ["delete_selected", *[a for a in (model_admin.actions or [])]]:
                name = action if isinstance(action, str) else action.__name__
                client.post(
                    changelist, {"action": name, "_selected_action": [obj.pk], "post": "yes"}
                )
    # nor make themselves a superuser
    user_change = reverse("admin:auth_user_change", args=[member.pk])
    assert (
        client.post(user_change, {"is_superuser": "on", "username": "staffer"}).status_code == 403
    )
    member.refresh_from_db()
    assert not member.is_superuser
    assert _admin_snapshot() == before


def _request_as(user):
    from django.test import RequestFactory

    request = RequestFactory().get("/admin/")
    request.user = user
    return request
