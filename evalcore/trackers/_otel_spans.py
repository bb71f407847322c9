"""A run's OpenTelemetry spans built finished, for the ``otel`` tracker (:mod:`evalcore.trackers.otel`).

Imported by the tracker once a run starts, so that a run without it never imports OpenTelemetry.
"""

from __future__ import annotations

from typing import Any

from opentelemetry.attributes import BoundedAttributes
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import Event, ReadableSpan, SpanLimits, TracerProvider
from opentelemetry.sdk.util import BoundedList
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode


class SpanBuilder:
    """Builds a trace's spans finished (``ReadableSpan``, what span processors and exporters take), as the SDK's
    ``Span`` would end them but without its lock, its checks of every attribute set and its processors' calls
    per span. The limits of ``SpanLimits`` (the ``OTEL_*_LIMIT`` variables) are kept: attributes go through the
    SDK's ``BoundedAttributes`` whenever one could apply.
    """

    def __init__(self, root: SpanContext, provider: TracerProvider, limits: SpanLimits):
        self.root = root
        self.sampled = root.trace_flags.sampled
        self.resource = provider.resource
        self.scope = InstrumentationScope("evalcore")  # the root's, as ``provider.get_tracer("evalcore")`` makes it
        self.ids = provider.id_generator
        self.limits = limits
        self.unset = Status(StatusCode.UNSET)
        self.trace = (self.root.trace_id, self.root.trace_flags, self.root.trace_state)

    def child_context(self) -> SpanContext:
        """A new span's context in the run's trace."""
        trace_id, flags, state = self.trace
        return SpanContext(trace_id, self.ids.generate_span_id(), False, flags, state)

    def span(
        self,
        name: str,
        context: SpanContext,
        parent: SpanContext,
        times: tuple[int, int],
        attributes: dict[str, Any],
        kind: SpanKind = SpanKind.INTERNAL,
        events: list[Event] | None = None,
        error: str | None = None,
    ) -> ReadableSpan:
        """A span that ran from ``times[0]`` to ``times[1]``; with ``error``, its status is ERROR, so described."""
        limits = self.limits
        if events and limits.max_events is not None and len(events) > limits.max_events:
            events = BoundedList.from_seq(limits.max_events, events)  # type: ignore[assignment]
        return ReadableSpan(
            name,
            context,
            parent,
            self.resource,
            bounded(attributes, limits.max_span_attributes, limits.max_span_attribute_length),
            events or (),
            kind=kind,
            status=self.unset if error is None else Status(StatusCode.ERROR, error),
            start_time=times[0],
            end_time=times[1],
            instrumentation_scope=self.scope,
        )

    def event(self, name: str, attributes: dict[str, Any], timestamp: int) -> Event:
        """A span event at ``timestamp``."""
        limits = self.limits
        attributes = bounded(attributes, limits.max_event_attributes, limits.max_attribute_length)
        return Event(name, attributes, timestamp)


def bounded(attributes: dict[str, Any], count: int | None, length: int | None) -> Any:
    """``attributes`` as they are when no limit can apply; else within the limits, as the SDK keeps them."""
    if length is None and (count is None or len(attributes) <= count):
        return attributes
    return BoundedAttributes(count, attributes, immutable=True, max_value_len=length)


def hashed_once(resource: Resource) -> Resource:
    """``resource``, hashing as it does but working its hash out once.

    The OTLP encoder groups every span it sends by its resource (a dict keyed by it), and the SDK's
    ``Resource`` hashes by writing its attributes out as JSON each time; a resource never changes, so its
    hash need not either.
    """
    return _HashedResource(resource.attributes, resource.schema_url)


class _HashedResource(Resource):
    def __init__(self, attributes: Any, schema_url: str | None = None):
        super().__init__(attributes, schema_url)
        self._hash = super().__hash__()

    def __hash__(self) -> int:
        return self._hash
