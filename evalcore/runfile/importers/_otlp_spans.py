"""The spans of an OTLP JSON export, flattened (:class:`Span`), and the GenAI messages their attributes hold, in
the current conventions and the older ones (see :mod:`evalcore.runfile.importers.otlp`)."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from evalcore.runfile.importers import _common as common


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
    #: The start in nanoseconds since the epoch, for ordering; None when the span has none.
    start_ns: int | None = None

    @property
    def label(self) -> str:
        return f"span {self.span_id} ({self.name!r}, trace {self.trace_id}, {self.started_at or 'no start time'})"


def first(attrs: dict[str, Any], *keys: str) -> Any:
    return next((attrs[k] for k in keys if attrs.get(k) is not None), None)


def input_messages(attrs: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The request's messages as ``[{role, content}]``, from whichever convention the span follows."""
    messages = as_messages(attrs.get("gen_ai.input.messages"))
    if messages is None and isinstance(attrs.get("gen_ai.prompt"), str):
        messages = as_messages(attrs["gen_ai.prompt"]) or [{"role": "user", "content": attrs["gen_ai.prompt"]}]
    if messages is None:
        messages = _indexed(attrs, "gen_ai.prompt")
    system = attrs.get("gen_ai.system_instructions")
    if messages is not None and system is not None:
        messages = [{"role": "system", "content": text_of(parsed(system))}, *messages]
    return messages


def output_text(attrs: dict[str, Any]) -> str | None:
    messages = as_messages(attrs.get("gen_ai.output.messages"))
    if messages is None and isinstance(attrs.get("gen_ai.completion"), str):
        messages = as_messages(attrs["gen_ai.completion"]) or [
            {"role": "assistant", "content": attrs["gen_ai.completion"]}
        ]
    if messages is None:
        messages = _indexed(attrs, "gen_ai.completion")
    if not messages:
        return None
    return "\n".join(str(m["content"]) for m in messages if m.get("content") is not None)


def as_messages(value: Any) -> list[dict[str, Any]] | None:
    value = parsed(value)
    if not isinstance(value, list) or not value or not all(isinstance(m, dict) for m in value):
        return None
    return [{"role": str(m.get("role") or "user"), "content": text_of(m)} for m in value]


def parsed(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in ("[", "{"):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def text_of(message: Any) -> str:
    """A message's text: its ``parts`` of type text joined (other parts as ``[type]``), else its ``content``."""
    if isinstance(message, dict) and isinstance(message.get("parts"), list):
        return "\n".join(_part(p) for p in message["parts"])
    if isinstance(message, dict):
        content = message.get("content")
        return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    if isinstance(message, list):
        return "\n".join(text_of(m) for m in message)
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


def spans(trees: list[dict[str, Any]]) -> Iterator[Span]:
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
        start_ns=start,
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
