"""Flaky cases: a case whose outcome flips between runs that asked the same thing of the same contender.

A case's history is its outcome in each stored run, oldest first, among the runs of a suite that share a
definition fingerprint (:mod:`evalcore.suite.fingerprint`: same cases, scorers, prompts) and a contender with
the same model and settings. Its outcome in one run is pass (1) when the mean score of its scored samples is at
least 0.5, else fail (0); a run where every sample failed to answer leaves no outcome. A flip is a change of
outcome from one run to the next.

The test: under "not flaky", a case flips no more often than the (fingerprint, contender) group's cases flip on
average, p₀ = the group's flips / its transitions (a run to the next). A case with f flips over n transitions is
flaky when the one-sided binomial tail P(X ≥ f | n, p₀) is below α / m, m the group's cases with a transition
(Bonferroni): when no case is flaky, the chance of naming any case of a group is at most α (the family-wise false
positive rate; 0.05 by default), and in the seeded simulation of ``tests/analysis/test_flaky.py`` a stable
history named some case in well under 5% of the histories, while planted coin-flip cases were found.

A group whose cases never flip has p₀ = 0: nothing is flaky. A group where every case flips as often is
stable too; flakiness is a case flipping *more* than its peers. Pure functions on outcomes, plus
:func:`stored_histories`, which reads them from a store.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from evalcore.analysis.decisions.compare import Comparison
    from evalcore.core.records import Run
    from evalcore.storage.history import StoredRun
    from evalcore.storage.store import Store

#: The family-wise false positive rate of :func:`flaky_cases` per (fingerprint, contender) group.
ALPHA = 0.05
#: The test, in a sentence for a user (``alpha`` filled in).
FLAKY_TEST = (
    "flaky: its outcome (pass: mean score of its samples ≥ 0.5) flips between completed runs with the same "
    "definition fingerprint and contender settings more often than its group's cases do (one-sided binomial "
    "test, Bonferroni over the group's cases: a stable history names a case with chance at most {alpha:g})"
)
#: How many of a suite's newest completed runs a history reads: enough to tell, and a bound on what a gate reads.
RECENT_RUNS = 50
#: A run's outcome of a case is pass when its samples' mean score is at least this.
PASS_AT = 0.5


@dataclass(frozen=True)
class HistoryKey:
    """Whose history: a suite's definition fingerprint, a contender (model and settings), a case."""

    fingerprint: str
    contender: str
    dataset: str
    case: str


@dataclass(frozen=True)
class FlakyCase:
    """A case that flips more often than its group's cases do."""

    key: HistoryKey
    #: Outcomes, oldest run first (1 pass, 0 fail).
    outcomes: tuple[int, ...]
    flips: int
    #: The group's flip rate, the test's p₀.
    base_rate: float
    #: P(X ≥ flips) for X ~ Binomial(transitions, base_rate).
    p_value: float
    #: The Bonferroni threshold the p-value was below: α / the group's cases.
    threshold: float

    @property
    def flip_rate(self) -> float:
        """Flips per transition (run to next run)."""
        return self.flips / max(1, len(self.outcomes) - 1)


def flips_of(outcomes: Sequence[int]) -> int:
    """How many times the outcome changes from one run to the next."""
    return sum(a != b for a, b in zip(outcomes, outcomes[1:], strict=False))


def binomial_tail(k: int, n: int, p: float) -> float:
    """P(X ≥ k) for X ~ Binomial(n, p), exactly (n is a number of runs: small)."""
    if k <= 0:
        return 1.0
    if p <= 0:
        return 0.0
    if p >= 1:
        return 1.0
    return min(1.0, sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1)))


def flaky_cases(histories: Mapping[HistoryKey, Sequence[int]], alpha: float = ALPHA) -> list[FlakyCase]:
    """The flaky cases among these histories (see the module docstring for the test), most significant first.

    Args:
        histories: each case's outcomes, oldest run first.
        alpha: the family-wise false positive rate per (fingerprint, contender) group.
    """
    groups: dict[tuple[str, str], list[HistoryKey]] = defaultdict(list)
    for key, outcomes in histories.items():
        if len(outcomes) >= 2:
            groups[(key.fingerprint, key.contender)].append(key)
    found = []
    for keys in groups.values():
        flips = {key: flips_of(histories[key]) for key in keys}
        transitions = sum(len(histories[key]) - 1 for key in keys)
        base = sum(flips.values()) / transitions
        threshold = alpha / len(keys)
        for key in keys:
            p_value = binomial_tail(flips[key], len(histories[key]) - 1, base)
            if flips[key] and p_value < threshold:
                found.append(FlakyCase(key, tuple(histories[key]), flips[key], base, p_value, threshold))
    return sorted(found, key=lambda f: (f.p_value, -f.flips, f.key.dataset, f.key.case))


def contender_key(model: str, settings: Mapping[str, object]) -> str:
    """A contender as its model and settings: what makes two runs' contenders the same."""
    shown = json.dumps(dict(settings), sort_keys=True, default=str) if settings else ""
    return f"{model} {shown}".strip()


def stored_histories(store: Store, suite: str, fingerprint: str | None = None) -> dict[HistoryKey, list[int]]:
    """Every case's outcomes across the newest :data:`RECENT_RUNS` completed runs of ``suite`` in a store (only
    those of ``fingerprint`` when given: the others' results are not read), oldest run first."""
    from evalcore.storage.runs import RunFilters
    from evalcore.suite.fingerprint import SETTING

    histories: dict[HistoryKey, list[int]] = defaultdict(list)
    for listed in reversed(store.list_runs(RunFilters(suite=suite, status="completed", limit=RECENT_RUNS))):
        header = store.load_run(listed["id"], results=False)
        theirs = header.info.settings.get(SETTING)
        if not isinstance(theirs, str) or (fingerprint is not None and theirs != fingerprint):
            continue  # not made by evalcore run (nothing says what it asked), or asked something else
        whom = {c.id: contender_key(c.model, c.settings) for c in header.contenders}
        frame = store.load_results_frame(listed["id"])
        scored = frame[frame["status"] == "scored"]
        means = scored.groupby(["contender", "dataset", "case"], observed=True)["score"].mean()
        for (contender, dataset, case), mean in means.items():
            if not np.isnan(mean):
                key = HistoryKey(theirs, whom.get(str(contender), str(contender)), str(dataset), str(case))
                histories[key].append(int(mean >= PASS_AT))
    return dict(histories)


def mark_flaky(comparison: Comparison, candidate: Run | StoredRun, store: Store, alpha: float = ALPHA) -> Comparison:
    """The comparison with each pair's :attr:`~evalcore.analysis.decisions.compare.PairComparison.flaky`: the
    cases of its candidate contender that :func:`flaky_cases` names in the store's history of the candidate's
    suite, under the candidate's definition fingerprint. Nothing is marked for a run that records no fingerprint."""
    import dataclasses

    from evalcore.storage.history import header_of
    from evalcore.suite.fingerprint import SETTING

    head = header_of(candidate)
    fingerprint = head.info.settings.get(SETTING)
    if not isinstance(fingerprint, str):
        return comparison
    found = flaky_cases(stored_histories(store, head.info.suite, fingerprint), alpha)
    whom = {c.id: contender_key(c.model, c.settings) for c in head.contenders}
    pairs = []
    for pair in comparison.pairs:
        mine = frozenset(
            (f.key.dataset, f.key.case)
            for f in found
            if f.key.fingerprint == fingerprint and f.key.contender == whom.get(pair.candidate)
        )
        pairs.append(dataclasses.replace(pair, flaky=mine))
    return dataclasses.replace(comparison, pairs=pairs)


def flaky_note(comparison: Comparison) -> str | None:
    """How many of the flips are on known-flaky cases, in a sentence; None when none are."""
    counts = [(len(p.flaky_flips()), len(p.flips)) for p in comparison.pairs]
    on_flaky, every = sum(n for n, _ in counts), sum(m for _, m in counts)
    if not on_flaky:
        return None
    return (
        f"{on_flaky} of the {every} cases that changed are known to be flaky (evalcore flaky): their flips are as "
        "likely noise as a change"
    )


def run_flaky(store: Store, run_id: str, alpha: float = ALPHA) -> dict[tuple[str, str, str], FlakyCase]:
    """The flaky cases of a stored run's contenders, by (contender id, dataset, case): :func:`flaky_cases` of its
    suite's history under its definition fingerprint; empty for a run that records none."""
    from evalcore.suite.fingerprint import SETTING

    head = store.load_run(run_id, results=False)
    fingerprint = head.info.settings.get(SETTING)
    if not isinstance(fingerprint, str):
        return {}
    ids = {contender_key(c.model, c.settings): c.id for c in head.contenders}
    return {
        (ids[f.key.contender], f.key.dataset, f.key.case): f
        for f in flaky_cases(stored_histories(store, head.info.suite, fingerprint), alpha)
        if f.key.fingerprint == fingerprint and f.key.contender in ids
    }
