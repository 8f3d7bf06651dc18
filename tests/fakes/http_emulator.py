"""The HTTP side of the emulators (GitHub, X): a threaded server on 127.0.0.1 that hands every
request to its emulator's ``handle(method, path, headers, body) -> Reply`` and writes the reply.

Keep-alive connections (HTTP/1.1, as the real clients use them) are tracked so that ``stop()``
ends them: a client holding a pooled connection sees it closed, as when a real service restarts.
Stdlib only.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import socketserver
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Reply:
    __slots__ = ("status", "headers", "body")

    def __init__(self, status: int, headers: list, body: bytes | None):
        self.status, self.headers, self.body = status, headers, body


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def version_string(self) -> str:
        return self.server.emulator.server_software

    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.track(self.connection, add=True)

    def finish(self):
        self.server.track(self.connection, add=False)
        super().finish()

    def do_GET(self):
        self._serve("GET")

    def do_POST(self):
        self._serve("POST")

    def do_PATCH(self):
        self._serve("PATCH")

    def do_PUT(self):
        self._serve("PUT")

    def do_DELETE(self):
        self._serve("DELETE")

    def _serve(self, method: str) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        reply = self.server.emulator.handle(method, self.path, self.headers, body)
        self.send_response(reply.status)
        for name, value in reply.headers:
            self.send_header(name, value)
        if reply.status != 304:  # a 304 has no body, and says nothing of its length
            self.send_header("Content-Length", str(len(reply.body or b"")))
        self.end_headers()
        if reply.body and reply.status != 304:
            self.wfile.write(reply.body)

    def log_message(self, format, *args):
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address, emulator: HttpEmulator):
        self.emulator = emulator
        self._connections: set = set()
        self._connections_lock = threading.Lock()
        super().__init__(address, _Handler)

    def server_bind(self):
        socketserver.TCPServer.server_bind(self)  # skips HTTPServer's slow getfqdn()
        self.server_name, self.server_port = self.server_address[:2]

    def track(self, connection, add: bool) -> None:
        with self._connections_lock:
            if add:
                self._connections.add(connection)
            else:
                self._connections.discard(connection)

    def close_connections(self) -> None:
        with self._connections_lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)


class HttpEmulator:
    """Base of an emulator served over HTTP: start/stop (or ``with``), its port and URL.

    A subclass sets ``server_software`` (the Server header) and ``thread_name``, and defines
    ``handle(method, raw_path, headers, body) -> Reply``; ``path_prefix`` is appended to the URL.
    """

    server_software = "emulator"
    thread_name = "http-emulator"
    path_prefix = ""

    _server: _Server | None = None
    _thread: threading.Thread | None = None

    def handle(self, method: str, raw_path: str, headers, body: bytes = b"") -> Reply:
        raise NotImplementedError

    def start(self, port: int = 0):
        self._server = _Server(("127.0.0.1", port), self)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=self.thread_name,
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is None:
            return
        self._server.shutdown()
        self._server.server_close()
        self._server.close_connections()
        self._thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self):
        return self if self._server else self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the emulator is not started")
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.path_prefix}"

    def serve_until_signalled(self, port: int = 0) -> None:
        """The CLI's loop: start, print ``READY <url>``, serve until SIGTERM or SIGINT."""
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        signal.signal(signal.SIGINT, lambda *_: stop.set())
        self.start(port=port)
        print(f"READY {self.url}", flush=True)
        while not stop.wait(0.5):
            pass
        self.stop()
