"""An agent's trace in a run file (schema version 4): the steps of a result's ``trace`` (``docs/run-file.md``).

A trace is a list of steps in order, each a model turn (:class:`TraceModelStep`) or a tool call
(:class:`TraceToolStep`), told apart by ``kind``. :data:`Trace` is the type of a result's ``trace``: a list of
JSON objects that :func:`check_trace` holds to these models, so the run file's struct (which carries a whole
field's validator, not a union of models) checks it by the same rule.

Schema version 5 adds a conversation's transcript (:data:`ConversationTrace`): the user's messages
(:class:`TraceUserStep`) between the contender's model turns, each of which says the user turn it answers
(:class:`TraceTurnStep`).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, WithJsonSchema

Count = Annotated[int, Field(ge=0, le=2**63 - 1)]
NonNegative = Annotated[float, Field(ge=0)]
JsonObject = dict[str, Any]


class _Step(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)


class TraceModelStep(_Step):
    """A model turn of an agent's trace."""

    kind: Literal["model"]
    """``model``."""
    index: Count
    """The step's place in the trace, from 0."""
    latency_s: NonNegative | None
    """Wall time of the model call."""
    input_tokens: Count | None
    """Prompt tokens of the turn; null when unknown."""
    output_tokens: Count | None
    """Completion tokens of the turn; null when unknown."""
    cost_usd: NonNegative | None
    """Cost of the turn in US dollars; null when unknown."""
    content: str | None
    """What the model said, or null."""
    tool_calls: list[JsonObject]
    """The tools it called: ``{id, name, arguments}``, the arguments an object when they parse, else their text."""


class TraceToolStep(_Step):
    """A tool call of an agent's trace, as the loop ran it."""

    kind: Literal["tool"]
    """``tool``."""
    index: Count
    """The step's place in the trace, from 0."""
    call_id: str | None
    """The id of the call in the model turn before."""
    name: str | None
    """The tool called."""
    arguments: Any
    """Its arguments: an object when they parse, else the model's text."""
    result: str | None
    """The text sent back to the model, cut to the suite's byte budget; null when the call failed."""
    error: str | None
    """Why the call failed (the model is sent it), or null."""
    bytes: Count | None
    """UTF-8 bytes of the whole result (0 on error); null when unknown (an application's reported action)."""
    sent_bytes: Count | None
    """UTF-8 bytes of the result sent to the model; null when unknown."""
    latency_s: NonNegative | None
    """Wall time of the call."""


class TraceUserStep(_Step):
    """A user's message in a conversation's transcript (schema version 5): scripted, or a simulated user's."""

    kind: Literal["user"]
    """``user``."""
    index: Count
    """The step's place in the trace, from 0."""
    turn: Count
    """The user turn, from 0; the contender's steps that answer it carry the same ``turn``."""
    content: str
    """What the user said (a simulated user's end mark included)."""
    end: Literal["done", "gave_up"] | None
    """How a simulated user ended the conversation with this message (its goal met, or it gave up); null otherwise."""
    latency_s: NonNegative | None
    """Wall time of the simulated user's call; null for a scripted message."""
    input_tokens: Count | None
    """Prompt tokens of the simulated user's call; null for a scripted message or when unknown."""
    output_tokens: Count | None
    """Completion tokens of the simulated user's call; null for a scripted message or when unknown."""
    cost_usd: NonNegative | None
    """Cost of the simulated user's call in US dollars; null for a scripted message or when unknown."""


class TraceTurnStep(TraceModelStep):
    """A model turn of a conversation's transcript (schema version 5): a model turn and the user turn it answers."""

    turn: Count
    """The user turn it answers, from 0."""


_STEPS: dict[Any, type[_Step]] = {"model": TraceModelStep, "tool": TraceToolStep}
#: The steps of a conversation's transcript (schema version 5).
_CONVERSATION_STEPS: dict[Any, type[_Step]] = {"model": TraceTurnStep, "tool": TraceToolStep, "user": TraceUserStep}


def check_trace(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each step is a model turn or a tool call (:class:`TraceModelStep`, :class:`TraceToolStep`)."""
    return _check(steps, _STEPS)


def check_conversation_trace(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """An agent's trace (:func:`check_trace`), or a conversation's transcript: user messages
    (:class:`TraceUserStep`) and the model turns that answer them (:class:`TraceTurnStep`), with tool calls."""
    conversation = any(s.get("kind") == "user" for s in steps)
    return _check(steps, _CONVERSATION_STEPS if conversation else _STEPS)


def _check(steps: list[dict[str, Any]], kinds: dict[Any, type[_Step]]) -> list[dict[str, Any]]:
    for i, step in enumerate(steps):
        model = kinds.get(step.get("kind"))
        if model is None:
            got = json.dumps(step.get("kind"))[:60]
            named = " or ".join(repr(k) for k in kinds)
            raise ValueError(f"step {i}: kind should be {named} (got {got})")
        try:
            model.model_validate(step)
        except ValidationError as e:
            first = e.errors()[0]
            where = ".".join(map(str, first["loc"])) or "step"
            raise ValueError(f"step {i}: {where}: {first['msg']}") from None
    return steps


_TRACE_SCHEMA = {
    "type": "array",
    "items": {"oneOf": [TraceModelStep.model_json_schema(), TraceToolStep.model_json_schema()]},
}
#: An agent's steps in order (``docs/run-file.md``, "trace").
Trace = Annotated[list[JsonObject], AfterValidator(check_trace), WithJsonSchema(_TRACE_SCHEMA)]
_CONVERSATION_SCHEMA = {
    "type": "array",
    "items": {
        "oneOf": [
            TraceModelStep.model_json_schema(),
            TraceToolStep.model_json_schema(),
            TraceUserStep.model_json_schema(),
            TraceTurnStep.model_json_schema(),
        ]
    },
}
#: An agent's steps, or a conversation's transcript, in order (schema version 5, ``docs/run-file.md``).
ConversationTrace = Annotated[
    list[JsonObject], AfterValidator(check_conversation_trace), WithJsonSchema(_CONVERSATION_SCHEMA)
]
