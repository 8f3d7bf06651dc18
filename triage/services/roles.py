"""Roles: Django groups holding the permissions of settings.ROLES, kept in step with it.

A role names permissions as "app_label.codename", "app_label.view_*" (every view permission of
an app), "*" (every permission) or "@other role" (everything that role has). `roles_sync()` runs
after every `migrate` and from `python manage.py setup_roles`; it adds and removes permissions so
that each group holds exactly its role's, and leaves the groups' members alone.
"""

from __future__ import annotations

from django.apps import apps
from django.conf import settings
from django.contrib.auth.management import create_permissions
from django.contrib.auth.models import Group, Permission
from django.db import transaction


class RoleError(ValueError):
    pass


def _permissions_of(spec: str, roles: dict, seen: tuple = ()) -> set[int]:
    if spec == "*":
        return set(Permission.objects.values_list("id", flat=True))
    if spec.startswith("@"):
        role = spec[1:]
        if role not in roles or role in seen:
            raise RoleError(f"role {role!r} is unknown or includes itself")
        return set().union(*(_permissions_of(s, roles, (*seen, role)) for s in roles[role]))
    app_label, _, codename = spec.partition(".")
    if not codename:
        raise RoleError(f"permission {spec!r} is not app_label.codename")
    found = Permission.objects.filter(content_type__app_label=app_label)
    if codename.endswith("*"):
        found = found.filter(codename__startswith=codename[:-1])
    else:
        found = found.filter(codename=codename)
    ids = set(found.values_list("id", flat=True))
    if not ids:
        raise RoleError(f"no permission matches {spec!r}")
    return ids


@transaction.atomic
def roles_sync(*, roles: dict | None = None) -> dict[str, int]:
    """Create or update one group per role; returns {group name: number of permissions}."""
    roles = settings.ROLES if roles is None else roles
    for app_config in apps.get_app_configs():
        create_permissions(app_config, verbosity=0)
    counts = {}
    for name, specs in roles.items():
        wanted = set().union(*(_permissions_of(s, roles, (name,)) for s in specs))
        group, _ = Group.objects.get_or_create(name=name)
        group.permissions.set(wanted)
        counts[name] = len(wanted)
    return counts


def roles_after_migrate(sender, **kwargs) -> None:
    """post_migrate receiver: keep the role groups in step once the last app has migrated."""
    if sender.name == list(apps.get_app_configs())[-1].name:
        roles_sync()
