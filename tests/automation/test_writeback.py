"""Label write-back to GitHub: PyGithub's requests to the emulator, the audit log, the command."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from automation.writeback import services as writeback
from automation.writeback.models import LabelWriteback
from tests.fakes.github_api import github_for_settings
from tests.triage.classification_data import labelled_issues
from triage.models import IssuePrediction, PredictionCorrection
from triage.sources.github import ingest

REPO = "ROCm/ROCm"


@pytest.fixture
def emulator(settings):
    with github_for_settings(settings, token="wb-token") as emu:
        settings.CLASSIFIER_WRITEBACK_MIN_CONFIDENCE = 0.9
        emu.add_repo(REPO)
        yield emu


@pytest.fixture
def repository(make):
    repository = make.repository(REPO)
    repository.label_writeback = True
    repository.save()
    for name in ("bug", "enhancement", "question", "project: rocBLAS", "project: MIOpen"):
        make.label(name, repository=repository)
    return repository


def open_issue(make, emulator, number, *, labels=(), **predictions):
    """An open issue on GitHub and here, with predictions {model: (label, confidence)}."""
    emulator.add_issue(REPO, number=number, title=f"Report {number}", labels=labels)
    issue = make.issue(number=number, title=f"Report {number}", labels=labels)
    for model_name, (label, confidence) in predictions.items():
        IssuePrediction.objects.create(
            issue=issue,
            model_name=model_name,
            model_version="20260101-abc",
            label=label,
            confidence=confidence,
            needs_triage=False,
        )
    return issue


def posts(emulator):
    return [r for r in emulator.requests if r["method"] == "POST"]


def github_labels(emulator, number):
    return [label["name"] for label in emulator.issue(REPO, number)["labels"]]


def run(*args):
    out = io.StringIO()
    call_command("writeback_labels", *args, stdout=out)
    return out.getvalue()


def test_it_applies_confident_kind_and_component_labels_and_logs_them(make, emulator, repository):
    issue = open_issue(
        make, emulator, 10, kind=("bug", 0.97), component=("rocblas", 0.93), severity=("high", 1)
    )
    remaining = emulator.rate_limit_remaining
    output = run(REPO)
    assert sorted(github_labels(emulator, 10)) == ["bug", "project: rocBLAS"]
    assert [r["path"] for r in posts(emulator)] == [f"/repos/{REPO}/issues/10/labels"] * 2
    assert emulator.rate_limit_remaining == remaining - 2, "writes count against the limit"
    rows = LabelWriteback.objects.filter(issue=issue, status="applied")
    assert {(r.model_name, r.label, r.confidence, r.model_version) for r in rows} == {
        ("kind", "bug", 0.97, "20260101-abc"),
        ("component", "project: rocBLAS", 0.93, "20260101-abc"),
    }
    assert "2 applied" in output
    assert sorted(issue.labels.values_list("name", flat=True)) == ["bug", "project: rocBLAS"]


def test_a_dry_run_lists_what_it_would_do_and_changes_nothing_on_github(make, emulator, repository):
    open_issue(make, emulator, 11, kind=("question", 0.95))
    output = run(REPO, "--dry-run")
    assert "would add 'question'" in output
    assert posts(emulator) == []
    assert github_labels(emulator, 11) == []
    assert LabelWriteback.objects.get().status == "planned"


def test_unsure_or_abstaining_predictions_are_not_applied(make, emulator, repository):
    open_issue(make, emulator, 12, kind=("bug", 0.89))
    abstained = open_issue(make, emulator, 13, kind=("bug", 0.99))
    abstained.predictions.update(needs_triage=True)
    run(REPO)
    assert posts(emulator) == []
    assert LabelWriteback.objects.count() == 0


def test_a_label_is_never_applied_twice_nor_re_added_after_a_maintainer_removed_it(
    make, emulator, repository
):
    issue = open_issue(make, emulator, 14, kind=("bug", 0.99))
    run(REPO)
    assert len(posts(emulator)) == 1
    run(REPO)
    assert len(posts(emulator)) == 1
    # a maintainer removes the label on GitHub; the sync brings the issue without it
    emulator.update_issue(REPO, 14, labels=[])
    ingest.issues_upsert(repository=repository, items=[emulator.issue(REPO, 14)])
    assert issue.labels.count() == 0
    run(REPO)
    assert len(posts(emulator)) == 1
    assert github_labels(emulator, 14) == []
    assert LabelWriteback.objects.filter(status="applied").count() == 1


def test_a_triagers_correction_wins_over_the_model(make, emulator, repository, user):
    issue = open_issue(make, emulator, 15, kind=("bug", 0.99))
    PredictionCorrection.objects.create(
        issue=issue, model_name="kind", before="bug", before_confidence=0.99, after="feature"
    )
    PredictionCorrection.objects.create(
        issue=issue, model_name="kind", before="feature", after="question", user=user
    )
    run(REPO)
    assert github_labels(emulator, 15) == ["question"], "the latest decision, mapped"
    row = LabelWriteback.objects.get(status="applied")
    assert (row.label, row.actor, row.confidence) == ("question", user, None)


def test_a_correction_maps_to_the_repositorys_own_label(make, emulator, repository):
    issue = open_issue(make, emulator, 16)
    PredictionCorrection.objects.create(issue=issue, model_name="kind", after="feature")
    run(REPO)
    assert github_labels(emulator, 16) == ["enhancement"]


def test_an_issue_someone_labelled_already_is_left_alone_and_logged_once(
    make, emulator, repository
):
    open_issue(make, emulator, 17, labels=["question"], kind=("bug", 0.99))
    first = run(REPO)
    run(REPO)
    assert posts(emulator) == []
    assert "already labelled question" in first
    assert LabelWriteback.objects.filter(status="skipped").count() == 1


def test_it_never_creates_a_label_the_repository_does_not_have(make, emulator, repository):
    open_issue(make, emulator, 18, kind=("performance", 0.99), component=("rccl", 0.99))
    output = run(REPO)
    assert posts(emulator) == []
    assert "has no label for kind 'performance'" in output
    assert LabelWriteback.objects.filter(status="skipped").count() == 2


def test_closed_issues_and_pull_requests_are_left_alone(make, emulator, repository):
    closed = open_issue(make, emulator, 19, kind=("bug", 0.99))
    closed.state = "closed"
    closed.save()
    pull = make.pull_request(number=20)
    IssuePrediction.objects.create(issue=pull, model_name="kind", label="bug", confidence=1)
    run(REPO)
    assert posts(emulator) == []


def test_limit_bounds_the_labels_of_one_run(make, emulator, repository):
    for number in (21, 22, 23):
        open_issue(make, emulator, number, kind=("bug", 0.99))
    assert "1 applied" in run(REPO, "--limit", "1")
    assert len(posts(emulator)) == 1


def test_a_repository_that_did_not_opt_in_is_refused_but_may_dry_run(make, emulator, repository):
    repository.label_writeback = False
    repository.save()
    open_issue(make, emulator, 24, kind=("bug", 0.99))
    with pytest.raises(CommandError, match="write-back is off"):
        run(REPO)
    run()  # every opted-in repository: none
    assert posts(emulator) == []
    assert "would add 'bug'" in run(REPO, "--dry-run")


def test_the_command_rejects_an_unknown_repository_and_a_bad_limit(db):
    with pytest.raises(CommandError, match="not a repository"):
        run("ROCm/nope")
    with pytest.raises(CommandError, match="positive"):
        run("--limit", "0")


def test_a_github_error_is_logged_as_failed_and_retried_by_the_next_run(make, emulator, repository):
    open_issue(make, emulator, 25, kind=("bug", 0.99))
    emulator.inject_fault(403, path_contains="/labels")
    with pytest.raises(CommandError, match="rate limit"):
        run(REPO)
    assert LabelWriteback.objects.get().status == "failed"
    run(REPO)
    assert github_labels(emulator, 25) == ["bug"]
    assert LabelWriteback.objects.filter(status="applied").count() == 1


def test_it_runs_by_itself_after_classification_for_an_opted_in_repository(
    make, emulator, repository, settings, django_capture_on_commit_callbacks
):
    labelled_issues(make)
    call_command("train_classifier", "kind", stdout=io.StringIO())
    settings.CLASSIFIER_WRITEBACK_MIN_CONFIDENCE = 0.0  # the small model is never that sure
    item = emulator.add_issue(
        REPO,
        number=4242,
        title="rocBLAS crashes with segmentation fault on MI300X",
        body="Kernel launch fails with hipErrorIllegalAddress; stack trace attached",
    )
    with django_capture_on_commit_callbacks(execute=True):
        ingest.issues_upsert(repository=repository, items=[item])
    prediction = IssuePrediction.objects.get(issue__number=4242, model_name="kind")
    assert prediction.label == "bug" and not prediction.needs_triage
    assert github_labels(emulator, 4242) == ["bug"]
    row = LabelWriteback.objects.get(issue__number=4242)
    assert (row.status, row.model_version) == ("applied", prediction.model_version)
    assert row.detail.startswith("automatic")


def test_the_automatic_step_leaves_repositories_that_did_not_opt_in_alone(
    make, emulator, repository
):
    repository.label_writeback = False
    repository.save()
    issue = open_issue(make, emulator, 26, kind=("bug", 0.99))
    report = writeback.labels_writeback(issue_ids=[issue.pk], origin="automatic")
    assert posts(emulator) == []
    assert report.lines == []


def test_the_admin_shows_the_audit_log_read_only_and_the_opt_in(
    make, emulator, repository, admin_client
):
    open_issue(make, emulator, 27, kind=("bug", 0.99))
    run(REPO)
    row = LabelWriteback.objects.get()
    listing = admin_client.get("/admin/automation/labelwriteback/")
    assert listing.status_code == 200
    assert "ROCm/ROCm#27" in listing.content.decode()
    assert admin_client.get("/admin/automation/labelwriteback/add/").status_code == 403
    change = admin_client.get(f"/admin/automation/labelwriteback/{row.pk}/change/")
    assert change.status_code == 200 and 'name="label"' not in change.content.decode()
    form = admin_client.get(f"/admin/triage/repository/{repository.pk}/change/")
    assert 'name="label_writeback"' in form.content.decode()


def test_the_switch_that_stops_every_write_stops_label_writeback(
    make, emulator, repository, triager
):
    from automation.outbox import services as outbox
    from automation.writeback.tasks import writeback_labels

    issue = open_issue(make, emulator, 30, kind=("bug", 0.99))
    outbox.writes_stop(user=triager, reason="incident")
    with pytest.raises(CommandError, match="stopped by tess"):
        run(REPO)
    assert "stopped by tess" in writeback_labels(ids=[issue.pk])
    assert posts(emulator) == [] and not LabelWriteback.objects.exists()
