"""The spec's goodness and log scale, on arrays."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalcore.analysis.weighting import goodness_matrix, log_scale

NAN = float("nan")


def test_log_scale_puts_zero_at_zero_and_spaces_doublings_evenly():
    # lo = 0.001 (smallest positive; 0 is not), hi = 0.016: 0.004 is two doublings of four.
    assert log_scale(np.array([0.0, 0.001, 0.004, 0.016])) == pytest.approx([0.0, 0.0, 0.5, 1.0])


def test_log_scale_is_zero_everywhere_when_all_values_are_equal():
    assert list(log_scale(np.array([0.3, 0.3, 0.3]))) == [0.0, 0.0, 0.0]


def test_log_scale_is_zero_everywhere_without_a_positive_value():
    assert list(log_scale(np.array([0.0, 0.0]))) == [0.0, 0.0]


def test_log_scale_keeps_nulls_null_and_ignores_them_for_lo_and_hi():
    t = log_scale(np.array([0.01, NAN, 0.1]))
    assert t[0] == 0.0 and math.isnan(t[1]) and t[2] == 1.0


def test_cost_goodness_under_a_negative_weight_is_one_minus_t():
    g = goodness_matrix({"cost": np.array([0.0, 0.001, 0.004, 0.016])}, {"cost": -1.0})
    assert g[:, 0] == pytest.approx([1.0, 1.0, 0.5, 0.0])


def test_time_goodness_under_a_positive_weight_is_t():
    g = goodness_matrix({"time": np.array([1.0, 4.0, 2.0])}, {"time": 2.0})
    assert g[:, 0] == pytest.approx([0.0, 1.0, 0.5])


def test_metric_goodness_is_v_or_one_minus_v_by_the_sign_of_the_weight():
    values = {"hallucinated_rate": np.array([0.2]), "score": np.array([0.7])}
    g = goodness_matrix(values, {"hallucinated_rate": -1.0, "score": 1.0})
    assert g[0] == pytest.approx([0.8, 0.7])


@given(st.floats(1e-6, 1.0), st.floats(4.0, 1e6), st.floats(0, 1), st.floats(0, 1))
def test_doubling_a_cost_moves_its_goodness_by_the_same_amount_anywhere_on_the_scale(lo, spread, u, v):
    hi = lo * spread
    # x and y anywhere in [lo, hi / 2] (log-uniformly), so their doubles stay on the scale.
    x, y = (lo * (spread / 2) ** f for f in (u, v))
    g = goodness_matrix({"cost": np.array([lo, hi, x, 2 * x, y, 2 * y])}, {"cost": -1.0})[:, 0]
    step = math.log(2) / math.log(spread)
    assert g[2] - g[3] == pytest.approx(step, abs=1e-9)
    assert g[4] - g[5] == pytest.approx(step, abs=1e-9)
