"""Error answers: JSON under /api/ (what API clients and the schema expect), Django's pages
elsewhere; and the DEBUG error page with every secret redacted.

The URL resolver answers an /api/ path that matches no pattern (a number that is not a number)
before any DRF view runs; without these it would be an HTML page.

Django's technical 500 page (DEBUG on) and the error e-mails hide settings named like secrets,
but not DATABASE_URL or REDIS_URL (their passwords), a token held in a local variable of a frame,
in the environment runserver copies into request.META, or in an exception's message: the
reporter below redacts the whole report (config/log_filters.py `redact`).
"""

from __future__ import annotations

from django.http import JsonResponse
from django.utils.safestring import mark_safe
from django.views import defaults
from django.views.debug import ExceptionReporter

from config.log_filters import redact, redact_html


def _is_api(request) -> bool:
    return request.path.startswith("/api/")


def not_found(request, exception=None):
    if _is_api(request):
        return JsonResponse({"detail": "Not found."}, status=404)
    return defaults.page_not_found(request, exception)


def server_error(request):
    if _is_api(request):
        return JsonResponse({"detail": "Server error."}, status=500)
    return defaults.server_error(request)


class SecretsHiddenExceptionReporter(ExceptionReporter):
    """DEFAULT_EXCEPTION_REPORTER: the DEBUG error page and error e-mails, secrets redacted."""

    def get_traceback_html(self):
        return mark_safe(redact_html(str(super().get_traceback_html())))  # noqa: S308

    def get_traceback_text(self):
        return redact(str(super().get_traceback_text()))
