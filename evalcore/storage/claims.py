"""Several workers, one run (``evalcore run --resume RUN --worker``): who holds which result slot, and the spend.

PostgreSQL only: this module holds all the SQL that only PostgreSQL has for sharing a run (row locks that skip
what others hold, ``now()``, arrays), apart from :mod:`evalcore.storage.postgres`, which makes SQLite's SQL run
on PostgreSQL. Its tables are created on first use, not by a migration, since SQLite has no counterpart:

- ``evalcore_claims``: one row per result slot (contender, dataset, case, sample) still to call when the first
  worker started. A worker claims a batch of slots no one holds (``FOR UPDATE SKIP LOCKED``) for a lease
  (``held_by``, ``expires_at``) that it renews while it lives; a dead worker's lease expires and another worker
  claims its slots again (a done slot keeps the name of the worker that stored it). A result is stored in the
  same transaction that marks its slot done, and only while its worker still holds it: a late write by a worker
  whose slot was claimed again (or done) is dropped, so every slot is stored once (the results' unique key on
  the slot is the second guard: a row can never be there twice). A suite with a ``pairwise:`` judge adds one
  slot for its pairwise phase (:data:`PAIRWISE_SLOT`, no contender's): claimed by one worker once every result
  slot is done, so every comparison is judged once, with every worker's answers; the others wait for it, and
  take it over if that worker dies.
- ``evalcore_spend``: what the run has spent (its stored results' cost when the first worker started, then each
  call's actual cost as it ends), and ``evalcore_workers``: what each live worker holds in reserve for its calls
  in flight. A reservation is checked against the cap under a row lock on the run's spend, so the cap holds
  across workers; a dead worker's reservation is dropped with its lease, what it spent stays counted.
- ``evalcore_rates``: one row per rate clock (``rpm <key>`` and ``tpm <key>`` for a model id or API base): the
  earliest start of the next call by that limit. A call start is reserved under every clock of its limits in
  one transaction that holds their rows (the latest of now and each clock, then each clock moves on by that
  call's share), and what a call used beyond its estimate pushes a clock on when it ends, so a suite's ``rpm``
  and ``tpm`` hold across workers. ``concurrency`` stays per worker: it is how many calls one process holds open.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from evalcore.core.errors import ConfigError, StoreUnavailable
from evalcore.storage import rows
from evalcore.storage.postgres import connect

if TYPE_CHECKING:
    from evalcore.storage.store import Store

logger = logging.getLogger(__name__)

Key = tuple[str, str, str, int]

#: The slot of a run's pairwise phase: no contender's (a contender id is never empty).
PAIRWISE_SLOT: Key = ("", "", "pairwise", 0)

_TABLES = (
    """CREATE TABLE IF NOT EXISTS evalcore_claims (
        run_id TEXT NOT NULL, contender TEXT NOT NULL, dataset TEXT NOT NULL, "case" TEXT NOT NULL,
        sample BIGINT NOT NULL, held_by TEXT, expires_at TIMESTAMPTZ, done BOOLEAN NOT NULL DEFAULT false,
        PRIMARY KEY (run_id, contender, dataset, "case", sample))""",
    "CREATE INDEX IF NOT EXISTS evalcore_claims_open ON evalcore_claims (run_id) WHERE NOT done",
    """CREATE TABLE IF NOT EXISTS evalcore_spend (
        run_id TEXT PRIMARY KEY, spent_usd DOUBLE PRECISION NOT NULL DEFAULT 0)""",
    """CREATE TABLE IF NOT EXISTS evalcore_rates (key TEXT PRIMARY KEY, next_at TIMESTAMPTZ NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS evalcore_workers (
        run_id TEXT NOT NULL, worker TEXT NOT NULL, reserved_usd DOUBLE PRECISION NOT NULL DEFAULT 0,
        expires_at TIMESTAMPTZ NOT NULL, PRIMARY KEY (run_id, worker))""",
)
#: A slot already recorded is kept as it is, unless its stored result's error begins with the given words (a case
#: the budget cap stopped midway): done for the run that stored it, to call again for the one that resumes it.
_SEED = """INSERT INTO evalcore_claims AS c (run_id, contender, dataset, "case", sample)
SELECT ?, * FROM unnest(?::text[], ?::text[], ?::text[], ?::bigint[])
ON CONFLICT (run_id, contender, dataset, "case", sample) DO UPDATE SET done = false, held_by = NULL, expires_at = NULL
WHERE c.done AND EXISTS (SELECT 1 FROM results r WHERE r.run_id = c.run_id AND r.contender = c.contender
  AND r.dataset = c.dataset AND r."case" = c."case" AND r.sample = c.sample
  AND EXISTS (SELECT 1 FROM unnest(?::text[]) p WHERE starts_with(r.error_message, p)))"""
#: Slots whose result is stored though the claims do not say so: a worker that lost its store kept them in a file
#: (:mod:`evalcore.storage.unsaved`), and the resume stored them (unless it is to call them again, see _SEED).
_STORED_DONE = """UPDATE evalcore_claims c SET done = true, held_by = NULL, expires_at = NULL
WHERE c.run_id = ? AND NOT c.done AND c.contender <> ? AND EXISTS (SELECT 1 FROM results r WHERE r.run_id = c.run_id
  AND r.contender = c.contender AND r.dataset = c.dataset AND r."case" = c."case" AND r.sample = c.sample
  AND NOT EXISTS (SELECT 1 FROM unnest(?::text[]) p WHERE starts_with(COALESCE(r.error_message, ''), p)))"""
_CLAIM = """UPDATE evalcore_claims c SET held_by = ?, expires_at = now() + make_interval(secs => ?)
FROM (SELECT contender, dataset, "case", sample FROM evalcore_claims
      WHERE run_id = ? AND contender = ? AND NOT done AND (held_by IS NULL OR expires_at < now())
      ORDER BY dataset, "case", sample LIMIT ? FOR UPDATE SKIP LOCKED) free
WHERE c.run_id = ? AND c.contender = free.contender AND c.dataset = free.dataset AND c."case" = free."case"
  AND c.sample = free.sample
RETURNING c.contender, c.dataset, c."case", c.sample"""
_CLAIM_PAIRWISE = """UPDATE evalcore_claims c SET held_by = ?, expires_at = now() + make_interval(secs => ?)
WHERE run_id = ? AND contender = ? AND dataset = ? AND "case" = ? AND sample = ?
  AND NOT done AND (held_by IS NULL OR expires_at < now())
  AND NOT EXISTS (SELECT 1 FROM evalcore_claims o WHERE o.run_id = c.run_id AND NOT o.done AND o.contender <> ?)
RETURNING 1"""
_DONE = """UPDATE evalcore_claims SET done = true, expires_at = NULL
WHERE run_id = ? AND held_by = ? AND NOT done
  AND (contender, dataset, "case", sample) IN (SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::bigint[]))
RETURNING contender, dataset, "case", sample"""
#: What a run has left when a worker closes: result slots not done, its pairwise phase not done, and when the
#: latest lease of the slots other workers hold ends (NULL: none is held on a live lease).
_LEFT = """SELECT count(*) FILTER (WHERE contender <> ?), count(*) FILTER (WHERE contender = ?),
       max(expires_at) FILTER (WHERE held_by IS NOT NULL AND expires_at > now())
FROM evalcore_claims WHERE run_id = ? AND NOT done"""

_CLOCKS = """INSERT INTO evalcore_rates (key, next_at) SELECT unnest(?::text[]), now() ON CONFLICT DO NOTHING"""
_NEXT_START = """SELECT GREATEST(clock_timestamp(), max(next_at)), clock_timestamp()
FROM (SELECT next_at FROM evalcore_rates WHERE key = ANY(?::text[]) ORDER BY key FOR UPDATE) held"""
_MOVE_CLOCKS = """UPDATE evalcore_rates SET next_at = ?::timestamptz + make_interval(secs => moved.secs)
FROM unnest(?::text[], ?::float8[]) AS moved(key, secs) WHERE evalcore_rates.key = moved.key"""
_PUSH_CLOCKS = """UPDATE evalcore_rates SET next_at = next_at + make_interval(secs => pushed.secs)
FROM unnest(?::text[], ?::float8[]) AS pushed(key, secs) WHERE evalcore_rates.key = pushed.key"""


def worker_name() -> str:
    """A name for this worker process, unique across machines: ``host:pid:random``."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


def require_server(store: Store) -> None:
    """Refuse a store that several workers cannot share (SQLite).

    Raises:
        ConfigError: one line saying a PostgreSQL store is needed.
    """
    if not store.location.is_server:
        raise ConfigError(
            f"--worker needs a PostgreSQL store, which several processes can share; {store.path} is SQLite. "
            "Give --db postgresql://... (or EVALCORE_DB), or drop --worker."
        )


class Claims:
    """One worker's hold on a shared run: claiming slots, renewing its lease, storing results, the spend.

    Thread-safe: the run's event loop claims and reserves, the writer thread stores, the lease thread renews.

    Args:
        store: a PostgreSQL store.
        run_id: the run.
        lease_s: how long a claim stays held without renewal; renewed every third of it.

    Raises:
        ConfigError: the store is not on PostgreSQL.
    """

    def __init__(self, store: Store, run_id: str, lease_s: float = 30.0):
        require_server(store)
        self.run_id, self.lease_s, self.name = run_id, lease_s, worker_name()
        # A connection of its own: the store's serializes its writers, and claims must not wait on them.
        self._location = store.location
        self._conn = connect(store.location, 30.0)
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._closed = False
        #: Result slots of the run not done when this worker closed (every worker's).
        self.left = 0
        #: The run's pairwise phase was not done when this worker closed.
        self.pairwise_left = False
        #: Another worker held slots of the run on a live lease when this one closed: it sets the run's status.
        self.others_live = False
        #: Why this worker could not claim slots (its store went away); None while it can.
        self.unreachable: str | None = None
        self._renewer: threading.Thread | None = None
        self._create_tables()

    def _create_tables(self) -> None:
        # Workers starting together would race on CREATE TABLE IF NOT EXISTS (PostgreSQL refuses the second
        # one's type name): the store's write lock makes them take turns.
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                for statement in _TABLES:
                    conn.execute(statement)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    # --- slots ---------------------------------------------------------------------------------------

    def seed(self, keys: Iterable[Key], spent_usd: float, redo: Sequence[str] = ()) -> None:
        """Record the slots still to call (a slot already recorded is kept as it is, unless its stored result's
        error message begins with one of ``redo``: then it is to call again) and the run's spend so far (kept when
        another worker recorded more); start renewing this worker's lease."""
        keys = list(keys)
        columns = [list(c) for c in zip(*keys, strict=True)] if keys else [[], [], [], []]
        self._execute(_SEED, (self.run_id, *columns, list(redo)))
        self._execute(_STORED_DONE, (self.run_id, PAIRWISE_SLOT[0], list(redo)))
        self._execute(
            # Never below what the stored results cost: a worker that lost its store could not count its last calls.
            "INSERT INTO evalcore_spend (run_id, spent_usd) VALUES (?, ?) ON CONFLICT (run_id) "
            "DO UPDATE SET spent_usd = GREATEST(evalcore_spend.spent_usd, excluded.spent_usd)",
            (self.run_id, spent_usd),
        )
        self._execute(
            "INSERT INTO evalcore_workers (run_id, worker, expires_at) VALUES (?, ?, now() + make_interval(secs => ?)) "
            "ON CONFLICT DO NOTHING",
            (self.run_id, self.name, self.lease_s),
        )
        self._renewer = threading.Thread(target=self._renew_until_stopped, name="evalcore-lease", daemon=True)
        self._renewer.start()

    def claim(self, n: int, contender: str) -> list[Key]:
        """Up to ``n`` slots of ``contender`` no live worker holds, now held by this one (none when none is free, or
        when the store cannot be reached: then :attr:`unreachable` says why)."""
        params = (self.name, self.lease_s, self.run_id, contender, n, self.run_id)
        for _ in range(2):  # a lost connection: the second try is made on a new one
            try:
                return [(c, d, k, int(s)) for c, d, k, s in self._execute(_CLAIM, params).fetchall()]
            except sqlite3.Error as exc:
                why = str(exc)
        self.unreachable = why
        logger.warning("run %s: this worker cannot claim slots: %s", self.run_id, self.unreachable)
        return []

    def claim_pairwise(self) -> bool:
        """Hold the run's pairwise phase (:data:`PAIRWISE_SLOT`) if every result slot is done and no live worker
        holds it (or it is done, or the run has none); False otherwise."""
        found = self._execute(
            _CLAIM_PAIRWISE, (self.name, self.lease_s, self.run_id, *PAIRWISE_SLOT, PAIRWISE_SLOT[0])
        ).fetchone()
        return found is not None

    def finish_pairwise(self) -> None:
        """Mark the pairwise phase this worker holds done (its verdicts are stored)."""
        self._execute(
            "UPDATE evalcore_claims SET done = true, expires_at = NULL WHERE run_id = ? AND held_by = ? AND NOT done "
            'AND contender = ? AND dataset = ? AND "case" = ? AND sample = ?',
            (self.run_id, self.name, *PAIRWISE_SLOT),
        )

    def held_elsewhere(self) -> int:
        """Slots not done (the pairwise phase's too) that another worker holds (whose lease may yet expire), or no
        one holds."""
        query = "SELECT count(*) FROM evalcore_claims WHERE run_id = ? AND NOT done AND held_by IS DISTINCT FROM ?"
        return int(self._execute(query, (self.run_id, self.name)).fetchone()[0])

    def store_rows(self, result_rows: Sequence[tuple]) -> int:
        """Store the rows (of :data:`~evalcore.storage.rows.RESULT_FIELDS`) whose slot this worker still holds,
        marking those slots done in the same transaction; returns how many were dropped (held by another
        worker since this one's lease expired, or done)."""
        if not result_rows:
            return 0
        keys = [list(c) for c in zip(*(row[1:5] for row in result_rows), strict=True)]
        with self._lock:
            conn = self._conn
            try:
                conn.execute("BEGIN IMMEDIATE")  # the advisory lock every writer of the store takes
                try:
                    held = {tuple(k) for k in conn.execute(_DONE, (self.run_id, self.name, *keys)).fetchall()}
                    kept = [row for row in result_rows if tuple(row[1:5]) in held]
                    if kept:
                        rows.insert_rows(conn, rows.INSERT_RESULTS, len(rows.RESULT_FIELDS), kept)
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
            except (sqlite3.OperationalError, sqlite3.InterfaceError) as e:
                raise StoreUnavailable(f"{self._location}: the store cannot be written ({e})") from e
        dropped = len(result_rows) - len(kept)
        if dropped:
            logger.warning(
                "run %s: %d results not stored: this worker's lease lapsed and another worker took their slots",
                self.run_id,
                dropped,
            )
        return dropped

    # --- the spend -----------------------------------------------------------------------------------

    def reserve(self, reserved_usd: float, amount: float, cap_usd: float) -> bool:
        """Raise this worker's reservation from ``reserved_usd`` by ``amount`` if the run's spend, every live
        worker's reservation and ``amount`` stay within ``cap_usd``; False (nothing reserved) otherwise."""
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN")
            try:
                spent = self._spent(conn, lock=True)
                others = conn.execute(
                    "SELECT COALESCE(SUM(reserved_usd), 0) FROM evalcore_workers "
                    "WHERE run_id = ? AND worker <> ? AND expires_at > now()",
                    (self.run_id, self.name),
                ).fetchone()[0]
                fits = spent + float(others) + reserved_usd + amount <= cap_usd
                if fits:
                    self._set_reserved(conn, reserved_usd + amount)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        return fits

    def settle(self, reserved_usd: float, cost_usd: float) -> float:
        """Set this worker's reservation to ``reserved_usd`` and add ``cost_usd`` to the run's spend; the spend."""
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN")
            try:
                conn.execute(
                    "UPDATE evalcore_spend SET spent_usd = spent_usd + ? WHERE run_id = ?", (cost_usd, self.run_id)
                )
                self._set_reserved(conn, reserved_usd)
                spent = self._spent(conn)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        return spent

    def spent(self) -> float:
        """What the run has spent, by every worker."""
        with self._lock:
            return self._spent(self._conn)

    def _spent(self, conn: sqlite3.Connection, lock: bool = False) -> float:
        query = "SELECT spent_usd FROM evalcore_spend WHERE run_id = ?" + (" FOR UPDATE" if lock else "")
        found = conn.execute(query, (self.run_id,)).fetchone()
        return float(found[0]) if found else 0.0

    def _set_reserved(self, conn: sqlite3.Connection, usd: float) -> None:
        conn.execute(
            "UPDATE evalcore_workers SET reserved_usd = ? WHERE run_id = ? AND worker = ?",
            (usd, self.run_id, self.name),
        )

    # --- rate limits ---------------------------------------------------------------------------------

    def next_start(self, seconds: Mapping[str, float]) -> tuple[float, float]:
        """Reserve the next start of a call under the rate clocks ``seconds`` names (``rpm <key>``, ``tpm <key>``),
        shared by every worker (of any run: a provider's limit is the provider's): the start is the latest of now
        and each clock, and each clock moves on to that start plus its seconds, in one transaction holding their
        rows. Returns the start (the server's epoch seconds) and the seconds to wait for it, by the server's clock
        (no clock skew between machines)."""
        keys = sorted(seconds)  # every transaction takes the rows in one order: none waits on another in a cycle
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN")
            try:
                conn.execute(_CLOCKS, (keys,))
                start, now = conn.execute(_NEXT_START, (keys,)).fetchone()
                conn.execute(_MOVE_CLOCKS, (start, keys, [seconds[k] for k in keys]))
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        return start.timestamp(), max(0.0, (start - now).total_seconds())

    def push_clocks_now(self, seconds: Mapping[str, float]) -> None:
        """Move each named rate clock on by its seconds (back, when negative): what a call used beyond its
        estimate, once it ended."""
        keys = sorted(seconds)
        self._execute(_PUSH_CLOCKS, (keys, [seconds[k] for k in keys]))

    async def wait_s(self, seconds: Mapping[str, float]) -> float:
        """:meth:`next_start`'s wait, from the event loop (the database is asked in a thread)."""
        return (await asyncio.to_thread(self.next_start, seconds))[1]

    async def push_clocks(self, seconds: Mapping[str, float]) -> None:
        """:meth:`push_clocks_now`, from the event loop."""
        await asyncio.to_thread(self.push_clocks_now, seconds)

    # --- the lease -----------------------------------------------------------------------------------

    def renew(self) -> None:
        """Extend this worker's lease on what it holds (its slots and its reservation)."""
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN")
            try:
                conn.execute(
                    "UPDATE evalcore_claims SET expires_at = now() + make_interval(secs => ?) "
                    "WHERE run_id = ? AND held_by = ? AND NOT done",
                    (self.lease_s, self.run_id, self.name),
                )
                conn.execute(
                    "UPDATE evalcore_workers SET expires_at = now() + make_interval(secs => ?) "
                    "WHERE run_id = ? AND worker = ?",
                    (self.lease_s, self.run_id, self.name),
                )
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    def _renew_until_stopped(self) -> None:
        while not self._stopped.wait(self.lease_s / 3):
            try:
                self.renew()
            except Exception:  # noqa: BLE001 - the server is away: the lease lapses and another worker takes over
                continue

    def close(self, wait: bool = True) -> None:
        """Give back what this worker holds and did not store (another worker calls it), and its reservation;
        then read what the run has left (:attr:`left`, :attr:`pairwise_left`) and whether another worker is
        still at work on it (:attr:`others_live`).

        Another worker's live lease may be a dead worker's that has not lapsed yet: with ``wait``, this waits
        until the other leases are renewed (their worker is alive: it sets the run's status when it stops), or
        are given back, done or lapsed (no one else will: this worker sets it), at most one lease. Without it
        (Ctrl-C), any live lease counts as a live worker."""
        if self._closed:
            return
        self._stopped.set()
        if self._renewer is not None:
            self._renewer.join()
        try:
            self._execute(
                "UPDATE evalcore_claims SET held_by = NULL, expires_at = NULL "
                "WHERE run_id = ? AND held_by = ? AND NOT done",
                (self.run_id, self.name),
            )
            self._execute("DELETE FROM evalcore_workers WHERE run_id = ? AND worker = ?", (self.run_id, self.name))
            first = self._read_left()
            while wait and first is not None:
                time.sleep(min(1.0, self.lease_s / 10))
                until = self._read_left()
                if until is None or until > first:
                    break
            self._closed = True  # a store that went away meanwhile: closed again on a new connection
        finally:
            self._conn.close()

    def _read_left(self) -> datetime | None:
        """Read what the run has left into :attr:`left`, :attr:`pairwise_left` and :attr:`others_live`; when
        another worker holds slots on a live lease, when its latest lease ends."""
        query = _LEFT, (PAIRWISE_SLOT[0], PAIRWISE_SLOT[0], self.run_id)
        left, pairwise, live_until = self._execute(*query).fetchone()
        self.left, self.pairwise_left, self.others_live = int(left or 0), bool(pairwise), live_until is not None
        return live_until

    def _execute(self, sql: str, params: Sequence[object] = ()) -> sqlite3.Cursor:
        with self._lock:
            return self._conn.execute(sql, params)
