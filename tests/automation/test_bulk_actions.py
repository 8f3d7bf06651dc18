"""Bulk actions on the triage queue: one decision, each issue through its own service, one
audit row per issue, refusals said per issue."""

from __future__ import annotations

from datetime import date

import pytest
from django.urls import reverse

from automation.needs_info.models import NeedsInfo
from triage.models import IssuePrediction, PredictionCorrection, TriageAction

URL = "/triage/bulk/"


@pytest.fixture
def issues(make):
    made = []
    for number, title in ((31, "gemm NaN on gfx942"), (32, "gemm NaN again"), (33, "conv slow")):
        issue = make.issue(number=number, title=title)
        make.priority(issue, 40)
        IssuePrediction.objects.create(
            issue=issue, model_name="kind", label="bug", confidence=0.6, needs_triage=True
        )
        made.append(issue)
    return made


def bulk(client, issues, action, argument="", query="kind=bug"):
    data = {"ids": [i.pk for i in issues], "action": action, "argument": argument, "query": query}
    return client.post(URL, data, follow=True)


def test_accepting_the_selection_records_each_decision_and_one_audit_row_per_issue(
    triager_client, issues
):
    answer = bulk(triager_client, issues[:2], "accept")
    assert answer.redirect_chain[-1][0] == f"{reverse('triage-queue')}?kind=bug"
    text = answer.content.decode()
    assert "Accept the predictions: 2 done" in text
    assert "Done: ROCm/ROCm#31, ROCm/ROCm#32" in text or "Done: ROCm/ROCm#32, ROCm/ROCm#31" in text
    corrections = PredictionCorrection.objects.filter(model_name="kind")
    assert sorted(c.issue.number for c in corrections) == [31, 32]
    assert all(c.accepted and c.user.username == "tess" for c in corrections)
    rows = TriageAction.objects.filter(action="bulk.accept")
    assert sorted(r.issue.number for r in rows) == [31, 32]
    assert not PredictionCorrection.objects.filter(issue=issues[2]).exists()


def test_marking_duplicates_refuses_the_original_itself_and_does_the_rest(triager_client, issues):
    text = bulk(triager_client, issues, "duplicate", "#31").content.decode()
    assert "2 done, 1 refused" in text and "not a duplicate of itself" in text
    labels = dict(
        PredictionCorrection.objects.filter(model_name="duplicates").values_list(
            "issue__number", "after"
        )
    )
    assert labels == {32: "ROCm/ROCm#31", 33: "ROCm/ROCm#31"}
    assert TriageAction.objects.filter(action="bulk.duplicate").count() == 3


def test_priority_needinfo_and_target(triager_client, issues, series_rocm):
    bulk(triager_client, issues, "priority", "90")
    assert {i.priority_score for i in type(issues[0]).objects.filter(number__in=[31, 32, 33])} == {
        90
    }
    bulk(triager_client, issues[:1], "needinfo")
    assert NeedsInfo.objects.get().requested_by == "tess"
    # a train is the release managers': the triager's bar does not target it ...
    answer = bulk(triager_client, issues[1:], "target", "7.9").content.decode()
    assert "you may not" in answer and not series_rocm.targets.exists()


def test_a_release_manager_targets_the_selection_at_a_train(
    release_manager_client, issues, series_rocm
):
    page = release_manager_client.get(reverse("triage-queue")).content.decode()
    assert 'id="bulk-form"' in page and 'value="target"' in page and 'value="accept"' not in page
    bulk(release_manager_client, issues[1:], "target", "7.9")
    assert sorted(t.issue.number for t in series_rocm.targets.filter(train_version="7.9")) == [
        32,
        33,
    ]
    assert "you may not" in bulk(release_manager_client, issues, "accept").content.decode()
    assert not PredictionCorrection.objects.exists()


def test_bad_bulk_requests_change_nothing(triager_client, logged_in_client, issues):
    assert "select at least one issue" in bulk(triager_client, [], "accept").content.decode()
    assert "say what" in bulk(triager_client, issues, "priority", "").content.decode()
    assert "choose an action" in bulk(triager_client, issues, "delete").content.decode()
    assert (
        logged_in_client.post(URL, {"ids": [issues[0].pk], "action": "accept"}).status_code == 403
    )
    assert not PredictionCorrection.objects.exists() and not TriageAction.objects.exists()


def test_the_queue_offers_the_selection_to_triagers_only(triager_client, logged_in_client, issues):
    page = triager_client.get(reverse("triage-queue")).content.decode()
    assert 'id="bulk-form"' in page and 'name="ids"' in page and 'data-key="c"' in page
    assert 'id="bulk-form"' not in logged_in_client.get(reverse("triage-queue")).content.decode()


@pytest.fixture
def series_rocm(make):
    from releases.services.series import series_create

    return series_create(
        name="rocm", epoch_version="7.2", epoch_date=date(2026, 1, 21), version_suffix=".0"
    )


def test_a_bulk_assignment_in_a_dry_run_says_it_was_only_planned(triager_client, issues):
    repository = issues[0].repository
    repository.github_actions = ["dashboard.assign"]
    repository.github_dry_run = True
    repository.save()

    text = bulk(triager_client, issues, "assign", "@alice").content.decode()

    assert "Assign (on GitHub): 3 planned (dry run)" in text
    assert "done" not in text.split("Assign (on GitHub):", 1)[1].split("<", 1)[0]
    rows = TriageAction.objects.filter(action="bulk.assign")
    assert {r.after["status"] for r in rows} == {"planned"}
    assert not any(issue.assignees.exists() for issue in issues)


def test_an_assignment_the_outbox_does_not_write_is_refused_and_keeps_its_audit_row(
    triager_client, issues
):
    from automation.outbox.models import GitHubWrite

    text = bulk(triager_client, issues[:1], "assign", "@maint-alice").content.decode()
    assert "1 refused" in text
    write = GitHubWrite.objects.get(issue=issues[0], action="dashboard.assign")
    assert write.status == GitHubWrite.Status.SKIPPED and "not opted in" in write.detail


@pytest.mark.parametrize("role", ["viewers", "triagers", "release managers", "admins"])
def test_each_role_is_offered_and_may_take_exactly_the_bulk_actions_its_permissions_allow(
    django_user_model, client, issues, series_rocm, role
):
    from automation.acts.bulk import ACTIONS
    from tests.conftest import user_with_role
    from triage.permissions import ACTION_PERMISSIONS

    member = user_with_role(django_user_model, "member", role)
    client.force_login(member)
    page = client.get(reverse("triage-queue")).content.decode()
    arguments = {"duplicate": "#31", "priority": "70", "assign": "@alice", "target": "7.9"}
    for action in ACTIONS:
        allowed = member.has_perm(ACTION_PERMISSIONS[action])
        assert (f'value="{action}"' in page) is allowed, (role, action)
        answer = client.post(
            URL, {"ids": [issues[2].pk], "action": action, "argument": arguments.get(action, "")}
        )
        if not any(member.has_perm(ACTION_PERMISSIONS[a]) for a in ACTIONS):
            assert answer.status_code == 403, (role, action)
            continue
        text = client.get(reverse("triage-queue")).content.decode()
        assert ("you may not" in text) is not allowed, (role, action)


def test_a_preview_says_what_each_issue_would_get_and_keeps_nothing(triager_client, issues):
    from automation.outbox.models import GitHubWrite

    repository = issues[0].repository
    repository.github_actions = ["dashboard.assign"]
    repository.save()
    data = {"ids": [i.pk for i in issues[:2]], "action": "assign", "argument": "@alice"}
    page = triager_client.post(URL, {**data, "preview": "1"}).content.decode()

    assert "Nothing has been done yet" in page
    for issue in issues[:2]:  # the writes it would make, and their fate (the repository's dry run)
        assert f"<li>assign alice to {issue.reference} (planned (dry run))</li>" in page
    assert not GitHubWrite.objects.exists() and not TriageAction.objects.exists()
    assert "Apply to these 2 issues" in page

    text = triager_client.post(URL, {"ids": [issues[2].pk], "action": "accept", "preview": "1"})
    assert not PredictionCorrection.objects.exists()
    assert "accepted kind bug" in text.content.decode()


def test_a_bulk_decision_is_undone_in_one_click_and_only_once(triager_client, issues):
    bulk(triager_client, issues, "accept")
    assert PredictionCorrection.objects.count() == 3
    page = triager_client.get(reverse("triage-queue")).content.decode()
    assert "Your last bulk action: Accept the predictions on 3 issues." in page
    batch = TriageAction.objects.filter(action="bulk.accept").first().after["batch"]

    answer = triager_client.post("/triage/bulk/undo/", {"batch": batch}, follow=True)
    assert "Undone: 3 done" in answer.content.decode()
    assert not PredictionCorrection.objects.exists()
    kinds = IssuePrediction.objects.filter(model_name="kind")  # predicted again, undecided
    assert kinds.count() == 3 and not any((p.evidence or {}).get("decided_by") for p in kinds)
    assert "Your last bulk action" not in answer.content.decode()
    again = triager_client.post("/triage/bulk/undo/", {"batch": batch}, follow=True)
    assert "undone already" in again.content.decode()


def test_undo_leaves_a_decision_someone_took_again_since(triager_client, issues, make):
    from django.contrib.auth import get_user_model

    from tests.conftest import user_with_role
    from triage.services import classification

    bulk(triager_client, issues[:2], "priority", "90")
    other = user_with_role(get_user_model(), "other", "triagers")
    classification.prediction_correct(issue=issues[0], model_name="kind", label="docs", user=other)
    from triage.services import priority

    priority.priority_override(issue=issues[0], label="10", user=other)
    batch = TriageAction.objects.filter(action="bulk.priority").first().after["batch"]
    text = triager_client.post("/triage/bulk/undo/", {"batch": batch}, follow=True)
    text = text.content.decode()
    assert "1 done, 1 refused" in text and "decided again since" in text
    issues[0].refresh_from_db()
    issues[1].refresh_from_db()
    assert issues[0].priority_score == 10  # the other triager's stays
    assert issues[1].priority_score != 90  # back to the computed one


def test_a_release_managers_bulk_target_is_undone_to_the_train_before(
    release_manager_client, issues, series_rocm
):
    from releases.services.targets import target_set

    target_set(issue=issues[0], series=series_rocm, version="7.8")
    bulk(release_manager_client, issues[:2], "target", "7.9")
    batch = TriageAction.objects.filter(action="bulk.target").first().after["batch"]
    release_manager_client.post("/triage/bulk/undo/", {"batch": batch})
    trains = dict(series_rocm.targets.values_list("issue__number", "train_version"))
    assert trains == {31: "7.8", 32: ""}


def test_a_bulk_assignment_is_undone_through_the_outbox(triager_client, issues):
    from automation.outbox.models import GitHubWrite

    repository = issues[0].repository
    repository.github_actions = ["dashboard.assign"]
    repository.github_dry_run = True
    repository.save()
    bulk(triager_client, issues[:1], "assign", "@alice")
    batch = TriageAction.objects.filter(action="bulk.assign").first().after["batch"]
    text = triager_client.post("/triage/bulk/undo/", {"batch": batch}, follow=True)
    assert "Undone: 1 done" in text.content.decode()
    undone = TriageAction.objects.get(action="bulk.undo")
    assert undone.after["detail"] == "unassign alice (planned (dry run))"
    writes = GitHubWrite.objects.filter(issue=issues[0]).order_by("pk")
    assert [w.operation for w in writes] == ["assign", "unassign"]
