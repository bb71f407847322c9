"""A run's budget cap (``evalcore run --max-cost``, ``run: {max_cost_usd: …}``): stop calling before it is passed.

The cap is for the run as a whole: a resumed run starts from what its stored results cost. Before each call
the runner reserves the call's estimated cost (the contender's mean per call, from
:func:`~evalcore.execution.estimate.estimate_plan_cost`); what counts against the cap is the actual cost of
the calls that finished, their judges' calls included, plus the reservations of the calls in flight. When
the next call's reservation would pass the cap, :meth:`Budget.reserve` refuses it and every later one: the
calls in flight finish, the rest stay unrun (never stored, so ``evalcore run --resume`` calls them), and the
run ends ``interrupted`` with ``stopped_by: budget``. The cap can be passed by at most what the calls in flight
cost beyond their estimates.

A judged run's contender call also reserves what judging its reply is expected to cost; each judge call then
swaps that for its own estimate (:meth:`Budget.reserve_usd`, made by :mod:`evalcore.execution.judge_calls`) and
its actual cost when it ends (:meth:`Budget.settle_usd`). A judge call the cap refuses leaves the reply stored
but not judged, which a resume judges without asking the contender again.

Every model call is metered where its provider is called (:mod:`evalcore.models.metering`): a case's first
call draws on the case's reservation (:class:`~evalcore.models.metering.Ticket`), each later call (an agent's
next step, a model an adapter asks itself) reserves its own estimate, and one the cap refuses ends its case
unfinished (:func:`evalcore.execution.outcomes.unfinished_result`), which a resume calls again.

Under a cap, a contender or judge model whose price is unknown is refused before the run starts
(:func:`check_budget`).
"""

from __future__ import annotations

import dataclasses
import logging
import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING

from evalcore.core.errors import ConfigError, StoreError
from evalcore.core.records import Contender, Result, Run
from evalcore.execution.estimate import estimate_plan_cost, prices_of
from evalcore.execution.judge_calls import judge_contender, judge_models, suite_prices
from evalcore.execution.plan import Plan
from evalcore.execution.reply_cache import saved_usd
from evalcore.scoring.judge import judge_records
from evalcore.storage.spend import CAP_SETTING, record_cap, stored_spend

if TYPE_CHECKING:
    from evalcore.models.metering import Ticket
    from evalcore.storage.claims import Claims
    from evalcore.storage.store import Store

log = logging.getLogger(__name__)


class Budget:
    """What a capped run has spent and holds in reserve, read and changed by the run's event loop only.

    Attributes:
        cap_usd: the cap.
        spent_usd: the actual cost of the finished calls (a resumed run's stored ones included).
        reserved_usd: the estimated cost of the calls in flight.
        exhausted: a call was refused; no call starts any more.
    """

    def __init__(self, cap_usd: float, per_call: dict[str, float], spent_usd: float = 0.0, paid: bool = True):
        """
        Args:
            cap_usd: the cap in USD.
            per_call: each contender's estimated USD per call, by contender id.
            spent_usd: what the run had spent before (a resumed run's stored results).
            paid: the contenders' calls cost money; False under a replay, where only judges are paid.
        """
        self.cap_usd, self.per_call, self.spent_usd, self.paid = cap_usd, per_call, spent_usd, paid
        self.reserved_usd = 0.0
        self.exhausted = False

    def reserve(self, contender: str, extra_usd: float = 0.0, paid: bool = True) -> float | None:
        """Reserve the estimated cost of one call of ``contender``: the amount, or None when the call would
        pass the cap (then this and every later call is refused).

        Args:
            contender: the contender id.
            extra_usd: reserved with it: what judging its reply is expected to cost.
            paid: False when the call costs nothing this time (a stored reply reused), only its extra.
        """
        estimate = self.per_call.get(contender, 0.0) if self.paid and paid else 0.0
        return estimate + extra_usd if self.reserve_usd(estimate + extra_usd) else None

    def reserve_usd(self, amount: float, held: float = 0.0) -> bool:
        """Reserve ``amount`` USD for a call about to start; False (and every later call refused) when it would
        pass the cap.

        Args:
            amount: the call's estimated cost.
            held: what was reserved for this very call before and given back just now (a reply's judging,
                reserved with its contender's call): such a call starts, even once later calls are refused, when
                it fits under the cap, since the cap made room for it before it refused the later ones.
        """
        if self.exhausted and not held:
            return False
        if self.spent_usd + self.reserved_usd + amount > self.cap_usd:
            self.exhausted = True
            return False
        self.reserved_usd += amount
        return True

    def release(self, amount: float) -> None:
        """Give back a reservation that no call will use."""
        self.reserved_usd = max(0.0, self.reserved_usd - amount)

    def settle_usd(self, reserved: float, cost: float) -> None:
        """Replace a finished call's reservation by what it cost."""
        self.release(reserved)
        self.spent_usd += cost

    def settle_case(self, ticket: Ticket, result: Result, paid: bool = True) -> None:
        """Close a finished case's reservation: give back what its calls did not draw of ``ticket``, and count
        what the result cost beyond what its model calls settled as each ended (an adapter's HTTP calls, whose
        cost only its reply tells). Its judges' calls are counted as each ends, so not again here.

        Args:
            ticket: what :meth:`reserve` reserved for the contender's calls (its judges' part apart), and what
                the case's metered calls drew and cost.
            result: the result.
            paid: False when the reply was not asked for this time (a stored reply reused): it costs nothing. A
                reply from the reply cache costs nothing either (its calls that the cache answered).
        """
        paid = self.paid and paid
        # A cost the result does not know is the estimate its calls did not draw (they counted their own).
        own = result_cost(result, ticket.reserved, judges=False) - saved_usd(result) if paid else 0.0
        self.settle_usd(ticket.reserved, max(0.0, own - ticket.spent))


class SharedBudget(Budget):
    """A :class:`Budget` whose spend and reservations are counted in the database, shared by every worker of a
    run (``evalcore run --resume RUN --worker``): a reservation is checked against what all of them spent and
    hold (:meth:`~evalcore.storage.claims.Claims.reserve`), so four workers cannot each spend the whole cap.
    ``spent_usd`` is the run's spend as last read."""

    def __init__(self, claims: Claims, cap_usd: float, per_call: dict[str, float], paid: bool = True):
        super().__init__(cap_usd, per_call, claims.spent(), paid)
        self.claims = claims
        #: What finished calls cost that the database has not counted yet (it could not be reached).
        self.unsettled_usd = 0.0

    def reserve_usd(self, amount: float, held: float = 0.0) -> bool:
        """Reserve ``amount`` in the database; False (and every later call refused) when the run would pass
        the cap. A database that cannot be reached refuses the call too, without calling the cap reached: the
        worker ends on its store-lost path (:attr:`~evalcore.storage.claims.Claims.unreachable` says why). A call
        within what it ``held`` (see :meth:`Budget.reserve_usd`) is still checked against the other workers'."""
        if (self.exhausted and not held) or self.claims.unreachable is not None:
            return False
        try:
            fits = self.claims.reserve(self.reserved_usd, amount, self.cap_usd)
        except (StoreError, sqlite3.Error) as exc:
            self._lost(exc)
            return False
        if not fits:
            self.exhausted = True
            return False
        self.reserved_usd += amount
        return True

    def release(self, amount: float) -> None:
        """Give back a reservation that no call will use."""
        self.settle_usd(amount, 0.0)

    def settle_usd(self, reserved: float, cost: float) -> None:
        """Replace a finished call's reservation by what it cost, in the run's shared spend; a database that
        cannot be reached counts it here, for the next settlement that reaches it (a resume counts the results
        kept in a file from the stored results: :meth:`~evalcore.storage.claims.Claims.seed`)."""
        self.reserved_usd = max(0.0, self.reserved_usd - reserved)
        self.unsettled_usd += cost
        try:
            self.spent_usd = self.claims.settle(self.reserved_usd, self.unsettled_usd)
        except (StoreError, sqlite3.Error) as exc:
            self.spent_usd += cost
            self._lost(exc)
            return
        self.unsettled_usd = 0.0

    def _lost(self, exc: BaseException) -> None:
        if self.claims.unreachable is None:
            self.claims.unreachable = str(exc)
            log.warning("run %s: this worker cannot count its spend: %s", self.claims.run_id, exc)


def result_cost(result: Result, estimate: float, paid: bool = True, judges: bool = True) -> float:
    """What a result cost: its calls' cost (``estimate`` when a reply's cost is unknown; a failed call with no
    known cost is taken as unbilled) plus, with ``judges``, what its judges' calls cost."""
    own = result.usage.cost_usd if paid else 0.0
    if own is None:
        own = estimate if result.status == "scored" or result.raw is not None else 0.0
    if not judges:
        return own
    return own + sum(r.get("cost_usd") or 0.0 for r in judge_records(result.diagnostics))


def check_budget(plan: Plan) -> None:
    """Refuse a capped plan with a contender or judge model whose price is unknown: its spending could not be
    counted.

    Raises:
        ConfigError: one line naming the model and how to give its price in the suite.
    """
    if plan.max_cost_usd is None:
        return
    _check_judge_prices(plan, plan.max_cost_usd)  # a replay calls no contender, but its judges are paid
    if plan.replay is not None or not plan.contenders:
        return
    # Prices do not depend on the cases: one case keeps the check cheap on a plan of any size.
    one = dataclasses.replace(plan, cases=plan.cases[:1], samples=1)
    unknown = [e.contender for e in estimate_plan_cost(one).contenders if e.usd is None]
    if unknown:
        model = next(c.model for c in plan.contenders if c.id == unknown[0])
        raise ConfigError(
            f"{plan.suite.path / 'evalcore.yaml'}: no price is known for {model}, so the budget cap "
            f"({usd_text(plan.max_cost_usd)}) cannot count its calls; give it in the suite, e.g. prices: "
            f"{{{model}: {{input_cost_per_token: 1.0e-06, output_cost_per_token: 2.0e-06}}}}. No model was called."
        )


def _check_judge_prices(plan: Plan, cap_usd: float) -> None:
    for judge in judge_models(plan.suite):
        if prices_of(judge_contender(plan.suite, judge)) is None:
            model = judge.model
            raise ConfigError(
                f"{plan.suite.path / 'evalcore.yaml'}: no price is known for the judge model {model}, so the budget "
                f"cap ({usd_text(cap_usd)}) cannot count its calls; give it in the suite, e.g. prices: "
                f"{{{model}: {{input_cost_per_token: 1.0e-06, output_cost_per_token: 2.0e-06}}}}. No model was called."
            )


def meter_prices(plan: Plan) -> Callable[[Contender], tuple[float, float] | None]:
    """A model's prices for the run's meter: the caller's contender's, else the suite's ``prices:`` (a model an
    adapter asks itself is priced there), else a fake's or litellm's; None when none is known."""

    def prices(contender: Contender) -> tuple[float, float] | None:
        given = suite_prices(plan.suite, contender.model) if not contender.prices else None
        return prices_of(dataclasses.replace(contender, prices=given) if given else contender)

    return prices


def open_budget(plan: Plan, store: Store, run: Run, claims: Claims | None = None) -> Budget | None:
    """The budget of a capped plan (None without a cap): per-call estimates, and what the stored results of
    the run (a resumed one) cost. A cap that differs from the one the run's settings hold (a resume with
    ``--max-cost``) is stored there first, so the run file shows the cap in force. With ``claims`` (a worker of
    a shared run) the spend is the run's, counted in the database (:class:`SharedBudget`)."""
    if plan.max_cost_usd != run.info.settings.get(CAP_SETTING):
        record_cap(store, run.info.id, plan.max_cost_usd)
    if plan.max_cost_usd is None:
        return None
    calls = len(plan.cases) * plan.samples
    estimate = estimate_plan_cost(plan, store)
    per_call = {e.contender: (e.usd or 0.0) / calls for e in estimate.contenders if calls}
    paid = plan.replay is None
    if claims is not None:
        return SharedBudget(claims, plan.max_cost_usd, per_call, paid)
    return Budget(plan.max_cost_usd, per_call, stored_spend(store, run.info.id, contenders=paid), paid)


def budget_message(
    spent_usd: float, cap_usd: float, unrun: int, samples: int, run_id: str, unjudged: int = 0, unfinished: int = 0
) -> str:
    """``budget cap reached: spent $0.01023 of $0.01; 40 cases not called; continue with evalcore run --resume
    RUN --max-cost <more than 0.01>``; ``unjudged``: replies stored but not judged (``…; 2 replies not judged;
    …``); ``unfinished``: of the cases not called, those the cap stopped midway (``40 cases not called (3 of
    them stopped midway)``)."""
    left = _left(unrun, samples, unjudged, unfinished)
    return (
        f"budget cap reached: spent {usd_text(spent_usd)} of {usd_text(cap_usd)}; {left}; "
        f"continue with evalcore run --resume {run_id} --max-cost <more than {usd_text(cap_usd)[1:]}>"
    )


def left_message(unrun: int, unjudged: int, samples: int, run_id: str) -> str:
    """``3 cases not called; 2 replies not judged; continue with evalcore run --resume RUN``: what a run left
    undone for no reason this process saw (another worker of a shared run left it)."""
    left = _left(unrun, samples, unjudged) if unrun else _unjudged(unjudged)
    return f"{left}; continue with evalcore run --resume {run_id}"


def _left(unrun: int, samples: int, unjudged: int, unfinished: int = 0) -> str:
    noun = "case" if samples == 1 else "call"
    left = f"{unrun} {noun}{'' if unrun == 1 else 's'} not called"
    if unfinished:
        left += f" ({unfinished} of them stopped midway)"
    return f"{left}; {_unjudged(unjudged)}" if unjudged else left


def _unjudged(unjudged: int) -> str:
    return f"{unjudged} repl{'y' if unjudged == 1 else 'ies'} not judged"


def usd_text(value: float) -> str:
    """``$0.05028``, ``$5``: to the millionth of a dollar, so a small overrun of the cap shows."""
    return "$" + f"{value:.6f}".rstrip("0").rstrip(".")
