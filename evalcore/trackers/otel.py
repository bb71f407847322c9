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

from evalcore.core.records import Contender, Result
from evalcore.trackers._tracker import RunEnded, RunStarted, Tracker, Unsent

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter
    from opentelemetry.trace import Span, Tracer

#: The logger namespace of OpenTelemetry's exporters: their warnings say why a batch was not sent.
EXPORTER_LOGGER = "opentelemetry.exporter"
SERVICE_NAME = "evalcore"
GAVE_UP = "due to timeout, max retries or shutdown"
#: Results between two flushes of the batch queue (its default size is 2048 spans; a result makes two or more).
FLUSH_EVERY = 512


class OtelTracker(Tracker):
    """Sends a run as a trace over OTLP/HTTP (protobuf), in batches (``BatchSpanProcessor``).

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
        self.contenders: dict[str, Contender] = {}

    def run_started(self, run: RunStarted) -> None:
        """Open the trace: its root span starts when the run was created."""
        from opentelemetry import trace
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        logging.getLogger(EXPORTER_LOGGER).addHandler(self.reasons)
        attributes = {} if os.environ.get("OTEL_SERVICE_NAME") else {"service.name": SERVICE_NAME}
        self.provider = TracerProvider(resource=Resource.create(attributes))
        inner = self.exporter if self.exporter is not None else OTLPSpanExporter()
        self.provider.add_span_processor(BatchSpanProcessor(_counting(inner, self)))
        self.tracer: Tracer = self.provider.get_tracer("evalcore")
        self.contenders = {c.id: c for c in run.contenders}
        self.prompt = run.prompt if self.capture_content else None
        self.root: Span = self.tracer.start_span(
            f"evalcore run {run.info.suite}",
            start_time=_ns(run.info.created_at),
            attributes={
                "evalcore.run.id": run.info.id,
                "evalcore.suite": run.info.suite,
                "evalcore.contenders": [c.id for c in run.contenders],
            },
        )
        self.root_context = trace.set_span_in_context(self.root)

    def result_stored(self, result: Result) -> None:
        """The result's span, with its calls under it, ended at the times the result records."""
        from opentelemetry import trace

        start = _ns(result.started_at) if result.started_at else time.time_ns()
        end = start + int((result.latency_s or 0.0) * 1e9)
        span = self.tracer.start_span(
            f"evaluate {result.dataset}/{result.case}",
            context=self.root_context,
            start_time=start,
            attributes=_result_attributes(result),
        )
        inside = trace.set_span_in_context(span)
        self._model_call(result, inside, start, end)
        last = self._judge_calls(result, inside, end)
        for metric, value in result.metrics.items():
            if value is not None:
                span.add_event(
                    "gen_ai.evaluation.result",
                    {"gen_ai.evaluation.name": metric, "gen_ai.evaluation.score.value": float(value)},
                    timestamp=last,
                )
        if result.status == "error" and result.error is not None:
            _failed(span, result.error.kind, result.error.message)
        span.end(end_time=last)
        self.made += 1
        self.results += 1
        if self.results % FLUSH_EVERY == 0:
            # Send what is batched now and wait for it: a backend slower than the run holds this thread (and
            # the results queue before it) back, instead of the batch queue dropping spans.
            assert self.provider is not None
            self.provider.force_flush()

    def run_ended(self, run: RunEnded) -> None:
        """End the root span, send what is batched, and shut the exporter down."""
        self.root.set_attribute("evalcore.run.status", run.info.status)
        self.root.end()
        self.made += 1
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

    def _model_call(self, result: Result, context: Any, start: int, end: int) -> None:
        from opentelemetry.trace import SpanKind

        contender = self.contenders.get(result.contender)
        model = contender.model if contender is not None else result.contender
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": model,
            "evalcore.attempts": result.attempts,
        }
        provider, _, _ = model.partition("/")
        if provider and provider != model:
            attributes["gen_ai.provider.name"] = provider
        attributes |= _usage(result.usage.input_tokens, result.usage.output_tokens, result.usage.cost_usd)
        if contender is not None:
            attributes |= {f"gen_ai.request.{k}": v for k, v in contender.settings.items() if _scalar(v)}
        if self.capture_content:
            if self.prompt is not None:
                attributes["gen_ai.input.messages"] = json.dumps(
                    self.prompt(result.contender, result.dataset, result.case), ensure_ascii=False
                )
            if result.raw is not None:
                attributes["gen_ai.output.messages"] = json.dumps(
                    [{"role": "assistant", "parts": [{"type": "text", "content": result.raw}]}], ensure_ascii=False
                )
        span = self.tracer.start_span(
            f"chat {model}", context=context, kind=SpanKind.CLIENT, start_time=start, attributes=attributes
        )
        if result.status == "error" and result.error is not None and result.error.kind != "judge":
            _failed(span, result.error.kind, result.error.message)
        for name in _tool_calls(result.raw):
            tool = self.tracer.start_span(
                f"execute_tool {name}",
                context=context,
                start_time=end,
                attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name},
            )
            tool.end(end_time=end)
            self.made += 1
        span.end(end_time=end)
        self.made += 1

    def _judge_calls(self, result: Result, context: Any, start: int) -> int:
        """A span per judge call, one after the other from ``start``; returns when the last one ended."""
        from opentelemetry.trace import SpanKind

        judge = result.diagnostics.get("judge") if isinstance(result.diagnostics, dict) else None
        at = start
        for one in judge.get("judges", []) if isinstance(judge, dict) else []:
            for call in one.get("calls", []):
                if call.get("cached"):
                    continue
                end = at + int((call.get("latency_s") or 0.0) * 1e9)
                attributes = {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.request.model": one.get("model", ""),
                    "evalcore.call": "judge",
                    "evalcore.attempts": call.get("attempts", 1),
                } | _usage(call.get("input_tokens"), call.get("output_tokens"), call.get("cost_usd"))
                if self.capture_content:
                    attributes["gen_ai.input.messages"] = json.dumps(one.get("messages", []), ensure_ascii=False)
                    if call.get("raw") is not None:
                        attributes["gen_ai.output.messages"] = json.dumps(
                            [{"role": "assistant", "parts": [{"type": "text", "content": call["raw"]}]}]
                        )
                span = self.tracer.start_span(
                    f"chat {one.get('model', '')}",
                    context=context,
                    kind=SpanKind.CLIENT,
                    start_time=at,
                    attributes=attributes,
                )
                if "error" in call:
                    _failed(span, "judge", str(call["error"]))
                span.end(end_time=end)
                self.made += 1
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


def _failed(span: Span, kind: str, message: str) -> None:
    from opentelemetry.trace import Status, StatusCode

    span.set_status(Status(StatusCode.ERROR, message))
    span.set_attribute("error.type", kind)


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
