"""The migration to source + external_id keeps every row and every id, X authors as people."""

from datetime import UTC, datetime

import pytest

from tests.migrating import migrate, migrate_to_latest

BEFORE = [("triage", "0014_repository_former_names")]
AFTER = [("triage", "0017_source_external_ids_only")]
WHEN = datetime(2026, 11, 2, tzinfo=UTC)


@pytest.mark.django_db(transaction=True)
def test_it_keeps_github_and_x_ids_and_makes_x_authors_people_and_back():
    old = migrate(BEFORE)
    repository = old.get_model("triage", "Repository").objects.create(
        owner="ROCm", name="ROCm", full_name="ROCm/ROCm"
    )
    ann = old.get_model("triage", "Person").objects.create(github_id=77, login="ann")
    issue = old.get_model("triage", "Issue").objects.create(
        repository=repository,
        number=1,
        github_id=5001,
        title="hipErrorNoBinaryForGpu",
        author=ann,
        created_at=WHEN,
        updated_at=WHEN,
    )
    unidentified = old.get_model("triage", "Issue").objects.create(
        repository=repository,
        number=2,
        title="named by a PR first",
        created_at=WHEN,
        updated_at=WHEN,
    )
    old.get_model("triage", "Comment").objects.create(
        github_id=9001, issue=issue, author=ann, body="same", created_at=WHEN, updated_at=WHEN
    )
    dev = old.get_model("triage", "XAuthor").objects.create(
        x_id=123, username="gpu_dev", name="GPU Dev", followers_count=40
    )
    old.get_model("triage", "Post").objects.create(
        x_id=1_862_000_000_000_000_456, author=dev, text="ROCm hangs", created_at=WHEN
    )
    try:
        new = migrate(AFTER)
        people = new.get_model("triage", "Person").objects.order_by("source", "login")
        assert list(people.values_list("source", "external_id", "login", "followers_count")) == [
            ("github", "77", "ann", 0),
            ("x", "123", "gpu_dev", 40),
        ]
        issues = new.get_model("triage", "Issue").objects.order_by("number")
        assert list(issues.values_list("number", "source", "external_id")) == [
            (1, "github", "5001"),
            (2, "github", ""),
        ]
        comment = new.get_model("triage", "Comment").objects.get()
        assert (comment.source, comment.external_id, comment.author.login) == (
            "github",
            "9001",
            "ann",
        )
        post = new.get_model("triage", "Post").objects.get()
        assert (post.source, post.external_id) == ("x", "1862000000000000456")
        assert (post.author.source, post.author.login, post.author.name) == (
            "x",
            "gpu_dev",
            "GPU Dev",
        )

        back = migrate(BEFORE)
        assert list(
            back.get_model("triage", "Person").objects.values_list("github_id", "login")
        ) == [(77, "ann")]
        assert dict(
            back.get_model("triage", "Issue").objects.values_list("number", "github_id")
        ) == {
            1: 5001,
            unidentified.number: None,
        }
        assert back.get_model("triage", "Comment").objects.get().github_id == 9001
        post = back.get_model("triage", "Post").objects.get()
        assert (post.x_id, post.author.x_id, post.author.username) == (
            1_862_000_000_000_000_456,
            123,
            "gpu_dev",
        )
    finally:
        migrate_to_latest()


@pytest.mark.django_db(transaction=True)
def test_x_posts_get_the_address_that_was_built_for_them():
    old = migrate([("triage", "0026_issue_repository_index_once")])
    person = old.get_model("triage", "Person").objects.create(
        source="x", external_id="123", login="gpu_dev"
    )
    made = old.get_model("triage", "Post").objects
    made.create(source="x", external_id="456", author=person, text="hangs", created_at=WHEN)
    made.create(source="x", external_id="457", text="no author", created_at=WHEN)
    try:
        new = migrate([("triage", "0027_post_url")])
        urls = new.get_model("triage", "Post").objects.order_by("external_id")
        assert list(urls.values_list("url", flat=True)) == [
            "https://x.com/gpu_dev/status/456",
            "https://x.com/i/status/457",
        ]
    finally:
        migrate_to_latest()
