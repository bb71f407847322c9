"""The pairwise judge: two contenders' answers to the same case, compared by a model in both orders.

.. code-block:: yaml

    pairwise:
      model: openai/gpt-4o-mini     # a litellm id, or a fake judge (fake/judge, fake/judge-biased …)
      rubric: Which answer solves the customer's problem better, using only the policy text?
      reference: expected           # the judge sees the expected answer; or none
      baseline: "fake/oracle"       # each contender against this one; without it, every pair of contenders
      samples: 1                    # judge calls per order; an order's verdict is their majority

For each case (and sample) on which both contenders answered, the judge is asked twice: with ``a``'s answer
shown first, then with ``b``'s. Each order's choice is turned into contender terms; the comparison is a
``win`` or ``loss`` for ``a``, or a ``tie``, only when both orders say the same, else ``inconsistent``: a judge
that prefers whichever answer it reads first (position bias) then shows as inconsistent verdicts, never as a
win. A reply that is not a verdict, or a call that fails after the run's retries, makes the comparison an
error of kind ``judge`` (:class:`~evalcore.core.records.PairVerdict` ``error``), never a verdict.

The judge runs after every contender has answered (:mod:`evalcore.execution.pairwise`) and again in
``evalcore rescore``, where ``--judge-cache`` reuses a stored call whose model and prompt are unchanged.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from itertools import combinations
from typing import Any

from evalcore.core.errors import CallFailed, ConfigError
from evalcore.core.records import Case, ErrorInfo, PairOutcome, PairVerdict
from evalcore.models.fakes import FakeProvider
from evalcore.models.types import Reply
from evalcore.scoring.client import NotCalled
from evalcore.scoring.judge import known_total
from evalcore.scoring.judge_prompt import VerdictError, verdict_key
from evalcore.scoring.pairwise_prompt import pair_messages, parse_choice

DEFAULT_RUBRIC = "Which answer is more correct, complete and helpful for the question asked?"
JSON_FORMAT = {"type": "json_object"}
JUDGE_KIND = "judge"
_WHERE = "evalcore.yaml: pairwise"
#: The judge's choice (A: the answer shown first) in contender terms, for each order.
_TERMS = {"ab": {"A": "a", "B": "b", "tie": "tie"}, "ba": {"A": "b", "B": "a", "tie": "tie"}}
_OUTCOMES: dict[str, PairOutcome] = {"a": "win", "b": "loss", "tie": "tie"}

Ask = Callable[[list[dict[str, str]]], Awaitable[Reply]]


class PairwiseJudge:
    """A suite's ``pairwise:`` judge (see the module docstring for its options)."""

    def __init__(
        self,
        model: str,
        rubric: str = DEFAULT_RUBRIC,
        reference: str = "expected",
        baseline: str | None = None,
        samples: int = 1,
        settings: Mapping[str, Any] | None = None,
        api_base: str | None = None,
    ):
        self.model = model
        self.rubric = rubric
        self.reference = reference == "expected"
        self.baseline = baseline
        self.samples = samples
        self.settings = dict(settings or {})
        self.api_base = api_base
        refusal = FakeProvider().refusal(model, self.settings) if model.startswith("fake/") else None
        if refusal:
            raise ConfigError(f"{_WHERE}.model: {refusal}")
        #: Stored judge calls by prompt key, reused instead of calling (``evalcore rescore --judge-cache``).
        self.cache: Mapping[str, list[dict[str, Any]]] = {}
        #: Calls this run made and paid for, by prompt key, of comparisons it did not finish: taken as made.
        self.paid: dict[str, list[dict[str, Any]]] = {}

    @classmethod
    def from_options(cls, options: Any) -> PairwiseJudge:
        """The judge of a suite's validated ``pairwise:`` block (:class:`~evalcore.suite.config.PairwiseModel`)."""
        return cls(**options.model_dump())

    def pairs(self, contenders: Sequence[str]) -> list[tuple[str, str]]:
        """The pairs to compare, each ``(a, b)`` in lineup order: every pair, or each against the baseline.

        Raises:
            ConfigError: the baseline is not one of the contenders, or there are fewer than two.
        """
        if len(contenders) < 2:
            raise ConfigError(f"{_WHERE}: compares contenders two by two; the lineup has {len(contenders)}")
        if self.baseline is None:
            return list(combinations(contenders, 2))
        if self.baseline not in contenders:
            raise ConfigError(
                f"{_WHERE}.baseline: {self.baseline!r} is not a contender id; contenders: {list(contenders)}"
            )
        return [(self.baseline, c) for c in contenders if c != self.baseline]

    def use_cache(self, verdicts: Iterable[PairVerdict]) -> None:
        """Reuse these stored verdicts' calls (by prompt key) instead of asking the judge again."""
        found: dict[str, list[dict[str, Any]]] = {}
        for v in verdicts:
            for call in v.calls:
                if "choice" in call and isinstance(call.get("key"), str):
                    found.setdefault(call["key"], []).append(call)
        self.cache = found

    def keep_paid(self, verdicts: Iterable[PairVerdict]) -> None:
        """Take the calls these unfinished comparisons of the run made (one order asked, the other not) as made
        when they are compared again: they were paid for, so they count in the new verdict's cost."""
        for v in verdicts:
            for call in v.calls:
                if not call.get("not_called") and not call.get("cached") and isinstance(call.get("key"), str):
                    self.paid.setdefault(call["key"], []).append(call)

    async def compare(
        self, case: Case, sample: int, a: str, a_output: Any, b: str, b_output: Any, ask: Ask
    ) -> PairVerdict:
        """Judge ``a``'s and ``b``'s answers to ``case`` in both orders.

        Args:
            case: the case both answered.
            sample: which repetition.
            a: the contender shown first in the first order; ``a_output`` its parsed answer.
            b: the other contender; ``b_output`` its parsed answer.
            ask: sends the judge's messages to its model with the run's timeout and retries.

        Returns:
            The verdict; its ``error`` (kind ``judge``) is set when a reply was no verdict or a call failed.
        """
        orders = {
            "ab": pair_messages(self.rubric, case, a_output, b_output, self.reference),
            "ba": pair_messages(self.rubric, case, b_output, a_output, self.reference),
        }
        asked = await asyncio.gather(*(self._ask_order(order, messages, ask) for order, messages in orders.items()))
        calls = [call for order_calls in asked for call in order_calls]
        verdict = PairVerdict(case.dataset, case.id, sample, a, b, None, self.model, calls=calls)
        made = [c for c in calls if not c.get("cached") and not c.get("not_called")]
        verdict.cost_usd = known_total(c.get("cost_usd") for c in made)
        verdict.latency_s = sum(c.get("latency_s") or 0.0 for c in made)
        failed = next((c for c in calls if "error" in c), None)
        if failed is not None:
            verdict.error = ErrorInfo(JUDGE_KIND, f"pairwise judge {self.model} ({failed['order']}): {failed['error']}")
            verdict.orders = [
                _majority(order_calls) if all("choice" in c for c in order_calls) else None for order_calls in asked
            ]
            return verdict
        verdict.orders = [_majority(order_calls) for order_calls in asked]
        first, second = verdict.orders
        verdict.outcome = _OUTCOMES[first] if first == second and first is not None else "inconsistent"
        return verdict

    async def _ask_order(self, order: str, messages: list[dict[str, str]], ask: Ask) -> list[dict[str, Any]]:
        key = verdict_key(self.model, messages)
        stored = self.cache.get(key, [])
        if len(stored) >= self.samples:
            return [dict(c, cached=True, order=order) for c in stored[: self.samples]]
        made = [dict(c, order=order) for c in self.paid.pop(key, [])[: self.samples]]
        calls = await asyncio.gather(*(self._call(order, key, messages, ask) for _ in range(self.samples - len(made))))
        return [*made, *calls]

    async def _call(self, order: str, key: str, messages: list[dict[str, str]], ask: Ask) -> dict[str, Any]:
        call: dict[str, Any] = {"order": order, "key": key, "messages": messages}
        try:
            reply = await ask(messages)
        except NotCalled as exc:
            # Not asked (the budget cap, an open breaker): no verdict is stored, so a resume asks it.
            return call | {"error": f"{exc.kind}: {exc.message}", "not_called": True, "attempts": 0}
        except CallFailed as exc:
            # No reply, so nothing billed that the provider layer could count.
            return call | {
                "error": f"{exc.kind}: {exc.message}",
                "attempts": exc.attempts,
                "latency_s": exc.latency_s or 0.0,
                "input_tokens": 0,
                "output_tokens": 0,
                "cost_usd": 0.0,
            }
        call.update(
            raw=reply.text,
            input_tokens=reply.usage.input_tokens,
            output_tokens=reply.usage.output_tokens,
            cost_usd=reply.usage.cost_usd,
            latency_s=reply.latency_s,
            attempts=reply.attempts,
        )
        if reply.cached_at is not None:  # the reply cache's: not a call made
            call["cached"] = True
        try:
            choice = parse_choice(reply.text)
        except VerdictError as exc:
            call["error"] = str(exc)
            return call
        call.update(choice=choice.winner, reasoning=choice.reasoning, verdict=_TERMS[order][choice.winner])
        return call


def _majority(calls: list[dict[str, Any]]) -> str:
    """An order's verdict in contender terms: the most common of its calls'; a draw between the top two is a tie."""
    counts = Counter(_TERMS[c["order"]][c["choice"]] for c in calls).most_common()
    if len(counts) > 1 and counts[0][1] == counts[1][1]:
        return "tie"
    return counts[0][0]
