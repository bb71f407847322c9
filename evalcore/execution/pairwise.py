"""A run's pairwise phase: once every contender has answered, the suite's ``pairwise:`` judge compares them.

The runner hands every result over as it comes (:meth:`PairJudging.add`); after the last contender finished,
:meth:`PairJudging.judge` compares, for each pair of contenders (every pair, or each against the baseline) and
each case and sample both answered without a call error, the two answers in both orders
(:class:`~evalcore.scoring.pairwise.PairwiseJudge`). The judge's calls go through the provider layer the
contenders use, with the run's timeout, retries and backoff, ``concurrency`` comparisons at a time; their cost
is the judge's, apart from the contenders'. The verdicts are stored when the run finishes
(:meth:`PairJudging.save`), even when it was stopped halfway through judging: a resumed run judges only the
comparisons not stored yet. A comparison the budget cap stopped after one order was asked is stored with that
order's calls (what they cost counts in the run's spend) and no outcome; a resume completes it, reusing them.
``evalcore rescore`` runs the same phase over the replayed outputs; with ``--judge-cache`` a call whose model and
prompt are unchanged reuses the stored one.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from evalcore.core.records import Case, Contender, PairVerdict, Result
from evalcore.execution.plan import Plan
from evalcore.execution.progress import Progress
from evalcore.models.registry import get_provider
from evalcore.models.types import Reply, Request
from evalcore.scoring.pairwise import JSON_FORMAT, PairwiseJudge
from evalcore.storage.pairs import add_pairs, load_pairs
from evalcore.storage.store import Store
from evalcore.suite.loader import Suite

log = logging.getLogger(__name__)


def pairwise_judge(suite: Suite) -> PairwiseJudge | None:
    """The suite's pairwise judge, or None when it has no ``pairwise:`` block.

    Raises:
        ConfigError: the judge's options are wrong (a fake judge that does not exist, settings it does not take).
    """
    options = suite.config.pairwise
    return None if options is None else PairwiseJudge.from_options(options)


def check_pairwise(suite: Suite, contenders: list[str]) -> None:
    """Refuse a pairwise block that cannot run with these contenders (a baseline that is none of them, fewer
    than two contenders); nothing is called.

    Raises:
        ConfigError: naming ``evalcore.yaml: pairwise`` and the key.
    """
    judge = pairwise_judge(suite)
    if judge is not None:
        judge.pairs(contenders)


def pairwise_lines(suite: Suite, contenders: list[str]) -> list[str]:
    """What ``evalcore verify`` says of the suite's pairwise judge (nothing without one); its options checked.

    Raises:
        ConfigError: as :func:`check_pairwise`.
    """
    judge = pairwise_judge(suite)
    if judge is None:
        return []
    pairs = judge.pairs(contenders)
    against = f"each against {judge.baseline}" if judge.baseline else "every pair"
    return [f"pairwise: {judge.model} compares {_counted(len(pairs), 'pair')} ({against}), in both orders"]


def _counted(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def unfinished(verdict: PairVerdict) -> bool:
    """Whether a comparison has a call that was not asked (the budget cap, an open breaker): a resume completes it,
    with the calls it made (stored for what they cost)."""
    return any(call.get("not_called") for call in verdict.calls)


class PairJudging:
    """The pairwise phase of one run; inert when the suite has no pairwise judge."""

    def __init__(self, plan: Plan, store: Store, run_id: str, resumed: bool):
        self.plan, self.store, self.run_id = plan, store, run_id
        self.judge = pairwise_judge(plan.suite)
        self.outputs: dict[tuple[str, str, str, int], Any] = {}
        self.verdicts: list[PairVerdict] = []
        self.done: set[tuple[str, str, int, str, str]] = set()
        if self.judge is None:
            return
        if plan.options.judge_cache and plan.replay is not None:
            self.judge.use_cache(plan.replay.run.pairwise)
        if resumed:
            self.load_stored()

    def load_stored(self) -> None:
        """Take the run's stored answers and verdicts: a resumed run's, or every worker's for the worker that
        compares them (``--worker``)."""
        for result in self.store.load_run(self.run_id).results:
            self.add(result)
        stored = load_pairs(self.store, self.run_id)
        self.done = {v.key for v in stored if not unfinished(v)}
        if self.judge is not None:
            self.judge.keep_paid(v for v in stored if unfinished(v))

    def add(self, result: Result) -> None:
        """Keep a result's answer for the comparisons (a failed call has none)."""
        if self.judge is not None and result.status == "scored":
            self.outputs[result.key] = result.output

    async def judge_all(self, progress: Progress, judging: Any = None) -> None:
        """Compare every pair on every case and sample both answered; the verdicts wait in :attr:`verdicts`.

        Nothing is compared while calls are left unrun (an endpoint that could not be reached, the budget cap):
        a resume answers them first, then compares.

        ``judging`` is the run's guard of judge calls (its circuit breakers, rate limits and budget cap: a
        :class:`~evalcore.execution.judge_calls.JudgeCalls`, not annotated as one because that module reads this
        one). A comparison it does not let be asked is left unjudged, counted in the progress of the contender
        shown first, and asked by a resume.
        """
        judge = self.judge
        if judge is None or progress.skipped or progress.over_budget:
            return
        prices = self.plan.suite.config.prices.get(judge.model)
        contender = Contender(
            id=judge.model,
            model=judge.model,
            settings=judge.settings,
            api_base=judge.api_base,
            prices=prices.model_dump() if prices is not None else None,
        )
        provider = get_provider(judge.model)
        by_id = {c.id: c for c in self.plan.contenders}
        gate = asyncio.Semaphore(self.plan.concurrency)
        work = [
            (case, sample, a, b)
            for a, b in judge.pairs([c.id for c in self.plan.contenders])
            for case in self.plan.cases
            for sample in range(self.plan.samples)
            if (case.dataset, case.id, sample, a, b) not in self.done
            and (a, case.dataset, case.id, sample) in self.outputs
            and (b, case.dataset, case.id, sample) in self.outputs
        ]

        async def one(case: Case, sample: int, a: str, b: str) -> None:
            async def ask(messages: list[dict[str, str]]) -> Reply:
                request = Request(
                    contender=contender,
                    messages=messages,
                    response_format=JSON_FORMAT,
                    timeout_s=self.plan.timeout_s,
                    max_attempts=self.plan.max_attempts,
                    backoff_s=self.plan.backoff_s,
                    case=case,
                    sample=sample,
                )
                if judging is None:
                    return await provider.complete(request)
                session = judging.session(by_id[a], 0.0)
                try:
                    return await session.complete(request, provider, by_id[a])
                finally:
                    session.close()

            async with gate:
                a_output = self.outputs[(a, case.dataset, case.id, sample)]
                b_output = self.outputs[(b, case.dataset, case.id, sample)]
                verdict = await judge.compare(case, sample, a, a_output, b, b_output, ask)
                if unfinished(verdict):
                    progress.contenders[a].unjudged += 1  # the run ends interrupted: a resume compares them
                # One asked and paid for, the other not: stored for its cost, and the resume completes it.
                if not unfinished(verdict) or any(not call.get("not_called") for call in verdict.calls):
                    self.verdicts.append(verdict)

        log.info("pairwise: %d comparisons to judge with %s", len(work), judge.model)
        await asyncio.gather(*(one(*item) for item in work))

    def save(self) -> None:
        """Store the verdicts made so far (from the thread that owns the store's writes)."""
        if self.verdicts:
            add_pairs(self.store, self.run_id, self._ordered())
            self.verdicts = []

    def _ordered(self) -> list[PairVerdict]:
        """The verdicts in pair, case and sample order, however their calls finished: a run file stays the same
        from one run to the next."""
        judge = self.judge
        assert judge is not None  # verdicts exist only with a judge
        pairs = {p: i for i, p in enumerate(judge.pairs([c.id for c in self.plan.contenders]))}
        cases = {c.key: i for i, c in enumerate(self.plan.cases)}
        return sorted(self.verdicts, key=lambda v: (pairs[(v.a, v.b)], cases[(v.dataset, v.case)], v.sample))
