"""Deliver webhook fixtures the way GitHub does: signed body, event and delivery headers."""

from __future__ import annotations

import hashlib
import hmac
import json
import uuid
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "github_webhooks"


def fixture_names() -> list[str]:
    return sorted(path.stem for path in FIXTURES.glob("*.json"))


def fixture_body(name: str) -> bytes:
    return (FIXTURES / f"{name}.json").read_bytes()


def fixture_payload(name: str) -> dict:
    return json.loads(fixture_body(name))


def signature(body: bytes, secret: str) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def delivery_headers(
    event: str, body: bytes, secret: str | None, delivery_id: str | None = None
) -> dict[str, str]:
    """Headers as GitHub sends them (the names as HTTP headers, not Django META keys)."""
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "GitHub-Hookshot/3a1c0e4",
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": delivery_id or str(uuid.uuid4()),
        "X-GitHub-Hook-ID": "498116293",
        "X-GitHub-Hook-Installation-Target-Type": "repository",
        "X-GitHub-Hook-Installation-Target-ID": "1000000",  # the fixtures' repository
    }
    if secret is not None:
        headers["X-Hub-Signature-256"] = signature(body, secret)
    return headers


def numbered_issue_delivery(
    number: int, *, secret: str, delivery_id: str, title: str, repo: str = "ROCm/ROCm"
) -> tuple[bytes, dict[str, str]]:
    """Body and headers of an `issues` opened delivery (the fixture's) of an issue of its own:
    `number`, an id and node id from it, `title`, and its URLs in `repo`."""
    payload = fixture_payload("issues__opened")
    payload["issue"].update(
        number=number,
        id=7_000_000 + number,
        node_id=f"I_kwDO{7_000_000 + number}",
        title=title,
        url=f"https://api.github.com/repos/{repo}/issues/{number}",
        html_url=f"https://github.com/{repo}/issues/{number}",
    )
    body = json.dumps(payload).encode()
    return body, delivery_headers("issues", body, secret, delivery_id)
