"""A few results of a stored run, read by key: what a comparison shows for its flipped cases; and the few
cases whose metadata holds a key (a case's ``minimum_scores``).

Reading a contender's every result to show ten of them would cost a big run seconds; each lookup here
goes through the results' unique index on (run, contender, dataset, case, sample).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from evalcore.core import records
from evalcore.storage.rows import RECORD_FIELDS, result_from_row

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
