"""Packed rows: a result's numbers as one row of a NumPy structured array, the layout every source of a
run's results shares, and a stored run's rows read back from SQLite in bulk.

A row holds the result's contender and case (as positions in the run), its sample, whether it failed and
how, its score, its metric values, then its usage (:func:`row_dtype`). The store keeps each result's row as
bytes (the ``numbers`` column): SQLite concatenates a run's blobs and NumPy reads them as structured
arrays, so no Python object is made per value. An in-memory run (a run file) gives the same rows from its
records (:func:`run_rows`). :mod:`evalcore.storage.frames` turns rows into a results frame or plain columns.
NumPy is imported by the functions that make arrays: the store reads and writes runs through this module,
and listing or deleting runs does not load it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from evalcore.core import records
from evalcore.core.aggregates import AggregateMetric, label_place, labels_of
from evalcore.core.errors import StoreError
from evalcore.core.metric_set import MetricSet
from evalcore.core.records import Metric
from evalcore.storage.dialects import query

#: The row tuple both sources produce: these, the metric values, then :data:`TAIL_FIELDS`.
HEAD_FIELDS = ("contender_code", "case_code", "sample", "is_error", "error_kind_code", "score")
TAIL_FIELDS = ("cost_usd", "latency_s", "input_tokens", "output_tokens")
ERROR_KIND_CODES = {kind: i for i, kind in enumerate(records.ERROR_KINDS)}

#: A case's part of a row: dataset, id, variant and metadata.
CaseRow = tuple[str, str, str, dict[str, Any]]
#: One aggregate metric's labels, one entry per scored result that has them, in four aligned sequences:
#: (contender position, case position, sample) keys and (expected, predicted) labels (predicted None: none).
LabelRows = tuple[Sequence[tuple[int, int, int]], Sequence[str], Sequence[str | None]]


def row_dtype(metric_names: Sequence[str]) -> Any:
    """The NumPy structured dtype of one row: int64 :data:`HEAD_FIELDS` (score excepted), then float64.

    Little-endian and unpadded, so the store can keep each row's numbers as bytes of this layout.
    """
    import numpy as np

    ints = [(f, "<i8") for f in HEAD_FIELDS[:5]]
    return np.dtype(ints + [(f, "<f8") for f in float_fields(metric_names)])


def float_fields(metric_names: Sequence[str]) -> list[str]:
    """The float64 fields of a row: ``score``, ``m_<metric>`` per declared metric, then :data:`TAIL_FIELDS`."""
    return ["score", *(f"m_{n}" for n in metric_names), *TAIL_FIELDS]


def rows_table(rows: Iterable[tuple], metric_names: Sequence[str], count: int) -> Any:
    """The rows as one structured array: from a list at once, from a cursor row by row."""
    import numpy as np

    dtype = row_dtype(metric_names)
    if isinstance(rows, list):
        return np.array(rows, dtype=dtype)
    return np.fromiter(rows, dtype=dtype, count=count)


def run_rows(run: records.Run, metric_set: MetricSet | None = None) -> tuple[list[tuple], dict[str, LabelRows]]:
    """An in-memory run's row tuples (see :func:`build_frame`), and each aggregate metric's labelled results
    (the aggregate metrics of ``metric_set``, the run's metric set; none: derived from the run's metrics).

    Raises:
        ValueError: a result names a contender or case the run does not hold.
    """
    names = [m.name for m in run.metrics]
    contender_codes = {c.id: i for i, c in enumerate(run.contenders)}
    case_codes = {c.key: i for i, c in enumerate(run.cases)}
    try:
        rows = [
            result_row(r, contender_codes[r.contender], case_codes[(r.dataset, r.case)], names) for r in run.results
        ]
    except KeyError as e:
        raise ValueError(f"run {run.info.id!r}: a result names {e.args[0]!r}, not in the run") from None
    aggregates = (metric_set or MetricSet.of(run.metrics)).aggregates
    labels = {a.name: run_labels(run, a.scorer, contender_codes, case_codes) for a in aggregates}
    return rows, labels


def run_labels(
    run: records.Run, scorer: str | None, contenders: dict[str, int], cases: dict[tuple[str, str], int]
) -> LabelRows:
    """The labelled scored results of an in-memory run for one aggregate metric (see :data:`LabelRows`)."""
    keys, want, got = [], [], []
    for r in run.results:
        found = labels_of(r.diagnostics, scorer) if r.status == "scored" else None
        if found is not None:
            keys.append((contenders[r.contender], cases[(r.dataset, r.case)], r.sample))
            want.append(found[0])
            got.append(found[1])
    return keys, want, got


def result_row(r: records.Result, contender: int, case: int, names: list[str]) -> tuple:
    """A result's row tuple (see :func:`build_frame`): codes, status, score, metric values, usage."""
    kind = ERROR_KIND_CODES.get(r.error.kind, -1) if r.error else -1
    u = r.usage
    values = [r.metrics.get(n) for n in names]
    head = (contender, case, r.sample, r.status == "error", kind, r.score)
    return (*head, *values, u.cost_usd, r.latency_s, u.input_tokens, u.output_tokens)


#: Rowids per read of packed numbers: a bounded blob (about 8 MB) per query, whatever the run's size.
_FRAME_CHUNK = 1 << 16
_NUMBERS_BETWEEN = (
    "SELECT CAST(group_concat(numbers, '') AS BLOB) FROM results NOT INDEXED WHERE rowid BETWEEN ? AND ? AND run_id = ?"
)


class FrameParts(NamedTuple):
    """A stored run's results frame in parts, for :func:`evalcore.storage.frames.frame_from_chunks`."""

    contenders: list[str]
    """The contenders' ids, in the run's order."""
    cases: list[CaseRow]
    """(dataset, id, variant, metadata) per case, in the run's order."""
    chunks: list[bytes]
    """The results' packed numbers, in buffers of whole rows."""
    changes: int
    """The run's count of changes the numbers reflect (see :func:`changes`)."""
    labels: dict[str, LabelRows]
    """Each aggregate metric's labelled results (:func:`read_labels`), for its label columns."""


def read_frame_parts(conn: sqlite3.Connection, run_id: str, metrics: list[str]) -> FrameParts:
    """A stored run's contenders, cases, packed numbers, count of changes and labels; call it inside one transaction.

    Raises:
        StoreError: the packed numbers do not add up to the run's results (a damaged store).
    """
    contenders = contender_ids(conn, run_id)
    rows = conn.execute(
        "SELECT dataset, id, variant, metadata FROM cases WHERE run_id = ? ORDER BY position", (run_id,)
    ).fetchall()
    # Every case's metadata parsed as one array: one call into the parser, not one per case.
    metadata = json.loads(f"[{','.join(row[3] for row in rows)}]")
    cases: list[CaseRow] = [
        (dataset, case_id, variant, meta) for (dataset, case_id, variant, _), meta in zip(rows, metadata, strict=True)
    ]
    labels = all_labels(conn, run_id, declared_metrics(conn, run_id) or [])
    return FrameParts(contenders, cases, number_chunks(conn, run_id, metrics), changes(conn, run_id), labels)


def declared_metrics(conn: sqlite3.Connection, run_id: str) -> list[Metric] | None:
    """A stored run's declared metrics (name and description); None for an unknown run."""
    declared = conn.execute("SELECT metrics FROM runs WHERE id = ?", (run_id,)).fetchone()
    return [Metric(m["name"], m.get("description", "")) for m in json.loads(declared[0])] if declared else None


def contender_ids(conn: sqlite3.Connection, run_id: str) -> list[str]:
    """A stored run's contender ids, in the run's order."""
    return [r[0] for r in conn.execute("SELECT id FROM contenders WHERE run_id = ? ORDER BY position", (run_id,))]


def all_labels(conn: sqlite3.Connection, run_id: str, metrics: list[Metric]) -> dict[str, LabelRows]:
    """Each aggregate metric's labelled results (:func:`read_labels`), by its name."""
    return {a.name: read_labels(conn, run_id, a) for a in MetricSet.of(metrics).aggregates}


def changes(conn: sqlite3.Connection, run_id: str) -> int:
    """How many times a run's results have been inserted or deleted (0 before the first)."""
    row = conn.execute("SELECT changes FROM run_totals WHERE run_id = ?", (run_id,)).fetchone()
    return row[0] if row else 0


def number_chunks(conn: sqlite3.Connection, run_id: str, metrics: list[str]) -> list[bytes]:
    """A run's packed numbers (rows of :func:`evalcore.storage.packed.row_dtype`) as a few buffers.

    SQLite concatenates the blobs itself (``group_concat`` over a rowid range, cast back to a
    blob): a run's results come back as a few bytes objects instead of a Python number per value,
    and NumPy takes them apart without joining them first. A run's results sit in one rowid range
    (written while it ran); scanning that range in table order beats a rowid lookup per entry of the
    unique index, and the run_id test drops strangers. Each blob holds its own positions, so the
    order rows come back in does not matter.
    """
    size = row_dtype(metrics).itemsize
    totals = conn.execute("SELECT results FROM run_totals WHERE run_id = ?", (run_id,)).fetchone()
    some = conn.execute("SELECT rowid FROM results WHERE run_id = ? LIMIT 1", (run_id,)).fetchone()
    if some is None:
        return []
    count = totals[0] if totals else -1
    chunks = _numbers_around(conn, run_id, some[0], count, size)
    if sum(map(len, chunks)) != count * size:  # run_totals out of step (a writer without our triggers): count
        count, lo, hi = conn.execute(
            "SELECT count(*), min(rowid), max(rowid) FROM results WHERE run_id = ?", (run_id,)
        ).fetchone()
        chunks = _numbers_between(conn, run_id, lo, hi)
    got = sum(map(len, chunks))
    if got != count * size or any(len(c) % size for c in chunks):
        raise StoreError(
            f"run {run_id!r}: packed numbers of {got} bytes for {count} results of "
            f"{size} bytes each; the store is damaged (re-import the run from its file)"
        )
    return [c for c in chunks if c]


def _numbers_between(conn: sqlite3.Connection, run_id: str, lo: int, hi: int) -> list[bytes]:
    """The run's packed numbers with rowids in [lo, hi], a chunk of rowids per query."""
    return [
        _numbers_in(conn, run_id, start, min(start + _FRAME_CHUNK - 1, hi)) for start in range(lo, hi + 1, _FRAME_CHUNK)
    ]


def _numbers_around(conn: sqlite3.Connection, run_id: str, some: int, count: int, size: int) -> list[bytes]:
    """The run's packed numbers, read in chunks of rowids outwards from one of its rows until all ``count`` are in.

    Finding the run's first and last rowid (``min(rowid), max(rowid)``) walks every index entry of the
    run. ``run_totals`` knows how many there are, so reading stops when they are all in, at most a
    chunk past either end; in rowid order, as a scan of the range gives them.
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
            part = _numbers_in(conn, run_id, start, end)
            (above if going_up else below).append(part)
            got += len(part) // size
            up, down = (end + 1, down) if going_up else (up, start - 1)
    return below[::-1] + above


def _numbers_in(conn: sqlite3.Connection, run_id: str, start: int, end: int) -> bytes:
    """The run's packed numbers with rowids in [start, end], as one bytes object."""
    return conn.execute(_NUMBERS_BETWEEN, (start, end, run_id)).fetchone()[0] or b""


_LABELLED = query(
    """SELECT contender_pos, case_pos, sample, json_extract(diagnostics, ?), json_extract(diagnostics, ?)
    FROM results WHERE run_id = ? AND status = 'scored'""",
    """SELECT contender_pos, case_pos, sample, evalcore_json_string(diagnostics, %s),
    evalcore_json_string(diagnostics, %s) FROM results WHERE run_id = %s AND status = 'scored'""",
)
#: A scored result whose diagnostics may hold labels somewhere: where the run's labels are is read from it.
_FIRST_LABELLED = (
    "SELECT diagnostics FROM results WHERE run_id = ? AND status = 'scored' AND instr(diagnostics, '\"want\"') LIMIT 1"
)


def read_labels(conn: sqlite3.Connection, run_id: str, metric: AggregateMetric) -> LabelRows:
    """The expected and predicted label of every scored result of a run that has them, for an aggregate metric.

    SQLite picks the two labels out of each result's diagnostics (``json_extract``), so no diagnostics
    object is built in Python. Where they are (top level, or under a scorer id) is the same for every result of a
    run: it is read from the first result that has any.
    """
    first = conn.execute(_FIRST_LABELLED, (run_id,)).fetchone()
    place = label_place(json.loads(first[0]), metric.scorer) if first else None
    if place is None or '"' in place:
        return [], [], []
    prefix = "$" if place == "" else f'$."{place}"'
    rows = conn.execute(_LABELLED, (f"{prefix}.want", f"{prefix}.got", run_id)).fetchall()
    kept = [row for row in rows if isinstance(row[3], str)]
    return (
        [row[:3] for row in kept],
        [row[3] for row in kept],
        [g if isinstance(g := row[4], str) else None for row in kept],
    )
