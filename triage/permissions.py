"""Role checks shared by the dashboard and the REST API (the roles: settings.ROLES).

Views: `@permission_required("triage.triage_issue", raise_exception=True)` from Django.
API views: `permission_classes = [HasPermission.of("kernels_ci.approve_reprocase")]`.
"""

from __future__ import annotations

from rest_framework.permissions import BasePermission

TRIAGE = "triage.triage_issue"
APPROVE_REPRO = "kernels_ci.approve_reprocase"
MANAGE_TRAINS = "releases.manage_trains"
APPROVE_BACKPORT = "releases.approve_backport"


# Who may take each action, one table for every interface that offers it: the dashboard's page
# and bulk bar, the REST API and its own views. (Comment commands on GitHub are the repository's
# collaborators' instead: GitHub says who they are, automation.commands.services.)
ACTION_PERMISSIONS: dict[str, str] = {
    "accept": TRIAGE,
    "correct": TRIAGE,
    "duplicate": TRIAGE,
    "priority": TRIAGE,
    "assign": TRIAGE,
    "unassign": TRIAGE,
    "needinfo": TRIAGE,
    "reply": TRIAGE,
    "close": TRIAGE,
    "reopen": TRIAGE,
    "label": TRIAGE,
    "retitle": TRIAGE,
    "lock": TRIAGE,
    "unlabel": TRIAGE,
    "approve_repro": APPROVE_REPRO,
    "target": MANAGE_TRAINS,
    "nominate_backport": MANAGE_TRAINS,
    "decide_backport": APPROVE_BACKPORT,
}


def may(user, action: str) -> bool:
    """Whether `user` may take `action` (a key of ACTION_PERMISSIONS) anywhere."""
    return bool(user and user.is_authenticated and user.has_perm(ACTION_PERMISSIONS[action]))


class HasPermission(BasePermission):
    """Authenticated, and holding `perm` (reads need the app's view permission by default)."""

    perm = ""

    @classmethod
    def to(cls, action: str) -> type[HasPermission]:
        """The permission of `action` in ACTION_PERMISSIONS."""
        return cls.of(ACTION_PERMISSIONS[action])

    @classmethod
    def of(cls, perm: str) -> type[HasPermission]:
        return type(f"Has_{perm.replace('.', '_')}", (cls,), {"perm": perm})

    def has_permission(self, request, view) -> bool:
        user = request.user
        return bool(user and user.is_authenticated and user.has_perm(self.perm))


class CanView(HasPermission):
    """The REST API's default: the viewer role (every role includes it)."""

    perm = "triage.view_issue"
