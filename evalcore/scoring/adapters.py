"""Adapters: how a case becomes messages, and how a reply becomes the output a scorer sees.

Built in: ``extract`` (JSON against the field schema) and ``chat`` (free text) here; ``http``
(:mod:`~evalcore.scoring.http_adapter`, an application endpoint) and ``tools``
(:mod:`~evalcore.scoring.tools_adapter`, function calling) and ``agent``
(:mod:`~evalcore.scoring.agent_adapter`, a tool loop with its trace). A suite may name its own as
``module:attribute``; see :func:`evalcore.scoring.plugins.build_adapter`.

A contender with a ``prompt`` is asked the messages of that prompt (:func:`prompt_messages`) instead of
the adapter's own; the adapter still sets the response format and parses the reply.

An adapter with a ``call()`` method (:class:`~evalcore.scoring.client.CallingAdapter`) makes the call itself, through a
:class:`~evalcore.scoring.client.Client`: the runner then never asks the contender's model with the
messages; it parses the text ``call()`` returns.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from typing import Any, Protocol

from evalcore._util import jsonfast
from evalcore.core.images import input_text, text_input, with_images
from evalcore.core.records import Case
from evalcore.core.schema import FieldSpec
from evalcore.suite.fieldrules import type_problems
from evalcore.suite.prompts import Prompt


@dataclass
class Parsed:
    """What the adapter made of a reply: the output, and why it is unusable (None when usable)."""

    output: Any
    problem: str | None = None
    #: Fields whose value has the wrong type: {field: reason}. The output keeps them; they score 0.
    type_errors: dict[str, str] | None = None
    #: An agent's steps (see docs/run-file.md "trace"); None when the target gave no trace, [] when it took no step.
    trace: list[dict[str, Any]] | None = None
    #: Numbers read beside the answer (an application's ``tool_error_rate``, a latency it measured), by name:
    #: the ``numbers`` scorer makes metrics of them (:mod:`evalcore.scoring.numbers`).
    numbers: dict[str, float] | None = None


@dataclass
class Context:
    """What an adapter knows about the suite beyond the case."""

    instructions: str
    fields: tuple[FieldSpec, ...]


class Adapter(Protocol):
    """Builds a case's messages and reads a reply; the runner makes the call."""

    name: str
    #: Sent as ``response_format``; None for free text.
    response_format: dict[str, Any] | None

    def build_messages(self, case: Case, context: Context) -> list[dict[str, Any]]:
        """The messages a contender without a prompt is asked; raise ``ConfigError`` for a case it cannot ask
        (``evalcore verify`` builds every case's messages)."""
        ...

    def parse(self, raw: str, context: Context) -> Parsed:
        """The output a scorer sees in a reply's text, with why it is unusable when it is."""
        ...


class ChatAdapter:
    """Free text: the instructions as the system message, the input as the user message."""

    name = "chat"
    response_format = None

    def build_messages(self, case: Case, context: Context) -> list[dict[str, Any]]:
        messages = [{"role": "system", "content": context.instructions}] if context.instructions else []
        return with_images(messages + [{"role": "user", "content": input_text(case.input)}], case)

    def parse(self, raw: str, context: Context) -> Parsed:
        return Parsed(output=raw.strip())


_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


class ExtractAdapter:
    """JSON extraction against the field schema; an unparseable reply is a model error."""

    name = "extract"
    response_format = {"type": "json_object"}

    def build_messages(self, case: Case, context: Context) -> list[dict[str, Any]]:
        messages = [
            {"role": "system", "content": _system_text_of(context)},
            {"role": "user", "content": input_text(case.input)},
        ]
        return with_images(messages, case)

    def parse(self, raw: str, context: Context) -> Parsed:
        match = _FENCE.match(raw) if "```" in raw else None  # no fence, no need to ask the pattern
        text = match.group(1) if match else raw
        try:
            data = jsonfast.loads(text)
        except json.JSONDecodeError as exc:
            return Parsed(output=None, problem=f"reply is not valid JSON: {exc.msg} at char {exc.pos}")
        if not isinstance(data, dict):
            return Parsed(output=None, problem=f"reply is JSON {type(data).__name__}, not an object")
        return Parsed(output=data, type_errors=type_problems(context.fields, data) or None)


#: {id(fields): (fields, instructions, system text)}: the runner builds every case's messages up front.
_SYSTEM_TEXTS: dict[int, tuple[tuple[FieldSpec, ...], str, str]] = {}


def _system_text_of(context: Context) -> str:
    """:func:`_system_text` of the context, found by the identity of its fields: the lru_cache's key
    hashes every field spec, for every case."""
    fields, instructions = context.fields, context.instructions
    entry = _SYSTEM_TEXTS.get(id(fields))
    if entry is None or entry[0] is not fields or entry[1] != instructions:
        if len(_SYSTEM_TEXTS) >= 64:
            _SYSTEM_TEXTS.clear()
        entry = _SYSTEM_TEXTS[id(fields)] = (fields, instructions, _system_text(instructions, fields))
    return entry[2]


@functools.lru_cache(maxsize=64)
def _system_text(instructions: str, fields: tuple[FieldSpec, ...]) -> str:
    # One string shared by every case of a dataset: the runner holds every case's messages at once.
    return "\n\n".join(p for p in (instructions.strip(), _schema_text(fields)) if p)


@functools.lru_cache(maxsize=64)
def _schema_text(fields: tuple[FieldSpec, ...]) -> str:
    lines = ["Reply with one JSON object with exactly these keys. Use null when the message does not settle a value."]
    for spec in fields:
        kind = {"enum": f"one of {list(spec.values)}", "multi_enum": f"a list of values from {list(spec.values)}"}.get(
            spec.type, spec.type
        )
        nullable = " or null" if spec.nullable else ""
        about = f": {spec.description}" if spec.description else ""
        lines.append(f"- {spec.name} ({kind}{nullable}){about}")
    return "\n".join(lines)


def prompt_messages(prompt: Prompt, case: Case, context: Context) -> list[dict[str, Any]]:
    """The messages ``prompt`` makes of ``case`` (see :func:`prompt_variables` for what it sees), with the case's
    images added to its last user message (:func:`~evalcore.core.images.with_images`).

    Raises:
        ConfigError: the template uses a name it does not have, with its file and line.
    """
    return with_images(prompt.render(prompt_variables(case, context)), case)


def prompt_variables(case: Case, context: Context) -> dict[str, Any]:
    """What a prompt template sees: ``input`` (text, or an object that prints as JSON; without its images, which
    the messages carry as content parts), ``metadata``,
    ``instructions`` (the suite's and the dataset's), ``schema`` (the field schema as the ``extract``
    adapter words it; empty without fields), ``fields`` (each with ``name``, ``type``, ``description``,
    ``values``, ``nullable``), and the case's ``dataset``, ``variant`` and ``id``."""
    return {
        "input": text_input(case.input),
        "metadata": case.metadata,
        "instructions": context.instructions,
        "schema": _schema_text(context.fields) if context.fields else "",
        "fields": context.fields,
        "dataset": case.dataset,
        "variant": case.variant,
        "id": case.id,
    }
