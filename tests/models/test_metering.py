"""The meter every model call of a capped run passes: whoever asks a model inside the run reserves before the
call and settles its cost after; a call the cap refuses is never made."""

from __future__ import annotations

import asyncio

import pytest

from evalcore.core.records import Case, Contender, Usage
from evalcore.models import registry
from evalcore.models.fakes import FakeProvider
from evalcore.models.metering import Meter, MeteredProvider, OverBudget, Ticket, metering, prepaid
from evalcore.models.registry import get_provider, register_provider
from evalcore.models.types import Reply, Request


class Budget:
    def __init__(self, cap: float):
        self.cap_usd, self.spent_usd, self.reserved_usd = cap, 0.0, 0.0

    def reserve_usd(self, amount: float) -> bool:
        if self.spent_usd + self.reserved_usd + amount > self.cap_usd:
            return False
        self.reserved_usd += amount
        return True

    def release(self, amount: float) -> None:
        self.reserved_usd -= amount

    def settle_usd(self, reserved: float, cost: float) -> None:
        self.reserved_usd -= reserved
        self.spent_usd += cost


class Counting:
    """A provider that counts its calls, each costing ``cost``."""

    def __init__(self, cost: float):
        self.cost, self.calls = cost, 0

    def refusal(self, model, settings):
        return None

    def missing_keys(self, model, api_base):
        return []

    def takes_images(self, model):
        return False

    async def complete(self, request: Request) -> Reply:
        self.calls += 1
        return Reply("ok", Usage(10, 10, self.cost))


def request(model: str = "sim/user") -> Request:
    return Request(
        Contender(model, model), [{"role": "user", "content": "hello there"}], case=Case("d", "c", "c", "x", None)
    )


@pytest.fixture
def simulator(monkeypatch: pytest.MonkeyPatch) -> Counting:
    """A model no lineup names (a user simulator an adapter asks), registered for the test only."""
    provider = Counting(0.4)
    monkeypatch.setattr(registry, "_PROVIDERS", {})
    register_provider("sim/", provider)
    return provider


def priced(_: Contender) -> tuple[float, float]:
    return (0.01, 0.0)


def test_outside_a_capped_run_a_provider_is_handed_out_as_it_is():
    assert isinstance(get_provider("fake/oracle"), FakeProvider)


def test_a_model_any_caller_asks_inside_a_capped_run_is_metered(simulator: Counting):
    budget = Budget(1.0)

    async def ask() -> None:
        with metering(Meter(budget, priced)):
            provider = get_provider("sim/user")
            assert isinstance(provider, MeteredProvider)
            for _ in range(2):
                await provider.complete(request())

    asyncio.run(ask())
    assert simulator.calls == 2 and budget.spent_usd == pytest.approx(0.8) and budget.reserved_usd == 0


def test_a_call_the_cap_refuses_is_not_made(simulator: Counting):
    budget = Budget(0.5)
    budget.spent_usd = 0.45  # what is left holds no call's estimate

    async def ask() -> None:
        with metering(Meter(budget, priced)):
            await get_provider("sim/user").complete(request())

    with pytest.raises(OverBudget, match="budget cap was reached"):
        asyncio.run(ask())
    assert simulator.calls == 0 and budget.spent_usd == 0.45 and budget.reserved_usd == 0


def test_a_call_draws_on_its_callers_reservation_and_the_next_reserves_its_own(simulator: Counting):
    budget = Budget(1.0)
    budget.reserved_usd = 0.3  # the caller's reservation for its first call
    ticket = Ticket(0.3)

    async def ask() -> None:
        with metering(Meter(budget, priced)), prepaid(ticket):
            provider = get_provider("sim/user")
            await provider.complete(request())
            assert budget.reserved_usd == 0  # the ticket's reservation was replaced by the cost
            await provider.complete(request())

    asyncio.run(ask())
    assert ticket.reserved == 0 and ticket.spent == pytest.approx(0.8) and budget.spent_usd == pytest.approx(0.8)


def test_a_call_of_a_model_with_no_known_price_is_not_made_under_a_cap(simulator: Counting):
    budget = Budget(1.0)

    async def ask() -> None:
        with metering(Meter(budget, lambda _: None)):
            await get_provider("sim/user").complete(request())

    with pytest.raises(OverBudget, match=r"no price is known for sim/user.*prices:"):
        asyncio.run(ask())
    assert simulator.calls == 0 and budget.spent_usd == 0 and budget.reserved_usd == 0
