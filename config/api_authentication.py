"""Token authentication for the REST API that slows down guessing: after API_TOKEN_FAILURE_LIMIT
wrong tokens from one address within API_TOKEN_FAILURE_WINDOW_S, every token from that address
is answered 429 (with Retry-After) until the window ends, a right one included, so a guess that
happens to be right is refused too. Failures are counted in the cache (Redis in production, so
every web process sees the same count)."""

from __future__ import annotations

from django.conf import settings
from rest_framework.authentication import TokenAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed, Throttled

from config import failure_throttle
from config.client_ip import client_ip

KIND = "api-token"


class ThrottledTokenAuthentication(TokenAuthentication):
    def authenticate(self, request):
        words = get_authorization_header(request).split()
        if not words or words[0].lower() != self.keyword.lower().encode():
            return None
        address = client_ip(request)
        window, limit = settings.API_TOKEN_FAILURE_WINDOW_S, settings.API_TOKEN_FAILURE_LIMIT
        if failure_throttle.over_limit(KIND, address, limit=limit):
            raise Throttled(wait=window, detail="too many wrong API tokens from this address")
        try:
            return super().authenticate(request)
        except AuthenticationFailed:
            failure_throttle.failure_count(KIND, address, limit=limit, window_s=window)
            raise
