"""The features that act on GitHub moved from triage to their own app without touching a table:
a database at the migrations before the move upgrades with every row of each moved model, its
ids, its links to issues, and the permissions held on it; and it goes back."""

from datetime import UTC, datetime

import pytest
from django.apps import apps as current_apps
from django.db import connection

from tests.migrating import migrate, migrate_to_latest

BEFORE = [
    ("triage", "0033_githubwrite_title_and_lock"),
    ("contenttypes", "0002_remove_content_type_name"),
    ("auth", "0012_alter_user_first_name_max_length"),
]
WHEN = datetime(2026, 11, 2, tzinfo=UTC)
MOVED = [
    "CommentCommand",
    "GitHubWrite",
    "KnownError",
    "KnownErrorMatch",
    "LabelWriteback",
    "NeedsInfo",
    "OwnerNotification",
    "OwnershipRule",
    "ReplyTemplate",
    "WriteSwitch",
]


def rows_before(old) -> dict:
    """One row of each moved model, as triage's, at the migration before the move."""
    model = lambda name: old.get_model("triage", name)  # noqa: E731
    repository = model("Repository").objects.create(
        owner="ROCm", name="ROCm", full_name="ROCm/ROCm", github_actions=["needs_info.ask"]
    )
    issue = model("Issue").objects.create(
        repository=repository,
        number=7,
        title="hipErrorNoBinaryForGpu on gfx1151",
        created_at=WHEN,
        updated_at=WHEN,
    )
    comment = model("Comment").objects.create(
        issue=issue, body="/kind bug", created_at=WHEN, updated_at=WHEN, external_id="900"
    )
    known = model("KnownError").objects.create(
        name="no code object", pattern="hipErrorNoBinaryForGpu", canonical=issue, answer="see"
    )
    return {
        "GitHubWrite": model("GitHubWrite")
        .objects.create(
            repository=repository,
            issue=issue,
            action="needs_info.ask",
            operation="comment",
            key="needs-info:ask",
            status="done",
            decided_by="rule needs-info",
            github_id=4242,
        )
        .pk,
        "WriteSwitch": model("WriteSwitch")
        .objects.create(name="github", stopped=True, reason="incident")
        .pk,
        "ReplyTemplate": model("ReplyTemplate")
        .objects.update_or_create(
            name="needs_info.ask", defaults={"body": "Edited by a maintainer"}
        )[0]
        .pk,
        "NeedsInfo": model("NeedsInfo")
        .objects.create(issue=issue, state="asking", missing=["gpu"], asked_at=WHEN)
        .pk,
        "CommentCommand": model("CommentCommand")
        .objects.create(
            comment=comment,
            issue=issue,
            line="/kind bug",
            command="kind",
            login="ann",
            status="done",
        )
        .pk,
        "KnownError": known.pk,
        "KnownErrorMatch": model("KnownErrorMatch")
        .objects.create(signature=known, issue=issue, target="gfx1151")
        .pk,
        "OwnershipRule": model("OwnershipRule")
        .objects.create(kind="component", pattern="rocblas", owners="@ann", order=3)
        .pk,
        "OwnerNotification": model("OwnerNotification")
        .objects.create(issue=issue, kind="routed", owners=["ann"])
        .pk,
        "LabelWriteback": model("LabelWriteback")
        .objects.create(issue=issue, model_name="kind", label="bug", status="applied")
        .pk,
    }


@pytest.mark.django_db(transaction=True)
def test_a_database_before_the_move_upgrades_with_every_row_and_permission_and_goes_back():
    old = migrate(BEFORE)
    ids = rows_before(old)
    content_type = old.get_model("contenttypes", "ContentType").objects.get_or_create(
        app_label="triage", model="githubwrite"
    )[0]
    permission = old.get_model("auth", "Permission").objects.get_or_create(
        content_type=content_type, codename="view_githubwrite", defaults={"name": "view"}
    )[0]
    group = old.get_model("auth", "Group").objects.create(name="readers of the outbox")
    group.permissions.add(permission)
    tables = set(connection.introspection.table_names())
    try:
        migrate_to_latest()
        assert set(connection.introspection.table_names()) == tables  # no table made or dropped
        for name in MOVED:  # each read back by the app that holds it now, by its old id
            model = current_apps.get_model("automation", name)
            assert model.objects.filter(pk=ids[name]).exists(), name
        write = current_apps.get_model("automation", "GitHubWrite").objects.get()
        assert (write.issue.number, write.repository.full_name, write.github_id) == (
            7,
            "ROCm/ROCm",
            4242,
        )
        match = current_apps.get_model("automation", "KnownErrorMatch").objects.get()
        assert (match.signature.canonical_id, match.issue.title) == (
            write.issue_id,
            "hipErrorNoBinaryForGpu on gfx1151",
        )
        template = current_apps.get_model("automation", "ReplyTemplate")
        assert template.objects.get(name="needs_info.ask").body == "Edited by a maintainer"
        assert template.objects.count() > 1  # the defaults of the others installed by 0002
        assert current_apps.get_model("automation", "WriteSwitch").objects.get().stopped
        held = current_apps.get_model("auth", "Group").objects.get(name=group.name)
        assert list(held.permissions.values_list("content_type__app_label", "codename")) == [
            ("automation", "view_githubwrite")
        ]

        back = migrate(BEFORE)
        assert back.get_model("triage", "GitHubWrite").objects.get().github_id == 4242
        assert back.get_model("triage", "NeedsInfo").objects.get().missing == ["gpu"]
        assert (
            back.get_model("contenttypes", "ContentType")
            .objects.filter(app_label="triage", model="githubwrite")
            .exists()
        )
    finally:
        migrate_to_latest()
