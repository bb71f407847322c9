"""The weighted score: parsing name=number pairs, checking names, each weight's share, and the spec's
goodness and log scale on arrays."""

from __future__ import annotations

import logging
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalcore.analysis.scores.weights import (
    direction_warnings,
    goodness_matrix,
    log_scale,
    parse_weights,
    validate_weights,
    weight_shares,
)
from evalcore.core.errors import WeightsError
from evalcore.core.metric_set import MetricSet
from tests.analysis.rows import METRICS


def test_a_name_that_cannot_be_weighted_is_refused_listing_allowed_names():
    with pytest.raises(WeightsError) as refused:
        validate_weights({"score": 1, "input_tokens": -1}, MetricSet.of(METRICS))
    message = str(refused.value)
    assert "'input_tokens'" in message
    assert "score, errors, cost, time, field_accuracy, hallucinated_rate" in message


def test_zero_weights_are_dropped():
    assert validate_weights({"score": 1, "cost": 0}, MetricSet.of(METRICS)) == {"score": 1.0}


def test_an_unknown_name_is_refused_even_with_a_zero_weight():
    with pytest.raises(WeightsError, match="'sccore'"):
        validate_weights({"sccore": 0}, MetricSet.of(METRICS))


def test_a_weight_that_is_not_a_finite_number_is_refused():
    with pytest.raises(WeightsError, match="score"):
        validate_weights({"score": float("inf")}, MetricSet.of(METRICS))
    with pytest.raises(WeightsError, match="cost"):
        validate_weights({"cost": "high"}, MetricSet.of(METRICS))


def test_parse_weights_reads_name_number_pairs():
    assert parse_weights("score=0.4, cost=-0.2,errors=1e-1") == {"score": 0.4, "cost": -0.2, "errors": 0.1}
    assert parse_weights("  ") == {}


@pytest.mark.parametrize("text", ["score", "score=", "score=abc", "score=0.4,,cost=1", "=1", "score=nan"])
def test_parse_weights_explains_bad_syntax(text):
    with pytest.raises(WeightsError, match="name=number.*score=0.4,cost=-0.2"):
        parse_weights(text)


def test_parse_weights_refuses_a_name_given_twice():
    with pytest.raises(WeightsError, match="twice"):
        parse_weights("score=1,score=2")


def test_weight_shares_are_magnitudes_over_their_sum_with_directions():
    assert weight_shares({"score": 0.6, "cost": -0.2, "time": 0, "errors": 0.2}) == [
        {"name": "score", "weight": 0.6, "share": pytest.approx(0.6), "direction": "higher is better"},
        {"name": "cost", "weight": -0.2, "share": pytest.approx(0.2), "direction": "lower is better"},
        {"name": "errors", "weight": 0.2, "share": pytest.approx(0.2), "direction": "higher is better"},
    ]


def test_a_weight_against_the_metrics_direction_is_allowed():
    assert validate_weights({"hallucinated_rate": 1}, MetricSet.of(METRICS)) == {"hallucinated_rate": 1.0}


def test_a_weight_against_its_direction_is_named_with_how_to_fix_it():
    assert direction_warnings({"score": -1, "cost": -0.2, "hallucinated_rate": 1}, MetricSet.of(METRICS)) == {
        "score": "weight score=-1 ranks the contenders with the lowest score first, but a higher score is better; "
        "give score a positive weight to reward a better score",
        "hallucinated_rate": "weight hallucinated_rate=1 ranks the contenders with the highest hallucinated_rate "
        "first, but a lower hallucinated_rate is better; give hallucinated_rate a negative weight to reward a "
        "better hallucinated_rate",
    }


def test_a_positive_weight_on_cost_is_named_too():
    (line,) = direction_warnings({"score": 1, "cost": 0.5}, MetricSet.of(METRICS)).values()
    assert line.startswith("weight cost=0.5 ranks the contenders with the highest cost first")


def test_checking_weights_logs_nothing_so_each_surface_warns_once(caplog: pytest.LogCaptureFixture):
    with caplog.at_level(logging.WARNING):
        validate_weights({"score": -1}, MetricSet.of(METRICS))
    assert caplog.text == ""


def test_checked_weights_come_in_the_suites_order_whatever_order_they_were_given_in():
    checked = validate_weights({"time": -1, "hallucinated_rate": -1, "errors": -1, "score": 1}, MetricSet.of(METRICS))
    assert list(checked) == ["score", "hallucinated_rate", "errors", "time"]


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
