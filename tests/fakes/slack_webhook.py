"""A Slack-compatible incoming webhook on 127.0.0.1: it records what is posted to it, over HTTP.

Slack answers ``200 ok`` (text/plain) to a JSON body with a ``text``; a body that is not JSON
with a text gets ``400 invalid_payload``. ``fail_with`` makes the next answers an error status.

    with SlackWebhookReceiver() as hook:
        settings.SPIKE_SLACK_WEBHOOK_URL = hook.url
        ...
        assert hook.messages == [{"text": "..."}]
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HOOK_PATH = "/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX"


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        receiver: SlackWebhookReceiver = self.server.receiver
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        status, answer = receiver.receive(self.path, self.headers.get("Content-Type", ""), body)
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, format, *args):
        pass


class SlackWebhookReceiver:
    def __init__(self):
        self.messages: list[dict] = []
        self.requests = 0
        self._fail: list[int] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}{HOOK_PATH}"

    def fail_with(self, status: int, times: int = 1) -> None:
        with self._lock:
            self._fail += [status] * times

    def receive(self, path: str, content_type: str, body: bytes) -> tuple[int, bytes]:
        with self._lock:
            self.requests += 1
            if path != HOOK_PATH:
                return 404, b"no_service"
            if self._fail:
                return self._fail.pop(0), b"internal_error"
            try:
                payload = json.loads(body)
            except ValueError:
                return 400, b"invalid_payload"
            has_text = isinstance(payload, dict) and bool(payload.get("text"))
            if "json" not in content_type or not has_text:
                return 400, b"invalid_payload"
            self.messages.append(payload)
            return 200, b"ok"

    def __enter__(self) -> SlackWebhookReceiver:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._server.receiver = self
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
