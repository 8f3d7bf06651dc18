"""POST /webhooks/github/: verify, store (or spool, while the database cannot take it), answer;
processing happens on the ingest queue."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, JsonResponse
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from triage.services import webhook_spool

logger = logging.getLogger(__name__)


class WebhookWithoutSessionMiddleware:
    """The webhook is authenticated by its signature alone: a cookie sent to it is dropped before
    the session, authentication, role and time-zone middleware, which would otherwise read the
    session and user from the database, and fail with it, before the view can spool."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path_info == reverse("github-webhook"):
            request.META.pop("HTTP_COOKIE", None)
        return self.get_response(request)


def signature_is_valid(body: bytes, header: str, secret: str) -> bool:
    if not secret or not header.startswith("sha256="):
        return False
    expected = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected.encode(), header.encode("utf-8", "replace"))


def _error(status: int, message: str) -> JsonResponse:
    return JsonResponse({"error": message}, status=status)


@login_not_required
@csrf_exempt
@require_POST
def github_webhook(request: HttpRequest) -> JsonResponse:
    limit = settings.GITHUB_WEBHOOK_MAX_BYTES
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return _error(400, "invalid Content-Length")
    if declared > limit:
        return _error(413, f"payload over {limit} bytes")
    body = request.body
    if len(body) > limit:
        return _error(413, f"payload over {limit} bytes")
    if not settings.GITHUB_WEBHOOK_SECRET:
        logger.error("webhook refused: GITHUB_WEBHOOK_SECRET is not set")
        return _error(403, "webhook secret not configured on this server")
    if not signature_is_valid(
        body, request.headers.get("X-Hub-Signature-256", ""), settings.GITHUB_WEBHOOK_SECRET
    ):
        return _error(403, "missing or invalid X-Hub-Signature-256")
    event = request.headers.get("X-GitHub-Event", "")
    delivery_id = request.headers.get("X-GitHub-Delivery", "")
    if not event or not delivery_id:
        return _error(400, "X-GitHub-Event and X-GitHub-Delivery headers are required")
    try:
        payload = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return _error(400, "body is not valid JSON")
    except RecursionError:  # nested deeper than the parser goes (GitHub never sends that)
        return _error(400, "body is nested too deeply")
    if not isinstance(payload, dict):
        return _error(400, "body must be a JSON object")
    delivery = webhook_spool.SpooledDelivery(
        delivery_id=delivery_id,
        event=event,
        body=body,
        hook_id=request.headers.get("X-GitHub-Hook-ID", ""),
        hook_target_type=request.headers.get("X-GitHub-Hook-Installation-Target-Type", ""),
        hook_target_id=request.headers.get("X-GitHub-Hook-Installation-Target-ID", ""),
    )
    try:
        status = webhook_spool.delivery_accept(delivery=delivery, payload=payload)
    except (webhook_spool.SpoolFull, webhook_spool.SpoolUnavailable):
        # GitHub records it as failed; the redelivery job asks for it again once we are back
        return _error(503, "the database is unavailable and the delivery could not be spooled")
    return JsonResponse(
        {"delivery": delivery_id[:100], "status": status},
        status=200 if status == "duplicate" else 202,
    )
