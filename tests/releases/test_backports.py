from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import Permission

from releases import selectors
from releases.models import Backport
from releases.services.backports import (
    BackportError,
    NotReleaseManager,
    backport_approve,
    backport_nominate,
    backport_reject,
    backports_after_links,
)
from releases.services.fixes import fix_link_add, fix_links_sync
from releases.services.targets import target_set


@pytest.fixture
def manager(release_manager):
    return release_manager


def test_a_release_manager_approves(make, series, manager):
    backport = backport_nominate(issue=make.issue(), series=series, version="7.8.0")
    backport = backport_approve(backport=backport, user=manager)
    assert (backport.state, backport.decided_by) == ("approved", manager)


def test_someone_else_may_not_approve_or_reject(make, series, user):
    backport = backport_nominate(issue=make.issue(), series=series, version="7.8", user=user)
    with pytest.raises(NotReleaseManager):
        backport_approve(backport=backport, user=user)
    with pytest.raises(NotReleaseManager):
        backport_reject(backport=backport, user=user)
    backport.refresh_from_db()
    assert backport.state == "nominated"


def test_a_rejected_backport_cannot_be_approved(make, series, manager):
    backport = backport_nominate(issue=make.issue(), series=series, version="7.8")
    backport_reject(backport=backport, user=manager)
    with pytest.raises(BackportError, match="rejected"):
        backport_approve(backport=backport, user=manager)


def test_nominating_an_unknown_train_fails(make, series):
    with pytest.raises(BackportError):
        backport_nominate(issue=make.issue(), series=series, version="6.1")


def test_a_release_branch_fix_merges_the_approved_backport(make, series, manager):
    issue = make.issue(number=1)
    backport = backport_approve(
        backport=backport_nominate(issue=issue, series=series, version="7.8"), user=manager
    )
    pr = make.pull_request(
        number=2,
        body="cherry-pick",
        merged=True,
        base_ref="release/rocm-rel-7.8",
        merged_at=datetime(2026, 11, 1, tzinfo=UTC),
    )
    fix_link_add(issue=issue, pull_request=pr, user=manager)
    backport.refresh_from_db()
    assert (backport.state, backport.merged_pull_request) == ("merged", pr)


def test_an_urgent_regression_is_nominated_for_the_cut_trains(make, series):
    make.issue(number=1, labels=["regression", "priority: high"])
    pr = make.pull_request(
        number=2,
        body="Fixes #1",
        merged=True,
        base_ref="develop",
        merged_at=datetime(2026, 12, 12, tzinfo=UTC),  # after 7.9's cut: ships in 7.10
    )
    fix_links_sync(pull_request=pr)
    backports_after_links(pull_request=pr, now=datetime(2026, 12, 15, tzinfo=UTC))
    backport = Backport.objects.get()
    assert (backport.train_version, backport.state, backport.automatic) == (
        "7.9",
        "nominated",
        True,
    )


def test_a_plain_bug_is_not_nominated(make, series):
    make.issue(number=1, labels=["bug"])
    target_set(issue=make.issue(number=3), series=series, flags=["regression"])  # not urgent
    pr = make.pull_request(
        number=2,
        body="Fixes #1, fixes #3",
        merged=True,
        base_ref="develop",
        merged_at=datetime(2026, 12, 12, tzinfo=UTC),
    )
    fix_links_sync(pull_request=pr)
    backports_after_links(pull_request=pr, now=datetime(2026, 12, 15, tzinfo=UTC))
    assert not Backport.objects.exists()


def test_the_permission_not_a_group_name_decides(make, series, django_user_model):
    holder = django_user_model.objects.create_user(username="perm", password="pw-perm-1")
    holder.user_permissions.add(
        Permission.objects.get(content_type__app_label="releases", codename="approve_backport")
    )
    backport = backport_nominate(issue=make.issue(), series=series, version="7.8")
    assert backport_approve(backport=backport, user=holder).state == "approved"


def test_a_release_branch_fix_leaves_an_unapproved_nomination_and_is_flagged(make, series, manager):
    issue = make.issue(number=1)
    backport = backport_nominate(issue=issue, series=series, version="7.8")
    pr = make.pull_request(
        number=2,
        body="cherry-pick of the fix",
        merged=True,
        base_ref="release/rocm-rel-7.8",
        merged_at=datetime(2026, 11, 1, tzinfo=UTC),
    )
    fix_link_add(issue=issue, pull_request=pr, user=manager)
    backport.refresh_from_db()
    assert (backport.state, backport.merged_pull_request) == ("nominated", None)
    flagged = selectors.unapproved_release_fixes(series, "7.8")
    assert [(link.pull_request, state) for link, state in flagged] == [(pr, "nominated")]


def test_approving_after_the_release_branch_fix_merged_marks_it_merged(make, series, manager):
    issue = make.issue(number=1)
    backport = backport_nominate(issue=issue, series=series, version="7.8")
    pr = make.pull_request(
        number=2,
        merged=True,
        base_ref="release/rocm-rel-7.8",
        merged_at=datetime(2026, 11, 1, tzinfo=UTC),
    )
    fix_link_add(issue=issue, pull_request=pr, user=manager)
    backport = backport_approve(backport=backport, user=manager)
    assert (backport.state, backport.merged_pull_request) == ("merged", pr)
    assert selectors.unapproved_release_fixes(series, "7.8") == []


def test_a_rejected_backport_stays_rejected_when_merged_anyway(make, series, manager):
    issue = make.issue(number=1)
    backport = backport_reject(
        backport=backport_nominate(issue=issue, series=series, version="7.8"), user=manager
    )
    pr = make.pull_request(
        number=2,
        merged=True,
        base_ref="release/rocm-rel-7.8",
        merged_at=datetime(2026, 11, 1, tzinfo=UTC),
    )
    fix_link_add(issue=issue, pull_request=pr, user=manager)
    backport.refresh_from_db()
    assert backport.state == "rejected"
    assert [s for _, s in selectors.unapproved_release_fixes(series, "7.8")] == ["rejected"]


def test_triages_severity_prediction_makes_a_regression_urgent(make, series):
    from triage.models import IssuePrediction

    issue = make.issue(number=1, labels=["regression"])
    IssuePrediction.objects.create(
        issue=issue, model_name="severity", label="critical", confidence=0.93
    )
    pr = make.pull_request(
        number=2,
        body="Fixes #1",
        merged=True,
        base_ref="develop",
        merged_at=datetime(2026, 12, 12, tzinfo=UTC),
    )
    fix_links_sync(pull_request=pr)
    backports_after_links(pull_request=pr, now=datetime(2026, 12, 15, tzinfo=UTC))
    assert list(Backport.objects.values_list("train_version", "automatic")) == [("7.9", True)]


def test_an_abstained_severity_prediction_does_not(make, series):
    from triage.models import IssuePrediction

    issue = make.issue(number=1, labels=["regression"])
    IssuePrediction.objects.create(
        issue=issue, model_name="severity", label="critical", confidence=0.4, needs_triage=True
    )
    pr = make.pull_request(
        number=2,
        body="Fixes #1",
        merged=True,
        base_ref="develop",
        merged_at=datetime(2026, 12, 12, tzinfo=UTC),
    )
    fix_links_sync(pull_request=pr)
    backports_after_links(pull_request=pr, now=datetime(2026, 12, 15, tzinfo=UTC))
    assert not Backport.objects.exists()


def test_where_the_series_asks_for_a_second_approver_ones_own_nomination_waits(
    make, series, manager, django_user_model
):
    from tests.conftest import user_with_role

    series.backport_second_approver = True
    series.save()
    backport = backport_nominate(issue=make.issue(), series=series, version="7.8", user=manager)
    with pytest.raises(BackportError, match="asks for a second approver"):
        backport_approve(backport=backport, user=manager)
    backport.refresh_from_db()
    assert backport.state == "nominated"
    other = user_with_role(django_user_model, "rita", "release managers")
    assert backport_approve(backport=backport, user=other).state == "approved"
