"""Weights: parsing name=number pairs, checking names, and each weight's share of the wscore."""

from __future__ import annotations

import logging

import pytest

from evalcore.analysis.weights import direction_warnings, parse_weights, validate_weights, weight_shares
from evalcore.core.errors import WeightsError
from tests.analysis.rows import METRICS


def test_a_name_that_cannot_be_weighted_is_refused_listing_allowed_names():
    with pytest.raises(WeightsError) as refused:
        validate_weights({"score": 1, "input_tokens": -1}, METRICS)
    message = str(refused.value)
    assert "'input_tokens'" in message
    assert "score, errors, cost, time, field_accuracy, hallucinated_rate" in message


def test_zero_weights_are_dropped():
    assert validate_weights({"score": 1, "cost": 0}, METRICS) == {"score": 1.0}


def test_an_unknown_name_is_refused_even_with_a_zero_weight():
    with pytest.raises(WeightsError, match="'sccore'"):
        validate_weights({"sccore": 0}, METRICS)


def test_a_weight_that_is_not_a_finite_number_is_refused():
    with pytest.raises(WeightsError, match="score"):
        validate_weights({"score": float("inf")}, METRICS)
    with pytest.raises(WeightsError, match="cost"):
        validate_weights({"cost": "high"}, METRICS)


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
    assert validate_weights({"hallucinated_rate": 1}, METRICS) == {"hallucinated_rate": 1.0}


def test_a_weight_against_its_direction_is_named_with_how_to_fix_it():
    assert direction_warnings({"score": -1, "cost": -0.2, "hallucinated_rate": 1}, METRICS) == {
        "score": "weight score=-1 ranks the contenders with the lowest score first, but a higher score is better; "
        "give score a positive weight to reward a better score",
        "hallucinated_rate": "weight hallucinated_rate=1 ranks the contenders with the highest hallucinated_rate "
        "first, but a lower hallucinated_rate is better; give hallucinated_rate a negative weight to reward a "
        "better hallucinated_rate",
    }


def test_a_positive_weight_on_cost_is_named_too():
    (line,) = direction_warnings({"score": 1, "cost": 0.5}, METRICS).values()
    assert line.startswith("weight cost=0.5 ranks the contenders with the highest cost first")


def test_checking_weights_logs_nothing_so_each_surface_warns_once(caplog: pytest.LogCaptureFixture):
    with caplog.at_level(logging.WARNING):
        validate_weights({"score": -1}, METRICS)
    assert caplog.text == ""


def test_checked_weights_come_in_the_suites_order_whatever_order_they_were_given_in():
    checked = validate_weights({"time": -1, "hallucinated_rate": -1, "errors": -1, "score": 1}, METRICS)
    assert list(checked) == ["score", "hallucinated_rate", "errors", "time"]
