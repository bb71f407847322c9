"""What the runner asks a model and what comes back: :class:`Request`, :class:`Reply`, :class:`Provider`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from evalcore.core.records import Case, Contender, Usage
from evalcore.core.schema import FieldSpec
from evalcore.models.breaker import Breaker


@dataclass
class Request:
    """One call to make: the contender, the messages, and how hard to try."""

    contender: Contender
    messages: list[dict[str, Any]]
    #: ``{"type": "json_object"}`` when the adapter wants JSON, else None.
    response_format: dict[str, Any] | None = None
    timeout_s: float = 60.0
    max_attempts: int = 4
    #: Base of the exponential backoff between attempts, in seconds.
    backoff_s: float = 1.0
    #: Longest wait a ``Retry-After`` header can ask for, in seconds.
    max_retry_after_s: float = 30.0
    #: The case being asked; only fake models look at it (they answer from ``expected``).
    case: Case | None = None
    sample: int = 0
    #: The field schema of an extraction suite; fake models use it to invent plausible values.
    fields: tuple[FieldSpec, ...] = ()
    #: The endpoint's circuit breaker: a provider that can tell a connection failure records it there and
    #: stops retrying once it opens. None: no breaker.
    breaker: Breaker | None = None
    #: Further parameters sent with the call as they are, e.g. ``tools`` and ``tool_choice`` (OpenAI format).
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def asked(self) -> object:
        """What names the case this request asks (its dataset, id and sample), for a breaker counting the cases
        its endpoint failed; the request itself when it asks no case."""
        return (self.case.dataset, self.case.id, self.sample) if self.case else id(self)


@dataclass
class Reply:
    """A usable reply: the text, what it cost and how long it took."""

    text: str
    usage: Usage = field(default_factory=Usage)
    latency_s: float = 0.0
    attempts: int = 1
    #: The tools the model called, in order: ``{"id", "name", "arguments"}`` with the arguments as the JSON
    #: text the model wrote (it may not parse). None when it called none.
    tool_calls: list[dict[str, Any]] | None = None
    #: When the reply was made, for a reply the reply cache gave (:mod:`evalcore.models.cache`): this call paid
    #: nothing, and ``usage`` is what the call that made it cost. None: the model was asked now. An adapter's
    #: reply made of several calls has the earliest of its calls the cache answered.
    cached_at: str | None = None
    #: With ``cached_at``: USD of ``usage`` that was not paid, because the cache answered (all of it for one call;
    #: the calls the cache answered, of an adapter's several).
    cached_usd: float = 0.0
    #: The steps of an agent whose stored reply a replay hands back (``docs/run-file.md``, "trace"); None when the
    #: reply comes with none.
    trace: list[dict[str, Any]] | None = None


@dataclass(frozen=True)
class NameProblem:
    """What is wrong with a model id, found before any call (``evalcore verify``)."""

    #: True when no call can succeed (an unknown provider or fake); False when the id may still work.
    error: bool
    #: What is wrong, where to look and the id it was most likely meant to be.
    message: str


class Provider(Protocol):
    """Answers requests for the model ids it owns."""

    def refusal(self, model: str, settings: dict[str, Any]) -> str | None:
        """Why this model with these settings cannot be asked, or None when it can."""

    def missing_keys(self, model: str, api_base: str | None) -> list[str]:
        """Environment variables the model needs that are not set."""

    def takes_images(self, model: str) -> bool:
        """Whether the model can be sent a case's images (a suite with images leaves out, by name, those that
        cannot)."""

    async def complete(self, request: Request) -> Reply:
        """Call the model; raise :class:`evalcore.core.errors.CallFailed` when no usable reply came."""


class WrappedProvider:
    """A provider around another (``inner``): everything but :meth:`complete` is the inner provider's own,
    its helpers too (a router's ``router()``). Subclasses say what they add to a call."""

    def __init__(self, inner: Provider):
        self.inner = inner

    def refusal(self, model: str, settings: dict[str, Any]) -> str | None:
        return self.inner.refusal(model, settings)

    def missing_keys(self, model: str, api_base: str | None) -> list[str]:
        return self.inner.missing_keys(model, api_base)

    def takes_images(self, model: str) -> bool:
        return self.inner.takes_images(model)

    async def complete(self, request: Request) -> Reply:
        return await self.inner.complete(request)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class StoredReplies:
    """A provider that answers from stored replies (a replayed run, a replayed conversation): it asks no model,
    so it refuses none, needs no key and takes any message. Subclasses say how they answer a call."""

    def refusal(self, model: str, settings: dict[str, Any]) -> str | None:
        return None

    def missing_keys(self, model: str, api_base: str | None) -> list[str]:
        return []

    def takes_images(self, model: str) -> bool:
        return True
