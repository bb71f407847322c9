"""A circuit breaker per endpoint: stop calling a server that cannot be reached.

A connection failure (connection refused, host not found, connect timeout) says nothing about the case
asked and everything about the endpoint, so after :data:`THRESHOLD` consecutive identical ones the
endpoint's breaker opens: calls in flight stop retrying and the runner makes no new call to it for the
rest of the run (``evalcore run --resume`` tries again). Replies from a server that answers (429, 500 …)
never open it: they reset the count.

An endpoint is a contender's API base URL, or its provider (``openai``) when it has none.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from evalcore.core.errors import CallFailed
from evalcore.core.records import Contender

#: Consecutive identical connection failures that open a breaker.
THRESHOLD = 3
#: How every stored error message of an unreachable endpoint begins; a resume calls those cases again.
UNREACHABLE_PREFIX = "cannot connect to "


class EndpointUnreachable(CallFailed):
    """A call that never reached its endpoint (kind ``transport``); ``endpoint`` and ``cause`` name why."""

    def __init__(self, endpoint: str, cause: str, detail: str, attempts: int, latency_s: float | None = None):
        super().__init__(
            "transport", f"{unreachable(endpoint, cause)} ({detail})", attempts=attempts, latency_s=latency_s
        )
        self.endpoint, self.cause = endpoint, cause


def unreachable(endpoint: str, cause: str) -> str:
    """``cannot connect to http://127.0.0.1:9/v1: connection refused``."""
    return f"{UNREACHABLE_PREFIX}{endpoint}: {cause}"


def endpoint_of(contender: Contender) -> str:
    """The contender's API base URL (without a trailing slash), else its provider (``openai/x`` → ``openai``)."""
    if contender.api_base:
        return contender.api_base.rstrip("/")
    return contender.model.split("/", 1)[0]


@dataclass
class Breaker:
    """The state of one endpoint: closed (calls go out) until ``threshold`` identical failures in a row."""

    endpoint: str
    threshold: int = THRESHOLD
    #: Why the breaker opened (``connection refused``); None while closed.
    cause: str | None = None
    _streak: int = 0
    _streak_cause: str | None = None
    _opened: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def is_open(self) -> bool:
        return self.cause is not None

    @property
    def message(self) -> str:
        """``cannot connect to <endpoint>: <cause>`` (empty while closed)."""
        return unreachable(self.endpoint, self.cause) if self.cause else ""

    def record_unreachable(self, cause: str) -> None:
        """A call could not connect; the third identical failure in a row opens the breaker."""
        if cause == self._streak_cause:
            self._streak += 1
        else:
            self._streak, self._streak_cause = 1, cause
        if self._streak >= self.threshold and self.cause is None:
            self.cause = cause
            self._opened.set()

    def record_reached(self) -> None:
        """The endpoint answered (a reply, or an HTTP error it sent): the failures in a row start again."""
        self._streak, self._streak_cause = 0, None

    def failure(self, caller: str, cause: str, attempts: int, latency_s: float) -> EndpointUnreachable:
        """The error of a call by ``caller`` (a model id, an HTTP target's label) that could not connect.

        Args:
            caller: who made the call, named in the message.
            cause: why this call failed; the breaker's own cause, once open, is named instead.
            attempts: calls made, retries included.
            latency_s: wall time of the last attempt.
        """
        noun = "attempt" if attempts == 1 else "attempts"
        detail = f"{caller}, {attempts} {noun}"
        if self.is_open:
            detail += f"; stopped calling it after {self.threshold} failures in a row"
        return EndpointUnreachable(self.endpoint, self.cause or cause, detail, attempts, latency_s)

    async def sleep(self, delay: float) -> None:
        """Sleep ``delay`` seconds, or less when the breaker opens meanwhile."""
        if self.is_open:
            return
        try:
            await asyncio.wait_for(self._opened.wait(), delay)
        except TimeoutError:
            pass


class Breakers:
    """One :class:`Breaker` per endpoint, for one run (made in the run's event loop)."""

    def __init__(self, threshold: int = THRESHOLD):
        self.threshold = threshold
        self._by_endpoint: dict[str, Breaker] = {}

    def of(self, contender: Contender) -> Breaker:
        """The breaker of the contender's endpoint."""
        endpoint = endpoint_of(contender)
        found = self._by_endpoint.get(endpoint)
        if found is None:
            found = self._by_endpoint[endpoint] = Breaker(endpoint, self.threshold)
        return found

    def opened(self) -> list[Breaker]:
        """The breakers that opened, in the order their endpoints were first called."""
        return [b for b in self._by_endpoint.values() if b.is_open]
