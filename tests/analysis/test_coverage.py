"""The 95% intervals of paired differences cover the true difference, in a small seeded simulation with known
truth (the full grid is ``bench/bench_coverage.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from evalcore.analysis.draws import expanded_level
from evalcore.analysis.paired import paired_differences

#: (pa, pb, nested): the cells where the old sign-test interval covered 60-86% of the time.
CELLS = [(0.99, 0.80, False), (0.95, 0.60, False), (0.90, 0.50, True), (0.80, 0.70, True)]


def _coverage(pa: float, pb: float, nested: bool, n: int, samples: int, reps: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    u = rng.random((n, reps, samples))
    v = u if nested else rng.random((n, reps, samples))
    a, b = (u < pa).mean(axis=2), (v < pb).mean(axis=2)  # a column per replicate run
    rows = paired_differences(a, b, B=1000, seed=seed)
    held = [r["lo"] <= pa - pb + 1e-9 and pa - pb - 1e-9 <= r["hi"] for r in rows]
    return float(np.mean(held))


@pytest.mark.parametrize(("pa", "pb", "nested"), CELLS)
def test_the_0_1_interval_covers_the_true_difference_at_least_93_percent_of_the_time(pa, pb, nested):
    assert _coverage(pa, pb, nested, n=100, samples=1, reps=1000, seed=1) >= 0.93


#: (pa, pb, nested) on 30 cases: the plain percentile interval's worst cell, and the differences that are mostly 0
#: (0.90 with the percentile interval alone, 0.92 with BCa alone where a single case differs).
SAMPLE_CELLS = [(0.85, 0.55, False), (0.99, 0.85, True), (0.99, 0.95, True), (1.0, 0.99, False)]


@pytest.mark.parametrize(("pa", "pb", "nested"), SAMPLE_CELLS)
def test_the_bootstrap_interval_of_averaged_samples_covers_at_least_93_percent_of_the_time_on_30_cases(pa, pb, nested):
    assert _coverage(pa, pb, nested, n=30, samples=3, reps=1000, seed=2) >= 0.93


def test_the_expanded_percentile_level_matches_the_t_quantile():
    # Hesterberg (2015): 1 − 2Φ(−√(n/(n−1)) t) with t_{0.975, 29} = 2.04523 (Student's t tables): 0.96249.
    assert expanded_level(30)[0] == pytest.approx(0.962492, abs=1e-6)
    assert expanded_level(10**6)[0] == pytest.approx(0.95, abs=1e-5)
    assert expanded_level(np.array([1, 0]))[0] == 0.95
