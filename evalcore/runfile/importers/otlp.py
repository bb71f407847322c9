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
scorers and judges score the replies afterwards.
"""

from __future__ import annotations

import base64
import binascii
import json
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from evalcore.core import records
from evalcore.core.errors import RunFileError
from evalcore.runfile.importers import _common as common

TOOL = "otlp"
COMPLETED = records.Metric("completed", "1 for each model call traced with its reply.", True, True)
CAPTURE_HINT = "set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true in the traced service to capture it"
_ERROR = ("STATUS_CODE_ERROR", 2)
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


@dataclass
class Span:
    """One span, its attributes flattened to plain values."""

    trace_id: str
    span_id: str
    name: str
    started_at: str | None
    duration_s: float | None
    attributes: dict[str, Any]
    resource: dict[str, Any]
    status: dict[str, Any]

    @property
    def label(self) -> str:
        return f"span {self.span_id} ({self.name!r}, trace {self.trace_id}, {self.started_at or 'no start time'})"


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
    spans = list(_spans(trees))
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
    kept = [s for s in calls if selection.keeps(s)]
    if len(kept) < len(calls):
        notes.add(f"{len(calls) - len(kept)} of {len(calls)} model calls left out by --sample/--since/--where")
    reader = _Calls(notes)
    for i, span in enumerate(kept):
        reader.add(span)
        if on_progress is not None and (i % 1000 == 999 or i == len(kept) - 1):
            on_progress(i + 1, len(kept))
    if not reader.results:
        raise RunFileError(
            f"{stamp.file_name}: no model call to import",
            problems=["(file): " + ("; ".join(notes.as_list()) or "the selection keeps no model call")],
        )
    times = sorted(s.started_at for s in kept if s.started_at)
    info = records.RunInfo(
        id=common.run_id(TOOL, stamp.digest),
        suite=str(kept[0].resource.get("service.name") or "traces"),
        created_at=times[0] if times else stamp.imported_at,
        finished_at=times[-1] if times else None,
        status="completed",
        settings={
            "traces": {"sample": selection.share, "since": selection.since, "where": selection.where},
            common.IMPORT_KEY: {
                "source_counts": {
                    "spans": len(spans),
                    "model_calls": len(calls),
                    "selected": len(kept),
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
        attrs = span.attributes
        question, reply = _input_messages(attrs), _output_text(attrs)
        failed = span.status.get("code") in _ERROR
        if question is None or (reply is None and not failed):
            missing = (
                "input and output" if question is None and reply is None else "input" if question is None else "output"
            )
            self.notes.add(f"{span.label}: its {missing} messages were not captured; left out ({CAPTURE_HINT})")
            self.not_captured += 1
            return
        dataset = str(span.resource.get("service.name") or "traces")
        if (dataset, span.span_id) in self.cases:  # exported twice (a retried export, files concatenated)
            self.notes.add(f"{span.label}: exported more than once; imported once")
            return
        contender = self._contender(attrs)
        case = records.Case(
            dataset=dataset,
            id=span.span_id,
            variant="default",
            input={"messages": question},
            expected=None,
            metadata=_metadata(span),
        )
        self.cases[case.key] = case
        usage = records.Usage(
            input_tokens=common.count(_first(attrs, "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens")),
            output_tokens=common.count(_first(attrs, "gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens")),
        )
        error = None
        if failed:
            message = str(span.status.get("message") or attrs.get("error.type") or "the call failed")
            error = records.ErrorInfo(common.error_kind(f"{message} {attrs.get('error.type', '')}"), message)
        self.results.append(
            records.Result(
                contender=contender.id,
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
            )
        )

    def _contender(self, attrs: dict[str, Any]) -> records.Contender:
        """The requested model: production settings vary call by call, so they stay in the case's metadata
        (``gen_ai.request.temperature`` …) rather than split one model into several contenders."""
        model = str(_first(attrs, "gen_ai.request.model", "gen_ai.response.model") or "unknown model")
        if model not in self.contenders:
            self.contenders[model] = records.Contender(id=model, model=model, settings={})
        return self.contenders[model]


def _metadata(span: Span) -> dict[str, Any]:
    content = ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.prompt", "gen_ai.completion")
    attrs = {k: v for k, v in span.attributes.items() if not k.startswith(content)}
    return {"trace_id": span.trace_id, "span": span.name, "started_at": span.started_at, **span.resource, **attrs}


def _first(attrs: dict[str, Any], *keys: str) -> Any:
    return next((attrs[k] for k in keys if attrs.get(k) is not None), None)


def _input_messages(attrs: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The request's messages as ``[{role, content}]``, from whichever convention the span follows."""
    messages = _messages(attrs.get("gen_ai.input.messages"))
    if messages is None and isinstance(attrs.get("gen_ai.prompt"), str):
        messages = _messages(attrs["gen_ai.prompt"]) or [{"role": "user", "content": attrs["gen_ai.prompt"]}]
    if messages is None:
        messages = _indexed(attrs, "gen_ai.prompt")
    system = attrs.get("gen_ai.system_instructions")
    if messages is not None and system is not None:
        messages = [{"role": "system", "content": _text_of(_parsed(system))}, *messages]
    return messages


def _output_text(attrs: dict[str, Any]) -> str | None:
    messages = _messages(attrs.get("gen_ai.output.messages"))
    if messages is None and isinstance(attrs.get("gen_ai.completion"), str):
        messages = _messages(attrs["gen_ai.completion"]) or [
            {"role": "assistant", "content": attrs["gen_ai.completion"]}
        ]
    if messages is None:
        messages = _indexed(attrs, "gen_ai.completion")
    if not messages:
        return None
    return "\n".join(str(m["content"]) for m in messages if m.get("content") is not None)


def _messages(value: Any) -> list[dict[str, Any]] | None:
    value = _parsed(value)
    if not isinstance(value, list) or not value or not all(isinstance(m, dict) for m in value):
        return None
    return [{"role": str(m.get("role") or "user"), "content": _text_of(m)} for m in value]


def _parsed(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in ("[", "{"):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def _text_of(message: Any) -> str:
    """A message's text: its ``parts`` of type text joined (other parts as ``[type]``), else its ``content``."""
    if isinstance(message, dict) and isinstance(message.get("parts"), list):
        return "\n".join(_part(p) for p in message["parts"])
    if isinstance(message, dict):
        content = message.get("content")
        return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    if isinstance(message, list):
        return "\n".join(_text_of(m) for m in message)
    return str(message)


def _part(part: Any) -> str:
    if isinstance(part, dict) and part.get("type") == "text":
        return str(part.get("content") or "")
    return f"[{part.get('type', 'part')}]" if isinstance(part, dict) else str(part)


def _indexed(attrs: dict[str, Any], prefix: str) -> list[dict[str, Any]] | None:
    """``gen_ai.prompt.0.role`` / ``gen_ai.prompt.0.content`` … (OpenLLMetry) as messages."""
    found: dict[int, dict[str, Any]] = {}
    for key, value in attrs.items():
        parts = key[len(prefix) + 1 :].split(".", 1) if key.startswith(prefix + ".") else []
        if len(parts) == 2 and parts[0].isdigit() and parts[1] in ("role", "content"):
            found.setdefault(int(parts[0]), {})[parts[1]] = value
    messages = [found[i] for i in sorted(found) if "content" in found[i]]
    return [{"role": str(m.get("role") or "user"), "content": str(m["content"])} for m in messages] or None


def _spans(trees: list[dict[str, Any]]) -> Iterator[Span]:
    for tree in trees:
        for resource_spans in tree.get("resourceSpans") or []:
            resource = _attributes(common.obj(common.obj(resource_spans).get("resource")).get("attributes"))
            scopes = common.obj(resource_spans).get("scopeSpans") or common.obj(resource_spans).get(
                "instrumentationLibrarySpans"
            )
            for scope in scopes or []:
                for span in common.obj(scope).get("spans") or []:
                    if isinstance(span, dict):
                        yield _span(span, resource)


def _span(span: dict[str, Any], resource: dict[str, Any]) -> Span:
    start, end = _nanos(span.get("startTimeUnixNano")), _nanos(span.get("endTimeUnixNano"))
    started = None
    if start is not None:
        moment = datetime.fromtimestamp(start / 1e9, tz=UTC)
        started = moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return Span(
        trace_id=_hex_id(span.get("traceId")),
        span_id=_hex_id(span.get("spanId")),
        name=str(span.get("name") or ""),
        started_at=started,
        duration_s=(end - start) / 1e9 if start is not None and end is not None and end >= start else None,
        attributes=_attributes(span.get("attributes")),
        resource=resource,
        status=common.obj(span.get("status")),
    )


def _hex_id(value: Any) -> str:
    """A trace or span id in hex: as OTLP JSON writes it, or decoded from protobuf JSON's base64."""
    text = str(value or "")
    if text and all(c in "0123456789abcdefABCDEF" for c in text) and len(text) in (16, 32):
        return text.lower()
    try:
        return base64.b64decode(text, validate=True).hex() or text
    except (binascii.Error, ValueError):
        return text


def _nanos(value: Any) -> int | None:
    try:
        return int(value) if value is not None and not isinstance(value, bool) else None
    except (TypeError, ValueError):
        return None


def _attributes(items: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items or []:
        if isinstance(item, dict) and isinstance(item.get("key"), str):
            out[item["key"]] = _value(item.get("value"))
    return out


def _value(value: Any) -> Any:
    """An ``AnyValue`` as a plain value (``intValue`` is text in JSON, as int64 always is)."""
    if not isinstance(value, dict):
        return value
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        return _nanos(value["intValue"])
    if "doubleValue" in value:
        return float(value["doubleValue"])
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "arrayValue" in value:
        return [_value(v) for v in common.obj(value["arrayValue"]).get("values") or []]
    if "kvlistValue" in value:
        return _attributes(common.obj(value["kvlistValue"]).get("values"))
    return None
