"""The Compare page's comparison, started as a browser asks for the page, before its session runs it.

A new tab at ``/compare?base=…&candidate=…`` first loads Streamlit's frontend (the page, then its
scripts, then a websocket of its own) and only then runs the page: a second or two in which the server
has nothing to do for it. :class:`ComparePrefetch`, an ASGI middleware of the ``st.App`` that serves
app.py, sees the page's own request go by and starts :func:`pages._loaders.prefetch_comparison` in a
worker thread, so the comparison is in the page's cache, or on its way there (the page then waits for
the same cache entry rather than computing it twice), when the page asks for it.

Only for a visitor who may view runs (:meth:`evalcore.explorer.access.Access.may_view`), checked before any
work from the request's address and headers: the middleware cannot see a sign-in, so under ``view =
"signed-in"`` only the machine's owner gets a prefetch and everyone else's page computes its own comparison
after the sign-in wall. One worker, and at most :data:`QUEUE_BOUND` comparisons waiting or running: a request
over the bound starts nothing (the page computes its comparison when it runs) and the log says so.

:func:`prepare_default_comparison` puts the comparison the Compare page opens on (no runs in its address)
in that cache once a session's first page view is on screen (app.py calls it from the session's second
script run on: a leaderboard's charts follow its tables with one), so whoever opens Compare next finds it
ready; not as the server starts or with the first view, where it would slow the first page's tables.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import parse_qs

from evalcore.explorer.access import Access, Policy, Visitor
from pages._state import COMPARE_URL

log = logging.getLogger("evalcore.app")

#: Comparisons waiting or running at most: the one being computed and the next one asked for.
QUEUE_BOUND = 2

_worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="evalcore-prefetch")
_default_prepared = threading.Event()
_lock = threading.Lock()
_queued = 0


class ComparePrefetch:
    """ASGI middleware: a GET of the Compare page starts computing its comparison; every request then
    goes on to Streamlit unchanged."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] == "GET" and is_compare_page(scope["path"]):
            if may_view(scope):
                submit(parse_qs(scope.get("query_string", b"").decode("latin-1")))
            else:
                log.debug("no comparison prefetched for %s: this visitor may not view runs", scope.get("client"))
        await self.app(scope, receive, send)


def may_view(scope: dict[str, Any]) -> bool:
    """Whether the request's visitor may view runs, from its address and headers, as not signed in."""
    from pages import _actions

    client = scope.get("client") or (None, None)
    headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers") or []}
    policy = Policy.from_settings(_actions._settings(), os.environ)
    return Access(policy, Visitor.from_user(None, client[0], headers)).may_view()


def submit(query: dict[str, list[str]]) -> bool:
    """Queue :func:`prefetch` of ``query`` unless :data:`QUEUE_BOUND` comparisons are waiting or running
    already; whether it was queued."""
    global _queued
    with _lock:
        if _queued >= QUEUE_BOUND:
            log.warning(
                "comparison prefetch of %s dropped: %d already queued (the page computes its own)", query, _queued
            )
            return False
        _queued += 1
    _worker.submit(_run_queued, query)
    return True


def _run_queued(query: dict[str, list[str]]) -> None:
    global _queued
    try:
        prefetch(query)
    finally:
        with _lock:
            _queued -= 1


def queued() -> int:
    """Comparisons waiting or running now."""
    return _queued


def drain() -> None:
    """Wait until every queued prefetch has finished (tests, and a server shutting down)."""
    _worker.submit(lambda: None).result()


def is_compare_page(path: str) -> bool:
    """Whether a request's path is the Compare page's (under any base URL path)."""
    return path.rstrip("/").rsplit("/", 1)[-1] == COMPARE_URL


def prefetch(query: dict[str, list[str]]) -> None:
    """:func:`pages._loaders.prefetch_comparison`, never raising: the page meets and shows what fails."""
    started = time.perf_counter()
    try:
        from pages import _loaders

        _loaders.prefetch_comparison(query)
    except Exception:  # noqa: BLE001 - the page does the same work and shows what goes wrong
        log.exception("prefetching the comparison of %s failed; the page will compute it", query)
        return
    log.info("comparison of %s ready in %.2f s", query or "the default runs", time.perf_counter() - started)


def prepare_default_comparison() -> None:
    """Once per server, when a page view is on screen: compute the default comparison in the worker."""
    if not _default_prepared.is_set():
        _default_prepared.set()
        submit({})
