"""Tool-call arguments of different JSON types (docs/suites.md, "The `tools` adapter and the `tool_call` scorer").

Python says ``True == 1`` and ``0 == False``; JSON does not, and neither does the scorer: a boolean is never a
number, text is never a number, while numbers compare by value (``1`` is ``1.0``). Each row is one expected value
against one value in the reply, for a parameter whose schema gives no type (compared as JSON) and for one that
gives the type.
"""

from __future__ import annotations

import pytest

from evalcore.scoring.tool_calls import score_tool_calls

MISSING = object()


def _tool(schema):
    parameters = {"type": "object", "properties": {"x": schema, "other": {}}}
    return [{"type": "function", "function": {"name": "f", "parameters": parameters}}]


def _right(want, got, schema) -> bool:
    arguments = {} if got is MISSING else {"x": got}
    expected = {"name": "f", "arguments": {"x": want}}
    metrics, _ = score_tool_calls(expected, {"name": "f", "arguments": arguments}, _tool(schema))
    return metrics["call_exact"] == 1.0


UNTYPED = [
    (True, 1, False),
    (1, True, False),
    (False, 0, False),
    (0, False, False),
    (True, True, True),
    (1, 1.0, True),  # numbers by value
    (1.0, 1, True),
    ("1", 1, False),
    (1, "1", False),
    ("true", True, False),
    (None, MISSING, True),  # expected null: may be left out or given null
    (None, None, True),
    (None, 0, False),
    (None, False, False),
    (None, "", False),
    (0, None, False),
    (False, MISSING, False),
    ([True, "yes"], 1, False),  # a list of acceptable values: each compared the same way
    ({"a": False}, {"a": 0}, False),  # inside an object, the same rules
    ({"a": "1"}, {"a": 1}, False),
]


@pytest.mark.parametrize(("want", "got", "right"), UNTYPED)
def test_an_untyped_argument_compares_as_json_where_a_boolean_is_never_a_number(want, got, right):
    assert _right(want, got, {}) is right


TYPED = [
    ({"type": "boolean"}, True, 1, False),
    ({"type": "boolean"}, False, 0, False),
    ({"type": "boolean"}, False, None, False),
    ({"type": "integer"}, 1, True, False),
    ({"type": "integer"}, 0, False, False),
    ({"type": "integer"}, 1, 1.0, True),
    ({"type": "number"}, 1, 1.0, True),
    ({"type": "integer"}, 1, "1", False),
    ({"type": "string"}, "1", 1, False),
    ({"type": "string"}, "true", True, False),
    ({"type": ["integer", "null"]}, 1, True, False),
    ({"type": "string", "enum": ["1", "2"]}, "1", 1, False),
    ({"type": "array"}, [True], [1], False),  # an array of untyped items compares as JSON, item by item
    ({"type": "array"}, [1], [1.0], True),
    ({"type": "array"}, [None], [], False),
]


@pytest.mark.parametrize(("schema", "want", "got", "right"), TYPED)
def test_a_typed_argument_of_another_json_type_is_wrong_but_numbers_compare_by_value(schema, want, got, right):
    assert _right(want, got, schema) is right


@pytest.mark.parametrize("given", [None, 0, False, ""])
def test_an_argument_the_answer_does_not_name_given_null_or_a_falsy_value_is_wrong(given):
    expected = {"name": "f", "arguments": {"x": 1}}
    metrics, diagnostics = score_tool_calls(expected, {"name": "f", "arguments": {"x": 1, "other": given}}, _tool({}))
    assert metrics["call_exact"] == 0.0 and diagnostics["arguments"] == {"other": {"want": "(not given)", "got": given}}
