"""The issue page renders the panels that config/wiring.py's ISSUE_PANELS names."""

import pytest

from config import wiring
from triage.panels import Panel

pytestmark = pytest.mark.django_db


def greeting_panel(*, issue, request):
    return Panel(
        title="Greeting", template="triage/panels/_example.html", context={"text": issue.title}
    )


def no_panel(*, issue, request):
    return None


def test_it_renders_each_panel_in_order(logged_in_client, make, monkeypatch):
    monkeypatch.setattr(
        wiring,
        "ISSUE_PANELS",
        [
            "tests.triage.test_panels.no_panel",
            "tests.triage.test_panels.greeting_panel",
        ],
    )
    issue = make.issue(title="Hang in rccl all_reduce")
    page = logged_in_client.get(
        f"/issues/{issue.repository.full_name}/{issue.number}/"
    ).content.decode()
    assert '<h2 id="panel-1-title">Greeting</h2>' in page
    assert page.count("Hang in rccl all_reduce") >= 2
