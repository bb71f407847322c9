"""A few results of a stored run, read by key: what a comparison shows for its flipped cases, what the Cases
page shows of one page of results or of one case; and the few cases whose metadata holds a key (a case's
``minimum_scores``), or whose input a search finds.

Reading a contender's every result to show ten of them would cost a big run seconds; each lookup here
goes through the results' unique index on (run, contender, dataset, case, sample).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from evalcore.core import records
from evalcore.storage.rows import RECORD_FIELDS, case_from_row, from_json, result_from_row

if TYPE_CHECKING:
    from evalcore.storage.store import Store

_CASE_RESULTS = f"""
SELECT {", ".join(RECORD_FIELDS)} FROM results
WHERE run_id = ? AND contender = ? AND dataset = ? AND "case" = ? ORDER BY sample
"""


def load_case_results(
    store: Store, run_id: str, contender: str, cases: Iterable[tuple[str, str]]
) -> list[records.Result]:
    """Every sample of ``contender`` for these (dataset, case id) pairs: the cases in that order, each case's
    samples in order; a pair without a stored result is skipped."""
    with store.transaction("DEFERRED") as conn:
        rows = [row for d, c in cases for row in conn.execute(_CASE_RESULTS, (run_id, contender, d, c)).fetchall()]
    return [result_from_row(row) for row in rows]


_CASE = "SELECT dataset, id, variant, input, expected, metadata FROM cases WHERE run_id = ? AND dataset = ? AND id = ?"
_ERROR = (
    'SELECT error_message FROM results WHERE run_id = ? AND contender = ? AND dataset = ? AND "case" = ? AND sample = ?'
)
#: Cases read at a time by :func:`cases_whose_input`: their inputs pass one batch at a time, never all held.
_BATCH = 1_000


def load_cases_by_key(store: Store, run_id: str, keys: Iterable[tuple[str, str]]) -> list[records.Case]:
    """These (dataset, case id) cases of a stored run, in that order; a key the run does not hold is skipped."""
    with store.transaction("DEFERRED") as conn:
        rows = [row for d, c in keys for row in conn.execute(_CASE, (run_id, d, c)).fetchall()]
    return [case_from_row(row) for row in rows]


def error_messages_of(
    store: Store, run_id: str, keys: Iterable[tuple[str, str, str, int]]
) -> dict[tuple[str, str, str, int], str | None]:
    """The error message of each of these results, by ``(contender, dataset, case, sample)`` (None: none)."""
    with store.transaction("DEFERRED") as conn:
        found = {key: conn.execute(_ERROR, (run_id, *key)).fetchone() for key in keys}
    return {key: row[0] if row else None for key, row in found.items()}


def cases_whose_input(store: Store, run_id: str, keep: Callable[[Any], bool]) -> list[tuple[str, str]]:
    """(dataset, case id) of a stored run's cases whose input ``keep`` accepts, in the run's order; the inputs
    are read a batch at a time and let go."""
    found = []
    with store.transaction("DEFERRED") as conn:
        cursor = conn.execute("SELECT dataset, id, input FROM cases WHERE run_id = ? ORDER BY position", (run_id,))
        while batch := cursor.fetchmany(_BATCH):
            found += [(d, c) for d, c, text in batch if keep(from_json(text))]
    return found


def cases_with_metadata_key(store: Store, run_id: str, key: str) -> list[tuple[str, str, str, dict[str, Any]]]:
    """``(dataset, case id, variant, metadata)`` of a stored run's cases whose metadata holds ``key``, read
    without the cases' inputs and expected answers."""
    with store.transaction("DEFERRED") as conn:
        rows = conn.execute(
            "SELECT dataset, id, variant, metadata FROM cases WHERE run_id = ? AND instr(metadata, ?) > 0 "
            "ORDER BY position",
            (run_id, json.dumps(key)),
        ).fetchall()
    found = [(d, c, v, json.loads(m)) for d, c, v, m in rows]
    return [row for row in found if key in row[3]]
