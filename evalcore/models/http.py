"""Calls to HTTP endpoints (an application under test, a service an adapter needs), with the model calls' faults.

:func:`send_http` is the HTTP helper adapters reach through :class:`evalcore.scoring.client.Client`. It uses
httpx (a dependency of litellm: ``httpx>=0.28,<1``), imported on first use, with one connection pool per event
loop (:func:`close_http_clients` closes it at the end of a run). Faults get the kinds of
:mod:`evalcore.models.llm`, and transient ones are retried the same way:

=============  ==================================================  =========
kind           the endpoint (or the connection) gave               retried
=============  ==================================================  =========
rate_limit     429 (its ``Retry-After`` is waited for, capped)      yes
timeout        408, or no reply within the timeout                  yes
transport      5xx, a refused or dropped connection, an unknown    yes
               host
auth           401, 403                                             no
bad_request    400, 404, 422 and other 4xx                          no
=============  ==================================================  =========

A refused connection or host, the same 5xx or a timeout on every case, or a refused key open the endpoint's
circuit breaker, by the rule the model calls follow (:meth:`evalcore.models.breaker.Breaker.record_failure`).

``http/<name>`` model ids (:class:`HttpTargetProvider`) name such endpoints in a lineup: they need no API key
and take any setting, because the adapter that calls them decides what a setting means.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import socket
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from evalcore.core.errors import CallFailed
from evalcore.models.breaker import Breaker, connection_failure
from evalcore.models.llm import MAX_MESSAGE_CHARS, RETRIED_KINDS, parse_retry_after, scrub
from evalcore.models.types import Reply, Request

if TYPE_CHECKING:
    import httpx

logger = logging.getLogger(__name__)

#: The model id prefix of application endpoints in a lineup (``http/my-rag``).
HTTP_PREFIX = "http/"
_STATUS_KINDS = {401: "auth", 403: "auth", 408: "timeout", 429: "rate_limit"}
#: Where an endpoint's key comes from, named when the endpoint refuses it.
KEY_SOURCE = "the headers its adapter sends"
#: Characters of an error reply's body an error message quotes.
BODY_CHARS = 300


@dataclass
class HttpPolicy:
    """How hard to try an HTTP call: a run's timeout, attempts and backoff."""

    timeout_s: float = 60.0
    max_attempts: int = 4
    backoff_s: float = 1.0
    max_retry_after_s: float = 30.0
    #: The endpoint's circuit breaker, told what every attempt met (:meth:`Breaker.record_failure`); None: none.
    breaker: Breaker | None = None
    #: What names the case the call asks (:attr:`Request.asked`), for the breaker to count the cases an endpoint
    #: failed; None: the call itself.
    asked: object = None

    @classmethod
    def of(cls, request: Request) -> HttpPolicy:
        """The policy of a model request (the same timeout, attempts, backoff, breaker and case)."""
        r = request
        return cls(r.timeout_s, r.max_attempts, r.backoff_s, r.max_retry_after_s, r.breaker, r.asked)


@dataclass
class HttpReply:
    """A 2xx reply: its status, headers (names lower-cased) and body text."""

    status: int
    text: str
    headers: dict[str, str] = field(default_factory=dict)
    url: str = ""
    latency_s: float = 0.0
    #: Calls made, retries included.
    attempts: int = 1

    def json(self) -> Any:
        """The body parsed as JSON; raises ``ValueError`` when it is not JSON."""
        return json.loads(self.text)


class _StatusError(Exception):
    """A reply whose status is not 2xx (kept apart from the transport's exceptions)."""

    def __init__(self, status: int, text: str, headers: dict[str, str]):
        super().__init__(f"HTTP {status}")
        self.status, self.text, self.headers = status, text, headers


async def send_http(
    method: str,
    url: str,
    policy: HttpPolicy,
    *,
    headers: Mapping[str, str] | None = None,
    json_body: Any = None,
    params: Mapping[str, Any] | None = None,
    secrets: tuple[str, ...] = (),
) -> HttpReply:
    """Send one HTTP request, retrying transient faults (see the module's table).

    Args:
        method: ``GET``, ``POST`` …
        url: the full URL.
        policy: the timeout, attempts, backoff and circuit breaker.
        headers: request headers.
        json_body: sent as a JSON body when not None.
        params: query parameters.
        secrets: values no error message may quote (header values are never quoted either).

    Returns:
        The first 2xx reply.

    Raises:
        CallFailed: a permanent fault, or transient faults on every attempt; ``EndpointUnreachable`` (kind
            ``transport``) once the breaker opens.
    """
    client = _client()
    hidden = tuple(s for s in (*secrets, *(headers or {}).values()) if len(s) >= 4)
    label = f"{method.upper()} {_shown_url(url)}"
    attempts = max(1, policy.max_attempts)
    for attempt in range(1, attempts + 1):
        started = time.monotonic()
        sent = policy.breaker.sending() if policy.breaker is not None else None
        try:
            async with asyncio.timeout(policy.timeout_s):
                response = await client.request(
                    method.upper(), url, headers=headers, json=json_body, params=params, timeout=policy.timeout_s
                )
            reply_headers = {k.lower(): v for k, v in response.headers.items()}
            if not 200 <= response.status_code < 300:
                raise _StatusError(response.status_code, response.text, reply_headers)
        except Exception as exc:
            latency = time.monotonic() - started
            kind, cause = classify_exception(exc), connection_failure(exc)
            breaker = policy.breaker
            if breaker is not None:
                status = exc.status if isinstance(exc, _StatusError) else None
                asked = id(policy) if policy.asked is None else policy.asked
                breaker.record_failure(kind, status, cause, asked, KEY_SOURCE, sent)
                said = _failure(label, exc, kind, attempt, latency, hidden).message
                stop = breaker.stop_error(label, kind, cause, attempt, attempts, latency, said)
                if stop is not None:
                    raise stop from None
            if kind not in RETRIED_KINDS or attempt == attempts:
                raise _failure(label, exc, kind, attempt, latency, hidden) from None
            await _wait(policy, exc, attempt, label, kind)
            if breaker is not None and breaker.is_open:  # another call found the endpoint gone meanwhile
                raise breaker.failure(label, cause or kind, attempt, latency, kind) from None
            continue
        if policy.breaker is not None:
            policy.breaker.record_reached(sent)
        latency = time.monotonic() - started
        return HttpReply(response.status_code, response.text, reply_headers, str(response.url), latency, attempt)
    raise AssertionError("unreachable: the loop returns or raises")


def classify_exception(exc: BaseException) -> str:
    """The fault kind of an exception raised while calling an endpoint (by httpx, the standard library, or an
    adapter's own client): ``timeout``, ``transport``, a status's kind, or ``other``."""
    if isinstance(exc, CallFailed):
        return exc.kind
    if isinstance(exc, _StatusError):
        return status_kind(exc.status)
    names = {cls.__name__ for cls in type(exc).__mro__}
    if isinstance(exc, TimeoutError) or "TimeoutException" in names:
        return "timeout"
    if isinstance(exc, ConnectionError | socket.gaierror) or names & {"TransportError", "RemoteProtocolError"}:
        return "transport"
    status = getattr(exc, "status_code", None) or getattr(getattr(exc, "response", None), "status_code", None)
    return status_kind(status) if isinstance(status, int) else "other"


def status_kind(status: int) -> str:
    """The fault kind of a non-2xx HTTP status."""
    if status >= 500:
        return "transport"
    return _STATUS_KINDS.get(status, "bad_request" if 400 <= status < 500 else "other")


async def _wait(policy: HttpPolicy, exc: BaseException, attempt: int, label: str, kind: str) -> None:
    """Sleep for the server's ``Retry-After`` (capped), else a full-jitter exponential backoff."""
    retry_after = parse_retry_after(exc.headers.get("retry-after")) if isinstance(exc, _StatusError) else None
    if retry_after is not None:
        delay = min(retry_after, policy.max_retry_after_s)
    else:
        delay = random.uniform(0, policy.backoff_s * 2 ** (attempt - 1))
    logger.info("%s: %s on attempt %d; retrying in %.2fs", label, kind, attempt, delay)
    if policy.breaker is not None:
        await policy.breaker.sleep(delay)
    else:
        await asyncio.sleep(delay)


def _failure(
    label: str, exc: BaseException, kind: str, attempts: int, latency: float, hidden: tuple[str, ...]
) -> CallFailed:
    noun = "attempt" if attempts == 1 else "attempts"
    if isinstance(exc, _StatusError):
        detail = f"HTTP {exc.status}: {' '.join(exc.text.split())[:BODY_CHARS]}"
    else:
        detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    message = f"{label}: {kind} after {attempts} {noun}: {detail}"
    for secret in hidden:
        message = message.replace(secret, "***")
    return CallFailed(kind, scrub(message)[:MAX_MESSAGE_CHARS], attempts=attempts, latency_s=latency)


def _shown_url(url: str) -> str:
    """The URL without its query or user info, which may carry a key."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path}" if parts.scheme else url.split("?", 1)[0]


#: One client (a connection pool) per event loop: a run's calls share connections; a new loop gets its own.
_CLIENTS: dict[int, tuple[asyncio.AbstractEventLoop, httpx.AsyncClient]] = {}


def _client() -> httpx.AsyncClient:
    import httpx

    loop = asyncio.get_running_loop()
    entry = _CLIENTS.get(id(loop))
    if entry is None or entry[0] is not loop:
        for key in [k for k, (other, _) in _CLIENTS.items() if other.is_closed()]:
            del _CLIENTS[key]  # a loop that ended without closing its client: nothing can be awaited there now
        client = httpx.AsyncClient(follow_redirects=True, limits=httpx.Limits(max_connections=None))
        entry = _CLIENTS[id(loop)] = (loop, client)
    return entry[1]


async def close_http_clients() -> None:
    """Close this event loop's connection pool, if it has one; call it before the loop ends."""
    entry = _CLIENTS.pop(id(asyncio.get_running_loop()), None)
    if entry is not None:
        await entry[1].aclose()


class HttpTargetProvider:
    """Answers ``http/<name>`` model ids: application endpoints, asked only by an adapter that makes its own
    calls (``adapter: http``, or one with ``call()``). They need no key and take any setting."""

    #: An application's reply depends on more than the request (its state, its data): never from the reply cache.
    cacheable = False

    def refusal(self, model: str, settings: dict[str, Any]) -> str | None:
        return None

    def missing_keys(self, model: str, api_base: str | None) -> list[str]:
        return []

    def takes_images(self, model: str) -> bool:
        return True  # the adapter that calls the endpoint decides what of the case it sends

    async def complete(self, request: Request) -> Reply:
        raise CallFailed(
            "bad_request",
            f"{request.contender.model} names an application endpoint, which no model answers: use the http "
            "adapter (adapter: {name: http, options: {url: ...}}) or an adapter with a call() method",
        )
