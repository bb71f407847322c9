"""How many cases a suite needs to decide a question, before it runs (``evalcore plan --detect/--cases``).

The sizes are :mod:`evalcore.analysis.stats.power`'s; what they depend on (how much a case's score varies, how
alike two contenders answer) is read from the newest past run of the suite in the store that has at least
two contenders scored on :data:`MIN_SHARED` shared cases, a pilot run included (a run of the first cases
only has another definition fingerprint, and counts all the same: the spread of scores is the suite's).
Without one there is nothing to go on: the plan proposes a pilot of :data:`PILOT_CASES` cases and gives the
most cases any difference could need (scores at the largest variance, contenders unrelated).
"""

from __future__ import annotations

import math
import re
import shlex
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from evalcore.analysis.stats.power import (
    MIN_CASES,
    PILOT_CASES,
    POWER,
    WORST_VARIANCE,
    Spread,
    cases_needed,
    smallest_difference,
    spread_of,
)
from evalcore.core.errors import ConfigError
from evalcore.storage.frames import read_columns
from evalcore.suite.fingerprint import SETTING as FINGERPRINT_SETTING
from evalcore.suite.fingerprint import definition_fingerprint

if TYPE_CHECKING:
    from evalcore.execution.plan import Plan
    from evalcore.storage.store import Store

#: Past runs of the suite looked at, newest first.
LOOK_BACK = 20
#: The fewest cases two contenders must share for a past run to tell the suite's spread.
MIN_SHARED = 10
_POINTS = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(?:pts?|points?)\s*$", re.IGNORECASE)


def parse_difference(text: str) -> float:
    """``3pts`` (or ``3 points``) as 0.03; a bare fraction below 1 (``0.03``) as itself.

    Raises:
        ConfigError: anything else, quoting it.
    """
    found = _POINTS.match(text)
    try:
        value = float(found.group(1)) / 100 if found else float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= 1 or (not found and value >= 1):
        raise ConfigError(
            f"--detect {text!r}: give a difference in points of score (3pts) or as a fraction (0.03), above 0 "
            "and at most 100 points"
        )
    return value


@dataclass(frozen=True)
class SizePlan:
    """A suite's size for a paired comparison at 80% power and α = 0.05, and what it was worked out from."""

    #: The cases the plan selects (every contender answers each).
    suite_cases: int
    #: The difference asked about (``--detect``), and the cases it needs.
    detect: float | None = None
    needed: int | None = None
    #: The cases asked about (``--cases``), and the smallest difference they detect.
    cases: int | None = None
    smallest: float | None = None
    #: The spread the sizes come from, and the past run it was read from (None: none was found).
    spread: Spread | None = None
    from_run: str | None = None
    from_cases: int = 0
    from_contenders: int = 0
    same_definition: bool = False
    #: Without a past run: the pilot's cases per dataset (``--limit``), its command, and why there is none.
    pilot: int | None = None
    pilot_command: str = ""
    why_not: str | None = None
    notes: list[str] = field(default_factory=list)
    #: The plan's estimated cost of one case for its whole lineup (None: unknown).
    usd_per_case: float | None = None

    @property
    def needed_usd(self) -> float | None:
        """What :attr:`needed` cases would cost the plan's lineup at its estimate per case (None: unknown)."""
        return None if self.needed is None or self.usd_per_case is None else self.needed * self.usd_per_case

    def lines(self) -> list[str]:
        """The plan in a few sentences for a terminal."""
        if self.spread is None:
            return self._without_history()
        s = self.spread
        kind = "0/1 scores (McNemar's test)" if s.binary else "graded scores (paired mean difference)"
        which = "this definition of the suite" if self.same_definition else "an earlier definition of the suite"
        lines = [
            f"from run {self.from_run} ({which}: {self.from_contenders} contenders on {self.from_cases:,} cases): "
            f"{kind}, mean {_pts(s.mean)}, per-case variance {s.variance:.3f}, correlation between contenders "
            f"{s.correlation:.2f}"
        ]
        lines += self._answers()
        return lines + self.notes

    def _answers(self) -> list[str]:
        lines = []
        if self.detect is not None and self.needed is not None:
            lines.append(
                f"to detect a difference of {_pts(self.detect)} between two contenders ({POWER:.0%} power, "
                f"α = 0.05, two-sided): {self.needed:,} cases{self._cost()}; the plan has {self.suite_cases:,}"
            )
        if self.cases is not None:
            found = "more than 100 pts" if self.smallest is None or math.isnan(self.smallest) else _pts(self.smallest)
            lines.append(f"{self.cases:,} cases detect a difference of {found} or more ({POWER:.0%} power, α = 0.05)")
        return lines

    def _without_history(self) -> list[str]:
        lines = [
            f"no past run tells how this suite's scores vary ({self.why_not}): run a pilot of about "
            f"{PILOT_CASES} cases first, then plan again: {self.pilot_command}"
        ]
        if self.detect is not None and self.needed is not None:
            lines.append(
                f"until then, at most {self.needed:,} cases{self._cost()} detect {_pts(self.detect)} (scores at "
                "their largest variance, contenders unrelated); a pilot usually shows far fewer are needed"
            )
        if self.cases is not None and self.smallest is not None:
            lines.append(f"until then, {self.cases:,} cases detect at least {_pts(self.smallest)} whatever the scores")
        return lines

    def _cost(self) -> str:
        usd = self.needed_usd
        return "" if usd is None else f" (about ${usd:,.4f} for this lineup at the plan's estimate per case)"


def _pts(fraction: float) -> str:
    return f"{100 * fraction:.1f} pts"


def plan_size(
    plan: Plan, store: Store | None, detect: float | None = None, cases: int | None = None, usd: float | None = None
) -> SizePlan:
    """The cases ``plan``'s suite needs to detect ``detect``, or the smallest difference ``cases`` detect (the
    plan's case count when neither is given), from the newest past run of the suite that tells. ``usd``: the
    plan's estimated cost, which prices the cases needed.

    Raises:
        ConfigError: ``cases`` is below :data:`evalcore.analysis.stats.power.MIN_CASES`.
    """
    if cases is not None and cases < MIN_CASES:
        raise ConfigError(f"--cases {cases}: a paired comparison needs at least {MIN_CASES} cases to detect anything")
    if detect is None and cases is None:
        cases = max(len(plan.cases), MIN_CASES)
    per_case = usd / len(plan.cases) if usd is not None and plan.cases else None
    found = _past_spread(plan, store) if store is not None else "no store of past runs"
    if isinstance(found, str):
        worst = Spread(variance=WORST_VARIANCE, correlation=0.0)
        datasets = len({c.dataset for c in plan.cases}) or 1
        pilot = math.ceil(PILOT_CASES / datasets)
        return SizePlan(
            len(plan.cases),
            detect,
            None if detect is None else cases_needed(detect, worst),
            cases,
            None if cases is None else smallest_difference(cases, worst),
            pilot=pilot,
            usd_per_case=per_case,
            pilot_command=f"evalcore run {shlex.quote(str(plan.suite.path))} --limit {pilot}",
            why_not=found,
        )
    run_id, spread, shared, contenders, same = found
    needed = None if detect is None else cases_needed(detect, spread)
    notes = []
    if needed is not None and needed > len(plan.cases):
        have = smallest_difference(max(len(plan.cases), MIN_CASES), spread)
        notes.append(
            f"the plan's {len(plan.cases):,} cases are too few for {_pts(detect or 0)}: add cases, or settle for "
            f"detecting {_pts(have)}"
        )
    smallest = None if cases is None else smallest_difference(cases, spread)
    return SizePlan(
        len(plan.cases),
        detect,
        needed,
        cases,
        smallest,
        spread,
        run_id,
        shared,
        contenders,
        same,
        notes=notes,
        usd_per_case=per_case,
    )


def _past_spread(plan: Plan, store: Store) -> tuple[str, Spread, int, int, bool] | str:
    """The newest past run of the plan's suite with two contenders on :data:`MIN_SHARED` shared scored cases:
    its id, spread, cases, contenders and whether it has the plan's definition; else why there is none."""
    runs = [r for r in store.list_runs() if r["suite"] == plan.suite.name][:LOOK_BACK]
    for past in runs:
        table = _score_table(store, past["id"])
        if table is None:
            continue
        spread = spread_of(table)
        if spread is None:
            continue
        header = store.load_run(past["id"], results=False)
        same = header.info.settings.get(FINGERPRINT_SETTING) == definition_fingerprint(plan.suite, plan.cases)
        return past["id"], spread, table.shape[0], table.shape[1], same
    if not runs:
        return f"the store has no past run of suite {plan.suite.name!r}"
    return f"no past run of suite {plan.suite.name!r} has two contenders scored on {MIN_SHARED} shared cases"


def _score_table(store: Store, run_id: str) -> np.ndarray | None:
    """(cases, contenders) mean score of each scored case (NaN: none), keeping the cases at least two contenders
    share; None when fewer than :data:`MIN_SHARED` such cases."""
    columns = read_columns(store, run_id)
    scored = ~columns.is_error & ~np.isnan(columns.numbers["score"])
    shape = (len(columns.cases), len(columns.contenders))
    at = (columns.case[scored], columns.contender[scored])
    sums, counts = np.zeros(shape), np.zeros(shape)
    np.add.at(sums, at, columns.numbers["score"][scored])
    np.add.at(counts, at, 1.0)
    with np.errstate(invalid="ignore"):
        table = np.where(counts > 0, sums / np.maximum(counts, 1.0), np.nan)
    table = table[(counts > 0).sum(axis=1) >= 2]
    return table if len(table) >= MIN_SHARED else None
