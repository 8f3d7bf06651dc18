from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import Permission

from releases.models import Backport, FixLink
from releases.services.backports import backport_nominate


@pytest.fixture
def staff(django_user_model):
    """Staff with every releases permission except approving backports."""
    user = django_user_model.objects.create_user(username="staff", password="pw-staff-1")
    user.is_staff = True
    user.save()
    user.user_permissions.set(
        Permission.objects.filter(content_type__app_label="releases").exclude(
            codename="approve_backport"
        )
    )
    return user


@pytest.fixture
def nominated(make, series):
    return backport_nominate(issue=make.issue(number=1), series=series, version="7.8")


def test_the_backport_state_cannot_be_edited_in_the_admin(admin_client, nominated):
    url = f"/admin/releases/backport/{nominated.pk}/change/"
    page = admin_client.get(url).content.decode()
    assert 'name="state"' not in page and 'name="decided_by"' not in page
    admin_client.post(url, {"state": "approved", "reason": "edited", "nominated_by": ""})
    nominated.refresh_from_db()
    assert (nominated.state, nominated.reason) == ("nominated", "edited")


def test_the_approve_action_goes_through_the_service(admin_client, admin_user, nominated):
    response = admin_client.post(
        "/admin/releases/backport/", {"action": "approve", "_selected_action": [nominated.pk]}
    )
    assert response.status_code == 302
    nominated.refresh_from_db()
    assert (nominated.state, nominated.decided_by) == ("approved", admin_user)


def test_staff_without_the_permission_has_no_approve_action(client, staff, nominated):
    client.force_login(staff)
    page = client.get("/admin/releases/backport/").content.decode()
    assert 'value="approve"' not in page
    client.post(
        "/admin/releases/backport/", {"action": "approve", "_selected_action": [nominated.pk]}
    )
    nominated.refresh_from_db()
    assert nominated.state == "nominated"


def test_a_fix_link_added_in_the_admin_is_a_manual_link_with_its_chain(
    admin_client, admin_user, make, series
):
    issue = make.issue(number=1)
    pr = make.pull_request(
        number=2,
        merged=True,
        base_ref="release/rocm-rel-7.8",
        merged_at=datetime(2026, 11, 1, tzinfo=UTC),
        merge_commit_sha="a" * 40,
    )
    response = admin_client.post(
        "/admin/releases/fixlink/add/", {"issue": issue.pk, "pull_request": pr.pk}
    )
    assert response.status_code == 302
    link = FixLink.objects.get()
    assert (link.source, link.created_by, link.train_version, link.merge_commit_sha) == (
        "manual",
        admin_user,
        "7.8",
        "a" * 40,
    )


def test_the_admin_refuses_an_issue_as_the_fix(admin_client, make, series):
    issue, other = make.issue(number=1), make.issue(number=2)
    response = admin_client.post(
        "/admin/releases/fixlink/add/", {"issue": issue.pk, "pull_request": other.pk}
    )
    assert response.status_code == 200 and b"link an issue to a pull request" in response.content
    assert not FixLink.objects.exists()


def test_removing_in_the_admin_keeps_the_removal(admin_client, make, series, user):
    from releases.services.fixes import fix_link_add

    pr = make.pull_request(number=2, merged=True, base_ref="develop")
    link = fix_link_add(issue=make.issue(number=1), pull_request=pr, user=user)
    assert admin_client.get(f"/admin/releases/fixlink/{link.pk}/delete/").status_code == 403
    admin_client.post(
        "/admin/releases/fixlink/", {"action": "remove_links", "_selected_action": [link.pk]}
    )
    link.refresh_from_db()
    assert link.removed is True


def test_a_backport_added_in_the_admin_is_a_nomination(admin_client, admin_user, make, series):
    issue = make.issue(number=1)
    response = admin_client.post(
        "/admin/releases/backport/add/",
        {"issue": issue.pk, "series": series.pk, "train_version": "7.8.0", "reason": "x"},
    )
    assert response.status_code == 302
    backport = Backport.objects.get()
    assert (backport.train_version, backport.state, backport.nominated_by) == (
        "7.8",
        "nominated",
        admin_user,
    )
    bad = admin_client.post(
        "/admin/releases/backport/add/",
        {"issue": issue.pk, "series": series.pk, "train_version": "6.0", "reason": ""},
    )
    assert bad.status_code == 200 and b"rocm has no train 6.0" in bad.content
