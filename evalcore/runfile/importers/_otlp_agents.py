"""Agent runs in OpenTelemetry traces: a trace whose GenAI spans include an agent's invocation (``invoke_agent``)
or a tool's execution (``execute_tool``) is one agent run, one case, its model turns and tool calls the steps of
its trace (``docs/run-file.md``, "trace") in the order they started.

The question is the agent span's input messages (else its first model turn's), the reply its output messages
(else its last model turn's); the contender the agent's model (else its first turn's); the tokens the sum of its
turns'. A tool span's arguments (``gen_ai.tool.call.arguments``) and result (``gen_ai.tool.call.result``) are
recorded only when the instrumentation captures content: without them the step keeps its name and says nothing
it does not know (null).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from evalcore.runfile.importers import _otlp_spans as otel
from evalcore.runfile.importers._otlp_spans import Span

OPERATION = "gen_ai.operation.name"
AGENT, TOOL = "invoke_agent", "execute_tool"


@dataclass
class AgentRun:
    """One traced agent run: its spans, in the order they started."""

    spans: list[Span]

    @property
    def root(self) -> Span:
        """The agent's span (its first, with several), else the first span: what --sample/--since/--where read."""
        return next((s for s in self.spans if s.attributes.get(OPERATION) == AGENT), self.spans[0])

    @property
    def turns(self) -> list[Span]:
        return [s for s in self.spans if s.attributes.get(OPERATION) not in (AGENT, TOOL)]

    @property
    def label(self) -> str:
        root = self.root
        return f"agent trace {root.trace_id} ({root.name!r}, {len(self.spans)} spans, {root.started_at or 'no start'})"

    def question(self) -> list[dict[str, Any]] | None:
        found = otel.input_messages(self.root.attributes)
        return found if found is not None or not self.turns else otel.input_messages(self.turns[0].attributes)

    def reply(self) -> str | None:
        found = otel.output_text(self.root.attributes)
        return found if found is not None or not self.turns else otel.output_text(self.turns[-1].attributes)

    def model(self) -> str:
        for span in [self.root, *self.turns]:
            model = otel.first(span.attributes, "gen_ai.request.model", "gen_ai.response.model")
            if model is not None:
                return str(model)
        return "unknown model"

    def tokens(self, *keys: str) -> int | None:
        """The sum of the turns' tokens under the first of ``keys`` each has; None when no turn says."""
        counts = [otel.first(s.attributes, *keys) for s in self.turns or [self.root]]
        known = [c for c in counts if isinstance(c, int)]
        return sum(known) if known else None

    def steps(self) -> list[dict[str, Any]]:
        """The model turns and tool calls as the steps of a trace."""
        found = [s for s in self.spans if s.attributes.get(OPERATION) != AGENT]
        return [
            _tool_step(i, s) if s.attributes.get(OPERATION) == TOOL else _model_step(i, s) for i, s in enumerate(found)
        ]


def split_agents(calls: list[Span]) -> tuple[list[AgentRun], list[Span]]:
    """The GenAI spans as agent runs (the traces holding an agent or tool span) and single model calls."""
    by_trace: dict[str, list[Span]] = {}
    for span in calls:
        by_trace.setdefault(span.trace_id, []).append(span)
    agents: list[AgentRun] = []
    singles: list[Span] = []
    for spans in by_trace.values():
        if any(s.attributes.get(OPERATION) in (AGENT, TOOL) for s in spans):
            agents.append(AgentRun(sorted(spans, key=lambda s: (s.start_ns is None, s.start_ns or 0))))
        else:
            singles.extend(spans)
    return agents, singles


def _model_step(index: int, span: Span) -> dict[str, Any]:
    attrs = span.attributes
    return {
        "kind": "model",
        "index": index,
        "latency_s": span.duration_s,
        "input_tokens": otel.first(attrs, "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"),
        "output_tokens": otel.first(attrs, "gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens"),
        "cost_usd": None,
        "content": _said(attrs),
        "tool_calls": _tool_calls(attrs.get("gen_ai.output.messages")),
    }


def _said(attrs: dict[str, Any]) -> str | None:
    """The text parts of a turn's output; None when it said nothing in text (only tool calls) or was not captured."""
    messages = otel.parsed(attrs.get("gen_ai.output.messages"))
    if not isinstance(messages, list):
        return otel.output_text(attrs)
    parts = [p for m in messages if isinstance(m, dict) for p in m.get("parts") or [] if isinstance(p, dict)]
    texts = [str(p.get("content") or "") for p in parts if p.get("type") == "text"]
    return "\n".join(texts) if texts else None


def _tool_calls(value: Any) -> list[dict[str, Any]]:
    messages = otel.parsed(value)
    parts = (
        [p for m in messages if isinstance(m, dict) for p in m.get("parts") or []] if isinstance(messages, list) else []
    )
    return [
        {"id": p.get("id"), "name": p.get("name"), "arguments": otel.parsed(p.get("arguments"))}
        for p in parts
        if isinstance(p, dict) and p.get("type") == "tool_call"
    ]


def _tool_step(index: int, span: Span) -> dict[str, Any]:
    attrs = span.attributes
    failed = span.status.get("code") in ("STATUS_CODE_ERROR", 2)
    result = attrs.get("gen_ai.tool.call.result")
    result = None if failed or result is None else result if isinstance(result, str) else json.dumps(result)
    size = len(result.encode()) if result is not None else 0 if failed else None
    return {
        "kind": "tool",
        "index": index,
        "call_id": attrs.get("gen_ai.tool.call.id"),
        "name": attrs.get("gen_ai.tool.name"),
        "arguments": otel.parsed(attrs.get("gen_ai.tool.call.arguments")),
        "result": result,
        "error": str(span.status.get("message") or attrs.get("error.type") or "the tool failed") if failed else None,
        "bytes": size,
        "sent_bytes": size,
        "latency_s": span.duration_s,
    }
