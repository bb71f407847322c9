"""The tools adapter: what a case must hold, the messages it sends, and how a raw reply becomes calls."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalcore.core.errors import ConfigError
from evalcore.core.records import Case
from evalcore.scoring.adapters import Context
from evalcore.scoring.plugins import build_adapter
from evalcore.scoring.tools_adapter import ToolsAdapter, raw_of
from evalcore.suite.config import NamedRef

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        },
    }
]
PARIS = {"name": "get_weather", "arguments": {"city": "Paris"}}


def case(input_, expected=PARIS) -> Case:
    return Case("assistant", "single/001", "single", input_, expected, source="cases/weather.yaml")


def test_the_instructions_then_the_text_are_the_messages():
    the_case = case({"text": "Weather in Paris?", "tools": TOOLS})
    messages = ToolsAdapter().build_messages(the_case, Context("Be brief.", ()))
    assert messages == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather in Paris?"}]


def test_a_conversation_is_sent_as_it_is():
    turns = [
        {"role": "user", "content": "I'm in Oslo."},
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": "Weather?"},
    ]
    messages = ToolsAdapter().build_messages(case({"messages": turns, "tools": TOOLS}), Context("", ()))
    assert messages == turns


@pytest.mark.parametrize(
    ("input_", "problem"),
    [
        ("Weather?", "input: the tools adapter needs an object"),
        ({"text": "Weather?"}, "input.tools: a non-empty list of tools is needed"),
        ({"text": "Weather?", "tools": [{"name": "get_weather"}]}, "input.tools: each tool is"),
        ({"text": "x", "messages": [], "tools": TOOLS}, "give exactly one of `text` or `messages`"),
        ({"messages": [{"role": "robot", "content": "x"}], "tools": TOOLS}, "input.messages: a non-empty list"),
        ({"text": "x", "tools": TOOLS, "choice": "auto"}, "input.choice: unknown key"),
    ],
)
def test_an_input_the_adapter_cannot_send_is_a_config_error_naming_the_case_file(input_, problem):
    with pytest.raises(ConfigError) as caught:
        ToolsAdapter().build_messages(case(input_), Context("", ()))
    assert str(caught.value).startswith("cases/weather.yaml: ") and problem in str(caught.value)


def test_an_expected_call_of_a_tool_the_case_does_not_offer_is_a_config_error():
    with pytest.raises(ConfigError, match=r"cases/weather.yaml: expected: call 1: 'get_time' is not a tool"):
        ToolsAdapter().build_messages(
            case({"text": "x", "tools": TOOLS}, {"name": "get_time", "arguments": {}}), Context("", ())
        )


def test_a_raw_reply_holds_the_text_and_the_calls_and_parses_back_to_them():
    raw = raw_of("", [{"id": "call_1", "name": "get_weather", "arguments": '{"city": "Paris"}'}])
    assert json.loads(raw) == {"content": "", "tool_calls": [{"name": "get_weather", "arguments": '{"city": "Paris"}'}]}
    parsed = ToolsAdapter().parse(raw, Context("", ()))
    assert parsed.output == PARIS and parsed.problem is None


def test_no_call_is_null_and_several_calls_a_list():
    adapter = ToolsAdapter()
    assert adapter.parse(raw_of("It is sunny.", None), Context("", ())).output is None
    two = raw_of("", [{"name": "a", "arguments": "{}"}, {"name": "b", "arguments": ""}])
    assert adapter.parse(two, Context("", ())).output == [
        {"name": "a", "arguments": {}},
        {"name": "b", "arguments": {}},
    ]


def test_arguments_that_are_not_json_are_kept_and_make_the_reply_a_model_error():
    parsed = ToolsAdapter().parse(raw_of("", [{"name": "get_weather", "arguments": '{"city": "Par'}]), Context("", ()))
    assert parsed.output == {"name": "get_weather", "arguments": '{"city": "Par'}
    assert parsed.problem.startswith("call 1 (get_weather): its arguments are not valid JSON")
    listed = ToolsAdapter().parse(raw_of("", [{"name": "f", "arguments": "[1]"}]), Context("", ()))
    assert listed.problem == "call 1 (f): its arguments are JSON list, not an object"


def test_a_raw_reply_of_another_shape_is_unusable():
    assert ToolsAdapter().parse("Sure!", Context("", ())).problem.startswith("the raw reply is not the tools adapter")
    assert ToolsAdapter().parse('{"content": "x"}', Context("", ())).problem == 'the raw reply has no "tool_calls" list'


def test_it_is_built_in_with_a_tool_choice_option(tmp_path: Path):
    adapter = build_adapter(NamedRef(name="tools", options={"tool_choice": "required"}), tmp_path)
    assert isinstance(adapter, ToolsAdapter) and adapter.tool_choice == "required"
    with pytest.raises(ConfigError, match="adapter.options.tool_choice"):
        build_adapter(NamedRef(name="tools", options={"tool_choice": 3}), tmp_path)
