"""The http adapter reads the actions an application's agent took from its reply, as tool steps of a trace."""

from __future__ import annotations

import json

import pytest

from evalcore.core.errors import ConfigError
from evalcore.scoring.adapters import Context
from evalcore.scoring.http_adapter import HttpAdapter

CONTEXT = Context("", ())
STEPS = [
    {"name": "lookup_order", "arguments": {"order_id": "A17"}, "result": "shipped", "latency_s": 0.01},
    {"name": "refund", "arguments": '{"order_id": "A17"}', "error": "over the limit"},
]


def parse(reply, **options):
    return HttpAdapter(url="http://x", output="answer", **options).parse(json.dumps(reply), CONTEXT)


def test_without_a_trace_option_the_reply_has_no_trace():
    assert parse({"answer": "Done.", "steps": STEPS}).trace is None


def test_the_actions_at_the_trace_path_become_tool_steps_in_order():
    parsed = parse({"answer": "Done.", "steps": STEPS}, trace="steps")
    assert parsed.output == "Done."
    first, second = parsed.trace
    assert first == {
        "kind": "tool",
        "index": 0,
        "call_id": None,
        "name": "lookup_order",
        "arguments": {"order_id": "A17"},
        "result": "shipped",
        "error": None,
        "bytes": 7,
        "sent_bytes": 7,
        "latency_s": 0.01,
    }
    assert second["arguments"] == {"order_id": "A17"}  # a JSON text of arguments is parsed
    assert second["error"] == "over the limit" and second["result"] is None and second["bytes"] is None


def test_an_empty_list_of_actions_is_an_empty_trace_and_a_missing_one_is_none():
    assert parse({"answer": "Done.", "steps": []}, trace="steps").trace == []
    assert parse({"answer": "Done."}, trace="steps").trace is None
    assert parse({"answer": "Done.", "steps": "none"}, trace="steps").trace is None


def test_each_part_of_an_action_may_have_its_own_path():
    reply = {
        "answer": "Done.",
        "run": {"events": [{"tool": {"id": "lookup_order"}, "input": {"order_id": "A17"}, "output": {"status": "ok"}}]},
    }
    paths = {"path": "run.events", "name": "tool.id", "arguments": "input", "result": "output"}
    (step,) = parse(reply, trace=paths).trace
    assert step["name"] == "lookup_order" and step["arguments"] == {"order_id": "A17"}
    assert step["result"] == '{"status": "ok"}' and step["bytes"] == len('{"status": "ok"}')


def test_arguments_that_do_not_parse_are_kept_as_their_text():
    (step,) = parse({"answer": "x", "steps": [{"name": "refund", "arguments": "{order A17"}]}, trace="steps").trace
    assert step["arguments"] == "{order A17"


def test_an_unusable_answer_keeps_the_trace():
    parsed = parse({"steps": STEPS}, trace="steps")
    assert parsed.problem is not None and len(parsed.trace) == 2


def test_bad_trace_options_are_config_errors():
    with pytest.raises(ConfigError, match=r"adapter.options.trace.path: path .steps\[.: expected"):
        HttpAdapter(url="http://x", trace="steps[")
    with pytest.raises(ConfigError, match=r"adapter.options.trace.nam: unknown option. Options: \["):
        HttpAdapter(url="http://x", trace={"path": "steps", "nam": "tool"})
