"""Webhooks in the GitHub emulator: the hooks of repositories, organizations and a GitHub App,
the deliveries GitHub records for each, and redelivery, as GitHub behaves.

- A delivery is POSTed to the hook's URL with GitHub's headers (X-GitHub-Delivery = the guid,
  X-GitHub-Event, X-GitHub-Hook-ID, X-GitHub-Hook-Installation-Target-Type and -ID,
  X-Hub-Signature and X-Hub-Signature-256 with the hook's secret) and recorded: id, guid,
  delivered_at, redelivery, duration, status ("OK" for a 2xx, "Invalid HTTP Response: 503",
  "failed to connect to host", "timed out" after 10 s), status_code (0 without an answer),
  event, action, installation_id, repository_id, throttled_at. GitHub never redelivers by itself.
- Listing a hook's deliveries: newest first, per_page up to 100 (default 30), cursor pagination
  (`cursor`, the next and previous pages in the Link header), and a `redelivery` filter.
- `POST .../deliveries/{id}/attempts` answers 202 and then delivers the same delivery again
  (same guid and body, a new id, redelivery true): from a thread of the emulator, or when the
  test calls `run_redeliveries()` (manual mode). Deliveries older than 3 days are refused (422).
- Listing a repository's or organization's hooks needs admin rights: a token without them is
  answered 404 (`deny_hooks`). The secret is never shown, as on GitHub ("********").
- The App's endpoints (`/app/hook/deliveries`) take only a JWT signed RS256 with the App's
  private key, its `iss` the App's id, `exp` at most 10 minutes ahead; verified with the App's
  public key (its RSA numbers) in plain Python.

Stdlib only (but `app_key_pair`, a test's helper). The emulator holds its lock around the
bookkeeping here, never around a delivery's HTTP request (the service answering it may call the
emulator).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import http.client
import json
import queue
import threading
import time
import uuid
from dataclasses import dataclass, field
from urllib.parse import urlencode, urlsplit

RETENTION_S = 3 * 24 * 3600  # GitHub redelivers deliveries of the past 3 days
DELIVERY_TIMEOUT_S = 10  # GitHub gives up on an answer after 10 s
TARGET_KINDS = {"repository": "Repository", "organization": "Organization", "integration": "App"}
_SHA256_DIGEST_INFO = bytes.fromhex("3031300d060960864801650304020105000420")


class HookApiError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


@dataclass
class Hook:
    id: int
    target_type: str  # repository, organization, integration
    target: str  # OWNER/NAME, the organization's login, "" for the App
    target_id: int
    url: str
    secret: str
    events: tuple
    active: bool = True
    created: float = field(default_factory=time.time)


@dataclass
class Delivery:
    id: int
    guid: str
    hook_id: int
    event: str
    body: bytes
    redelivery: bool
    delivered_at: float = 0.0
    duration: float = 0.0
    status: str = "pending"
    status_code: int = 0
    request_headers: dict = field(default_factory=dict)
    response_body: str = ""

    @property
    def payload(self) -> dict:
        return json.loads(self.body)

    def summary(self) -> dict:
        payload = self.payload
        return {
            "id": self.id,
            "guid": self.guid,
            "delivered_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.delivered_at)),
            "redelivery": self.redelivery,
            "duration": round(self.duration, 2),
            "status": self.status,
            "status_code": self.status_code,
            "event": self.event,
            "action": payload.get("action"),
            "installation_id": (payload.get("installation") or {}).get("id"),
            "repository_id": (payload.get("repository") or {}).get("id"),
            "throttled_at": None,
        }


def _post(url: str, body: bytes, headers: dict) -> tuple[int, str]:
    """POST as GitHub's hookshot does (header names as written); (status, answer), or (0, why)."""
    parts = urlsplit(url)
    kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    connection = kind(parts.hostname, parts.port, timeout=DELIVERY_TIMEOUT_S)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        connection.request("POST", path, body=body, headers=headers)
        answer = connection.getresponse()
        return answer.status, answer.read().decode(errors="replace")
    except TimeoutError:
        return 0, "timed out"
    except OSError:
        return 0, "failed to connect to host"
    finally:
        connection.close()


def app_key_pair() -> tuple[str, tuple[int, int]]:
    """A GitHub App's private key (PEM, for PyGithub's AppAuth) and its public numbers (n, e),
    for add_app; made with `cryptography`, which PyGithub's AppAuth needs too."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    numbers = key.public_key().public_numbers()
    return pem, (numbers.n, numbers.e)


def signature(body: bytes, secret: str, digest=hashlib.sha256) -> str:
    return hmac.new(secret.encode(), body, digest).hexdigest()


def _b64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def jwt_problem(token: str, *, app_id: str, public_numbers: tuple[int, int], now: float) -> str:
    """Why GitHub would refuse this App JWT ("" if it would not)."""
    try:
        head, claims, signed = token.split(".")
        header, payload = json.loads(_b64url(head)), json.loads(_b64url(claims))
        sig = int.from_bytes(_b64url(signed), "big")
    except ValueError:
        return "A JSON web token could not be decoded"
    if header.get("alg") != "RS256":
        return "A JSON web token could not be decoded"
    modulus, exponent = public_numbers
    size = (modulus.bit_length() + 7) // 8
    digest = _SHA256_DIGEST_INFO + hashlib.sha256(f"{head}.{claims}".encode()).digest()
    expected = b"\x00\x01" + b"\xff" * (size - len(digest) - 3) + b"\x00" + digest
    if sig >= modulus or not hmac.compare_digest(
        pow(sig, exponent, modulus).to_bytes(size, "big"), expected
    ):
        return "A JSON web token could not be decoded"
    if str(payload.get("iss")) != str(app_id):
        return "Integration not found"
    exp, iat = payload.get("exp"), payload.get("iat")
    if not isinstance(exp, int | float) or not isinstance(iat, int | float):
        return "'Expiration time' claim ('exp') and 'Issued at' claim ('iat') are required"
    if exp <= now:
        return (
            "'Expiration time' claim ('exp') must be a numeric value representing the future time"
        )
    if exp - now > 600 or iat > now + 60:
        return "'Expiration time' claim ('exp') is too far in the future"
    return ""


class HookStore:
    """The hooks and their deliveries; callers hold the emulator's lock, except `send`."""

    def __init__(self, api: str, new_id):
        self.api, self._new_id = api, new_id
        self.hooks: dict[int, Hook] = {}
        self.deliveries: list[Delivery] = []  # in the order recorded: oldest first
        self.denied: set[str] = set()  # repositories and organizations whose hooks 404
        self.app_id: str = ""
        self.clock_offset_s = 0.0  # GitHub's clock against ours (a JWT's iat/exp are ours)
        self.app_public_numbers: tuple[int, int] | None = None
        self.manual = False
        self._waiting: list[Delivery] = []  # manual mode: redeliveries asked, not sent yet
        self._queue: queue.Queue = queue.Queue()
        self._thread: threading.Thread | None = None
        self.record_lock: threading.RLock | None = None  # the emulator's, set by it

    # hooks
    def add(
        self, *, target_type: str, target: str, target_id: int, url: str, secret: str, events
    ) -> Hook:
        if target_type not in TARGET_KINDS:
            raise ValueError(f"target_type must be one of {sorted(TARGET_KINDS)}")
        hook = Hook(self._new_id(), target_type, target, target_id, url, secret, tuple(events))
        self.hooks[hook.id] = hook
        return hook

    def find(self, target_type: str, target: str, hook_id) -> Hook:
        hook = self.hooks.get(int(hook_id))
        if hook is None or hook.target_type != target_type or hook.target.lower() != target.lower():
            raise HookApiError(404, "Not Found")
        return hook

    def of_target(self, target_type: str, target: str) -> list[Hook]:
        if target.lower() in self.denied:
            raise HookApiError(404, "Not Found")
        return [
            hook
            for hook in self.hooks.values()
            if hook.target_type == target_type and hook.target.lower() == target.lower()
        ]

    def hook_json(self, hook: Hook) -> dict:
        if hook.target_type == "repository":
            url = f"{self.api}/repos/{hook.target}/hooks/{hook.id}"
        else:
            url = f"{self.api}/orgs/{hook.target}/hooks/{hook.id}"
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(hook.created))
        data = {
            "type": TARGET_KINDS[hook.target_type],
            "id": hook.id,
            "name": "web",
            "active": hook.active,
            "events": list(hook.events),
            "config": {
                "content_type": "json",
                "insecure_ssl": "0",
                "url": hook.url,
                **({"secret": "********"} if hook.secret else {}),
            },
            "updated_at": stamp,
            "created_at": stamp,
            "url": url,
            "ping_url": f"{url}/pings",
            "deliveries_url": f"{url}/deliveries",
            "last_response": self._last_response(hook),
        }
        if hook.target_type == "repository":
            data["test_url"] = f"{url}/test"
        return data

    def _last_response(self, hook: Hook) -> dict:
        mine = [d for d in self.deliveries if d.hook_id == hook.id]
        if not mine:
            return {"code": None, "status": "unused", "message": None}
        last = mine[-1]
        return {"code": last.status_code or None, "status": "active", "message": last.status}

    # deliveries
    def new_delivery(self, hook: Hook, event: str, payload: dict, guid: str | None) -> Delivery:
        body = json.dumps(payload).encode()
        return Delivery(self._new_id(), guid or str(uuid.uuid4()), hook.id, event, body, False)

    def record(self, delivery: Delivery) -> None:
        self.deliveries.append(delivery)

    def listing(self, hook: Hook, query: dict) -> tuple[list[dict], dict[str, str]]:
        """A page of the hook's deliveries, newest first, and its Link relations (cursor query
        strings): {"next": "...", "prev": "..."}."""
        try:
            per_page = min(100, max(1, int(query.get("per_page", 30))))
        except ValueError:
            per_page = 30
        items = sorted(
            (d for d in self.deliveries if d.hook_id == hook.id), key=lambda d: d.id, reverse=True
        )
        if query.get("redelivery") in ("true", "false"):
            wanted = query["redelivery"] == "true"
            items = [d for d in items if d.redelivery is wanted]
        start = 0
        if query.get("cursor"):
            start = self._cursor_index(items, query["cursor"])
        page = items[start : start + per_page]
        links = {}
        if start + per_page < len(items):
            links["next"] = f"v1_{items[start + per_page].id}"
        if start > 0:
            links["prev"] = f"v1_{items[max(0, start - per_page)].id}"
        return [d.summary() for d in page], links

    @staticmethod
    def _cursor_index(items: list[Delivery], cursor: str) -> int:
        try:
            wanted = int(cursor.removeprefix("v1_"))
        except ValueError:
            raise HookApiError(400, "Bad Request") from None
        for index, delivery in enumerate(items):
            if delivery.id <= wanted:
                return index
        return len(items)

    def get(self, hook: Hook, delivery_id) -> Delivery:
        for delivery in self.deliveries:
            if delivery.id == int(delivery_id) and delivery.hook_id == hook.id:
                return delivery
        raise HookApiError(404, "Not Found")

    def detail_json(self, hook: Hook, delivery: Delivery) -> dict:
        data = delivery.summary()
        data["url"] = hook.url
        data["request"] = {"headers": delivery.request_headers, "payload": delivery.payload}
        data["response"] = {"headers": {}, "payload": delivery.response_body}
        return data

    def redeliver(self, hook: Hook, delivery_id) -> None:
        """POST .../attempts: 202, then the same delivery again, as a new one."""
        original = self.get(hook, delivery_id)
        if time.time() - original.delivered_at > RETENTION_S:
            raise HookApiError(422, "Validation Failed")
        again = Delivery(
            self._new_id(), original.guid, hook.id, original.event, original.body, True
        )
        if self.manual:
            self._waiting.append(again)
            return
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._send_queued, name="github-emulator-redeliveries", daemon=True
            )
            self._thread.start()
        self._queue.put(again)

    def take_waiting(self) -> list[Delivery]:
        waiting, self._waiting = self._waiting, []
        return waiting

    def wait_sent(self) -> None:
        self._queue.join()

    def _send_queued(self) -> None:
        while True:
            delivery = self._queue.get()
            try:
                self.send(delivery)
            finally:
                self._queue.task_done()

    # sending (no lock held while the request runs)
    def send(self, delivery: Delivery) -> Delivery:
        hook = self.hooks[delivery.hook_id]
        headers = {
            "Accept": "*/*",
            "Content-Type": "application/json",
            "User-Agent": "GitHub-Hookshot/3a1c0e4",
            "X-GitHub-Delivery": delivery.guid,
            "X-GitHub-Event": delivery.event,
            "X-GitHub-Hook-ID": str(hook.id),
            "X-GitHub-Hook-Installation-Target-Type": hook.target_type,
            "X-GitHub-Hook-Installation-Target-ID": str(hook.target_id),
        }
        if hook.secret:
            headers["X-Hub-Signature"] = "sha1=" + signature(
                delivery.body, hook.secret, hashlib.sha1
            )
            headers["X-Hub-Signature-256"] = "sha256=" + signature(delivery.body, hook.secret)
        delivery.request_headers = headers
        delivery.delivered_at = time.time()
        started = time.monotonic()
        code, text = _post(hook.url, delivery.body, headers)
        delivery.duration = time.monotonic() - started
        delivery.status_code = code
        delivery.response_body = text[:2000]
        if 200 <= code < 300:
            delivery.status = "OK"
        else:
            delivery.status = f"Invalid HTTP Response: {code}" if code else text
        with self.record_lock:
            self.record(delivery)
        return delivery

    # the App
    def app_problem(self, authorization: str | None) -> str:
        scheme, _, token = (authorization or "").partition(" ")
        if not self.app_id or self.app_public_numbers is None:
            return "Integration not found"
        if scheme.lower() != "bearer" or token.count(".") != 2:
            return "A JSON web token could not be decoded"
        return jwt_problem(
            token.strip(),
            app_id=self.app_id,
            public_numbers=self.app_public_numbers,
            now=time.time() + self.clock_offset_s,
        )


def link_header(origin_path: str, query: dict, links: dict[str, str]) -> str | None:
    parts = []
    for rel in ("next", "prev"):
        if rel in links:
            params = {key: value for key, value in query.items() if key != "cursor"}
            params["cursor"] = links[rel]
            parts.append(f'<{origin_path}?{urlencode(params)}>; rel="{rel}"')
    return ", ".join(parts) or None
