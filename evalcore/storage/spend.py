"""What a stored run has spent, and the budget cap its settings record (``evalcore run --max-cost``).

A resumed run's cap covers the whole run, so the runner starts from what the stored results cost: the
contenders' own calls (``results.cost_usd``) and the calls an LLM judge made to score them (the judge's
total in each result's ``diagnostics``: under ``judge``, or under a scorer's id when a suite has several), and
the calls of its ``pairwise:`` judge (each stored verdict's ``cost_usd``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from evalcore.storage.dialects import query
from evalcore.storage.rows import to_json

if TYPE_CHECKING:
    from evalcore.storage.connection import StoreConnection

#: The key of a run's settings that holds its budget cap in USD (absent: no cap).
CAP_SETTING = "max_cost_usd"

_SPENT = query(
    """
SELECT COALESCE(SUM(cost_usd), 0), COALESCE(SUM(json_extract(diagnostics, '$.judge.cost_usd')), 0)
FROM results WHERE run_id = ?
""",
    """SELECT COALESCE(SUM(cost_usd), 0),
    COALESCE(SUM((evalcore_jsonb(diagnostics) #>> '{judge,cost_usd}')::float8), 0) FROM results WHERE run_id = %s""",
)
_PAIRWISE = "SELECT COALESCE(SUM(cost_usd), 0) FROM pairwise WHERE run_id = ?"
_NESTED_JUDGES = query(
    """
SELECT COALESCE(SUM(json_extract(d.value, '$.judge.cost_usd')), 0)
FROM results r, json_each(r.diagnostics) d WHERE r.run_id = ? AND d.type = 'object'
""",
    """SELECT COALESCE(SUM((d.value #>> '{judge,cost_usd}')::float8), 0)
FROM results r, jsonb_each(evalcore_jsonb(r.diagnostics)) d WHERE r.run_id = %s AND jsonb_typeof(d.value) = 'object'""",
)


def stored_spend(store: StoreConnection, run_id: str, contenders: bool = True) -> float:
    """USD the stored results of a run cost: their calls, their judges' calls and its pairwise judge's stored
    comparisons (unknown costs count 0).

    Args:
        store: the store.
        run_id: the run.
        contenders: count the contenders' own calls; False for a replay, whose stored usage copies the
            replayed run's and cost nothing this time.
    """
    with store.transaction("DEFERRED") as conn:
        calls, judges = conn.execute(_SPENT, (run_id,)).fetchone()
        (nested,) = conn.execute(_NESTED_JUDGES, (run_id,)).fetchone()
        (compared,) = conn.execute(_PAIRWISE, (run_id,)).fetchone()
    return float(judges) + float(nested) + float(compared) + (float(calls) if contenders else 0.0)


def record_cap(store: StoreConnection, run_id: str, cap_usd: float | None) -> None:
    """Store ``cap_usd`` as the run's budget cap in its settings (None: no cap), e.g. a resume's higher cap."""
    with store.transaction() as conn:
        found = conn.execute("SELECT settings FROM runs WHERE id = ?", (run_id,)).fetchone()
        if found is None:
            return
        settings = json.loads(found[0])
        if cap_usd is None:
            settings.pop(CAP_SETTING, None)
        else:
            settings[CAP_SETTING] = cap_usd
        conn.execute("UPDATE runs SET settings = ? WHERE id = ?", (to_json(settings), run_id))
