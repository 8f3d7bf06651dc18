"""Dashboard (approve button, runs, runners, issue panel), API and the run_repro command."""

import json
from io import StringIO

import pytest
from django.contrib.auth.models import Permission
from django.core.management import CommandError, call_command

from config import wiring
from kernels_ci.models import ReproCase, ReproRun, Runner
from kernels_ci.services.cases import case_approve, case_refresh
from kernels_ci.services.runs import runs_queue
from tests.kernels_ci.factories import issue_body


@pytest.fixture
def case(make):
    repository = make.repository("ROCm/triton")
    return case_refresh(issue=make.issue(repository=repository, number=77, body=issue_body()))


def test_the_issue_page_shows_the_case_and_an_approve_button_to_triagers(
    client, triager, user, case, monkeypatch
):
    monkeypatch.setattr(wiring, "ISSUE_PANELS", ["kernels_ci.panels.repro_panel"])
    client.force_login(triager)
    page = client.get("/issues/ROCm/triton/77/").content.decode()
    assert "Kernel reproduction" in page and "not approved" in page
    assert "Approve this exact script" in page and "@triton.jit" in page
    client.force_login(user)  # a viewer sees the case, not the button
    page = client.get("/issues/ROCm/triton/77/").content.decode()
    assert "Kernel reproduction" in page and "Approve this exact script" not in page


def test_approving_needs_the_approve_permission_not_change(client, user, case):
    user.user_permissions.add(Permission.objects.get(codename="change_reprocase"))
    client.force_login(user)
    response = client.post(f"/repro/cases/{case.pk}/approve/", {"sha256": case.sha256})
    assert response.status_code == 403
    case.refresh_from_db()
    assert not case.is_approved


def test_the_button_approves_the_script_that_was_shown_and_queues_runs(
    triager_client, triager, case, django_capture_on_commit_callbacks
):
    client = triager_client
    stale = client.post(f"/repro/cases/{case.pk}/approve/", {"sha256": "0" * 64})
    assert stale.status_code == 302 and not ReproCase.objects.get(pk=case.pk).is_approved
    with django_capture_on_commit_callbacks(execute=False) as dispatched:
        client.post(f"/repro/cases/{case.pk}/approve/", {"sha256": case.sha256})
    case.refresh_from_db()
    assert case.is_approved and case.approved_by == triager and case.approved_via == "dashboard"
    run = ReproRun.objects.get(case=case)
    assert (run.status, run.queue, run.backend) == ("queued", "repro.cpu", "triton-interpreter")
    assert len(dispatched) == 1


def test_an_approval_whose_runs_cannot_be_queued_is_not_kept(triager_client, case):
    ReproCase.objects.filter(pk=case.pk).update(backend="rocm-container", archs=["gfx908"])
    response = triager_client.post(
        f"/repro/cases/{case.pk}/approve/", {"sha256": case.sha256}, follow=True
    )
    case.refresh_from_db()
    assert not case.is_approved and case.approved_at is None and not ReproRun.objects.exists()
    assert "Not approved: rocm-container cannot target gfx908" in response.content.decode()


def test_the_approve_button_refuses_get(triager_client, case):
    assert triager_client.get(f"/repro/cases/{case.pk}/approve/").status_code == 405


def test_the_api_lists_runs_of_one_issue(
    api_client, case, make, django_capture_on_commit_callbacks
):
    case_approve(case=case, login="m")
    with django_capture_on_commit_callbacks(execute=False):
        runs_queue(case=case)
    other = case_approve(case=case_refresh(issue=make.issue(body=issue_body())), login="m")
    with django_capture_on_commit_callbacks(execute=False):
        runs_queue(case=other)
    body = api_client.get("/api/repro-runs/?issue=ROCm/triton%2377").json()
    assert body["count"] == 1
    assert body["results"][0]["issue"] == "ROCm/triton#77"
    assert body["results"][0]["status"] == "queued"
    assert body["results"][0]["outcome"] == ""  # not run yet: the schema's BlankEnum
    everything = api_client.get("/api/repro-runs/").json()["count"]
    assert api_client.get("/api/repro-runs/?issue=&arch=").json()["count"] == everything == 2
    bad = api_client.get("/api/repro-runs/?issue=ROCm/triton")
    assert bad.status_code == 400 and "OWNER/NAME#N" in bad.json()["issue"][0]


def test_the_api_needs_authentication(client, db):
    assert client.get("/api/repro-runs/").status_code in (401, 403)


def test_the_runs_and_runners_pages_render(logged_in_client, case):
    Runner.objects.create(name="w@gpu", arch="gfx942", healthy=False, reason="disk full")
    runs = logged_in_client.get("/repro/?outcome=reproduced").content.decode()
    assert "Repro runs" in runs and "No repro runs match" in runs
    runners = logged_in_client.get("/runners/").content.decode()
    assert "w@gpu" in runners and "disk full" in runners


def test_run_repro_refuses_an_unapproved_case(case):
    with pytest.raises(CommandError, match="not approved"):
        call_command("run_repro", "ROCm/triton#77")
    with pytest.raises(CommandError, match="OWNER/NAME#N"):
        call_command("run_repro", "ROCm/triton")


def test_run_repro_says_why_an_issue_has_nothing_to_run_as_its_page_does(make):
    kernel_only = (
        "The kernel:\n\n```python\n@triton.jit\n"
        "def add(x_ptr, n):\n    tl.store(x_ptr + tl.arange(0, 8), 1.0)\n```\n"
    )
    make.issue(repository=make.repository("ROCm/triton"), number=78, body=kernel_only)
    with pytest.raises(CommandError, match="never launches it") as refused:
        call_command("run_repro", "ROCm/triton#78")
    assert "no Triton, torch or HIP block" not in str(refused.value)
    make.issue(repository=make.repository("ROCm/triton"), number=79, body="It hangs.")
    with pytest.raises(CommandError, match="no Python/Triton/torch or HIP C\\+\\+ code block"):
        call_command("run_repro", "ROCm/triton#79")


def test_run_repro_refuses_an_architecture_for_the_interpreter(case):
    with pytest.raises(CommandError, match="runs on the CPU only, not on gfx942"):
        call_command("run_repro", "ROCm/triton#77", "--approve", "--arch", "gfx942")


def test_run_repro_approves_runs_and_prints_the_outcome(case, needs_kernels_extra):
    out = StringIO()
    call_command("run_repro", "ROCm/triton#77", "--approve", "--runs", "1", "--json", stdout=out)
    (row,) = json.loads(out.getvalue())
    assert (row["outcome"], row["backend"], row["arch"]) == (
        "reproduced",
        "triton-interpreter",
        "cpu",
    )
    assert row["signature"].startswith("AssertionError")


def test_the_demo_loader_creates_approved_cases_and_says_why_it_did_not_run(db, settings):
    from kernels_ci.services.demo import demo_load

    settings.KERNELS_CI_DEMO_RUN = False
    report = demo_load()
    assert report.cases == 4 and "not run" in report.summary()
    cases = ReproCase.objects.filter(issue__repository__full_name="rocm-demo/triton-kernels")
    assert sorted(c.backend for c in cases) == [
        "triton-amd-compile",
        "triton-interpreter",
        "triton-interpreter",
        "triton-interpreter",
    ]
    assert all(c.is_approved for c in cases) and not ReproRun.objects.exists()
