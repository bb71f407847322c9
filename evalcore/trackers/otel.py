"""The ``otel`` tracker: a run as an OpenTelemetry trace, sent over OTLP/HTTP to any backend that takes it.

Configured by the standard variables (``OTEL_EXPORTER_OTLP_ENDPOINT``, ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``,
``OTEL_EXPORTER_OTLP_HEADERS``, ``OTEL_EXPORTER_OTLP_TIMEOUT``, ``OTEL_SERVICE_NAME``, ``OTEL_BSP_*`` …). One
trace per run: a root span for the run, a span per result (a case × contender × sample), and under it a
``chat`` span for the model call, one per judge call and an ``execute_tool`` span per tool call the model asked
for. Attributes follow the GenAI semantic conventions (``docs/trackers.md`` says which version); the scores
are ``gen_ai.evaluation.result`` events on the result's span. Spans are built from the stored result's
``started_at`` and ``latency_s``, so the runner only hands results over.
"""

from __future__ import annotations

import json
import logging
import os
import time
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from evalcore.core.records import Result
from evalcore.trackers._tracker import RunEnded, RunStarted, Tracker, Unsent

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter
    from opentelemetry.trace import Span, SpanContext

    from evalcore.trackers._otel_spans import SpanBuilder

#: The logger namespace of OpenTelemetry's exporters: their warnings say why a batch was not sent.
EXPORTER_LOGGER = "opentelemetry.exporter"
SERVICE_NAME = "evalcore"
GAVE_UP = "due to timeout, max retries or shutdown"
#: Results between two flushes of the batch queue (its default size is 2048 spans; a result makes two or more).
FLUSH_EVERY = 512


class OtelTracker(Tracker):
    """Sends a run as a trace over OTLP/HTTP (protobuf), in batches (``BatchSpanProcessor``).

    A result's spans are known in full once it is stored, so they are built finished
    (:class:`~evalcore.trackers._otel_spans.SpanBuilder`) and handed to the batch processor, rather than opened,
    filled and ended one call at a time through the tracer.

    Args:
        capture_content: also record the messages sent and the replies (``gen_ai.input.messages``,
            ``gen_ai.output.messages``); off by default, as the conventions advise, since they may hold
            personal or secret data.
        exporter: the span exporter (default: OTLP over HTTP, configured by the ``OTEL_EXPORTER_OTLP_*``
            variables); tests pass an in-memory one.
    """

    name: ClassVar[str] = "otel"

    def __init__(self, capture_content: bool = False, exporter: SpanExporter | None = None):
        self.capture_content = capture_content
        self.exporter = exporter
        self.tally = Unsent("spans")
        self.made = 0
        self.results = 0
        self.sent = 0
        self.reasons = _LastReason()
        self.provider: TracerProvider | None = None
        #: Per contender, the attributes all its calls share (worked out once per run).
        self.calls: dict[str, dict[str, Any]] = {}

    def run_started(self, run: RunStarted) -> None:
        """Open the trace: its root span starts when the run was created."""
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import SpanLimits, TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        from evalcore.trackers._otel_spans import SpanBuilder, hashed_once

        logging.getLogger(EXPORTER_LOGGER).addHandler(self.reasons)
        attributes = {} if os.environ.get("OTEL_SERVICE_NAME") else {"service.name": SERVICE_NAME}
        self.provider = TracerProvider(resource=hashed_once(Resource.create(attributes)))
        inner = self.exporter if self.exporter is not None else OTLPSpanExporter()
        self.processor = BatchSpanProcessor(_counting(inner, self))
        self.provider.add_span_processor(self.processor)
        self.calls = {c.id: _call_attributes(c.model, c.settings) for c in run.contenders}
        self.prompt = run.prompt if self.capture_content else None
        # The root goes through the Tracer, so the provider's sampler (``OTEL_TRACES_SAMPLER``) decides for the
        # whole trace; the spans under it are built finished from the stored results.
        self.root: Span = self.provider.get_tracer("evalcore").start_span(
            f"evalcore run {run.info.suite}",
            start_time=_ns(run.info.created_at),
            attributes={
                "evalcore.run.id": run.info.id,
                "evalcore.suite": run.info.suite,
                "evalcore.contenders": [c.id for c in run.contenders],
            },
        )
        self.spans: SpanBuilder = SpanBuilder(self.root.get_span_context(), self.provider, SpanLimits())

    def result_stored(self, result: Result) -> None:
        """The result's span, with its calls under it, ended at the times the result records."""
        spans = self.spans
        if not spans.sampled:
            return  # the sampler (``OTEL_TRACES_SAMPLER``) left this run's trace out: nothing to send
        start = _ns(result.started_at) if result.started_at else time.time_ns()
        end = start + int((result.latency_s or 0.0) * 1e9)
        context = spans.child_context()
        finished = self._model_call(result, context, start, end)
        last = self._judge_calls(result, context, end, finished)
        events = [
            spans.event(
                "gen_ai.evaluation.result",
                {"gen_ai.evaluation.name": metric, "gen_ai.evaluation.score.value": float(value)},
                last,
            )
            for metric, value in result.metrics.items()
            if value is not None
        ]
        attributes = _result_attributes(result)
        error = None
        if result.status == "error" and result.error is not None:
            attributes["error.type"] = result.error.kind
            error = result.error.message
        name = f"evaluate {result.dataset}/{result.case}"
        finished.append(spans.span(name, context, spans.root, (start, last), attributes, events=events, error=error))
        for span in finished:
            self.processor.on_end(span)
        self.made += len(finished)
        self.results += 1
        if self.results % FLUSH_EVERY == 0:
            # Send what is batched now and wait for it: a backend slower than the run holds this thread (and
            # the results queue before it) back, instead of the batch queue dropping spans.
            self.processor.force_flush()

    def run_ended(self, run: RunEnded) -> None:
        """End the root span, send what is batched, and shut the exporter down."""
        self.root.set_attribute("evalcore.run.status", run.info.status)
        self.root.end()
        self.made += int(self.spans.sampled)
        assert self.provider is not None
        try:
            self.provider.force_flush()
            self.provider.shutdown()
        finally:
            logging.getLogger(EXPORTER_LOGGER).removeHandler(self.reasons)

    def unsent(self) -> str | None:
        """``12 spans not sent: connection refused``: spans made but never accepted by the backend."""
        lost = self.made - self.sent
        if lost > 0:
            self.tally.count = 0
            self.tally.add(lost, self.reasons.last or "the backend did not take them in time")
        return self.tally.line()

    def _model_call(self, result: Result, parent: SpanContext, start: int, end: int) -> list[ReadableSpan]:
        """A span per tool call the model asked for, then the model call's span."""
        from opentelemetry.trace import SpanKind

        shared = self.calls.get(result.contender)
        if shared is None:
            shared = self.calls[result.contender] = _call_attributes(result.contender, {})
        attributes = shared | {"evalcore.attempts": result.attempts}
        usage = result.usage
        attributes |= _usage(usage.input_tokens, usage.output_tokens, usage.cost_usd)
        if self.capture_content:
            if self.prompt is not None:
                attributes["gen_ai.input.messages"] = json.dumps(
                    self.prompt(result.contender, result.dataset, result.case), ensure_ascii=False
                )
            if result.raw is not None:
                attributes["gen_ai.output.messages"] = json.dumps(
                    [{"role": "assistant", "parts": [{"type": "text", "content": result.raw}]}], ensure_ascii=False
                )
        error = None
        if result.status == "error" and result.error is not None and result.error.kind != "judge":
            attributes["error.type"] = result.error.kind
            error = result.error.message
        spans = self.spans
        made = [
            spans.span(
                f"execute_tool {name}",
                spans.child_context(),
                parent,
                (end, end),
                {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name},
            )
            for name in _tool_calls(result.raw)
        ]
        model = attributes["gen_ai.request.model"]
        made.append(
            spans.span(
                f"chat {model}", spans.child_context(), parent, (start, end), attributes, SpanKind.CLIENT, error=error
            )
        )
        return made

    def _judge_calls(self, result: Result, parent: SpanContext, start: int, made: list[ReadableSpan]) -> int:
        """A span per judge call, one after the other from ``start``, added to ``made``; returns when the last
        one ended."""
        from opentelemetry.trace import SpanKind

        judge = result.diagnostics.get("judge") if isinstance(result.diagnostics, dict) else None
        if not isinstance(judge, dict):
            return start
        at = start
        for one in judge.get("judges", []):
            for call in one.get("calls", []):
                if call.get("cached"):
                    continue
                end = at + int((call.get("latency_s") or 0.0) * 1e9)
                model = str(one.get("model", ""))
                attributes = {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.request.model": model,
                    "evalcore.call": "judge",
                    "evalcore.attempts": _int(call.get("attempts", 1)),
                } | _usage(call.get("input_tokens"), call.get("output_tokens"), call.get("cost_usd"))
                if self.capture_content:
                    attributes["gen_ai.input.messages"] = json.dumps(one.get("messages", []), ensure_ascii=False)
                    if call.get("raw") is not None:
                        attributes["gen_ai.output.messages"] = json.dumps(
                            [{"role": "assistant", "parts": [{"type": "text", "content": call["raw"]}]}]
                        )
                error = None
                if "error" in call:
                    attributes["error.type"] = "judge"
                    error = str(call["error"])
                context = self.spans.child_context()
                made.append(
                    self.spans.span(
                        f"chat {model}", context, parent, (at, end), attributes, SpanKind.CLIENT, error=error
                    )
                )
                at = end
        return at


def _counting(inner: SpanExporter, tracker: OtelTracker) -> SpanExporter:
    """``inner``, counting the spans the backend accepted (and why a batch was not)."""
    from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

    class Counting(SpanExporter):
        def export(self, spans: Any) -> SpanExportResult:
            try:
                result = inner.export(spans)
            except Exception as exc:  # noqa: BLE001 - a failing exporter is a report, never a failed run
                tracker.reasons.last = _short(str(exc))
                return SpanExportResult.FAILURE
            if result == SpanExportResult.SUCCESS:
                tracker.sent += len(spans)
            return result

        def shutdown(self) -> None:
            inner.shutdown()

        def force_flush(self, timeout_millis: int = 30000) -> bool:
            return inner.force_flush(timeout_millis)

    return Counting()


class _LastReason(logging.Handler):
    """Keeps the last warning of OpenTelemetry's exporters: why a batch was not sent, in a few words."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.last = ""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a log line that cannot be formatted says nothing useful
            return
        # The exporter's last word on a batch ("due to timeout, max retries or shutdown") hides the transient
        # error it retried (a refused connection): keep that one when there was one.
        if GAVE_UP in message and self.last:
            return
        self.last = _short(message)


def _short(message: str) -> str:
    """A transport error in a few words: ``connection refused``, ``HTTP 500``, ``timed out``, or its first line."""
    lower = message.lower()
    if "connection refused" in lower or "errno 111" in lower:
        return "connection refused"
    if "timed out" in lower or "timeout" in lower:
        return "timed out"
    for code in ("500", "502", "503", "504", "400", "401", "403", "404", "429"):
        if f" {code}" in message or f"{code} " in message or f"status: {code}" in lower:
            return f"HTTP {code}"
    return message.splitlines()[0][:200] if message else ""


def _result_attributes(result: Result) -> dict[str, Any]:
    attributes: dict[str, Any] = {
        "evalcore.contender": result.contender,
        "evalcore.dataset": result.dataset,
        "evalcore.case": result.case,
        "evalcore.sample": result.sample,
        "evalcore.status": result.status,
    }
    if result.score is not None:
        attributes["evalcore.score"] = float(result.score)  # every metric is an evaluation event
    return attributes


def _usage(input_tokens: Any, output_tokens: Any, cost_usd: Any) -> dict[str, Any]:
    usage: dict[str, Any] = {}
    if input_tokens is not None:
        usage["gen_ai.usage.input_tokens"] = int(input_tokens)
    if output_tokens is not None:
        usage["gen_ai.usage.output_tokens"] = int(output_tokens)
    if cost_usd is not None:
        usage["evalcore.cost_usd"] = float(cost_usd)
    return usage


def _call_attributes(model: str, settings: dict[str, Any]) -> dict[str, Any]:
    """The attributes every call of a contender shares: what it asked, of which provider, with which settings."""
    attributes: dict[str, Any] = {"gen_ai.operation.name": "chat", "gen_ai.request.model": model}
    provider, _, _ = model.partition("/")
    if provider and provider != model:
        attributes["gen_ai.provider.name"] = provider
    return attributes | {f"gen_ai.request.{k}": v for k, v in settings.items() if _scalar(v)}


def _int(value: Any) -> int:
    """A count from a judge's diagnostics (JSON): an int, else 1."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 1


def _tool_calls(raw: str | None) -> list[str]:
    """The names of the tool calls in a tools-adapter reply (``{"content": …, "tool_calls": [{"name": …}]}``)."""
    if not raw or not raw.startswith("{") or '"tool_calls"' not in raw:
        return []
    try:
        calls = json.loads(raw).get("tool_calls")
    except (ValueError, AttributeError):
        return []
    return [str(c.get("name")) for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []


def _scalar(value: Any) -> bool:
    return isinstance(value, str | bool | int | float)


def _ns(timestamp: str) -> int:
    """An ISO 8601 time (``2026-12-04T10:00:00.123456Z``) in nanoseconds since the epoch."""
    return int(datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp() * 1e9)
