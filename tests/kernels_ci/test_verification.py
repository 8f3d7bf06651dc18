"""Fix verification: 3 consecutive passes of the approved script, per (arch, backend)."""

from datetime import timedelta

from django.utils import timezone

from kernels_ci.models import ReproCase, ReproRun
from kernels_ci.selectors import (
    verification_by_target,
    verification_for_issue,
    verification_of_issues,
)
from kernels_ci.services.cases import case_approve, case_refresh
from kernels_ci.services.verification import verification_request
from kernels_ci.tasks import verification_request as verification_request_task
from tests.kernels_ci.factories import issue_body


def approved_case(make):
    return case_approve(case=case_refresh(issue=make.issue(body=issue_body())), login="m")


def _done(case, outcome, attempt, arch="gfx942", backend="triton-amd-compile", sha=None):
    return ReproRun.objects.create(
        case=case,
        arch=arch,
        backend=backend,
        attempt=attempt,
        queue="repro.cpu",
        script_sha256=sha or case.approved_sha256,
        status="done",
        outcome=outcome,
        finished_at=timezone.now(),
    )


def test_three_consecutive_passes_verify_a_fix_and_infra_errors_do_not_count(make):
    case = approved_case(make)
    _done(case, "reproduced", 1)
    _done(case, "not_reproduced", 2)
    _done(case, "infra_error", 3)
    _done(case, "not_reproduced", 4)
    state = verification_for_issue(case.issue_id)["gfx942"]
    assert (state.state, state.consecutive_passes) == ("verifying", 2)
    _done(case, "not_reproduced", 5)
    assert verification_for_issue(case.issue_id)["gfx942"].verified
    _done(case, "flaky", 6)
    assert verification_for_issue(case.issue_id)["gfx942"].state == "reproduces"


def test_passes_of_an_edited_reapproved_script_do_not_verify_the_old_failures(make):
    case = approved_case(make)
    old_sha = case.approved_sha256
    _done(case, "reproduced", 1)
    issue = case.issue
    issue.body = issue_body(script="import torch\nprint('a different script')\n")
    issue.save()
    case = case_approve(case=case_refresh(issue=issue), login="m")
    assert case.approved_sha256 != old_sha
    for attempt in (2, 3, 4):
        _done(case, "not_reproduced", attempt)
    by_target = verification_by_target(case.issue_id)
    assert by_target[("gfx942", "triton-amd-compile")].state == "never_reproduced"
    # The old script's record is untouched: still failing, never "verified fixed".
    ReproCase.objects.filter(pk=case.pk).update(approved_sha256=old_sha)
    assert verification_by_target(case.issue_id)[("gfx942", "triton-amd-compile")].state == (
        "reproduces"
    )


def test_verification_is_kept_per_arch_and_backend(make):
    case = approved_case(make)
    _done(case, "reproduced", 1, arch="gfx942", backend="triton-amd-compile")
    _done(case, "not_reproduced", 1, arch="gfx942", backend="rocm-container")
    by_target = verification_by_target(case.issue_id)
    assert by_target[("gfx942", "triton-amd-compile")].state == "reproduces"
    assert by_target[("gfx942", "rocm-container")].state == "never_reproduced"
    assert set(verification_for_issue(case.issue_id)) == {
        "gfx942 (rocm-container)",
        "gfx942 (triton-amd-compile)",
    }


def test_a_linked_fix_queues_verification_where_it_reproduced(
    make, django_capture_on_commit_callbacks
):
    case = approved_case(make)
    _done(case, "reproduced", 1, arch="gfx90a")
    _done(case, "not_reproduced", 1, arch="gfx942")
    with django_capture_on_commit_callbacks(execute=False):
        queued = verification_request(issue_ids=[case.issue_id])
    assert [(r.arch, r.purpose, r.attempt, r.status) for r in queued] == [
        ("gfx90a", "verify", 2, "queued")
    ]


def test_the_releases_entry_point_takes_an_issue_and_a_reason(
    make, django_capture_on_commit_callbacks
):
    case = approved_case(make)
    _done(case, "reproduced", 1, arch="gfx90a")
    with django_capture_on_commit_callbacks(execute=False):
        run_ids = verification_request_task.apply(
            args=[case.issue_id, "fix linked: ROCm/triton#12"]
        ).get()
    run = ReproRun.objects.get(pk__in=run_ids)
    assert (run.arch, run.purpose, run.status) == ("gfx90a", "verify", "queued")
    assert run.detail == "queued: fix linked: ROCm/triton#12"


def test_the_releases_selector_gives_each_issue_its_targets_as_of_a_moment(make):
    case = approved_case(make)
    first = _done(case, "reproduced", 1, arch="gfx90a")
    later = _done(case, "not_reproduced", 2, arch="gfx90a")
    ReproRun.objects.filter(pk=later.pk).update(finished_at=first.finished_at + timedelta(days=1))
    _done(case, "reproduced", 1, arch="gfx942", backend="rocm-container")
    unapproved = case_refresh(issue=make.issue(body=issue_body()))
    _done(unapproved, "reproduced", 1, sha=unapproved.sha256)
    now = verification_of_issues(issue_ids=[case.issue_id, unapproved.issue_id])
    assert list(now) == [case.issue_id]
    assert [(v.arch, v.backend, v.state, v.consecutive_passes) for v in now[case.issue_id]] == [
        ("gfx90a", "triton-amd-compile", "verifying", 1),
        ("gfx942", "rocm-container", "reproduces", 0),
    ]
    then = verification_of_issues(issue_ids=[case.issue_id], as_of=first.finished_at)
    assert [(v.arch, v.consecutive_passes) for v in then[case.issue_id]][0] == ("gfx90a", 0)


def test_only_passes_on_the_current_release_that_ran_the_kernel_verify_a_fix(make):
    case = approved_case(make)
    _done(case, "reproduced", 1)
    for attempt, outcome in enumerate(
        ["failed_differently", "environment_mismatch", "failed", "not_reproduced"], start=2
    ):
        _done(case, outcome, attempt)
    state = verification_for_issue(case.issue_id)["gfx942"]
    assert (state.state, state.consecutive_passes) == ("verifying", 1)
    for attempt in (6, 7):  # passes on the reporter's release say nothing of the current one
        run = _done(case, "not_reproduced", attempt)
        ReproRun.objects.filter(pk=run.pk).update(versions={"triton": "3.2.0"})
    assert verification_for_issue(case.issue_id)["gfx942"].consecutive_passes == 1
    _done(case, "not_reproduced", 8)
    _done(case, "not_reproduced", 9)
    assert verification_for_issue(case.issue_id)["gfx942"].verified
