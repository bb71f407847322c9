"""An agent's trace in a run file (schema version 4): the steps of a result's ``trace`` (``docs/run-file.md``).

A trace is a list of steps in order, each a model turn (:class:`TraceModelStep`) or a tool call
(:class:`TraceToolStep`), told apart by ``kind``. :data:`Trace` is the type of a result's ``trace``: a list of
JSON objects that :func:`check_trace` holds to these models, so the run file's struct (which carries a whole
field's validator, not a union of models) checks it by the same rule.
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


_STEPS: dict[Any, type[_Step]] = {"model": TraceModelStep, "tool": TraceToolStep}


def check_trace(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each step is a model turn or a tool call (:class:`TraceModelStep`, :class:`TraceToolStep`)."""
    for i, step in enumerate(steps):
        model = _STEPS.get(step.get("kind"))
        if model is None:
            got = json.dumps(step.get("kind"))[:60]
            raise ValueError(f"step {i}: kind should be 'model' or 'tool' (got {got})")
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
