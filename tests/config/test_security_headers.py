"""The Content-Security-Policy and Permissions-Policy headers on every answer (issue 15, item 2).

Walks the URL conf (dashboard pages, the API, the API docs, every admin page of every registered
model, login, the webhook, /healthz) and the error pages (404, 403, 500): each answer carries
both headers, and the policy is the strict one everywhere (no 'unsafe-inline', no
'unsafe-eval'; images from our own origin only, data: on the API docs page alone).
"""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.auth.decorators import login_not_required
from django.test import Client
from django.urls import NoReverseMatch, path, reverse

import config.urls
from tests.config.test_url_permissions import all_urls, resolve_pk, world  # noqa: F401
from tests.releases.conftest import series  # noqa: F401  (a fixture)

REQUIRED = {
    "default-src": "'none'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'self'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}
DENIED_FEATURES = ("camera", "microphone", "geolocation", "payment", "usb", "serial", "midi")


def directives(header: str) -> dict[str, str]:
    parts = (part.strip().split(None, 1) for part in header.split(";") if part.strip())
    return {part[0]: part[1] if len(part) > 1 else "" for part in parts}


def policy_problems(response, where: str) -> list[str]:
    header = response.get("Content-Security-Policy")
    if not header:
        return [f"{where}: no Content-Security-Policy"]
    found, problems = directives(header), []
    expected = dict(REQUIRED)
    if where.startswith("/api/docs/"):
        expected["img-src"] = "'self' data:"  # Swagger UI's icons, this page only
    for name, value in expected.items():
        if found.get(name) != value:
            problems.append(f"{where}: {name} is {found.get(name)!r}, not {value!r}")
    if "unsafe" in header:
        problems.append(f"{where}: {header}")
    features = response.get("Permissions-Policy", "")
    problems += [f"{where}: {f} not denied" for f in DENIED_FEATURES if f"{f}=()" not in features]
    return problems


def admin_paths() -> list[str]:
    paths = [reverse("admin:index")]
    for model in admin.site._registry:
        opts = model._meta
        for view, args in (("changelist", []), ("add", []), ("change", [1]), ("history", [1])):
            try:
                paths.append(reverse(f"admin:{opts.app_label}_{opts.model_name}_{view}", args=args))
            except NoReverseMatch:  # a read-only admin without an add view
                continue
    return paths


@pytest.mark.django_db
def test_every_page_the_url_conf_serves_carries_both_policies(world, django_user_model):  # noqa: F811
    admin_user = django_user_model.objects.create_superuser("root", password="pw-root-1")
    client = Client()
    client.force_login(admin_user)
    problems, statuses = [], set()
    pages = [resolve_pk(name, p, world) for name, p in all_urls({**world, "pk": "PK"})]
    pages += ["/api/docs/?script=", *admin_paths()]
    for page in pages:
        response = client.get(page)
        statuses.add(response.status_code)
        problems += policy_problems(response, page)
    assert problems == []
    assert len(pages) > 100 and {200, 405} <= statuses  # pages, and POST-only actions


@pytest.mark.django_db
def test_anonymous_answers_and_error_pages_carry_both_policies(db):
    client = Client()
    answers = {
        "login": client.get("/accounts/login/"),
        "login redirect": client.get("/issues/"),
        "healthz": client.get("/healthz"),
        "unsigned webhook (403)": client.post("/webhooks/github/", {}),
        "not found": client.get("/no/such/page/"),
        "api not found": client.get("/api/no/such/"),
    }
    for where, response in answers.items():
        assert policy_problems(response, where) == [], where
    assert answers["not found"].status_code == 404
    assert answers["unsigned webhook (403)"].status_code == 403


@login_not_required
def _boom(request):
    raise RuntimeError("an error page")


urlpatterns = [path("boom/", _boom), *config.urls.urlpatterns]
handler404, handler500 = config.urls.handler404, config.urls.handler500


@pytest.mark.django_db
def test_the_server_error_page_carries_both_policies(settings):
    settings.ROOT_URLCONF = __name__
    client = Client(raise_request_exception=False)
    response = client.get("/boom/")
    assert response.status_code == 500
    assert policy_problems(response, "500") == []
