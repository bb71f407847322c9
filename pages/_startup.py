"""What the server does once as it starts, so that the first visitor does not wait for it.

``streamlit run app.py`` serves app.py's ``app``, an ``st.App`` whose lifespan starts :func:`warm_up` in a
thread of its own and returns at once: the server answers as soon as before. While a browser loads
Streamlit's frontend (most of a second on a small machine), the thread imports what the leaderboard page
imports (pandas, pyarrow, evalcore's explorer: half a second), opens the store, seeding it from the
bundled runs when empty, and ranks the default run into the caches the pages read (see
:func:`pages._shared.warm_up`); then it makes a chart once, for the parts of plotly a figure imports.
A page that gets there first waits for the same import or cache entry rather than doing the work twice.
Anything that fails is logged, and left for the page to meet and show.

Two more things make the browser's first load quicker, whatever the page: :class:`FrontendAssets` sends
Streamlit's own frontend files from memory, and :func:`no_delay` turns Nagle's algorithm off on the
server's connections.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

log = logging.getLogger("evalcore.app")


@asynccontextmanager
async def lifespan(app: Any) -> AsyncIterator[None]:
    """The ``st.App`` lifespan: start warming up, and serve at once."""
    from streamlit import delta_generator
    from streamlit.runtime.pages_manager import PagesManager

    # What pages._shared.use_app_navigation does on a first page view (a rerun), done before there is one.
    PagesManager.uses_pages_directory = False
    # Streamlit checks once per process, at the first element a page draws, whether it runs in a Python
    # REPL, to warn that apps need `streamlit run`. The check calls inspect.stack(), which resolves the path
    # of every loaded module for each frame: after the warm-up has loaded pandas and plotly, 0.1-0.3 s of the
    # first page view, before anything is sent. A server started by `streamlit run` never needs the warning.
    delta_generator._use_warning_has_been_displayed = True
    no_delay()
    threading.Thread(target=warm_up, name="evalcore-warm-up", daemon=True).start()
    yield


def no_delay() -> int:
    """Turn Nagle's algorithm off on this process's listening TCP sockets; returns how many.

    Streamlit binds its server's socket itself, without naming the protocol, so asyncio does not set
    ``TCP_NODELAY`` on the connections it accepts (it checks ``sock.proto``). Every response after the
    first on a kept-alive connection then ended about 40 ms late, its last bytes waiting for the client's
    delayed acknowledgement: curl measured 42-44 ms for a second ``/_stcore/health``, 0.5 ms with this.
    Accepted connections inherit the option from the listening socket (Linux, macOS). Where the process's
    descriptors cannot be listed (Windows), nothing changes.
    """
    import os
    import socket

    folder = next((f for f in ("/proc/self/fd", "/dev/fd") if os.path.isdir(f)), None)
    done = 0
    for name in os.listdir(folder) if folder else []:
        try:
            copy = os.dup(int(name))
        except OSError:  # closed since it was listed (the listing's own descriptor)
            continue
        try:
            sock = socket.socket(fileno=copy)
        except OSError:  # not a socket
            os.close(copy)
            continue
        with sock:
            try:
                if (sock.family in (socket.AF_INET, socket.AF_INET6) and sock.type == socket.SOCK_STREAM
                        and sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN)):
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                    done += 1
            except OSError:
                continue
    return done


class FrontendAssets:
    """ASGI middleware that sends Streamlit's own hashed frontend files (``/static/js|css|media/<name>``)
    from memory, ahead of Streamlit's routes, with the headers Streamlit's route gives them.

    A browser's first visit asks for about 60 of them before it can open the app's session. Streamlit's
    route (Starlette's static files: a worker thread to find, open and read each file, and Streamlit's
    middleware around it) sent those 60 in 0.20 s here, and in 0.37 s while the warm-up held the GIL; this
    sends them in 0.03 s and 0.07 s. A file is read at its first request and kept: at most Streamlit's
    static folder (25 MB); 138 files, 9.5 MB, once a browser has opened each of this app's pages. Any
    other request, and any name that is not a file of that folder, goes to Streamlit unchanged.
    """

    def __init__(self, app: Any) -> None:
        import os

        from streamlit import config, file_util

        self.app = app
        base = config.get_option("server.baseUrlPath").strip("/")
        prefix = f"/{base}/static/" if base else "/static/"
        root = os.path.join(file_util.get_static_dir(), "static")
        self.files: dict[str, str] = {}
        for folder in ("js", "css", "media"):
            directory = os.path.join(root, folder)
            for name in os.listdir(directory) if os.path.isdir(directory) else []:
                self.files[f"{prefix}{folder}/{name}"] = os.path.join(directory, name)
        self.sent: dict[str, tuple[bytes, bytes]] = {}  # path: (content type, body)

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD") or path not in self.files:
            await self.app(scope, receive, send)
            return
        if path not in self.sent:
            import mimetypes

            # Asked now, not at start-up: Streamlit's bootstrap registers its types (.js) in between.
            kind = mimetypes.guess_type(self.files[path])[0] or "text/plain"  # as Starlette's FileResponse
            if kind.startswith("text/"):
                kind += "; charset=utf-8"
            with open(self.files[path], "rb") as file:  # from the page cache: quicker than a thread hop
                self.sent[path] = (kind.encode(), file.read())
        kind, body = self.sent[path]
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", kind), (b"content-length", str(len(body)).encode()),
            (b"cache-control", b"public, immutable, max-age=31536000")]})
        await send({"type": "http.response.body", "body": body if scope["method"] == "GET" else b""})


def warm_up() -> None:
    """Load, open and compute what the first page view needs (see the module's docstring); never raises."""
    started = time.perf_counter()
    try:
        import pyarrow  # noqa: F401 - what st.dataframe sends a table as

        from pages import _shared

        view = _shared.warm_up()
        if view is not None:  # last, as on the page: the charts come after the tables
            from evalcore.analysis import charts

            charts.score_vs(view.ranked, "cost")  # imports the parts of plotly a figure needs
    except Exception:  # noqa: BLE001 - the first page does the same work and shows what goes wrong
        log.exception("warming up failed; the first page will do this work itself")
        return
    log.info("warmed up in %.2f s", time.perf_counter() - started)
