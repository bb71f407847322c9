"""The ``numbers`` scorer: numbers an adapter reads beside the reply, as metrics in [0, 1]."""

from __future__ import annotations

import pytest

from evalcore.core.errors import ConfigError
from evalcore.core.records import Case
from evalcore.scoring.adapters import Context, Parsed
from evalcore.scoring.numbers import NumbersScorer
from evalcore.scoring.plugins import build_scorer
from evalcore.suite.config import NamedRef

CASE = Case("faq", "001", "single", "When are you open?", "9am")
CONTEXT = Context("Answer briefly.", ())


def scored(scorer: NumbersScorer, **numbers: float):
    return scorer.score(CASE, Parsed(output="9am", numbers=numbers), CONTEXT)


@pytest.mark.parametrize(("latency", "ok"), [(0.5, 1.0), (2.5, 1.0), (2.6, 0.0), (-0.1, 0.0)])
def test_a_number_with_bounds_is_a_pass_and_its_raw_value_is_kept(latency, ok):
    scorer = NumbersScorer(numbers={"app_latency_s": {"min": 0, "max": 2.5}})
    result = scored(scorer, app_latency_s=latency)
    assert result.metrics == {"app_latency_s_ok": ok}
    assert result.diagnostics["numbers"] == {"app_latency_s": latency}


def test_a_number_without_bounds_is_the_metric_itself_when_it_is_a_share():
    scorer = NumbersScorer(numbers={"tool_error_rate": {"higher_is_better": False}})
    assert scored(scorer, tool_error_rate=0.2).metrics == {"tool_error_rate": 0.2}
    (metric,) = scorer.metrics
    assert metric.name == "tool_error_rate" and not metric.higher_is_better and metric.primary


def test_a_number_without_bounds_outside_zero_one_is_not_scored_and_says_why():
    result = scored(NumbersScorer(numbers={"cost_per_request": {}}), cost_per_request=3.5)
    assert result.metrics == {"cost_per_request": None}
    assert "outside [0, 1]: give it a min or max" in result.diagnostics["problems"]["cost_per_request"]


def test_a_number_the_adapter_did_not_give_has_no_value_never_a_zero():
    result = scored(NumbersScorer(numbers={"tool_error_rate": {"max": 0.1}}))
    assert result.metrics == {"tool_error_rate_ok": None}
    assert result.diagnostics["problems"] == {"tool_error_rate_ok": "the adapter gave no number 'tool_error_rate'"}


def test_primary_names_one_of_its_metrics():
    scorer = NumbersScorer(numbers={"a": {"max": 1}, "b": {}}, primary="b")
    assert [(m.name, m.primary) for m in scorer.metrics] == [("a_ok", False), ("b", True)]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({}, "numbers.options.numbers: name the adapter's numbers"),
        ({"numbers": {"Bad Name": {}}}, "'Bad Name' is not a usable name"),
        ({"numbers": {"x": {"maximum": 1}}}, r"numbers.x: give a mapping of min, max, higher_is_better"),
        ({"numbers": {"x": {"min": 2, "max": 1}}}, "numbers.x: min 2 is above max 1"),
        ({"numbers": {"x": {"max": "1"}}}, r"numbers.x.max: '1' is not a number"),
        ({"numbers": {"x": {"max": 1, "higher_is_better": False}}}, "higher_is_better is for a number without"),
        ({"numbers": {"x": {}}, "primary": "y"}, r"primary: 'y' is not one of \['x'\]"),
    ],
)
def test_bad_options_are_config_errors_naming_the_key(options, message):
    with pytest.raises(ConfigError, match=message):
        NumbersScorer(**options)


def test_it_is_a_built_in_scorer(tmp_path):
    scorer = build_scorer([NamedRef(name="exact"), NamedRef(name="numbers", options={"numbers": {"x": {}}})], tmp_path)
    assert [m.name for m in scorer.metrics] == ["exact", "x"]
