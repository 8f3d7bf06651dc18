"""Who may see the dashboard, and in which time zone (middleware after AuthenticationMiddleware).

Django's LoginRequiredMiddleware sends anonymous users to the login page for every view not
marked `login_not_required` (the login page, the signed webhook, the health check; the REST API
authenticates by token itself). RoleRequiredMiddleware then asks for the viewer role (the view
permission on issues) on every dashboard page, so a logged-in account without a role sees a
clear 403 instead of data; the admin checks its own model permissions and the API its own.
UserTimeZoneMiddleware shows times in the user's time zone (UserPreference), UTC otherwise.
"""

from __future__ import annotations

import zoneinfo

from django.core.exceptions import PermissionDenied
from django.utils import timezone

VIEW_PERMISSION = "triage.view_issue"
SELF_SERVICE_URL_NAMES = {"logout", "preferences", "password_change", "password_change_done"}


class RoleRequiredMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        if not getattr(view_func, "login_required", True):
            return None  # public (login, webhook, health) or the API, which checks tokens itself
        match = request.resolver_match
        if match and ("admin" in match.namespaces or match.url_name in SELF_SERVICE_URL_NAMES):
            return None
        user = request.user
        if user.is_authenticated and not user.has_perm(VIEW_PERMISSION):
            raise PermissionDenied(
                "Your account has no role yet: ask an admin for the viewer role."
            )
        return None


class UserTimeZoneMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        name = _time_zone_of(request.user)
        try:
            timezone.activate(zoneinfo.ZoneInfo(name))
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            timezone.deactivate()
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()


def _time_zone_of(user) -> str:
    if not user.is_authenticated:
        return "UTC"
    preference = getattr(user, "preference", None) if hasattr(user, "preference") else None
    return preference.time_zone if preference else "UTC"
