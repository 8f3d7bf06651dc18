from datetime import UTC, datetime

import pytest

from config import wiring
from releases import selectors
from releases.models import FixLink
from releases.services.fixes import fix_link_add, fix_link_remove, fix_links_sync
from releases.tasks import link_fixes

MERGED = datetime(2026, 11, 20, 12, tzinfo=UTC)


@pytest.fixture
def merged_pr(make, series):
    def build(body, *, repository=None, number=None, **fields):
        fields.setdefault("merged", True)
        fields.setdefault("merged_at", MERGED)
        fields.setdefault("base_ref", "develop")
        fields.setdefault("merge_commit_sha", "f" * 40)
        return make.pull_request(repository=repository, number=number, body=body, **fields)

    return build


def test_a_merged_pr_fixes_issues_across_repositories(make, merged_pr):
    own = make.issue(number=1)
    other = make.issue(repository=make.repository("ROCm/HIP"), number=2)
    pr = merged_pr("Fixes #1, closes rocm/hip#2, see #3", number=10)
    result = fix_links_sync(pull_request=pr)
    assert result.created == 2
    assert set(FixLink.objects.values_list("issue_id", flat=True)) == {own.id, other.id}
    assert selectors.fixed_in(own.id) == "7.9"
    chain = selectors.issue_fix_chain(own.id)[0]
    assert (chain["pull_request"], chain["merge_commit"], chain["train"]) == (
        "ROCm/ROCm#10",
        "f" * 40,
        "7.9",
    )


def test_replaying_changes_nothing(make, merged_pr):
    make.issue(number=1)
    pr = merged_pr("Fixes #1")
    fix_links_sync(pull_request=pr)
    again = fix_links_sync(pull_request=pr)
    assert (again.created, again.updated, again.unchanged) == (0, 0, 1)
    assert FixLink.objects.count() == 1


def test_an_open_pr_links_nothing(make, merged_pr):
    make.issue(number=1)
    pr = merged_pr("Fixes #1", merged=False, merged_at=None)
    assert fix_links_sync(pull_request=pr).created == 0


def test_an_unknown_issue_is_reported_not_linked(make, merged_pr):
    pr = merged_pr("Fixes ROCm/Nowhere#9")
    result = fix_links_sync(pull_request=pr)
    assert result.unresolved == ["rocm/nowhere#9"]
    assert not FixLink.objects.exists()


def test_an_edited_body_drops_the_parsed_link(make, merged_pr):
    make.issue(number=1)
    pr = merged_pr("Fixes #1")
    fix_links_sync(pull_request=pr)
    pr.body = "see #1"
    pr.save()
    assert fix_links_sync(pull_request=pr).deleted == 1
    assert not FixLink.objects.exists()


def test_a_maintainers_removal_wins_over_parsing(make, merged_pr, user):
    issue = make.issue(number=1)
    pr = merged_pr("Fixes #1")
    fix_links_sync(pull_request=pr)
    fix_link_remove(issue=issue, pull_request=pr, user=user)
    fix_links_sync(pull_request=pr)
    link = FixLink.objects.get()
    assert (link.source, link.removed) == ("manual", True)
    assert selectors.issue_fix_chain(issue.id) == []


def test_a_maintainer_adds_a_link_by_hand(make, merged_pr, user):
    issue = make.issue(number=1)
    pr = merged_pr("Cherry-pick, related to #1", base_ref="release/rocm-rel-7.8")
    fix_link_add(issue=issue, pull_request=pr, user=user)
    fix_links_sync(pull_request=pr)  # parsing finds nothing and keeps the manual link
    link = FixLink.objects.get()
    assert (link.source, link.train_version, link.via) == ("manual", "7.8", "release_branch")


def test_the_pipeline_runs_the_task_on_the_releases_queue(make, merged_pr, settings):
    make.issue(number=1)
    pr = merged_pr("Fixes #1")
    assert "releases.tasks.link_fixes" in wiring.AFTER_ISSUES_CHANGED
    assert settings.CELERY_TASK_ROUTES["releases.tasks.link_fixes"] == {"queue": "releases"}
    assert link_fixes(ids=[pr.id]).startswith("fix links: 1 created")


def test_commit_messages_close_issues_too(make, merged_pr):
    fixed = make.issue(number=1)
    make.issue(number=2)
    pr = merged_pr(
        "Squash of the work below.",
        commit_messages=["hip: guard the NaN path\n\nFixes #1", "see #2 for the history"],
    )
    result = fix_links_sync(pull_request=pr)
    assert result.created == 1
    assert list(FixLink.objects.values_list("issue_id", "keyword")) == [(fixed.id, "fixes")]


def test_a_commit_message_that_only_mentions_links_nothing(make, merged_pr):
    make.issue(number=1)
    pr = merged_pr("Refactor", commit_messages=["LOL #1", "Part of #1"])
    assert fix_links_sync(pull_request=pr).created == 0


def _reproduced_case(issue):
    from kernels_ci.models import ReproCase, ReproRun

    case = ReproCase.objects.create(
        issue=issue,
        script="import triton\nprint('boom')\n",
        sha256="a" * 64,
        approved_sha256="a" * 64,
        language="python",
        uses_triton=True,
        backend="triton-interpreter",
    )
    ReproRun.objects.create(
        case=case,
        arch="cpu",
        backend="triton-interpreter",
        attempt=1,
        queue="repro.cpu",
        script_sha256="a" * 64,
        status="done",
        outcome="reproduced",
        finished_at=MERGED,
    )
    return case


def test_a_new_fix_asks_kernels_ci_to_verify_on_commit(
    make, merged_pr, django_capture_on_commit_callbacks
):
    issue = make.issue(number=1)
    case = _reproduced_case(issue)
    pr = merged_pr("Fixes #1")
    with django_capture_on_commit_callbacks() as callbacks:
        fix_links_sync(pull_request=pr)
    assert not case.runs.filter(purpose="verify").exists()  # nothing before the commit
    for callback in callbacks:
        callback()
    run = case.runs.get(purpose="verify")
    assert (run.arch, run.backend, run.status) == ("cpu", "triton-interpreter", "queued")


def test_replaying_the_sync_asks_for_no_new_verification(
    make, merged_pr, django_capture_on_commit_callbacks
):
    issue = make.issue(number=1)
    _reproduced_case(issue)
    pr = merged_pr("Fixes #1")
    fix_links_sync(pull_request=pr)
    with django_capture_on_commit_callbacks() as callbacks:
        fix_links_sync(pull_request=pr)
    assert callbacks == []


def test_a_link_by_hand_asks_for_verification(
    make, merged_pr, user, django_capture_on_commit_callbacks
):
    issue = make.issue(number=1)
    case = _reproduced_case(issue)
    pr = merged_pr("cherry-pick", base_ref="release/rocm-rel-7.8")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        fix_link_add(issue=issue, pull_request=pr, user=user)
    for callback in callbacks:
        callback()
    assert case.runs.filter(purpose="verify").count() == 1
