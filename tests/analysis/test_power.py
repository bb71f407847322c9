"""The sample-size planner: textbook sizes, its inverse, and simulated power with the leaderboard's own tests."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalcore.analysis.stats.paired import paired_differences
from evalcore.analysis.stats.power import (
    MIN_CASES,
    Spread,
    cases_needed,
    cases_to_decide,
    discordance,
    discordant_cases,
    mean_cases,
    smallest_difference,
    spread_of,
)

#: Replications per simulated cell: the power's Monte Carlo standard error is then 1.3 points.
REPLICATIONS = 1000


def test_connor_size_matches_the_worked_example_of_his_paper():
    # Connor (1987), p. 209: p10 = 0.05, p01 = 0.45, alpha 0.05 two-sided, power 0.8: 23 pairs.
    assert math.ceil(discordant_cases(0.05 - 0.45, 0.50)) == 23


def test_connor_size_matches_a_second_published_example():
    # A discordant share of 0.45 with p10 - p01 = 0.15: 155 pairs (Connor's formula, as calculators publish it).
    assert math.ceil(discordant_cases(0.15, 0.45)) == 155


def test_paired_mean_size_is_the_normal_formula_plus_guenthers_correction():
    # Chow, Shao & Wang's normal formula: (1.96 + 0.84)^2 / 0.5^2 = 31.4 pairs for half a standard deviation.
    assert mean_cases(0.5, 1.0) - 1.959964**2 / 2 == pytest.approx(31.40, abs=0.01)


def test_paired_mean_size_matches_the_exact_t_test_size():
    # The exact paired t test (Cohen's tables, G*Power) needs 34 pairs for an effect of half a standard deviation.
    assert math.ceil(mean_cases(0.5, 1.0)) == 34


def test_correlated_contenders_need_fewer_cases():
    alone = cases_needed(0.03, Spread(variance=0.2, correlation=0.0))
    together = cases_needed(0.03, Spread(variance=0.2, correlation=0.6))
    assert together == pytest.approx(alone * 0.4, rel=0.02)


def test_smallest_difference_is_the_inverse_of_cases_needed():
    spread = Spread(variance=0.21, correlation=0.4, mean=0.7, binary=True)
    delta = smallest_difference(500, spread)
    assert cases_needed(delta, spread) <= 500 < cases_needed(delta * 0.99, spread)


def test_discordance_never_falls_below_the_difference():
    assert discordance(0.1, Spread(variance=0.09, correlation=0.99, mean=0.9, binary=True)) >= 0.1


def test_too_small_a_difference_is_refused_with_its_value():
    with pytest.raises(ValueError, match="got 0"):
        cases_needed(0.0, Spread(0.25, 0.0))


def test_a_plan_never_asks_for_fewer_than_the_minimum():
    assert cases_needed(0.9, Spread(variance=0.01, correlation=0.9)) == MIN_CASES


def test_spread_of_a_table_recovers_variance_and_correlation():
    rng = np.random.default_rng(1)
    values = rng.multivariate_normal([0.5, 0.5, 0.5], 0.04 * (0.6 * np.ones((3, 3)) + 0.4 * np.eye(3)), size=4000)
    spread = spread_of(values)
    assert spread is not None and not spread.binary
    assert (spread.variance, spread.correlation) == (pytest.approx(0.04, rel=0.05), pytest.approx(0.6, abs=0.03))


def test_spread_of_zero_one_scores_says_binary():
    spread = spread_of(np.array([[1, 0], [0, 0], [1, 1], [np.nan, 1]], dtype=float))
    assert spread is not None and spread.binary and spread.mean == pytest.approx(4 / 7)


def test_cases_to_decide_is_none_without_a_difference():
    assert cases_to_decide(np.array([1.0, -1.0, 0.0, 0.0]), binary=True) is None


def _binary_draws(rng: np.random.Generator, spread: Spread, delta: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    high, low = spread.mean + delta / 2, spread.mean - delta / 2
    both = high * low + spread.correlation * math.sqrt(high * (1 - high) * low * (1 - low))
    cells = [both, high - both, low - both, 1 - high - low + both]  # 11, 10, 01, 00
    kind = rng.choice(4, size=(n, REPLICATIONS), p=cells)
    return (kind <= 1).astype(float), ((kind == 0) | (kind == 2)).astype(float)


def _graded_draws(rng: np.random.Generator, spread: Spread, delta: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    cov = spread.variance * np.array([[1, spread.correlation], [spread.correlation, 1]])
    draws = rng.multivariate_normal([0.5 + delta / 2, 0.5 - delta / 2], cov, size=(n, REPLICATIONS))
    return draws[..., 0], draws[..., 1]


@pytest.mark.parametrize(
    ("spread", "delta"),
    [
        (Spread(variance=0.21, correlation=0.0, mean=0.7, binary=True), 0.10),
        (Spread(variance=0.21, correlation=0.5, mean=0.7, binary=True), 0.10),
        (Spread(variance=0.16, correlation=0.3, mean=0.8, binary=True), 0.05),
        (Spread(variance=0.0625, correlation=0.0), 0.10),
        (Spread(variance=0.0625, correlation=0.7), 0.05),
        (Spread(variance=0.04, correlation=0.5), 0.10),
    ],
    ids=[
        "0/1 independent",
        "0/1 correlated",
        "0/1 small difference",
        "graded independent",
        "graded correlated",
        "graded few cases",
    ],
)
def test_planned_size_reaches_eighty_percent_power_with_the_leaderboards_test(spread, delta):
    n = cases_needed(delta, spread)
    rng = np.random.default_rng(7)
    a, b = (_binary_draws if spread.binary else _graded_draws)(rng, spread, delta, n)
    rows = paired_differences(a, b, B=500, seed=3)
    power = np.mean([row["significant"] and row["mean_diff"] > 0 for row in rows])
    assert 0.75 <= power <= 0.85, f"{n} cases: power {power:.3f}"


@settings(max_examples=200, deadline=None)
@given(
    variance=st.floats(0.01, 0.25),
    correlation=st.floats(-0.5, 0.95),
    mean=st.floats(0.05, 0.95),
    binary=st.booleans(),
    delta=st.floats(0.01, 0.5),
)
def test_a_bigger_difference_never_needs_more_cases(variance, correlation, mean, binary, delta):
    spread = Spread(variance=variance, correlation=correlation, mean=mean, binary=binary)
    assert cases_needed(delta * 1.5, spread) <= cases_needed(delta, spread)
