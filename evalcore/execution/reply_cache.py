"""A run's reply cache (``evalcore run --cache``, ``docs/cache.md``): replies kept in the store, reused per call.

:class:`StoredReplies` is the :class:`~evalcore.models.cache.ReplyCache` of one run: it looks a request's key up
in the store's ``reply_cache`` table (:mod:`evalcore.storage.replies`) through a connection of its own, which
waits for a lock at most :data:`WAIT_S` (a busy store makes the cache step aside, never the run wait), in a worker
thread (the event loop never waits on the database). A cache that cannot be read or written (its table locked
past the wait, damaged, or the database read-only) is **skipped** for the rest of the run: every later call asks
its model, the run goes on to its true end, and :attr:`StoredReplies.skipped` says why, which the run prints.

A result whose reply came from the cache carries ``diagnostics["cached"]`` (:data:`MARK`): when the reply was made
and the USD this run did not pay for it (:func:`cache_mark`). Its ``usage``, ``latency_s`` and ``attempts`` are
the call's that made the reply, so the leaderboard's cost and time columns still describe the model; what the
run paid is its cost less the marks' (:func:`paid_usd`), which the budget and a resumed run's spend count.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
from datetime import UTC, datetime, timedelta
from typing import Any

from evalcore.core.clock import utc_now
from evalcore.core.errors import StoreError
from evalcore.core.records import Result, Usage
from evalcore.execution.progress import Progress
from evalcore.models.cache import caching as caching  # the runner's one import of the cache
from evalcore.models.types import Reply
from evalcore.storage.connection import StoreConnection
from evalcore.storage.location import Location
from evalcore.storage.replies import StoredReply, count_hit, read_reply, write_reply

log = logging.getLogger(__name__)

#: Seconds the cache waits for a lock on the store before it is skipped for the run.
WAIT_S = 2.0
#: The key of a result's diagnostics that marks a reply from the cache: ``{"created_at", "cost_usd"}``.
MARK = "cached"
#: The run setting that records a run's cache: ``{"max_age_s": …}`` (null: any age); absent when it was off.
SETTING = "reply_cache"


class StoredReplies:
    """The reply cache of one run, kept in the store at ``location`` (see the module).

    Args:
        location: the store.
        max_age_s: a stored reply older than this many seconds is not used (and is replaced); None: any age.

    Attributes:
        hits: calls the cache answered; ``saved_usd`` what they did not pay.
        stored: replies stored for later runs.
        skipped: why the cache stopped being used in this run (it could not be read or written); None while used.
    """

    def __init__(self, location: Location, max_age_s: float | None = None):
        self.location, self.max_age_s = location, max_age_s
        self.hits, self.saved_usd, self.stored = 0, 0.0, 0
        self.skipped: str | None = None
        self._draws: dict[str, int] = {}
        self._conn: StoreConnection | None = None
        self._opening = threading.Lock()  # worker threads open the connection: one of them, once

    def draw(self, digest: str) -> int:
        """How many requests with this digest the run made before this one."""
        drawn = self._draws.get(digest, 0)
        self._draws[digest] = drawn + 1
        return drawn

    async def lookup(self, key: str) -> Reply | None:
        """The stored reply of ``key`` young enough to use, as a reply from the cache; None otherwise."""
        if self.skipped is not None:
            return None
        found = await self._guarded(self._read, key)
        if found is None:
            return None
        self.hits += 1
        self.saved_usd += found.cost_usd or 0.0
        usage = Usage(found.input_tokens, found.output_tokens, found.cost_usd)
        latency = found.latency_s or 0.0
        return Reply(
            found.text, usage, latency, found.attempts, found.tool_calls, found.created_at, found.cost_usd or 0.0
        )

    async def save(self, key: str, model: str, reply: Reply) -> None:
        """Keep a reply the model just gave."""
        if self.skipped is not None:
            return
        u = reply.usage
        row = StoredReply(
            utc_now(), reply.text, reply.tool_calls, u.input_tokens, u.output_tokens, u.cost_usd, reply.latency_s,
            reply.attempts,
        )  # fmt: skip
        if await self._guarded(self._write, key, model, row) is not None:
            self.stored += 1

    def close(self) -> None:
        """Close the cache's connection."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def summary(self) -> str | None:
        """``reply cache: 12 replies reused ($0.0123 not paid), 36 stored``, and why it was skipped; None when
        it did nothing."""
        if not (self.hits or self.stored or self.skipped):
            return None
        said = f"reply cache: {self.hits} repl{'y' if self.hits == 1 else 'ies'} reused (${self.saved_usd:.6f} not "
        said += f"paid), {self.stored} stored"
        if self.skipped is not None:
            said += f"; then skipped: {self.skipped}; the other calls asked their models"
        return said

    async def _guarded(self, action: Any, *args: Any) -> Any:
        try:
            return await asyncio.to_thread(action, *args)
        except (sqlite3.Error, StoreError, ValueError, KeyError, TypeError) as exc:  # damaged rows read as these
            if self.skipped is None:
                self.skipped = f"{self.location}: {exc}"
                log.warning("the reply cache is skipped for the rest of the run: %s", self.skipped)
            return None

    def _connection(self) -> StoreConnection:
        with self._opening:
            if self._conn is None:
                self._conn = StoreConnection(self.location, WAIT_S)
            return self._conn

    def _read(self, key: str) -> StoredReply | None:
        newer_than = "" if self.max_age_s is None else ago(self.max_age_s)
        store = self._connection()
        with store.transaction("DEFERRED") as conn:
            found = read_reply(conn, key, newer_than)
        if found is not None:
            with store.transaction() as conn:
                count_hit(conn, key, found.cost_usd or 0.0)
        return found

    def _write(self, key: str, model: str, row: StoredReply) -> bool:
        with self._connection().transaction() as conn:
            write_reply(conn, key, model, row)
        return True


def ago(seconds: float) -> str:
    """The RFC 3339 UTC time ``seconds`` ago, as the store's timestamps are written."""
    return (datetime.now(UTC) - timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def cache_mark(reply: Reply) -> dict[str, Any] | None:
    """What a result whose reply came from the cache carries in its diagnostics (:data:`MARK`); None otherwise."""
    if reply.cached_at is None:
        return None
    return {"created_at": reply.cached_at, "cost_usd": reply.cached_usd}


def marked(diagnostics: dict[str, Any], reply: Reply) -> dict[str, Any]:
    """``diagnostics`` with the reply's cache mark, when it came from the cache."""
    mark = cache_mark(reply)
    return diagnostics if mark is None else {**diagnostics, MARK: mark}


def saved_usd(result: Result) -> float:
    """What a result did not pay because its reply came from the cache (0 for one the model gave)."""
    mark = result.diagnostics.get(MARK)
    cost = mark.get("cost_usd") if isinstance(mark, dict) else None
    return float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) else 0.0


def paid_usd(results: list[Result]) -> tuple[float, float, int]:
    """(USD the results' calls paid, USD they would have cost without the cache, results from the cache)."""
    listed = sum(r.usage.cost_usd or 0.0 for r in results)
    reused = [r for r in results if isinstance(r.diagnostics.get(MARK), dict)]
    return listed - sum(saved_usd(r) for r in reused), listed, len(reused)


def parse_age(text: str) -> float:
    """Seconds of ``30``, ``90s``, ``15m``, ``12h``, ``7d`` or ``2w``.

    Raises:
        ValueError: naming the value and the forms it takes.
    """
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
    value = text.strip().lower()
    scale = units.get(value[-1:], None)
    number = value[:-1] if scale is not None else value
    try:
        seconds = float(number) * (scale or 1)
    except ValueError:
        seconds = -1.0
    if not seconds > 0:
        raise ValueError(f"{text!r} is not an age: give a positive number of seconds, or 90s, 15m, 12h, 7d, 2w")
    return seconds


def close_cache(cache: StoredReplies | None, progress: Progress) -> None:
    """Say on the run's progress what the cache did (:meth:`StoredReplies.summary`), and close it."""
    if cache is not None:
        progress.cache = cache.summary()
        cache.close()


def open_cache(settings: dict[str, Any], location: Location) -> StoredReplies | None:
    """The run's cache as its settings record it (:data:`SETTING`); None when the run has it off."""
    chosen = settings.get(SETTING)
    if not isinstance(chosen, dict):
        return None
    return StoredReplies(location, chosen.get("max_age_s"))
