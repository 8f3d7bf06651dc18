"""The approval gate: nothing runs unapproved, an edited reproducer needs a new approval, and a
`/repro` comment by a collaborator (through the webhook) approves and runs."""

from datetime import timedelta

import pytest
from django.utils import timezone

from kernels_ci.models import ReproCase, ReproRun
from kernels_ci.services.cases import case_approve, case_refresh, cases_refresh
from kernels_ci.services.runs import NotApproved, run_execute, runs_queue
from tests.kernels_ci.factories import issue_body
from triage.sources.github import webhooks


def test_nothing_runs_unapproved(make):
    case = case_refresh(issue=make.issue(body=issue_body()))
    assert not case.is_approved
    with pytest.raises(NotApproved, match="not approved"):
        runs_queue(case=case)
    assert not ReproRun.objects.exists()


def test_an_edited_reproducer_needs_a_new_approval(make, django_capture_on_commit_callbacks):
    issue = make.issue(body=issue_body())
    case = case_approve(case=case_refresh(issue=issue), login="maintainer")
    with django_capture_on_commit_callbacks(execute=False):
        (run,) = runs_queue(case=case)
    issue.body = issue_body(script="import torch\nimport os\nos.system('echo edited')\n")
    issue.save()
    case = case_refresh(issue=issue)
    assert case.needs_reapproval and not case.is_approved
    with pytest.raises(NotApproved, match="changed since it was approved"):
        runs_queue(case=case)
    # The run queued before the edit does not run the edited script either.
    cancelled = run_execute(run_id=run.pk)
    assert cancelled.status == ReproRun.Status.CANCELLED
    assert "approve again" in cancelled.detail


def test_a_comment_by_a_non_collaborator_approves_nothing(make):
    issue = make.issue(body=issue_body())
    make.comment(issue, body="/repro", author="drive-by", author_association="NONE")
    report = cases_refresh(issue_ids=[issue.id])
    case = ReproCase.objects.get(issue=issue)
    assert not case.is_approved and report.approved == []
    assert "drive-by (NONE) may not /repro" in report.refused[0]


def _payload(issue, *, comment_id, body, association):
    now = timezone.now().isoformat()
    return {
        "action": "created",
        "repository": {
            "id": 4242,
            "full_name": issue.repository.full_name,
            "default_branch": "main",
        },
        "issue": {
            "id": int(issue.external_id),
            "number": issue.number,
            "title": issue.title,
            "body": issue.body,
            "state": "open",
            "user": {"id": 7, "login": "reporter"},
            "created_at": "2025-05-01T10:00:00Z",
            "updated_at": now,
        },
        "comment": {
            "id": comment_id,
            "body": body,
            "author_association": association,
            "user": {"id": 8, "login": "maintainer"},
            "created_at": now,
            "updated_at": now,
            "html_url": "https://github.com/x/y/issues/1#issuecomment-1",
        },
    }


def test_a_repro_comment_by_a_member_through_the_webhook_approves_and_runs(
    make, needs_kernels_extra, django_capture_on_commit_callbacks, settings
):
    settings.KERNELS_CI_RUN_TIMEOUT_S = 60
    repository = make.repository("ROCm/triton", github_id=4242, default_branch="main")
    issue = make.issue(repository=repository, body=issue_body())
    payload = _payload(issue, comment_id=555, body="/repro runs=1", association="MEMBER")
    with django_capture_on_commit_callbacks(execute=True):
        webhooks.handle_issue_comment(payload)
    case = ReproCase.objects.get(issue=issue)
    assert case.is_approved and case.approved_by_login == "maintainer"
    assert case.approved_via == "comment"
    run = ReproRun.objects.get(case=case)
    assert (run.status, run.outcome, run.runs_requested) == ("done", "reproduced", 1)
    # The same delivery again (or a re-sync) acts on the comment once only.
    with django_capture_on_commit_callbacks(execute=True):
        webhooks.handle_issue_comment(payload)
        cases_refresh(issue_ids=[issue.id])
    assert ReproRun.objects.filter(case=case).count() == 1


def test_a_repro_comment_made_before_the_script_changed_approves_nothing(make):
    issue = make.issue(body=issue_body(), updated_at=timezone.now() - timedelta(days=1))
    case_refresh(issue=issue)
    make.comment(
        issue,
        body="/repro",
        author="maintainer",
        author_association="MEMBER",
        created_at=timezone.now() - timedelta(hours=2),
    )
    issue.body = issue_body(script="import torch\nprint('edited after the comment')\n")
    issue.updated_at = timezone.now() - timedelta(hours=1)  # GitHub's time of the edit
    issue.save()
    report = cases_refresh(issue_ids=[issue.id])
    case = ReproCase.objects.get(issue=issue)
    assert not case.is_approved and report.approved == [] and not ReproRun.objects.exists()
    assert "predates the reproducer's last change" in report.refused[0]
    # A /repro written after the edit approves the new script.
    make.comment(
        issue,
        body="/repro",
        author="maintainer",
        author_association="MEMBER",
        created_at=timezone.now(),
    )
    report = cases_refresh(issue_ids=[issue.id])
    case.refresh_from_db()
    assert case.is_approved and report.approved == [case.pk]


def test_an_edit_from_python_to_hip_changes_the_backend(make):
    issue = make.issue(body=issue_body())
    assert case_refresh(issue=issue).backend == "triton-interpreter"
    issue.body = (
        "Hangs on gfx942.\n\n```cpp\n#include <hip/hip_runtime.h>\n"
        "__global__ void k(int *x) { while (*x == 0) {} }\nint main() { return 0; }\n```\n"
    )
    issue.save()
    case = case_refresh(issue=issue)
    assert (case.language, case.backend) == ("hip", "rocm-container")
