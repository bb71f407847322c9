"""A store's connection: opened where :mod:`~evalcore.storage.location` says, shared by threads, in transactions.

:func:`connect` opens a SQLite file in WAL mode with foreign keys on and a busy timeout, or a PostgreSQL database
through a connection that offers sqlite3's interface (:mod:`evalcore.storage.postgres`). A
:class:`StoreConnection` holds one, shared by threads (``check_same_thread=False``, every use under one lock),
and runs :meth:`~StoreConnection.transaction`: ``BEGIN IMMEDIATE`` to write, so concurrent writers queue
instead of failing with "database is locked", ``DEFERRED`` to read one snapshot. The
:class:`~evalcore.storage.store.Store` is built on it, and whatever else runs a transaction of a store (its
spend, its columns, its settings) needs no more than this.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Self

from evalcore.core.errors import StoreError, StoreMissing, StoreUnavailable
from evalcore.storage.location import DEFAULT_DB, ENV, Location
from evalcore.storage.migrations import applied_names

#: Bytes of a SQLite file read through memory maps: none. A mapped page read once stays resident in the
#: process, so a scan of a big run's packed numbers would keep every page it crossed, the results' texts
#: included (they share the pages), in the reader's memory; read through SQLite's page cache instead, the same
#: scan costs no more time and keeps only the numbers.
MMAP_BYTES = 0


class StoreConnection:
    """One connection to the store at ``location``, shared by threads under one lock.

    Args:
        location: the store.
        timeout: seconds to wait for another writer before giving up.
        create: False to open only a store that exists, as a reader does (see :func:`connect`).

    Raises:
        StoreError: the database cannot be opened or reached; StoreMissing: ``create`` is False and no store is there.
    """

    def __init__(self, location: Location, timeout: float, create: bool = True):
        self.location = location
        #: The SQLite file, or the PostgreSQL URL without its password: what messages name.
        self.path: Path | str = location.path if location.path is not None else str(location)
        self._timeout = timeout
        self._lock = threading.RLock()
        try:
            self.conn = connect(location, timeout, create=create)
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path}: cannot open the store: {e}") from e

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self.conn.close()

    def map_memory(self, on: bool) -> None:
        """Read the SQLite file through memory maps (the default), or not: the mapped pages a pass over a big run
        touches count as the process's memory, so a one-off pass (an import, a file ranked once) goes without."""
        if not self.location.is_server:
            with self._lock:
                self.conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES if on else 0}")

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self, mode: str = "IMMEDIATE") -> Iterator[sqlite3.Connection]:
        """One transaction (``IMMEDIATE`` to write, ``DEFERRED`` to read), committed or rolled back."""
        with self._lock:
            try:
                self.conn.execute(f"BEGIN {mode}")
            except (sqlite3.OperationalError, sqlite3.InterfaceError) as e:
                raise StoreUnavailable(f"{self.path}: the store is busy or unreadable ({e}); try again") from e
            try:
                yield self.conn
                self.conn.execute("COMMIT")
            except BaseException:
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                raise


def connect(location: Location, timeout: float, *, create: bool = True) -> sqlite3.Connection:
    """A new connection to the store at ``location``, set up as the store uses it: a SQLite file (created with
    its folder when missing) in WAL mode, or a PostgreSQL database (:mod:`evalcore.storage.postgres`).

    Args:
        location: the store.
        timeout: seconds to wait for another writer.
        create: False to connect only to a store that exists, as whatever only reads does: a missing file is
            never created, and a database without evalcore's tables (no migration applied) is left as it is.

    Raises:
        StoreMissing: ``create`` is False and there is no store at ``location``.
        sqlite3.DatabaseError: the SQLite file is not a database.
        StoreError: the PostgreSQL server cannot be reached.
    """
    if not create and not location.exists():  # connecting to a missing SQLite file would create it
        raise StoreMissing(str(location))
    conn = _connect(location, timeout)
    if not create and not _has_tables(conn, location):
        conn.close()
        raise StoreMissing(str(location))
    return conn


def _has_tables(conn: sqlite3.Connection, location: Location) -> bool:
    """Whether the database holds evalcore's tables: a migration of the store's was applied to it."""
    if location.is_server:
        return bool(conn.has_tables())  # type: ignore[attr-defined]
    return bool(applied_names(conn))


def _connect(location: Location, timeout: float) -> sqlite3.Connection:
    if location.is_server:
        # psycopg is loaded only for a store on a server.
        from evalcore.storage import postgres

        return postgres.connect(location, timeout)
    path = location.path or DEFAULT_DB
    if str(path) != ":memory:":
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StoreError(
                f"{path.parent}: cannot make the store's folder ({e.strerror or e}); name a store with --db or "
                f"{ENV}, or work in a project folder (one holding data/evalcore.db, a pyproject.toml or a .git)"
            ) from None
    # isolation_level=None: the store begins and commits every transaction itself.
    conn = sqlite3.connect(path, timeout=timeout, check_same_thread=False, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
        # With WAL, NORMAL never corrupts: a killed process loses nothing, a power cut the last batches.
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
        # A REPLACE of a result then fires the delete trigger too, and run_totals stays exact.
        conn.execute("PRAGMA recursive_triggers = ON")
    except BaseException:
        conn.close()
        raise
    return conn
