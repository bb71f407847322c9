"""What the tests' local HTTP servers share (:mod:`tests.openai_server`, :mod:`tests.oidc_provider`): a quiet
threaded server on a free port of 127.0.0.1, served from a background thread, usable as a context manager."""

from __future__ import annotations

import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True
    # Room for every connection a concurrent run opens at once: with the default backlog of 5, a
    # burst of connects waits for a SYN retransmit (1 s) and a short client timeout fires first.
    request_queue_size = 256

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Stay quiet when a client hung up (a timed-out call); report anything else."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class LocalServer:
    """A server on 127.0.0.1; a subclass says how it answers (:meth:`handler`)."""

    _httpd: QuietServer | None = None

    def handler(self) -> type[BaseHTTPRequestHandler]:
        """The request handler class, bound to this server's state."""
        raise NotImplementedError

    @property
    def port(self) -> int:
        """The port it listens on (after :meth:`start`)."""
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    def start(self, port: int = 0) -> Self:
        """Listen on ``port`` of 127.0.0.1 (0: a free one) in a background thread."""
        self._httpd = QuietServer(("127.0.0.1", port), self.handler())
        threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def stop(self) -> None:
        """Stop listening."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
