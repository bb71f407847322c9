"""PostgreSQL behind the same :class:`~evalcore.storage.store.Store`: everything that differs from SQLite, here.

The store's modules speak SQLite's SQL to a connection with :mod:`sqlite3`'s interface (``execute``,
``executemany``, cursors, ``in_transaction``, sqlite3's exceptions). :class:`PgConnection` gives them that
interface over a psycopg 3 connection, so the store's rules (what a run is, how results replace each other,
how totals are kept) are written once. What it changes on the way:

- **placeholders**: ``?`` and ``:name`` become psycopg's ``%s`` and ``%(name)s``;
- **upserts**: ``INSERT OR REPLACE`` becomes ``INSERT … ON CONFLICT (key) DO UPDATE`` (a batch that names one
  key twice keeps its last row, as SQLite's replace does);
- **transactions**: ``BEGIN IMMEDIATE`` (one writer at a time) is a transaction holding an advisory lock,
  ``BEGIN DEFERRED`` (one snapshot) a ``REPEATABLE READ`` one, and ``busy_timeout`` is ``lock_timeout``;
- **types and functions**: ``REAL``/``INTEGER``/``BLOB`` are ``DOUBLE PRECISION``/``BIGINT``/``BYTEA``; text
  compares bytewise (``COLLATE "C"``, SQLite's order); ``json_extract`` is a SQL function of the same name
  (text results), and the few queries whose JSON functions have no like-named PostgreSQL form are written in
  PostgreSQL's beside their SQLite form (:mod:`evalcore.storage.dialects`);
- **cursors**: a query read a part at a time (a big run's export) is a server-side cursor, since psycopg's
  default cursor holds every row of the result in memory (SQLite's reads rows as they are fetched);
- **rowid**: the tables read by ``rowid`` (runs, results) have an identity column of that name;
- **totals**: the triggers that keep ``run_totals`` are statement triggers over the changed rows;
- **errors**: psycopg's exceptions are raised as the sqlite3 exceptions of the same DB-API class, but a value
  PostgreSQL cannot hold (an integer past 64 bits) as the ValueError SQLite's driver raises for a value it
  cannot bind, which the store reports as a value that cannot be stored; and text with a NUL character, which
  SQLite keeps and PostgreSQL cannot, as a StoreError that says so.

The schema is the one the SQLite migrations build (:mod:`evalcore.storage.migrations`), recorded under the
same migration names: a new database gets the schema as of 0007 at once, and each later migration has its
PostgreSQL statements in :data:`MIGRATIONS` (opening a store refuses a migration that has none).
"""

from __future__ import annotations

import itertools
import logging
import re
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from typing import TYPE_CHECKING, Any

import psycopg
from psycopg import pq

from evalcore.core.errors import StoreError
from evalcore.storage import pairs, proposals, ratings, replies
from evalcore.storage.dialects import postgres_form
from evalcore.storage.migrations import (
    MIGRATION_NAMES,
    SCHEMA_BASELINES,
    SCHEMA_RUN_TOTALS,
    SCHEMA_SUMMARIES,
    SCHEMA_TRACE,
    SCHEMA_V1,
    SCHEMA_V3_RESULTS,
)
from evalcore.storage.urls import url_passwords

if TYPE_CHECKING:
    from evalcore.storage.location import Location

logger = logging.getLogger(__name__)

#: The advisory lock every writing transaction holds: writers queue, as SQLite's ``BEGIN IMMEDIATE`` makes them.
WRITE_LOCK = 0x65766C63  # "evlc"
#: Names of server-side cursors (:meth:`PgConnection.execute_streamed`), unique in a connection.
_CURSOR_NAMES = itertools.count(1)
#: PostgreSQL takes at most 65,535 parameters in one statement.
MAX_PARAMETERS = 65_535

#: Each table a store replaces rows of, with the columns of its unique key and all its columns.
_UPSERTS: dict[str, tuple[tuple[str, ...], tuple[str, ...] | None]] = {
    "results": (("run_id", "contender", "dataset", '"case"', "sample"), None),
    "pairwise": (("run_id", "dataset", '"case"', "sample", "a", "b"), None),
    "ratings": (("run_id", "dataset", '"case"', "sample", "a", "b", "rater"), None),
    "summaries": (("run_id", "kind"), ("run_id", "kind", "changes", "data")),
    "baselines": (("suite",), None),
    "reply_cache": (("request_key",), None),
}
_REPLACE = re.compile(r"^\s*INSERT OR REPLACE INTO (\w+)(?: \(([^)]*)\))? VALUES", re.IGNORECASE)


class PgConnection:
    """A psycopg 3 connection with the part of :class:`sqlite3.Connection`'s interface the store uses.

    Args:
        location: the database (``Location.url``).
        timeout: seconds to wait to connect, and for a lock another writer holds.

    Raises:
        StoreError: the server cannot be reached or refuses the connection (the message names it, never
            the password).
    """

    def __init__(self, location: Location, timeout: float):
        self.location, self._timeout = location, timeout
        self.__conn = self._connect()

    def _connect(self) -> psycopg.Connection[Any]:
        location = self.location
        try:
            conn = psycopg.connect(
                location.url or "",
                autocommit=True,
                connect_timeout=max(2, int(self._timeout)),
                application_name="evalcore",
            )
        except psycopg.Error as e:
            raise StoreError(
                f"{location}: cannot connect to PostgreSQL: {_connect_reason(e, location)}; check the host, port, "
                "user, password and database of the URL, and that the server is running"
            ) from None
        conn.execute(f"SET lock_timeout = {int(self._timeout * 1000)}")
        return conn

    @property
    def _conn(self) -> psycopg.Connection[Any]:
        """The connection; a new one in place of one that was lost (the server ended it, or restarted): nothing
        was sent on the lost one since it failed, so nothing is done twice. A server still away raises sqlite3's
        OperationalError, as a lost connection does."""
        if self.__conn.closed or self.__conn.broken:
            try:
                self.__conn = self._connect()
            except StoreError as e:
                raise sqlite3.OperationalError(str(e)) from None
            logger.info("%s: connected again", self.location)
        return self.__conn

    # --- sqlite3.Connection's interface -------------------------------------------------------------

    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> psycopg.Cursor[Any]:
        """Run one SQLite statement as its PostgreSQL form; the cursor holds its rows."""
        if sql.startswith("BEGIN"):
            return self._begin(sql)
        sql, params = _deduplicated(sql, params)
        with _as_sqlite_errors():  # a closed connection refuses a cursor: that too is sqlite3's error
            cursor = self._conn.cursor()
            cursor.execute(translate(sql), params)
        return cursor

    def execute_streamed(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> psycopg.ServerCursor[Any]:
        """Run a query whose rows come from the server as they are fetched, as a SQLite cursor's do (the default
        cursor takes every row at once): a server-side cursor, in the transaction that is open."""
        sql, params = _deduplicated(sql, params)
        with _as_sqlite_errors():
            cursor = self._conn.cursor(name=f"evalcore_{next(_CURSOR_NAMES)}")
            cursor.execute(translate(sql), params)
        return cursor

    def executemany(self, sql: str, seq: Sequence[Sequence[Any]]) -> psycopg.Cursor[Any]:
        """Run one statement once per parameter row, in order."""
        with _as_sqlite_errors():
            cursor = self._conn.cursor()
            cursor.executemany(translate(sql), seq)
        return cursor

    @property
    def in_transaction(self) -> bool:
        """Whether a transaction is open (also one a failed statement aborted); a lost connection holds none."""
        status = self.__conn.info.transaction_status
        return status not in (pq.TransactionStatus.IDLE, pq.TransactionStatus.UNKNOWN)

    def getlimit(self, category: int) -> int:
        """The most parameters a statement may have (the only limit the store asks for)."""
        return MAX_PARAMETERS

    def close(self) -> None:
        """Close the connection."""
        self.__conn.close()

    def __del__(self) -> None:
        # Dropped unclosed (a command that ends with its store open): closed quietly, as sqlite3 closes its own.
        conn = getattr(self, "_PgConnection__conn", None)
        if conn is not None:
            conn.close()

    # --- what differs ------------------------------------------------------------------------------

    def set_lock_timeout(self, seconds: float) -> None:
        """Wait at most ``seconds`` for a lock another connection holds (SQLite's ``busy_timeout``)."""
        self._conn.execute(f"SET lock_timeout = {int(seconds * 1000)}")

    def _begin(self, sql: str) -> psycopg.Cursor[Any]:
        """A transaction begun; on a connection the server ended while it sat idle (found only now), begun again
        on a new one: nothing was done in it yet, so nothing is done twice."""
        try:
            return self._begin_once(sql)
        except sqlite3.OperationalError:
            if not (self.__conn.closed or self.__conn.broken):
                raise
            return self._begin_once(sql)

    def _begin_once(self, sql: str) -> psycopg.Cursor[Any]:
        with _as_sqlite_errors():
            cursor = self._conn.cursor()
            cursor.execute(translate(sql) if sql != "BEGIN IMMEDIATE" else "BEGIN")
            if sql == "BEGIN IMMEDIATE":
                try:
                    cursor.execute(f"SELECT pg_advisory_xact_lock({WRITE_LOCK})")
                except psycopg.Error:
                    self._conn.execute("ROLLBACK")
                    raise
        return cursor

    def has_tables(self) -> bool:
        """Whether the database holds evalcore's tables (its migrations table): a server without them holds no store."""
        row = self._conn.execute("SELECT to_regclass('evalcore_migrations') IS NOT NULL").fetchone()
        return bool(row and row[0])

    def migrate(self) -> list[str]:
        """Create the schema on a new database, recorded under :data:`MIGRATION_NAMES`; the names applied now.

        Raises:
            StoreError: the database records a migration this evalcore does not know, or lacks one that has no
                PostgreSQL statements.
        """
        self.execute("BEGIN IMMEDIATE")
        try:
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS evalcore_migrations (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ "
                "NOT NULL DEFAULT now())"
            )
            applied = {row[0] for row in self._conn.execute("SELECT name FROM evalcore_migrations")}
            pending = [name for name in MIGRATION_NAMES if name not in applied]
            for name in pending:
                if name not in MIGRATIONS:
                    raise StoreError(f"{self.location}: migration {name} has no PostgreSQL statements in evalcore")
                for statement in MIGRATIONS[name]:
                    self._conn.execute(statement)
                self._conn.execute("INSERT INTO evalcore_migrations (name) VALUES (%s)", (name,))
            self._conn.execute("COMMIT")
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        if pending:
            logger.info("migrated %s to %s", self.location, MIGRATION_NAMES[-1])
        return pending


def connect(location: Location, timeout: float) -> sqlite3.Connection:
    """A :class:`PgConnection` to ``location``, typed as the sqlite3 connection whose interface it offers."""
    conn: Any = PgConnection(location, timeout)
    return conn  # type: ignore[no-any-return]


# --- SQL ------------------------------------------------------------------------------------------


@cache
def translate(sql: str) -> str:
    """A SQLite statement of the store in PostgreSQL's SQL, with psycopg's placeholders."""
    known = postgres_form(sql)
    if known is not None:
        return known
    if sql == "BEGIN DEFERRED":
        return "BEGIN ISOLATION LEVEL REPEATABLE READ"
    if sql.startswith("PRAGMA busy_timeout"):
        return "SET lock_timeout = " + sql.rsplit("=", 1)[1].strip()
    out = _placeholders(sql)
    out = out.replace("CAST(group_concat(numbers, '') AS BLOB)", "string_agg(numbers, ''::bytea)")
    out = out.replace(" NOT INDEXED", "").replace("instr(", "strpos(")
    replace = _REPLACE.match(out)
    if replace is not None:
        out = _upsert(out, replace)
    return out


def _placeholders(sql: str) -> str:
    """``?`` as ``%s`` and ``:name`` as ``%(name)s`` outside string literals; every ``%`` doubled."""
    parts = re.split(r"('(?:[^']|'')*')", sql)
    for i in range(0, len(parts), 2):  # the even parts are outside literals
        text = parts[i].replace("%", "%%").replace("?", "%s")
        parts[i] = re.sub(r"(?<![:\w]):([A-Za-z_]\w*)", r"%(\1)s", text)
    for i in range(1, len(parts), 2):
        parts[i] = parts[i].replace("%", "%%")
    return "".join(parts)


def _upsert(sql: str, head: re.Match[str]) -> str:
    table = head.group(1)
    keys, columns = _UPSERTS[table]
    named = tuple(c.strip() for c in head.group(2).split(",")) if head.group(2) else columns
    if named is None:
        raise StoreError(f"INSERT OR REPLACE INTO {table} names no columns: PostgreSQL needs them")
    updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in named if c not in keys)
    body = sql[head.end() :]
    conflict = f"ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {updates}"
    return f"INSERT INTO {table} ({', '.join(named)}) VALUES{body} {conflict}"


def _deduplicated(sql: str, params: Sequence[Any] | dict[str, Any]) -> tuple[str, Sequence[Any] | dict[str, Any]]:
    """A multi-row ``INSERT OR REPLACE`` with each key once (its last row): PostgreSQL refuses to update a row
    twice in one statement, where SQLite replaces it twice."""
    head = _REPLACE.match(sql)
    if head is None or isinstance(params, dict):
        return sql, params
    keys, columns = _UPSERTS[head.group(1)]
    named = tuple(c.strip() for c in head.group(2).split(",")) if head.group(2) else columns
    assert named is not None
    width = len(named)
    if len(params) <= width:
        return sql, params
    at = [named.index(k) for k in keys]
    rows = [tuple(params[i : i + width]) for i in range(0, len(params), width)]
    kept = list({tuple(row[j] for j in at): row for row in rows}.values())
    if len(kept) == len(rows):
        return sql, params
    one = f"({', '.join('?' * width)})"
    return f"{sql[: head.end()]} {', '.join([one] * len(kept))}", [v for row in kept for v in row]


@contextmanager
def _as_sqlite_errors() -> Iterator[None]:
    """psycopg's exceptions raised as sqlite3's of the same DB-API class, which the store's rules catch."""
    try:
        yield
    except psycopg.Error as e:
        # One line: the server's message, and its detail (which key is duplicate) when it gives one.
        message = e.diag.message_primary or str(e).strip().splitlines()[0]
        if e.diag.message_detail:
            message += f" ({e.diag.message_detail})"
        if isinstance(e, psycopg.DataError) and "NUL" in message:  # found by psycopg, before the server
            raise StoreError(
                "PostgreSQL text cannot hold the NUL character (\\x00), which an id or text of this run holds; "
                "keep such a run in a SQLite store"
            ) from e
        if isinstance(e, psycopg.DataError):
            raise ValueError(message) from e
        for cls in type(e).__mro__:
            mapped = getattr(sqlite3, cls.__name__, None) if cls.__module__.startswith("psycopg") else None
            if isinstance(mapped, type) and issubclass(mapped, sqlite3.Error):
                raise mapped(message) from e
        raise sqlite3.DatabaseError(message) from e


#: libpq's words for a failure to connect, and ours: one plain line, never the text libpq quoted from the URL.
_CONNECT_FAILURES = (
    ("connection refused", "connection refused"),
    ("failed to resolve host", "cannot resolve the host name"),
    ("could not translate host name", "cannot resolve the host name"),
    ("timeout expired", "timed out"),
    ("no route to host", "no route to host"),
    ("network is unreachable", "network is unreachable"),
)


def _connect_reason(error: Exception, location: Location) -> str:
    """Why a connection failed, in one line: a known failure in its own words (``connection refused``), else
    libpq's message on one line without any password of the URL."""
    text = " ".join(str(error).split())
    for found, said in _CONNECT_FAILURES:
        if found in text.lower():
            return said
    # libpq's "connection to server at "h", port p failed: FATAL: <reason>": the URL already names the server.
    reason = re.sub(r"^(connection failed: )?(connection to server .*? failed: )?(FATAL: )?", "", text)
    return _without_secrets(reason or type(error).__name__, location)


def _without_secrets(text: str, location: Location) -> str:
    for password in url_passwords(location.url or ""):
        text = text.replace(password, "***")
    return text


# --- the schema -----------------------------------------------------------------------------------


def _table(sql: str) -> str:
    """A SQLite CREATE TABLE in PostgreSQL's types; text compared bytewise, as SQLite compares it."""
    sql = re.sub(r"\bTEXT\b", 'TEXT COLLATE "C"', sql)
    sql = re.sub(r"\bREAL\b", "DOUBLE PRECISION", sql)
    sql = re.sub(r"\bINTEGER\b", "BIGINT", sql)
    return re.sub(r"\bBLOB\b", "BYTEA", sql)


def _with_rowid(sql: str, key: str) -> str:
    """A CREATE TABLE with SQLite's ``rowid`` as a last column, numbered in the order rows are inserted."""
    return sql.rstrip()[:-1] + f", rowid BIGINT GENERATED BY DEFAULT AS IDENTITY {key})"


_RUN_TOTALS_TRIGGERS = (
    # SQLite's triggers add each row's cost to the total in turn; so does this loop, in the order rows were
    # written (rowid), so the totals are the same floats. A replaced result is its old row out, its new row in.
    """CREATE FUNCTION evalcore_count_results(changed_run TEXT, sign BIGINT, rows_out JSONB, rows_in JSONB)
    RETURNS void LANGUAGE plpgsql AS $$
    DECLARE total DOUBLE PRECISION;
    BEGIN
        INSERT INTO run_totals VALUES (changed_run, 0, 0, 0, 0, 0) ON CONFLICT (run_id) DO NOTHING;
        SELECT cost_usd INTO total FROM run_totals WHERE run_id = changed_run FOR UPDATE;
        FOR i IN 0 .. GREATEST(jsonb_array_length(rows_out), jsonb_array_length(rows_in)) - 1 LOOP
            total := total - COALESCE((rows_out->i->>'cost_usd')::float8, 0);
            total := total + COALESCE((rows_in->i->>'cost_usd')::float8, 0);
        END LOOP;
        UPDATE run_totals SET
            results = results + sign * jsonb_array_length(COALESCE(rows_in, rows_out)),
            errors = errors
                + (SELECT COUNT(*) FROM jsonb_array_elements(rows_in) r WHERE r.value->>'status' = 'error')
                - (SELECT COUNT(*) FROM jsonb_array_elements(rows_out) r WHERE r.value->>'status' = 'error'),
            costs = costs
                + (SELECT COUNT(*) FROM jsonb_array_elements(rows_in) r WHERE r.value->>'cost_usd' IS NOT NULL)
                - (SELECT COUNT(*) FROM jsonb_array_elements(rows_out) r WHERE r.value->>'cost_usd' IS NOT NULL),
            cost_usd = total,
            changes = changes + COALESCE(jsonb_array_length(rows_out), 0) + COALESCE(jsonb_array_length(rows_in), 0)
        WHERE run_id = changed_run;
    END $$""",
    """CREATE FUNCTION evalcore_results_inserted() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        PERFORM evalcore_count_results(run_id, 1, '[]', jsonb_agg(jsonb_build_object('status', status,
            'cost_usd', cost_usd) ORDER BY rowid)) FROM new_rows GROUP BY run_id;
        RETURN NULL; END $$""",
    """CREATE FUNCTION evalcore_results_deleted() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        PERFORM evalcore_count_results(run_id, -1, jsonb_agg(jsonb_build_object('status', status,
            'cost_usd', cost_usd) ORDER BY rowid), NULL) FROM old_rows
            WHERE run_id IN (SELECT run_id FROM run_totals) GROUP BY run_id;
        RETURN NULL; END $$""",
    """CREATE FUNCTION evalcore_results_updated() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        PERFORM evalcore_count_results(n.run_id, 0,
            jsonb_agg(jsonb_build_object('status', o.status, 'cost_usd', o.cost_usd) ORDER BY n.rowid),
            jsonb_agg(jsonb_build_object('status', n.status, 'cost_usd', n.cost_usd) ORDER BY n.rowid))
        FROM new_rows n JOIN old_rows o ON o.rowid = n.rowid GROUP BY n.run_id;
        RETURN NULL; END $$""",
    """CREATE TRIGGER results_totals_insert AFTER INSERT ON results REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION evalcore_results_inserted()""",
    """CREATE TRIGGER results_totals_delete AFTER DELETE ON results REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION evalcore_results_deleted()""",
    """CREATE TRIGGER results_totals_update AFTER UPDATE ON results REFERENCING OLD TABLE AS old_rows
        NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION evalcore_results_updated()""",
)

_FUNCTIONS = (
    # JSON text as jsonb, which cannot hold the NUL character that JSON text may escape (as U+FFFD instead).
    """CREATE FUNCTION evalcore_jsonb(doc TEXT) RETURNS JSONB LANGUAGE sql IMMUTABLE AS $$
        SELECT replace(doc, '\\u0000', '\\ufffd')::jsonb $$""",
    # SQLite's JSON paths ($.a.b, $."a.b") as the key arrays PostgreSQL's #> and #>> take.
    """CREATE FUNCTION evalcore_json_path(path TEXT) RETURNS TEXT[] LANGUAGE sql IMMUTABLE AS $$
        SELECT COALESCE(array_agg(COALESCE(m[1], m[2]) ORDER BY i), '{}')
        FROM regexp_matches(substr(path, 3), '"([^"]*)"|([^."]+)', 'g') WITH ORDINALITY AS x(m, i) $$""",
    # SQLite's json_extract where the store reads text: a string's value, else the value's JSON text.
    """CREATE FUNCTION json_extract(doc TEXT, path TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE AS $$
        SELECT evalcore_jsonb(doc) #>> evalcore_json_path(path) $$""",
    # A JSON string's value at the path, else NULL (a label is a string; a number is no label).
    """CREATE FUNCTION evalcore_json_string(doc TEXT, path TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE AS $$
        SELECT CASE WHEN jsonb_typeof(evalcore_jsonb(doc) #> evalcore_json_path(path)) = 'string'
            THEN evalcore_jsonb(doc) #>> evalcore_json_path(path) END $$""",
)


def _schema() -> tuple[str, ...]:
    runs, runs_index, contenders, cases, _ = SCHEMA_V1
    run_totals = SCHEMA_RUN_TOTALS[0].rstrip()[:-1] + ", changes INTEGER NOT NULL DEFAULT 0)"
    return (
        *_FUNCTIONS,
        _with_rowid(_table(runs), "UNIQUE"),
        runs_index,
        _table(contenders),
        _table(cases),
        _with_rowid(_table(SCHEMA_V3_RESULTS), "PRIMARY KEY"),
        _table(run_totals),
        *_RUN_TOTALS_TRIGGERS,
        _table(SCHEMA_SUMMARIES),
        _table(SCHEMA_BASELINES),
        *map(_table, pairs.SCHEMA),
        *map(_table, ratings.SCHEMA),
    )


#: Each migration's PostgreSQL statements: a new database gets the schema as of 0007 with the first (the store
#: had those SQLite migrations before it had PostgreSQL), which leaves 0002–0007 nothing to do; each later
#: migration has its own statements here.
MIGRATIONS: dict[str, tuple[str, ...]] = {
    MIGRATION_NAMES[0]: _schema(),
    **{name: () for name in MIGRATION_NAMES[1:7]},
    "0008_result_trace": (_table(SCHEMA_TRACE),),
    "0009_reply_cache": tuple(map(_table, replies.SCHEMA)),
    "0010_proposals": tuple(map(_table, proposals.SCHEMA)),
}
