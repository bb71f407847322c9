"""The one gate every model call of a capped run passes: a reservation before the call, its cost after.

Under a budget cap (``evalcore run --max-cost``) the runner makes a :class:`Meter` of the run's budget and
makes it current (:func:`metering`) for the run's event loop. While it is current, every provider the registry
hands out (:func:`evalcore.models.registry.get_provider`, :func:`~evalcore.models.registry.provider_for`) is a
:class:`MeteredProvider`: a contender's calls, each step of an agent's loop, a judge's or a pairwise judge's
calls, a user simulator an adapter asks, whatever kind of call comes next. The reservation lives where the
provider is called, so no caller can forget it.

Each call holds a reservation while it runs: the one its caller made for it beforehand (a :class:`Ticket`,
:func:`prepaid`: the runner's per-case estimate for a case's first call, a judge's estimate), else its own
estimate (:meth:`Meter.estimate`, from its messages, tools and the model's prices). A call whose reservation
would pass the cap is not made: :class:`OverBudget` is raised and every later reservation is refused. Nor is a
call that reserves its own estimate for a model with no known price (its own, the suite's ``prices:``, litellm's).
When the call ends its reservation is replaced by its cost: the reply's, else the estimate; a failed call as
unbilled, a reply from the reply cache (:mod:`evalcore.models.cache`) as free.
The cap can thus be passed by at most what the calls in flight cost beyond their estimates.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Protocol

from evalcore.core.errors import CallFailed
from evalcore.core.records import Contender
from evalcore.models.limits import estimate_tokens
from evalcore.models.types import Provider, Reply, Request, WrappedProvider

#: How the stored error message of a case the cap stopped midway begins (an agent's loop refused a later step):
#: what its calls cost is stored with it, and a resume calls the case again.
UNFINISHED_PREFIX = "not finished: "
#: Output tokens expected of a reply before a model's first reply in the run is seen.
DEFAULT_REPLY_TOKENS = 100
#: Calls of a model whose reported input tokens replace the word-count estimate's scale.
MIN_SEEN = 3
#: Characters of a tool's JSON schema per token, for the input it adds to a call.
CHARS_PER_TOKEN = 4

Prices = Callable[[Contender], "tuple[float, float] | None"]


class Budget(Protocol):
    """What the meter needs of the run's budget (:class:`evalcore.execution.budget.Budget`)."""

    cap_usd: float
    spent_usd: float

    def reserve_usd(self, amount: float, held: float = 0.0) -> bool: ...  # held: see execution.budget.Budget

    def release(self, amount: float) -> None: ...

    def settle_usd(self, reserved: float, cost: float) -> None: ...


class OverBudget(CallFailed):
    """A call the budget cap did not let start; no attempt was made."""

    def __init__(self, message: str):
        super().__init__("other", message, attempts=0, latency_s=0.0)


@dataclass
class Ticket:
    """What a caller reserved for the calls it is about to make (:func:`prepaid`), and what they cost.

    Attributes:
        reserved: USD reserved and not used yet; the next metered call takes all of it.
        spent: USD the calls made under the ticket cost (as settled).
        attempts: the attempts of the calls made under the ticket (retries included), failed ones too.
    """

    reserved: float = 0.0
    spent: float = 0.0
    attempts: int = 0


_METER: ContextVar[Meter | None] = ContextVar("evalcore_meter", default=None)
_TICKET: ContextVar[Ticket | None] = ContextVar("evalcore_ticket", default=None)


@contextmanager
def metering(meter: Meter | None) -> Iterator[None]:
    """Make ``meter`` (None: none) the current one, for the providers handed out and the tasks started inside."""
    token = _METER.set(meter)
    try:
        yield
    finally:
        _METER.reset(token)


@contextmanager
def prepaid(ticket: Ticket | None) -> Iterator[Ticket | None]:
    """Make the calls inside draw on ``ticket`` (None: each reserves its own estimate)."""
    token = _TICKET.set(ticket)
    try:
        yield ticket
    finally:
        _TICKET.reset(token)


def current_ticket() -> Ticket | None:
    """The ticket the current calls draw on, or None."""
    return _TICKET.get()


def metered(provider: Provider, meter: Meter | None = None) -> Provider:
    """``provider`` behind ``meter`` (by default the current one); itself when there is none or it is metered."""
    meter = meter if meter is not None else _METER.get()
    if meter is None or isinstance(provider, MeteredProvider):
        return provider
    return MeteredProvider(provider, meter)


class Meter:
    """Reserves and settles every call of a run against its budget (see the module)."""

    def __init__(self, budget: Budget, prices: Prices):
        """Args:
        budget: the run's budget.
        prices: a model's (input, output) USD per token, or None when unknown: a call that reserves its own
            estimate is then not made (:class:`OverBudget`), since nothing reserved could stop it before the cap
            (a capped run refuses such a contender or judge before it starts).
        """
        self.budget, self._prices_of = budget, prices
        self._prices: dict[str, tuple[float, float] | None] = {}
        #: Per model: (output tokens seen, replies seen), for the expected size of the next reply.
        self._replies: dict[str, tuple[int, int]] = {}
        #: Per model: (input tokens reported, input tokens estimated, calls), to correct the word-count estimate.
        self._inputs: dict[str, tuple[int, int, int]] = {}

    def estimate(self, request: Request) -> float:
        """A call's expected cost: its messages and tools as input tokens (scaled, after :data:`MIN_SEEN` calls
        of the model, by what it reported against what was estimated), the mean reply seen of the model as output
        tokens."""
        prices = self._price(request.contender)
        if prices is None:
            return 0.0
        model = request.contender.model
        reported, estimated, calls = self._inputs.get(model, (0, 0, 0))
        tokens: float = self._input_tokens(request)
        if calls >= MIN_SEEN and estimated:  # the model's own token counts, once a few calls tell them
            tokens = tokens * reported / estimated
        out, seen = self._replies.get(model, (0, 0))
        reply = out / seen if seen else DEFAULT_REPLY_TOKENS
        return tokens * prices[0] + reply * prices[1]

    async def complete(self, provider: Provider, request: Request) -> Reply:
        """Make the call on its ticket's reservation, or its own; settle its cost when it ends.

        Raises:
            OverBudget: the reservation would pass the cap; the call was not made.
            CallFailed: the provider's.
        """
        ticket, budget = _TICKET.get(), self.budget
        model = request.contender.model
        # Nothing reserved for it could stop it before the cap (a contender's or judge's was refused before the run).
        if self._price(request.contender) is None:
            raise OverBudget(
                f"no price is known for {model}, so the budget cap (${budget.cap_usd:g}) cannot bound its calls; "
                f"it was not called. Give its price in the suite, e.g. prices: {{{model}: "
                "{input_cost_per_token: 1.0e-06, output_cost_per_token: 2.0e-06}}"
            )
        if ticket is not None and ticket.reserved > 0:
            held, ticket.reserved = ticket.reserved, 0.0
        else:
            held = self.estimate(request)
            if not budget.reserve_usd(held):
                raise OverBudget(
                    f"the budget cap was reached (spent ${budget.spent_usd:.6f} of ${budget.cap_usd:g}); "
                    f"{request.contender.model} was not called"
                )
        try:
            reply = await provider.complete(request)
        except CallFailed as failed:
            budget.settle_usd(held, 0.0)  # a failed call is taken as unbilled
            if ticket is not None:
                ticket.attempts += failed.attempts
            raise
        except BaseException:  # cancelled (the run was stopped) before it ended: nothing known was spent
            budget.release(held)
            raise
        if reply.cached_at is not None:  # the reply cache answered: nothing was paid
            budget.settle_usd(held, 0.0)
            return reply
        cost = reply.usage.cost_usd if reply.usage.cost_usd is not None else held
        budget.settle_usd(held, cost)
        if ticket is not None:
            ticket.spent += cost
            ticket.attempts += reply.attempts
        self._learn(request, reply)
        return reply

    def _price(self, contender: Contender) -> tuple[float, float] | None:
        if contender.model not in self._prices:  # litellm's price map is looked up once per model and run
            self._prices[contender.model] = self._prices_of(contender)
        return self._prices[contender.model]

    def _learn(self, request: Request, reply: Reply) -> None:
        model, usage = request.contender.model, reply.usage
        if usage.output_tokens is not None:
            out, seen = self._replies.get(model, (0, 0))
            self._replies[model] = (out + usage.output_tokens, seen + 1)
        if usage.input_tokens is not None:
            reported, estimated, calls = self._inputs.get(model, (0, 0, 0))
            self._inputs[model] = (reported + usage.input_tokens, estimated + self._input_tokens(request), calls + 1)

    @staticmethod
    def _input_tokens(request: Request) -> int:
        tokens = estimate_tokens(request.messages)
        tools = request.params.get("tools")
        if tools:
            tokens += len(json.dumps(tools, default=str)) // CHARS_PER_TOKEN  # a schema is mostly punctuation
        return tokens


class MeteredProvider(WrappedProvider):
    """A provider whose calls go through a :class:`Meter`; everything else is the provider's own."""

    def __init__(self, inner: Provider, meter: Meter):
        super().__init__(inner)
        self.meter = meter

    async def complete(self, request: Request) -> Reply:
        """The call, through the meter."""
        return await self.meter.complete(self.inner, request)
