import io

import pytest
from django.contrib.auth import authenticate
from django.core.management import call_command
from django.test import RequestFactory

from triage.models import Comment, Issue, Repository

pytestmark = pytest.mark.django_db


def sign_in(username: str, password: str):
    """As the login page does: with the request (the lockout reads its address)."""
    return authenticate(
        RequestFactory().post("/accounts/login/"), username=username, password=password
    )


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_it_loads_the_bundled_data_and_creates_the_demo_login_and_one_per_role():
    out = Terminal()
    call_command("load_demo", stdout=out)
    triager = sign_in("triager", "triager")
    assert triager.has_perm("triage.triage_issue")
    assert not triager.has_perm("releases.approve_backport")
    assert not sign_in("viewer", "viewer").has_perm("triage.triage_issue")
    assert Repository.objects.count() >= 3
    assert Issue.objects.filter(is_pull_request=False).count() >= 200
    assert Issue.objects.filter(is_pull_request=True, merged=True).count() >= 20
    assert Comment.objects.count() >= 500
    assert sign_in("demo", "demo") is not None
    assert "Demo login" in out.getvalue()
    # on a terminal, the long steps draw a bar in place, then their summary takes its place
    drawn = out.getvalue()
    for what in ("issues, pulls and comments", "models trained", "issues classified"):
        assert "] " in drawn and what in drawn, what
    assert "\r      [###" in drawn
    # the demo's owners, handles and links resolve nowhere real (RFC 2606's .invalid)
    assert_demo_links_resolve_nowhere_real()


REAL_SITES_OF_THE_DEMO_STORY = ("github.com", "x.com", "twitter.com", "t.co")


def assert_demo_links_resolve_nowhere_real():
    import re
    from urllib.parse import urlsplit

    from triage.models import Person, Post

    hosts = [urlsplit(url).hostname for url in Issue.objects.values_list("html_url", flat=True)]
    hosts += [urlsplit(url).hostname for url in Person.objects.values_list("html_url", flat=True)]
    hosts += [urlsplit(url).hostname for url in Post.objects.values_list("url", flat=True)]
    hosts = [host for host in hosts if host]  # an empty URL links nowhere
    assert hosts and all(host.endswith(".invalid") for host in hosts), set(hosts)
    texts = list(Issue.objects.values_list("body", flat=True))
    texts += list(Comment.objects.values_list("body", flat=True))
    texts += list(Post.objects.values_list("text", flat=True))
    for entities in Post.objects.values_list("entities", flat=True):
        texts += [u.get("expanded_url", "") for u in (entities or {}).get("urls", [])]
    linked = {urlsplit(u).hostname for t in texts for u in re.findall(r"https?://[^\s)\]>\"']+", t)}
    assert not {h for h in linked if h and h.removeprefix("www.") in REAL_SITES_OF_THE_DEMO_STORY}


def test_loading_twice_changes_nothing():
    call_command("load_demo", stdout=io.StringIO())
    counts = (Issue.objects.count(), Comment.objects.count())
    out = io.StringIO()
    call_command("load_demo", stdout=out)
    assert (Issue.objects.count(), Comment.objects.count()) == counts
    assert "0 created" in out.getvalue()
    assert "\r" not in out.getvalue(), "no bar in a log"
    # nothing changed, so no model is trained again (the kernel issues are in before training)
    training = next(line for line in out.getvalue().splitlines() if "issues classified" in line)
    assert training.count("unchanged training data") >= 5, training
    assert "[1/" in out.getvalue(), "each step says where the loading is"


def test_loading_again_keeps_everyone_signed_in(client):
    from triage.services.demo import demo_role_users_ensure, demo_user_ensure

    demo_user_ensure(username="demo", password="demo")
    demo_role_users_ensure()
    client.post("/accounts/login/", {"username": "demo", "password": "demo"})
    assert client.get("/").status_code == 200

    demo_user_ensure(username="demo", password="demo")  # a second `make demo`
    demo_role_users_ensure()

    assert client.get("/").status_code == 200  # not sent back to the login page
