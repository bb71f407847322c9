"""The store's rows made from records, and records made back from rows.

A result's row holds its columns in :data:`RESULT_FIELDS` order: its key, its contender's and case's
positions in the run, its plain values, its numbers packed as one blob (:func:`numbers`), and its JSON
columns as canonical JSON text (:func:`to_json`). :class:`ResultRows` makes them for one run;
:func:`insert_rows` stores many rows in a few statements.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sqlite3
import struct
from collections.abc import Iterator, Sequence
from functools import cache
from itertools import chain
from typing import Any

from evalcore._util import jsonfast
from evalcore.core import records
from evalcore.core.errors import StoreError
from evalcore.core.runids import run_id_problem
from evalcore.storage.dialects import query
from evalcore.storage.packed import ERROR_KIND_CODES

#: The columns of the results table, in the order of a result's row.
RESULT_FIELDS = (
    "run_id", "contender", "dataset", '"case"', "sample", "contender_pos", "case_pos", "status", "score",
    "error_kind", "cost_usd", "latency_s", "input_tokens", "output_tokens", "attempts", "started_at", "numbers",
    "metrics", "error_message", "diagnostics", "output", "raw", "trace",
)  # fmt: skip
#: Followed by rows of ``len(RESULT_FIELDS)`` values (see :func:`insert_rows`).
INSERT_RESULTS = f"INSERT OR REPLACE INTO results ({', '.join(RESULT_FIELDS)}) VALUES"
#: What a run's results load back as (the record's fields, in :func:`result_from_row`'s order).
RECORD_FIELDS = tuple(f for f in RESULT_FIELDS if f not in ("contender_pos", "case_pos", "numbers"))
#: Rows per INSERT at most: 512 rows of 23 values stay under SQLite's default limit of 32,766 variables.
_MAX_ROWS_PER_INSERT = 512
#: Rows that :meth:`~evalcore.storage.store.Store.add_rows` stores in one statement (with SQLite's default limits).
FULL_BATCH = _MAX_ROWS_PER_INSERT

_METRIC_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_NAN = float("nan")

#: The canonical JSON text of a value: compact, non-ASCII kept, NaN and infinities refused (ValueError).
to_json = jsonfast.dumps

#: What storing a batch needs, in one statement (one row: a statement per lookup, or a row per key, is a
#: hand-over of the GIL each, see insert_rows): the run's metrics, its contenders' positions as a JSON array
#: of [id, position], and the positions of the batch's case keys (a JSON array of [dataset, id] pairs) as
#: one of [dataset, id, position]. No row: no such run. CROSS JOIN keeps the keys outside: one primary-key
#: lookup per key, never a scan of the run's cases per key.
BATCH_LOOKUP = query(
    """SELECT r.metrics,
    (SELECT json_group_array(json_array(ct.id, ct.position)) FROM contenders ct WHERE ct.run_id = r.id),
    (SELECT json_group_array(json_array(c.dataset, c.id, c.position)) FROM json_each(?1) k CROSS JOIN cases c
     ON c.run_id = r.id AND c.dataset = json_extract(k.value, '$[0]') AND c.id = json_extract(k.value, '$[1]'))
FROM runs r WHERE r.id = ?2""",
    """SELECT r.metrics,
    (SELECT COALESCE(json_agg(json_build_array(ct.id, ct.position)), '[]')::text FROM contenders ct
     WHERE ct.run_id = r.id),
    (SELECT COALESCE(json_agg(json_build_array(c.dataset, c.id, c.position)), '[]')::text
     FROM jsonb_array_elements(%s::jsonb) k JOIN cases c
     ON c.run_id = r.id AND c.dataset = k.value->>0 AND c.id = k.value->>1)
FROM runs r WHERE r.id = %s""",
)
_RUN_POSITIONS = query(
    """SELECT r.metrics,
    (SELECT json_group_array(json_array(ct.id, ct.position)) FROM contenders ct WHERE ct.run_id = r.id),
    (SELECT json_group_array(json_array(c.dataset, c.id, c.position)) FROM cases c WHERE c.run_id = r.id)
FROM runs r WHERE r.id = ?""",
    """SELECT r.metrics,
    (SELECT COALESCE(json_agg(json_build_array(ct.id, ct.position)), '[]')::text FROM contenders ct
     WHERE ct.run_id = r.id),
    (SELECT COALESCE(json_agg(json_build_array(c.dataset, c.id, c.position)), '[]')::text FROM cases c
     WHERE c.run_id = r.id)
FROM runs r WHERE r.id = %s""",
)


_ORDERED_RESULTS = f"""
SELECT {", ".join(RECORD_FIELDS)} FROM results WHERE run_id = ? ORDER BY contender_pos, case_pos, sample
"""
_CONTENDER_RESULTS = f"""
SELECT {", ".join(RECORD_FIELDS)} FROM results WHERE run_id = ? AND contender = ? ORDER BY case_pos, sample
"""
#: A run's row, its columns named: a PostgreSQL store's runs table has a rowid column after them.
_RUN_ROW = (
    "SELECT id, suite, created_at, finished_at, status, weights, settings, provenance, metrics, refused FROM runs "
    "WHERE id = ?"
)
_ORDERED_CASES = "SELECT dataset, id, variant, input, expected, metadata FROM cases WHERE run_id = ? ORDER BY position"


def from_json(text: str | None) -> Any:
    """A stored JSON text's value (None for SQL NULL)."""
    return None if text is None else jsonfast.loads(text)


def check_names(run: records.Run) -> None:
    """Refuse a run id that is not one (:mod:`evalcore.core.runids`) and a metric name that is not a plain
    identifier.

    Raises:
        StoreError: the run id could be a path, or a metric name does not match ``^[a-z][a-z0-9_]*$``.
    """
    # Files are named for run ids (an export's, a tracker's): an id is never a path.
    if problem := run_id_problem(run.info.id):
        raise StoreError(f"run {problem}")
    # Metric names go into JSON paths of queries: only the spec's names are safe there.
    for m in run.metrics:
        if not _METRIC_NAME.match(m.name):
            raise StoreError(f"run {run.info.id!r}: metric name {m.name!r} does not match ^[a-z][a-z0-9_]*$")


def run_row(run: records.Run) -> tuple:
    """The run's row of the runs table."""
    i = run.info
    metrics = [
        {"name": m.name, "description": m.description, "higher_is_better": m.higher_is_better, "primary": m.primary}
        for m in run.metrics
    ]
    refused = [{"model": x.model, "settings": x.settings, "reason": x.reason} for x in run.refused]
    return (
        i.id, i.suite, i.created_at, i.finished_at, i.status, to_json(i.weights), to_json(i.settings),
        to_json(i.provenance), to_json(metrics), to_json(refused),
    )  # fmt: skip


def case_row(c: records.Case) -> tuple:
    """A case's row of the cases table, without its run's id and its position."""
    expected = c.expected
    return (
        c.dataset,
        c.id,
        c.variant,
        to_json(c.input),
        None if expected is None else to_json(expected),
        to_json(c.metadata),
    )


def check_references(
    run_id: str, results: Sequence[records.Result], contenders: dict[str, int], cases: dict[tuple[str, str], int]
) -> None:
    """Refuse results that name a contender or a case not in ``contenders`` or ``cases``.

    Raises:
        StoreError: naming the first result with an unknown contender, else the first with an unknown case.
    """
    for r in results:
        if r.contender not in contenders:
            raise _unknown_name(run_id, r, contender=True)
    for r in results:
        if (r.dataset, r.case) not in cases:
            raise _unknown_name(run_id, r, contender=False)


def _unknown_name(run_id: str, r: records.Result, contender: bool) -> StoreError:
    if contender:
        return StoreError(f"run {run_id!r}: result {r.key!r} names an unknown contender {r.contender!r}")
    return StoreError(f"run {run_id!r}: result {r.key!r} names an unknown case {(r.dataset, r.case)!r}")


@dataclasses.dataclass(frozen=True)
class ResultRows:
    """Makes a stored run's results into rows of :data:`RESULT_FIELDS`.

    From :func:`result_rows`, or built from a run in memory.
    """

    run_id: str
    metrics: list[str]
    contenders: dict[str, int]
    cases: dict[tuple[str, str], int]
    _pack: Any = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_pack", numbers_struct(len(self.metrics)).pack)

    @classmethod
    def of(cls, run: records.Run) -> ResultRows:
        """What makes rows of an in-memory run's results (its metrics, contenders and cases in hand)."""
        contenders = {c.id: i for i, c in enumerate(run.contenders)}
        return cls(run.info.id, [m.name for m in run.metrics], contenders, {c.key: i for i, c in enumerate(run.cases)})

    def __call__(self, r: records.Result) -> tuple:
        """The row of one result.

        Raises:
            StoreError: it names a contender or case the run does not hold, or a value cannot be stored.
        """
        contender, case = self.contenders.get(r.contender), self.cases.get((r.dataset, r.case))
        if contender is None or case is None:
            raise _unknown_name(self.run_id, r, contender=contender is None)
        try:
            return _result_row(self.run_id, r, contender, case, self._pack, self.metrics)
        except (ValueError, TypeError, OverflowError, struct.error) as e:
            why = _unstorable(r, self.metrics, e)
            raise StoreError(f"run {self.run_id!r}: a result cannot be stored: {why}") from e


def result_rows(
    conn: sqlite3.Connection, run_id: str, keys: Sequence[tuple[str, str]] | None = None
) -> ResultRows | None:
    """What makes rows of a stored run's results, read in one query (None: no such run).

    Args:
        conn: the store's connection.
        run_id: the run.
        keys: the (dataset, case id) of the cases whose positions are needed; None for every case.
    """
    if keys is None:
        row = conn.execute(_RUN_POSITIONS, (run_id,)).fetchone()
    else:
        row = conn.execute(BATCH_LOOKUP, (to_json(keys), run_id)).fetchone()
    if row is None:
        return None
    return ResultRows(
        run_id,
        [m["name"] for m in jsonfast.loads(row[0])],
        dict(jsonfast.loads(row[1])),
        {(d, c): i for d, c, i in jsonfast.loads(row[2])},
    )


def _unstorable(r: records.Result, metrics: list[str], e: Exception) -> str:
    """Why a result's row could not be made: its first metric value that is not a number (a custom scorer's),
    else ``e``."""
    for name in metrics:
        value = r.metrics.get(name)
        if value is not None and not hasattr(value, "__float__"):  # a number of any kind has one
            return (
                f"{r.contender} on {r.dataset}/{r.case} (sample {r.sample}): metric {name!r} is {value!r}; "
                "a metric is a number or null"
            )
    return str(e)


def _result_row(run_id: str, r: records.Result, contender: int, case: int, pack: Any, metrics: list[str]) -> tuple:
    u, e = r.usage, r.error
    return (
        run_id, r.contender, r.dataset, r.case, r.sample, contender, case, r.status, r.score,
        e.kind if e else None, u.cost_usd, r.latency_s, u.input_tokens, u.output_tokens, r.attempts, r.started_at,
        numbers(pack, contender, case, r, metrics), metrics_json(r.metrics, metrics), e.message if e else None,
        to_json(r.diagnostics) if r.diagnostics else "{}", None if r.output is None else to_json(r.output), r.raw,
        None if r.trace is None else to_json(r.trace),
    )  # fmt: skip


def insert_rows(conn: sqlite3.Connection, head: str, width: int, rows: Sequence[tuple]) -> None:
    """``executemany(f"{head} (?, …)", rows)`` with a few statements of many rows each.

    ``executemany`` steps SQLite once per row, releasing the GIL for each step and taking it back after;
    while the event loop runs on without waiting (an instant model), every take waits for its switch
    interval. One statement of many rows is one step: SQLite inserts them all without the GIL (and
    skips a bind-and-reset per row). Chunks of 512, 256, … 1 rows: a few statements ever compiled.
    """
    start = 0
    for size in chunk_sizes(conn, width, len(rows)):
        conn.execute(_insert_sql(head, width, size), list(chain.from_iterable(rows[start : start + size])))
        start += size


def chunk_sizes(conn: sqlite3.Connection, width: int, n: int) -> list[int]:
    """The rows per statement :func:`insert_rows` inserts ``n`` rows of ``width`` values in."""
    # An SQLite built with a lower limit of variables (999 before 3.32) gets smaller statements.
    limit = conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) // width
    sizes, size = [], max(1, min(_MAX_ROWS_PER_INSERT, limit))
    while n:
        while size > n:
            size //= 2
        sizes.append(size)
        n -= size
    return sizes


@cache
def _insert_sql(head: str, width: int, rows: int) -> str:
    """An INSERT of ``rows`` rows of ``width`` values."""
    one = f"({', '.join('?' * width)})"
    return f"{head} {', '.join([one] * rows)}"


def metrics_json(values: dict[str, Any], names: list[str]) -> str:
    """``to_json(values)``, by a template when the keys are the run's metrics in order and every value
    a finite float or None (every result of a built-in scorer): the same text, without the encoder."""
    if list(values) != names:
        return to_json(values)
    texts = []
    for value in values.values():
        if value is None:
            texts.append("null")
        elif type(value) is float and value - value == 0.0:  # finite (inf - inf and nan - nan are nan)
            texts.append(_FLOAT_REPR(value))
        else:
            return to_json(values)
    return _metrics_template(tuple(names)) % tuple(texts)


_FLOAT_REPR = float.__repr__  # what the JSON encoder writes for a float


@cache
def _metrics_template(names: tuple[str, ...]) -> str:
    """``{"name":%s,…}`` for these metric names, each name as the JSON encoder writes it."""
    return "{" + ",".join(f"{to_json(n).replace('%', '%%')}:%s" for n in names) + "}"


@cache
def numbers_struct(n_metrics: int) -> struct.Struct:
    """The layout of :func:`evalcore.storage.packed.row_dtype` for a run with ``n_metrics`` metrics."""
    return struct.Struct(f"<5q{n_metrics + 5}d")


def numbers(pack: Any, contender: int, case: int, r: records.Result, metrics: list[str]) -> bytes:
    """A result's row of the results frame as bytes: positions, sample, error flags, then the numbers.

    A denormalised copy of columns stored beside it (the metric values are also in ``metrics``),
    written with them and never apart: the results frame reads a run's numbers in one go.
    ``pack`` is ``numbers_struct(len(metrics)).pack``.
    """
    u, e = r.usage, r.error
    values = r.metrics
    return pack(
        contender, case, r.sample, r.status == "error", ERROR_KIND_CODES.get(e.kind, -1) if e else -1,
        _NAN if r.score is None else r.score, *[_NAN if (v := values.get(m)) is None else v for m in metrics],
        _NAN if u.cost_usd is None else u.cost_usd, _NAN if r.latency_s is None else r.latency_s,
        _NAN if u.input_tokens is None else u.input_tokens, _NAN if u.output_tokens is None else u.output_tokens,
    )  # fmt: skip


def result_parts(conn: sqlite3.Connection, cursor: sqlite3.Cursor, size: int) -> Iterator[list[records.Result]]:
    """The results of ``cursor``'s rows (of :data:`RECORD_FIELDS`), ``size`` at a time; closes ``cursor`` and
    ``conn`` at the end."""
    try:
        while rows := cursor.fetchmany(size):
            part = [result_from_row(r) for r in rows]
            yield part
    finally:
        try:
            cursor.close()  # a server-side cursor (PostgreSQL's) is closed before its connection
        finally:
            conn.close()


def head_rows(conn: sqlite3.Connection, run_id: str, cases: bool) -> tuple[tuple, list[tuple], list[tuple]] | None:
    """A run's row, its contenders' and (with ``cases``) its cases' rows, for :func:`run_from_rows` (None: no run)."""
    row = conn.execute(_RUN_ROW, (run_id,)).fetchone()
    if row is None:
        return None
    contenders = conn.execute(
        "SELECT id, model, settings FROM contenders WHERE run_id = ? ORDER BY position", (run_id,)
    ).fetchall()
    return row, contenders, case_rows(conn, run_id) if cases else []


def case_rows(conn: sqlite3.Connection, run_id: str) -> list[tuple]:
    """A run's cases' rows, for :func:`case_from_row`, in the run's order."""
    return conn.execute(_ORDERED_CASES, (run_id,)).fetchall()


def result_cursor(
    conn: sqlite3.Connection, run_id: str, contender: str | None = None, streamed: bool = False
) -> sqlite3.Cursor:
    """A run's results' rows, for :func:`result_from_row`, in contender, case, sample order (``contender``'s only
    when given). ``streamed``: for reading a part at a time, the rows come from the database only as they are
    fetched: a SQLite cursor's always do; on PostgreSQL it is a server-side cursor
    (:meth:`~evalcore.storage.postgres.PgConnection.execute_streamed`), so ``conn`` must have a transaction open."""
    sql, params = (_ORDERED_RESULTS, (run_id,)) if contender is None else (_CONTENDER_RESULTS, (run_id, contender))
    execute = getattr(conn, "execute_streamed", conn.execute) if streamed else conn.execute
    cursor: sqlite3.Cursor = execute(sql, params)
    return cursor


def run_from_rows(row: tuple, contenders: list[tuple], cases: list[tuple], results: list[tuple]) -> records.Run:
    """A run from its row, its contenders' (id, model, settings), its cases' and its results' rows."""
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
        cases=[case_from_row(c) for c in cases],
        results=[result_from_row(r) for r in results],
        refused=[records.Refusal(**x) for x in json.loads(refused)],
    )


def case_from_row(row: tuple) -> records.Case:
    """A case from its (dataset, id, variant, input, expected, metadata)."""
    dataset, case_id, variant, input_, expected, metadata = row
    return records.Case(dataset, case_id, variant, from_json(input_), from_json(expected), from_json(metadata))


def result_from_row(row: tuple) -> records.Result:
    """A result from its row of :data:`RECORD_FIELDS`."""
    (_, contender, dataset, case, sample, status, score, kind, cost, latency, tokens_in, tokens_out,
     attempts, started_at, metrics, message, diagnostics, output, raw, trace) = row  # fmt: skip
    return records.Result(
        contender=contender,
        dataset=dataset,
        case=case,
        sample=sample,
        status=status,
        score=score,
        metrics=jsonfast.loads(metrics),
        output=from_json(output),
        raw=raw,
        error=records.ErrorInfo(kind, message) if kind is not None else None,
        diagnostics=jsonfast.loads(diagnostics),
        usage=records.Usage(tokens_in, tokens_out, cost),
        latency_s=latency,
        attempts=attempts,
        started_at=started_at,
        trace=from_json(trace),
    )


def append_replacing(conn: sqlite3.Connection, table: str, columns: str, rows: Sequence[tuple]) -> None:
    """Store a run's ``rows`` in ``table`` after the ones it has, inside the caller's transaction; a row
    with the same key as a stored one replaces it.

    Each row starts with its run's id and ends with a placeholder for its position, which this fills in
    from the run's highest stored position, so the rows read back in the order they were added.
    """
    if not rows:
        return
    run_id = rows[0][0]
    start = conn.execute(f"SELECT COALESCE(MAX(position) + 1, 0) FROM {table} WHERE run_id = ?", (run_id,))
    first = start.fetchone()[0]
    conn.executemany(
        f"INSERT OR REPLACE INTO {table} ({columns}) VALUES ({', '.join('?' * len(rows[0]))})",
        [(*row[:-1], first + i) for i, row in enumerate(rows)],
    )


def rows_in_order(conn: sqlite3.Connection, table: str, columns: str, run_id: str) -> list[tuple]:
    """A run's rows of ``table`` (as :func:`append_replacing` stored them), in the order they were added."""
    return conn.execute(f"SELECT {columns} FROM {table} WHERE run_id = ? ORDER BY position", (run_id,)).fetchall()
