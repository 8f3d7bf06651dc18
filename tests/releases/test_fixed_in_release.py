"""When a train ships: its fixed issues are told on GitHub and closed (opted in); readiness lists
missed backports and fixed issues reported again. Series: 7.8 ships 2026-11-11, 7.9 is cut
2026-12-09 and ships 2026-12-23 (tests/releases/conftest.py)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from automation.outbox.models import GitHubWrite
from releases.readiness import readiness_build
from releases.report_formats import report_render
from releases.services.announce import released_fixes_announce
from releases.services.backports import backport_nominate
from releases.services.fixes import fix_links_sync
from releases.services.targets import target_set
from tests.fakes.github_api import github_for_settings
from triage.models import IssuePrediction

REPO = "ROCm/ROCm"
BOT = "rocm-triage-bot"
CREATED = datetime(2026, 10, 1, tzinfo=UTC)


@pytest.fixture
def emulator(settings):
    with github_for_settings(settings, token="fr-token", login=BOT) as emu:
        settings.GITHUB_BOT_LOGIN = BOT
        emu.add_repo(REPO)
        yield emu


def fix(make, number, issue_number, merged_at):
    pull_request = make.pull_request(
        number=number,
        body=f"Fixes #{issue_number}",
        merged=True,
        base_ref="develop",
        merge_commit_sha=f"{number:040d}",
        merged_at=merged_at,
        created_at=CREATED,
    )
    fix_links_sync(pull_request=pull_request)
    return pull_request


def test_a_shipped_fix_is_told_once_and_its_open_issue_closed(
    make, series, emulator, django_capture_on_commit_callbacks
):
    repository = series.repositories.get()
    repository.github_actions = ["releases.fixed_comment", "releases.fixed_close"]
    repository.github_dry_run = False
    repository.save()
    emulator.add_issue(REPO, number=40, title="NaN in gemm on gfx942", user="reporter1")
    issue = make.issue(number=40, title="NaN in gemm on gfx942", created_at=CREATED)
    fix(make, 41, 40, datetime(2026, 10, 20, tzinfo=UTC))  # before 7.8's cut: ships in 7.8
    not_yet = make.issue(number=42, created_at=CREATED)
    fix(make, 43, 42, datetime(2026, 11, 5, tzinfo=UTC))  # after the cut: 7.9
    emulator.add_issue(REPO, number=42, title="later", user="reporter1")
    with django_capture_on_commit_callbacks(execute=True):
        report = released_fixes_announce(now=datetime(2026, 11, 12, 12, tzinfo=UTC))
        released_fixes_announce(now=datetime(2026, 11, 13, 12, tzinfo=UTC))  # the next pass
    assert report.lines == ["ROCm/ROCm#40: 7.8.0, verified on -"]
    [comment] = emulator.comments(REPO, 40)
    assert comment["body"].startswith("Fixed in rocm 7.8.0 (ROCm/ROCm#41).")
    github = emulator.issue(REPO, 40)
    assert (github["state"], github["state_reason"]) == ("closed", "completed")
    issue.refresh_from_db()
    assert issue.state == "closed"
    assert emulator.comments(REPO, 42) == [] and not_yet.github_writes.count() == 0
    assert GitHubWrite.objects.filter(status="done").count() == 2


def test_a_fix_that_missed_the_cut_train_is_a_missed_backport_until_nominated(make, series):
    issue = make.issue(number=50, title="Crash in hipMemcpyAsync", created_at=CREATED)
    target_set(issue=issue, series=series, version="7.9")
    fix(make, 51, 50, datetime(2026, 12, 15, tzinfo=UTC))  # after 7.9's cut: lands on 7.10
    report = readiness_build(series=series, version="7.9", as_of=date(2026, 12, 16))
    assert report["missed_backports"] == [
        {
            "issue": "ROCm/ROCm#50",
            "title": "Crash in hipMemcpyAsync",
            "url": "https://github.com/ROCm/ROCm/issues/50",
            "pull_request": "ROCm/ROCm#51",
            "fixed_in": "7.10",
        }
    ]
    assert any("missed backports" in note for note in report["notes"])
    assert "## Missed backports" in report_render(report, "md")
    backport_nominate(issue=issue, series=series, version="7.9")
    again = readiness_build(series=series, version="7.9", as_of=date(2026, 12, 16))
    assert again["missed_backports"] == []


def test_a_fixed_issue_reported_again_on_its_release_is_flagged_in_the_next_train(make, series):
    fixed = make.issue(number=60, title="gemm NaN", state="closed", created_at=CREATED)
    fix(make, 61, 60, datetime(2026, 10, 20, tzinfo=UTC))  # ships in 7.8
    for number, version, confidence in ((62, "7.8.0", 0.9), (63, "7.7.1", 0.9), (64, "7.8", 0.5)):
        again = make.issue(
            number=number, title="gemm NaN again", created_at=datetime(2026, 11, 20, tzinfo=UTC)
        )
        IssuePrediction.objects.create(
            issue=again, model_name="duplicates", label=fixed.reference, confidence=confidence
        )
        IssuePrediction.objects.create(
            issue=again, model_name="environment", evidence={"rocm_version": version}
        )
    report = readiness_build(series=series, version="7.9", as_of=date(2026, 12, 2))
    assert [(r["issue"], r["fixed_issue"], r["fixed_in"]) for r in report["reported_again"]] == [
        ("ROCm/ROCm#62", "ROCm/ROCm#60", "7.8.0")
    ]
    assert report["counts"]["reported_again"] == 1


def test_the_train_page_proposes_a_missed_backport_for_nomination(
    make, series, release_manager_client, monkeypatch
):
    import releases.views_actions as actions

    issue = make.issue(number=70, title="hipMemcpyAsync crash", created_at=CREATED)
    target_set(issue=issue, series=series, version="7.9")
    fix(make, 71, 70, datetime(2026, 12, 15, tzinfo=UTC))
    monkeypatch.setattr(actions.timezone, "now", lambda: datetime(2026, 12, 16, tzinfo=UTC))
    answer = release_manager_client.post(
        "/releases/7.9/backports/",
        {"series": "rocm", "issue": "ROCm/ROCm#99", "reason": ""},
        HTTP_HX_REQUEST="true",
    )
    page = answer.content.decode()
    assert "Missed backports" in page and "fixed by ROCm/ROCm#71 in 7.10" in page
    release_manager_client.post(
        "/releases/7.9/backports/",
        {"series": "rocm", "issue": "ROCm/ROCm#70", "reason": "missed backport"},
        HTTP_HX_REQUEST="true",
    )
    assert issue.backports.get().train_version == "7.9"


def test_a_maintainers_own_issue_is_neither_told_nor_closed_when_its_fix_ships(
    make, series, emulator, django_capture_on_commit_callbacks
):
    """The rule of every write: never a maintainer's own issue unless a person asked; a
    maintainer tracking their work in an issue closes it themselves."""
    repository = series.repositories.get()
    repository.github_actions = ["releases.fixed_comment", "releases.fixed_close"]
    repository.github_dry_run = False
    repository.save()
    emulator.add_issue(REPO, number=80, title="Track: hipGraph capture of memset nodes")
    make.issue(
        number=80,
        title="Track: hipGraph capture of memset nodes",
        author_association="MEMBER",
        created_at=CREATED,
    )
    fix(make, 81, 80, datetime(2026, 10, 20, tzinfo=UTC))  # ships in 7.8
    with django_capture_on_commit_callbacks(execute=True):
        released_fixes_announce(now=datetime(2026, 11, 12, 12, tzinfo=UTC))
    assert emulator.comments(REPO, 80) == []
    assert emulator.issue(REPO, 80)["state"] == "open"
    details = set(GitHubWrite.objects.values_list("status", "detail"))
    assert details == {("skipped", "a maintainer's own issue (MEMBER): not unless asked")}
