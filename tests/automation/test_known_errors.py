"""Known errors: matched on the reporter's environment and the support matrix, answered in one
click (or automatically, opted in) through the outbox, counted on the canonical issue."""

from __future__ import annotations

import pytest
from django.urls import reverse

from automation.known_errors import services as known_errors
from automation.known_errors.models import KnownError, KnownErrorMatch
from automation.outbox.models import GitHubWrite
from classifiers import support_matrix
from triage.models import IssuePrediction, PredictionCorrection
from triage.services import classification

REPO = "ROCm/ROCm"
BOT = "rocm-triage-bot"
NO_BINARY = """### Problem Description
Every PyTorch model fails: hipErrorNoBinaryForGpu: Unable to find code object for all devices!

### Operating System
Ubuntu 22.04.4 LTS

### GPU
AMD Radeon RX 6700 XT (gfx1031)

### ROCm Version
ROCm 6.2.0
"""
ANSWER = (
    "@{{ reporter }}: {{ target }} is not supported by ROCm {{ rocm_version }}; "
    "see {{ canonical }} for the workaround."
)


@pytest.fixture
def repository(opt_in):
    return opt_in(["known_errors.answer"])


@pytest.fixture
def signature(make, repository):
    canonical = make.issue(repository=repository, number=2000, title="gfx1031 is unsupported")
    return KnownError.objects.create(
        name="no binary for the GPU",
        pattern=r"hipErrorNoBinaryForGpu|invalid device function",
        when_unsupported=True,
        canonical=canonical,
        answer=ANSWER,
    )


def report(make, emulator, repository, number, body, title="PyTorch fails on my GPU"):
    emulator.add_issue(REPO, number=number, title=title, body=body, user="reporter1")
    issue = make.issue(
        repository=repository, number=number, title=title, body=body, author="reporter1"
    )
    classification.issues_environment_refresh(ids=[issue.pk])
    return issue


def test_the_support_matrix_knows_releases_and_platforms_and_says_when_it_does_not(db):
    assert support_matrix.supports("gfx942", "6.2") is True
    assert support_matrix.supports("gfx1031", "6.2.0") is False
    assert support_matrix.supports("gfx1101", "6.2.4", "Windows 11") is True
    assert support_matrix.supports("gfx1101", "6.2.4", "Ubuntu 24.04") is False
    assert support_matrix.supports("gfx1031", "9.9.9") is None, "unknown release: no judgement"
    assert "compatibility-matrix" in support_matrix.sources()["linux"]


def test_a_release_newer_than_the_matrix_is_not_yet_in_it_and_no_signature_judges_it(
    make, emulator, repository, signature
):
    newest = support_matrix.newest("linux")
    assert support_matrix.verdict("gfx1031", "7.9.0") == (
        "unknown",
        f"ROCm 7.9.0 is not yet in the support matrix for Linux (newest: {newest}).",
    )
    newer = report(make, emulator, repository, 13, NO_BINARY.replace("6.2.0", "7.9.0"))
    assert known_errors.known_errors_match(ids=[newer.pk]).proposed == []
    assert not KnownErrorMatch.objects.exists()


def test_an_unsupported_target_with_the_error_is_proposed_and_a_supported_one_is_not(
    make, emulator, repository, signature
):
    unsupported = report(make, emulator, repository, 10, NO_BINARY)
    supported = report(
        make, emulator, repository, 11, NO_BINARY.replace("RX 6700 XT (gfx1031)", "RX 7900 XTX")
    )
    unknown = report(make, emulator, repository, 12, NO_BINARY.replace("6.2.0", "9.1.0"))
    found = known_errors.known_errors_match(ids=[unsupported.pk, supported.pk, unknown.pk])
    assert found.proposed == ["ROCm/ROCm#10 ~ no binary for the GPU"]
    match = KnownErrorMatch.objects.get()
    assert (match.target, match.rocm_version) == ("gfx1031", "6.2.0")
    assert match.evidence == "hipErrorNoBinaryForGpu"
    assert known_errors.known_errors_match(ids=[unsupported.pk]).proposed == [], "once"


def test_a_triager_answers_in_one_click_and_the_canonical_issue_counts_the_reports(
    make, emulator, repository, signature, triager_client, django_capture_on_commit_callbacks
):
    issue = report(make, emulator, repository, 10, NO_BINARY)
    known_errors.known_errors_match(ids=[issue.pk])
    match = KnownErrorMatch.objects.get()
    page = triager_client.get(reverse("issue-detail", args=["ROCm", "ROCm", 10])).content.decode()
    assert "Post the answer and mark duplicate" in page
    with django_capture_on_commit_callbacks(execute=True):
        triager_client.post(reverse("known-error-decide", args=[match.pk]), {"decision": "answer"})
    [comment] = emulator.comments(REPO, 10)
    assert comment["body"].startswith(
        "@reporter1: gfx1031 is not supported by ROCm 6.2.0; see ROCm/ROCm#2000"
    )
    correction = PredictionCorrection.objects.get(issue=issue, model_name="duplicates")
    assert (correction.after, correction.user.username) == ("ROCm/ROCm#2000", "tess")
    assert GitHubWrite.objects.get(issue=issue).decided_by == "tess"
    canonical = triager_client.get(reverse("issue-detail", args=["ROCm", "ROCm", 2000]))
    text = canonical.content.decode()
    assert "1 report collected" in text and "gfx1031" in text and "6.2.0" in text


def test_a_repository_that_opted_in_gets_the_answer_without_a_click(
    make, emulator, repository, signature, django_capture_on_commit_callbacks
):
    repository.github_actions = ["known_errors.answer", "known_errors.auto"]
    repository.save()
    issue = report(make, emulator, repository, 10, NO_BINARY)
    with django_capture_on_commit_callbacks(execute=True):
        found = known_errors.known_errors_match(ids=[issue.pk])
    assert found.answered == ["ROCm/ROCm#10 ~ no binary for the GPU"]
    assert len(emulator.comments(REPO, 10)) == 1
    assert GitHubWrite.objects.get().decided_by == "rule known-error no binary for the GPU"
    assert not PredictionCorrection.objects.exists(), "a rule is not a triager's decision"


@pytest.mark.parametrize(
    ("pattern", "targets", "answer", "why"),
    [
        ("(unclosed", "", ANSWER, "not an RE2 pattern"),
        ("x", "gfx1031, mi300", ANSWER, "not gfx targets: mi300"),
        ("x", "", "{{ reporterr }}", "a variable it does not get"),
    ],
)
def test_a_signature_that_cannot_work_is_refused(pattern, targets, answer, why):
    with pytest.raises(known_errors.SignatureInvalid, match=why):
        known_errors.signature_validate(pattern=pattern, targets=targets, answer=answer)


def test_a_dismissed_proposal_changes_nothing_on_github(
    make, emulator, repository, signature, triager_client
):
    issue = report(make, emulator, repository, 10, NO_BINARY)
    known_errors.known_errors_match(ids=[issue.pk])
    match = KnownErrorMatch.objects.get()
    triager_client.post(reverse("known-error-decide", args=[match.pk]), {"decision": "dismiss"})
    match.refresh_from_db()
    assert match.state == "dismissed" and match.decided_by == "tess"
    assert emulator.comments(REPO, 10) == [] and not GitHubWrite.objects.exists()
    assert not IssuePrediction.objects.filter(issue=issue, model_name="duplicates").exists()


def test_the_answer_can_quote_the_support_matrix_on_the_reporters_setup(
    make, emulator, repository, signature, triager, django_capture_on_commit_callbacks
):
    signature.answer = "@{{ reporter }}: {{ support }}"
    signature.save()
    known_errors.signature_validate(pattern=signature.pattern, targets="", answer=signature.answer)
    issue = report(make, emulator, repository, 12, NO_BINARY)
    known_errors.known_errors_match(ids=[issue.pk])
    with django_capture_on_commit_callbacks(execute=True):
        known_errors.known_error_answer(match=KnownErrorMatch.objects.get(), user=triager)
    [comment] = emulator.comments(REPO, 12)
    assert comment["body"].startswith("@reporter1: ROCm 6.2.0 on Linux does not list gfx1031")


def test_an_answer_the_outbox_skipped_is_not_called_answered_and_can_be_posted_later(
    make, emulator, repository, signature, triager_client, django_capture_on_commit_callbacks
):
    repository.github_actions = []
    repository.save()
    issue = report(make, emulator, repository, 10, NO_BINARY)
    known_errors.known_errors_match(ids=[issue.pk])
    match = KnownErrorMatch.objects.get()
    answer = triager_client.post(
        reverse("known-error-decide", args=[match.pk]), {"decision": "answer"}, follow=True
    )
    text = answer.content.decode()
    assert "the answer was not posted: ROCm/ROCm has not opted in to: post a known error" in text
    assert "known_errors.answer" not in text.split("the answer was not posted", 1)[1][:200]
    match.refresh_from_db()
    assert match.state == KnownErrorMatch.State.PROPOSED  # not "answered": nothing was posted
    assert "Post the answer and mark duplicate" in text  # still offered

    repository.github_actions = ["known_errors.answer"]
    repository.save()
    with django_capture_on_commit_callbacks(execute=True):
        triager_client.post(reverse("known-error-decide", args=[match.pk]), {"decision": "answer"})
    assert len(emulator.comments(REPO, 10)) == 1
    match.refresh_from_db()
    assert match.state == KnownErrorMatch.State.ANSWERED
