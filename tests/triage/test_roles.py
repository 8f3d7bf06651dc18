import io

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.urls import reverse

from tests.conftest import user_with_role
from triage.services import roles


@pytest.mark.django_db
def test_it_sets_up_one_group_per_role_after_migrate():
    assert set(Group.objects.values_list("name", flat=True)) >= {
        "viewers",
        "triagers",
        "release managers",
        "admins",
    }


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("role", "granted", "denied"),
    [
        ("viewers", ["triage.view_issue", "releases.view_backport"], ["triage.triage_issue"]),
        (
            "triagers",
            ["triage.view_issue", "triage.triage_issue", "kernels_ci.approve_reprocase"],
            ["releases.approve_backport", "releases.manage_trains"],
        ),
        (
            "release managers",
            ["releases.view_backport", "releases.approve_backport", "releases.manage_trains"],
            ["triage.triage_issue", "kernels_ci.approve_reprocase"],
        ),
        ("admins", ["triage.triage_issue", "releases.approve_backport", "auth.add_user"], []),
    ],
)
def test_it_grants_each_role_its_permissions(django_user_model, role, granted, denied):
    member = user_with_role(django_user_model, "m", role)
    member = django_user_model.objects.get(pk=member.pk)  # fresh permission cache
    assert all(member.has_perm(p) for p in granted), granted
    assert not any(member.has_perm(p) for p in denied), denied


@pytest.mark.django_db
def test_it_puts_back_a_permission_removed_by_hand_and_keeps_members(django_user_model):
    member = user_with_role(django_user_model, "t", "triagers")
    group = Group.objects.get(name="triagers")
    group.permissions.remove(group.permissions.get(codename="triage_issue"))
    out = io.StringIO()
    call_command("setup_roles", stdout=out)
    assert "triagers:" in out.getvalue()
    assert group.permissions.filter(codename="triage_issue").exists()
    assert group.user_set.filter(pk=member.pk).exists()


@pytest.mark.django_db
def test_it_refuses_a_role_naming_an_unknown_permission():
    with pytest.raises(roles.RoleError, match="no permission matches"):
        roles.roles_sync(roles={"odd": ["triage.fly_to_the_moon"]})
    with pytest.raises(roles.RoleError, match="unknown or includes itself"):
        roles.roles_sync(roles={"loop": ["@loop"]})


@pytest.mark.django_db
def test_a_user_without_a_role_is_told_to_ask_for_one(client, django_user_model):
    nobody = django_user_model.objects.create_user(username="nobody", password="pw")
    client.force_login(nobody)
    response = client.get(reverse("issue-list"))
    assert response.status_code == 403
    assert client.get(reverse("preferences")).status_code == 200


@pytest.mark.django_db
def test_the_api_needs_the_viewer_role_too(django_user_model):
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    nobody = django_user_model.objects.create_user(username="nobody", password="pw")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=nobody).key}")
    assert api.get("/api/issues/").status_code == 403
    nobody.groups.add(Group.objects.get(name="viewers"))
    assert api.get("/api/issues/").status_code == 200
