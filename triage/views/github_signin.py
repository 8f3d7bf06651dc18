"""Sign in with GitHub, django-allauth's side: its adapters, the GitHub provider's two views, and
the page for a GitHub user without a role. The roles themselves: triage/services/github_signin.py.

The OAuth App (GITHUB_OAUTH_CLIENT_ID and _SECRET) and GitHub's URLs (GITHUB_WEB_URL for the
authorize and token pages, GITHUB_API_URL for /user, as for GitHub Enterprise) are read from the
settings per request, never from the database. allauth serves only this flow: local accounts
sign in on Django's login page, nobody signs up locally, and a GitHub user becomes an account of
their own (never joined to a local one by e-mail address or name).
"""

from __future__ import annotations

import functools

from allauth.account.adapter import DefaultAccountAdapter
from allauth.core.exceptions import ImmediateHttpResponse
from allauth.socialaccount.adapter import DefaultSocialAccountAdapter
from allauth.socialaccount.models import SocialApp
from allauth.socialaccount.providers.base import AuthProcess
from allauth.socialaccount.providers.github import provider as github_provider
from allauth.socialaccount.providers.github import views as github_views
from allauth.socialaccount.providers.oauth2.views import OAuth2CallbackView, OAuth2LoginView
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from triage.access import VIEW_PERMISSION
from triage.services import github_signin

PROVIDER = github_signin.PROVIDER


def github_signin_configured() -> bool:
    return bool(settings.GITHUB_OAUTH_CLIENT_ID and settings.GITHUB_OAUTH_CLIENT_SECRET)


class _FromSettings:
    """A URL read at each request: the setting `base` (GITHUB_WEB_URL, GITHUB_API_URL) + `path`."""

    def __init__(self, base: str, path: str):
        self.base, self.path = base, path

    def __get__(self, adapter, owner=None) -> str:
        return f"{getattr(settings, self.base)}{self.path}"


class GitHubOAuth2Adapter(github_views.GitHubOAuth2Adapter):
    """allauth's GitHub adapter with its URLs from the settings at each request (allauth's own
    fixes them when first imported, and takes the API as GITHUB_URL + /api/v3)."""

    authorize_url = _FromSettings("GITHUB_WEB_URL", "/login/oauth/authorize")
    access_token_url = _FromSettings("GITHUB_WEB_URL", "/login/oauth/access_token")
    profile_url = _FromSettings("GITHUB_API_URL", "/user")
    emails_url = _FromSettings("GITHUB_API_URL", "/user/emails")


class GitHubProvider(github_provider.GitHubProvider):
    oauth2_adapter_class = GitHubOAuth2Adapter


def github_form_action(view):
    """The login page's form (and allauth's confirmation page) posts to us and is redirected to
    GitHub's authorize page: the Content-Security-Policy's form-action must allow GitHub."""

    @functools.wraps(view)
    def view_with_github_form_action(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        if github_signin_configured():
            response._csp_update = {"form-action": [settings.GITHUB_WEB_URL]}
        return response

    return view_with_github_form_action


def _configured_only(view):
    """Without the OAuth App's settings the GitHub pages are not there (404)."""

    @functools.wraps(view)  # keeps allauth's login_not_required
    def configured_view(request, *args, **kwargs):
        if not github_signin_configured():
            raise Http404("Sign in with GitHub is not configured.")
        return view(request, *args, **kwargs)

    return configured_view


oauth2_login = _configured_only(
    github_form_action(OAuth2LoginView.adapter_view(GitHubOAuth2Adapter))
)
oauth2_callback = _configured_only(OAuth2CallbackView.adapter_view(GitHubOAuth2Adapter))


class AccountAdapter(DefaultAccountAdapter):
    def is_open_for_signup(self, request) -> bool:
        return False  # local accounts are made by admins

    def login(self, request, user) -> None:
        # AxesStandaloneBackend comes first in AUTHENTICATION_BACKENDS and finds no user by id
        if not hasattr(user, "backend"):
            user.backend = "django.contrib.auth.backends.ModelBackend"
        super().login(request, user)

    def post_login(self, request, user, *, signal_kwargs=None, redirect_url=None, **kwargs):
        """Every sign-in with GitHub: the GitHub login and the roles of the user's teams; one
        without a role is sent to the page that says so."""
        sociallogin = (signal_kwargs or {}).get("sociallogin")
        if sociallogin is not None and sociallogin.account.provider == PROVIDER:
            login = sociallogin.account.extra_data.get("login", "")
            token = sociallogin.token.token if sociallogin.token else None
            github_signin.github_signin_complete(user=user, login=login, token=token)
            if not user.has_perm(VIEW_PERMISSION):
                redirect_url = reverse("github-no-role")
        return super().post_login(
            request, user, signal_kwargs=signal_kwargs, redirect_url=redirect_url, **kwargs
        )


class SocialAccountAdapter(DefaultSocialAccountAdapter):
    def is_open_for_signup(self, request, sociallogin) -> bool:
        return sociallogin.account.provider == PROVIDER

    def list_apps(self, request, provider=None, client_id=None) -> list[SocialApp]:
        """The one OAuth App of the settings, none from the database."""
        if not github_signin_configured() or provider not in (None, PROVIDER):
            return []
        if client_id not in (None, settings.GITHUB_OAUTH_CLIENT_ID):
            return []
        app = SocialApp(
            provider=PROVIDER,
            name="GitHub",
            client_id=settings.GITHUB_OAUTH_CLIENT_ID,
            secret=settings.GITHUB_OAUTH_CLIENT_SECRET,
        )
        return [app]

    def get_provider(self, request, provider, client_id=None):
        if provider == PROVIDER:
            return GitHubProvider(request, app=self.get_app(request, PROVIDER, client_id))
        return super().get_provider(request, provider, client_id=client_id)

    def pre_social_login(self, request, sociallogin) -> None:
        """Signing in only: no connecting a GitHub account to a signed-in local one."""
        if sociallogin.state.get("process", AuthProcess.LOGIN) != AuthProcess.LOGIN:
            messages.error(request, "GitHub accounts are not connected to local accounts.")
            raise ImmediateHttpResponse(redirect("login"))


@login_not_required  # RoleRequiredMiddleware would refuse the very user this page is for
@require_GET
def no_role(request):
    """Signed in with GitHub, in none of the mapped teams: who they are and what to ask for."""
    if not request.user.is_authenticated:
        return redirect("login")
    if request.user.has_perm(VIEW_PERMISSION):
        return redirect(settings.LOGIN_REDIRECT_URL)
    preference = getattr(request.user, "preference", None)
    context = {
        "github_login": preference.github_login if preference else "",
        "teams": github_signin.mapped_teams(),
    }
    return render(request, "registration/github_no_role.html", context, status=403)
