"""The client's address as the sign-in lockout and the API's throttles see it.

Without a proxy in front (TRUSTED_PROXY_COUNT=0) it is the connection's address, REMOTE_ADDR;
behind N proxies that each append to X-Forwarded-For, the N-th address from the right: the one
the outermost trusted proxy saw, which the client cannot forge (anything further left it can).
"""

from __future__ import annotations

from django.conf import settings


def client_ip(request) -> str:
    count = settings.TRUSTED_PROXY_COUNT
    remote = request.META.get("REMOTE_ADDR", "") or ""
    if count <= 0:
        return remote
    forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    forwarded = [part for part in forwarded if part]
    return forwarded[-count] if len(forwarded) >= count else remote
