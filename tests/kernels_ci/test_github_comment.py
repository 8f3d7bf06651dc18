"""The optional GitHub comment with an attempt's result, through PyGithub to the emulator."""

import pytest
import requests

from kernels_ci.models import ReproRun
from kernels_ci.services.cases import case_approve, case_refresh
from kernels_ci.services.comments import run_comment_post
from kernels_ci.services.runs import run_finish, runs_queue
from tests.fakes.github_api import github_for_settings
from tests.kernels_ci.factories import issue_body
from triage.sources.github.client import TransientGitHubError

REPO = "ROCm/triton"


@pytest.fixture
def github(settings):
    with github_for_settings(settings, token="comment-token") as emu:
        emu.add_repo(REPO)
        emu.add_issue(REPO, number=77, title="wrong results")
        yield emu


@pytest.fixture
def case(make):
    repository = make.repository(REPO)
    issue = make.issue(repository=repository, number=77, body=issue_body())
    return case_approve(case=case_refresh(issue=issue), login="maintainer")


def comments_on_77(github) -> list[dict]:
    response = requests.get(
        f"{github.url}/repos/{REPO}/issues/77/comments",
        headers={"Authorization": "token comment-token"},
        timeout=10,
    )
    return response.json()


def finish(case, outcome="reproduced", purpose="repro", **fields):
    (run,) = runs_queue(case=case, runs=5, dispatch=False, purpose=purpose)
    fields.setdefault("symptom_runs", 4)
    fields.setdefault("signature", "AssertionError: Tensor-likes are not close! | `main` @here")
    return run_finish(run=run, outcome=outcome, detail="", **fields)


def test_it_posts_one_comment_per_finished_attempt_when_on(
    github, case, settings, django_capture_on_commit_callbacks
):
    settings.KERNELS_CI_GITHUB_COMMENT = [REPO.lower()]
    with django_capture_on_commit_callbacks(execute=True):
        run = finish(case)
    (comment,) = comments_on_77(github)
    assert comment["body"].startswith(
        "**Kernel reproduction**: attempt 1 with `triton-interpreter` on `cpu`: **reproduced**"
    )
    assert "4 of 5 executions showed the reported failure (wrong result)" in comment["body"]
    assert (
        "Signature: `AssertionError: Tensor-likes are not close! | 'main' @here`"
        in (comment["body"])
    )
    run.refresh_from_db()
    assert run.commented_at is not None and run.comment_url == comment["html_url"]
    # A redelivered task posts nothing more.
    assert run_comment_post(run_id=run.pk) == ""
    assert len(comments_on_77(github)) == 1


def test_it_posts_nothing_when_off_or_for_another_repository(
    github, case, settings, django_capture_on_commit_callbacks
):
    for setting in ([], ["ROCm/other"]):
        settings.KERNELS_CI_GITHUB_COMMENT = setting
        with django_capture_on_commit_callbacks(execute=True):
            run = finish(case)
        assert run_comment_post(run_id=run.pk) == ""
    assert comments_on_77(github) == []
    assert not any(r["method"] == "POST" for r in github.requests)
    assert not ReproRun.objects.filter(commented_at__isnull=False).exists()


def test_infra_errors_and_unchanged_nightly_results_are_not_news(
    github, case, settings, django_capture_on_commit_callbacks
):
    settings.KERNELS_CI_GITHUB_COMMENT = ["*"]
    with django_capture_on_commit_callbacks(execute=True):
        finish(case, outcome="infra_error")
        finish(case, outcome="reproduced")
        finish(case, outcome="reproduced", purpose="nightly")
        finish(case, outcome="not_reproduced", purpose="nightly", symptom_runs=0, signature="")
    bodies = [c["body"] for c in comments_on_77(github)]
    assert len(bodies) == 2
    assert "attempt 2" in bodies[0] and "**reproduced**" in bodies[0]
    assert "attempt 4" in bodies[1] and "(nightly): **not reproduced**" in bodies[1]


def test_a_failed_post_releases_the_claim_for_a_retry(github, case, settings):
    settings.KERNELS_CI_GITHUB_COMMENT = ["*"]
    run = finish(case)
    github.inject_fault(502, path_contains="/comments")
    with pytest.raises(TransientGitHubError):
        run_comment_post(run_id=run.pk)
    run.refresh_from_db()
    assert run.commented_at is None
    assert run_comment_post(run_id=run.pk).endswith(
        "#issuecomment-" + str(comments_on_77(github)[0]["id"])
    )


def test_the_switch_that_stops_every_write_stops_the_repro_comment(
    github, case, settings, django_capture_on_commit_callbacks
):
    settings.KERNELS_CI_GITHUB_COMMENT = ["*"]
    settings.GITHUB_WRITES_STOPPED = True
    with django_capture_on_commit_callbacks(execute=True):
        run = finish(case)
    assert run_comment_post(run_id=run.pk) == ""
    assert comments_on_77(github) == []
    run.refresh_from_db()
    assert run.commented_at is None, "not claimed: it may go out once writes are allowed"


def test_an_issue_on_another_tracker_gets_no_github_comment(
    github, make, settings, django_capture_on_commit_callbacks
):
    settings.KERNELS_CI_GITHUB_COMMENT = ["*"]
    repository = make.repository("gitlab:rocm/triton", source="gitlab")
    issue = make.issue(repository=repository, number=77, body=issue_body(), source="gitlab")
    case = case_approve(case=case_refresh(issue=issue), login="maintainer")
    with django_capture_on_commit_callbacks(execute=True):
        run = finish(case)
    assert run_comment_post(run_id=run.pk) == ""
    assert not any(r["method"] == "POST" for r in github.requests)
    assert not ReproRun.objects.filter(commented_at__isnull=False).exists()
