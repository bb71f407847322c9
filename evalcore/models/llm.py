"""litellm behind the :class:`~evalcore.models.types.Provider` protocol.

This is the one module that imports litellm, and it does so lazily, inside functions: importing
litellm costs seconds, and the explorer never needs it. Calls go out with ``max_retries=0`` and
an explicit timeout; the retry loop here retries only transient faults, with full-jitter
exponential backoff that gives way to a ``Retry-After`` header.

Fault kinds (see :class:`~evalcore.core.errors.CallFailed`):

=============  ==========================================================  =========
kind           litellm raises (or the reply shows)                          retried
=============  ==========================================================  =========
rate_limit     ``RateLimitError`` (429)                                     yes
timeout        ``Timeout`` (408, or the client's own timeout)               yes
transport      ``APIConnectionError``, ``InternalServerError``,             yes
               ``BadGatewayError``, ``ServiceUnavailableError``, other 5xx,
               a body that is not JSON (said as "the server's reply was not
               JSON"), a reply with no choices or no text
auth           ``AuthenticationError``, ``PermissionDeniedError`` (401/403)  no
bad_request    ``BadRequestError``, ``NotFoundError``,                      no
               ``UnsupportedParamsError``, 422
other          anything else                                                no
=============  ==========================================================  =========

A request may carry its endpoint's :class:`~evalcore.models.breaker.Breaker`: every attempt tells it what it met
(no connection, a refused key, a server error, an answer), and once it opens the call stops retrying and raises
:class:`~evalcore.models.breaker.EndpointUnreachable` (``cannot connect to <url>: <cause>``, or ``stopped
calling <url>: …`` for a refused key or a server failing every case).
"""

from __future__ import annotations

import asyncio
import email.utils
import ipaddress
import json
import logging
import os
import random
import re
import sys
import time
from types import ModuleType
from typing import Any
from urllib.parse import urlparse

from evalcore._util import deplog
from evalcore.core.errors import CallFailed
from evalcore.core.records import Contender, Usage
from evalcore.models.breaker import Breaker, connection_failure
from evalcore.models.types import NameProblem, Reply, Request

logger = logging.getLogger(__name__)

RETRIED_KINDS = frozenset({"rate_limit", "timeout", "transport"})
#: Settings that choose what a suite asks, not how the model answers (the prompt, ``evalcore.suite.prompts``):
#: recorded with the contender, never sent to the provider.
UNSENT_SETTINGS = frozenset({"prompt"})
#: Settings checked against ``litellm.get_supported_openai_params``; others pass through unchecked.
OPENAI_PARAMS = frozenset(
    {
        "temperature",
        "top_p",
        "max_tokens",
        "max_completion_tokens",
        "seed",
        "reasoning_effort",
        "frequency_penalty",
        "presence_penalty",
        "stop",
        "n",
        "logprobs",
        "top_logprobs",
        "logit_bias",
        "verbosity",
    }
)
CHAT_MODES = frozenset({"chat", "responses"})
#: Providers that run locally and take no key.
KEYLESS_PROVIDERS = frozenset({"ollama", "ollama_chat", "lm_studio", "llamafile"})
PLACEHOLDER_KEY = "sk-no-key"
MAX_MESSAGE_CHARS = 1000
_KEY_PATTERN = re.compile(r"\bsk-[A-Za-z0-9_\-]{4,}|(?i:bearer)\s+[A-Za-z0-9_\-\.]{8,}")
_STATUS_KINDS = {400: "bad_request", 401: "auth", 403: "auth", 404: "bad_request", 408: "timeout"}
_STATUS_KINDS |= {422: "bad_request", 429: "rate_limit"}


class MalformedReply(Exception):
    """The server answered 200 but the reply holds no usable text (or is not JSON at all)."""


def _not_json(exc: BaseException) -> MalformedReply | None:
    """A 200 whose body is not JSON, which litellm raises as an ``InternalServerError`` (500) caused by the
    JSON decoder, as what it is; still a retried ``transport`` fault (a proxy may garble one reply)."""
    seen: BaseException | None = exc
    for _ in range(8):  # the chain litellm builds is a few links long
        if isinstance(seen, json.JSONDecodeError):
            return MalformedReply(f"the server's reply was not JSON ({seen})")
        seen = seen and (seen.__cause__ or seen.__context__)
    return None


def litellm_module() -> ModuleType:
    """Import litellm on first use, without its network fetch of the price map or its banners."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    deplog.adopt(deplog.LITELLM_LOGGERS)
    return litellm


class LiteLLMProvider:
    """Answers every model id litellm knows how to route (``openai/…``, ``anthropic/…``, …)."""

    async def complete(self, request: Request) -> Reply:
        """Call the model, retrying transient faults.

        Args:
            request: the contender, the messages, and the retry budget.

        Returns:
            The reply text with its usage, cost, latency of the successful attempt and attempts made.

        Raises:
            CallFailed: a permanent fault, or transient faults on every one of ``max_attempts`` tries.
        """
        kwargs, attempts, breaker = self.prepare(request)
        for attempt in range(1, attempts + 1):
            started = time.monotonic()
            sent = breaker.sending() if breaker is not None else None
            try:
                response = await self.send(kwargs)
                text, tool_calls = reply_content(response)
            except Exception as raised:
                exc = _not_json(raised) or raised
                latency = time.monotonic() - started
                kind, cause = classify(exc), connection_failure(exc)
                if breaker is not None:
                    status = getattr(exc, "status_code", None)
                    status = status if isinstance(status, int) else None
                    model = request.contender.model
                    breaker.record_failure(kind, status, cause, request.asked, key_variable(model), sent)
                    said = scrub(_said(exc))[:MAX_MESSAGE_CHARS]
                    stop = breaker.stop_error(model, kind, cause, attempt, attempts, latency, said)
                    if stop is not None:
                        raise stop from None
                if kind not in RETRIED_KINDS or attempt == attempts:
                    raise _failure(request.contender.model, exc, kind, attempt, latency) from None
                await _wait_before_retry(request, exc, kind, attempt)
                if breaker is not None and breaker.is_open:  # another call found the endpoint gone meanwhile
                    raise breaker.failure(request.contender.model, cause or kind, attempt, latency, kind) from None
                continue
            if breaker is not None:
                breaker.record_reached(sent)
            latency = time.monotonic() - started
            usage = self.usage(response, request.contender)
            return Reply(text=text, usage=usage, latency_s=latency, attempts=attempt, tool_calls=tool_calls)
        raise AssertionError("unreachable: the loop returns or raises")

    def prepare(self, request: Request) -> tuple[dict[str, Any], int, Breaker | None]:
        """The keyword arguments of every attempt, how many attempts to make, and the breaker to tell."""
        return _call_kwargs(request), max(1, request.max_attempts), request.breaker

    async def send(self, kwargs: dict[str, Any]) -> Any:
        """One attempt: ``litellm.acompletion``."""
        return await litellm_module().acompletion(**kwargs)

    def usage(self, response: Any, contender: Contender) -> Usage:
        """The reply's tokens and cost (:func:`_usage`)."""
        return _usage(response, contender)

    def refusal(self, model: str, settings: dict[str, Any]) -> str | None:
        """Why litellm says this model cannot be asked with these settings, or None.

        Models litellm does not know (local servers, new releases) are never refused.
        """
        info = _model_info(model)
        if info is None:
            return None
        mode = info.get("mode")
        if mode and mode not in CHAT_MODES:
            return f"{model} is a {mode} model; this suite needs chat"
        supported = _supported_params(model)
        for key in settings:
            if supported is not None and key in OPENAI_PARAMS and key not in supported:
                return f"{model} does not take {key}"
        if "reasoning_effort" in settings and not _supports_reasoning(model):
            # litellm's parameter list is the provider's, so it offers reasoning_effort to every OpenAI model;
            # the model's own entry says whether it reasons.
            return f"{model} does not take reasoning_effort (litellm lists no reasoning for it)"
        return None

    def name_problem(self, model: str, api_base: str | None) -> NameProblem | None:
        """What litellm's model list says of the id (:func:`evalcore.models.names.litellm_name_problem`)."""
        from evalcore.models.names import litellm_name_problem

        return litellm_name_problem(litellm_module(), model, api_base)

    def takes_images(self, model: str) -> bool:
        """False only for a model litellm knows and lists without vision (``litellm.supports_vision``); models
        litellm does not know (local servers, new releases) are taken at their word."""
        if _model_info(model) is None:
            return True
        try:
            return bool(litellm_module().supports_vision(model=model))
        except Exception:
            return True  # no answer is no "no", as for reasoning

    def missing_keys(self, model: str, api_base: str | None) -> list[str]:
        """Environment variables litellm needs for this model that are not set.

        A local server (``api_base`` on localhost or a private address) and keyless providers such as
        Ollama need none.
        """
        if (api_base and _is_local(api_base)) or _provider_of(model) in KEYLESS_PROVIDERS:
            return []
        try:
            return list(litellm_module().validate_environment(model=model)["missing_keys"])
        except Exception:
            logger.debug("validate_environment failed for %s", model, exc_info=True)
            return []


async def close_clients() -> None:
    """Close litellm's cached HTTP clients; call it before the event loop that used them ends."""
    if "litellm" in sys.modules:
        await litellm_module().close_litellm_async_clients()


def _call_kwargs(request: Request) -> dict[str, Any]:
    """The keyword arguments for ``litellm.acompletion``."""
    contender = request.contender
    kwargs: dict[str, Any] = {
        "model": contender.model,
        "messages": request.messages,
        "timeout": request.timeout_s,
        "max_retries": 0,
        "drop_params": False,
        "api_base": contender.api_base,
        **{k: v for k, v in contender.settings.items() if k not in UNSENT_SETTINGS},
    }
    if request.response_format is not None:
        kwargs["response_format"] = request.response_format
    kwargs.update(request.params)
    if contender.api_base and "api_key" not in kwargs and needs_placeholder_key(contender.model):
        kwargs["api_key"] = PLACEHOLDER_KEY
    return kwargs


def needs_placeholder_key(model: str) -> bool:
    """True when the provider's key is unset: a local server takes any key, but the client wants one."""
    try:
        return bool(litellm_module().validate_environment(model=model)["missing_keys"])
    except Exception:
        return False


def reply_content(response: Any) -> tuple[str, list[dict[str, Any]] | None]:
    """The text and the tool calls of the first choice; raises :class:`MalformedReply` when it has neither.

    A reply that only calls tools has no text: its text is ``""``.
    """
    choices = getattr(response, "choices", None)
    if not choices:
        raise MalformedReply("the reply has no choices")
    message = choices[0].message
    content = getattr(message, "content", None)
    tool_calls = _tool_calls(message)
    if content is None and tool_calls is None:
        raise MalformedReply("the reply's first choice has no text content")
    return content or "", tool_calls


def _tool_calls(message: Any) -> list[dict[str, Any]] | None:
    """``[{"id", "name", "arguments"}]`` of the message's ``tool_calls`` (arguments as the model's JSON text)."""
    calls = getattr(message, "tool_calls", None)
    if not calls:
        return None
    found = []
    for call in calls:
        function = getattr(call, "function", None)
        found.append(
            {
                "id": getattr(call, "id", None),
                "name": getattr(function, "name", None),
                "arguments": getattr(function, "arguments", None) or "",
            }
        )
    return found


def _usage(response: Any, contender: Contender) -> Usage:
    """Tokens from the reply's ``usage``, and the cost from the suite's prices or else litellm's price map."""
    usage = getattr(response, "usage", None)
    tokens_in = getattr(usage, "prompt_tokens", None)
    tokens_out = getattr(usage, "completion_tokens", None)
    if contender.prices is not None:
        cost = _priced(contender.prices, tokens_in, tokens_out)
    else:
        cost = _litellm_cost(response, contender.model)
    return Usage(input_tokens=tokens_in, output_tokens=tokens_out, cost_usd=cost)


def _priced(prices: dict[str, float], tokens_in: int | None, tokens_out: int | None) -> float | None:
    if tokens_in is None or tokens_out is None:
        return None
    return prices.get("input_cost_per_token", 0.0) * tokens_in + prices.get("output_cost_per_token", 0.0) * tokens_out


def _litellm_cost(response: Any, model: str) -> float | None:
    """litellm's cost for the reply (``litellm.completion_cost``); None for models missing from its price map."""
    litellm = litellm_module()
    # Asking again for a model litellm has no price for costs a failed search of its whole map on every
    # reply (local models are never in it), so the answer is kept until the map changes size, as
    # ``litellm.register_model`` makes it.
    unpriced = (model, len(litellm.model_cost))
    if unpriced in _UNPRICED or _unpriced_entry(model):
        return None
    try:
        return float(litellm.completion_cost(completion_response=response))
    except litellm.ModelNotMappedError:
        _UNPRICED.add(unpriced)
        return None
    except Exception:  # a reply litellm cannot price this time (no usage, an odd shape)
        return None


_UNPRICED: set[tuple[str, int]] = set()


def _unpriced_entry(model: str) -> bool:
    """True when litellm's price map holds an entry for the model with no price per input token: a
    ``litellm.Router`` adds one for each deployment model it has no price for, and litellm would then price
    that model at 0 instead of not at all."""
    entry = litellm_module().model_cost.get(model)
    return entry is not None and not isinstance(entry.get("input_cost_per_token"), int | float)


def classify(exc: BaseException) -> str:
    """The fault kind of an exception raised while calling litellm."""
    if isinstance(exc, MalformedReply):
        return "transport"
    litellm = litellm_module()
    table: list[tuple[tuple[type[BaseException], ...], str]] = [
        ((litellm.Timeout, asyncio.TimeoutError), "timeout"),
        ((litellm.RateLimitError,), "rate_limit"),
        ((litellm.AuthenticationError, litellm.PermissionDeniedError), "auth"),
        ((litellm.BadRequestError, litellm.NotFoundError, litellm.UnprocessableEntityError), "bad_request"),
        (
            (
                litellm.APIConnectionError,
                litellm.InternalServerError,
                litellm.BadGatewayError,
                litellm.ServiceUnavailableError,
                litellm.APIResponseValidationError,
            ),
            "transport",
        ),
    ]
    for classes, kind in table:
        if isinstance(exc, classes):
            return kind
    return _kind_from_status(getattr(exc, "status_code", None))


def key_variable(model: str) -> str:
    """The environment variable that holds the model's key by litellm's naming (``OPENAI_API_KEY``), or
    ``its provider's API key variable`` when litellm cannot tell the provider."""
    provider = _provider_of(model)
    return f"{provider.upper()}_API_KEY" if provider else "its provider's API key variable"


def _kind_from_status(status: Any) -> str:
    """The kind for a bare ``litellm.APIError`` (e.g. a 403 arrives as one), by its status code."""
    if not isinstance(status, int):
        return "other"
    if status >= 500:
        return "transport"
    return _STATUS_KINDS.get(status, "other")


async def _wait_before_retry(request: Request, exc: BaseException, kind: str, attempt: int) -> None:
    """Sleep for the server's ``Retry-After`` (capped), else a full-jitter exponential backoff."""
    retry_after = retry_after_s(exc)
    if retry_after is not None:
        delay = min(retry_after, request.max_retry_after_s)
    else:
        delay = random.uniform(0, request.backoff_s * 2 ** (attempt - 1))
    logger.info("%s: %s on attempt %d; retrying in %.2fs", request.contender.model, kind, attempt, delay)
    if request.breaker is not None:
        await request.breaker.sleep(delay)
    else:
        await asyncio.sleep(delay)


def retry_after_s(exc: BaseException) -> float | None:
    """The ``Retry-After`` of the error's HTTP response in seconds, or None when absent or unreadable."""
    return parse_retry_after(_header(exc, "retry-after"))


def parse_retry_after(value: str | None) -> float | None:
    """A ``Retry-After`` header's value (seconds, or an HTTP date) in seconds from now; None when unreadable."""
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _header(exc: BaseException, name: str) -> str | None:
    """A response header from a litellm/openai exception, looked up case-insensitively."""
    response = getattr(exc, "response", None)
    for headers in (getattr(response, "headers", None), getattr(exc, "litellm_response_headers", None)):
        if headers is None:
            continue
        try:
            found = {str(k).lower(): v for k, v in dict(headers).items()}.get(name)
        except Exception:
            continue
        if found is not None:
            return str(found)
    return None


def _failure(model: str, exc: BaseException, kind: str, attempts: int, latency: float) -> CallFailed:
    noun = "attempt" if attempts == 1 else "attempts"
    message = scrub(f"{model}: {kind} after {attempts} {noun}: {_said(exc)}")
    return CallFailed(kind, message[:MAX_MESSAGE_CHARS], attempts=attempts, latency_s=latency)


def _said(exc: BaseException) -> str:
    """What a failed attempt met, in a line: a reply we could not use in its own words, else the exception."""
    return str(exc) if isinstance(exc, MalformedReply) else f"{type(exc).__name__}: {exc}"


def scrub(text: str) -> str:
    """``text`` with API keys removed: ``sk-…`` tokens, bearer tokens, and values of ``*_API_KEY``."""
    for name, value in os.environ.items():
        if name.upper().endswith("_API_KEY") and len(value) >= 4:
            text = text.replace(value, "***")
    return _KEY_PATTERN.sub("***", text)


def _model_info(model: str) -> dict[str, Any] | None:
    """litellm's entry for the model, or None when litellm does not know it."""
    try:
        return dict(litellm_module().get_model_info(model))
    except Exception:
        return None


def model_prices(model: str) -> tuple[float, float] | None:
    """litellm's (input, output) USD per token for the model, or None when its price map lacks it."""
    info = {} if _unpriced_entry(model) else _model_info(model) or {}
    price_in, price_out = info.get("input_cost_per_token"), info.get("output_cost_per_token")
    if isinstance(price_in, int | float) and isinstance(price_out, int | float):
        return float(price_in), float(price_out)
    return None


def _supported_params(model: str) -> list[str] | None:
    try:
        return litellm_module().get_supported_openai_params(model=model)
    except Exception:
        return None


def _supports_reasoning(model: str) -> bool:
    try:
        return bool(litellm_module().supports_reasoning(model=model))
    except Exception:
        return True  # no answer is no "no": only a known model without reasoning is refused


def _provider_of(model: str) -> str | None:
    try:
        return litellm_module().get_llm_provider(model)[1]
    except Exception:
        return None


def _is_local(api_base: str) -> bool:
    """True for a base URL on localhost, a loopback or a private address (servers that need no key)."""
    host = urlparse(api_base if "//" in api_base else f"//{api_base}").hostname or ""
    if host == "localhost" or host.endswith(".localhost") or host.endswith(".local"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local
