"""People's ratings in the store: the ``ratings`` table (migration ``0007_ratings``).

One row per rating (:class:`~evalcore.core.records.Rating`), unique by run, case, sample, the contender (or
pair) and the rater: a rater who rates an item again replaces the earlier rating. Rows keep the order they
were stored in (``position``), so a run's ratings come back, and are exported, as they were made.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from evalcore.core import records
from evalcore.core.clock import utc_now
from evalcore.storage.rows import append_replacing, rows_in_order

_COLUMNS = 'run_id, dataset, "case", sample, a, b, rater, verdict, scores, comment, created_at, random, position'
_ENCODE = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode

#: Migration ``0007_ratings``: the table, its rows deleted with their run. ``b`` is ``''`` for a single reply,
#: so the uniqueness holds for them too (NULLs are never equal in a UNIQUE constraint).
SCHEMA = (
    """CREATE TABLE ratings (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, dataset TEXT NOT NULL, "case" TEXT NOT NULL,
        sample INTEGER NOT NULL, a TEXT NOT NULL, b TEXT NOT NULL, rater TEXT NOT NULL, verdict TEXT NOT NULL,
        scores TEXT NOT NULL, comment TEXT NOT NULL, created_at TEXT NOT NULL, random INTEGER NOT NULL,
        position INTEGER NOT NULL,
        UNIQUE (run_id, dataset, "case", sample, a, b, rater))""",
)


def insert_ratings(conn: sqlite3.Connection, run_id: str, ratings: Sequence[records.Rating]) -> None:
    """Store ratings of a run inside the caller's transaction; one with the same key is replaced."""
    append_replacing(conn, "ratings", _COLUMNS, [_row(run_id, r, -1) for r in ratings])


def add_ratings(store: Any, run_id: str, ratings: Sequence[records.Rating]) -> None:
    """Store a run's ratings in one transaction of ``store`` (a :class:`~evalcore.storage.store.Store`).

    A rating without a time gets the time it is stored.

    Raises:
        StoreError: the run is unknown.
    """
    add_runs_ratings(store, {run_id: ratings})


def add_runs_ratings(store: Any, by_run: Mapping[str, Sequence[records.Rating]]) -> None:
    """Store the ratings of several runs in one transaction: all of them, or none when a run is unknown.

    Raises:
        StoreError: a run is unknown (nothing is stored).
    """
    with store.transaction() as conn:
        for run_id, ratings in by_run.items():
            if conn.execute("SELECT 1 FROM runs WHERE id = ?", (run_id,)).fetchone() is None:
                from evalcore.core.errors import StoreError

                raise StoreError(f"run {run_id!r} is not in the store: import its run file first (evalcore import)")
            insert_ratings(conn, run_id, [r if r.created_at else _stamped(r) for r in ratings])


def rating_rows(conn: sqlite3.Connection, run_id: str) -> list[tuple]:
    """A run's ratings' rows, in the order they were stored."""
    return rows_in_order(conn, "ratings", _COLUMNS, run_id)


def attach(run: records.Run, rows: list[tuple]) -> records.Run:
    """``run`` with the ratings of these :func:`rating_rows` as its ``ratings``."""
    run.ratings = [rating_of(row) for row in rows]
    return run


def ratings_version(store: Any, run_id: str) -> tuple[int, int]:
    """What changes whenever a run's ratings do (their count and the last position stored): a cache key."""
    with store.transaction("DEFERRED") as conn:
        row = conn.execute("SELECT COUNT(*), COALESCE(MAX(position), -1) FROM ratings WHERE run_id = ?", (run_id,))
        count, last = row.fetchone()
    return int(count), int(last)


def load_ratings(store: Any, run_id: str) -> list[records.Rating]:
    """A stored run's ratings, in the order they were stored."""
    with store.transaction("DEFERRED") as conn:
        found = rating_rows(conn, run_id)
    return [rating_of(row) for row in found]


def rating_of(row: tuple) -> records.Rating:
    """The record of one row of :func:`rating_rows`."""
    _, dataset, case, sample, a, b, rater, verdict, scores, comment, created_at, random, _ = row
    return records.Rating(
        dataset, case, sample, a, b or None, rater, verdict, json.loads(scores), comment, created_at, bool(random)
    )


def _row(run_id: str, r: records.Rating, position: int) -> tuple:
    return (
        run_id, r.dataset, r.case, r.sample, r.a, r.b or "", r.rater, r.verdict, _ENCODE(r.scores), r.comment,
        r.created_at, int(r.random), position,
    )  # fmt: skip


def _stamped(r: records.Rating) -> records.Rating:
    from dataclasses import replace

    return replace(r, created_at=utc_now())
