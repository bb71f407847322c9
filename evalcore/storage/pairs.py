"""Pairwise verdicts in the store: the ``pairwise`` table (migration ``0006_pairwise``).

One row per comparison (:class:`~evalcore.core.records.PairVerdict`), unique by run, case, sample and the two
contenders, kept in the order they were stored (``position``): a run's verdicts come back as it made them, so
a run file exported, imported and exported again is byte-identical. The judge calls (prompts, raw replies,
tokens, cost) are one JSON column: a page reads them only to show one comparison.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from evalcore.core import records
from evalcore.storage.rows import append_replacing, rows_in_order

_COLUMNS = (
    'run_id, dataset, "case", sample, a, b, outcome, judge, orders, calls, error_kind, error_message, '
    "cost_usd, latency_s, position"
)
_ENCODE = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode

#: Migration ``0006_pairwise``: the table, its rows deleted with their run.
SCHEMA = (
    """CREATE TABLE pairwise (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, dataset TEXT NOT NULL, "case" TEXT NOT NULL,
        sample INTEGER NOT NULL, a TEXT NOT NULL, b TEXT NOT NULL, outcome TEXT, judge TEXT NOT NULL,
        orders TEXT NOT NULL, calls TEXT NOT NULL, error_kind TEXT, error_message TEXT, cost_usd REAL,
        latency_s REAL NOT NULL, position INTEGER NOT NULL,
        UNIQUE (run_id, dataset, "case", sample, a, b))""",
)


def insert_pairs(conn: sqlite3.Connection, run_id: str, verdicts: Sequence[records.PairVerdict]) -> None:
    """Store verdicts of a run inside the caller's transaction; one with the same key is replaced."""
    append_replacing(conn, "pairwise", _COLUMNS, [_row(run_id, v, -1) for v in verdicts])


def add_pairs(store: Any, run_id: str, verdicts: Sequence[records.PairVerdict]) -> None:
    """Store a run's verdicts in one transaction of ``store`` (a :class:`~evalcore.storage.store.Store`)."""
    with store.transaction() as conn:
        insert_pairs(conn, run_id, verdicts)


def pair_rows(conn: sqlite3.Connection, run_id: str) -> list[tuple]:
    """A run's verdicts' rows, in the order they were stored."""
    return rows_in_order(conn, "pairwise", _COLUMNS, run_id)


def attach(run: records.Run, rows: list[tuple]) -> records.Run:
    """``run`` with the verdicts of these rows as its ``pairwise``."""
    run.pairwise = [_verdict(row) for row in rows]
    return run


def load_pairs(store: Any, run_id: str) -> list[records.PairVerdict]:
    """A stored run's verdicts, in the order they were stored."""
    with store.transaction("DEFERRED") as conn:
        rows = pair_rows(conn, run_id)
    return [_verdict(row) for row in rows]


def _row(run_id: str, v: records.PairVerdict, position: int) -> tuple:
    kind, message = (v.error.kind, v.error.message) if v.error else (None, None)
    return (
        run_id, v.dataset, v.case, v.sample, v.a, v.b, v.outcome, v.judge, _ENCODE(v.orders), _ENCODE(v.calls),
        kind, message, v.cost_usd, v.latency_s, position,
    )  # fmt: skip


def _verdict(row: tuple) -> records.PairVerdict:
    _, dataset, case, sample, a, b, outcome, judge, orders, calls, kind, message, cost, latency, _ = row
    error = records.ErrorInfo(kind, message) if kind is not None else None
    return records.PairVerdict(
        dataset, case, sample, a, b, outcome, judge, json.loads(orders), json.loads(calls), error, cost, latency
    )
