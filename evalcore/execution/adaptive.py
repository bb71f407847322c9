"""Adaptive runs (``evalcore run --adaptive``): stop calling the contenders that cannot be the best.

The run calls its cases in a random order drawn from a seed, in rounds: every contender still in answers a
round's cases, then the race (:func:`evalcore.analysis.stats.racing.judge_round`) stops those that, with the chosen
confidence, cannot be the best by score. The run ends when one contender is left, when the leaders are within
the margin, or when the cases run out. A stopped contender keeps what it answered; nothing is stored for the
cases it skipped.

The run records the race in its settings under :data:`SETTING` (free form in the run file, so a reader that
knows nothing of races still reads it): the seed, confidence, margin and round size, and each stop (after how
many cases, behind whom, by how much at least), and when it ends, why, and the calls it made of those a run
without the race would have made (``calls`` of ``of_calls``). A resumed run replays the recorded rounds from its stored
results, which reach the same decisions, and continues the race.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from evalcore.analysis.stats.racing import (
    CASES_RAN_OUT,
    SETTING,
    TIED,
    Round,
    judge_round,
    race_stops,
    stop_text,
)
from evalcore.core.records import Case, Contender, Result
from evalcore.execution.race_settings import RaceSettings
from evalcore.storage.history import update_settings

if TYPE_CHECKING:
    from evalcore.core.records import Run
    from evalcore.execution.plan import Plan
    from evalcore.execution.progress import Progress
    from evalcore.storage.store import Store

log = logging.getLogger(__name__)


def race_order(cases: int, seed: int) -> list[int]:
    """The order an adaptive run calls its cases in: positions of the plan's cases, shuffled by ``seed``."""
    return random.Random(seed).sample(range(cases), cases)


class Rounds(Protocol):
    """What the race needs of the runner: calling a round, and the run's progress."""

    progress: Progress

    async def run_round(self, contenders: Sequence[Contender], cases: Sequence[Case]) -> None: ...


class Race:
    """The race of one adaptive run: every score so far, in race order, and who is still in."""

    def __init__(
        self,
        settings: RaceSettings,
        contenders: Sequence[Contender],
        cases: Sequence[Case],
        store: Store,
        run_id: str,
        stored: Sequence[Result] = (),
        stopped: Mapping[str, dict[str, Any]] | None = None,
        calls: int | None = None,
    ):
        self.settings, self.contenders, self.cases = settings, list(contenders), list(cases)
        #: The calls a run without the race would make (every contender on every case and sample).
        self.calls = len(self.contenders) * len(self.cases) if calls is None else calls
        self.store, self.run_id = store, run_id
        self.order = race_order(len(self.cases), settings.seed)
        self.position = {self.cases[i].key: at for at, i in enumerate(self.order)}
        self.sums = {c.id: np.zeros(len(self.cases)) for c in self.contenders}
        self.counts = {c.id: np.zeros(len(self.cases)) for c in self.contenders}
        self.stopped: dict[str, dict[str, Any]] = dict(stopped or {})
        #: Each contender's cost so far and the results it is known for: a tie in score goes to the cheaper.
        self.costs = {c.id: [0.0, 0] for c in self.contenders}
        #: Results of the run's contenders so far, a resumed run's stored ones included: the calls it made.
        self.made = 0
        for result in stored:
            self.add(result)

    def add(self, result: Result) -> None:
        """Count a result's score (an error counts nothing: the case has no score for that contender) and cost."""
        cost = result.usage.cost_usd
        self.made += result.contender in self.costs
        if result.contender in self.costs and cost is not None:
            self.costs[result.contender][0] += cost
            self.costs[result.contender][1] += 1
        if result.status != "scored" or result.score is None or result.contender not in self.sums:
            return
        at = self.position[(result.dataset, result.case)]
        self.sums[result.contender][at] += result.score
        self.counts[result.contender][at] += 1

    def scores(self, upto: int) -> dict[str, np.ndarray]:
        """Each contender's mean score per case over the first ``upto`` cases of the race, NaN where it has none."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return {
                c: self.sums[c][:upto] / np.where(self.counts[c][:upto] > 0, self.counts[c][:upto], np.nan)
                for c in self.sums
            }

    async def run(self, rounds: Rounds) -> None:
        """Call the rounds, stopping contenders as the race decides, until it ends."""
        size, total = self.settings.round_size(len(self.cases)), len(self.cases)
        ended, upto = CASES_RAN_OUT, total
        for start in range(0, total, size):
            running = [c for c in self.contenders if c.id not in self.stopped]
            upto = min(total, start + size)
            await rounds.run_round(running, [self.cases[i] for i in self.order[start:upto]])
            decided = judge_round(
                self.scores(upto),
                [c.id for c in running],
                len(self.contenders),
                self.settings.confidence,
                self.settings.margin,
                {c: spent / n for c, (spent, n) in self.costs.items() if n},
            )
            if upto == total:  # whoever is still in has answered every case: nobody is stopped, the cases ran out
                decided = Round([], decided.leader, TIED if decided.ended == TIED else None)
            self._record(decided, upto, rounds.progress)
            if decided.ended:
                ended = decided.ended
                break
        self._end(ended, upto, rounds.progress)

    def _record(self, decided: Round, upto: int, progress: Progress) -> None:
        new: list[dict[str, Any]] = []
        for stop in decided.stops:
            entry = {
                "contender": stop.contender,
                "after_cases": upto,
                "of_cases": len(self.cases),
                "answered": stop.after_cases,
                "behind": stop.behind,
                "by_at_least": stop.by_at_least,
            }
            self.stopped[stop.contender] = entry
            new.append(entry)
            mark_stopped(progress, entry)
        if new:
            log.info("race: stopped %s after %d cases", ", ".join(str(e["contender"]) for e in new), upto)
            update_settings(self.store, self.run_id, lambda s: _with(s, stops=[*s[SETTING]["stops"], *new]))

    def _end(self, ended: str, upto: int, progress: Progress) -> None:
        progress.race = ended
        for contender in self.contenders:
            p = progress.contenders.get(contender.id)
            if p is not None and p.finished is None:
                p.finished = time.monotonic()
                if upto < len(self.cases):
                    p.stopped = f"the race ended after {upto} of {len(self.cases)} cases: {ended}"
        update_settings(
            self.store,
            self.run_id,
            lambda s: _with(s, ended=ended, ended_after_cases=upto, calls=self.made, of_calls=self.calls),
        )


def _with(settings: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return {**settings, SETTING: {**settings[SETTING], **changes}}


def mark_stopped(progress: Progress, stop: Mapping[str, Any]) -> None:
    """Show a stop in the run's progress: the contender's bar says why, and its calls left count as saved."""
    p = progress.contenders.get(stop["contender"])
    if p is not None:
        p.stopped = stop_text(stop)
        p.finished = p.finished or time.monotonic()


def open_race(plan: Plan, store: Store, run: Run, done: set[tuple[str, str, str, int]]) -> Race | None:
    """The race of an adaptive plan, with a resumed run's stored scores and stops; None for a plain run."""
    settings = plan.options.adaptive
    if settings is None:
        return None
    stored = store.load_run(run.info.id).results if done else []
    stopped = race_stops(run.info.settings) if done else {}
    return Race(settings, plan.contenders, plan.cases, store, run.info.id, stored, stopped, plan.calls)
