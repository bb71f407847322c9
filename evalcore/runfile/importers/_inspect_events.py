"""An Inspect sample's events as an agent's trace (``docs/run-file.md``, "trace"; ``docs/importing.md``).

Each ``model`` event becomes a model step (what the model said, the tools it called, tokens and cost from its
output's usage, its working time) and each ``tool`` event a tool step (function, arguments, result or error,
the result's size before Inspect cut it to ``max_tool_output``, its working time); the other events (spans,
state, scores, logging) are not steps. Events Inspect still marks ``pending`` never finished and are left out.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from evalcore.runfile.importers import _common as common

#: The keys of an event the trace is made from: a lean parse builds only these (a model event's ``input``,
#: the whole conversation so far, is never read).
EVENT_KEYS = (
    "event",
    "pending",
    "id",
    "function",
    "arguments",
    "result",
    "error",
    "truncated",
    "output",
    "timestamp",
    "completed",
    "working_time",
)


def trace_of(events: Any) -> list[dict[str, Any]] | None:
    """The trace an Inspect sample's events hold; None when the sample has no events (a log written without
    them), an empty list when none of them is a model turn or a tool call."""
    if not isinstance(events, list):
        return None
    steps: list[dict[str, Any]] = []
    for event in events:
        if not isinstance(event, dict) or event.get("pending"):
            continue
        if event.get("event") == "model":
            steps.append(_model_step(len(steps), event))
        elif event.get("event") == "tool":
            steps.append(_tool_step(len(steps), event))
    return steps


def event_steps(events: Any) -> dict[tuple[str, str], dict[str, Any]]:
    """The model and tool steps an Inspect sample's finished events make, by ``("model", the id of the message
    the model wrote)`` and ``("tool", the tool call's id)``: a conversation's transcript takes their usage."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for event in events if isinstance(events, list) else []:
        if not isinstance(event, dict) or event.get("pending"):
            continue
        if event.get("event") == "model":
            choices = common.obj(event.get("output")).get("choices")
            message = common.obj(choices[0].get("message")) if choices and isinstance(choices[0], dict) else {}
            if message.get("id") is not None:
                found["model", str(message["id"])] = _model_step(0, event)
        elif event.get("event") == "tool" and event.get("id") is not None:
            found["tool", str(event["id"])] = _tool_step(0, event)
    return found


def _model_step(index: int, event: dict[str, Any]) -> dict[str, Any]:
    output = common.obj(event.get("output"))
    choices = output.get("choices")
    message = common.obj(choices[0].get("message")) if choices and isinstance(choices[0], dict) else {}
    usage = common.obj(output.get("usage"))
    prompt = common.count(usage.get("input_tokens"))
    if prompt is not None:  # cached prompt tokens are prompt tokens too, as a sample's usage counts them
        cached = [common.count(usage.get(k)) for k in ("input_tokens_cache_read", "input_tokens_cache_write")]
        prompt += sum(c for c in cached if c is not None)
    calls = message.get("tool_calls")
    return {
        "kind": "model",
        "index": index,
        "latency_s": _latency(event, output.get("time")),
        "input_tokens": prompt,
        "output_tokens": common.count(usage.get("output_tokens")),
        "cost_usd": common.money(usage.get("total_cost")),
        "content": content_text(message.get("content")),
        "tool_calls": [
            {"id": _id(c.get("id")), "name": c.get("function"), "arguments": c.get("arguments")}
            for c in (calls if isinstance(calls, list) else [])
            if isinstance(c, dict)
        ],
    }


def _tool_step(index: int, event: dict[str, Any]) -> dict[str, Any]:
    error = event.get("error")
    failed = error is not None
    result = None if failed else content_text(event.get("result"))
    sent = len(result.encode()) if result is not None else 0
    truncated = event.get("truncated")
    # Inspect keeps the size of a result it cut to max_tool_output: (its bytes, the limit)
    whole = common.count(truncated[0]) if isinstance(truncated, list) and truncated else None
    message = common.obj(error).get("message") if isinstance(error, dict) else error
    return {
        "kind": "tool",
        "index": index,
        "call_id": _id(event.get("id")),
        "name": _id(event.get("function")),
        "arguments": event.get("arguments"),
        "result": result,
        "error": None if not failed else str(message or "the tool call failed"),
        "bytes": whole if whole is not None and whole >= sent else sent,
        "sent_bytes": sent,
        "latency_s": _latency(event, None),
    }


def _latency(event: dict[str, Any], fallback: Any) -> float | None:
    """The event's working time, else the given time, else from its start to its completion."""
    for value in (event.get("working_time"), fallback):
        if (seconds := common.seconds(value)) is not None:
            return seconds
    start, end = _moment(event.get("timestamp")), _moment(event.get("completed"))
    if start is None or end is None or end < start:
        return None
    return (end - start).total_seconds()


def _moment(value: Any) -> datetime | None:
    stamp = common.utc_timestamp(value) if isinstance(value, str) else None
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")) if stamp else None


def _id(value: Any) -> str | None:
    return None if value is None else str(value)


def content_text(content: Any) -> str | None:
    """A message's or a tool result's text: a string as it is, content parts joined (an image as
    ``[image]``), a number or other value as JSON."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            p.get("text") if p.get("type") == "text" else f"[{p.get('type')}]" for p in content if isinstance(p, dict)
        ]
        return "".join(str(p) for p in parts if p is not None)
    return json.dumps(content, ensure_ascii=False, default=repr)
