"""The SQLite store: run history, every result, and a fast path to a results DataFrame.

One :class:`Store` per database file, built on sqlite-utils with the schema in numbered
migrations (:func:`migrations`). The connection runs in WAL mode with foreign keys on and a busy
timeout, and is shared by threads (``check_same_thread=False``, every use under one lock). Writes take
``BEGIN IMMEDIATE`` so concurrent writers queue instead of failing with "database is locked";
results go in one transaction per batch with ``executemany``, never a commit per result.

Tables (deleting a run cascades to the rest)::

    runs        id, suite, created_at, finished_at, status, weights, settings, provenance, metrics, refused
    contenders  (run_id, id), model, settings, position
    cases       (run_id, dataset, id), variant, input, expected, metadata, position
    results     UNIQUE (run_id, contender, dataset, case, sample), status, score, metrics, …

JSON columns hold canonical JSON text; ``position`` keeps the run's order of contenders and cases.

sqlite-utils imports pandas and numpy as soon as it is imported, when they are installed. So the
store imports it only to apply pending migrations (and for :attr:`Store.db`); once the schema is
current, opening a store and everything but :meth:`Store.load_results_frame` stay pandas-free.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalcore import frames, records
from evalcore.errors import StoreError

if TYPE_CHECKING:
    import pandas as pd
    import sqlite_utils

logger = logging.getLogger(__name__)

DEFAULT_DB = Path("data") / "evalcore.db"
BUSY_TIMEOUT_S = 30.0
MMAP_BYTES = 1 << 30
RUN_STATUSES = ("running", "completed", "interrupted", "failed")
_METRIC_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_ENCODE = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode

MIGRATION_SET = "evalcore"
#: The migrations in order; :func:`migrations` registers one function per name.
MIGRATION_NAMES = ("0001_initial", "0002_position_indexes")


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

    return steps


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

_RESULT_FIELDS = (
    "run_id", "contender", "dataset", '"case"', "sample", "status", "score", "error_kind", "cost_usd",
    "latency_s", "input_tokens", "output_tokens", "attempts", "started_at", "metrics", "error_message",
    "diagnostics", "output", "raw",
)  # fmt: skip
_RESULT_COLUMNS = ", ".join(_RESULT_FIELDS)
_INSERT_RESULT = f"INSERT OR REPLACE INTO results ({_RESULT_COLUMNS}) VALUES ({', '.join('?' * len(_RESULT_FIELDS))})"

_HAS_CONTENDER = "SELECT 1 FROM contenders WHERE run_id = ? AND id = ?"
_HAS_CASE = "SELECT 1 FROM cases WHERE run_id = ? AND dataset = ? AND id = ?"

_LIST_RUNS = """
SELECT r.id, r.suite, r.created_at, r.finished_at, r.status,
       COALESCE(ct.n, 0) AS contenders, COALESCE(cs.n, 0) AS cases,
       COALESCE(rs.n, 0) AS results, COALESCE(rs.errors, 0) AS errors, rs.cost_usd
FROM runs r
LEFT JOIN (SELECT run_id, COUNT(*) AS n FROM contenders GROUP BY run_id) ct ON ct.run_id = r.id
LEFT JOIN (SELECT run_id, COUNT(*) AS n FROM cases GROUP BY run_id) cs ON cs.run_id = r.id
LEFT JOIN (SELECT run_id, COUNT(*) AS n, SUM(status = 'error') AS errors, SUM(cost_usd) AS cost_usd
           FROM results GROUP BY run_id) rs ON rs.run_id = r.id
ORDER BY r.created_at DESC, r.id
"""

_ORDERED_RESULTS = f"""
SELECT {", ".join("r." + f for f in _RESULT_FIELDS)} FROM results r
JOIN contenders ct ON ct.run_id = r.run_id AND ct.id = r.contender
JOIN cases c ON c.run_id = r.run_id AND c.dataset = r.dataset AND c.id = r."case"
WHERE r.run_id = ? ORDER BY ct.position, c.position, r.sample
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
            run: the run, e.g. from :func:`evalcore.runfile.read_run_file`.
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
            conn.executemany(
                "INSERT INTO cases VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(run_id, *_case_row(c), i) for i, c in enumerate(run.cases)],
            )
        except (sqlite3.IntegrityError, ValueError, TypeError, OverflowError) as e:
            # e.g. two contenders with one id, two cases with one (dataset, id), NaN in settings
            raise StoreError(f"run {run_id!r} cannot be stored: {e}") from e
        self._insert_results(conn, run_id, run.results)

    def add_results(self, run_id: str, results: Sequence[records.Result]) -> None:
        """Store a batch of results in one transaction; a result with the same key is replaced.

        Raises:
            StoreError: the run is unknown, or a result names a contender or case it does not hold.
        """
        if not results:
            return
        with self._transaction() as conn:
            self._require(run_id)
            self._insert_results(conn, run_id, results)
        logger.debug("stored %d results for run %s", len(results), run_id)

    def _insert_results(self, conn: sqlite3.Connection, run_id: str, results: Sequence[records.Result]) -> None:
        self._check_references(conn, run_id, results)
        try:
            conn.executemany(_INSERT_RESULT, (_result_row(run_id, r) for r in results))
        except (ValueError, TypeError, OverflowError) as e:
            raise StoreError(f"run {run_id!r}: a result cannot be stored: {e}") from e

    def _check_references(self, conn: sqlite3.Connection, run_id: str, results: Sequence[records.Result]) -> None:
        # Only the batch's own keys are looked up (point queries: ids may hold any character),
        # so the check costs the same in a run of any size.
        for contender in dict.fromkeys(r.contender for r in results):
            if conn.execute(_HAS_CONTENDER, (run_id, contender)).fetchone() is None:
                culprit = next(r for r in results if r.contender == contender)
                raise StoreError(f"run {run_id!r}: result {culprit.key!r} names an unknown contender {contender!r}")
        for key in dict.fromkeys((r.dataset, r.case) for r in results):
            if conn.execute(_HAS_CASE, (run_id, *key)).fetchone() is None:
                culprit = next(r for r in results if (r.dataset, r.case) == key)
                raise StoreError(f"run {run_id!r}: result {culprit.key!r} names an unknown case {key!r}")

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
            raise StoreError(f"no run {run_id!r} in {self.path}: `evalcore runs` lists the stored runs")

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

    def load_run(self, run_id: str) -> records.Run:
        """Everything stored about a run (for export); results in contender, case, sample order.

        Raises:
            StoreError: the run is unknown.
        """
        with self._transaction("DEFERRED") as conn:
            self._require(run_id)
            row = conn.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
            contenders = conn.execute(
                "SELECT id, model, settings FROM contenders WHERE run_id = ? ORDER BY position", (run_id,)
            ).fetchall()
            cases = conn.execute(
                "SELECT dataset, id, variant, input, expected, metadata FROM cases WHERE run_id = ? ORDER BY position",
                (run_id,),
            ).fetchall()
            results = conn.execute(_ORDERED_RESULTS, (run_id,)).fetchall()
        return _run_from_rows(row, contenders, cases, results)

    def load_results_frame(self, run_id: str) -> pd.DataFrame:
        """A run's results as a DataFrame, the same as :func:`evalcore.frames.results_frame` gives.

        Metric values come out of SQLite with ``json_extract``; contenders and cases travel as
        integer positions and become categoricals; rows stream from the cursor into one NumPy
        array, so a million results take seconds and no list of a million tuples.

        Raises:
            StoreError: the run is unknown.
        """
        with self._transaction("DEFERRED") as conn:
            self._require(run_id)
            metrics = [m["name"] for m in json.loads(_one(conn, "SELECT metrics FROM runs WHERE id = ?", run_id))]
            contenders = [
                r[0] for r in conn.execute("SELECT id FROM contenders WHERE run_id = ? ORDER BY position", (run_id,))
            ]
            cases = [
                (dataset, case_id, variant, json.loads(metadata))
                for dataset, case_id, variant, metadata in conn.execute(
                    "SELECT dataset, id, variant, metadata FROM cases WHERE run_id = ? ORDER BY position", (run_id,)
                )
            ]
            count, rows = _frame_rows(conn, run_id, metrics)
            return frames.build_frame(rows, contenders, cases, metrics, count=count)


def _frame_rows(conn: sqlite3.Connection, run_id: str, metrics: list[str]) -> tuple[int, Iterable[tuple]]:
    """How many results a run has, and a cursor over :func:`evalcore.frames.build_frame`'s rows."""
    sql = "SELECT count(*), min(rowid), max(rowid) FROM results WHERE run_id = ?"
    count, lo, hi = conn.execute(sql, (run_id,)).fetchone()
    if not count:
        return 0, []
    return count, conn.execute(_frame_query(metrics), (*(f"$.{m}" for m in metrics), lo, hi, run_id))


def _frame_query(metrics: list[str]) -> str:
    # A run's results sit in one rowid range (written while it ran): scanning that range in table
    # order beats a rowid lookup per entry of the unique index; the run_id test drops strangers.
    kinds = " ".join(f"WHEN '{k}' THEN {i}" for k, i in frames.ERROR_KIND_CODES.items())
    extracts = "".join("json_extract(r.metrics, ?), " for _ in metrics)
    return f"""
    SELECT ct.position, c.position, r.sample, r.status = 'error', CASE r.error_kind {kinds} ELSE -1 END,
           r.score, {extracts}r.cost_usd, r.latency_s, r.input_tokens, r.output_tokens
    FROM results r NOT INDEXED
    JOIN contenders ct ON ct.run_id = r.run_id AND ct.id = r.contender
    JOIN cases c ON c.run_id = r.run_id AND c.dataset = r.dataset AND c.id = r."case"
    WHERE r.rowid BETWEEN ? AND ? AND r.run_id = ?"""


def _one(conn: sqlite3.Connection, sql: str, *params: Any) -> Any:
    return conn.execute(sql, params).fetchone()[0]


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
    return None if text is None else json.loads(text)


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
    return (c.dataset, c.id, c.variant, _json(c.input), _json_or_null(c.expected), _json(c.metadata))


def _result_row(run_id: str, r: records.Result) -> tuple:
    u, e = r.usage, r.error
    return (
        run_id, r.contender, r.dataset, r.case, r.sample, r.status, r.score, e.kind if e else None,
        u.cost_usd, r.latency_s, u.input_tokens, u.output_tokens, r.attempts, r.started_at,
        _ENCODE(r.metrics), e.message if e else None, _ENCODE(r.diagnostics) if r.diagnostics else "{}",
        None if r.output is None else _ENCODE(r.output), r.raw,
    )  # fmt: skip


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
        cases=[records.Case(d, cid, v, json.loads(i), _loads(e), json.loads(m)) for d, cid, v, i, e, m in cases],
        results=[_result_from_row(r) for r in results],
        refused=[records.Refusal(**x) for x in json.loads(refused)],
    )


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
        metrics=json.loads(metrics),
        output=_loads(output),
        raw=raw,
        error=records.ErrorInfo(kind, message) if kind is not None else None,
        diagnostics=json.loads(diagnostics),
        usage=records.Usage(tokens_in, tokens_out, cost),
        latency_s=latency,
        attempts=attempts,
        started_at=started_at,
    )
