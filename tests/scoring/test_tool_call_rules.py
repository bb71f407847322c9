"""The tool_call scorer's rules inside an object argument, arguments that must be left out, and call_exact."""

from __future__ import annotations

import pytest

from evalcore.core.records import Case
from evalcore.scoring.adapters import Context, Parsed
from evalcore.scoring.scorers import ToolCallScorer
from evalcore.scoring.tool_calls import score_tool_calls

BOOK = {
    "type": "function",
    "function": {
        "name": "book_table",
        "parameters": {
            "type": "object",
            "properties": {
                "restaurant": {"type": "string"},
                "party": {
                    "type": "object",
                    "properties": {
                        "size": {"type": "integer"},
                        "seating": {"type": "string", "enum": ["indoor", "outdoor"]},
                        "note": {"type": "string"},
                        "highchair": {"type": "boolean", "default": False},
                    },
                },
                "coupon": {"type": "string"},
            },
        },
    },
}
TOOLS = [BOOK]


def call(**arguments):
    return {"name": "book_table", "arguments": arguments}


def score(expected, output):
    return score_tool_calls(expected, output, TOOLS)


def test_a_key_inside_an_object_argument_takes_any_of_its_acceptable_values():
    expected = call(restaurant="Luigi", party={"fields": {"size": 4, "seating": ["indoor", "outdoor"]}})
    for seating in ("indoor", "outdoor"):
        metrics, _ = score(expected, call(restaurant="Luigi", party={"size": 4, "seating": seating}))
        assert metrics["call_accuracy"] == 1.0 and metrics["call_exact"] == 1.0


def test_an_optional_key_inside_an_object_argument_may_be_left_out():
    expected = call(restaurant="Luigi", party={"fields": {"size": 4, "note": {"optional": True}}})
    assert score(expected, call(restaurant="Luigi", party={"size": 4}))[0]["call_exact"] == 1.0
    with_note = call(restaurant="Luigi", party={"size": 4, "note": "by the window"})
    assert score(expected, with_note)[0]["call_exact"] == 1.0


def test_a_wrong_key_inside_an_object_argument_costs_its_share_of_that_argument():
    expected = call(restaurant="Luigi", party={"fields": {"size": 4, "seating": "indoor"}})
    metrics, diagnostics = score(expected, call(restaurant="Luigi", party={"size": 5, "seating": "indoor"}))
    assert metrics["call_accuracy"] == pytest.approx((1 + 1 + 0.5) / 3)
    assert diagnostics == {"arguments": {"party": {"fields": {"size": {"want": 4, "got": 5}}}}}


def test_an_unnamed_key_inside_an_object_argument_is_wrong_unless_at_its_default():
    expected = call(restaurant="Luigi", party={"fields": {"size": 4}})
    assert score(expected, call(restaurant="Luigi", party={"size": 4, "highchair": False}))[0]["call_exact"] == 1.0
    metrics, diagnostics = score(expected, call(restaurant="Luigi", party={"size": 4, "note": "hi"}))
    assert metrics["call_exact"] == 0.0
    assert diagnostics["arguments"]["party"] == {"fields": {"note": {"want": "(not given)", "got": "hi"}}}


def test_an_object_argument_checked_by_fields_that_is_not_an_object_is_wrong():
    expected = call(restaurant="Luigi", party={"fields": {"size": 4}})
    metrics, diagnostics = score(expected, call(restaurant="Luigi", party="four people"))
    assert metrics["call_accuracy"] == pytest.approx(2 / 3)
    assert diagnostics["arguments"]["party"] == {"want": "an object", "got": "four people"}


def test_an_argument_that_must_be_left_out_is_wrong_when_given_even_null():
    expected = call(restaurant="Luigi", coupon={"absent": True})
    assert score(expected, call(restaurant="Luigi"))[0]["call_exact"] == 1.0
    metrics, diagnostics = score(expected, call(restaurant="Luigi", coupon=None))
    assert metrics["call_exact"] == 0.0 and metrics["call_accuracy"] == pytest.approx(2 / 3)
    assert diagnostics["arguments"]["coupon"] == {"want": "(left out)", "got": None}


def test_an_argument_that_may_be_null_is_right_left_out_or_null():
    expected = call(restaurant="Luigi", coupon=None)
    assert score(expected, call(restaurant="Luigi"))[0]["call_exact"] == 1.0
    assert score(expected, call(restaurant="Luigi", coupon=None))[0]["call_exact"] == 1.0


def test_call_exact_is_zero_for_one_wrong_value_where_call_accuracy_gives_partial_credit():
    expected = call(restaurant="Luigi", coupon="SPRING")
    metrics, _ = score(expected, call(restaurant="Luigi", coupon="WINTER"))
    assert metrics["call_accuracy"] == pytest.approx(2 / 3) and metrics["call_exact"] == 0.0


def test_call_exact_is_zero_with_an_extra_call_and_one_with_several_calls_in_any_order():
    luigi, mario = call(restaurant="Luigi"), call(restaurant="Mario")
    assert score([luigi, mario], [mario, luigi])[0]["call_exact"] == 1.0
    assert score(luigi, [luigi, mario])[0]["call_exact"] == 0.0
    assert score([luigi, mario], [luigi])[0]["call_exact"] == 0.0


def test_a_call_with_unreadable_arguments_where_no_call_is_right_is_a_wrong_call():
    metrics, _ = score(None, {"name": "book_table", "arguments": '{"restaurant": "Lu'})
    assert metrics["call_exact"] == 0.0 and metrics["hallucinated_call"] == 1.0


def test_an_unusable_reply_is_not_an_exact_call():
    case = Case("d", "c", "v", {"text": "Book Luigi", "tools": TOOLS}, call(restaurant="Luigi"))
    scored = ToolCallScorer().score(case, Parsed(output=None, problem="not JSON"), Context("", ()))
    assert scored.metrics["call_exact"] == 0.0


def test_the_perfect_output_fills_object_keys_and_leaves_out_what_must_be_left_out():
    expected = call(
        restaurant="Luigi",
        party={"fields": {"size": [4, 5], "note": {"optional": True}, "seating": {"any_of": ["outdoor", "indoor"]}}},
        coupon={"absent": True},
    )
    case = Case("d", "c", "v", {"text": "Book Luigi", "tools": TOOLS}, expected)
    perfect = ToolCallScorer().perfect_output(case)
    assert perfect == call(restaurant="Luigi", party={"size": 4, "seating": "outdoor"})
    assert score(expected, perfect)[0]["call_exact"] == 1.0
