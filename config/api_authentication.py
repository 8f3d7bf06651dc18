"""Token authentication for the REST API that slows down guessing: after API_TOKEN_FAILURE_LIMIT
wrong tokens from one address within API_TOKEN_FAILURE_WINDOW_S, every token from that address
is answered 429 (with Retry-After) until the window ends, a right one included, so a guess that
happens to be right is refused too. Failures are counted in the cache (Redis in production, so
every web process sees the same count)."""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.cache import cache
from rest_framework.authentication import TokenAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed, Throttled

from config.client_ip import client_ip

logger = logging.getLogger(__name__)


def _failures_key(address: str) -> str:
    return f"api-token-failures:{address}"


class ThrottledTokenAuthentication(TokenAuthentication):
    def authenticate(self, request):
        words = get_authorization_header(request).split()
        if not words or words[0].lower() != self.keyword.lower().encode():
            return None
        address = client_ip(request)
        window = settings.API_TOKEN_FAILURE_WINDOW_S
        if cache.get(_failures_key(address), 0) >= settings.API_TOKEN_FAILURE_LIMIT:
            raise Throttled(wait=window, detail="too many wrong API tokens from this address")
        try:
            return super().authenticate(request)
        except AuthenticationFailed:
            cache.add(_failures_key(address), 0, timeout=window)
            try:
                failures = cache.incr(_failures_key(address))
            except ValueError:  # expired between add and incr
                failures = 1
                cache.set(_failures_key(address), failures, timeout=window)
            if failures == settings.API_TOKEN_FAILURE_LIMIT:
                logger.warning(
                    "API tokens from %s refused for %d s after %d wrong ones",
                    address,
                    window,
                    failures,
                )
            raise
