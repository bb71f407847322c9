"""Replies that call tools: litellm's tool_calls read into Reply.tool_calls, and the fake models' tool answers."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from evalcore.core.records import Case, Contender
from evalcore.models.fakes import FakeProvider
from evalcore.models.llm import LiteLLMProvider, close_clients
from evalcore.models.types import Reply, Request
from tests.openai_server import OpenAIServer

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                "required": ["city"],
            },
        },
    }
]
MESSAGES = [{"role": "user", "content": "Weather in Paris?"}]


def ask_server(server: OpenAIServer, **params: Any) -> Reply:
    contender = Contender("c", "openai/tool-model", api_base=server.base_url)
    request = Request(contender=contender, messages=MESSAGES, params=params, backoff_s=0.01, timeout_s=5)

    async def complete() -> Reply:
        try:
            return await LiteLLMProvider().complete(request)
        finally:
            await close_clients()

    return asyncio.run(complete())


def test_litellm_sends_the_tools_and_reads_the_calls_made(openai_server: OpenAIServer, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    openai_server.tool_calls = [
        {"name": "get_weather", "arguments": {"city": "Paris"}},
        {"name": "get_weather", "arguments": '{"city": "Ro'},
    ]
    reply = ask_server(openai_server, tools=TOOLS, tool_choice="auto")
    assert openai_server.requests[0]["tools"] == TOOLS and openai_server.requests[0]["tool_choice"] == "auto"
    assert reply.text == ""
    assert reply.tool_calls == [
        {"id": "call_0", "name": "get_weather", "arguments": '{"city": "Paris"}'},
        {"id": "call_1", "name": "get_weather", "arguments": '{"city": "Ro'},
    ]
    assert reply.usage.output_tokens > 0


def test_a_text_reply_has_no_tool_calls(openai_server: OpenAIServer, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    openai_server.content = "It is sunny."
    reply = ask_server(openai_server)
    assert reply.text == "It is sunny." and reply.tool_calls is None
    assert "tools" not in openai_server.requests[0]


def fake_reply(model: str, expected: Any, sample: int = 0, settings: dict | None = None) -> Reply:
    contender = Contender(model, model, settings or {})
    case = Case("d", "c/001", "c", {"text": "Weather in Paris?", "tools": TOOLS}, expected)
    request = Request(
        contender=contender, messages=MESSAGES, case=case, sample=sample, params={"tools": TOOLS}, backoff_s=0
    )
    return asyncio.run(FakeProvider().complete(request))


def test_the_oracle_makes_the_expected_call_with_the_first_acceptable_values() -> None:
    expected = {"name": "get_weather", "arguments": {"city": ["Paris", "paris fr"], "days": {"optional": True}}}
    reply = fake_reply("fake/oracle", expected)
    assert reply.text == ""
    assert reply.tool_calls == [{"id": "call_0", "name": "get_weather", "arguments": '{"city": "Paris"}'}]
    assert reply.usage.input_tokens > 12 + len(json.dumps(TOOLS).split())  # the tools are part of the prompt


def test_the_oracle_answers_in_words_where_no_call_is_right() -> None:
    reply = fake_reply("fake/oracle", None)
    assert reply.tool_calls is None and reply.text


@pytest.mark.parametrize(
    ("model", "expected", "mistake"),
    [
        ("fake/guesser", None, lambda r: r.tool_calls is not None),  # calls a tool where none is right
        ("fake/cautious", {"name": "get_weather", "arguments": {"city": "Paris"}}, lambda r: r.tool_calls is None),
        (
            "fake/sloppy",
            {"name": "get_weather", "arguments": {"city": "Paris", "days": 2}},
            lambda r: r.tool_calls is not None and not _is_json(r.tool_calls[0]["arguments"]),
        ),
    ],
)
def test_each_fake_makes_its_own_mistakes_now_and_then(model: str, expected: Any, mistake: Any) -> None:
    replies = [fake_reply(model, expected, sample=i) for i in range(40)]
    made = sum(1 for r in replies if mistake(r))
    assert 0 < made < 40


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True
