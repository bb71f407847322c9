"""OpenTelemetry traces (OTLP JSON) of model calls as an evalcore run: production traffic as cases.

The file is what an OTLP exporter sends and a collector's file exporter writes: ``resourceSpans`` →
``scopeSpans`` → ``spans`` (one object, or one per line), each attribute ``{key, value: {stringValue | intValue |
doubleValue | boolValue | arrayValue}}``; ids in hex (the OTLP JSON mapping) or base64 (protobuf's own JSON
mapping). A span with GenAI semantic-convention attributes (``gen_ai.*``) is a model call: its request model is
the contender, its input messages the case, its output messages the reply, its usage tokens and duration the
result's. Both the current conventions (``gen_ai.input.messages`` / ``gen_ai.output.messages``, JSON text of
messages with ``parts``) and the older ones (``gen_ai.prompt`` / ``gen_ai.completion``, as text or indexed as
``gen_ai.prompt.0.content``; ``gen_ai.usage.prompt_tokens``) are read.

A span whose content was not captured (instrumentations leave it out unless told to capture it) has no
question or reply to score: it is left out and named in a note, never imported as an empty case. A span with
status ``ERROR`` is an error result. The run's one metric, ``completed``, is 1 for each reply; the suite's
scorers and judges score the replies afterwards (:mod:`evalcore.execution.trace_scoring`).

A trace holding an agent's invocation or a tool's execution is one agent run, one case, its model turns and
tool calls the steps of its trace (:mod:`~evalcore.runfile.importers._otlp_agents`); the spans and their
messages are read by :mod:`~evalcore.runfile.importers._otlp_spans`.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from evalcore.core import records
from evalcore.core.errors import RunFileError
from evalcore.runfile.importers import _common as common
from evalcore.runfile.importers import _otlp_spans as otel
from evalcore.runfile.importers._otlp_agents import AgentRun, split_agents
from evalcore.runfile.importers._otlp_spans import Span

TOOL = "otlp"
COMPLETED = records.Metric("completed", "1 for each model call traced with its reply.", True, True)
CAPTURE_HINT = "set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true in the traced service to capture it"
_ERROR = ("STATUS_CODE_ERROR", 2)
_SELECTION = "--sample/--since/--where"
_INPUT_TOKENS = ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens")
_OUTPUT_TOKENS = ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens")
Progress = Callable[[int, int], None]


def is_otlp(tree: Any) -> bool:
    """Whether a parsed JSON value is an OTLP trace export (``{"resourceSpans": [...]}``)."""
    return isinstance(tree, dict) and isinstance(tree.get("resourceSpans"), list)


@dataclass
class Selection:
    """Which traced calls to import (``evalcore import --sample --since --where``)."""

    share: float | None = None
    """The share of calls kept, in (0, 1]: a call is kept when its span id hashes under it, so the same share
    of the same file keeps the same calls."""
    since: str | None = None
    """An RFC 3339 UTC time: calls that started before it are left out."""
    where: dict[str, str] = field(default_factory=dict)
    """Span or resource attributes each call must have, with these values (as text)."""

    def key(self) -> str:
        """The selection as text, for the run's id: another selection of the same file is another run."""
        return json.dumps([self.share, self.since, sorted(self.where.items())])

    def keeps(self, span: Span) -> bool:
        if self.since is not None and (span.started_at is None or span.started_at < self.since):
            return False
        if any(str(span.attributes.get(k, span.resource.get(k))) != v for k, v in self.where.items()):
            return False
        return self.share is None or zlib.crc32(span.span_id.encode()) / 2**32 < self.share


def parse_share(text: str) -> float:
    """``5%`` or ``0.05`` as a share in (0, 1].

    Raises:
        ValueError: the text is neither, or the share is outside (0, 1].
    """
    number = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    if not 0 < number <= 1:
        raise ValueError(f"--sample {text!r}: give a share above 0 and at most 100%, e.g. 5%")
    return number


def parse_since(text: str) -> str | None:
    """A date or time (ISO 8601; a date is its midnight UTC) as an RFC 3339 UTC timestamp, or None."""
    return common.utc_timestamp(text)


def import_otlp(
    trees: list[dict[str, Any]],
    stamp: common.Stamp,
    notes: common.Notes,
    selection: Selection | None = None,
    on_progress: Progress | None = None,
) -> records.Run:
    """The run the GenAI spans of an OTLP JSON export hold.

    Raises:
        RunFileError: the file holds no GenAI span, or the selection keeps none.
    """
    selection = selection or Selection()
    spans = list(otel.spans(trees))
    calls = [s for s in spans if any(k.startswith("gen_ai.") for k in s.attributes)]
    if not calls:
        raise RunFileError(
            f"{stamp.file_name}: no model call to import",
            problems=[
                f"(file): {len(spans)} spans, none with GenAI attributes (gen_ai.request.model, "
                "gen_ai.input.messages …); instrument the model calls with the OpenTelemetry GenAI semantic "
                "conventions (e.g. opentelemetry-instrumentation-openai-v2)"
            ],
        )
    if len(spans) > len(calls):
        notes.add(f"{len(spans) - len(calls)} spans are not model calls (no gen_ai.* attribute): left out")
    agents, singles = split_agents(calls)
    kept = [s for s in singles if selection.keeps(s)]
    kept_agents = [a for a in agents if selection.keeps(a.root)]
    if len(kept) < len(singles):
        notes.add(f"{len(singles) - len(kept)} of {len(singles)} model calls left out by --sample/--since/--where")
    if len(kept_agents) < len(agents):
        notes.add(
            f"{len(agents) - len(kept_agents)} of {len(agents)} agent traces left out by --sample/--since/--where"
        )
    reader = _Calls(notes)
    units: list[Span | AgentRun] = [*kept_agents, *kept]
    for i, unit in enumerate(units):
        reader.add_agent(unit) if isinstance(unit, AgentRun) else reader.add(unit)
        if on_progress is not None and (i % 1000 == 999 or i == len(units) - 1):
            on_progress(i + 1, len(units))
    if not reader.results:
        raise RunFileError(
            f"{stamp.file_name}: no model call to import",
            problems=["(file): " + ("; ".join(notes.as_list()) or "the selection keeps no model call")],
        )
    firsts = [u.root if isinstance(u, AgentRun) else u for u in units]
    times = sorted(s.started_at for s in firsts if s.started_at)
    info = records.RunInfo(
        id=common.run_id(TOOL, stamp.digest),
        suite=str(firsts[0].resource.get("service.name") or "traces"),
        created_at=times[0] if times else stamp.imported_at,
        finished_at=times[-1] if times else None,
        status="completed",
        settings={
            "traces": {"sample": selection.share, "since": selection.since, "where": selection.where},
            common.IMPORT_KEY: {
                "source_counts": {
                    "spans": len(spans),
                    "model_calls": len(singles),
                    "agent_traces": len(agents),
                    "selected": len(units),
                    "not_captured": reader.not_captured,
                },
                "notes": notes.as_list(),
            },
        },
    )
    run = records.Run(
        info=info,
        metrics=[COMPLETED],
        contenders=list(reader.contenders.values()),
        cases=list(reader.cases.values()),
        results=reader.results,
    )
    common.sort_results(run)
    info.provenance = common.provenance(stamp, run, None, {})
    return run


class _Calls:
    def __init__(self, notes: common.Notes):
        self.notes = notes
        self.contenders: dict[str, records.Contender] = {}
        self.cases: dict[tuple[str, str], records.Case] = {}
        self.results: list[records.Result] = []
        #: Calls left out because their content was not captured (each named in a note).
        self.not_captured = 0

    def add(self, span: Span) -> None:
        """A model call: its question and reply."""
        attrs = span.attributes
        question, reply = otel.input_messages(attrs), otel.output_text(attrs)
        if self._captured(span.label, question, reply, span.status.get("code") in _ERROR):
            usage = records.Usage(
                input_tokens=common.count(otel.first(attrs, *_INPUT_TOKENS)),
                output_tokens=common.count(otel.first(attrs, *_OUTPUT_TOKENS)),
            )
            model = str(otel.first(attrs, "gen_ai.request.model", "gen_ai.response.model") or "unknown model")
            self._keep(span, span.span_id, model, question, reply, usage, None)

    def add_agent(self, agent: AgentRun) -> None:
        """An agent run: its question, final reply, and its model turns and tool calls as its trace."""
        root = agent.root
        question, reply = agent.question(), agent.reply()
        if self._captured(agent.label, question, reply, root.status.get("code") in _ERROR):
            usage = records.Usage(
                input_tokens=common.count(agent.tokens(*_INPUT_TOKENS)),
                output_tokens=common.count(agent.tokens(*_OUTPUT_TOKENS)),
            )
            self._keep(root, root.trace_id, agent.model(), question, reply, usage, agent.steps())

    def _captured(self, label: str, question: Any, reply: Any, failed: bool) -> bool:
        """Whether the call's content was captured; a note names it when it was not."""
        if question is not None and (reply is not None or failed):
            return True
        missing = (
            "input and output" if question is None and reply is None else "input" if question is None else "output"
        )
        self.notes.add(f"{label}: its {missing} messages were not captured; left out ({CAPTURE_HINT})")
        self.not_captured += 1
        return False

    def _keep(
        self,
        span: Span,
        case_id: str,
        model: str,
        question: Any,
        reply: str | None,
        usage: records.Usage,
        trace: list[dict[str, Any]] | None,
    ) -> None:
        attrs, failed = span.attributes, span.status.get("code") in _ERROR
        dataset = str(span.resource.get("service.name") or "traces")
        if (dataset, case_id) in self.cases:  # exported twice (a retried export, files concatenated)
            self.notes.add(f"{span.label}: exported more than once; imported once")
            return
        if model not in self.contenders:
            self.contenders[model] = records.Contender(id=model, model=model, settings={})
        case = records.Case(dataset, case_id, "default", {"messages": question}, None, metadata=_metadata(span))
        self.cases[case.key] = case
        error = None
        if failed:
            message = str(span.status.get("message") or attrs.get("error.type") or "the call failed")
            error = records.ErrorInfo(common.error_kind(f"{message} {attrs.get('error.type', '')}"), message)
        self.results.append(
            records.Result(
                contender=model,
                dataset=dataset,
                case=case.id,
                sample=0,
                status="error" if failed else "scored",
                score=None if failed else 1.0,
                metrics={} if failed else {COMPLETED.name: 1.0},
                output=None if failed else reply,
                raw=None if failed else reply,
                error=error,
                usage=usage,
                latency_s=span.duration_s,
                started_at=span.started_at,
                trace=trace,
            )
        )


def _metadata(span: Span) -> dict[str, Any]:
    content = ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.prompt", "gen_ai.completion")
    attrs = {k: v for k, v in span.attributes.items() if not k.startswith(content)}
    return {"trace_id": span.trace_id, "span": span.name, "started_at": span.started_at, **span.resource, **attrs}
