"""Images of untrusted text through a camo-compatible proxy (GitHub's camo, go-camo).

An <img> pointing at the author's host tells that host the address of everyone who opens the
page; through the proxy the browser only ever talks to us and the proxy. With IMAGE_PROXY_URL and
IMAGE_PROXY_KEY set, an image URL becomes

    IMAGE_PROXY_URL/<hex HMAC-SHA1 of the URL, keyed with IMAGE_PROXY_KEY>/<hex of the URL>

the form camo and go-camo verify. Without them (the default) triage.text.rendering shows images as
links instead.

The proxy fetches what we sign, from inside our network: an address of that network (loopback,
private, link-local such as the cloud metadata service at 169.254.169.254, reserved) or a name
that only it resolves (localhost, a single label, .local, .internal, .localdomain) is never signed
(`proxy_may_fetch`); such an image stays a link. A public name that resolves to a private address
is the proxy's to refuse: go-camo by its default of not fetching from private networks, camo by
running with its egress restricted (docs/DEPLOYMENT.md).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
from urllib.parse import urlsplit

from django.conf import settings

INTERNAL_SUFFIXES = (".local", ".internal", ".localdomain", ".localhost", ".lan", ".intranet")


def image_proxy_configured() -> bool:
    return bool(settings.IMAGE_PROXY_URL and settings.IMAGE_PROXY_KEY)


def camo_url(url: str, *, base: str, key: str) -> str:
    digest = hmac.new(key.encode(), url.encode(), hashlib.sha1).hexdigest()
    return f"{base.rstrip('/')}/{digest}/{url.encode().hex()}"


def proxied_image_url(url: str) -> str:
    """The proxy's URL for the image at `url` (a safe absolute http(s) URL)."""
    return camo_url(url, base=settings.IMAGE_PROXY_URL, key=settings.IMAGE_PROXY_KEY)


def proxy_may_fetch(url: str) -> bool:
    """Is the image's host one the proxy may fetch from inside our network: a public name or a
    public address (see the module docstring)?"""
    try:
        host = (urlsplit(url).hostname or "").rstrip(".").lower()
    except ValueError:
        return False
    if not host or host == "localhost" or "." not in host and ":" not in host:
        return False
    if host.endswith(INTERNAL_SUFFIXES):
        return False
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return not host.replace(".", "").isdigit()  # 2130706433, 0x7f.1: numbers, not names
    return address.is_global and not address.is_multicast
