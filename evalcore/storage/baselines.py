"""Pinned baselines: per suite, the run (and contender) that ``evalcore gate`` compares a candidate with.

A pin is one row per suite; pinning again replaces it, and deleting the pinned run removes it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from evalcore.core.clock import utc_now

if TYPE_CHECKING:
    from evalcore.storage.store import Store

COLUMNS = ("suite", "run_id", "contender", "pinned_at")


def pin_baseline(store: Store, suite: str, run_id: str, contender: str) -> None:
    """Pin ``run_id``'s ``contender`` as the baseline of ``suite`` (replacing any earlier pin)."""
    with store.transaction() as conn:
        conn.execute(
            "INSERT OR REPLACE INTO baselines (suite, run_id, contender, pinned_at) VALUES (?, ?, ?, ?)",
            (suite, run_id, contender, utc_now()),
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
