"""Failures counted per key (an address, an account) in the cache, for a window: the wrong API
tokens of an address, the wrong passwords of an address across accounts (spraying one password
over many accounts from one place), the wrong old passwords given to the password-change form.

The cache is Redis in production, so every web process sees the same counts; a count expires
with its window (from its first failure)."""

from __future__ import annotations

import logging

from django.core.cache import cache

logger = logging.getLogger(__name__)


def _key(kind: str, key: str) -> str:
    return f"failures:{kind}:{key}"


def over_limit(kind: str, key: str, *, limit: int) -> bool:
    """Has `key` failed `limit` times or more within its window?"""
    return cache.get(_key(kind, key), 0) >= limit


def failure_count(kind: str, key: str, *, limit: int, window_s: int) -> int:
    """Count one failure of `key`; returns the count within its window (logs reaching `limit`)."""
    name = _key(kind, key)
    cache.add(name, 0, timeout=window_s)
    try:
        failures = cache.incr(name)
    except ValueError:  # expired between add and incr
        failures = 1
        cache.set(name, failures, timeout=window_s)
    if failures == limit:
        logger.warning("%s: %s refused for %d s after %d failures", kind, key, window_s, failures)
    return failures
