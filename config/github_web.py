"""Which web hosts are GitHub's, for issue links read in text (closing references, posts).

github.com; the GitHub Enterprise host that GITHUB_WEB_URL names; and the bundled demo's
github.demo.invalid, a host that cannot exist (RFC 2606), so the demo's links resolve nowhere
real while the release linker and the post linker read them as they read GitHub's.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings

DEMO_HOST = "github.demo.invalid"
DEMO_WEB_URL = f"https://{DEMO_HOST}"


def web_hosts() -> frozenset[str]:
    configured = (urlsplit(settings.GITHUB_WEB_URL).hostname or "").lower()
    return frozenset(h for h in ("github.com", "www.github.com", DEMO_HOST, configured) if h)


def is_github_host(host: str) -> bool:
    return (host or "").lower() in web_hosts()
