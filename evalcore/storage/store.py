"""The store: run history and every result, one :class:`Store` per SQLite file or PostgreSQL database.

Where the store is comes from a path or a URL (:mod:`evalcore.storage.location`). SQLite is the default;
a ``postgresql://`` URL puts the same tables on a server, through a connection that offers sqlite3's
interface and translates what differs (:mod:`evalcore.storage.postgres`): every rule below holds for both.
The connection and its transactions are :class:`~evalcore.storage.connection.StoreConnection`'s.

The schema lives in numbered migrations (:mod:`evalcore.storage.migrations`), applied when a store
opens. The connection runs in WAL mode with foreign keys on and a busy timeout, and is shared by threads
(``check_same_thread=False``, every use under one lock). Writes take ``BEGIN IMMEDIATE`` so concurrent
writers queue instead of failing with "database is locked"; results go in one transaction per batch
(INSERTs of many rows each, :mod:`evalcore.storage.rows`), never a commit per result.

sqlite-utils imports pandas and numpy as soon as it is imported, when they are installed. So the
store imports it only to apply pending migrations (and for :attr:`Store.db`); once the schema is
current, opening a store and everything but :meth:`Store.load_results_frame` stay pandas-free.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalcore.core import records
from evalcore.core.clock import utc_now
from evalcore.core.errors import StoreError, StoreUnavailable
from evalcore.storage import packed, pairs, ratings, rows, runs
from evalcore.storage.connection import StoreConnection, connect
from evalcore.storage.location import DEFAULT_DB, StoreAddress, default_location, parse_location
from evalcore.storage.migrations import MIGRATION_NAMES, applied_names, migrations
from evalcore.storage.rows import FULL_BATCH, RESULT_FIELDS, ResultRows

if TYPE_CHECKING:
    import pandas as pd
    import sqlite_utils

__all__ = ["BUSY_TIMEOUT_S", "DEFAULT_DB", "FULL_BATCH", "RUN_STATUSES", "ResultRows", "Store", "default_db_path"]

logger = logging.getLogger(__name__)

BUSY_TIMEOUT_S = 30.0
RUN_STATUSES = ("running", "completed", "interrupted", "failed")


def default_db_path() -> Path:
    """The store's path as ``$EVALCORE_DB`` spells it, else :func:`default_location`'s (which also reads a URL)."""
    named = os.environ.get("EVALCORE_DB")
    return Path(named) if named else Path(str(default_location().path))


class Store(StoreConnection):
    """Runs and their results in one SQLite file or PostgreSQL database.

    Args:
        path: the SQLite file (created with its folder when missing), a ``sqlite:///`` or ``postgresql://`` URL
            (:func:`~evalcore.storage.location.parse_location`); default :func:`default_location`.
        timeout: seconds to wait for another writer before giving up.
        create: False to open only a store that exists, as a reader does (see :func:`connect`).

    Raises:
        ConfigError: the URL's scheme is not supported.
        StoreError: the database cannot be opened or reached; StoreMissing: ``create`` is False and no store is there.
    """

    def __init__(self, path: StoreAddress | None = None, *, timeout: float = BUSY_TIMEOUT_S, create: bool = True):
        super().__init__(parse_location(path) if path is not None else default_location(), timeout, create)
        self._db: sqlite_utils.Database | None = None
        try:
            self.conn.migrate() if self.location.is_server else self._migrate()  # type: ignore[attr-defined]
        except sqlite3.DatabaseError as e:
            self.conn.close()
            raise StoreError(f"{self.path}: cannot open the store: {e}") from e

    @property
    def db(self) -> sqlite_utils.Database:
        """The sqlite-utils view of the connection (imported on first use); a PostgreSQL store raises StoreError."""
        if self.location.is_server:
            raise StoreError(f"{self.path}: a PostgreSQL store has no sqlite-utils view")
        if self._db is None:
            import sqlite_utils

            self._db = sqlite_utils.Database(self.conn, execute_plugins=False)
        return self._db

    def _migrate(self) -> None:
        if applied_names(self.conn) == list(MIGRATION_NAMES):
            return
        # IMMEDIATE: two processes opening a new file migrate one after the other.
        with self.transaction():
            if applied_names(self.conn) != list(MIGRATION_NAMES):
                migrations().apply(self.db)
                logger.info("migrated %s to %s", self.path, MIGRATION_NAMES[-1])

    # --- writing ---------------------------------------------------------------------------------

    def create_run(self, run: records.Run) -> None:
        """Store a new run: header, contenders, cases and any results, in one transaction.

        Raises:
            StoreError: the id is already stored, or the run is inconsistent.
        """
        self.import_run(run, replace=False)

    def import_run(self, run: records.Run, replace: bool = False) -> None:
        """Store a whole run atomically: on any failure nothing is stored (or replaced).

        Args:
            run: the run, e.g. from :func:`evalcore.runfile.read.read_run_file`.
            replace: overwrite a run already stored under the same id.

        Raises:
            StoreError: the id is already stored (without ``replace``) or is a path, or the run is inconsistent.
        """
        rows.check_names(run)
        with self.transaction() as conn:
            self._make_room(conn, run.info.id, replace)
            self._insert_run(conn, run)
        logger.info("stored run %s (%d results)", run.info.id, len(run.results))

    def import_run_in_parts(
        self,
        head: records.Run,
        parts: Iterable[Sequence[records.Result]],
        tail: Callable[[], records.Run],
        *,
        replace: bool = False,
    ) -> int:
        """:meth:`import_run` for a run whose results come a part at a time (a run file as it streams), in one
        transaction: on any failure (raised by ``parts`` or ``tail`` too) nothing is stored or replaced.

        ``head`` is the run without results; ``tail()``, called after the last part, gives it with its refusals,
        verdicts and ratings. Returns how many results were stored; raises StoreError as :meth:`import_run`.
        """
        rows.check_names(head)
        run_id, count = head.info.id, 0
        self.map_memory(False)
        try:
            with self.transaction() as conn:
                self._make_room(conn, run_id, replace)
                self._insert_run(conn, dataclasses.replace(head, results=[], refused=[], pairwise=[], ratings=[]))
                make_row = ResultRows.of(head)
                for part in parts:
                    self._insert_results(conn, make_row, part)
                    count += len(part)
                end = tail()
                conn.execute("UPDATE runs SET refused = ? WHERE id = ?", (rows.run_row(end)[9], run_id))
                pairs.insert_pairs(conn, run_id, end.pairwise)
                ratings.insert_ratings(conn, run_id, end.ratings)
        finally:
            self.map_memory(True)
        logger.info("stored run %s (%d results, in parts)", run_id, count)
        return count

    def _make_room(self, conn: sqlite3.Connection, run_id: str, replace: bool) -> None:
        if self._exists(run_id):
            if not replace:
                raise StoreError(
                    f"run {run_id!r} is already in the store: delete it first or import with"
                    " replace (evalcore import --replace)"
                )
            conn.execute("DELETE FROM runs WHERE id = ?", (run_id,))

    def _insert_run(self, conn: sqlite3.Connection, run: records.Run) -> None:
        run_id = run.info.id
        try:
            conn.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows.run_row(run))
            conn.executemany(
                "INSERT INTO contenders VALUES (?, ?, ?, ?, ?)",
                [(run_id, c.id, c.model, rows.to_json(c.settings), i) for i, c in enumerate(run.contenders)],
            )
            rows.insert_rows(
                conn, "INSERT INTO cases VALUES", 8, [(run_id, *rows.case_row(c), i) for i, c in enumerate(run.cases)]
            )
        except (sqlite3.IntegrityError, ValueError, TypeError, OverflowError) as e:
            # e.g. two contenders with one id, two cases with one (dataset, id), NaN in settings
            raise StoreError(f"run {run_id!r} cannot be stored: {e}") from e
        pairs.insert_pairs(conn, run_id, run.pairwise)
        ratings.insert_ratings(conn, run_id, run.ratings)
        if not run.results:  # a run about to start: no positions to look up
            return
        self._insert_results(conn, ResultRows.of(run), run.results)

    def add_results(self, run_id: str, results: Sequence[records.Result]) -> None:
        """Store a batch of results in one transaction; a result with the same key is replaced.

        Raises:
            StoreError: the run is unknown, or a result names a contender or case it does not hold.
        """
        if not results:
            return
        # Only the batch's own cases are looked up, so a batch costs the same in a run of any size.
        keys = list(dict.fromkeys((r.dataset, r.case) for r in results))
        with self.transaction() as conn:
            make_row = rows.result_rows(conn, run_id, keys)
            if make_row is None:
                raise self._unknown(run_id)
            self._insert_results(conn, make_row, results)
        logger.debug("stored %d results for run %s", len(results), run_id)

    def result_rows(self, run_id: str) -> ResultRows:
        """What turns this run's results into rows for :meth:`add_rows` (its metrics and positions, read once).

        Raises:
            StoreError: the run is unknown.
        """
        with self._lock:
            make_row = rows.result_rows(self.conn, run_id)
        if make_row is None:
            raise self._unknown(run_id)
        return make_row

    def add_rows(self, result_rows: Sequence[tuple]) -> None:
        """Store rows made by a :class:`ResultRows` (a result with the same key is replaced), atomically.

        This is :meth:`add_results` in two halves, for a runner: the rows are made in the thread that
        has the results, and this thread holds the GIL only to bind them (``FULL_BATCH`` rows are one
        statement, which SQLite inserts without the GIL while the event loop runs on).

        Raises:
            StoreError: the run is gone (deleted meanwhile); StoreUnavailable: the store is busy or away for now.
        """
        if not result_rows:
            return
        run_id, width, n = result_rows[0][0], len(RESULT_FIELDS), len(result_rows)
        try:
            if rows.chunk_sizes(self.conn, width, n) == [n]:  # one statement: its own transaction
                with self._lock:
                    rows.insert_rows(self.conn, rows.INSERT_RESULTS, width, result_rows)
            else:
                with self.transaction() as conn:
                    rows.insert_rows(conn, rows.INSERT_RESULTS, width, result_rows)
        except sqlite3.IntegrityError as e:  # the run's row is gone: FOREIGN KEY constraint failed
            raise StoreError(f"run {run_id!r}: its results cannot be stored ({e}); was it deleted?") from e
        except (sqlite3.OperationalError, sqlite3.InterfaceError) as e:
            raise StoreUnavailable(f"{self.path}: the store is busy or cannot be written now ({e})") from e

    def _insert_results(
        self, conn: sqlite3.Connection, make_row: ResultRows, results: Sequence[records.Result]
    ) -> None:
        """Insert results as ``make_row`` makes them (a contender or case it does not hold is refused)."""
        run_id = make_row.run_id
        rows.check_references(run_id, results, make_row.contenders, make_row.cases)
        try:
            rows.insert_rows(conn, rows.INSERT_RESULTS, len(RESULT_FIELDS), [make_row(r) for r in results])
        except (ValueError, TypeError, OverflowError) as e:
            raise StoreError(f"run {run_id!r}: a result cannot be stored: {e}") from e

    def set_status(
        self, run_id: str, status: records.RunStatus, finished_at: str | None = None, **stop: str | None
    ) -> None:
        """Set a run's status; for ``interrupted``, say who stopped it (see :func:`runs.with_stop`).

        ``finished_at`` is cleared for ``running`` and ``interrupted`` (the run file's rule) and
        defaults to now for ``completed`` and ``failed``.

        Args:
            stop: ``stopped_by`` (``user``: shown as ``cancelled``; ``unreachable``) and ``reason``.

        Raises:
            StoreError: the run is unknown or the status is not one of :data:`RUN_STATUSES`.
        """
        if status not in RUN_STATUSES:
            raise StoreError(f"status {status!r} is not one of {', '.join(RUN_STATUSES)}")
        if status in ("running", "interrupted"):
            finished_at = None
        elif finished_at is None:
            finished_at = utc_now()
        with self.transaction() as conn:
            if not runs.update_status(conn, run_id, status, finished_at, **stop):
                raise self._unknown(run_id)

    def resolve_run_id(self, ref: str) -> str:
        """The id of the stored run that ``ref`` names: a whole id, or a unique prefix of one (``3e8bd3ea``).

        Raises:
            StoreError: no run matches; the prefix begins several runs (they are listed) or is shorter
                than 4 characters.
        """
        with self._lock:
            return runs.resolve_run_id(self.conn, ref, str(self.path))

    def result_counts(self, run_id: str) -> dict[str, tuple[int, int]]:
        """Per contender of the run (in its order): (results stored, of which errors)."""
        with self._lock:
            found = self.conn.execute(runs.RESULT_COUNTS, (run_id,)).fetchall()
        return {cid: (n, errors) for cid, n, errors in found}

    def past_spend(self, suite: str, contender: str, dataset: str, limit: int = 2000) -> list[tuple[Any, ...]]:
        """(input tokens, output tokens, trace JSON or None) of a contender's latest scored calls on a dataset."""
        with self._lock:
            return self.conn.execute(runs.PAST_SPEND, (suite, contender, dataset, limit)).fetchall()

    def delete_run(self, run_id: str) -> None:
        """Delete a run with its contenders, cases and results.

        Raises:
            StoreError: the run is unknown.
        """
        with self.transaction() as conn:
            self._require(run_id)
            conn.execute("DELETE FROM runs WHERE id = ?", (run_id,))
        logger.info("deleted run %s", run_id)

    # --- reading ---------------------------------------------------------------------------------

    def _exists(self, run_id: str) -> bool:
        return self.conn.execute("SELECT 1 FROM runs WHERE id = ?", (run_id,)).fetchone() is not None

    def _require(self, run_id: str) -> None:
        if not self._exists(run_id):
            raise self._unknown(run_id)

    def _unknown(self, run_id: str) -> StoreError:
        return StoreError(f"no run {run_id!r} in {self.path}: `evalcore runs` lists the stored runs")

    def list_runs(self, filters: runs.RunFilters | None = None) -> list[dict[str, Any]]:
        """Every run (or those ``filters`` lets through), newest first, with counts of contenders, cases, results
        and errors, and total cost.

        Returns:
            One dict per run: ``id, suite, created_at, finished_at, status, contenders, cases,
            results, errors, cost_usd, launched_by, metadata`` (``cost_usd`` is None when no cost is known;
            ``launched_by`` is the e-mail, else name, of who launched it signed in to the app, else None;
            ``metadata`` the labels it was run with, ``{}`` when none).
        """
        sql, params = runs.list_runs_query(filters or runs.RunFilters())
        with self._lock:
            cursor = self.conn.execute(sql, params)
            names = [d[0] for d in cursor.description]
            return [runs.run_entry(dict(zip(names, row, strict=True))) for row in cursor]

    def done_keys(self, run_id: str, include_errors: bool = True) -> set[tuple[str, str, str, int]]:
        """The (contender, dataset, case, sample) keys already stored, for resuming a run.

        Args:
            run_id: the run.
            include_errors: count failed calls as done; False to retry them on resume.
        """
        sql = 'SELECT contender, dataset, "case", sample FROM results WHERE run_id = ?'
        if not include_errors:
            sql += " AND status != 'error'"
        with self.transaction("DEFERRED") as conn:
            self._require(run_id)
            return set(conn.execute(sql, (run_id,)))

    def load_run(self, run_id: str, *, results: bool = True, contender: str | None = None) -> records.Run:
        """Everything stored about a run (for export); results in contender, case, sample order.

        Args:
            run_id: the run.
            results: False for the header, metrics, contenders and refused entries only (``cases``
                and ``results`` left empty): what a leaderboard needs beside
                :meth:`load_results_frame`, without reading every input and reply.
            contender: only this contender's results (every case still comes): a page that shows one
                contender's answers reads a fortieth of a forty-contender run.

        Raises:
            StoreError: the run is unknown.
        """
        with self.transaction("DEFERRED") as conn:
            head = self._head_rows(conn, run_id, cases=results)
            found = rows.result_cursor(conn, run_id, contender).fetchall() if results else []
            verdicts, rated = pairs.pair_rows(conn, run_id), ratings.rating_rows(conn, run_id)
        return ratings.attach(pairs.attach(rows.run_from_rows(*head, found), verdicts), rated)

    def _head_rows(self, conn: sqlite3.Connection, run_id: str, cases: bool) -> tuple[tuple, list[tuple], list[tuple]]:
        """:func:`rows.head_rows`, for a run that is stored.

        Raises:
            StoreError: the run is unknown.
        """
        head = rows.head_rows(conn, run_id, cases)
        if head is None:
            raise self._unknown(run_id)
        return head

    def load_run_in_parts(self, run_id: str, size: int = 10_000) -> tuple[records.Run, Iterator[list[records.Result]]]:
        """A run without its results, and its results in parts of ``size``, in :meth:`load_run`'s order.

        For writing a big run's file: a part of records at a time is in memory, never the whole run. Both come
        from one snapshot of the store, read on a connection of their own (a run written meanwhile does
        not show, and other users of this store do not wait); the iterator closes it when it ends or
        is closed.

        Raises:
            StoreError: the run is unknown.
        """
        if str(self.path) == ":memory:":  # no second connection sees this database: read it at once
            run = self.load_run(run_id)
            return dataclasses.replace(run, results=[]), iter([run.results] if run.results else [])
        conn = connect(self.location, self._timeout)
        try:
            conn.execute("BEGIN DEFERRED")
            head = rows.run_from_rows(*self._head_rows(conn, run_id, cases=True), [])
            cursor = rows.result_cursor(conn, run_id, streamed=True)
        except BaseException:
            conn.close()
            raise
        return head, rows.result_parts(conn, cursor, size)

    def load_cases(self, run_id: str) -> list[records.Case]:
        """A run's cases, in the run's order (none for an unknown run)."""
        with self.transaction("DEFERRED") as conn:
            found = rows.case_rows(conn, run_id)
        return [rows.case_from_row(row) for row in found]

    def error_messages(self, run_id: str) -> dict[tuple[str, str, str, int], str | None]:
        """The message of every result of a run that has an error, by ``(contender, dataset, case, sample)``."""
        with self.transaction("DEFERRED") as conn:
            found = conn.execute(
                'SELECT contender, dataset, "case", sample, error_message FROM results '
                "WHERE run_id = ? AND error_kind IS NOT NULL",
                (run_id,),
            ).fetchall()
        return {(c, d, k, n): message for c, d, k, n, message in found}

    def failed_calls(self, run_id: str) -> list[tuple[str, str, str]]:
        """``(contender, error kind, message)`` of every result whose call failed (status ``error``), in the
        run's order (contender, case, sample)."""
        with self.transaction("DEFERRED") as conn:
            return conn.execute(
                "SELECT contender, error_kind, error_message FROM results WHERE run_id = ? AND status = 'error' "
                "ORDER BY contender_pos, case_pos, sample",
                (run_id,),
            ).fetchall()

    def load_results_frame(self, run_id: str) -> pd.DataFrame:
        """A run's results as a DataFrame, the same as :func:`evalcore.storage.frames.results_frame` gives.

        Read in bulk from the results' packed numbers (see :mod:`evalcore.storage.packed`): no Python
        object per value.

        Raises:
            StoreError: the run is unknown.
        """
        return self.load_results_frame_and_changes(run_id)[0]

    def load_results_frame_and_changes(self, run_id: str) -> tuple[pd.DataFrame, int]:
        """:meth:`load_results_frame`, with the run's count of changes the frame reflects (see :meth:`save_summary`).

        Raises:
            StoreError: the run is unknown.
        """
        with self.transaction("DEFERRED") as conn:  # one snapshot: the count is the frame's
            row = conn.execute("SELECT metrics FROM runs WHERE id = ?", (run_id,)).fetchone()
            if row is None:
                raise self._unknown(run_id)
            metrics = [m["name"] for m in json.loads(row[0])]
            parts = packed.read_frame_parts(conn, run_id, metrics)
        from evalcore.storage.frames import assemble  # pandas, loaded only when a frame is built

        # Assembled outside the transaction: other threads need not wait for pandas.
        return assemble(parts, metrics), parts.changes

    # --- summaries -------------------------------------------------------------------------------

    def save_summary(self, run_id: str, kind: str, changes: int, data: bytes, *, wait: float | None = None) -> bool:
        """Keep something computed from a run's results, valid while the results stay as they were.

        Args:
            run_id: the run.
            kind: what ``data`` is, with its format's version (one summary per run and kind).
            changes: the run's count of changes when the results were read
                (:meth:`load_results_frame_and_changes`).
            data: the summary.
            wait: seconds to wait for another writer (default: the store's timeout); a page passes a
                fraction of a second rather than keep its reader waiting for a summary.

        Returns:
            True when saved; False when the results have changed since, the run is gone, or the store
            stayed busy for ``wait`` seconds.
        """
        with self._lock:
            if wait is not None:
                self.conn.execute(f"PRAGMA busy_timeout = {int(wait * 1000)}")
            try:
                with self.transaction() as conn:
                    if not self._exists(run_id) or packed.changes(conn, run_id) != changes:
                        return False
                    conn.execute("INSERT OR REPLACE INTO summaries VALUES (?, ?, ?, ?)", (run_id, kind, changes, data))
                    return True
            except StoreError:  # busy
                return False
            finally:
                if wait is not None:
                    self.conn.execute(f"PRAGMA busy_timeout = {int(self._timeout * 1000)}")

    def load_summary(self, run_id: str, kind: str) -> bytes | None:
        """A summary saved by :meth:`save_summary`, when the run's results are still the ones it was computed from."""
        with self.transaction("DEFERRED") as conn:
            row = conn.execute(
                "SELECT changes, data FROM summaries WHERE run_id = ? AND kind = ?", (run_id, kind)
            ).fetchone()
            return row[1] if row is not None and row[0] == packed.changes(conn, run_id) else None
