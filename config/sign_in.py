"""Sign-in and password change that slow down guessing, beside django-axes' lockout of an
(account, address) pair:

- one address's wrong passwords across accounts (a password sprayed over many accounts, on the
  login page or the admin's): every failed sign-in counts against its address
  (`user_login_failed`, whichever login view), and after LOGIN_ADDRESS_FAILURE_LIMIT within
  LOGIN_ADDRESS_WINDOW_S every sign-in posted from that address is answered 429 until the window
  ends, a right password included (SignInThrottleMiddleware);
- the password-change form's wrong old passwords: after PASSWORD_CHANGE_FAILURE_LIMIT within
  PASSWORD_CHANGE_WINDOW_S the form is answered 429 for that account until the window ends.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.signals import user_login_failed
from django.shortcuts import render
from django.urls import Resolver404, resolve

from config import failure_throttle
from config.client_ip import client_ip

LOGIN_KIND, PASSWORD_KIND = "login-address", "password-change"
SIGN_IN_VIEWS = {"login", "account_login", "admin:login"}


def _refused(request, why: str, window_s: int):
    minutes = max(1, window_s // 60)
    response = render(
        request, "registration/throttled.html", {"why": why, "minutes": minutes}, status=429
    )
    response["Retry-After"] = str(window_s)
    return response


def _sign_in_failed(sender, credentials=None, request=None, **kwargs) -> None:
    if request is not None:
        failure_throttle.failure_count(
            LOGIN_KIND,
            client_ip(request),
            limit=settings.LOGIN_ADDRESS_FAILURE_LIMIT,
            window_s=settings.LOGIN_ADDRESS_WINDOW_S,
        )


class SignInThrottleMiddleware:
    """Answers 429 to a sign-in posted from an address over its failures' limit."""

    def __init__(self, get_response):
        self.get_response = get_response
        user_login_failed.connect(_sign_in_failed, dispatch_uid="config.sign_in.address")

    def __call__(self, request):
        if request.method == "POST" and self._signs_in(request.path_info):
            limit = settings.LOGIN_ADDRESS_FAILURE_LIMIT
            if failure_throttle.over_limit(LOGIN_KIND, client_ip(request), limit=limit):
                why = "too many wrong passwords from this address"
                return _refused(request, why, settings.LOGIN_ADDRESS_WINDOW_S)
        return self.get_response(request)

    @staticmethod
    def _signs_in(path: str) -> bool:
        try:
            return resolve(path).view_name in SIGN_IN_VIEWS
        except Resolver404:
            return False


class PasswordChangeView(auth_views.PasswordChangeView):
    def post(self, request, *args, **kwargs):
        limit = settings.PASSWORD_CHANGE_FAILURE_LIMIT
        if failure_throttle.over_limit(PASSWORD_KIND, str(request.user.pk), limit=limit):
            why = "too many wrong passwords given to change this password"
            return _refused(request, why, settings.PASSWORD_CHANGE_WINDOW_S)
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form):
        if "old_password" in form.errors:
            failure_throttle.failure_count(
                PASSWORD_KIND,
                str(self.request.user.pk),
                limit=settings.PASSWORD_CHANGE_FAILURE_LIMIT,
                window_s=settings.PASSWORD_CHANGE_WINDOW_S,
            )
        return super().form_invalid(form)
