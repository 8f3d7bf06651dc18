from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from kernels_ci.models import ReproRun, Runner
from kernels_ci.services.cases import case_approve, case_refresh
from tests.kernels_ci.factories import issue_body


@pytest.mark.django_db
def test_home_lists_cases_awaiting_approval_and_runners_down(logged_in_client, make):
    waiting = make.issue(number=5, title="wrong mask on MI300X", body=issue_body())
    approved = make.issue(number=6, title="another one", body=issue_body())
    case_refresh(issue=waiting)
    case_approve(case=case_refresh(issue=approved), login="maintainer", via="test")
    Runner.objects.create(name="gpu-1", arch="gfx942", healthy=False, reason="no /dev/kfd")
    Runner.objects.create(name="cpu-1", arch="cpu", last_heartbeat_at=timezone.now())
    Runner.objects.create(
        name="cpu-2", arch="cpu", last_heartbeat_at=timezone.now() - timedelta(hours=2)
    )

    response = logged_in_client.get(reverse("home"))

    panel = next(p for p in response.context["panels"] if p.slug == "repro")
    assert [c.issue.number for c in panel.context["awaiting"]] == [5]
    assert sorted(r.name for r in panel.context["runners_down"]) == ["cpu-2", "gpu-1"]
    assert "no /dev/kfd" in response.content.decode()


@pytest.mark.django_db
def test_home_says_no_runner_has_registered_rather_than_all_healthy(logged_in_client):
    content = logged_in_client.get(reverse("home")).content.decode()
    assert "No runner has registered" in content
    assert "All runners healthy" not in content

    Runner.objects.create(name="cpu-1", arch="cpu", last_heartbeat_at=timezone.now())
    content = logged_in_client.get(reverse("home")).content.decode()
    assert "All runners healthy" in content
    assert "No runner has registered" not in content


@pytest.mark.django_db
def test_home_charts_repro_outcomes_by_architecture(logged_in_client, make):
    issue = make.issue(number=7, body=issue_body())
    case = case_refresh(issue=issue)
    now = timezone.now()
    for attempt, (arch, outcome) in enumerate(
        [("gfx942", "reproduced"), ("gfx942", "reproduced"), ("gfx90a", "not_reproduced")], 1
    ):
        ReproRun.objects.create(
            case=case,
            arch=arch,
            backend="triton-amd-compile",
            attempt=attempt,
            queue=f"repro.{arch}",
            script_sha256=case.sha256,
            status=ReproRun.Status.DONE,
            outcome=outcome,
            created_at=now,
            finished_at=now,
        )

    response = logged_in_client.get(reverse("home"))

    chart = next(p for p in response.context["panels"] if p.slug == "repro").context["chart"]
    assert chart["labels"] == ["gfx90a", "gfx942"]
    by_label = {d["label"]: d["data"] for d in chart["datasets"]}
    assert by_label["reproduced"] == [0, 2]
    assert by_label["not reproduced"] == [1, 0]
