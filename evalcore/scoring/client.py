"""What an adapter that makes its own calls gets: a :class:`Client` for one case, and how the runner runs it.

An adapter may define ``async def call(self, case, contender, client) -> Reply``. The runner then calls it
instead of asking the contender's model with the adapter's messages, and parses the reply's ``text`` with the
adapter's ``parse()`` as usual: the text is what the run file stores as the result's ``raw``, so a stored
run can be parsed again (with a new adapter or scorer) without a call.

Inside ``call()``, :meth:`Client.complete` asks a model and :meth:`Client.http` an HTTP endpoint, both with the
run's timeout, retries and circuit breaker; the client sums the models' usage and every attempt.

A scorer that asks a model (an LLM judge) gets a :class:`Client` too. The runner gives that client a
:class:`ModelGuard`, so a judge's calls go through what a contender's do: the circuit breaker of the judge's
endpoint, the suite's ``limits:`` for its model and endpoint, the run's budget cap, and the suite's ``prices:``.
A call the guard does not let start raises :class:`NotCalled`; a scorer records the reply as not judged
(:data:`UNJUDGED_PREFIX`), and ``evalcore run --resume`` judges it again.
:func:`call_adapter` runs ``call()``: what it raises is classified like a provider's faults (transport,
timeout, rate_limit …), transient ones retried the same way, so errors, retries and ``evalcore run --resume``
work as for any model.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from evalcore.core.errors import CallFailed, EvalcoreError
from evalcore.core.records import Case, Contender, Usage
from evalcore.models.breaker import EndpointUnreachable, connection_failure
from evalcore.models.http import HttpPolicy, HttpReply, classify_exception, send_http
from evalcore.models.llm import MAX_MESSAGE_CHARS, RETRIED_KINDS, scrub
from evalcore.models.registry import get_provider
from evalcore.models.types import Provider, Reply, Request
from evalcore.scoring.adapters import Adapter, Context

log = logging.getLogger(__name__)
#: ``Client.complete``'s default response format: the adapter's own.
_ADAPTER_FORMAT: Any = object()
#: How the error message of a result begins when its reply was kept but not judged, because its judge's call was
#: not let start (the budget cap) or its endpoint could not be reached: a resume judges the stored reply again.
UNJUDGED_PREFIX = "not judged: "


class NotCalled(CallFailed):
    """A call the run did not let start (the budget cap was reached, or its endpoint's circuit breaker is open);
    no attempt was made."""

    def __init__(self, message: str):
        super().__init__("judge", message, attempts=0, latency_s=0.0)


@dataclass(frozen=True)
class JudgeModel:
    """A model a scorer asks about every result (a judge), so the runner can check its price and estimate its
    calls before they are made."""

    model: str
    settings: dict[str, Any] = field(default_factory=dict)
    api_base: str | None = None
    #: Calls per judged result (a judge's ``samples``).
    calls: int = 1
    #: The tokens of one expected reply, for the cost estimate before the first reply is seen.
    reply_tokens: int = 100

    def contender(self, prices: dict[str, float] | None = None) -> Contender:
        """The judge as the provider layer sees it (a contender whose id is its model id)."""
        settings = dict(self.settings)
        return Contender(id=self.model, model=self.model, settings=settings, api_base=self.api_base, prices=prices)


class ModelGuard(Protocol):
    """What the runner puts around a scorer's model calls (see the module docstring)."""

    async def complete(self, request: Request, provider: Provider, caller: Contender) -> Reply:
        """Make ``request`` (to another model than ``caller``, the contender whose reply is scored) through the
        run's breaker, limits and budget, with the suite's prices for its model.

        Raises:
            NotCalled: the call was not let start.
            CallFailed: no usable reply after the retries.
        """
        ...


class Client:
    """Model and HTTP calls for one case of one contender, through the run's provider layer.

    Attributes:
        contender: the contender being evaluated.
        case: the case being asked.
        sample: which repetition of the case.
        messages: what the contender is asked for this case: its prompt's messages, else the adapter's
            ``build_messages()``.
        context: the dataset's instructions and field schema.
        usage: the usage of the model calls made so far, summed (a part unknown for any of them is None).
        attempts: calls made so far (model and HTTP), retries included.
        cached_at: when the earliest reply the reply cache gave was made; None when it gave none.
        cached_usd: what the replies the reply cache gave would have cost.
    """

    def __init__(self, request: Request, provider: Provider, context: Context, guard: ModelGuard | None = None):
        self.contender: Contender = request.contender
        self.case: Case | None = request.case
        self.sample = request.sample
        self.messages: list[dict[str, Any]] = request.messages
        self.context = context
        self.usage = Usage()
        self.attempts = 0
        self.cached_at: str | None = None
        self.cached_usd = 0.0
        self._request, self._provider, self._guard = request, provider, guard
        self._calls = 0

    async def complete(
        self,
        messages: list[dict[str, Any]] | None = None,
        *,
        model: str | None = None,
        settings: Mapping[str, Any] | None = None,
        api_base: str | None = None,
        response_format: Any = _ADAPTER_FORMAT,
        **params: Any,
    ) -> Reply:
        """Ask a model, with the run's timeout, retries and circuit breaker.

        Args:
            messages: the chat messages; by default :attr:`messages`.
            model: another model to ask (a user simulator, a judge), with ``settings``; by default the
                contender's own model, with its settings, endpoint and prices.
            settings: the other model's settings (``temperature`` …); only with ``model``.
            api_base: the other model's endpoint (a local server); only with ``model``.
            response_format: e.g. ``{"type": "json_object"}``; by default the adapter's ``response_format`` for
                the contender's own model, none for another model.
            **params: further parameters sent as they are, e.g. ``tools=[...]``, ``tool_choice="auto"``.

        Returns:
            The reply: its ``text``, and ``tool_calls`` when the model called tools.

        Raises:
            CallFailed: no usable reply after the retries; ``call()`` may let it propagate.
        """
        request = replace(self._request, messages=self.messages if messages is None else messages, params=params)
        provider = self._provider
        if model is not None:
            contender = Contender(id=model, model=model, settings=dict(settings or {}), api_base=api_base)
            request = replace(request, contender=contender, breaker=None, fields=(), response_format=None)
            provider = get_provider(model)
        elif settings is not None or api_base is not None:
            raise TypeError("Client.complete: settings= and api_base= go with model=; the contender has its own")
        if response_format is not _ADAPTER_FORMAT:
            request.response_format = response_format
        try:
            if model is not None and self._guard is not None:
                reply = await self._guard.complete(request, provider, self.contender)
            else:
                reply = await provider.complete(request)
        except CallFailed as exc:
            self.attempts += exc.attempts
            raise
        self._count(reply.usage, reply.attempts)
        if reply.cached_at is not None:
            self.cached_at = min(self.cached_at or reply.cached_at, reply.cached_at)
            self.cached_usd += reply.cached_usd
        return reply

    async def http(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        json: Any = None,
        params: Mapping[str, Any] | None = None,
        timeout_s: float | None = None,
        secrets: tuple[str, ...] = (),
    ) -> HttpReply:
        """Call an HTTP endpoint with the run's retries: 429 (after its ``Retry-After``), 408, 5xx and
        connection failures are retried; a refused connection counts towards the contender's circuit breaker.

        Args:
            method: ``GET``, ``POST`` …
            url: the full URL.
            headers: request headers (never quoted in an error message).
            json: a JSON body (None: no body).
            params: query parameters.
            timeout_s: per attempt; by default the run's timeout.
            secrets: further values no error message may quote.

        Returns:
            The 2xx reply (``status``, ``headers``, ``text``, ``json()``).

        Raises:
            CallFailed: a 4xx other than 408/429, or transient faults on every attempt.
        """
        policy = HttpPolicy.of(self._request)
        if timeout_s is not None:
            policy.timeout_s = timeout_s
        try:
            reply = await send_http(
                method, url, policy, headers=headers, json_body=json, params=params, secrets=secrets
            )
        except CallFailed as exc:
            self.attempts += exc.attempts
            raise
        self.attempts += reply.attempts  # an endpoint's reply has no tokens of its own: the adapter reads them
        return reply

    def _count(self, usage: Usage, attempts: int) -> None:
        self.attempts += attempts
        first = self._calls == 0
        self._calls += 1
        total = self.usage
        total.input_tokens = _plus(total.input_tokens, usage.input_tokens, first)
        total.output_tokens = _plus(total.output_tokens, usage.output_tokens, first)
        total.cost_usd = _plus(total.cost_usd, usage.cost_usd, first)


class CallingAdapter(Adapter, Protocol):
    """An adapter that makes the call itself: several turns, a tool loop, a service that is not a model."""

    async def call(self, case: Case, contender: Contender, client: Client) -> Reply:
        """Get the reply to ``case`` for ``contender``, through ``client`` (see :mod:`evalcore.scoring.client`).

        Returns:
            A :class:`~evalcore.models.types.Reply` whose ``text`` is what :meth:`parse` reads (stored as the
            result's ``raw``); its usage where known (the client's summed usage fills in the rest).

        Raises:
            CallFailed: from the client's calls; anything else is classified like a provider's fault.
        """
        ...


def _plus(total: Any, value: Any, first: bool) -> Any:
    """A running sum that stays None (unknown) once any part is unknown."""
    if first:
        return value
    return None if total is None or value is None else total + value


async def call_adapter(adapter: Any, client: Client) -> Reply:
    """Run ``adapter.call(case, contender, client)`` for the client's case; the reply the run records.

    What ``call()`` raises is classified (:func:`evalcore.models.http.classify_exception`); a transient fault
    it raised itself is retried with the run's backoff, up to its attempts. A :class:`CallFailed` is final (the
    client's calls were already retried); an :class:`EvalcoreError` (a configuration problem) stops the run.

    Returns:
        The adapter's reply, its usage completed from the client's where the adapter left it unknown, its
        latency the reply's own when it gives one (else the wall time of the successful ``call()``), its
        attempts every call made.

    Raises:
        CallFailed: no usable reply; its attempts count every call made.
        EvalcoreError: a configuration problem, or ``call()`` did not return a :class:`Reply`.
    """
    request = client._request
    name = getattr(adapter, "name", type(adapter).__name__)
    tries = max(1, request.max_attempts)
    for attempt in range(1, tries + 1):
        started = time.monotonic()
        try:
            reply = await adapter.call(client.case, client.contender, client)
        except CallFailed as exc:
            exc.attempts = max(exc.attempts, client.attempts)
            raise
        except EvalcoreError:
            raise
        except Exception as exc:
            latency = time.monotonic() - started
            kind, cause = classify_exception(exc), connection_failure(exc)
            breaker = request.breaker
            if breaker is not None and cause is not None:
                breaker.record_unreachable(cause)
                if breaker.is_open or attempt == tries:
                    made = max(attempt, client.attempts)
                    detail = f"adapter {name}, {made} {_tries(made)}"
                    raise EndpointUnreachable(breaker.endpoint, breaker.cause or cause, detail, made, latency) from exc
            if kind not in RETRIED_KINDS or attempt == tries:
                if kind == "other":
                    log.warning("adapter %s: call() raised on %s", name, _case_name(client), exc_info=True)
                made = max(attempt, client.attempts)
                message = scrub(f"adapter {name}: {kind} after {made} {_tries(made)}: {type(exc).__name__}: {exc}")
                raise CallFailed(kind, message[:MAX_MESSAGE_CHARS], attempts=made, latency_s=latency) from exc
            await _backoff(request, attempt)
            continue
        return _completed(_as_reply(reply, name), client, time.monotonic() - started, attempt)
    raise AssertionError("unreachable: the loop returns or raises")


def _as_reply(reply: Any, adapter: str) -> Reply:
    if isinstance(reply, Reply) and isinstance(reply.text, str):
        return reply
    got = f"a Reply whose text is {type(reply.text).__name__}" if isinstance(reply, Reply) else type(reply).__name__
    raise EvalcoreError(
        f"adapter {adapter}: call() returned {got}; it must return evalcore.models.types.Reply(text=...), "
        "the text being what the run stores as raw and parse() reads"
    )


def _completed(reply: Reply, client: Client, latency: float, tries: int) -> Reply:
    own, summed = reply.usage, client.usage
    usage = Usage(
        own.input_tokens if own.input_tokens is not None else summed.input_tokens,
        own.output_tokens if own.output_tokens is not None else summed.output_tokens,
        own.cost_usd if own.cost_usd is not None else summed.cost_usd,
    )
    attempts = max(reply.attempts, client.attempts, tries)
    latency = reply.latency_s or latency
    return Reply(reply.text, usage, latency, attempts, reply.tool_calls, client.cached_at, client.cached_usd)


async def _backoff(request: Request, attempt: int) -> None:
    delay = random.uniform(0, request.backoff_s * 2 ** (attempt - 1))
    if request.breaker is not None:
        await request.breaker.sleep(delay)
    else:
        await asyncio.sleep(delay)


def _tries(n: int) -> str:
    return "attempt" if n == 1 else "attempts"


def _case_name(client: Client) -> str:
    case = client.case
    return f"{case.dataset}/{case.id}" if case is not None else "a case"
