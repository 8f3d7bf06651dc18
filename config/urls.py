from allauth.socialaccount import views as socialaccount_views
from csp.decorators import csp_update
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from config import sign_in
from triage.views import github_signin, health, webhooks

urlpatterns = [
    path("admin/", admin.site.urls),
    # Logging in and out and changing one's password; accounts are made by admins (no sign-up,
    # no e-mailed password reset: anonymous users reach only login, the webhook and /healthz).
    path(
        "accounts/login/",
        github_signin.github_form_action(auth_views.LoginView.as_view()),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "accounts/password_change/",
        sign_in.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path(
        "accounts/password_change/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    # Sign in with GitHub (django-allauth, GitHub only; triage/views/github_signin.py): the
    # OAuth flow, the page for a GitHub user without a role, and allauth's cancelled page and
    # its sign-up form (shown only when a GitHub account cannot become a user on its own).
    path("accounts/github/login/", github_signin.oauth2_login, name="github_login"),
    path("accounts/github/login/callback/", github_signin.oauth2_callback, name="github_callback"),
    path("accounts/github/no-role/", github_signin.no_role, name="github-no-role"),
    # allauth's pages link to its own login page by this name: ours (the route above wins)
    path("accounts/login/", auth_views.LoginView.as_view(), name="account_login"),
    path(
        "accounts/3rdparty/login/cancelled/",
        socialaccount_views.login_cancelled,
        name="socialaccount_login_cancelled",
    ),
    path("accounts/3rdparty/signup/", socialaccount_views.signup, name="socialaccount_signup"),
    path("webhooks/github/", webhooks.github_webhook, name="github-webhook"),
    path("healthz", health.healthz, name="healthz"),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # Swagger UI's init script as a file, not inline (the Content-Security-Policy); its stylesheet
    # draws icons from data: URLs, allowed as images on this page only.
    path(
        "api/docs/",
        csp_update({"img-src": ["data:"]})(
            SpectacularSwaggerSplitView.as_view(
                url_name="api-schema", template_name="api/swagger_ui.html"
            )
        ),
        name="api-docs",
    ),
    path("api/", include("kernels_ci.api_urls")),
    path("api/releases/", include("releases.api_urls")),
    path("api/", include("automation.api_urls")),
    path("api/", include("triage.api.urls")),
    path("", include("kernels_ci.urls")),
    path("", include("releases.urls")),
    path("", include("automation.urls")),
    path("", include("triage.urls")),
]

# JSON under /api/, Django's pages elsewhere (config/error_views.py).
handler404 = "config.error_views.not_found"
handler500 = "config.error_views.server_error"
