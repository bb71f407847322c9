"""The interval of a proportion: Agresti–Coull's from 32 cases, Clopper–Pearson's below, checked against the
numbers R's ``binom`` package publishes (hand-copied from statsmodels' test results,
``statsmodels/stats/tests/results/results_proportion.py``: ``binom.confint(x, n, tol = 1e-8)``)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evalcore.analysis.stats.intervals import (
    EXACT_BELOW,
    Z,
    bootstrap_interval,
    constant_interval,
    mean_acceleration,
    percentile_interval,
    proportion_interval,
)


@pytest.fixture(autouse=True)
def _found_afresh():
    """Every test finds its quantiles itself: a quantile a test before it cached would hide a wrong search."""
    from evalcore.analysis.stats import intervals

    intervals._QUANTILES.clear()
    intervals._clopper_pearson.cache_clear()


def test_from_32_cases_a_proportion_gets_the_agresti_coull_interval():
    # binom.confint(4, 200) and binom.confint(190, 200), method "agresti-coull".
    low, high = proportion_interval(np.array([4.0, 190.0]), np.array([200.0, 200.0]))
    assert low.tolist() == pytest.approx([0.005991954548218395, 0.909307307911624], abs=1e-9)
    assert high.tolist() == pytest.approx([0.0520995587739575, 0.973731898348837], abs=1e-9)


def test_below_32_cases_a_proportion_gets_the_clopper_pearson_interval():
    # binom.confint(x, n), method "exact", for 18/20, 4/20 and 1/30.
    low, high = proportion_interval(np.array([18.0, 4.0, 1.0]), np.array([20.0, 20.0, 30.0]))
    assert low.tolist() == pytest.approx([0.6830172859809176, 0.05733399705003284, 8.435709e-04], abs=1e-7)
    assert high.tolist() == pytest.approx([0.9876514728297052, 0.436614002996668, 0.17216946], abs=1e-7)


def test_clopper_pearson_matches_conovers_table_for_5_of_25():
    # Conover (1999) tables, as worked in influentialpoints.com "Confidence intervals of proportions": 0.068–0.407.
    low, high = proportion_interval(np.array([5.0]), np.array([25.0]))
    assert (round(float(low[0]), 3), round(float(high[0]), 3)) == (0.068, 0.407)


def test_no_hit_and_every_hit_end_the_interval_at_0_and_1_on_that_side_only():
    low, high = proportion_interval(np.array([0.0, 30.0, 0.0, 50.0]), np.array([30.0, 30.0, 50.0, 50.0]))
    assert low[0] == 0.0 and high[0] == pytest.approx(0.11570331, abs=1e-7)  # binom.confint(0, 30), exact
    assert high[1] == 1.0 and low[1] == pytest.approx(0.8842967, abs=1e-7)
    assert low[2] == 0.0 and high[3] == 1.0 and 0 < high[2] < 0.1 and 0.9 < low[3] < 1


def test_a_proportion_of_no_case_has_no_interval():
    low, high = proportion_interval(np.array([0.0]), np.array([0.0]))
    assert math.isnan(low[0]) and math.isnan(high[0])


def test_half_hits_count_half():
    low, high = proportion_interval(np.array([10.5, 40.5]), np.array([EXACT_BELOW - 1, 81]))
    assert 0 < low[0] < 10.5 / (EXACT_BELOW - 1) < high[0] < 1 and low[1] < 0.5 < high[1]


def test_the_acceleration_of_a_mean_is_the_jackknife_skewness_of_diciccio_and_efron():
    values = np.array([0.0, 0.0, 1 / 3, 0.0, 1.0, 2 / 3, 0.0, 0.0])
    leave_one_out = (values.sum() - values) / (len(values) - 1)
    u = leave_one_out.mean() - leave_one_out  # DiCiccio & Efron (1996), eq. 6.7
    expected = (u**3).sum() / (6 * ((u**2).sum()) ** 1.5)
    known = np.ones((len(values), 1), dtype=bool)
    assert mean_acceleration(values[:, None], known)[0] == pytest.approx(expected)
    assert mean_acceleration(np.zeros((5, 1)), np.ones((5, 1), dtype=bool))[0] == 0.0


def test_without_bias_or_skew_the_bootstrap_interval_is_the_percentile_interval():
    samples = np.random.default_rng(3).normal(size=(2001, 1))
    samples -= np.median(samples)  # half the resamples below the estimate: z0 = 0
    low, high = bootstrap_interval(samples, np.array([0.0]), np.array([0.0]), 0.95)
    assert (low[0], high[0]) == pytest.approx(tuple(np.percentile(samples, [2.5, 97.5])))


def test_the_bootstrap_interval_holds_both_the_percentile_and_the_bca_interval():
    rng = np.random.default_rng(4)
    samples = rng.exponential(size=(1000, 1))
    # An estimate below most resamples (z0 < 0) moves BCa's ends down: the hull keeps the percentile's top.
    low, high = bootstrap_interval(samples, np.array([0.5]), np.array([0.1]), 0.95)
    plain_low, plain_high = percentile_interval(samples, 0.95)
    assert low[0] < plain_low[0] and high[0] == plain_high[0]


def test_a_skew_past_the_pole_of_bcas_correction_reads_the_last_resample():
    samples = np.linspace(0.0, 1.0, 101)[:, None]
    low, high = bootstrap_interval(samples, np.array([0.5]), np.array([0.9]), 0.95)
    assert high[0] == 1.0 and low[0] == pytest.approx(0.025)  # the percentile interval's end


def test_a_mean_whose_values_are_all_the_same_gets_the_exact_bound_of_their_share():
    from evalcore.analysis.stats.intervals import constant_interval

    # At 0 and 1 it is Clopper–Pearson's n of n (R's binom.confint(0, 10), exact: 0.3084971; 30/30: 0.8842967).
    low, high = constant_interval(np.array([1.0, 0.0, 0.75]), np.array([30, 10, 10]))
    assert low[0] == pytest.approx(0.8842967, abs=1e-6) and high[0] == 1.0
    assert low[1] == 0.0 and high[1] == pytest.approx(0.3084971, abs=1e-6)
    # Inside, the share L = 1 − 0.3084971 of cases at 0.75 bounds the mean: [0.75 L, 1 − 0.25 L].
    share = 1 - 0.3084971
    assert low[2] == pytest.approx(0.75 * share, abs=1e-6) and high[2] == pytest.approx(1 - 0.25 * share, abs=1e-6)


def test_only_an_interval_of_one_point_is_widened():
    from evalcore.analysis.stats.intervals import widen_points

    low, high = widen_points(
        np.array([0.5, 1.0, np.nan]), np.array([0.7, 1.0, np.nan]), np.array([0.6, 1.0, np.nan]), 30
    )
    assert (low[0], high[0]) == (0.5, 0.7)
    assert low[1] == pytest.approx(0.8842967, abs=1e-6) and high[1] == 1.0
    assert np.isnan(low[2]) and np.isnan(high[2])


@pytest.mark.parametrize("q", [0.975, 0.9, 0.995, 0.6])
def test_t_quantiles_found_all_at_once_are_those_found_one_at_a_time_to_the_last_bit(q: float) -> None:
    from evalcore.analysis.stats.intervals import _halved, _t_quantile, t_quantiles

    dfs = [*range(1, 60), 99, 399, 2_000, 24_455, 24_999, 250_000]
    one_by_one = [_t_quantile(q, df) for df in dfs]
    assert _halved(q, dfs) == one_by_one
    assert t_quantiles(q, dfs[:3]) + t_quantiles(q, dfs[3:]) == one_by_one  # a few alone, then many at once


def test_one_case_gets_clopper_pearsons_interval():
    low, high = proportion_interval(np.array([1.0, 0.0]), np.array([1.0, 1.0]))
    assert low == pytest.approx([0.025, 0.0]) and high == pytest.approx([1.0, 0.975])


def test_from_32_cases_on_the_interval_is_agresti_coulls():
    z2 = Z * Z
    centre = (16 + z2 / 2) / (32 + z2)
    half = Z * math.sqrt(centre * (1 - centre) / (32 + z2))
    low, high = proportion_interval(np.array([16.0]), np.array([32.0]))
    assert (low[0], high[0]) == pytest.approx((centre - half, centre + half))


def test_agresti_coull_ends_past_zero_or_one_are_clipped():
    # 1 of 40 reaches below 0 and 39 of 40 above 1 before clipping.
    low, high = proportion_interval(np.array([1.0, 39.0]), np.array([40.0, 40.0]))
    assert low[0] == 0.0 and high[1] == 1.0


def test_the_boundary_rule_of_one_case_is_its_clopper_pearson_bound_and_of_no_case_unknown():
    low, high = constant_interval(np.array([1.0, 0.0, 1.0]), np.array([1, 1, 0]))
    assert low[:2] == pytest.approx([0.025, 0.0]) and high[:2] == pytest.approx([1.0, 0.975])
    assert math.isnan(low[2]) and math.isnan(high[2])


def test_a_level_that_rounds_to_one_is_read_just_under_one():
    from evalcore.analysis.stats.intervals import _normal_quantiles

    quantile = _normal_quantiles(np.array([1.0]))[0]
    assert 7.5 < quantile < 8.5  # the normal quantile of 1 - 1e-15, not an error


@pytest.mark.parametrize("extra", [[], list(range(30, 40))], ids=["one-at-a-time", "all-at-once"])
def test_t_quantiles_are_students(extra):
    from evalcore.analysis.stats.intervals import t_quantiles

    # Student's t table, 0.995 quantile, 1, 2, 5, 10 and 29 degrees of freedom.
    found = t_quantiles(0.995, [1, 2, 5, 10, 29, *extra])
    assert found[:5] == pytest.approx([63.6567, 9.9248, 4.0321, 3.1693, 2.7564], abs=1e-4)


def test_two_cases_are_read_at_the_expanded_level_of_one_degree_of_freedom():
    from evalcore.analysis.stats.intervals import expanded_level

    # t(0.975, 1) = 12.71, times √2: the level rounds to 1 (the resamples' extremes), far from the 0.95 asked.
    assert expanded_level(2)[0] > 0.9999


def test_the_t_quantile_cache_is_cleared_before_it_would_hold_more_than_it_keeps():
    from evalcore.analysis.stats import intervals

    first = list(range(1, intervals._KEPT - 95))
    intervals.t_quantiles(0.975, first)
    # 200 more would take it past the limit: it starts again with the ones asked for, found afresh
    again = intervals.t_quantiles(0.975, [10, *range(5_000, 5_199)])
    assert len(intervals._QUANTILES) == 200 <= intervals._KEPT
    assert again[0] == pytest.approx(2.2281, abs=1e-4)  # Student's t table, 0.975 quantile, 10 degrees of freedom


def test_the_acceleration_skips_unknown_values_and_is_zero_where_nothing_varies():
    from evalcore.analysis.stats.intervals import mean_acceleration

    # column 0: 0, 0, 1 known (the 5 is not): Σd³ / (6 (Σd²)^1.5) = (2/9) / (6 (2/3)^1.5); column 1: symmetric,
    # 0; column 2: constant, 0 (no spread to divide by)
    values = np.array([[0.0, 0.0, 0.5], [0.0, 1.0, 0.5], [1.0, 1.0, 0.5], [5.0, 0.0, 0.5]])
    known = np.array([[True] * 3, [True] * 3, [True] * 3, [False, True, True]])
    expected = (2 / 9) / (6 * (2 / 3) ** 1.5)
    assert mean_acceleration(values, known).tolist() == pytest.approx([expected, 0.0, 0.0], abs=1e-15)


def test_the_incomplete_beta_function_is_0_at_0_1_at_1_and_the_binomial_tail_between():
    from evalcore.analysis.stats.intervals import _incomplete_beta

    # I_x(2, 3) = P(at least 2 of 4 trials succeed at chance x): at 1/2, (6 + 4 + 1) / 16
    assert _incomplete_beta(0.0, 2.0, 3.0) == 0.0 and _incomplete_beta(1.0, 2.0, 3.0) == 1.0
    assert _incomplete_beta(-0.5, 2.0, 3.0) == 0.0 and _incomplete_beta(1.5, 2.0, 3.0) == 1.0
    assert _incomplete_beta(0.5, 2.0, 3.0) == pytest.approx(11 / 16, abs=1e-14)


def test_the_incomplete_beta_function_element_by_element_is_the_same_function():
    from evalcore.analysis.stats.intervals import _incomplete_betas

    x = np.array([-0.5, 0.0, 0.5, 1.0, 1.5])
    found = _incomplete_betas(x, np.full(5, 2.0), 3.0)
    assert found.tolist() == pytest.approx([0.0, 0.0, 11 / 16, 1.0, 1.0], abs=1e-14)


def test_a_point_interval_of_one_case_takes_the_boundary_rule_at_the_level_asked():
    from evalcore.analysis.stats.intervals import widen_points

    # one case at 1: Clopper–Pearson's one-sided bound (α/2)^(1/1), at 95% 0.025, at 90% 0.05
    low, high = widen_points(np.array([1.0]), np.array([1.0]), np.array([1.0]), np.array([1]))
    assert (low[0], high[0]) == pytest.approx((0.025, 1.0))
    low, high = widen_points(np.array([1.0]), np.array([1.0]), np.array([1.0]), np.array([1]), level=0.9)
    assert (low[0], high[0]) == pytest.approx((0.05, 1.0))


def test_a_point_interval_of_no_case_or_of_a_value_outside_0_1_is_left_a_point():
    from evalcore.analysis.stats.intervals import widen_points

    low, high = widen_points(np.array([0.5, 1.5]), np.array([0.5, 1.5]), np.array([0.5, 1.5]), np.array([0, 10]))
    assert low.tolist() == [0.5, 1.5] and high.tolist() == [0.5, 1.5]


def test_a_mean_of_no_value_is_null_without_a_warning():
    from evalcore.analysis.stats.intervals import ratio

    # 1/1, 3/2 and 0 of 0 values: the last has no mean (pytest turns a 0/0 warning into a failure)
    assert ratio(np.array([1.0, 3.0, 0.0]), np.array([1.0, 2.0, 0.0])).tolist() == pytest.approx(
        [1.0, 1.5, np.nan], nan_ok=True
    )


def test_the_percentile_interval_of_a_single_finite_resample_is_that_value():
    low, high = percentile_interval(np.array([[0.3, 0.1], [np.nan, 0.5]]))
    assert (low[0], high[0]) == (0.3, 0.3) and low[1] == pytest.approx(0.1 + 0.025 * 0.4)
