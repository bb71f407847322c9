"""How a run ends: what it leaves undone, and why, in the words its stored status keeps.

A run that leaves calls unmade or replies unjudged is ``interrupted`` (resumable), never ``completed``; its
reason names the stop: endpoints that could not be reached, the budget cap, or, for a worker of a shared run,
the work other workers left. A run whose store went away and stayed away ends without it
(:func:`end_without_store`).
"""

from __future__ import annotations

import logging
import sqlite3
from typing import TYPE_CHECKING

from evalcore.core.errors import StoreError
from evalcore.execution.budget import budget_message, left_message
from evalcore.models.breaker import BREAKER_PREFIXES
from evalcore.models.metering import UNFINISHED_PREFIX
from evalcore.scoring.client import UNJUDGED_PREFIX
from evalcore.storage.runs import STOPPED_BY_BUDGET, STOPPED_BY_STORE, STOPPED_BY_UNREACHABLE
from evalcore.storage.unsaved import keep_unsaved
from evalcore.trackers import ended_run

#: What a stored result's error message begins with when a resume calls it again (judging aside).
CALLED_AGAIN = (*BREAKER_PREFIXES, UNFINISHED_PREFIX)

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from evalcore.execution.progress import Progress
    from evalcore.execution.writer import ResultWriter
    from evalcore.storage.claims import Claims
    from evalcore.storage.store import Store
    from evalcore.trackers import TrackerHub


def left_undone(
    progress: Progress, claims: Claims | None, store: Store, run_id: str, pairs_unjudged: int
) -> tuple[int, int]:
    """Calls not made (or cut off by their endpoint's breaker: a resume makes them again) and replies (or
    comparisons) not judged. A worker of a shared run counts the whole run's (every worker's), from the claims
    and the stored results."""
    if claims is None:
        return progress.skipped + progress.over_budget + progress.cut_off, progress.unjudged
    messages = store.error_messages(run_id)
    unjudged = sum((m or "").startswith(UNJUDGED_PREFIX) for m in messages.values())
    # A case the cap stopped midway, or a call cut off by its endpoint's breaker, has its slot done (its result
    # is stored), yet a resume calls it again.
    unfinished = sum((m or "").startswith(CALLED_AGAIN) for m in messages.values())
    if claims.pairwise_left and not claims.left:  # every answer is in, not every comparison
        unjudged += max(1, pairs_unjudged)
    return claims.left + unfinished, unjudged


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


def finish_trackers(trackers: TrackerHub, store: Store, run_id: str) -> list[str]:
    """Tell the trackers the run ended (they read its leaderboard on their own threads); their lines about what they
    could not send, logged at INFO: the caller says each (the CLI prints it), a warning would say it twice."""
    unsent = trackers.finish(lambda: ended_run(store, run_id))
    for line in unsent:
        log.info("run %s: %s", run_id, line)
    return unsent


def close_claims(claims: Claims, wait: bool) -> str | None:
    """Give back the slots a worker holds (:meth:`Claims.close`); why not, when its store went away."""
    try:
        claims.close(wait=wait)
    except (StoreError, sqlite3.Error) as exc:
        return str(exc)
    return None


def end_without_store(
    store: Store, run_id: str, writer: ResultWriter, claims: Claims | None, lost: str, progress: Progress
) -> None:
    """End a run whose store went away and stayed away (``lost`` says how): keep the results the writer could not
    store in a file that ``evalcore run --resume`` stores, mark the run ``interrupted`` if the store takes it,
    give a worker's slots back if it can; the progress's :attr:`~Progress.store_lost` is the one line that says
    so."""
    kept = ""
    if writer.unsaved:
        try:
            kept = f"; {len(writer.unsaved)} results paid for are kept in {keep_unsaved(run_id, writer.unsaved)}"
        except OSError as exc:
            kept = f"; {len(writer.unsaved)} results paid for are lost: they cannot be kept in a file either ({exc})"
    try:
        store.set_status(run_id, "interrupted", stopped_by=STOPPED_BY_STORE, reason=lost)
        then = ""
    except (StoreError, sqlite3.Error) as exc:
        log.info("run %s: its status cannot be stored: %s", run_id, exc)
        then = " (it reads running until then)"
    held = ""
    if claims is not None:
        try:  # the slots this worker holds go back to the others at once, if the store lets them
            claims.close(wait=False)
        except (StoreError, sqlite3.Error):
            held = f"; the slots this worker holds go back to the others when its lease lapses ({claims.lease_s:g} s)"
    progress.store_lost = (
        f"run {run_id} stopped: {lost}{kept}{held}; once the store is back, evalcore run --resume {run_id} "
        f"stores them and calls what is left{then}"
    )
    progress.message, progress.status = progress.store_lost, "interrupted"
