"""Images of untrusted text through a camo-compatible proxy (GitHub's camo, go-camo).

An <img> pointing at the author's host tells that host the address of everyone who opens the
page; through the proxy the browser only ever talks to us and the proxy. With IMAGE_PROXY_URL and
IMAGE_PROXY_KEY set, an image URL becomes

    IMAGE_PROXY_URL/<hex HMAC-SHA1 of the URL, keyed with IMAGE_PROXY_KEY>/<hex of the URL>

the form camo and go-camo verify. Without them (the default) triage.text.rendering shows images as
links instead.
"""

from __future__ import annotations

import hashlib
import hmac

from django.conf import settings


def image_proxy_configured() -> bool:
    return bool(settings.IMAGE_PROXY_URL and settings.IMAGE_PROXY_KEY)


def camo_url(url: str, *, base: str, key: str) -> str:
    digest = hmac.new(key.encode(), url.encode(), hashlib.sha1).hexdigest()
    return f"{base.rstrip('/')}/{digest}/{url.encode().hex()}"


def proxied_image_url(url: str) -> str:
    """The proxy's URL for the image at `url` (a safe absolute http(s) URL)."""
    return camo_url(url, base=settings.IMAGE_PROXY_URL, key=settings.IMAGE_PROXY_KEY)
