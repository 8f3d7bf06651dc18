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


class HasPermission(BasePermission):
    """Authenticated, and holding `perm` (reads need the app's view permission by default)."""

    perm = ""

    @classmethod
    def of(cls, perm: str) -> type[HasPermission]:
        return type(f"Has_{perm.replace('.', '_')}", (cls,), {"perm": perm})

    def has_permission(self, request, view) -> bool:
        user = request.user
        return bool(user and user.is_authenticated and user.has_perm(self.perm))


class CanView(HasPermission):
    """The REST API's default: the viewer role (every role includes it)."""

    perm = "triage.view_issue"
