"""The calls scorers make (LLM judges), held to what the run holds a contender's calls to.

A judge's call goes through the same objects as a contender's (:class:`JudgeCalls` is the runner's
:class:`~evalcore.scoring.client.ModelGuard`):

- the **circuit breaker** of the judge's endpoint (its API base URL, else its provider): a judge that cannot be
  reached opens it as a contender would, and once it is open no judge call to it starts;
- the suite's **rate limits** (``limits:``) for the judge's model id and API base: the same budgets the
  contenders use, so a contender and a judge of one model share one limit; a judge call that waits shows on
  the progress line of the contender whose reply it judges;
- the run's **budget cap**: before it starts, a call reserves its estimated cost (input tokens from the rendered
  judge prompt, output tokens from the mean of the judge's replies so far in the run, else from its expected
  reply size), replaced by its actual cost when it ends; a call that would pass the cap does not start;
- the suite's **prices** (``prices:``) for the judge's model, which beat litellm's price map as they do for a
  contender.

A judge call that was not let start raises :class:`~evalcore.scoring.client.NotCalled`; the judge then leaves the
reply stored but not judged, and a resume judges it (see :mod:`evalcore.execution.runner`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from evalcore.core.errors import CallFailed, ConfigError
from evalcore.core.records import Contender, Result, Usage
from evalcore.execution.estimate import prices_of
from evalcore.execution.pairwise import pairwise_judge
from evalcore.execution.reply_cache import MARK as CACHE_MARK
from evalcore.models.breaker import Breakers
from evalcore.models.limits import Gate, Limits, estimate_tokens
from evalcore.models.metering import Budget, Meter, Ticket, metered, prepaid
from evalcore.models.registry import provider_for
from evalcore.models.types import Provider, Reply, Request
from evalcore.scoring.client import UNJUDGED_PREFIX, JudgeModel, NotCalled
from evalcore.scoring.plugins import build_scorer
from evalcore.suite.loader import Suite

if TYPE_CHECKING:
    from evalcore.storage.store import Store

Key = tuple[str, str, str, int]


#: Replies of a judge model in the run after which their mean output tokens replace its expected reply size.
MIN_SEEN = 3
#: What the judge prompt adds around the question and the answer (instructions, rubric, format), in tokens, for
#: the reservation made before the contender's reply exists.
PROMPT_OVERHEAD_TOKENS = 250

Tell = Callable[[str | None, int], None]


def judge_models(suite: Suite) -> list[JudgeModel]:
    """The judge models the suite asks: its scorers' about every result, and its ``pairwise:`` judge's (two calls
    per comparison, one per order); none when it asks none."""
    scorer = build_scorer(suite.scorer_refs, suite.path)
    found = list(getattr(scorer, "judge_models", []))
    pair = pairwise_judge(suite)
    if pair is not None:
        found.append(JudgeModel(pair.model, pair.settings, pair.api_base, calls=2))
    return found


def check_judges_take_images(suite: Suite) -> None:
    """Refuse a suite whose cases carry images when one of its judges takes none: a judge is never shown the
    text of a case without its images.

    Raises:
        ConfigError: naming the judge's model and how to fix it.
    """
    for judge in judge_models(suite):
        contender = judge_contender(suite, judge)
        if not provider_for(contender).takes_images(judge.model):
            raise ConfigError(
                f"{suite.path / 'evalcore.yaml'}: judge {judge.model} does not take images, and the cases carry "
                "some. Give the judge a model that takes images (litellm.supports_vision; the fake judges do)."
            )


def open_judging(
    suite: Suite, scorer: Any, breakers: Breakers, limits: Limits, budget: Budget | None, tell: Callable[[str], Tell]
) -> JudgeCalls | None:
    """The guard of a run's judge calls (see :class:`JudgeCalls`), its scorers' and its ``pairwise:`` judge's;
    None when neither asks a model.

    Only the scorers' judges are listed: they judge each reply, so a contender's call reserves their expected
    cost with its own. The pairwise judge compares replies once every contender is done, and each of its calls
    reserves its own estimate then.
    """
    judges = list(getattr(scorer, "judge_models", [])) if getattr(scorer, "ascore", None) is not None else []
    if not judges and pairwise_judge(suite) is None:
        return None
    return JudgeCalls(suite, judges, breakers, limits, budget, tell)


def suite_prices(suite: Suite, model: str) -> dict[str, float] | None:
    """The suite's ``prices:`` entry for ``model`` (USD per token), or None."""
    priced = suite.config.prices.get(model)
    return priced.model_dump() if priced is not None else None


def judge_contender(suite: Suite, judge: JudgeModel) -> Contender:
    """The judge as the provider layer sees it, with the suite's prices for its model."""
    return judge.contender(suite_prices(suite, judge.model))


@dataclass
class _Asked:
    """A call's outcome for a rate limit's :class:`~evalcore.models.limits.Gate`: its usage and attempts, even
    when it failed (the failed attempts still count against ``rpm``)."""

    usage: Usage
    attempts: int
    reply: Reply | None = None
    failure: CallFailed | None = None


async def asked(call: Any) -> _Asked:
    """Await a provider call (a coroutine returning a :class:`Reply`), keeping its failure as a value."""
    try:
        reply = await call
    except CallFailed as exc:
        return _Asked(Usage(), exc.attempts, failure=exc)
    return _Asked(reply.usage, reply.attempts, reply=reply)


async def through(gate: Gate | None, call: Callable[[], Awaitable[Reply]], messages: list[dict[str, Any]]) -> Reply:
    """Make a call once the rate limits of ``gate`` (None: none) let it start, and charge them what it used.

    Args:
        gate: the caller's rate limits.
        call: makes the call when it may start.
        messages: what the call sends, for its estimated tokens.

    Raises:
        CallFailed: no usable reply (its attempts were charged to the limits all the same).
    """

    async def ask() -> _Asked:
        return await asked(call())

    outcome = await (ask() if gate is None else gate.call(ask(), messages))
    if outcome.failure is not None:
        raise outcome.failure
    assert outcome.reply is not None  # asked() gives a reply or a failure
    return outcome.reply


def unjudged_keys(store: Store, run_id: str) -> set[Key]:
    """The keys of a run's stored results whose reply was kept but not judged (:data:`UNJUDGED_PREFIX`)."""
    return {k for k, m in store.error_messages(run_id).items() if (m or "").startswith(UNJUDGED_PREFIX)}


def stored_unjudged(store: Store, run_id: str) -> dict[Key, Result]:
    """The stored results of a run whose reply was kept but not judged (:data:`UNJUDGED_PREFIX`), by key: a
    resume judges their replies again instead of asking the contenders again."""
    keys = unjudged_keys(store, run_id)
    if not keys:
        return {}
    contenders = sorted({k[0] for k in keys})
    found: dict[Key, Result] = {}
    for contender in contenders:
        for r in store.load_run(run_id, contender=contender).results:
            key = (r.contender, r.dataset, r.case, r.sample)
            if key in keys and r.raw is not None:
                found[key] = r
    return found


def stored_reply(result: Result) -> Reply:
    """A stored result's reply, as the contender's call returned it (its usage, latency and attempts, and its mark
    when the reply cache gave it, so the result that replaces it keeps the mark)."""
    mark = result.diagnostics.get(CACHE_MARK)
    cached_at, cached_usd = (
        (mark.get("created_at"), mark.get("cost_usd") or 0.0) if isinstance(mark, dict) else (None, 0.0)
    )
    reply = Reply(result.raw or "", result.usage, result.latency_s or 0.0, result.attempts, None, cached_at, cached_usd)
    # An agent's steps: its adapter read them from the calls it made, and the reply's text does not hold them.
    return dataclasses.replace(reply, trace=result.trace)


class JudgeCalls:
    """The run's guard around judge calls: one per run, made in its event loop.

    Args:
        suite: the suite (its ``prices:``).
        judges: the judge models its scorers ask (:func:`judge_models`).
        breakers: the run's circuit breakers (the contenders').
        limits: the run's rate limits (the contenders').
        budget: the run's budget cap, or None.
        tell: the progress of a contender's judge calls waiting on a rate limit, by contender id: called with
            (why the latest waits, calls waiting), (None, 0) once none waits.
    """

    def __init__(
        self,
        suite: Suite,
        judges: list[JudgeModel],
        breakers: Breakers,
        limits: Limits,
        budget: Budget | None,
        tell: Callable[[str], Tell],
    ):
        self.judges = judges
        self.breakers, self.limits, self.budget = breakers, limits, budget
        self._suite, self._tell = suite, tell
        self._contenders: dict[tuple[str, str | None], Contender] = {}
        self._gates: dict[tuple[str, str], Gate] = {}
        #: Per judge model: (output tokens seen, replies seen).
        self._seen: dict[str, tuple[int, int]] = {}
        self._prices: dict[str, tuple[float, float] | None] = {}
        #: Reserved for judge calls per judged result so far: (USD, results).
        self._per_result = (0.0, 0)

    def blocked(self) -> str | None:
        """Why no judge can be asked any more (an open breaker of a judge's endpoint), else None."""
        for judge in self.judges:
            breaker = self.breakers.of(judge.contender())
            if breaker.is_open:
                return breaker.message
        return None

    def expected_usd(self, messages: list[dict[str, Any]]) -> float:
        """What judging one reply is expected to cost, reserved with the contender's call (its reply unknown yet):
        the mean of what judging cost so far in the run, else the judge prompt guessed as the contender's
        question twice (the question, then an answer as long) plus the instructions."""
        usd, results = self._per_result
        if results:
            return usd / results
        prompt = 2 * estimate_tokens(messages) + PROMPT_OVERHEAD_TOKENS
        return sum(j.calls * self._cost(self._contender(j.model, j.api_base), prompt, j) for j in self.judges)

    def session(self, caller: Contender, prepaid: float) -> JudgeSession:
        """The guard of the judge calls about one reply of ``caller``, holding ``prepaid`` reserved for them."""
        return JudgeSession(self, caller, prepaid)

    def _contender(self, model: str, api_base: str | None) -> Contender:
        key = (model, api_base)
        found = self._contenders.get(key)
        if found is None:
            judge = next((j for j in self.judges if j.model == model), JudgeModel(model, api_base=api_base))
            found = self._contenders[key] = judge_contender(self._suite, dataclasses.replace(judge, api_base=api_base))
        return found

    def _cost(self, contender: Contender, prompt_tokens: int, judge: JudgeModel | None) -> float:
        if contender.model not in self._prices:  # litellm's price map is looked up once per model and run
            self._prices[contender.model] = prices_of(contender)
        prices = self._prices[contender.model]
        if prices is None:  # refused before a capped run starts; without a cap nothing is reserved
            return 0.0
        tokens, seen = self._seen.get(contender.model, (0, 0))
        reply = tokens / seen if seen >= MIN_SEEN else (judge.reply_tokens if judge is not None else 100)
        return prompt_tokens * prices[0] + reply * prices[1]

    def _gate(self, caller: Contender, judge: Contender) -> Gate | None:
        budgets = self.limits.of(judge)
        if not budgets:
            return None
        key = (caller.id, judge.id)
        if key not in self._gates:
            self._gates[key] = Gate(budgets, self._tell(caller.id))
        return self._gates[key]

    async def _complete(self, session: JudgeSession, request: Request, provider: Provider) -> Reply:
        contender = self._contender(request.contender.model, request.contender.api_base)
        if request.contender.prices is None:
            request = dataclasses.replace(
                request, contender=dataclasses.replace(request.contender, prices=contender.prices)
            )
        breaker = self.breakers.of(contender)
        if breaker.is_open:
            raise NotCalled(breaker.message)
        request = dataclasses.replace(request, breaker=breaker)
        judge = next((j for j in self.judges if j.model == contender.model), None)
        estimate = self._cost(contender, estimate_tokens(request.messages), judge)
        budget = self.budget
        if budget is not None:
            held = session.prepaid
            session.give_back()
            if not budget.reserve_usd(estimate, held):
                raise NotCalled(f"the budget cap was reached (spent ${budget.spent_usd:.6f} of ${budget.cap_usd:g})")
            session.reserved += estimate
        gate = self._gate(session.caller, contender)
        # The meter settles the call's cost against what was reserved here (or gives it back when the run is
        # stopped first): the run's current one, else (this guard used outside a run) one of this budget's own.
        metered_provider = metered(metered(provider), Meter(budget, prices_of)) if budget is not None else provider
        ticket = Ticket(estimate) if budget is not None else None

        async def ask() -> _Asked:  # the call is made only once the limits let it start
            with prepaid(ticket):
                return await asked(metered_provider.complete(request))

        try:
            outcome = await (ask() if gate is None else gate.call(ask(), request.messages))
        finally:
            if budget is not None and ticket is not None and ticket.reserved:
                budget.release(ticket.reserved)  # stopped before the call started: nothing was spent
        if outcome.reply is not None and outcome.reply.usage.output_tokens is not None:
            tokens, seen = self._seen.get(contender.model, (0, 0))
            self._seen[contender.model] = (tokens + outcome.reply.usage.output_tokens, seen + 1)
        if outcome.failure is not None:
            raise outcome.failure
        assert outcome.reply is not None
        return outcome.reply

    def _judged(self, reserved: float) -> None:
        usd, results = self._per_result
        self._per_result = (usd + reserved, results + 1)


class JudgeSession:
    """The guard of the judge calls about one reply (a :class:`~evalcore.scoring.client.ModelGuard`)."""

    def __init__(self, calls: JudgeCalls, caller: Contender, prepaid: float):
        self.caller = caller
        #: What the contender's call reserved for judging its reply, until the first judge call replaces it.
        self.prepaid = prepaid
        #: What this reply's judge calls reserved, for the next replies' reservations.
        self.reserved = 0.0
        self._calls = calls

    async def complete(self, request: Request, provider: Provider, caller: Contender) -> Reply:
        """Make a judge call through the run's breaker, limits and budget (see the module docstring)."""
        return await self._calls._complete(self, request, provider)

    def give_back(self) -> None:
        """Release what the contender's call reserved for judging: the judge calls reserve their own."""
        if self.prepaid and self._calls.budget is not None:
            self._calls.budget.release(self.prepaid)
        self.prepaid = 0.0

    def close(self) -> None:
        """The reply is judged (or will not be): release what is left, and learn what judging a reply costs."""
        judged = self.reserved > 0
        self.give_back()
        if judged:
            self._calls._judged(self.reserved)
