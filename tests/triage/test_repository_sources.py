"""Repositories of a source other than GitHub (a GitLab-like tracker): named SOURCE:OWNER/NAME,
shown like any other, and never synced from, looked up for, nor written to GitHub."""

from __future__ import annotations

import io
from datetime import UTC, datetime

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from automation.outbox import services as outbox
from automation.outbox.models import GitHubWrite
from automation.writeback import services as writeback
from tests.fakes.github_api import github_for_settings
from triage.models import IssuePrediction, Repository, SyncState
from triage.services import tracking, upsert
from triage.sources.github import ingest
from triage.sources.records import IssueRecord, PersonRecord

pytestmark = pytest.mark.django_db(transaction=True)

REPO = "ROCm/ROCm"
GITLAB = "gitlab:rocm/hip"


@pytest.fixture
def emulator(settings):
    with github_for_settings(settings, token="sync-token") as emu:
        emu.add_repo(REPO)
        emu.add_issue(REPO, title="Crash on gfx942")
        yield emu


@pytest.fixture
def gitlab_repository(make):
    return make.repository(
        GITLAB,
        source="gitlab",
        html_url="https://gitlab.example/rocm/hip",
        tracked=True,
        label_writeback=True,
        github_actions=list(outbox.ACTIONS),
        github_dry_run=False,
    )


@pytest.mark.parametrize(
    ("source", "full_name"), [("gitlab", "rocm/hip"), ("github", "gitlab:rocm/hip")]
)
def test_a_repositorys_name_says_its_source(db, source, full_name):
    with pytest.raises(ValueError, match="SOURCE:OWNER/NAME"):
        Repository.objects.create(source=source, full_name=full_name)


def test_the_github_sync_passes_over_another_sources_repositories(emulator, gitlab_repository):
    tracking.repository_track(full_name=REPO)
    call_command("sync_github", stdout=io.StringIO(), stderr=io.StringIO())
    assert set(SyncState.objects.values_list("repository__full_name", flat=True)) == {REPO}
    assert not any("rocm/hip" in r["path"].lower() for r in emulator.requests)
    with pytest.raises(CommandError, match="OWNER/NAME of a GitHub repository"):
        call_command("sync_github", GITLAB, stdout=io.StringIO(), stderr=io.StringIO())


def test_githubs_repository_of_the_same_name_is_another_row(emulator, gitlab_repository):
    assert ingest.repository_named("rocm/hip") is None
    github = tracking.repository_track(full_name="ROCm/HIP")
    assert github.pk != gitlab_repository.pk and github.on_github
    assert ingest.repository_named("rocm/hip") == github


def test_nothing_is_written_to_github_for_another_sources_issues(make, gitlab_repository):
    issue = make.issue(repository=gitlab_repository, number=5, source="gitlab")
    row = outbox.write_plan(
        issue=issue,
        action="needs_info.ask",
        operation=GitHubWrite.Operation.ADD_LABELS,
        key="k",
        payload={"labels": ["needs info"]},
        reason="test",
        decided_by="rule test",
    )
    assert row.status == "skipped" and "not a GitHub repository (gitlab)" in row.detail
    with pytest.raises(writeback.WritebackDisabled, match="not a GitHub repository"):
        writeback.labels_writeback(repository=gitlab_repository)
    assert writeback.labels_writeback().counts == {}, "the opted-in GitLab one is passed over"


def test_another_sources_issue_has_its_page(make, triager_client, gitlab_repository):
    make.issue(repository=gitlab_repository, number=5, title="hipMemcpy hangs", source="gitlab")
    url = reverse("issue-detail", args=["gitlab:rocm", "hip", 5])
    page = triager_client.get(url)
    assert page.status_code == 200 and "hipMemcpy hangs" in page.content.decode()
    listing = triager_client.get(reverse("issue-list")).content.decode()
    assert url in listing


def test_another_sources_issues_go_through_the_one_upsert_path_and_the_pipeline(
    gitlab_repository, django_capture_on_commit_callbacks
):
    record = IssueRecord(
        number=5,
        external_id="87001",
        source="gitlab",
        title="Segfault in hipMemcpy on MI300X",
        body="### ROCm Version\n\n6.4.1\n\nThe process crashes with a segmentation fault.",
        updated_at=datetime(2026, 11, 30, tzinfo=UTC),
        created_at=datetime(2026, 11, 29, tzinfo=UTC),
        author=PersonRecord(source="gitlab", external_id="311", login="reporter"),
        html_url="https://gitlab.example/rocm/hip/-/issues/5",
    )
    with django_capture_on_commit_callbacks(execute=True):
        result = upsert.issues_upsert(repository=gitlab_repository, records=[record])
    [issue_id] = result.changed_ids
    judged = dict(
        IssuePrediction.objects.filter(issue_id=issue_id).values_list("model_name", "label")
    )
    assert judged["environment"] == "gfx942" and judged["symptom"] == "crash"
    issue = gitlab_repository.issues.get()
    assert (issue.source, issue.external_id, issue.author.source) == ("gitlab", "87001", "gitlab")
