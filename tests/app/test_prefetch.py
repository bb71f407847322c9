"""pages/_prefetch.py: the Compare page's prefetch starts no work for a visitor who may not view, and never
queues more than its bound."""

from __future__ import annotations

import asyncio
import logging
import threading

import pytest

from pages import _actions, _prefetch

SIGNED_IN_ONLY = {"evalcore": {"access": {"view": "signed-in"}}}


def request(path: str = "/compare", client: str = "203.0.113.7", query: bytes = b"base=a&candidate=b") -> dict:
    return {
        "type": "http",
        "method": "GET",
        "path": path,
        "query_string": query,
        "client": (client, 50000),
        "headers": [],
    }


def serve(middleware: _prefetch.ComparePrefetch, scopes: list[dict]) -> None:
    async def all_of_them() -> None:
        for scope in scopes:
            await middleware(scope, None, None)

    asyncio.run(all_of_them())


@pytest.fixture
def served(monkeypatch):
    """The requests the app behind the middleware got, and the prefetches started (each waits for ``release``)."""
    release, started, passed = threading.Event(), [], []

    def slow_prefetch(query):
        started.append(query)
        release.wait(10)

    async def app(scope, receive, send):
        passed.append(scope["path"])

    monkeypatch.setattr(_prefetch, "prefetch", slow_prefetch)
    yield _prefetch.ComparePrefetch(app), started, passed, release
    release.set()
    _prefetch.drain()


def test_a_visitor_who_may_not_view_starts_no_comparison(monkeypatch, served):
    middleware, started, passed, _ = served
    monkeypatch.setattr(_actions, "_settings", lambda: SIGNED_IN_ONLY)
    serve(middleware, [request(query=f"base=r{i}&candidate=s{i}".encode()) for i in range(320)])
    _prefetch.drain()
    assert started == [] and _prefetch.queued() == 0
    assert len(passed) == 320  # the page itself still answers: its sign-in wall


def test_the_queue_never_holds_more_than_its_bound_and_the_log_says_what_it_dropped(monkeypatch, served, caplog):
    middleware, started, passed, release = served
    monkeypatch.setattr(_actions, "_settings", lambda: {})  # everyone may view
    seen = []
    real_submit = _prefetch.submit
    monkeypatch.setattr(_prefetch, "submit", lambda q: (real_submit(q), seen.append(_prefetch.queued()))[0])
    with caplog.at_level(logging.WARNING, logger="evalcore.app"):
        serve(middleware, [request(query=f"base=r{i}&candidate=s{i}".encode()) for i in range(320)])
    assert max(seen) <= _prefetch.QUEUE_BOUND and _prefetch.queued() <= _prefetch.QUEUE_BOUND
    assert any("dropped" in r.getMessage() for r in caplog.records)
    release.set()
    _prefetch.drain()
    assert len(started) <= _prefetch.QUEUE_BOUND and len(passed) == 320
