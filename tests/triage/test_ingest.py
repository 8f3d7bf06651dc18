"""The upserts' own rules, on payloads in GitHub's shape."""

from __future__ import annotations

from datetime import UTC, datetime

from triage.models import Issue
from triage.sources.github import ingest
from triage.sources.records import parse_timestamp


def item(**fields):
    return {
        "number": 7,
        "id": 7007,
        "title": "Hang",
        "state": "open",
        "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-02T00:00:00Z",
        "user": {"id": 1, "login": "ada"},
        **fields,
    }


def test_it_reads_timestamps_with_and_without_a_zone_as_utc():
    expected = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert parse_timestamp("2026-01-02T03:04:05Z") == expected
    assert parse_timestamp("2026-01-02T05:04:05+02:00") == expected
    assert parse_timestamp("2026-01-02T03:04:05") == expected  # naive: GitHub means UTC
    assert parse_timestamp(None) is None


def test_reaction_counts_are_stored_by_content_and_kept_when_a_payload_has_none(make):
    repository = make.repository()
    rollup = {"url": "u", "total_count": 4, "+1": 3, "-1": 0, "heart": 1, "eyes": 0}
    ingest.issues_upsert(repository=repository, items=[item(reactions=rollup)])
    issue = Issue.objects.get(number=7)
    assert (issue.reactions_total, issue.reactions) == (4, {"+1": 3, "heart": 1})
    ingest.issues_upsert(
        repository=repository, items=[item(updated_at="2026-01-03T00:00:00Z", title="Hang!")]
    )
    issue.refresh_from_db()
    assert issue.title == "Hang!" and issue.reactions_total == 4


def test_an_older_snapshot_never_overwrites_a_newer_one_even_with_other_reactions(make):
    repository = make.repository()
    ingest.issues_upsert(
        repository=repository,
        items=[item(updated_at="2026-01-05T00:00:00Z", title="newer")],
        from_webhook=True,
    )
    stale = item(title="older", reactions={"total_count": 9, "+1": 9})
    result = ingest.issues_upsert(repository=repository, items=[stale], from_webhook=True)
    assert result.unchanged == 1
    assert Issue.objects.get(number=7).title == "newer"
    # it reports as every task's report does: one line
    fresh = ingest.issues_upsert(repository=repository, items=[item(number=8, id=7008)])
    assert (result.summary(), fresh.summary()) == (
        "0 created, 0 updated, 1 unchanged",
        "1 created, 0 updated, 0 unchanged",
    )


def test_only_http_urls_are_stored_for_issues_comments_and_people(make):
    repository = make.repository()
    hostile = {
        "html_url": "javascript:alert(document.cookie)",
        "user": {
            "id": 2,
            "login": "mallory",
            "html_url": "data:text/html,<script>alert(1)</script>",
            "avatar_url": "//evil.example/a.png",
        },
    }
    ingest.issues_upsert(repository=repository, items=[item(**hostile)])
    ingest.comments_upsert(
        repository=repository,
        issue_number=7,
        items=[
            {
                "id": 9009,
                "body": "same",
                "created_at": "2026-01-02T00:00:00Z",
                "updated_at": "2026-01-02T00:00:00Z",
                "html_url": "vbscript:msgbox(1)",
                "user": {"id": 3, "login": "eve"},
            }
        ],
    )
    issue = Issue.objects.select_related("author").get(number=7)
    assert issue.html_url == "" and issue.author.html_url == "" and issue.author.avatar_url == ""
    assert issue.comments.get().html_url == ""
    ingest.issues_upsert(
        repository=repository,
        items=[item(html_url="https://github.com/o/r/issues/7", updated_at="2026-01-03T00:00:00Z")],
    )
    assert Issue.objects.get(number=7).html_url == "https://github.com/o/r/issues/7"


def test_a_label_whose_github_id_another_repository_holds_never_costs_the_issue(make):
    from triage.models import Label

    hip, rocm = make.repository("ROCm/hip"), make.repository("ROCm/ROCm")
    ingest.labels_upsert(repository=hip, labels=[{"id": 555, "name": "bug", "color": "d73a4a"}])
    label = {"id": 555, "name": "bug", "color": "ffffff"}  # the same GitHub id, on another repo
    ingest.issues_upsert(repository=rocm, items=[item(labels=[label])])
    issue = Issue.objects.get(repository=rocm, number=7)
    assert [lb.name for lb in issue.labels.all()] == ["bug"]
    theirs = Label.objects.get(repository=hip)
    assert (theirs.github_id, theirs.color, theirs.name) == (555, "d73a4a", "bug")
    assert Label.objects.get(repository=rocm).github_id is None
