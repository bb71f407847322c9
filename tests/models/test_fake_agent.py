"""The fake agents: one tool call a turn from the case's expected actions, each going wrong in its own known way."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from evalcore.core.records import Case, Contender
from evalcore.models.fakes import FakeProvider
from evalcore.models.types import Reply, Request

SCHEMA = {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}
TOOLS = [{"type": "function", "function": {"name": n, "parameters": SCHEMA}} for n in ("lookup", "refund", "wipe")]
EXPECTED = {
    "actions": [{"name": "lookup", "arguments": {"x": "A17"}}, {"name": "refund", "arguments": {"x": "A17"}}],
    "answer": "Refunded.",
}


def turn(model: str, results: int) -> Reply:
    """The fake's reply once the conversation holds ``results`` tool results."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Refund A17."}]
    messages += [{"role": "tool", "tool_call_id": f"call_{i}", "content": "ok"} for i in range(results)]
    case = Case("d", "c/1", "c", "Refund A17.", EXPECTED)
    request = Request(Contender(model, model), messages, case=case, max_attempts=1, params={"tools": TOOLS})
    return asyncio.run(FakeProvider().complete(request))


def call_of(reply: Reply) -> tuple[str, dict[str, Any]] | None:
    if not reply.tool_calls:
        return None
    (call,) = reply.tool_calls
    return call["name"], json.loads(call["arguments"])


@pytest.mark.parametrize(
    ("model", "path"),
    [
        ("fake/agent", [("lookup", {"x": "A17"}), ("refund", {"x": "A17"}), None]),
        ("fake/agent-skips", [("refund", {"x": "A17"}), None]),
        ("fake/agent-forbidden", [("wipe", {"x": "example"}), ("lookup", {"x": "A17"}), ("refund", {"x": "A17"})]),
        ("fake/agent-wrong-arg", [("lookup", {"x": "A17"}), ("refund", {"x": "71A"}), None]),
        ("fake/agent-loops", [("lookup", {"x": "A17"})] * 4),
    ],
)
def test_each_fake_agent_takes_its_own_path(model: str, path: list[Any]):
    assert [call_of(turn(model, i)) for i in range(len(path))] == path


def test_a_fake_agent_answers_with_the_expected_answer_once_its_plan_is_done():
    reply = turn("fake/agent", 2)
    assert reply.text == "Refunded." and reply.tool_calls is None and reply.usage.input_tokens


def test_the_right_fake_agent_sends_one_acceptable_value_where_the_case_accepts_several():
    expected = {
        "actions": [
            {"name": "lookup", "arguments": {"x": ["Paris", "paris"]}},
            {"name": "refund", "arguments": {"x": {"any_of": ["A17", "a17"]}}},
        ]
    }
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Weather in Paris?"}]
    case = Case("d", "c/1", "c", "Weather in Paris?", expected)
    sent = []
    for results in range(2):
        asked = messages + [{"role": "tool", "tool_call_id": f"call_{i}", "content": "ok"} for i in range(results)]
        request = Request(Contender("fake/agent", "fake/agent"), asked, case=case, params={"tools": TOOLS})
        sent.append(call_of(asyncio.run(FakeProvider().complete(request))))
    assert sent == [("lookup", {"x": "Paris"}), ("refund", {"x": "A17"})]
