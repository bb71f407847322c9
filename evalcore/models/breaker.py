"""A circuit breaker per endpoint: stop calling a server that cannot be reached, or that fails the same way
whatever it is asked.

Three things open an endpoint's breaker, each saying nothing of the case asked and everything of the endpoint:

- :data:`THRESHOLD` consecutive identical connection failures (connection refused, host not found, connect
  timeout);
- :data:`SERVER_ERROR_THRESHOLD` consecutive identical server errors (the same 5xx status) spread over at least
  :data:`THRESHOLD` cases: one case failing on its own does not open it, a server failing every case does (a
  reply past the timeout neither counts nor resets: a loaded client times out on a healthy server).
  Consecutive in the order the calls were *sent* (:meth:`Breaker.sending`), not the order their answers are
  read: concurrent calls finish out of order on a loaded client, and a reply read late to a call sent between
  two failures still shows the server alive between them;
- one refused key (401/403): a key that is refused will be refused again until someone changes it.

:meth:`Breaker.record_failure` makes that decision for every caller (the litellm calls, HTTP targets and
judges) and :meth:`Breaker.stop_error` says when a failed call stops. Once it opens, calls in flight stop
retrying and the runner makes no new call to the endpoint for the rest of the run (``evalcore run --resume``
calls what was left). A reply, or any other answer, resets the counts.

An endpoint is a contender's API base URL, or its provider (``openai``) when it has none; an application
endpoint without one (``http/<name>``) is its model id.
"""

from __future__ import annotations

import asyncio
import itertools
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field

from evalcore.core.errors import CallFailed
from evalcore.core.records import Contender

#: Consecutive identical connection failures that open a breaker.
THRESHOLD = 3
#: Consecutive identical server errors (over at least :data:`THRESHOLD` cases) that open a breaker.
SERVER_ERROR_THRESHOLD = 6
#: How every stored error message of an unreachable endpoint begins; a resume calls those cases again.
UNREACHABLE_PREFIX = "cannot connect to "
#: How the stored error message of a call stopped by a breaker that a reply opened begins (a refused key, a
#: server failing every case); a resume calls those cases again.
STOPPED_PREFIX = "stopped calling "
#: How many attempts' outcomes a breaker keeps to count runs of server errors in (older ones are dropped).
_OUTCOMES_KEPT = 4096
#: How many of the newest numbers a breaker keeps the outcomes of when it drops the older ones.
_OUTCOMES_PRUNED_TO = 2048
#: The beginnings of every message a breaker gives its calls: what a resume calls again.
BREAKER_PREFIXES = (UNREACHABLE_PREFIX, STOPPED_PREFIX)
#: Providers whose model ids each name a server of their own: ``http/<name>`` targets
#: (:data:`evalcore.models.http.HTTP_PREFIX`), two of which are two applications, not one provider.
OWN_ENDPOINT_PROVIDERS = frozenset({"http"})


class EndpointUnreachable(CallFailed):
    """A call that never reached its endpoint (kind ``transport``); ``endpoint`` and ``cause`` name why."""

    def __init__(
        self,
        endpoint: str,
        cause: str,
        detail: str,
        attempts: int,
        latency_s: float | None = None,
        kind: str = "transport",
        message: str | None = None,
    ):
        said = message or unreachable(endpoint, cause)
        super().__init__(kind, f"{said} ({detail})", attempts=attempts, latency_s=latency_s)
        self.endpoint, self.cause = endpoint, cause


def unreachable(endpoint: str, cause: str) -> str:
    """``cannot connect to http://127.0.0.1:9/v1: connection refused``."""
    return f"{UNREACHABLE_PREFIX}{endpoint}: {cause}"


def endpoint_of(contender: Contender) -> str:
    """The contender's API base URL (without a trailing slash), else its provider (``openai/x`` → ``openai``);
    a model id under :data:`OWN_ENDPOINT_PROVIDERS` (``http/<name>``) is an endpoint of its own."""
    if contender.api_base:
        return contender.api_base.rstrip("/")
    provider = contender.model.split("/", 1)[0]
    return contender.model if provider in OWN_ENDPOINT_PROVIDERS else provider


@dataclass
class Breaker:
    """The state of one endpoint: closed (calls go out) until ``threshold`` identical failures in a row."""

    endpoint: str
    threshold: int = THRESHOLD
    #: Why the breaker opened (``connection refused``); None while closed.
    cause: str | None = None
    _streak: int = 0
    _streak_cause: str | None = None
    #: The number the next call sent gets (:meth:`sending`).
    _sent: int = 0
    #: The attempts whose answers count towards a run of server errors, by the number they were sent with: a
    #: server error's (status, case), or None for a timeout (neither counts nor breaks a run). An attempt not
    #: here (answered, or still in flight) breaks a run.
    _outcomes: dict[int, tuple[int, object] | None] = field(default_factory=dict)
    #: What the calls it stops are told, when a reply opened it (a refused key, a server failing every case).
    _said: str | None = None
    _opened: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def is_open(self) -> bool:
        return self.cause is not None

    @property
    def message(self) -> str:
        """``cannot connect to <endpoint>: <cause>``, or ``stopped calling <endpoint>: <why>`` when a reply opened
        it (empty while closed)."""
        if self._said:
            return self._said
        return unreachable(self.endpoint, self.cause) if self.cause else ""

    @property
    def stopped(self) -> bool:
        """Open because of what the endpoint answered (not because it could not be reached)."""
        return self._said is not None

    def sending(self) -> int:
        """Number the attempt about to be sent, to give its outcome with (``sent=``): server errors count in a
        row in the order their calls were sent."""
        self._sent += 1
        return self._sent

    def record_unreachable(self, cause: str) -> None:
        """A call could not connect; the third identical failure in a row opens the breaker."""
        if cause == self._streak_cause:
            self._streak += 1
        else:
            self._streak, self._streak_cause = 1, cause
        self._outcomes.clear()
        if self._streak >= self.threshold and self.cause is None:
            self._open(cause)

    def record_failure(
        self, kind: str, status: int | None, cause: str | None, case: object, key_variable: str, sent: int | None = None
    ) -> None:
        """Tell the breaker what one failed attempt met, whoever made it: no connection, a refused key, a server
        error or a timeout, or an answer that says nothing of the endpoint (which resets the counts).

        Args:
            kind: the attempt's fault kind (``transport``, ``timeout``, ``auth`` …).
            status: the HTTP status the endpoint answered, if any.
            cause: why it could not connect (:func:`connection_failure`); None when it connected.
            case: any hashable naming the case (and sample) asked, to count the cases an endpoint failed.
            key_variable: where the key comes from, named when the endpoint refuses it.
            sent: the attempt's number from :meth:`sending`; None: numbered now (sent after every other).
        """
        if cause is not None:
            self.record_unreachable(cause)
        elif kind == "auth":
            self.record_refused_key(status, key_variable)
        elif kind == "transport" and status is not None and status >= 500:
            self.record_server_error(status, case, sent)
        elif kind == "timeout":
            # A reply past the timeout says as little of the endpoint as of the machine waiting for it: a loaded
            # client times out on a healthy server. It neither counts towards opening nor resets the counts.
            if sent is not None:  # numbered now, it would sit after every other: no run to keep unbroken
                self._outcomes[sent] = None
        else:
            self.record_reached()

    def record_server_error(self, status: int, case: object, sent: int | None = None) -> None:
        """The endpoint answered a call with a server error (5xx) while asking ``case`` (any hashable naming
        it); :data:`SERVER_ERROR_THRESHOLD` identical ones in a row (in the order sent) over :data:`THRESHOLD`
        cases open the breaker. ``sent``: the attempt's number from :meth:`sending`; None: numbered now."""
        self._streak, self._streak_cause = 0, None
        sent = self.sending() if sent is None else sent
        self._outcomes[sent] = (status, case)
        if len(self._outcomes) > _OUTCOMES_KEPT:
            self._outcomes = {n: o for n, o in self._outcomes.items() if n > self._sent - _OUTCOMES_PRUNED_TO}
        errors, cases = self._run_around(sent, status)
        if errors >= SERVER_ERROR_THRESHOLD and len(cases) >= self.threshold:
            said = f"it answered {status} to {errors} calls in a row, over {len(cases)} cases"
            self._open(f"server error {status}", f"{STOPPED_PREFIX}{self.endpoint}: {said}")

    def _run_around(self, sent: int, status: int) -> tuple[int, set[object]]:
        """The server errors of ``status`` in the unbroken run of calls sent around call ``sent``, and their cases."""
        errors, cases = 0, set()
        for numbers in (range(sent, 0, -1), itertools.count(sent + 1)):
            for n in numbers:
                if n not in self._outcomes:
                    break
                outcome = self._outcomes[n]
                if outcome is not None:
                    if outcome[0] != status:
                        break
                    errors += 1
                    cases.add(outcome[1])
        return errors, cases

    def record_refused_key(self, status: int | None, variable: str) -> None:
        """The endpoint refused the key (401/403): the breaker opens at once, naming the key's variable."""
        code = f" ({status})" if status else ""
        self._open("key refused", f"{STOPPED_PREFIX}{self.endpoint}: it refused the key{code}; check {variable}")

    def record_reached(self, sent: int | None = None) -> None:
        """The endpoint answered (a reply, or an HTTP error it sent): the failures in a row start again, the
        server errors after the call ``sent`` (from :meth:`sending`; None: numbered now, after every other)."""
        self._streak, self._streak_cause = 0, None
        if sent is None:  # numbered now: its absence from the outcomes breaks every run sent before it
            self.sending()

    def _open(self, cause: str, said: str | None = None) -> None:
        if self.cause is None:
            self.cause, self._said = cause, said
            self._opened.set()

    def failure(
        self, caller: str, cause: str, attempts: int, latency_s: float, kind: str = "transport", said: str = ""
    ) -> EndpointUnreachable:
        """The error of a call by ``caller`` (a model id, an HTTP target's label) that could not connect, or that
        this breaker stopped after a reply opened it (a refused key, a server failing every case).

        Args:
            caller: who made the call, named in the message.
            cause: why this call failed; the breaker's own cause, once open, is named instead.
            attempts: calls made, retries included.
            latency_s: wall time of the last attempt.
            kind: the call's fault kind (``auth`` for a refused key).
            said: what the server answered, scrubbed of keys, when it answered.
        """
        noun = "attempt" if attempts == 1 else "attempts"
        detail = f"{caller}, {attempts} {noun}" + (f": {said}" if said else "")
        if self.is_open and not self.stopped:
            detail += f"; stopped calling it after {self.threshold} failures in a row"
        return EndpointUnreachable(self.endpoint, self.cause or cause, detail, attempts, latency_s, kind, self._said)

    def stop_error(
        self, caller: str, kind: str, cause: str | None, attempt: int, attempts: int, latency_s: float, said: str
    ) -> EndpointUnreachable | None:
        """The error that ends a call whose attempt just failed (after :meth:`record_failure`), instead of its
        own: the endpoint cannot be reached (the breaker opened, or this was the last attempt), or the breaker
        opened on what the endpoint answered. None: the call retries or fails as usual.

        Args:
            caller, latency_s: as for :meth:`failure`.
            kind: the attempt's fault kind.
            cause: why it could not connect; None when it connected.
            attempt: this attempt's number, from 1.
            attempts: how many attempts the call may make.
            said: what the endpoint answered, scrubbed of keys.
        """
        if cause is not None and (self.is_open or attempt == attempts):
            return self.failure(caller, cause, attempt, latency_s)
        if self.stopped:
            return self.failure(caller, kind, attempt, latency_s, kind, said)
        return None

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


#: Exceptions, by class name, that mean the connection was never made (the endpoint is unreachable).
_CONNECT_TIMEOUTS = frozenset({"ConnectTimeout", "ConnectionTimeoutError"})
_CONNECT_ERRORS = frozenset({"ConnectError", "ClientConnectorError", "ClientConnectorDNSError"})


def connection_failure(exc: BaseException) -> str | None:
    """Why the call could not connect, in plain words (``connection refused``, ``host not found``,
    ``connect timed out``), or None when it did connect (a reply, even a 429 or a 500, or a dropped
    connection after connecting).

    litellm wraps the transport's error several times (a refused connection to an ``openai/`` model
    arrives as ``InternalServerError``), so the whole ``__cause__``/``__context__`` chain is read.
    """
    chain = list(_chain(exc))
    for link in chain:
        if isinstance(link, ConnectionRefusedError):
            return "connection refused"
        if isinstance(link, socket.gaierror):
            return "host not found"
    names = {cls.__name__ for link in chain for cls in type(link).__mro__}
    if names & _CONNECT_TIMEOUTS:
        return "connect timed out"
    if names & _CONNECT_ERRORS:
        errors = [link for link in chain if isinstance(link, OSError) and link.strerror]
        return errors[-1].strerror.lower() if errors else "connection failed"  # type: ignore[union-attr]
    return None


def _chain(exc: BaseException, limit: int = 12) -> Iterator[BaseException]:
    seen: set[int] = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen and len(seen) < limit:
        seen.add(id(link))
        yield link
        link = link.__cause__ or link.__context__
