"""The tool_call scorer on hand-made cases: names and arguments field by field, no call right, alternatives."""

from __future__ import annotations

import pytest

from evalcore.core.errors import ConfigError
from evalcore.core.records import Case
from evalcore.scoring.adapters import Context, Parsed
from evalcore.scoring.scorers import SCORERS, ToolCallScorer
from evalcore.scoring.tool_calls import score_tool_calls

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
                "days": {"type": "integer"},
                "tags": {"type": "array", "items": {"type": "string", "enum": ["rain", "wind", "sun"]}},
                "extra": {"type": "object"},
            },
            "required": ["city"],
        },
    },
}
TIME = {"type": "function", "function": {"name": "get_time", "parameters": {"type": "object", "properties": {}}}}
TOOLS = [WEATHER, TIME]
PARIS = {"name": "get_weather", "arguments": {"city": "Paris"}}


def score(expected, output, tools=TOOLS):
    return score_tool_calls(expected, output, tools)


def test_the_expected_call_scores_one():
    metrics, diagnostics = score(PARIS, {"name": "get_weather", "arguments": {"city": "Paris"}})
    assert metrics == {
        "call_accuracy": 1.0,
        "call_exact": 1.0,
        "name_correct": 1.0,
        "arguments_correct": 1.0,
        "hallucinated_call": None,
        "missed_call": 0.0,
    }
    assert diagnostics == {}


def test_text_is_trimmed_and_case_folded_and_numbers_compare_by_value():
    expected = {"name": "get_weather", "arguments": {"city": "New York", "days": 3}}
    metrics, _ = score(expected, {"name": "get_weather", "arguments": {"city": "  new   york ", "days": 3.0}})
    assert metrics["call_accuracy"] == 1.0


def test_a_wrong_argument_costs_its_share_of_the_fields():
    expected = {"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}
    metrics, diagnostics = score(expected, {"name": "get_weather", "arguments": {"city": "Lyon", "days": 3}})
    assert metrics["call_accuracy"] == pytest.approx(2 / 3)  # the name and days right, city wrong
    assert metrics["name_correct"] == 1.0 and metrics["arguments_correct"] == 0.0
    assert diagnostics == {"arguments": {"city": {"want": "Paris", "got": "Lyon"}}}


def test_the_wrong_function_earns_nothing():
    metrics, diagnostics = score(PARIS, {"name": "get_time", "arguments": {}})
    assert metrics["call_accuracy"] == 0.0 and metrics["name_correct"] == 0.0
    assert metrics["arguments_correct"] is None and metrics["missed_call"] == 0.0
    assert diagnostics["name"] == {"want": "get_weather", "got": ["get_time"]}


def test_no_call_is_right_and_none_is_made():
    metrics, diagnostics = score(None, None)
    assert metrics == {
        "call_accuracy": 1.0,
        "call_exact": 1.0,
        "name_correct": None,
        "arguments_correct": None,
        "hallucinated_call": 0.0,
        "missed_call": None,
    }
    assert diagnostics == {}


def test_a_call_where_none_is_right_is_hallucinated():
    metrics, diagnostics = score(None, PARIS)
    assert metrics["call_accuracy"] == 0.0 and metrics["hallucinated_call"] == 1.0
    assert metrics["missed_call"] is None
    assert diagnostics == {"calls": {"want": None, "got": ["get_weather"]}}


def test_no_call_where_one_is_right_is_missed():
    metrics, _ = score(PARIS, None)
    assert metrics["call_accuracy"] == 0.0 and metrics["missed_call"] == 1.0
    assert metrics["hallucinated_call"] is None and metrics["arguments_correct"] is None


def test_any_of_these_values_is_right():
    expected = {"name": "get_weather", "arguments": {"city": ["Paris", "Paris, France"], "unit": ["celsius", "C"]}}
    for city in ("Paris", "paris, france"):
        metrics, _ = score(expected, {"name": "get_weather", "arguments": {"city": city, "unit": "celsius"}})
        assert metrics["call_accuracy"] == 1.0
    metrics, diagnostics = score(expected, {"name": "get_weather", "arguments": {"city": "Nice", "unit": "celsius"}})
    assert metrics["arguments_correct"] == 0.0
    assert diagnostics["arguments"]["city"] == {"want": {"any_of": ["Paris", "Paris, France"]}, "got": "Nice"}


def test_an_optional_argument_may_be_left_out_but_must_be_right_when_given():
    expected = {"name": "get_weather", "arguments": {"city": "Paris", "unit": {"value": "celsius", "optional": True}}}
    assert score(expected, PARIS)[0]["call_accuracy"] == 1.0
    given = {"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}
    assert score(expected, given)[0]["call_accuracy"] == 1.0
    wrong = {"name": "get_weather", "arguments": {"city": "Paris", "unit": "fahrenheit"}}
    assert score(expected, wrong)[0]["call_accuracy"] == pytest.approx(2 / 3)


def test_a_required_argument_left_out_is_wrong():
    expected = {"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}
    metrics, diagnostics = score(expected, PARIS)
    assert metrics["call_accuracy"] == pytest.approx(2 / 3)
    assert diagnostics["arguments"] == {"days": {"want": 2, "missing": True}}


def test_an_argument_the_answer_leaves_out_may_be_given_its_schema_default_only():
    at_default = {"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}
    assert score(PARIS, at_default)[0]["call_accuracy"] == 1.0
    other = {"name": "get_weather", "arguments": {"city": "Paris", "unit": "fahrenheit"}}
    metrics, diagnostics = score(PARIS, other)
    assert metrics["call_accuracy"] == pytest.approx(2 / 3) and metrics["arguments_correct"] == 0.0
    assert diagnostics["arguments"] == {"unit": {"want": "(not given)", "got": "fahrenheit"}}


def test_null_in_the_answer_means_the_argument_is_left_out_or_null():
    expected = {"name": "get_weather", "arguments": {"city": "Paris", "days": None}}
    assert score(expected, PARIS)[0]["call_accuracy"] == 1.0
    null = {"name": "get_weather", "arguments": {"city": "Paris", "days": None}}
    assert score(expected, null)[0]["call_accuracy"] == 1.0
    given = {"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}
    assert score(expected, given)[0]["call_accuracy"] == pytest.approx(2 / 3)


def test_an_enum_list_argument_earns_partial_credit_as_a_set():
    expected = {"name": "get_weather", "arguments": {"city": "Paris", "tags": ["rain", "wind"]}}
    given = {"name": "get_weather", "arguments": {"city": "Paris", "tags": ["wind", "sun"]}}
    metrics, _ = score(expected, given)
    assert metrics["call_accuracy"] == pytest.approx((1 + 1 + 1 / 3) / 3)
    assert metrics["arguments_correct"] == 0.0


def test_an_object_argument_compares_as_json():
    expected = {"name": "get_weather", "arguments": {"city": "Paris", "extra": {"lang": "FR", "n": 2}}}
    same = {"name": "get_weather", "arguments": {"city": "Paris", "extra": {"n": 2.0, "lang": "fr"}}}
    assert score(expected, same)[0]["call_accuracy"] == 1.0
    other = {"name": "get_weather", "arguments": {"city": "Paris", "extra": {"n": True, "lang": "fr"}}}
    assert score(expected, other)[0]["call_accuracy"] < 1.0


def test_several_calls_match_in_any_order_and_extra_calls_count_against():
    expected = [PARIS, {"name": "get_weather", "arguments": {"city": "Rome"}}]
    swapped = [{"name": "get_weather", "arguments": {"city": "Rome"}}, PARIS]
    assert score(expected, swapped)[0]["call_accuracy"] == 1.0
    one = score(expected, PARIS)[0]
    assert one["call_accuracy"] == 0.5 and one["name_correct"] == 0.5 and one["missed_call"] == 0.0
    extra, diagnostics = score(PARIS, [PARIS, {"name": "get_time", "arguments": {}}])
    assert extra["call_accuracy"] == 0.5 and extra["name_correct"] == 0.5
    assert diagnostics == {"extra_calls": ["get_time"]}


def test_arguments_that_are_not_an_object_are_all_wrong():
    metrics, diagnostics = score(PARIS, {"name": "get_weather", "arguments": '{"city": "Par'})
    assert metrics["call_accuracy"] == 0.5 and metrics["arguments_correct"] == 0.0
    assert diagnostics["arguments"]["(arguments)"] == {"want": "an object", "got": '{"city": "Par'}


def test_without_tool_schemas_arguments_compare_as_json():
    metrics, _ = score(PARIS, {"name": "get_weather", "arguments": {"city": " paris"}}, tools=None)
    assert metrics["call_accuracy"] == 1.0


def test_the_scorer_reads_the_tools_from_the_case_and_scores_an_unusable_reply_zero():
    scorer = SCORERS["tool_call"]()
    case = Case("d", "c", "v", {"text": "Weather in Paris?", "tools": TOOLS}, PARIS)
    context = Context("", ())
    good = scorer.score(case, Parsed(output={"name": "get_weather", "arguments": {"city": "paris"}}), context)
    assert good.metrics["call_accuracy"] == 1.0
    bad = scorer.score(case, Parsed(output=None, problem="the raw reply is not JSON"), context)
    assert bad.metrics["call_accuracy"] == 0.0 and bad.metrics["missed_call"] is None
    assert bad.diagnostics == {"reply": "the raw reply is not JSON"}


def test_the_perfect_output_of_an_answer_with_rules_scores_one():
    scorer = ToolCallScorer()
    expected = {"name": "get_weather", "arguments": {"city": ["Paris", "paris fr"], "unit": {"optional": True}}}
    case = Case("d", "c", "v", {"text": "Weather?", "tools": TOOLS}, expected)
    perfect = scorer.perfect_output(case)
    assert perfect == {"name": "get_weather", "arguments": {"city": "Paris"}}
    assert scorer.score(case, Parsed(output=perfect), Context("", ())).metrics["call_accuracy"] == 1.0


def test_metric_directions_let_the_leaderboard_weigh_them():
    directions = {m.name: m.higher_is_better for m in ToolCallScorer.metrics}
    assert directions == {
        "call_accuracy": True,
        "call_exact": True,
        "name_correct": True,
        "arguments_correct": True,
        "hallucinated_call": False,
        "missed_call": False,
    }
    assert [m.name for m in ToolCallScorer.metrics if m.primary] == ["call_accuracy"]


def _scored(expected, parsed, tools=TOOLS, source=None):
    case = Case("d", "c", "v", {"messages": [], "tools": tools}, expected, source=source)
    return ToolCallScorer().score(case, parsed, Context("", ()))


def test_the_scorer_types_the_arguments_by_the_case_s_tools():
    expected = {"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}
    made = {"name": "get_weather", "arguments": {"city": "Paris", "unit": "Celsius"}}
    assert _scored(expected, Parsed(made)).metrics["call_exact"] == 0.0  # an enum compares exactly
    assert _scored(expected, Parsed(made), tools=None).metrics["call_exact"] == 1.0  # untyped: case-folded


def test_the_scorer_gives_an_unusable_reply_no_credit_and_says_why():
    scored = _scored(PARIS, Parsed(None, "reply is not JSON"))
    assert (scored.metrics["name_correct"], scored.diagnostics) == (0.0, {"reply": "reply is not JSON"})


def test_the_scorer_keeps_the_problem_of_a_reply_it_could_partly_read():
    scored = _scored(PARIS, Parsed(dict(PARIS), "one call of two could not be read"))
    assert scored.metrics["call_exact"] == 1.0
    assert scored.diagnostics == {"reply": "one call of two could not be read"}


@pytest.mark.parametrize(
    ("source", "where"), [(None, "d/c: expected"), ("cases.jsonl: line 3", "cases.jsonl: line 3: expected")]
)
def test_the_scorer_names_the_case_of_a_malformed_expected_answer(source, where):
    with pytest.raises(ConfigError) as refused:
        _scored({"arguments": {"city": "Paris"}}, Parsed(dict(PARIS)), source=source)
    assert str(refused.value).startswith(where)


def test_with_several_expected_calls_the_diagnostics_list_each_wrong_one_by_its_expected_name():
    time = {"name": "get_time", "arguments": {}}
    lyon = {"name": "get_weather", "arguments": {"city": "Lyon"}}
    wrong_city = {"call": "get_weather", "arguments": {"city": {"want": "Paris", "got": "Lyon"}}}
    _, in_order = score([PARIS, time], [lyon, {"name": "get_news", "arguments": {}}])
    assert in_order == {
        "calls": [wrong_city, {"call": "get_time", "name": {"want": "get_time", "got": ["get_weather", "get_news"]}}]
    }  # as many calls made as expected: the unknown one is named under the call it stands for, not as extra
    assert score([PARIS, time], [time, lyon])[1] == {"calls": [wrong_city]}


def test_the_scorer_checks_an_unusable_reply_s_expected_calls_against_the_case_s_tools():
    with pytest.raises(ConfigError) as refused:
        _scored({"name": "nope", "arguments": {}}, Parsed(None, "reply is not JSON"))
    assert (
        str(refused.value)
        == "d/c: expected: call 1: 'nope' is not a tool of the case; tools: ['get_time', 'get_weather']"
    )


def test_the_scorer_reads_a_case_whose_input_is_text_as_having_no_tools():
    case = Case("d", "c", "v", "What is the weather in Paris?", PARIS)
    scored = ToolCallScorer().score(case, Parsed(dict(PARIS)), Context("", ()))
    assert scored.metrics["call_exact"] == 1.0
