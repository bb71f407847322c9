"""What a batch run will cost and how long it will take, before it runs (``evalcore plan --batch``).

The cost is the plan's estimate (:func:`~evalcore.execution.estimate.estimate_plan_cost`) with each contender's
share at its batch price (:func:`~evalcore.execution.batching.batch_share`); an adaptive plan's is the race's
estimate (:func:`~evalcore.execution.race_estimate.estimate_race`) scaled the same way. A plain batch run is one
round: one batch per contender. A race sends one batch per contender still in, each round, and waits for them
before the next: its wall time is its rounds times the stated turnaround of a batch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from evalcore.execution.batching import batch_share
from evalcore.execution.estimate import prices_of

if TYPE_CHECKING:
    from evalcore.execution.estimate import CostEstimate
    from evalcore.execution.plan import Plan
    from evalcore.execution.race_estimate import RaceEstimate


@dataclass(frozen=True)
class BatchEstimate:
    """A batch plan's cost, batches and wall time."""

    #: The run's estimated USD at the batch prices (a race's: the calls it is expected to make); None: unknown.
    usd: float | None
    #: The same calls at the interactive prices.
    interactive_usd: float | None
    #: Rounds of batches: 1 for a plain run; a race's expected rounds (its most, when no past run tells).
    rounds: int
    #: Batches sent, one per contender still in per round.
    batches: int
    #: The stated turnaround of one batch, and the rounds' wall time at it, in seconds.
    turnaround_s: float
    wall_s: float
    #: True when the race's rounds are its ceiling (no past run to estimate from).
    at_most: bool = False

    def lines(self) -> list[str]:
        """What ``plan`` prints: the cost at the batch price, then the batches and wall time."""
        cost = "unknown (no price for a contender)"
        if self.usd is not None and self.interactive_usd is not None:
            cost = f"${self.usd:.4f} at the batch prices (${self.interactive_usd:.4f} at the interactive ones)"
        bound = "at most " if self.at_most else "about " if self.rounds > 1 else ""
        rounds = f"{bound}{self.rounds} round{'s' if self.rounds != 1 else ''}"
        wall = f"{bound}{_duration(self.wall_s)} at {_duration(self.turnaround_s)} per batch"
        return [f"batch cost: {cost}", f"batches: {bound}{self.batches} in {rounds}; wall time {wall}"]


def estimate_batches(
    plan: Plan, estimate: CostEstimate, race: RaceEstimate | None, turnaround_s: float
) -> BatchEstimate:
    """The batch plan's cost (see the module), batches and wall time at ``turnaround_s`` per batch."""
    shares = {c.id: batch_share(c, prices_of(c)) for c in plan.contenders}
    known = [e for e in estimate.contenders if e.usd is not None]
    full = sum(e.usd or 0.0 for e in known) if len(known) == len(estimate.contenders) else None
    batch = sum((e.usd or 0.0) * shares.get(e.contender, 1.0) for e in known) if full is not None else None
    if race is None:
        contenders = len(plan.contenders)
        return BatchEstimate(batch, full, 1, contenders, turnaround_s, turnaround_s)
    size = plan.options.adaptive.round_size(len(plan.cases)) if plan.options.adaptive else len(plan.cases)
    at_most = race.calls is None or race.rounds is None
    rounds = race.max_rounds if at_most or race.rounds is None else race.rounds
    calls = race.ceiling if race.calls is None else race.calls
    batches = math.ceil(calls / max(1, size * plan.samples))
    share = calls / race.ceiling if race.ceiling else 1.0
    scaled = (None, None) if full is None or batch is None else (batch * share, full * share)
    return BatchEstimate(scaled[0], scaled[1], rounds, batches, turnaround_s, rounds * turnaround_s, at_most)


def _duration(seconds: float) -> str:
    """``45 s``, ``12 min``, ``3.5 h``."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
