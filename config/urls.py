from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from triage import health, webhooks

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("webhooks/github/", webhooks.github_webhook, name="github-webhook"),
    path("healthz", health.healthz, name="healthz"),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/repro-runs/", include("kernels_ci.api_urls")),
    path("api/releases/", include("releases.api_urls")),
    path("api/", include("triage.api_urls")),
    path("", include("kernels_ci.urls")),
    path("", include("releases.urls")),
    path("", include("triage.urls")),
]
