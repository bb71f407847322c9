"""How many calls an adaptive run will make, estimated before it runs (``evalcore plan --adaptive``).

A race's calls depend on how far apart the contenders are, which only their answers tell. When the store
holds a past run of the same suite in which every contender of the plan answered every case (a run that
was not itself a race), the race is replayed over that run's per-case scores
(:func:`evalcore.analysis.stats.racing.replay_race`: the same rounds, confidence and margin, no call), over
several random orders of the cases, and the share of calls it made is applied to the plan. Without such a
run there is nothing to go on: the estimate says so, and the plan's full count is the ceiling.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from evalcore.analysis.stats.racing import SETTING, replay_race
from evalcore.execution.adaptive import race_order

if TYPE_CHECKING:
    import pandas as pd

    from evalcore.execution.plan import Plan
    from evalcore.storage.store import Store

#: Orders of the cases the race is replayed in: the estimate's range is over them.
ORDERS = 20
#: Past runs of the suite looked at, newest first, for one with every contender of the plan.
LOOK_BACK = 20


@dataclass(frozen=True)
class RaceEstimate:
    """An adaptive plan's calls: at most :attr:`ceiling`; about :attr:`calls` when a past run tells."""

    #: Every contender on every case: what the race can never exceed.
    ceiling: int
    #: The estimated calls (the mean over the replayed orders), or None when no past run tells.
    calls: int | None = None
    #: The fewest and most calls over the replayed orders.
    low: int | None = None
    high: int | None = None
    #: The past run whose scores were replayed, and how many of the plan's cases it answered.
    from_run: str | None = None
    cases: int = 0
    #: Why there is no estimate.
    why_not: str | None = None
    #: The rounds the race runs (the mean over the replayed orders) and the most it can run (every case).
    rounds: int | None = None
    max_rounds: int = 0
    #: The race's estimated cost: the full run's estimate times the share of its calls (None: unknown).
    usd: float | None = None
    full_usd: float | None = None

    def text(self) -> str:
        """``about 1,230 of at most 4,000 calls (31%; 25–38% over 20 orders of the cases), replaying run …``."""
        if self.calls is None or self.low is None or self.high is None:
            ceiling = f"at most {self.ceiling:,} calls (every contender on every case)"
            return f"{ceiling}; cannot estimate fewer: {self.why_not}"
        share = f"{self._share(self.calls)}; {self._share(self.low)}–{self._share(self.high)} over {ORDERS} orders"
        text = (
            f"about {self.calls:,} of at most {self.ceiling:,} calls ({share} of the cases), "
            f"replaying the race over run {self.from_run}'s scores on {self.cases:,} of its cases"
        )
        if self.rounds is not None:
            text += f"; about {self.rounds} of at most {self.max_rounds} rounds"
        if self.usd is not None and self.full_usd is not None:
            text += f"; about ${self.usd:.4f} of the full run's ${self.full_usd:.4f}"
        return text

    def _share(self, calls: int) -> str:
        return f"{100 * calls / self.ceiling:.0f}%" if self.ceiling else "0%"


def estimate_race(plan: Plan, store: Store | None, full_usd: float | None = None) -> RaceEstimate | None:
    """The calls, rounds and cost of ``plan``'s race, from the newest past run of its suite that tells; None for
    a plan that is not adaptive. ``full_usd``: the full run's estimated cost, scaled by the race's share of the
    calls (every call of a contender is taken to cost about the same)."""
    race = plan.options.adaptive
    if race is None:
        return None
    ceiling = plan.calls
    found = _past_scores(plan, store) if store is not None else None
    if isinstance(found, str) or found is None:
        return RaceEstimate(ceiling, why_not=found or "no store of past runs")
    run_id, matrix = found
    cases = matrix.shape[1]
    size = race.round_size(len(plan.cases))
    shares, lengths = [], []
    for seed in range(ORDERS):  # fixed orders: the same plan gives the same estimate
        shuffled = matrix[:, race_order(cases, seed)]
        replayed = replay_race(shuffled, size, race.confidence, race.margin)
        shares.append(replayed.calls / matrix.size)
        lengths.append(max(replayed.answered) / cases)  # the leader answers until the race ends
    calls = [round(s * ceiling) for s in shares]
    most = math.ceil(len(plan.cases) / size) if size else 0
    rounds = min(most, math.ceil(float(np.mean(lengths)) * len(plan.cases) / size)) if size else 0
    usd = None if full_usd is None or not ceiling else full_usd * float(np.mean(calls)) / ceiling
    mean = round(float(np.mean(calls)))
    return RaceEstimate(ceiling, mean, min(calls), max(calls), run_id, cases, None, rounds, most, usd, full_usd)


def _past_scores(plan: Plan, store: Store) -> tuple[str, np.ndarray] | str:
    """The newest past run of the plan's suite with every contender's score on the same cases: its id and
    its scores (contenders × cases, each case's mean over its samples); else why there is none."""
    wanted = [c.id for c in plan.contenders]
    keys = {(c.dataset, c.id) for c in plan.cases}
    runs = [r for r in store.list_runs() if r["suite"] == plan.suite.name][:LOOK_BACK]
    for past in runs:
        header = store.load_run(past["id"], results=False)
        if SETTING in header.info.settings or not set(wanted) <= {c.id for c in header.contenders}:
            continue
        matrix = _matrix(store.load_results_frame(past["id"]), wanted, keys)
        if matrix is not None:
            return past["id"], matrix
    if not runs:
        return f"the store has no past run of suite {plan.suite.name!r}"
    return f"no past run of suite {plan.suite.name!r} (of the newest {len(runs)}) has every contender on its cases"


def _matrix(frame: pd.DataFrame, contenders: list[str], keys: set[tuple[str, str]]) -> np.ndarray | None:
    """Per-case mean scores, contenders × the cases every one of them has a score on; None when fewer than two
    cases (nothing to race on) or a contender is missing."""
    scored = frame[(frame["status"] == "scored") & frame["contender"].isin(contenders)]
    scored = scored[[(d, c) in keys for d, c in zip(scored["dataset"], scored["case"], strict=True)]]
    table = scored.pivot_table(
        index="contender", columns=["dataset", "case"], values="score", aggfunc="mean", observed=True
    )
    table = table.reindex(contenders).dropna(axis=1)
    if table.shape[1] < 2 or table.isna().any().any():
        return None
    return table.to_numpy(dtype=float)
