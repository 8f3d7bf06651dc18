"""Walk every URL pattern as anonymous, viewer, triager and release manager.

Every pattern must be classified below; a new URL that is not fails the walk until someone
decides who may use it. GETs never answer 5xx; anonymous users reach only the public pages;
every state-changing request without the role's permission is refused with 403 and changes
nothing that the walk can see (the audit tables stay empty).
"""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from releases.models import Backport
from tests.conftest import user_with_role
from tests.releases.conftest import series  # noqa: F401  (a fixture)
from triage.models import PostIssueLink, PredictionCorrection, SavedView, TriageAction
from triage.permissions import APPROVE_BACKPORT, APPROVE_REPRO, MANAGE_TRAINS, TRIAGE

PUBLIC = {"login", "github-webhook", "healthz"}
SELF_SERVICE = {
    "logout",
    "preferences",
    "password_change",
    "password_change_done",
    "saved-view-create",
    "saved-view-delete",
}
ACTIONS = {  # url name -> the permission a POST needs
    "prediction-decide": TRIAGE,
    "post-link-decide": TRIAGE,
    "models-retrain": TRIAGE,
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
    pr = make.pull_request(repository=issue.repository, number=2, merged=True)
    from kernels_ci.services.cases import case_refresh
    from tests.kernels_ci.factories import issue_body
    from triage.models import Post, SavedSearch

    repro = make.issue(repository=issue.repository, number=3, body=issue_body())
    case = case_refresh(issue=repro)
    search = SavedSearch.objects.create(name="sucks", query="ROCm sucks")
    post = Post.objects.create(x_id=1, text="ROCm sucks", created_at=make.now)
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
        "model_name": "kind",
        "decision": "approve",
        "action": "add",
        "_ids": {"search": search.pk, "link": link.pk, "backport": backport.pk, "pr": pr.pk},
    }


def pks_for(name: str, world: dict) -> dict:
    ids = world["_ids"]
    return {
        "saved-search-detail": ids["search"],
        "post-link-decide": ids["link"],
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
            if ACTIONS[name] in granted:
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
