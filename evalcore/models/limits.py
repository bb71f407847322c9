"""Rate limits per model or per endpoint: requests and tokens per minute, and calls in flight.

A suite sets them as ``limits: {openai/gpt-4o-mini: {rpm: 500, tpm: 200000, concurrency: 20}}``. A key is
a model id (every contender of that model, whatever its settings or prompt) or an API base URL (every
contender that sends there), and each key is **one budget shared by all of its contenders**: two
contenders of one model together stay within its rpm. A contender that two keys match (its model and
its endpoint) goes through both.

How a :class:`Budget` keeps each limit (the runner asks it before every call, see :func:`limited`):

- ``concurrency``: at most this many calls in flight; a call keeps its place through its retries.
- ``rpm``: call starts are spread evenly, at least ``60 / rpm`` seconds apart, never a minute's worth
  at once (providers that meter per second refuse such a burst). A call that needed retries charges
  its extra attempts when it ends, so the calls after it start later. The first call of a budget goes
  alone, and the next starts one slot after it ends: a client's first request leaves late (it sets itself
  up first), so a slot counted from when that call was let go would let the second request arrive early.
- ``tpm``: a call is charged the input tokens estimated from its messages (:func:`estimate_tokens`) before
  it starts, then the input and output tokens its reply's usage reports once it ends (the estimate
  stays when the usage is unknown); starts are spread so that the tokens charged stay within ``tpm``
  per minute.

The workers of a shared run (``evalcore run --resume RUN --worker``) keep ``rpm`` and ``tpm`` together, on
clocks in the database (:class:`SharedRates`): each call start is reserved there by the same rule, and what a
call used beyond its estimate moves the shared clocks as it moves this process's. ``concurrency`` stays per
worker: it is how many calls one process holds open.

The clock and the sleep are injectable, so the spacing can be tested without waiting for it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from evalcore.core.records import Contender, Usage

#: Tokens per word of a message, and tokens a chat call adds around its messages: the rule the plan's cost
#: estimate uses (``evalcore.execution.estimate``).
TOKENS_PER_WORD = 1.35
CALL_OVERHEAD_TOKENS = 12

OnWait = Callable[[str], None]


class SharedRates(Protocol):
    """Rate clocks shared with other processes (``--worker``; :class:`evalcore.storage.claims.Claims`), named
    ``rpm <key>`` and ``tpm <key>``: each holds the earliest start of the next call by that limit."""

    async def wait_s(self, seconds: Mapping[str, float]) -> float:
        """Reserve a call start under the named clocks (the latest of now and each; each then moves on to that
        start plus its seconds); the seconds this call waits for it."""
        ...

    async def push_clocks(self, seconds: Mapping[str, float]) -> None:
        """Move each named clock on by its seconds (back, when negative)."""
        ...


@dataclass(frozen=True)
class RateLimit:
    """The limits of one key of ``limits:``; None: that limit is not set."""

    #: The model id or API base URL the limits apply to.
    key: str
    rpm: int | None = None
    tpm: int | None = None
    concurrency: int | None = None

    def describe(self) -> str:
        """``rpm 500, tpm 200000, concurrency 20`` (the limits that are set)."""
        parts = [("rpm", self.rpm), ("tpm", self.tpm), ("concurrency", self.concurrency)]
        return ", ".join(f"{name} {value}" for name, value in parts if value is not None)


def estimate_tokens(messages: list[dict[str, Any]]) -> int:
    """The input tokens of a call, estimated from the words of its messages."""
    words = sum(len(str(m.get("content", "")).split()) for m in messages)
    return int(words * TOKENS_PER_WORD) + CALL_OVERHEAD_TOKENS


@dataclass
class Charge:
    """What one call is charged: its estimated input tokens, then what it used and how many attempts it made."""

    estimated_tokens: int
    #: Input plus output tokens of the reply, once known; None keeps the estimate.
    used_tokens: int | None = None
    attempts: int = 1

    def settle(self, usage: Usage, attempts: int) -> None:
        """Record the reply's usage and the attempts the call made (retries included)."""
        if usage.input_tokens is not None or usage.output_tokens is not None:
            self.used_tokens = (usage.input_tokens or 0) + (usage.output_tokens or 0)
        self.attempts = max(1, attempts)


class Budget:
    """The state of one key's limits during a run (made and used in the run's event loop)."""

    def __init__(
        self,
        limit: RateLimit,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
        shared: SharedRates | None = None,
    ):
        self.limit = limit
        self._clock, self._sleep = clock, sleep
        #: The rpm and tpm clocks shared by every worker of a run (``--worker``); None: this process alone.
        self._shared = shared
        self._slots = asyncio.Semaphore(limit.concurrency) if limit.concurrency else None
        #: Seconds between call starts (rpm), and seconds per token (tpm); 0 when not limited.
        self._interval = 60.0 / limit.rpm if limit.rpm else 0.0
        self._per_token = 60.0 / limit.tpm if limit.tpm else 0.0
        #: The earliest start of the next call by each rate (monotonic seconds).
        self._next_call = float("-inf")
        self._next_tokens = float("-inf")
        #: Set once the budget's first call has ended; None until a call starts (rpm budgets only).
        self._first_done: asyncio.Event | None = None

    def reason(self, kind: str) -> str:
        """``waiting on rpm limit of openai/gpt-4o-mini``."""
        return f"waiting on {kind} limit of {self.limit.key}"

    async def acquire(self, charge: Charge, on_wait: OnWait | None = None) -> None:
        """Wait until a call may start under every limit of this budget, and count it as started.

        Args:
            charge: the call's estimated tokens.
            on_wait: told why, each time the call has to wait (``waiting on rpm limit of …``).
        """
        if self._slots is not None:
            if self._slots.locked() and on_wait is not None:
                on_wait(self.reason("concurrency"))
            await self._slots.acquire()
        if not (self._interval or self._per_token):
            return
        try:
            await self._wait_for_rate(charge, on_wait)
        except BaseException:
            if self._slots is not None:
                self._slots.release()
            raise

    async def _wait_for_rate(self, charge: Charge, on_wait: OnWait | None) -> None:
        first = False
        if self._interval:
            if self._first_done is None:
                self._first_done, first = asyncio.Event(), True  # this call is the first: it goes alone
            elif not self._first_done.is_set():
                if on_wait is not None:
                    on_wait(self.reason("rpm"))
                await self._first_done.wait()
        # The start is reserved before sleeping, so calls that wait together leave in the order they came.
        now = self._clock()
        by_calls, by_tokens = self._next_call, self._next_tokens
        start = max(now, by_calls, by_tokens)
        if self._interval:
            self._next_call = start + self._interval
        if self._per_token:
            self._next_tokens = start + charge.estimated_tokens * self._per_token
        delay = start - now
        if self._shared is not None:
            delay = max(delay, await self._shared.wait_s(self._named(self._share(charge))))
        if delay > 0:
            if on_wait is not None:
                on_wait(self.reason("rpm" if by_calls >= by_tokens else "tpm"))
            try:
                await self._sleep(delay)
            except BaseException:
                if first and self._first_done is not None:
                    self._first_done.set()  # cancelled before it started: the others need not wait for it
                raise

    def _share(self, charge: Charge) -> dict[str, float]:
        """The seconds a call's start moves each rate on: one interval (rpm), its estimated tokens (tpm)."""
        share = {"rpm": self._interval, "tpm": charge.estimated_tokens * self._per_token}
        return {kind: s for kind, s in share.items() if s}

    def _overrun(self, charge: Charge) -> dict[str, float]:
        """The seconds an ended call moves each rate on beyond its share: the tokens it used beyond its
        estimate (tpm), its retries (rpm)."""
        overrun = {}
        if charge.used_tokens is not None and self._per_token:
            overrun["tpm"] = (charge.used_tokens - charge.estimated_tokens) * self._per_token
        if charge.attempts > 1 and self._interval:
            overrun["rpm"] = (charge.attempts - 1) * self._interval
        return overrun

    def _named(self, by_kind: Mapping[str, float]) -> dict[str, float]:
        """Seconds by rate, as the shared clocks are named: ``rpm openai/gpt-4o-mini``."""
        return {f"{kind} {self.limit.key}": s for kind, s in by_kind.items()}

    def release(self, charge: Charge) -> None:
        """The call ended: free its place, and charge what it used beyond its estimate and its retries."""
        if self._slots is not None:
            self._slots.release()
        overrun = self._overrun(charge)
        self._next_tokens += overrun.get("tpm", 0.0)
        self._next_call += overrun.get("rpm", 0.0)
        if self._first_done is not None and not self._first_done.is_set():
            # The first call has ended (the others wait for it): its request left before now.
            self._next_call = max(self._next_call, self._clock() + self._interval)
            self._first_done.set()

    async def release_shared(self, charge: Charge) -> None:
        """The call ended: charge what it used beyond its estimate and its retries on the shared clocks too."""
        overrun = {kind: s for kind, s in self._overrun(charge).items() if s}
        if self._shared is not None and overrun:
            await self._shared.push_clocks(self._named(overrun))


class Limits:
    """Every budget of one run, by key; :meth:`of` gives those a contender's calls go through."""

    def __init__(
        self,
        limits: Mapping[str, RateLimit],
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
        shared: SharedRates | None = None,
    ):
        """
        Args:
            limits: the suite's limits, by key.
            clock: the monotonic clock.
            sleep: what waits.
            shared: keeps each key's rpm and tpm across every worker of a shared run; concurrency stays per
                process.
        """
        self._budgets = {_normal(key): Budget(limit, clock, sleep, shared) for key, limit in sorted(limits.items())}

    def of(self, contender: Contender) -> tuple[Budget, ...]:
        """The budgets of the contender's model and of its API base, in a fixed order (so two calls
        that need the same two budgets never hold one each while waiting for the other); () when none."""
        keys = {contender.model, _normal(contender.api_base)} if contender.api_base else {contender.model}
        return tuple(budget for key, budget in self._budgets.items() if key in keys)


def _normal(key: str) -> str:
    """A key as it is matched: an API base URL without its trailing slash."""
    return key.rstrip("/") if "://" in key else key


@asynccontextmanager
async def limited(budgets: tuple[Budget, ...], charge: Charge, on_wait: OnWait | None = None) -> AsyncIterator[Charge]:
    """Hold a call's place in each budget while it runs; :meth:`Charge.settle` it before leaving.

    Args:
        budgets: the contender's budgets (:meth:`Limits.of`).
        charge: the call's estimated tokens.
        on_wait: told why each time the call has to wait.
    """
    taken: list[Budget] = []
    try:
        for budget in budgets:
            await budget.acquire(charge, on_wait)
            taken.append(budget)
        yield charge
    finally:
        for budget in reversed(taken):
            budget.release(charge)
        for budget in reversed(taken):
            await budget.release_shared(charge)


class Outcome(Protocol):
    """What a limited call returns: a result with its usage and attempts (:class:`evalcore.core.records.Result`)."""

    usage: Usage
    attempts: int


T = TypeVar("T", bound=Outcome)


class Gate:
    """One contender's budgets, and whom to tell how many of its calls wait on them and why.

    Args:
        budgets: the contender's budgets (:meth:`Limits.of`).
        on_change: called with (why the latest call waits, calls waiting) when that changes; (None, 0) when none
            waits any longer.
    """

    def __init__(self, budgets: tuple[Budget, ...], on_change: Callable[[str | None, int], None]):
        self.budgets = budgets
        self.waiting = 0
        self._on_change = on_change
        self._reason: str | None = None

    async def call(self, work: Coroutine[Any, Any, T], messages: list[dict[str, Any]]) -> T:
        """Run ``work`` (one call, not yet started) once every budget lets it start, and charge what it used.

        Args:
            work: the call; closed unstarted if the wait is cancelled.
            messages: what the call sends, for its estimated input tokens.
        """
        charge = Charge(estimate_tokens(messages))
        waited = started = False

        def on_wait(reason: str) -> None:
            nonlocal waited
            if not waited:
                waited = True
                self.waiting += 1
            self._tell(reason)

        try:
            async with limited(self.budgets, charge, on_wait):
                if waited:
                    waited = False
                    self._stop_waiting()
                started = True
                result = await work
                charge.settle(result.usage, result.attempts)
                return result
        finally:
            if waited:
                self._stop_waiting()
            if not started:
                work.close()

    def _stop_waiting(self) -> None:
        self.waiting -= 1
        self._tell(self._reason if self.waiting else None)

    def _tell(self, reason: str | None) -> None:
        self._reason = reason
        self._on_change(reason, self.waiting)
