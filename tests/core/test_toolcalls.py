"""evalcore.core.toolcalls: reading an expected tool-call answer, and the exactly right reply it implies."""

from __future__ import annotations

import pytest

from evalcore.core.errors import ConfigError
from evalcore.core.schema import FieldSpec
from evalcore.core.toolcalls import ArgumentRule, canonical_calls, expected_calls, field_spec_of

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
                    "days": {"type": "integer"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "filter": {"type": "object", "properties": {"value": {"type": "number"}}},
                },
                "required": ["city"],
            },
        },
    }
]


def _rules(arguments: dict) -> dict[str, ArgumentRule]:
    (call,) = expected_calls({"name": "get_weather", "arguments": arguments}, TOOLS)
    return {rule.name: rule for rule in call.arguments}


def test_null_and_an_empty_list_mean_no_call_is_right():
    assert expected_calls(None, TOOLS) == ()
    assert expected_calls([], TOOLS) == ()


def test_a_plain_value_is_the_one_acceptable_value():
    assert _rules({"city": "Paris"})["city"] == ArgumentRule("city", ("Paris",))


def test_a_list_for_a_parameter_that_is_not_an_array_lists_acceptable_values():
    assert _rules({"city": ["Paris", "Paris, France"]})["city"].values == ("Paris", "Paris, France")


def test_a_list_for_an_array_parameter_is_its_value():
    assert _rules({"tags": ["a", "b"]})["tags"].values == (["a", "b"],)


def test_a_rule_object_gives_alternatives_and_optionality():
    rule = _rules({"unit": {"any_of": ["celsius", "fahrenheit"], "optional": True}})["unit"]
    assert rule == ArgumentRule("unit", ("celsius", "fahrenheit"), optional=True)
    assert _rules({"days": {"optional": True}})["days"] == ArgumentRule("days", (), optional=True)
    assert _rules({"days": {"value": 3}})["days"] == ArgumentRule("days", (3,))


def test_an_object_value_whose_schema_has_a_property_named_like_a_rule_key_is_a_value():
    assert _rules({"filter": {"value": 3}})["filter"].values == ({"value": 3},)


def test_null_means_the_argument_must_be_left_out_or_null():
    assert _rules({"unit": None})["unit"] == ArgumentRule("unit", (None,), optional=True)


def test_absent_means_the_argument_must_be_left_out():
    assert _rules({"unit": {"absent": True}})["unit"] == ArgumentRule("unit", (), absent=True)


def test_fields_give_a_rule_to_each_key_of_an_object_argument():
    rule = _rules({"filter": {"fields": {"value": [1, 2]}, "optional": True}})["filter"]
    assert rule == ArgumentRule("filter", (), optional=True, fields=(ArgumentRule("value", (1, 2)),))


@pytest.mark.parametrize(
    ("expected", "message"),
    [
        ("get_weather", "a tool-call answer is null"),
        ({"name": "get_wether", "arguments": {}}, "'get_wether' is not a tool of the case; tools: ['get_weather']"),
        ({"name": "get_weather", "arguments": {"town": "x"}}, "argument 'town' is not a parameter of the tool"),
        ({"name": "get_weather", "args": {}}, "'args': unknown key"),
        ({"name": "get_weather", "arguments": {"unit": {"any_of": []}}}, "any_of: a non-empty list"),
        ({"name": "get_weather", "arguments": {"unit": {"any_of": ["a"], "value": "b"}}}, "not both"),
        ({"name": "get_weather", "arguments": {"unit": {"optional": "yes"}}}, "optional: true or false"),
        ({"name": "get_weather", "arguments": {"unit": {"absent": True, "optional": True}}}, "{absent: true} alone"),
        ({"name": "get_weather", "arguments": {"filter": {"fields": {"valu": 3}}}}, "'valu' is not a property"),
        ({"name": "get_weather", "arguments": {"filter": {"fields": 3}}}, "fields: an object of each key's"),
        ({"name": "get_weather", "arguments": {"unit": {"fields": {"a": 1}, "value": "b"}}}, "not both"),
        ([{"name": "get_weather"}, 3], "call 2: a call is an object"),
    ],
)
def test_a_malformed_expected_answer_is_a_config_error_saying_where(expected, message):
    with pytest.raises(ConfigError) as caught:
        expected_calls(expected, TOOLS, "cases/x.yaml: expected")
    assert str(caught.value).startswith("cases/x.yaml: expected")
    assert message in str(caught.value)


def test_without_tools_any_name_and_argument_is_accepted():
    (call,) = expected_calls({"name": "anything", "arguments": {"x": 1}})
    assert call.name == "anything" and call.arguments == (ArgumentRule("x", (1,)),)


def test_the_right_reply_takes_first_values_and_leaves_optional_arguments_out():
    expected = {
        "name": "get_weather",
        "arguments": {"city": ["Paris", "paris"], "unit": {"optional": True}, "days": {"optional": False}},
    }
    assert canonical_calls(expected, TOOLS) == {"name": "get_weather", "arguments": {"city": "Paris", "days": 1}}
    assert canonical_calls(None, TOOLS) is None
    two = [{"name": "get_weather", "arguments": {"city": "A"}}, {"name": "get_weather", "arguments": {"city": "B"}}]
    assert canonical_calls(two, TOOLS) == two


@pytest.mark.parametrize(
    ("schema", "spec"),
    [
        ({"type": "string"}, FieldSpec("a", "string")),
        ({"type": ["string", "null"]}, FieldSpec("a", "string")),
        ({"type": "string", "enum": ["x", "y"]}, FieldSpec("a", "enum", values=("x", "y"))),
        ({"type": "number"}, FieldSpec("a", "number")),
        ({"type": "array", "items": {"type": "string", "enum": ["x"]}}, FieldSpec("a", "multi_enum", values=("x",))),
        ({"type": "array", "items": {"type": "string"}}, None),
        ({"type": "object"}, None),
        ({}, None),
    ],
)
def test_a_parameter_schema_gives_the_field_type_it_compares_by(schema, spec):
    assert field_spec_of("a", schema) == spec
