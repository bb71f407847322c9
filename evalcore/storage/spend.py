"""What a stored run has spent, and the budget cap its settings record (``evalcore run --max-cost``).

A resumed run's cap covers the whole run, so the runner starts from what the stored results cost: the
contenders' own calls (``results.cost_usd``) and the calls an LLM judge made to score them (the judge's
total in each result's ``diagnostics``: under ``judge``, or under a scorer's id when a suite has several), and
the calls of its ``pairwise:`` judge (each stored verdict's ``cost_usd``), and what the stored results a resume
replaced had cost (a case the cap stopped midway, called again: its earlier steps were paid for), which the result
that replaced them carries in its ``diagnostics`` under :data:`EARLIER`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from evalcore.storage.dialects import query
from evalcore.storage.rows import to_json

if TYPE_CHECKING:
    from evalcore.storage.connection import StoreConnection

#: The key of a run's settings that holds its budget cap in USD (absent: no cap).
CAP_SETTING = "max_cost_usd"
#: The key of a result's diagnostics holding what the stored results it replaced had cost, ``{"cost_usd": …}``.
EARLIER = "earlier_calls"

Key = tuple[str, str, str, int]

_SPENT = query(
    """
SELECT COALESCE(SUM(cost_usd), 0), COALESCE(SUM(json_extract(diagnostics, '$.judge.cost_usd')), 0),
    COALESCE(SUM(json_extract(diagnostics, '$.cached.cost_usd')), 0)
FROM results WHERE run_id = ?
""",
    """SELECT COALESCE(SUM(cost_usd), 0),
    COALESCE(SUM((evalcore_jsonb(diagnostics) #>> '{judge,cost_usd}')::float8), 0),
    COALESCE(SUM((evalcore_jsonb(diagnostics) #>> '{cached,cost_usd}')::float8), 0) FROM results WHERE run_id = %s""",
)
_PAIRWISE = "SELECT COALESCE(SUM(cost_usd), 0) FROM pairwise WHERE run_id = ?"
# Read as text and summed here: the same statement runs on SQLite and PostgreSQL, and few rows carry a cost.
_EARLIER = f"SELECT diagnostics FROM results WHERE run_id = ? AND diagnostics LIKE '%{EARLIER}%'"
_ERRORS = """SELECT contender, dataset, "case", sample, error_message, cost_usd, diagnostics FROM results
WHERE run_id = ? AND error_kind IS NOT NULL"""
_NESTED_JUDGES = query(
    """
SELECT COALESCE(SUM(json_extract(d.value, '$.judge.cost_usd')), 0)
FROM results r, json_each(r.diagnostics) d WHERE r.run_id = ? AND d.type = 'object'
""",
    """SELECT COALESCE(SUM((d.value #>> '{judge,cost_usd}')::float8), 0)
FROM results r, jsonb_each(evalcore_jsonb(r.diagnostics)) d WHERE r.run_id = %s AND jsonb_typeof(d.value) = 'object'""",
)


def stored_spend(store: StoreConnection, run_id: str, contenders: bool = True) -> float:
    """USD the stored results of a run cost: their calls (less what the replies from the reply cache would have
    cost, ``diagnostics.cached.cost_usd``), their judges' calls, its pairwise judge's stored comparisons and the
    calls of the results they replaced (unknown costs count 0).

    Args:
        store: the store.
        run_id: the run.
        contenders: count the contenders' own calls; False for a replay, whose stored usage copies the
            replayed run's and cost nothing this time.
    """
    with store.transaction("DEFERRED") as conn:
        calls, judges, cached = conn.execute(_SPENT, (run_id,)).fetchone()
        (nested,) = conn.execute(_NESTED_JUDGES, (run_id,)).fetchone()
        (compared,) = conn.execute(_PAIRWISE, (run_id,)).fetchone()
        earlier = sum(earlier_cost(_diagnostics(text)) for (text,) in conn.execute(_EARLIER, (run_id,)).fetchall())
    own = float(calls) - float(cached)  # a reply from the reply cache carries what it would have cost, unpaid
    return float(judges) + float(nested) + float(compared) + earlier + (own if contenders else 0.0)


_CACHED = query(
    """SELECT contender, COUNT(*), COALESCE(SUM(cost_usd), 0), COALESCE(SUM(json_extract(diagnostics,
    '$.cached.cost_usd')), 0) FROM results WHERE run_id = ? AND json_extract(diagnostics, '$.cached.created_at')
    IS NOT NULL GROUP BY contender""",
    """SELECT contender, COUNT(*), COALESCE(SUM(cost_usd), 0),
    COALESCE(SUM((evalcore_jsonb(diagnostics) #>> '{cached,cost_usd}')::float8), 0) FROM results WHERE run_id = %s
    AND (evalcore_jsonb(diagnostics) #>> '{cached,created_at}') IS NOT NULL GROUP BY contender""",
)
_LISTED = "SELECT contender, COUNT(*), COALESCE(SUM(cost_usd), 0) FROM results WHERE run_id = ? GROUP BY contender"


def cached_spend(store: StoreConnection, run_id: str) -> dict[str, tuple[int, int, float, float]]:
    """Per contender of a run with replies from the reply cache: (results, of them from the cache, USD its calls
    would have cost without the cache, USD they did not pay); empty when no reply came from the cache."""
    with store.transaction("DEFERRED") as conn:
        cached = {c: (int(n), float(saved)) for c, n, _, saved in conn.execute(_CACHED, (run_id,)).fetchall()}
        if not cached:
            return {}
        listed = conn.execute(_LISTED, (run_id,)).fetchall()
    found = {}
    for contender, n, usd in listed:
        reused, saved = cached.get(contender, (0, 0.0))
        found[contender] = (int(n), reused, float(usd), saved)
    return found


def earlier_cost(diagnostics: dict[str, Any]) -> float:
    """What the stored results a result replaced had cost, as its ``diagnostics`` carry it (:data:`EARLIER`)."""
    found = diagnostics.get(EARLIER)
    cost = found.get("cost_usd") if isinstance(found, dict) else None
    return float(cost) if isinstance(cost, (int, float)) else 0.0


def replaced_spend(store: StoreConnection, run_id: str, keeps_reply: Iterable[str] = ()) -> dict[Key, float]:
    """What each stored error of a run cost, by key: its calls, its judges' and what it carried itself. A resume
    calls such a result again (a case the cap stopped midway, an error retried); the result that replaces it
    carries this over (:func:`carry_earlier`), so the run's spend keeps counting calls that were paid for.

    Args:
        store: the store.
        run_id: the run.
        keeps_reply: messages (their beginnings) of errors whose reply the replacing result keeps (a reply
            stored but not judged): their calls' own cost stays in that result, so it is not carried.
    """
    kept = tuple(keeps_reply)
    with store.transaction("DEFERRED") as conn:
        found = conn.execute(_ERRORS, (run_id,)).fetchall()
    spend: dict[Key, float] = {}
    for contender, dataset, case, sample, message, cost, text in found:
        diagnostics = _diagnostics(text)
        judges = [v.get("judge") for v in (diagnostics, *diagnostics.values()) if isinstance(v, dict)]
        usd = sum(float(j.get("cost_usd") or 0.0) for j in judges if isinstance(j, dict)) + earlier_cost(diagnostics)
        if cost is not None and not (message or "").startswith(kept):
            usd += float(cost)
        if usd > 0:
            spend[(contender, dataset, case, sample)] = usd
    return spend


def carry_earlier(diagnostics: dict[str, Any], cost_usd: float) -> None:
    """Record in a result's ``diagnostics`` that the results it replaced cost ``cost_usd`` (see :data:`EARLIER`)."""
    if cost_usd > 0:
        diagnostics[EARLIER] = {"cost_usd": cost_usd}


def _diagnostics(text: str | None) -> dict[str, Any]:
    found = json.loads(text) if text else {}
    return found if isinstance(found, dict) else {}


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
