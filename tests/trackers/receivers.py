"""Receivers that fail, for the trackers' tests: a port that refuses, a server that answers 500, one that hangs."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler

from tests.local_server import LocalServer


def refusing_url() -> str:
    """A URL on 127.0.0.1 where nothing listens: every connection is refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


class Failing(LocalServer):
    """Answers every request with 500, counting them."""

    def __init__(self) -> None:
        self.requests = 0

    def handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _fail(self) -> None:
                server.requests += 1
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                body = b'{"error_code": "INTERNAL_ERROR", "message": "boom"}'
                self.send_response(500)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PUT = _fail

            def log_message(self, *args: object) -> None:
                pass

        return Handler

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@contextmanager
def hanging_url() -> Iterator[str]:
    """A URL whose server accepts connections and never answers (until the test ends)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    held: list[socket.socket] = []
    done = threading.Event()

    def accept() -> None:
        listener.settimeout(0.05)
        while not done.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        done.set()
        thread.join()
        for conn in held:
            conn.close()
        listener.close()
