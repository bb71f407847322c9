"""Rate-limit budgets on an injected clock: rpm spacing, tpm charges settled by usage, retries, concurrency, sharing."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

import pytest

from evalcore.core.records import Contender, Usage
from evalcore.models.limits import Budget, Charge, Gate, Limits, RateLimit, estimate_tokens, limited


class FakeClock:
    """A clock whose sleeps advance it at once, so spacing is exact and instant."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, delay: float) -> None:
        self.sleeps.append(delay)
        self.now += delay
        await asyncio.sleep(0)


def budget(clock: FakeClock, **limits: int) -> Budget:
    return Budget(RateLimit("openai/m", **limits), clock, clock.sleep)


def starts(b: Budget, clock: FakeClock, charges: list[Charge]) -> list[float]:
    """When each call starts, one after another, each settled as its charge says."""

    async def go() -> list[float]:
        found = []
        for charge in charges:
            await b.acquire(charge)
            found.append(clock.now)
            b.release(charge)
        return found

    return asyncio.run(go())


def test_rpm_spreads_call_starts_evenly_at_60_over_rpm_seconds() -> None:
    clock = FakeClock()
    assert starts(budget(clock, rpm=120), clock, [Charge(10) for _ in range(5)]) == [0.0, 0.5, 1.0, 1.5, 2.0]


def test_a_call_after_a_quiet_spell_starts_at_once_and_banks_no_burst() -> None:
    clock = FakeClock()
    b = budget(clock, rpm=60)
    assert starts(b, clock, [Charge(1)]) == [0.0]
    clock.now = 10.0
    assert starts(b, clock, [Charge(1), Charge(1)]) == [10.0, 11.0]


def test_tpm_charges_the_estimate_first_then_what_the_reply_used() -> None:
    clock = FakeClock()
    b = budget(clock, tpm=6000)  # 0.01 s per token
    first = Charge(100)
    first.settle(Usage(input_tokens=120, output_tokens=180), attempts=1)  # 300 used: 200 over the estimate
    assert starts(b, clock, [first, Charge(100), Charge(100)]) == pytest.approx([0.0, 3.0, 4.0])


def test_tpm_keeps_the_estimate_when_the_usage_is_unknown() -> None:
    clock = FakeClock()
    first = Charge(100)
    first.settle(Usage(), attempts=1)
    assert first.used_tokens is None
    assert starts(budget(clock, tpm=6000), clock, [first, Charge(50)]) == pytest.approx([0.0, 1.0])


def test_the_slower_of_rpm_and_tpm_decides() -> None:
    clock = FakeClock()
    b = budget(clock, rpm=600, tpm=6000)  # 0.1 s a call; 0.01 s a token
    assert starts(b, clock, [Charge(5), Charge(50), Charge(5)]) == pytest.approx([0.0, 0.1, 0.6])


def test_retries_of_a_call_count_against_the_rpm() -> None:
    clock = FakeClock()
    retried = Charge(1)
    retried.settle(Usage(), attempts=3)
    assert starts(budget(clock, rpm=60), clock, [retried, Charge(1)]) == [0.0, 3.0]


def test_calls_waiting_together_start_in_the_order_they_came_on_the_real_clock() -> None:
    b = Budget(RateLimit("openai/m", rpm=600))  # 0.1 s apart
    started: list[tuple[int, float]] = []

    async def one(i: int) -> None:
        await b.acquire(Charge(1))
        started.append((i, time.monotonic()))
        b.release(Charge(1))

    async def go() -> None:
        await asyncio.gather(*(one(i) for i in range(4)))

    asyncio.run(go())
    assert [i for i, _ in started] == [0, 1, 2, 3]
    # Each call's slot is 0.1 s after the one before: the i-th starts no sooner than i slots after the first.
    # (Two starts can be closer than a slot when the earlier one was itself late: a busy machine delays a
    # wake-up, and the next slot does not move for it, so the rate over any window stays the limit.)
    since_first = [t - started[0][1] for _, t in started]
    assert all(s >= 0.1 * i - 0.005 for i, s in enumerate(since_first)), since_first


def test_concurrency_holds_calls_beyond_the_limit_and_says_why() -> None:
    b = Budget(RateLimit("http://127.0.0.1:8000/v1", concurrency=2))
    told: list[str] = []
    in_flight, most = 0, 0

    async def one() -> None:
        nonlocal in_flight, most
        charge = Charge(1)
        await b.acquire(charge, told.append)
        in_flight += 1
        most = max(most, in_flight)
        await asyncio.sleep(0.01)
        in_flight -= 1
        b.release(charge)

    async def go() -> None:
        await asyncio.gather(*(one() for _ in range(6)))

    asyncio.run(go())
    assert most == 2
    assert told and set(told) == {"waiting on concurrency limit of http://127.0.0.1:8000/v1"}


def test_two_contenders_of_one_model_share_its_budget_and_an_endpoint_key_adds_its_own() -> None:
    limits = Limits(
        {
            "openai/m": RateLimit("openai/m", rpm=10),
            "http://127.0.0.1:8000/v1/": RateLimit("http://127.0.0.1:8000/v1/", concurrency=3),
            "openai/other": RateLimit("openai/other", rpm=5),
        }
    )
    cold = Contender("openai/m · t=0", "openai/m", {"temperature": 0})
    hot = Contender("openai/m · t=0.7", "openai/m", {"temperature": 0.7}, api_base="http://127.0.0.1:8000/v1")
    assert [b.limit.key for b in limits.of(hot)] == ["http://127.0.0.1:8000/v1/", "openai/m"]
    assert limits.of(cold) == (limits.of(hot)[1],)  # the same object: one budget for both
    assert limits.of(Contender("fake/oracle", "fake/oracle")) == ()


def test_estimated_tokens_follow_the_words_of_the_messages() -> None:
    messages = [{"role": "system", "content": "one two three four"}, {"role": "user", "content": "five six"}]
    assert estimate_tokens(messages) == int(6 * 1.35) + 12


@dataclass
class Done:
    usage: Usage = field(default_factory=lambda: Usage(input_tokens=5, output_tokens=5))
    attempts: int = 1


def test_a_gate_counts_the_calls_that_wait_and_clears_when_none_does() -> None:
    clock = FakeClock()
    told: list[tuple[str | None, int]] = []
    gate = Gate((budget(clock, rpm=60),), lambda reason, calls: told.append((reason, calls)))

    async def call() -> Done:
        return Done()

    async def go() -> list[Done]:
        messages = [{"role": "user", "content": "hi"}]
        return await asyncio.gather(*(gate.call(call(), messages) for _ in range(3)))

    assert len(asyncio.run(go())) == 3
    assert ("waiting on rpm limit of openai/m", 2) in told
    assert told[-1] == (None, 0) and gate.waiting == 0


def test_a_call_cancelled_while_it_waits_is_closed_unstarted() -> None:
    clock = FakeClock()
    b = Budget(RateLimit("openai/m", concurrency=1), clock, clock.sleep)
    gate = Gate((b,), lambda reason, calls: None)
    started: list[str] = []

    async def call(name: str) -> Done:
        started.append(name)
        await asyncio.sleep(0.05)
        return Done()

    async def go() -> None:
        messages = [{"role": "user", "content": "hi"}]
        first = asyncio.create_task(gate.call(call("first"), messages))
        await asyncio.sleep(0)
        second = asyncio.create_task(gate.call(call("second"), messages))
        await asyncio.sleep(0.01)
        second.cancel()
        await first
        with pytest.raises(asyncio.CancelledError):
            await second

    asyncio.run(go())  # an unclosed coroutine would warn "never awaited", an error under pytest's settings
    assert started == ["first"] and gate.waiting == 0


def test_the_calls_after_the_first_wait_for_it_so_the_rpm_holds_from_its_request() -> None:
    clock = FakeClock()
    b = budget(clock, rpm=120)
    started: list[float] = []

    async def first() -> None:
        charge = Charge(1)
        await b.acquire(charge)
        await clock.sleep(0.3)  # its request leaves late (a client's first-call set-up), its reply comes at 0.3
        b.release(charge)

    async def second() -> None:
        await asyncio.sleep(0)
        charge = Charge(1)
        await b.acquire(charge)
        started.append(clock.now)
        b.release(charge)

    async def go() -> None:
        await asyncio.gather(first(), second())

    asyncio.run(go())
    assert started == [0.8]  # one slot after the first call's reply, not 0.5 after it was let go


class OtherWorkers:
    """Shared rate clocks on which other workers always hold the next ``taken`` seconds; records what it is
    asked."""

    def __init__(self, taken: float):
        self.taken = taken
        self.reserved: list[dict[str, float]] = []
        self.pushed: list[dict[str, float]] = []

    async def wait_s(self, seconds: Mapping[str, float]) -> float:
        self.reserved.append(dict(seconds))
        return self.taken

    async def push_clocks(self, seconds: Mapping[str, float]) -> None:
        self.pushed.append(dict(seconds))


def test_an_rpm_start_shared_with_other_workers_waits_for_the_slot_they_leave() -> None:
    clock, shared = FakeClock(), OtherWorkers(taken=3.0)
    b = Budget(RateLimit("openai/m", rpm=60), clock, clock.sleep, shared)
    assert starts(b, clock, [Charge(1), Charge(1)]) == [3.0, 6.0]  # the later of its own spacing and the shared slot
    assert shared.reserved == [{"rpm openai/m": 1.0}, {"rpm openai/m": 1.0}]


def test_a_shared_start_reserves_the_calls_estimated_tokens_on_the_tpm_clock_with_its_rpm_slot() -> None:
    clock, shared = FakeClock(), OtherWorkers(taken=0.0)
    b = Budget(RateLimit("openai/m", rpm=60, tpm=600), clock, clock.sleep, shared)
    starts(b, clock, [Charge(50)])
    assert shared.reserved == [{"rpm openai/m": 1.0, "tpm openai/m": 5.0}]  # 50 tokens at 600 a minute


def test_what_a_shared_call_used_beyond_its_estimate_and_its_retries_push_the_shared_clocks() -> None:
    clock, shared = FakeClock(), OtherWorkers(taken=0.0)
    b = Budget(RateLimit("openai/m", rpm=60, tpm=600), clock, clock.sleep, shared)
    charge = Charge(50)

    async def go() -> None:
        async with limited((b,), charge):
            charge.settle(Usage(input_tokens=60, output_tokens=30), attempts=2)

    asyncio.run(go())
    assert shared.pushed == [{"tpm openai/m": 4.0, "rpm openai/m": 1.0}]  # 40 tokens more, one retry


def test_a_shared_call_that_used_its_estimate_in_one_attempt_pushes_nothing() -> None:
    clock, shared = FakeClock(), OtherWorkers(taken=0.0)
    b = Budget(RateLimit("openai/m", tpm=600), clock, clock.sleep, shared)
    charge = Charge(50)

    async def go() -> None:
        async with limited((b,), charge):
            charge.settle(Usage(input_tokens=40, output_tokens=10), attempts=1)

    asyncio.run(go())
    assert shared.pushed == []
