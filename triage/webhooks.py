"""POST /webhooks/github/: verify, store, answer; processing happens on the ingest queue."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from triage.services import webhooks

logger = logging.getLogger(__name__)


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
    delivery, created = webhooks.delivery_receive(
        delivery_id=delivery_id,
        event=event,
        body=body,
        payload=payload,
        hook_id=request.headers.get("X-GitHub-Hook-ID", ""),
    )
    return JsonResponse(
        {"delivery": delivery.delivery_id, "status": "accepted" if created else "duplicate"},
        status=202 if created else 200,
    )
