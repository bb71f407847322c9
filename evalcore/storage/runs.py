"""The runs table as the store reads and writes it: the run list and its filters, a run's status and who stopped
it, a run id from a unique prefix, the counts and past spend read from a run's results.

A run the user stopped (Cancel in the app, Ctrl-C) is stored with the run file's status ``interrupted``
and ``"stopped_by": "user"`` in its settings; everything that shows a status shows it as ``cancelled``
(:func:`status_label`). A crash stays ``interrupted``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from evalcore.core.errors import StoreError
from evalcore.storage.rows import to_json

#: What a stopped run's settings say stopped it: the user, an endpoint that could not be reached, or the
#: run's budget cap (``--max-cost``).
STOPPED_BY_USER = "user"
STOPPED_BY_UNREACHABLE = "unreachable"
STOPPED_BY_BUDGET = "budget"
#: The store could not be written (it went away and did not come back in time).
STOPPED_BY_STORE = "store"
#: How a run the user stopped reads (its stored status is ``interrupted``, as the run file allows).
CANCELLED = "cancelled"
#: The shortest run id prefix taken in place of a whole id.
MIN_PREFIX = 4
#: The key of a run's settings that holds the labels it was run with (``evalcore run --metadata KEY=VALUE``).
METADATA_SETTING = "metadata"

LIST_RUNS = f"""
SELECT r.id, r.suite, r.created_at, r.finished_at,
       CASE WHEN r.status = 'interrupted' AND json_extract(r.settings, '$.stopped_by') = '{STOPPED_BY_USER}'
            THEN '{CANCELLED}' ELSE r.status END AS status,
       COALESCE(ct.n, 0) AS contenders, COALESCE(cs.n, 0) AS cases,
       COALESCE(t.results, 0) AS results, COALESCE(t.errors, 0) AS errors,
       CASE WHEN t.costs > 0 THEN t.cost_usd END AS cost_usd,
       COALESCE(json_extract(r.provenance, '$.launched_by.email'), json_extract(r.provenance, '$.launched_by.name'))
           AS launched_by,
       json_extract(r.settings, '$.{METADATA_SETTING}') AS metadata
FROM runs r
LEFT JOIN (SELECT run_id, COUNT(*) AS n FROM contenders GROUP BY run_id) ct ON ct.run_id = r.id
LEFT JOIN (SELECT run_id, COUNT(*) AS n FROM cases GROUP BY run_id) cs ON cs.run_id = r.id
LEFT JOIN run_totals t ON t.run_id = r.id
"""


@dataclass
class RunFilters:
    """Which runs of the history to list (:func:`list_runs_query`); every field left empty matches every run."""

    #: Only runs of this suite (its name, exactly).
    suite: str | None = None
    #: Only runs whose status reads this (``completed``, ``running``, ``interrupted``, ``failed``, ``cancelled``).
    status: str | None = None
    #: Only runs created at or after this RFC 3339 time or date (``2026-11-29``: that day's start, UTC).
    since: str | None = None
    #: Only runs whose metadata has each of these keys with this value.
    metadata: dict[str, str] = field(default_factory=dict)
    #: At most this many runs, the newest.
    limit: int | None = None


def list_runs_query(filters: RunFilters) -> tuple[str, list[Any]]:
    """The SQL and parameters of the runs ``filters`` lets through, newest first (:data:`LIST_RUNS`' columns)."""
    where: list[str] = []
    params: list[Any] = []
    if filters.suite is not None:
        where.append("suite = ?")
        params.append(filters.suite)
    if filters.status is not None:
        where.append("status = ?")
        params.append(filters.status)
    if filters.since is not None:
        where.append("created_at >= ?")
        params.append(filters.since)
    for key, value in filters.metadata.items():
        # A JSON path with the key quoted, so a key with dots or spaces is one key.
        where.append("json_extract(metadata, ?) = ?")
        params += [f'$."{key}"', value]
    sql = f"SELECT * FROM ({LIST_RUNS}) AS listed" + (" WHERE " + " AND ".join(where) if where else "")
    sql += " ORDER BY created_at DESC, id"
    if filters.limit is not None:
        sql += " LIMIT ?"
        params.append(filters.limit)
    return sql, params


def run_entry(row: dict[str, Any]) -> dict[str, Any]:
    """A row of :func:`list_runs_query` as :meth:`Store.list_runs` gives it: its metadata a dict (``{}``: none)."""
    row["metadata"] = json.loads(row["metadata"]) if row["metadata"] else {}
    return row


RESULT_COUNTS = """
SELECT ct.id, COUNT(r.sample), COUNT(CASE WHEN r.status = 'error' THEN 1 END) FROM contenders ct
LEFT JOIN results r ON r.run_id = ct.run_id AND r.contender = ct.id
WHERE ct.run_id = ? GROUP BY ct.id, ct.position ORDER BY ct.position
"""

PAST_SPEND = """
SELECT r.input_tokens, r.output_tokens, r.trace FROM results r JOIN runs ON runs.id = r.run_id
WHERE runs.suite = ? AND r.contender = ? AND r.dataset = ? AND r.status = 'scored' AND r.output_tokens IS NOT NULL
ORDER BY runs.created_at DESC LIMIT ?
"""


def with_stop(settings: dict[str, Any], status: str, stopped_by: str | None, reason: str | None) -> dict[str, Any]:
    """A run's settings with who stopped it (``stopped_by``) and why (``stop_reason``) for an ``interrupted``
    status; any other status (a resumed run, a completed one) drops both."""
    stop = {"stopped_by": stopped_by, "stop_reason": reason} if status == "interrupted" else {}
    settings = dict(settings)
    for key in ("stopped_by", "stop_reason"):
        if stop.get(key) is None:
            settings.pop(key, None)
        else:
            settings[key] = stop[key]
    return settings


def update_status(
    conn: sqlite3.Connection,
    run_id: str,
    status: str,
    finished_at: str | None,
    stopped_by: str | None = None,
    reason: str | None = None,
) -> bool:
    """Store a run's status, end and stop (:func:`with_stop`) in the open transaction; False for an unknown run."""
    found = conn.execute("SELECT settings FROM runs WHERE id = ?", (run_id,)).fetchone()
    if found is None:
        return False
    settings = with_stop(json.loads(found[0]), status, stopped_by, reason)
    conn.execute(
        "UPDATE runs SET status = ?, finished_at = ?, settings = ? WHERE id = ?",
        (status, finished_at, to_json(settings), run_id),
    )
    return True


def status_label(status: str, settings: Mapping[str, Any]) -> str:
    """How a run's status reads: ``cancelled`` for a run the user stopped, else the status itself.

    Args:
        status: the stored (run file) status: running, completed, interrupted or failed.
        settings: the run's settings (``run.info.settings``).
    """
    if status == "interrupted" and settings.get("stopped_by") == STOPPED_BY_USER:
        return CANCELLED
    return status


def resolve_run_id(conn: sqlite3.Connection, ref: str, where: str) -> str:
    """The stored run id that ``ref`` is, or is the unique prefix of.

    Raises:
        StoreError: no run matches, the prefix is ambiguous (the matches are listed) or shorter than
            :data:`MIN_PREFIX` characters.
    """
    if conn.execute("SELECT 1 FROM runs WHERE id = ?", (ref,)).fetchone() is not None:
        return ref
    if len(ref) < MIN_PREFIX:
        raise StoreError(
            f"run id {ref!r} is too short: give at least {MIN_PREFIX} characters of it (`evalcore runs` lists them)"
        )
    escaped = ref.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    found = conn.execute(
        "SELECT id, suite, created_at FROM runs WHERE id LIKE ? ESCAPE '\\' ORDER BY created_at DESC, id LIMIT 11",
        (escaped + "%",),
    ).fetchall()
    # LIKE ignores ASCII case; an id is matched by its exact prefix.
    found = [row for row in found if row[0].startswith(ref)]
    if len(found) == 1:
        return str(found[0][0])
    if not found:
        raise StoreError(f"no run {ref!r} in {where}: `evalcore runs` lists the stored runs")
    shown = "".join(f"\n  {rid}  {suite}  {created}" for rid, suite, created in found[:10])
    count, more = (str(len(found)), "") if len(found) <= 10 else ("more than 10", "\n  …")
    raise StoreError(f"run id {ref!r} is ambiguous: it begins {count} runs; give more of it:{shown}{more}")
