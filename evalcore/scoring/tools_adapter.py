"""The ``tools`` adapter: function calling through the contender's model, scored by the ``tool_call`` scorer.

A case's input is an object with the tools the model is offered (OpenAI format) and what it is asked::

    {"text": "What's the weather in Paris?",            # or "messages": [{"role": "user", "content": ...}]
     "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {...}}}],
     "tool_choice": "auto"}                              # optional; beats the adapter's option

Its expected answer is the right call(s), or null when no call is right (:mod:`evalcore.core.toolcalls`).
The reply's raw text is JSON: ``{"content": <the model's text>, "tool_calls": [{"name", "arguments"}]}`` with
each call's arguments as the JSON text the model wrote, so ``parse()`` reproduces the output from a stored
run. The output is the calls made, shaped like an expected answer: null, one call, or a list.
"""

from __future__ import annotations

import json
from typing import Any

from evalcore.core.errors import ConfigError
from evalcore.core.images import IMAGES_KEY, with_images
from evalcore.core.records import Case, Contender
from evalcore.core.toolcalls import expected_calls, shape_calls, tool_parameters
from evalcore.models.types import Reply
from evalcore.scoring.adapters import Context, Parsed
from evalcore.scoring.client import Client
from evalcore.suite.prompts import ROLES

INPUT_KEYS = frozenset({"text", "messages", "tools", "tool_choice", IMAGES_KEY})
_ROLES = frozenset({*ROLES, "tool"})


class ToolsAdapter:
    """Offers the case's tools to the contender's model and reads the calls it makes (see the module)."""

    name = "tools"
    response_format = None

    def __init__(self, tool_choice: str | dict[str, Any] | None = None):
        """Args:
        tool_choice: sent with every call unless a case gives its own: ``auto`` (the model decides; the
            provider's default), ``required``, ``none``, or ``{"type": "function", "function": {"name": ...}}``.
        """
        if tool_choice is not None and not isinstance(tool_choice, str | dict):
            raise ConfigError(
                f"evalcore.yaml: adapter.options.tool_choice: auto, required, none or an object; got {tool_choice!r}"
            )
        self.tool_choice = tool_choice

    def build_messages(self, case: Case, context: Context) -> list[dict[str, Any]]:
        """The suite's instructions as the system message, then the case's messages (or its text as the user's).

        Raises:
            ConfigError: the input is not an object with ``tools`` and ``text`` or ``messages``, or the expected
                answer is not a call of those tools.
        """
        where = case.source or f"{case.dataset}/{case.id}"
        data = check_tools_input(case.input, where)
        expected_calls(case.expected, data["tools"], f"{where}: expected")
        system = [{"role": "system", "content": context.instructions}] if context.instructions else []
        if "messages" in data:
            return with_images(system + [dict(m) for m in data["messages"]], case)
        return with_images(system + [{"role": "user", "content": data["text"]}], case)

    async def call(self, case: Case, contender: Contender, client: Client) -> Reply:
        """Ask the contender's model with the case's tools; the raw text holds its content and calls."""
        data = case.input if isinstance(case.input, dict) else {}
        params: dict[str, Any] = {"tools": data.get("tools", [])}
        choice = data.get("tool_choice", self.tool_choice)
        if choice is not None:
            params["tool_choice"] = choice
        reply = await client.complete(client.messages, **params)
        return Reply(text=raw_of(reply.text, reply.tool_calls), usage=reply.usage, latency_s=reply.latency_s)

    def parse(self, raw: str, context: Context) -> Parsed:
        """The calls in a raw reply; a call whose arguments are not a JSON object is kept, and the reply marked
        unusable (a ``model`` error) with why."""
        try:
            data = json.loads(raw)
        except ValueError as exc:
            return Parsed(output=None, problem=f"the raw reply is not the tools adapter's JSON: {exc}")
        calls = data.get("tool_calls") if isinstance(data, dict) else None
        if not isinstance(calls, list):
            return Parsed(output=None, problem='the raw reply has no "tool_calls" list')
        made, problems = [], []
        for i, call in enumerate(calls, start=1):
            name = call.get("name") if isinstance(call, dict) else None
            text = call.get("arguments") if isinstance(call, dict) else None
            arguments: Any = text
            try:
                arguments = json.loads(text) if isinstance(text, str) and text.strip() else {}
            except ValueError as exc:
                problems.append(f"call {i} ({name}): its arguments are not valid JSON: {exc}")
            else:
                if not isinstance(arguments, dict):
                    kind = type(arguments).__name__
                    problems.append(f"call {i} ({name}): its arguments are JSON {kind}, not an object")
            made.append({"name": name, "arguments": arguments})
        return Parsed(output=shape_calls(made), problem="; ".join(problems) or None)


def raw_of(content: str, tool_calls: list[dict[str, Any]] | None) -> str:
    """The raw text of a reply: its content and its calls (name, and arguments as the model wrote them)."""
    calls = [{"name": c.get("name"), "arguments": c.get("arguments", "")} for c in tool_calls or []]
    return json.dumps({"content": content, "tool_calls": calls}, ensure_ascii=False)


def check_tools_input(value: Any, where: str) -> dict[str, Any]:
    """A tools case's input, checked: an object with ``tools`` (a non-empty list of OpenAI function tools) and
    exactly one of ``text`` or ``messages``.

    Raises:
        ConfigError: what is wrong, starting with ``where``.
    """
    shape = 'an object {"text": ..., "tools": [...]} (or "messages" instead of "text")'
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: input: the tools adapter needs {shape}; got {type(value).__name__}")
    unknown = sorted(set(value) - INPUT_KEYS)
    if unknown:
        raise ConfigError(f"{where}: input.{unknown[0]}: unknown key; the input has {sorted(INPUT_KEYS)}")
    tools = value.get("tools")
    if not isinstance(tools, list) or not tools:
        raise ConfigError(f"{where}: input.tools: a non-empty list of tools is needed; {shape}")
    if len(tool_parameters(tools)) != len(tools):
        raise ConfigError(
            f"{where}: input.tools: each tool is "
            '{"type": "function", "function": {"name": ..., "description": ..., "parameters": {...}}}, names unique'
        )
    if ("text" in value) == ("messages" in value):
        raise ConfigError(f"{where}: input: give exactly one of `text` or `messages`")
    if "text" in value and not isinstance(value["text"], str):
        raise ConfigError(f"{where}: input.text: a string; got {type(value['text']).__name__}")
    messages = value.get("messages", [None])
    if "messages" in value and (
        not isinstance(messages, list)
        or not messages
        or any(not isinstance(m, dict) or m.get("role") not in _ROLES for m in messages)
    ):
        roles = sorted(_ROLES)
        raise ConfigError(f"{where}: input.messages: a non-empty list of {{role, content}} with role in {roles}")
    return value
