"""Which contenders are worth a look at all? The Pareto front of score against cost or time."""

from __future__ import annotations

import pandas as pd


def pareto_front(table: pd.DataFrame, x: str = "cost") -> list[str]:
    """Contenders not dominated on (``score`` higher is better, ``x`` lower is better).

    A row is dominated when another is at least as good on both and better on one. Rows with a
    null score or ``x`` are left out. Works for ``x="cost"`` and ``x="time"``.

    Returns:
        The front's contender ids, by ``x`` ascending (then score descending, then id).
    """
    known = table.dropna(subset=["score", x])
    score, other = known["score"].to_numpy(float), known[x].to_numpy(float)
    at_least = (score[:, None] >= score[None, :]) & (other[:, None] <= other[None, :])
    better = (score[:, None] > score[None, :]) | (other[:, None] < other[None, :])
    dominated = (at_least & better).any(axis=0)  # [j, i]: row j dominates row i
    front = known[~dominated]
    front = front.assign(_neg=-front["score"]).sort_values([x, "_neg", "contender"])
    return [str(c) for c in front["contender"]]
