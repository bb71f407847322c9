"""The interval of a proportion: Agresti–Coull's from 32 cases, Clopper–Pearson's below, checked against the
numbers R's ``binom`` package publishes (hand-copied from statsmodels' test results,
``statsmodels/stats/tests/results/results_proportion.py``: ``binom.confint(x, n, tol = 1e-8)``)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evalcore.analysis.draws import EXACT_BELOW, proportion_interval


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
