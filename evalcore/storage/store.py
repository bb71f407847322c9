"""The SQLite store: run history, every result, and a fast path to a results DataFrame.

One :class:`Store` per database file, built on sqlite-utils with the schema in numbered
migrations (:func:`migrations`). The connection runs in WAL mode with foreign keys on and a busy
timeout, and is shared by threads (``check_same_thread=False``, every use under one lock). Writes take
``BEGIN IMMEDIATE`` so concurrent writers queue instead of failing with "database is locked";
results go in one transaction per batch (INSERTs of many rows each), never a commit per result.

Tables (deleting a run cascades to the rest)::

    runs        id, suite, created_at, finished_at, status, weights, settings, provenance, metrics, refused
    run_totals  run_id, results, errors, costs, cost_usd, changes (kept by triggers on results)
    summaries   (run_id, kind), changes, data
    contenders  (run_id, id), model, settings, position
    cases       (run_id, dataset, id), variant, input, expected, metadata, position
    results     UNIQUE (run_id, contender, dataset, case, sample), contender_pos, case_pos, status,
                score, …, numbers, metrics, …, output, raw

JSON columns hold canonical JSON text; ``position`` keeps the run's order of contenders and cases,
and each result repeats its contender's and case's (``contender_pos``, ``case_pos``). ``numbers``
packs a result's row of the results frame (:func:`evalcore.storage.frames.row_dtype`): a copy of the
columns beside it, written with them, read in bulk by :meth:`Store.load_results_frame`.

sqlite-utils imports pandas and numpy as soon as it is imported, when they are installed. So the
store imports it only to apply pending migrations (and for :attr:`Store.db`); once the schema is
current, opening a store and everything but :meth:`Store.load_results_frame` stay pandas-free.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import re
import sqlite3
import struct
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import cache
from itertools import chain
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalcore._util import jsonfast
from evalcore._util.gcpause import gc_paused
from evalcore.core import records
from evalcore.core.errors import StoreError
from evalcore.storage import frames

if TYPE_CHECKING:
    import pandas as pd
    import sqlite_utils

logger = logging.getLogger(__name__)

DEFAULT_DB = Path("data") / "evalcore.db"
BUSY_TIMEOUT_S = 30.0
MMAP_BYTES = 1 << 30
RUN_STATUSES = ("running", "completed", "interrupted", "failed")
_METRIC_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))


class _FastEncoder(threading.local):
    """This thread's C encoder with :data:`_ENCODER`'s settings, built once.

    ``JSONEncoder.encode`` builds a new C encoder (and a Python closure) on every call, a third of
    its cost for a result's small objects. One per thread: the encoder keeps its circular-reference
    markers in a dict of its own while it works.
    """

    def __init__(self) -> None:
        self.markers: dict[int, Any] = {}
        self.encode = c_make_encoder(self.markers, _ENCODER.default, encode_basestring, None,
                                     _ENCODER.key_separator, _ENCODER.item_separator, _ENCODER.sort_keys,
                                     _ENCODER.skipkeys, _ENCODER.allow_nan) if c_make_encoder else None


_FAST = _FastEncoder()


def _ENCODE(value: Any) -> str:  # noqa: N802 - the name it had as a bound method
    """``_ENCODER.encode(value)``: the same text and the same errors, faster."""
    if isinstance(value, str):
        return encode_basestring(value)
    fast = _FAST
    if fast.encode is None:
        return _ENCODER.encode(value)
    try:
        return "".join(fast.encode(value, 0))
    except BaseException:
        fast.markers.clear()  # a failed encode leaves its open containers marked
        raise

MIGRATION_SET = "evalcore"
#: The migrations in order; :func:`migrations` registers one function per name.
MIGRATION_NAMES = ("0001_initial", "0002_position_indexes", "0003_result_numbers", "0004_summaries")


@cache
def migrations() -> sqlite_utils.Migrations:
    """The store's schema as numbered sqlite-utils migrations (imports sqlite-utils, hence pandas)."""
    import sqlite_utils

    steps = sqlite_utils.Migrations(MIGRATION_SET)

    @steps(name="0001_initial")
    def _m0001_initial(db: sqlite_utils.Database) -> None:
        for statement in _SCHEMA_V1:
            db.execute(statement)

    @steps(name="0002_position_indexes")
    def _m0002_position_indexes(db: sqlite_utils.Database) -> None:
        # Covering indexes: the frame query turns each result's names into positions without
        # a second lookup into the contenders and cases tables.
        db.execute("CREATE INDEX contenders_position ON contenders (run_id, id, position)")
        db.execute("CREATE INDEX cases_position ON cases (run_id, dataset, id, position)")

    @steps(name="0003_result_numbers")
    def _m0003_result_numbers(db: sqlite_utils.Database) -> None:
        # Each result carries its contender's and case's positions, and its numbers packed as one
        # blob (see _numbers): the frame is then read with no join and no Python object per value,
        # and the covering indexes of 0002 have nothing left to cover. SQLite adds columns only at
        # the end of a row, after the big text; a rebuild puts them up front. run_totals (kept by
        # triggers) lets list_runs skip scanning every result.
        db.execute(_SCHEMA_V3_RESULTS.replace("CREATE TABLE results", "CREATE TABLE results_v3"))
        moved = [f for f in _RESULT_FIELDS if f not in ("contender_pos", "case_pos", "numbers")]
        db.execute(f"""INSERT INTO results_v3 ({", ".join(moved)}, contender_pos, case_pos, numbers)
            SELECT {", ".join("r." + f for f in moved)}, ct.position, c.position, x''
            FROM results r JOIN contenders ct ON ct.run_id = r.run_id AND ct.id = r.contender
            JOIN cases c ON c.run_id = r.run_id AND c.dataset = r.dataset AND c.id = r."case" """)
        db.execute("DROP TABLE results")
        db.execute("ALTER TABLE results_v3 RENAME TO results")
        db.execute("DROP INDEX contenders_position")
        db.execute("DROP INDEX cases_position")
        for statement in _RUN_TOTALS:
            db.execute(statement)
        for run_id, metrics in db.execute("SELECT id, metrics FROM runs").fetchall():
            _backfill_numbers(db.conn, run_id, [m["name"] for m in json.loads(metrics)])

    @steps(name="0004_summaries")
    def _m0004_summaries(db: sqlite_utils.Database) -> None:
        # run_totals.changes counts every insert and delete of a run's results (a REPLACE is both), so
        # a summary computed from the results as they were at one count is valid while it holds.
        db.execute("ALTER TABLE run_totals ADD COLUMN changes INTEGER NOT NULL DEFAULT 0")
        db.execute("DROP TRIGGER results_totals_insert")
        db.execute("DROP TRIGGER results_totals_delete")
        for statement in _SUMMARIES:
            db.execute(statement)

    return steps


def _backfill_numbers(conn: sqlite3.Connection, run_id: str, metrics: list[str]) -> None:
    """Pack the numbers of a run's results stored before migration 0003."""
    pack = _numbers_struct(len(metrics)).pack
    rows = conn.execute(
        "SELECT rowid, contender_pos, case_pos, sample, status, error_kind, score, metrics, cost_usd, latency_s, "
        "input_tokens, output_tokens FROM results WHERE run_id = ?", (run_id,)).fetchall()
    updates = []
    for rowid, contender, case, sample, status, kind, score, values, cost, latency, tokens_in, tokens_out in rows:
        usage = records.Usage(tokens_in, tokens_out, cost)
        result = records.Result("", "", "", sample, status, score, json.loads(values), latency_s=latency, usage=usage,
                                error=records.ErrorInfo(kind, "") if kind is not None else None)
        updates.append((_numbers(pack, contender, case, result, metrics), rowid))
    conn.executemany("UPDATE results SET numbers = ? WHERE rowid = ?", updates)


# In results, keys and numbers come first and the big text (output, raw) last: the frame query
# then reads each row's head without touching its overflow pages.
_SCHEMA_V1 = (
    """CREATE TABLE runs (
        id TEXT PRIMARY KEY, suite TEXT NOT NULL, created_at TEXT NOT NULL, finished_at TEXT,
        status TEXT NOT NULL, weights TEXT NOT NULL, settings TEXT NOT NULL, provenance TEXT NOT NULL,
        metrics TEXT NOT NULL, refused TEXT NOT NULL)""",
    "CREATE INDEX runs_created_at ON runs (created_at)",
    """CREATE TABLE contenders (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, id TEXT NOT NULL,
        model TEXT NOT NULL, settings TEXT NOT NULL, position INTEGER NOT NULL,
        PRIMARY KEY (run_id, id))""",
    """CREATE TABLE cases (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, dataset TEXT NOT NULL,
        id TEXT NOT NULL, variant TEXT NOT NULL, input TEXT NOT NULL, expected TEXT,
        metadata TEXT NOT NULL, position INTEGER NOT NULL,
        PRIMARY KEY (run_id, dataset, id))""",
    """CREATE TABLE results (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, contender TEXT NOT NULL,
        dataset TEXT NOT NULL, "case" TEXT NOT NULL, sample INTEGER NOT NULL, status TEXT NOT NULL,
        score REAL, error_kind TEXT, cost_usd REAL, latency_s REAL, input_tokens INTEGER,
        output_tokens INTEGER, attempts INTEGER NOT NULL, started_at TEXT, metrics TEXT NOT NULL,
        error_message TEXT, diagnostics TEXT NOT NULL, output TEXT, raw TEXT,
        UNIQUE (run_id, contender, dataset, "case", sample))""",
)

#: results since migration 0003: positions after the key, ``numbers`` (see :func:`_numbers`) before the text.
_SCHEMA_V3_RESULTS = """CREATE TABLE results (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, contender TEXT NOT NULL,
    dataset TEXT NOT NULL, "case" TEXT NOT NULL, sample INTEGER NOT NULL, contender_pos INTEGER NOT NULL,
    case_pos INTEGER NOT NULL, status TEXT NOT NULL, score REAL, error_kind TEXT, cost_usd REAL, latency_s REAL,
    input_tokens INTEGER, output_tokens INTEGER, attempts INTEGER NOT NULL, started_at TEXT,
    numbers BLOB NOT NULL, metrics TEXT NOT NULL, error_message TEXT, diagnostics TEXT NOT NULL, output TEXT,
    raw TEXT, UNIQUE (run_id, contender, dataset, "case", sample))"""

_RESULT_FIELDS = (
    "run_id", "contender", "dataset", '"case"', "sample", "contender_pos", "case_pos", "status", "score",
    "error_kind", "cost_usd", "latency_s", "input_tokens", "output_tokens", "attempts", "started_at", "numbers",
    "metrics", "error_message", "diagnostics", "output", "raw",
)  # fmt: skip
#: Followed by rows of ``len(_RESULT_FIELDS)`` values (see :func:`_insert_rows`).
_INSERT_RESULTS_HEAD = f"INSERT OR REPLACE INTO results ({', '.join(_RESULT_FIELDS)}) VALUES"
#: What a run's results load back as (the record's fields, in :func:`_result_from_row`'s order).
_RECORD_FIELDS = tuple(f for f in _RESULT_FIELDS if f not in ("contender_pos", "case_pos", "numbers"))
#: What storing a batch needs, in one statement (one row: a statement per lookup, or a row per key, is a
#: hand-over of the GIL each, see _insert_rows): the run's metrics, its contenders' positions as a JSON array
#: of [id, position], and the positions of the batch's case keys (a JSON array of [dataset, id] pairs) as
#: one of [dataset, id, position]. No row: no such run. CROSS JOIN keeps the keys outside: one primary-key
#: lookup per key, never a scan of the run's cases per key.
_BATCH_LOOKUP = """SELECT r.metrics,
    (SELECT json_group_array(json_array(ct.id, ct.position)) FROM contenders ct WHERE ct.run_id = r.id),
    (SELECT json_group_array(json_array(c.dataset, c.id, c.position)) FROM json_each(?1) k CROSS JOIN cases c
     ON c.run_id = r.id AND c.dataset = json_extract(k.value, '$[0]') AND c.id = json_extract(k.value, '$[1]'))
FROM runs r WHERE r.id = ?2"""
_RUN_POSITIONS = """SELECT r.metrics,
    (SELECT json_group_array(json_array(ct.id, ct.position)) FROM contenders ct WHERE ct.run_id = r.id),
    (SELECT json_group_array(json_array(c.dataset, c.id, c.position)) FROM cases c WHERE c.run_id = r.id)
FROM runs r WHERE r.id = ?"""
#: Rowids per read of packed numbers: a bounded blob (about 8 MB) per query, whatever the run's size.
_FRAME_CHUNK = 1 << 16

_LIST_RUNS = """
SELECT r.id, r.suite, r.created_at, r.finished_at, r.status,
       COALESCE(ct.n, 0) AS contenders, COALESCE(cs.n, 0) AS cases,
       COALESCE(t.results, 0) AS results, COALESCE(t.errors, 0) AS errors,
       CASE WHEN t.costs > 0 THEN t.cost_usd END AS cost_usd
FROM runs r
LEFT JOIN (SELECT run_id, COUNT(*) AS n FROM contenders GROUP BY run_id) ct ON ct.run_id = r.id
LEFT JOIN (SELECT run_id, COUNT(*) AS n FROM cases GROUP BY run_id) cs ON cs.run_id = r.id
LEFT JOIN run_totals t ON t.run_id = r.id
ORDER BY r.created_at DESC, r.id
"""

#: Per-run totals of results, kept by triggers on every insert and delete (a REPLACE is both, with
#: ``recursive_triggers`` on), so listing the runs never scans the results.
_RUN_TOTALS = (
    """CREATE TABLE run_totals (
        run_id TEXT PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE, results INTEGER NOT NULL,
        errors INTEGER NOT NULL, costs INTEGER NOT NULL, cost_usd REAL NOT NULL)""",
    """INSERT INTO run_totals SELECT run_id, COUNT(*), SUM(status = 'error'), COUNT(cost_usd),
        COALESCE(SUM(cost_usd), 0) FROM results GROUP BY run_id""",
    """CREATE TRIGGER results_totals_insert AFTER INSERT ON results BEGIN
        INSERT INTO run_totals VALUES (NEW.run_id, 1, NEW.status = 'error', NEW.cost_usd IS NOT NULL,
            COALESCE(NEW.cost_usd, 0))
        ON CONFLICT (run_id) DO UPDATE SET results = results + 1, errors = errors + excluded.errors,
            costs = costs + excluded.costs, cost_usd = cost_usd + excluded.cost_usd;
    END""",
    """CREATE TRIGGER results_totals_delete AFTER DELETE ON results BEGIN
        UPDATE run_totals SET results = results - 1, errors = errors - (OLD.status = 'error'),
            costs = costs - (OLD.cost_usd IS NOT NULL), cost_usd = cost_usd - COALESCE(OLD.cost_usd, 0)
        WHERE run_id = OLD.run_id;
    END""",
)

#: Since migration 0004: run_totals counts its run's changes, and summaries keep what a page computes
#: from a run's results (a leaderboard's aggregates and bootstrap resamples), with the count it saw.
_SUMMARIES = (
    """CREATE TRIGGER results_totals_insert AFTER INSERT ON results BEGIN
        INSERT INTO run_totals VALUES (NEW.run_id, 1, NEW.status = 'error', NEW.cost_usd IS NOT NULL,
            COALESCE(NEW.cost_usd, 0), 1)
        ON CONFLICT (run_id) DO UPDATE SET results = results + 1, errors = errors + excluded.errors,
            costs = costs + excluded.costs, cost_usd = cost_usd + excluded.cost_usd, changes = changes + 1;
    END""",
    """CREATE TRIGGER results_totals_delete AFTER DELETE ON results BEGIN
        UPDATE run_totals SET results = results - 1, errors = errors - (OLD.status = 'error'),
            costs = costs - (OLD.cost_usd IS NOT NULL), cost_usd = cost_usd - COALESCE(OLD.cost_usd, 0),
            changes = changes + 1
        WHERE run_id = OLD.run_id;
    END""",
    """CREATE TABLE summaries (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, kind TEXT NOT NULL,
        changes INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (run_id, kind))""",
)

_ORDERED_RESULTS = f"""
SELECT {", ".join(_RECORD_FIELDS)} FROM results WHERE run_id = ? ORDER BY contender_pos, case_pos, sample
"""
_ORDERED_CASES = "SELECT dataset, id, variant, input, expected, metadata FROM cases WHERE run_id = ? ORDER BY position"
_CONTENDER_RESULTS = f"""
SELECT {", ".join(_RECORD_FIELDS)} FROM results WHERE run_id = ? AND contender = ? ORDER BY case_pos, sample
"""


def default_db_path() -> Path:
    """The store's path: ``$EVALCORE_DB``, else ``data/evalcore.db`` relative to the working directory."""
    return Path(os.environ.get("EVALCORE_DB") or DEFAULT_DB)


def utc_now() -> str:
    """The current time as an RFC 3339 UTC timestamp with milliseconds."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Store:
    """Runs and their results in one SQLite file.

    Args:
        path: the database file (created with its folder when missing); default :func:`default_db_path`.
        timeout: seconds to wait for another writer before giving up.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *, timeout: float = BUSY_TIMEOUT_S):
        self.path = Path(path) if path is not None else default_db_path()
        if str(self.path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: this class begins and commits every transaction itself.
        conn = sqlite3.connect(self.path, timeout=timeout, check_same_thread=False, isolation_level=None)
        self.conn = conn
        self._timeout = timeout
        self._lock = threading.RLock()
        self._db: sqlite_utils.Database | None = None
        try:
            self._configure(timeout)
            self._migrate()
        except sqlite3.DatabaseError as e:
            conn.close()
            raise StoreError(f"{self.path}: cannot open the store: {e}") from e

    @property
    def db(self) -> sqlite_utils.Database:
        """The sqlite-utils view of the connection (imported on first use)."""
        if self._db is None:
            import sqlite_utils

            self._db = sqlite_utils.Database(self.conn, execute_plugins=False)
        return self._db

    def _migrate(self) -> None:
        if self._applied() == list(MIGRATION_NAMES):
            return
        # IMMEDIATE: two processes opening a new file migrate one after the other.
        with self._transaction():
            if self._applied() != list(MIGRATION_NAMES):
                migrations().apply(self.db)
                logger.info("migrated %s to %s", self.path, MIGRATION_NAMES[-1])

    def _applied(self) -> list[str]:
        try:
            rows = self.conn.execute(
                "SELECT name FROM _sqlite_migrations WHERE migration_set = ? ORDER BY rowid", (MIGRATION_SET,)
            )
        except sqlite3.OperationalError:  # a new file: no migrations table yet
            return []
        return [row[0] for row in rows]

    def _configure(self, timeout: float) -> None:
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.execute("PRAGMA foreign_keys = ON")
        self.conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
        # With WAL, NORMAL never corrupts: a killed process loses nothing, a power cut the last batches.
        self.conn.execute("PRAGMA synchronous = NORMAL")
        self.conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")  # reads of big runs skip a syscall per page
        # A REPLACE of a result then fires the delete trigger too, and run_totals stays exact.
        self.conn.execute("PRAGMA recursive_triggers = ON")

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self, mode: str = "IMMEDIATE") -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                self.conn.execute(f"BEGIN {mode}")
            except sqlite3.OperationalError as e:
                raise StoreError(f"{self.path}: the store is busy or unreadable ({e}); try again") from e
            try:
                yield self.conn
                self.conn.execute("COMMIT")
            except BaseException:
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                raise

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
            run: the run, e.g. from :func:`evalcore.runfile.io.read_run_file`.
            replace: overwrite a run already stored under the same id.

        Raises:
            StoreError: the id is already stored (without ``replace``), or the run is inconsistent.
        """
        _check_metric_names(run)
        with self._transaction() as conn:
            if self._exists(run.info.id):
                if not replace:
                    raise StoreError(
                        f"run {run.info.id!r} is already in the store: delete it first or import with"
                        " replace (evalcore import --replace)"
                    )
                conn.execute("DELETE FROM runs WHERE id = ?", (run.info.id,))
            with gc_paused():  # a row of plain values per case and result: nothing for the collector
                self._insert_run(conn, run)
        logger.info("stored run %s (%d results)", run.info.id, len(run.results))

    def _insert_run(self, conn: sqlite3.Connection, run: records.Run) -> None:
        run_id = run.info.id
        try:
            conn.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", _run_row(run))
            conn.executemany(
                "INSERT INTO contenders VALUES (?, ?, ?, ?, ?)",
                [(run_id, c.id, c.model, _json(c.settings), i) for i, c in enumerate(run.contenders)],
            )
            _insert_rows(conn, "INSERT INTO cases VALUES", 8,
                         [(run_id, *_case_row(c), i) for i, c in enumerate(run.cases)])
        except (sqlite3.IntegrityError, ValueError, TypeError, OverflowError) as e:
            # e.g. two contenders with one id, two cases with one (dataset, id), NaN in settings
            raise StoreError(f"run {run_id!r} cannot be stored: {e}") from e
        if not run.results:  # a run about to start: no positions to look up
            return
        contenders = {c.id: i for i, c in enumerate(run.contenders)}
        cases = {c.key: i for i, c in enumerate(run.cases)}
        self._insert_results(conn, run_id, run.results, [m.name for m in run.metrics], contenders, cases)

    def add_results(self, run_id: str, results: Sequence[records.Result]) -> None:
        """Store a batch of results in one transaction; a result with the same key is replaced.

        Raises:
            StoreError: the run is unknown, or a result names a contender or case it does not hold.
        """
        if not results:
            return
        # Only the batch's own cases are looked up, so a batch costs the same in a run of any size.
        keys = _ENCODE(list(dict.fromkeys((r.dataset, r.case) for r in results)))
        with self._transaction() as conn:
            row = conn.execute(_BATCH_LOOKUP, (keys, run_id)).fetchone()
            if row is None:
                raise self._unknown(run_id)
            metrics = [m["name"] for m in json.loads(row[0])]
            contenders = {c: i for c, i in json.loads(row[1])}
            cases = {(d, c): i for d, c, i in json.loads(row[2])}
            self._insert_results(conn, run_id, results, metrics, contenders, cases)
        logger.debug("stored %d results for run %s", len(results), run_id)

    def result_rows(self, run_id: str) -> ResultRows:
        """What turns this run's results into rows for :meth:`add_rows` (its metrics and positions, read once).

        Raises:
            StoreError: the run is unknown.
        """
        with self._lock:
            row = self.conn.execute(_RUN_POSITIONS, (run_id,)).fetchone()
        if row is None:
            raise self._unknown(run_id)
        return ResultRows(run_id, [m["name"] for m in json.loads(row[0])], dict(json.loads(row[1])),
                          {(d, c): i for d, c, i in json.loads(row[2])})

    def add_rows(self, rows: Sequence[tuple]) -> None:
        """Store rows made by a :class:`ResultRows` (a result with the same key is replaced), atomically.

        This is :meth:`add_results` in two halves, for a runner: the rows are made in the thread that
        has the results, and this thread holds the GIL only to bind them (``FULL_BATCH`` rows are one
        statement, which SQLite inserts without the GIL while the event loop runs on).

        Raises:
            StoreError: the run is no longer in the store (deleted meanwhile), or the store stayed busy.
        """
        if not rows:
            return
        run_id, width = rows[0][0], len(_RESULT_FIELDS)
        try:
            if _chunk_sizes(self.conn, width, len(rows)) == [len(rows)]:  # one statement: its own transaction
                with self._lock:
                    _insert_rows(self.conn, _INSERT_RESULTS_HEAD, width, rows)
            else:
                with self._transaction() as conn:
                    _insert_rows(conn, _INSERT_RESULTS_HEAD, width, rows)
        except sqlite3.IntegrityError as e:  # the run's row is gone: FOREIGN KEY constraint failed
            raise StoreError(f"run {run_id!r}: its results cannot be stored ({e}); was it deleted?") from e
        except sqlite3.OperationalError as e:
            raise StoreError(f"{self.path}: the store is busy or unreadable ({e}); try again") from e

    def _metric_names(self, conn: sqlite3.Connection, run_id: str) -> list[str]:
        row = conn.execute("SELECT metrics FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise self._unknown(run_id)
        return [m["name"] for m in json.loads(row[0])]

    def _insert_results(self, conn: sqlite3.Connection, run_id: str, results: Sequence[records.Result],
                        metrics: list[str], contenders: dict[str, int], cases: dict[tuple[str, str], int]) -> None:
        """Insert results whose contenders and cases sit at these positions (a name not there is refused)."""
        _check_references(run_id, results, contenders, cases)
        row = ResultRows(run_id, metrics, contenders, cases)
        rows = [row(r) for r in results]
        try:
            _insert_rows(conn, _INSERT_RESULTS_HEAD, len(_RESULT_FIELDS), rows)
        except (ValueError, TypeError, OverflowError) as e:
            raise StoreError(f"run {run_id!r}: a result cannot be stored: {e}") from e

    def set_status(self, run_id: str, status: records.RunStatus, finished_at: str | None = None) -> None:
        """Set a run's status.

        ``finished_at`` is cleared for ``running`` and ``interrupted`` (the run file's rule) and
        defaults to now for ``completed`` and ``failed``.

        Raises:
            StoreError: the run is unknown or the status is not one of :data:`RUN_STATUSES`.
        """
        if status not in RUN_STATUSES:
            raise StoreError(f"status {status!r} is not one of {', '.join(RUN_STATUSES)}")
        if status in ("running", "interrupted"):
            finished_at = None
        elif finished_at is None:
            finished_at = utc_now()
        with self._transaction() as conn:
            self._require(run_id)
            conn.execute("UPDATE runs SET status = ?, finished_at = ? WHERE id = ?", (status, finished_at, run_id))

    def delete_run(self, run_id: str) -> None:
        """Delete a run with its contenders, cases and results.

        Raises:
            StoreError: the run is unknown.
        """
        with self._transaction() as conn:
            self._require(run_id)
            conn.execute("DELETE FROM runs WHERE id = ?", (run_id,))
        logger.info("deleted run %s", run_id)

    # --- reading ---------------------------------------------------------------------------------

    def run_exists(self, run_id: str) -> bool:
        """Whether a run with this id is stored."""
        with self._lock:
            return self._exists(run_id)

    def _exists(self, run_id: str) -> bool:
        return self.conn.execute("SELECT 1 FROM runs WHERE id = ?", (run_id,)).fetchone() is not None

    def _require(self, run_id: str) -> None:
        if not self._exists(run_id):
            raise self._unknown(run_id)

    def _unknown(self, run_id: str) -> StoreError:
        return StoreError(f"no run {run_id!r} in {self.path}: `evalcore runs` lists the stored runs")

    def list_runs(self) -> list[dict[str, Any]]:
        """Every run, newest first, with counts of contenders, cases, results and errors, and total cost.

        Returns:
            One dict per run: ``id, suite, created_at, finished_at, status, contenders, cases,
            results, errors, cost_usd`` (``cost_usd`` is None when no cost is known).
        """
        with self._lock:
            cursor = self.conn.execute(_LIST_RUNS)
            names = [d[0] for d in cursor.description]
            return [dict(zip(names, row, strict=True)) for row in cursor]

    def done_keys(self, run_id: str, include_errors: bool = True) -> set[tuple[str, str, str, int]]:
        """The (contender, dataset, case, sample) keys already stored, for resuming a run.

        Args:
            run_id: the run.
            include_errors: count failed calls as done; False to retry them on resume.
        """
        sql = 'SELECT contender, dataset, "case", sample FROM results WHERE run_id = ?'
        if not include_errors:
            sql += " AND status != 'error'"
        with self._transaction("DEFERRED") as conn:
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
        # Rows, then records: plain values that never form a cycle. With the collector on, its passes over
        # them were half the time of reading 100,000 results (2.3 s against 1.2 s), and more past that.
        with gc_paused():
            with self._transaction("DEFERRED") as conn:
                head = self._head_rows(conn, run_id, cases=results)
                if not results:
                    rows = []
                elif contender is None:
                    rows = conn.execute(_ORDERED_RESULTS, (run_id,)).fetchall()
                else:
                    rows = conn.execute(_CONTENDER_RESULTS, (run_id, contender)).fetchall()
            return _run_from_rows(*head, rows)

    def _head_rows(self, conn: sqlite3.Connection, run_id: str, cases: bool) -> tuple[tuple, list[tuple], list[tuple]]:
        """A run's row, its contenders' and (with ``cases``) its cases' rows, for :func:`_run_from_rows`.

        Raises:
            StoreError: the run is unknown.
        """
        row = conn.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise self._unknown(run_id)
        contenders = conn.execute(
            "SELECT id, model, settings FROM contenders WHERE run_id = ? ORDER BY position", (run_id,)
        ).fetchall()
        return row, contenders, conn.execute(_ORDERED_CASES, (run_id,)).fetchall() if cases else []

    def load_run_in_parts(self, run_id: str, size: int = 10_000) -> tuple[records.Run, Iterator[list[records.Result]]]:
        """A run without its results, and its results in parts of ``size``, in :meth:`load_run`'s order.

        For writing a big run's file: a part of records at a time is in memory, not a million. Both come
        from one snapshot of the store, read on a connection of their own (a run written meanwhile does
        not show, and other users of this store do not wait); the iterator closes it when it ends or
        is closed.

        Raises:
            StoreError: the run is unknown.
        """
        if str(self.path) == ":memory:":  # no second connection sees this database: read it at once
            run = self.load_run(run_id)
            return dataclasses.replace(run, results=[]), iter([run.results] if run.results else [])
        conn = sqlite3.connect(self.path, timeout=self._timeout, isolation_level=None)
        try:
            conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
            conn.execute("BEGIN DEFERRED")
            with gc_paused():
                head = _run_from_rows(*self._head_rows(conn, run_id, cases=True), [])
            cursor = conn.execute(_ORDERED_RESULTS, (run_id,))
        except BaseException:
            conn.close()
            raise
        return head, _parts(conn, cursor, size)

    def load_cases(self, run_id: str) -> list[records.Case]:
        """A run's cases, in the run's order (none for an unknown run)."""
        with self._transaction("DEFERRED") as conn:
            rows = conn.execute(_ORDERED_CASES, (run_id,)).fetchall()
        return [_case_from_row(row) for row in rows]

    def error_messages(self, run_id: str) -> dict[tuple[str, str, str, int], str | None]:
        """The message of every result of a run that has an error, by ``(contender, dataset, case, sample)``."""
        with self._transaction("DEFERRED") as conn:
            rows = conn.execute(
                'SELECT contender, dataset, "case", sample, error_message FROM results '
                "WHERE run_id = ? AND error_kind IS NOT NULL", (run_id,),
            ).fetchall()
        return {(c, d, k, n): message for c, d, k, n, message in rows}

    def failed_calls(self, run_id: str) -> list[tuple[str, str, str]]:
        """``(contender, error kind, message)`` of every result whose call failed (status ``error``), in the
        run's order (contender, case, sample)."""
        with self._transaction("DEFERRED") as conn:
            return conn.execute(
                "SELECT contender, error_kind, error_message FROM results WHERE run_id = ? AND status = 'error' "
                "ORDER BY contender_pos, case_pos, sample", (run_id,),
            ).fetchall()

    def load_results_frame(self, run_id: str) -> pd.DataFrame:
        """A run's results as a DataFrame, the same as :func:`evalcore.storage.frames.results_frame` gives.

        Every result's numbers are stored packed (the ``numbers`` column): SQLite concatenates a
        run's blobs and NumPy reads them as one structured array, so a million results take well
        under a second and no Python object per value; contenders and cases travel as integer
        positions and become categoricals.

        Raises:
            StoreError: the run is unknown.
        """
        return self.load_results_frame_and_changes(run_id)[0]

    def load_results_frame_and_changes(self, run_id: str) -> tuple[pd.DataFrame, int]:
        """:meth:`load_results_frame`, with the run's count of changes the frame reflects (see :meth:`save_summary`).

        Raises:
            StoreError: the run is unknown.
        """
        with self._transaction("DEFERRED") as conn:  # one snapshot: the count is the frame's
            metrics = self._metric_names(conn, run_id)
            contenders = [
                r[0] for r in conn.execute("SELECT id FROM contenders WHERE run_id = ? ORDER BY position", (run_id,))
            ]
            rows = conn.execute(
                "SELECT dataset, id, variant, metadata FROM cases WHERE run_id = ? ORDER BY position", (run_id,)
            ).fetchall()
            # One parse of every case's metadata as one array: 25,000 json.loads calls cost ten times more.
            metadata = json.loads(f"[{','.join(row[3] for row in rows)}]")
            cases = [(dataset, case_id, variant, meta) for (dataset, case_id, variant, _), meta in
                     zip(rows, metadata, strict=True)]
            chunks = _frame_chunks(conn, run_id, metrics)
            changes = _changes(conn, run_id)
        return frames.frame_from_chunks(chunks, contenders, cases, metrics), changes

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
                with self._transaction() as conn:
                    if not self._exists(run_id) or _changes(conn, run_id) != changes:
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
        with self._transaction("DEFERRED") as conn:
            row = conn.execute("SELECT changes, data FROM summaries WHERE run_id = ? AND kind = ?",
                               (run_id, kind)).fetchone()
            return row[1] if row is not None and row[0] == _changes(conn, run_id) else None


def _changes(conn: sqlite3.Connection, run_id: str) -> int:
    """How many times a run's results have been inserted or deleted (0 before the first)."""
    row = conn.execute("SELECT changes FROM run_totals WHERE run_id = ?", (run_id,)).fetchone()
    return row[0] if row else 0


def _frame_chunks(conn: sqlite3.Connection, run_id: str, metrics: list[str]) -> list[bytes]:
    """A run's packed numbers (rows of :func:`evalcore.storage.frames.row_dtype`) as a few buffers.

    SQLite concatenates the blobs itself (``group_concat`` over a rowid range, cast back to a
    blob): a million results come back as a few bytes objects instead of fifteen million Python
    numbers, and NumPy takes them apart without joining them first. A run's results sit in one
    rowid range (written while it ran); scanning that range in table order beats a rowid lookup per
    entry of the unique index, and the run_id test drops strangers. Each blob holds its own
    positions, so the order rows come back in does not matter.
    """
    size = frames.row_dtype(metrics).itemsize
    totals = conn.execute("SELECT results FROM run_totals WHERE run_id = ?", (run_id,)).fetchone()
    some = conn.execute("SELECT rowid FROM results WHERE run_id = ? LIMIT 1", (run_id,)).fetchone()
    if some is None:
        return []
    count = totals[0] if totals else -1
    chunks = _numbers_around(conn, run_id, some[0], count, size)
    if sum(map(len, chunks)) != count * size:  # run_totals out of step (a writer without our triggers): count
        count, lo, hi = conn.execute("SELECT count(*), min(rowid), max(rowid) FROM results WHERE run_id = ?",
                                     (run_id,)).fetchone()
        chunks = _numbers_between(conn, run_id, lo, hi)
    got = sum(map(len, chunks))
    if got != count * size or any(len(c) % size for c in chunks):
        raise StoreError(f"run {run_id!r}: packed numbers of {got} bytes for {count} results of "
                         f"{size} bytes each; the store is damaged (re-import the run from its file)")
    return [c for c in chunks if c]


_NUMBERS_BETWEEN = ("SELECT CAST(group_concat(numbers, '') AS BLOB) FROM results NOT INDEXED "
                    "WHERE rowid BETWEEN ? AND ? AND run_id = ?")


def _numbers_between(conn: sqlite3.Connection, run_id: str, lo: int, hi: int) -> list[bytes]:
    """The run's packed numbers with rowids in [lo, hi], a chunk of rowids per query."""
    return [conn.execute(_NUMBERS_BETWEEN, (start, min(start + _FRAME_CHUNK - 1, hi), run_id)).fetchone()[0] or b""
            for start in range(lo, hi + 1, _FRAME_CHUNK)]


def _numbers_around(conn: sqlite3.Connection, run_id: str, some: int, count: int, size: int) -> list[bytes]:
    """The run's packed numbers, read in chunks of rowids outwards from one of its rows until all ``count`` are in.

    Finding the run's first and last rowid (``min(rowid), max(rowid)``) walks every index entry of the
    run: 0.15 s at a million results. ``run_totals`` knows how many there are, so reading stops when
    they are all in, at most a chunk past either end; in rowid order, as a scan of the range gives them.
    """
    lo, hi = conn.execute("SELECT (SELECT min(rowid) FROM results), (SELECT max(rowid) FROM results)").fetchone()
    below: list[bytes] = []
    above: list[bytes] = []
    down, up, got = some - 1, some, 0
    while got < count and (up <= hi or down >= lo):
        for going_up in (True, False):
            if got >= count or not (up <= hi if going_up else down >= lo):
                continue
            start, end = (up, up + _FRAME_CHUNK - 1) if going_up else (max(down - _FRAME_CHUNK + 1, lo), down)
            part = conn.execute(_NUMBERS_BETWEEN, (start, end, run_id)).fetchone()[0] or b""
            (above if going_up else below).append(part)
            got += len(part) // size
            up, down = (end + 1, down) if going_up else (up, start - 1)
    return below[::-1] + above


def _check_metric_names(run: records.Run) -> None:
    # Metric names go into JSON paths of the frame query: only the spec's names are safe there.
    for m in run.metrics:
        if not _METRIC_NAME.match(m.name):
            raise StoreError(f"run {run.info.id!r}: metric name {m.name!r} does not match ^[a-z][a-z0-9_]*$")


# --- rows <-> records ----------------------------------------------------------------------------


def _json(value: Any) -> str:
    return _ENCODE(value)


def _json_or_null(value: Any) -> str | None:
    return None if value is None else _ENCODE(value)


def _loads(text: str | None) -> Any:
    """A stored JSON text's value (None for SQL NULL)."""
    return None if text is None else jsonfast.loads(text)


def _run_row(run: records.Run) -> tuple:
    i = run.info
    metrics = [
        {"name": m.name, "description": m.description, "higher_is_better": m.higher_is_better, "primary": m.primary}
        for m in run.metrics
    ]
    refused = [{"model": x.model, "settings": x.settings, "reason": x.reason} for x in run.refused]
    return (
        i.id, i.suite, i.created_at, i.finished_at, i.status, _json(i.weights), _json(i.settings),
        _json(i.provenance), _json(metrics), _json(refused),
    )  # fmt: skip


def _case_row(c: records.Case) -> tuple:
    expected = c.expected
    return (c.dataset, c.id, c.variant, _ENCODE(c.input), None if expected is None else _ENCODE(expected),
            _ENCODE(c.metadata))


def _check_references(run_id: str, results: Sequence[records.Result], contenders: dict[str, int],
                      cases: dict[tuple[str, str], int]) -> None:
    for r in results:
        if r.contender not in contenders:
            raise StoreError(f"run {run_id!r}: result {r.key!r} names an unknown contender {r.contender!r}")
    for r in results:
        if (r.dataset, r.case) not in cases:
            key = (r.dataset, r.case)
            raise StoreError(f"run {run_id!r}: result {r.key!r} names an unknown case {key!r}")


@dataclasses.dataclass(frozen=True)
class ResultRows:
    """Makes a stored run's results into rows for :meth:`Store.add_rows`; from :meth:`Store.result_rows`."""

    run_id: str
    metrics: list[str]
    contenders: dict[str, int]
    cases: dict[tuple[str, str], int]
    _pack: Any = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_pack", _numbers_struct(len(self.metrics)).pack)

    def __call__(self, r: records.Result) -> tuple:
        """The row of one result.

        Raises:
            StoreError: it names a contender or case the run does not hold, or a value cannot be stored.
        """
        contender, case = self.contenders.get(r.contender), self.cases.get((r.dataset, r.case))
        if contender is None or case is None:
            _check_references(self.run_id, [r], self.contenders, self.cases)
        try:
            return _result_row(self.run_id, r, contender, case, self._pack, self.metrics)
        except (ValueError, TypeError, OverflowError, struct.error) as e:
            why = _unstorable(r, self.metrics, e)
            raise StoreError(f"run {self.run_id!r}: a result cannot be stored: {why}") from e


def _unstorable(r: records.Result, metrics: list[str], e: Exception) -> str:
    """Why a result's row could not be made: its first metric value that is not a number (a custom scorer's),
    else ``e``."""
    for name in metrics:
        value = r.metrics.get(name)
        if value is not None and not hasattr(value, "__float__"):  # a number of any kind has one
            return (f"{r.contender} on {r.dataset}/{r.case} (sample {r.sample}): metric {name!r} is {value!r}; "
                    "a metric is a number or null")
    return str(e)


def _result_row(run_id: str, r: records.Result, contender: int, case: int, pack: Any, metrics: list[str]) -> tuple:
    u, e = r.usage, r.error
    return (
        run_id, r.contender, r.dataset, r.case, r.sample, contender, case, r.status, r.score,
        e.kind if e else None, u.cost_usd, r.latency_s, u.input_tokens, u.output_tokens, r.attempts, r.started_at,
        _numbers(pack, contender, case, r, metrics), _metrics_json(r.metrics, metrics), e.message if e else None,
        _ENCODE(r.diagnostics) if r.diagnostics else "{}", None if r.output is None else _ENCODE(r.output), r.raw,
    )  # fmt: skip


def _insert_rows(conn: sqlite3.Connection, head: str, width: int, rows: list[tuple]) -> None:
    """``executemany(f"{head} (?, …)", rows)`` with a few statements of many rows each.

    ``executemany`` steps SQLite once per row, releasing the GIL for each step and taking it back after;
    while the event loop runs on without waiting (an instant model), every take waits for its switch
    interval. One statement of many rows is one step: SQLite inserts them all without the GIL (and
    skips a bind-and-reset per row). Chunks of 512, 256, … 1 rows: a few statements ever compiled.
    """
    start = 0
    for size in _chunk_sizes(conn, width, len(rows)):
        conn.execute(_insert_sql(head, width, size), list(chain.from_iterable(rows[start:start + size])))
        start += size


def _chunk_sizes(conn: sqlite3.Connection, width: int, n: int) -> list[int]:
    """The rows per statement :func:`_insert_rows` inserts ``n`` rows of ``width`` values in."""
    # An SQLite built with a lower limit of variables (999 before 3.32) gets smaller statements.
    limit = conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) // width
    sizes, size = [], max(1, min(_MAX_ROWS_PER_INSERT, limit))
    while n:
        while size > n:
            size //= 2
        sizes.append(size)
        n -= size
    return sizes


#: Rows per INSERT at most: 512 rows of 22 values stay under SQLite's default limit of 32,766 variables.
_MAX_ROWS_PER_INSERT = 512
#: Rows that :meth:`Store.add_rows` stores in one statement (with SQLite's default limits).
FULL_BATCH = _MAX_ROWS_PER_INSERT


@cache
def _insert_sql(head: str, width: int, rows: int) -> str:
    """An INSERT of ``rows`` rows of ``width`` values."""
    one = f"({', '.join('?' * width)})"
    return f"{head} {', '.join([one] * rows)}"


def _metrics_json(values: dict[str, Any], names: list[str]) -> str:
    """``_ENCODE(values)``, by a template when the keys are the run's metrics in order and every value
    a finite float or None (every result of a built-in scorer): the same text, a third of the time."""
    if list(values) != names:
        return _ENCODE(values)
    texts = []
    for value in values.values():
        if value is None:
            texts.append("null")
        elif type(value) is float and value - value == 0.0:  # finite (inf - inf and nan - nan are nan)
            texts.append(_FLOAT_REPR(value))
        else:
            return _ENCODE(values)
    return _metrics_template(tuple(names)) % tuple(texts)


_FLOAT_REPR = float.__repr__  # what the JSON encoder writes for a float


@cache
def _metrics_template(names: tuple[str, ...]) -> str:
    """``{"name":%s,…}`` for these metric names, each name as the JSON encoder writes it."""
    return "{" + ",".join(f"{_ENCODE(n).replace('%', '%%')}:%s" for n in names) + "}"


@cache
def _numbers_struct(n_metrics: int) -> struct.Struct:
    """The layout of :func:`evalcore.storage.frames.row_dtype` for a run with ``n_metrics`` metrics."""
    return struct.Struct(f"<5q{n_metrics + 5}d")


def _numbers(pack: Any, contender: int, case: int, r: records.Result, metrics: list[str]) -> bytes:
    """A result's row of the results frame as bytes: positions, sample, error flags, then the numbers.

    A denormalised copy of columns stored beside it (the metric values are also in ``metrics``),
    written with them and never apart: the results frame of a million results reads it in one go.
    """
    u, e = r.usage, r.error
    values = r.metrics
    return pack(
        contender, case, r.sample, r.status == "error", frames.ERROR_KIND_CODES.get(e.kind, -1) if e else -1,
        _NAN if r.score is None else r.score, *[_NAN if (v := values.get(m)) is None else v for m in metrics],
        _NAN if u.cost_usd is None else u.cost_usd, _NAN if r.latency_s is None else r.latency_s,
        _NAN if u.input_tokens is None else u.input_tokens, _NAN if u.output_tokens is None else u.output_tokens,
    )  # fmt: skip


_NAN = float("nan")


def _parts(conn: sqlite3.Connection, cursor: sqlite3.Cursor, size: int) -> Iterator[list[records.Result]]:
    try:
        while rows := cursor.fetchmany(size):
            with gc_paused():
                part = [_result_from_row(r) for r in rows]
            yield part  # the collector back on while the caller works
    finally:
        conn.close()


def _run_from_rows(row: tuple, contenders: list[tuple], cases: list[tuple], results: list[tuple]) -> records.Run:
    run_id, suite, created_at, finished_at, status, weights, settings, provenance, metrics, refused = row
    info = records.RunInfo(
        run_id,
        suite,
        created_at,
        finished_at,
        status,
        json.loads(weights),
        json.loads(settings),
        json.loads(provenance),
    )
    return records.Run(
        info=info,
        metrics=[records.Metric(**m) for m in json.loads(metrics)],
        contenders=[records.Contender(cid, model, json.loads(s)) for cid, model, s in contenders],
        cases=[_case_from_row(c) for c in cases],
        results=[_result_from_row(r) for r in results],
        refused=[records.Refusal(**x) for x in json.loads(refused)],
    )


def _case_from_row(row: tuple) -> records.Case:
    dataset, case_id, variant, input_, expected, metadata = row
    return records.Case(dataset, case_id, variant, _loads(input_), _loads(expected), _loads(metadata))


def _result_from_row(row: tuple) -> records.Result:
    (_, contender, dataset, case, sample, status, score, kind, cost, latency, tokens_in, tokens_out,
     attempts, started_at, metrics, message, diagnostics, output, raw) = row  # fmt: skip
    return records.Result(
        contender=contender,
        dataset=dataset,
        case=case,
        sample=sample,
        status=status,
        score=score,
        metrics=jsonfast.loads(metrics),
        output=_loads(output),
        raw=raw,
        error=records.ErrorInfo(kind, message) if kind is not None else None,
        diagnostics=jsonfast.loads(diagnostics),
        usage=records.Usage(tokens_in, tokens_out, cost),
        latency_s=latency,
        attempts=attempts,
        started_at=started_at,
    )
