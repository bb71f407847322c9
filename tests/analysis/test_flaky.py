"""Flaky cases: the binomial test against the group's flip rate finds planted coin-flip cases in a seeded history,
and names no case of a stable history more often than its stated family-wise false-positive rate."""

from __future__ import annotations

import numpy as np
import pytest

from evalcore.analysis.decisions.flaky import ALPHA, HistoryKey, binomial_tail, flaky_cases, flips_of


def _history(rng, n_cases: int, runs: int, flip: float, planted: int = 0) -> dict[HistoryKey, list[int]]:
    """Cases that start right and flip with chance ``flip`` from a run to the next; the first ``planted`` are right
    or wrong by a coin toss in every run (flaky)."""
    histories = {}
    for i in range(n_cases):
        if i < planted:
            outcomes = list(rng.integers(0, 2, size=runs))
        else:
            changes = rng.random(runs - 1) < flip
            outcomes = [1]
            for change in changes:
                outcomes.append(1 - outcomes[-1] if change else outcomes[-1])
        histories[HistoryKey("fp", "fake/x", "d", f"{i:03d}")] = [int(o) for o in outcomes]
    return histories


def test_the_binomial_tail_matches_the_sum_of_its_terms():
    assert binomial_tail(0, 5, 0.3) == 1.0
    assert binomial_tail(5, 5, 0.5) == pytest.approx(1 / 32)
    assert binomial_tail(2, 3, 0.5) == pytest.approx(4 / 8)
    assert binomial_tail(1, 4, 0.0) == 0.0


def test_flips_count_the_changes_from_one_run_to_the_next():
    assert flips_of([1, 1, 0, 0, 1]) == 2 and flips_of([1]) == 0


def test_planted_coin_flip_cases_are_found_in_a_seeded_history_and_no_stable_case_with_them():
    planted = {"000", "001", "002"}
    found, wrongly = 0, 0
    for seed in range(100):
        histories = _history(np.random.default_rng(seed), n_cases=60, runs=20, flip=0.02, planted=3)
        named = {f.key.case for f in flaky_cases(histories)}
        found, wrongly = found + len(named & planted), wrongly + len(named - planted)
    # A coin-flip case flips about 9.5 times in 19 transitions, a stable one about 0.4: 20 runs find 98% of them
    # (10 runs found 69%: a case needs 4 flips in 9 to stand out).
    assert found / 300 >= 0.95 and wrongly == 0


@pytest.mark.parametrize("flip", [0.0, 0.02, 0.1])
def test_a_stable_history_names_a_flaky_case_at_most_at_the_stated_rate(flip):
    histories_with_any = sum(
        bool(flaky_cases(_history(np.random.default_rng(seed), n_cases=60, runs=10, flip=flip))) for seed in range(400)
    )
    assert histories_with_any / 400 <= ALPHA


def test_a_case_with_one_run_has_no_history_to_judge():
    assert flaky_cases({HistoryKey("fp", "c", "d", "x"): [1]}) == []
