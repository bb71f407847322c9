"""Baselines: per suite, the run (and contender) that ``evalcore gate`` compares a candidate with.

A pin is one row per suite; pinning again replaces it, and deleting the pinned run removes it. Without a
pin, :func:`automatic_baseline` finds the newest earlier completed run of the suite whose definition
fingerprint (:mod:`evalcore.suite.fingerprint`) is the candidate's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from evalcore.core.clock import utc_now
from evalcore.suite.fingerprint import SETTING as FINGERPRINT_SETTING

if TYPE_CHECKING:
    from evalcore.storage.store import Store

COLUMNS = ("suite", "run_id", "contender", "pinned_at")


def pin_baseline(store: Store, suite: str, run_id: str, contender: str, pinned_at: str | None = None) -> None:
    """Pin ``run_id``'s ``contender`` as the baseline of ``suite`` (replacing any earlier pin), at ``pinned_at``
    (default: now)."""
    with store.transaction() as conn:
        conn.execute(
            "INSERT OR REPLACE INTO baselines (suite, run_id, contender, pinned_at) VALUES (?, ?, ?, ?)",
            (suite, run_id, contender, pinned_at or utc_now()),
        )


def baseline(store: Store, suite: str) -> dict[str, Any] | None:
    """The pin of ``suite``: ``{suite, run_id, contender, pinned_at}``, or None."""
    with store.transaction("DEFERRED") as conn:
        row = conn.execute(f"SELECT {', '.join(COLUMNS)} FROM baselines WHERE suite = ?", (suite,)).fetchone()
    return dict(zip(COLUMNS, row, strict=True)) if row else None


def baselines(store: Store) -> list[dict[str, Any]]:
    """Every pin, by suite name."""
    with store.transaction("DEFERRED") as conn:
        rows = conn.execute(f"SELECT {', '.join(COLUMNS)} FROM baselines ORDER BY suite").fetchall()
    return [dict(zip(COLUMNS, row, strict=True)) for row in rows]


def clear_baseline(store: Store, suite: str) -> bool:
    """Remove the pin of ``suite``; whether there was one."""
    with store.transaction() as conn:
        return conn.execute("DELETE FROM baselines WHERE suite = ?", (suite,)).rowcount > 0


#: The runs a candidate may be compared with automatically: the suite's runs started before it, newest first
#: (a run started in the same second counts as earlier when it was stored first).
EARLIER_RUNS = f"""
SELECT id, status, json_extract(settings, '$.{FINGERPRINT_SETTING}') FROM runs
WHERE suite = :suite AND id != :id AND (created_at < :created OR (created_at = :created AND rowid < :rowid))
ORDER BY created_at DESC, rowid DESC
"""


@dataclass(frozen=True)
class AutomaticBaseline:
    """The run :func:`automatic_baseline` chose (None: none) and why, in a sentence the gate prints."""

    run_id: str | None
    why: str


def automatic_baseline(
    store: Store, suite: str, run_id: str, created_at: str, fingerprint: str | None
) -> AutomaticBaseline:
    """The newest completed run of ``suite`` before run ``run_id`` (started at ``created_at``) whose definition
    fingerprint is ``fingerprint``; a run whose fingerprint differs (or that records none) is never chosen."""
    if not fingerprint:
        return AutomaticBaseline(
            None, f"run {run_id} records no definition fingerprint (it was not made by evalcore run)"
        )
    with store.transaction("DEFERRED") as conn:
        stored = conn.execute("SELECT rowid FROM runs WHERE id = ?", (run_id,)).fetchone()
        # A candidate read from a file is not stored: every run of its second counts as earlier.
        where = {"suite": suite, "id": run_id, "created": created_at, "rowid": stored[0] if stored else 2**62}
        rows = conn.execute(EARLIER_RUNS, where).fetchall()
    for other, status, theirs in rows:
        if theirs == fingerprint and status == "completed":
            return AutomaticBaseline(
                other,
                f"the newest earlier completed run of suite {suite} with the same definition fingerprint {fingerprint}",
            )
    if not rows:
        return AutomaticBaseline(None, f"no earlier run of suite {suite} in the store")
    same = sum(theirs == fingerprint for _, _, theirs in rows)
    if same:
        return AutomaticBaseline(
            None,
            f"the {same} earlier run(s) of suite {suite} with definition fingerprint {fingerprint} did not complete",
        )
    newest_id, _, newest = rows[0]
    return AutomaticBaseline(
        None,
        f"no earlier run of suite {suite} has definition fingerprint {fingerprint} (the newest, {newest_id}, has "
        f"{newest or 'none'}): the cases, expected answers, scorers, prompts or the suite's version changed",
    )
