"""How a run ends: what it leaves undone, and why, in the words its stored status keeps.

A run that leaves calls unmade or replies unjudged is ``interrupted`` (resumable), never ``completed``; its
reason names the stop: endpoints that could not be reached, the budget cap, or, for a worker of a shared run,
the work other workers left.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalcore.execution.budget import budget_message, left_message
from evalcore.execution.judge_calls import unjudged_keys
from evalcore.storage.history import STOPPED_BY_BUDGET, STOPPED_BY_UNREACHABLE

if TYPE_CHECKING:
    from evalcore.execution.progress import Progress
    from evalcore.storage.claims import Claims
    from evalcore.storage.store import Store


def left_undone(
    progress: Progress, claims: Claims | None, store: Store, run_id: str, pairs_unjudged: int
) -> tuple[int, int]:
    """Calls not made and replies (or comparisons) not judged. A worker of a shared run counts the whole run's
    (every worker's), from the claims and the stored results."""
    if claims is None:
        return progress.skipped + progress.over_budget, progress.unjudged
    unjudged = len(unjudged_keys(store, run_id))
    if claims.pairwise_left and not claims.left:  # every answer is in, not every comparison
        unjudged += max(1, pairs_unjudged)
    return claims.left, unjudged


def stop_reason(
    opened: list[str], progress: Progress, unrun: int, unjudged: int, samples: int, run_id: str
) -> dict[str, str]:
    """Why cases were left unrun: the messages of the endpoints that could not be reached (``opened``), the
    budget cap, or both (then the cap names the stop, since resuming needs a higher one)."""
    reasons = list(opened)
    if not progress.budget_reached:
        if not reasons:  # another worker of a shared run left them
            reasons.append(left_message(unrun, unjudged, samples, run_id))
        return {"stopped_by": STOPPED_BY_UNREACHABLE, "reason": "; ".join(reasons)}
    spent, cap = progress.spent_usd, progress.cap_usd or 0.0
    reasons.append(budget_message(spent, cap, unrun, samples, run_id, unjudged, progress.unfinished))
    return {"stopped_by": STOPPED_BY_BUDGET, "reason": "; ".join(reasons)}
