"""The credit of one made call against one expected call, and of one argument (:mod:`evalcore.scoring.tool_calls`)."""

from __future__ import annotations

import math

import pytest

from evalcore.core.errors import ConfigError
from evalcore.core.toolcalls import ArgumentRule, ExpectedCall
from evalcore.scoring.tool_calls import (
    argument_credit,
    call_credit,
    score_tool_calls,
    unusable_reply_metrics,
    value_credit,
)

WEATHER = ExpectedCall("weather", (ArgumentRule("city", ("Paris",)), ArgumentRule("units", (), absent=True)))


def test_an_unusable_reply_earns_nothing_and_counts_nothing_as_hallucinated_or_missed():
    assert unusable_reply_metrics({"name": "weather", "arguments": {"city": "Paris"}}) == {
        "call_accuracy": 0.0,
        "call_exact": 0.0,
        "name_correct": 0.0,
        "arguments_correct": None,
        "hallucinated_call": None,
        "missed_call": None,
    }


def test_an_unusable_reply_to_a_case_that_wants_no_call_has_no_name_to_get_right():
    assert unusable_reply_metrics([])["name_correct"] is None


def test_a_call_that_leaves_out_an_argument_it_must_leave_out_is_right():
    assert call_credit(WEATHER, {"name": "weather", "arguments": {"city": "Paris"}}, {}) == (1.0, {}, True)


def test_an_argument_outside_the_tool_s_schema_is_wrong():
    made = {"name": "weather", "arguments": {"city": "Paris", "country": "FR"}}
    credit, wrong, right = call_credit(WEATHER, made, {"city": {"type": "string"}})
    assert (credit, wrong, right) == (pytest.approx(3 / 4), {"country": {"want": "(not given)", "got": "FR"}}, False)


def test_a_made_call_that_is_not_an_object_earns_only_its_name():
    credit, wrong, right = call_credit(WEATHER, "weather(Paris)", {})
    assert credit == pytest.approx(2 / 3) and not right
    assert wrong["(arguments)"] == {"want": "an object", "got": None}


@pytest.mark.parametrize(
    ("rule", "given", "credit"),
    [
        (ArgumentRule("units", ("c",), optional=True), False, 1.0),
        (ArgumentRule("units", ("c",)), False, 0.0),
        (ArgumentRule("units", ()), True, 1.0),
    ],
)
def test_an_argument_left_out_is_right_only_when_optional_and_any_value_is_right_when_none_is_named(
    rule, given, credit
):
    assert argument_credit(rule, given, "f" if given else None, None) == credit


@pytest.mark.parametrize(
    ("want", "got"),
    [(1, math.inf), (1, -math.inf), (["a"], "a"), ("a", ["a"]), ({"a": 1}, "a"), ("a", {"a": 1})],
)
def test_an_untyped_value_of_another_json_shape_or_an_infinite_number_is_wrong(want, got):
    assert value_credit(None, want, got) == 0.0


def test_a_malformed_expected_answer_is_named_as_the_expected_answer_by_default():
    message = 'expected: call 1: a call is an object {"name": ..., "arguments": {...}}; got {\'arguments\': {}}'
    with pytest.raises(ConfigError) as scored:
        score_tool_calls({"arguments": {}}, None)
    with pytest.raises(ConfigError) as unusable:
        unusable_reply_metrics({"arguments": {}})
    assert str(scored.value) == str(unusable.value) == message


def test_an_unusable_reply_s_expected_calls_are_checked_against_the_case_s_tools_and_named_where_told():
    tools = [{"type": "function", "function": {"name": "weather", "parameters": {"type": "object"}}}]
    with pytest.raises(ConfigError) as refused:
        unusable_reply_metrics({"name": "nope", "arguments": {}}, tools, "d/c: expected")
    assert str(refused.value) == "d/c: expected: call 1: 'nope' is not a tool of the case; tools: ['weather']"


def test_arguments_correct_is_the_share_of_matched_calls_with_every_argument_right():
    made = [{"name": "weather", "arguments": {"city": "Paris"}}, {"name": "weather", "arguments": {"city": "Lyon"}}]
    wants = [{"name": "weather", "arguments": {"city": "Paris"}}, {"name": "weather", "arguments": {"city": "Rome"}}]
    assert score_tool_calls(wants, made)[0]["arguments_correct"] == 0.5
