"""Run a plan: every contender over every case and sample, concurrently, results stored as they come.

Concurrency has two limits: ``parallelism`` contenders in flight, each with ``concurrency`` cases in
flight. One writer thread stores results in batches (:class:`~evalcore.execution.writer.ResultWriter`).
Ctrl-C, a cancel event or a crash leave every finished result stored and the run resumable
(:func:`resume_plan`).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from functools import partial
from typing import TYPE_CHECKING

from evalcore._util.groups import first_leaf
from evalcore.core.clock import utc_now
from evalcore.core.errors import CallFailed, CallNotStarted, EvalcoreError
from evalcore.core.records import Case, Contender, ErrorInfo, Result, Run, RunStatus
from evalcore.execution import conversation
from evalcore.execution.adaptive import open_race
from evalcore.execution.batching import open_batches
from evalcore.execution.budget import meter_prices, open_budget
from evalcore.execution.ending import close_claims, end_without_store, finish_trackers, left_undone, stop_reason
from evalcore.execution.judge_calls import JudgeSession, open_judging, stored_reply, stored_unjudged, through
from evalcore.execution.outcomes import failed_result, unfinished_result
from evalcore.execution.pairwise import PairJudging
from evalcore.execution.plan import Plan, messages_sent, new_run, plan_messages, suite_contexts
from evalcore.execution.progress import ContenderProgress, Progress, ProgressCallback
from evalcore.execution.readiness import check_ready
from evalcore.execution.replay import replay_provider, with_stored_trace
from evalcore.execution.reply_cache import caching, close_cache, marked, open_cache
from evalcore.execution.resume import claimed_slots
from evalcore.execution.resume import resume_plan as resume_plan  # part of the runner API: run, resume
from evalcore.execution.writer import ResultWriter
from evalcore.models.breaker import Breaker, Breakers
from evalcore.models.http import close_http_clients
from evalcore.models.limits import Gate, Limits
from evalcore.models.llm import close_clients
from evalcore.models.metering import UNFINISHED_PREFIX, Meter, OverBudget, Ticket, metering, prepaid
from evalcore.models.registry import run_providers
from evalcore.models.types import Provider, Reply, Request
from evalcore.scoring.adapters import Context, Parsed
from evalcore.scoring.client import Client, call_adapter
from evalcore.scoring.judge import stored_verdicts
from evalcore.scoring.plugins import build_adapter, build_scorer
from evalcore.scoring.scorers import Scored, scorer_failures
from evalcore.storage.runs import CANCELLED, STOPPED_BY_USER
from evalcore.storage.store import Store
from evalcore.trackers import RunStarted, TrackerHub, open_trackers, tracker_refs

if TYPE_CHECKING:
    from evalcore.storage.claims import Claims

log = logging.getLogger(__name__)

Key = tuple[str, str, str, int]


class _Execution:
    """One run in progress: the plan, the stored run, the adapter and scorer, progress."""

    def __init__(
        self,
        plan: Plan,
        run: Run,
        store: Store,
        done: set[Key],
        on_progress: ProgressCallback | None,
        stop: threading.Event | None,
        claims: Claims | None = None,
    ):
        suite = plan.suite
        self.plan, self.run, self.store, self.done = plan, run, store, done
        self.adapter = build_adapter(suite.adapter_ref, suite.path)
        self.scorer = build_scorer(suite.scorer_refs, suite.path)
        self.primary = next(m.name for m in plan.metrics if m.primary)
        #: A scorer that asks a model (an LLM judge) scores with the run's client; None keeps the plain path.
        self.ascore = getattr(self.scorer, "ascore", None)
        if self.ascore is not None and plan.options.judge_cache and plan.replay is not None:
            self.scorer.use_cache(stored_verdicts(plan.replay.run))
        self.adapter_blocked = getattr(self.adapter, "blocked", None)  # why no case can start (MCP gone); None: never
        self.direct = getattr(self.adapter, "call", None) is None or plan.replay is not None  # see _one's call()
        self.contexts = suite_contexts(suite)
        self.messages = plan_messages(plan, self.adapter, self.contexts)
        self.on_progress, self.stop = on_progress, stop
        self.progress = Progress(run.info.id)
        #: A worker of a shared run (``--worker``): it calls the slots it claims; None calls every slot not done.
        self.claims = claims
        #: Comparisons this worker's pairwise phase left unjudged (a shared run's).
        self.pairs_unjudged = 0
        #: The slots claimed and not yet started, by contender; None until a worker starts calling.
        self.batch: dict[str, list[tuple[Case, int]]] | None = None
        self.writer = ResultWriter(store, run.info.id, claims.store_rows if claims is not None else None)
        self.breakers = Breakers()
        self.budget = open_budget(plan, store, run, claims)
        #: Every model call of the run goes through it (:mod:`evalcore.models.metering`); None without a cap.
        self.meter = Meter(self.budget, meter_prices(plan)) if self.budget is not None else None
        self.cache = open_cache(run.info.settings, store.location)  # None: every call asks its model
        with metering(self.meter), caching(self.cache):  # a replay's provider calls no model: it is left as it is
            self.providers = run_providers(plan.contenders, replay_provider(plan) if plan.replay else None)
        #: A batch run's batches (:mod:`evalcore.execution.batching`): its contenders' providers answer from them.
        self.batches = open_batches(plan, store, run.info, self.budget, self.progress, self._request, self.providers)
        self.limits = Limits(plan.limits, shared=claims)
        self.gates: dict[str, Gate | None] = {}
        self._last_report = 0.0
        self.pairs = PairJudging(plan, store, run.info.id, resumed=bool(done))
        #: Judge calls go through the contenders' breakers, limits and budget; None when no scorer asks a model.
        self.judging = open_judging(suite, self.scorer, self.breakers, self.limits, self.budget, self._tell)
        #: A resumed run's replies that were stored but not judged: judged now, their contender not asked again.
        self.unjudged = stored_unjudged(store, run.info.id) if self.judging is not None else {}
        #: An adaptive run's race (:mod:`evalcore.execution.adaptive`): it calls the cases round by round.
        self.race = open_race(plan, store, run, done)
        self.round: Sequence[Case] | None = None
        self.progress.race = True if self.race is not None else None
        #: Where the run is also sent (``--tracker``, the suite's ``trackers:``); None: nowhere, at no cost.
        self.trackers: TrackerHub | None = open_trackers(
            tracker_refs(suite.config.trackers, plan.options.trackers), suite.path
        )

    def work_for(self, contender: Contender) -> Iterator[tuple[Case, int]]:
        if self.batch is not None and self.claims is not None:
            yield from claimed_slots(self.claims, self.plan, contender.id, self.batch[contender.id], self.budget)
            return
        done, samples = self.done, range(self.plan.samples)
        for case in self.plan.cases_of(contender.id) if self.round is None else self.round:
            for sample in samples:
                if not done or (contender.id, case.dataset, case.id, sample) not in done:
                    yield case, sample

    async def execute(self) -> str:
        self._start_progress()
        self.writer.start()
        if self.trackers is not None:
            sent = partial(messages_sent, self.plan, self.messages)  # for a tracker that records prompts
            self.trackers.start(RunStarted(self.run.info, list(self.plan.contenders), self.run.metrics, sent))
        work = asyncio.create_task(self._run_all())
        watcher = asyncio.create_task(self._watch_stop(work))
        status: RunStatus = "completed"
        try:
            await work
        except asyncio.CancelledError:  # the stop event, or Ctrl-C: the user stopped the run
            status = "interrupted"
            me = asyncio.current_task()
            if me is not None and me.cancelling():
                self._finish(status)
                raise
        finally:
            watcher.cancel()
        return self._finish(status)

    def _start_progress(self) -> None:
        """Every contender's progress out of the whole run: a resumed run starts at what is stored."""
        counts = self.store.result_counts(self.run.info.id) if self.done else {}
        for contender in self.plan.contenders:
            whole = len(self.plan.cases_of(contender.id)) * self.plan.samples
            done = whole - sum(1 for _ in self.work_for(contender))
            stored, errors = counts.get(contender.id, (0, 0))
            redone = stored - done  # stored errors that are called again (their endpoint was unreachable)
            self.progress.contenders[contender.id] = ContenderProgress(
                total=whole, done=done, errors=max(0, errors - redone), resumed_from=done
            )
        if self.budget is not None:
            self.progress.cap_usd, self.progress.spent_usd = self.budget.cap_usd, self.budget.spent_usd

    async def _run_all(self) -> None:
        if self.claims is not None:
            await self._run_claimed(self.claims)
            return
        if self.race is None:
            await self.run_round(self.plan.contenders, self.plan.cases)
        else:
            await self.race.run(self)
        await self.pairs.judge_all(self.progress, self.judging)

    async def _run_claimed(self, claims: Claims) -> None:
        """Call the slots this worker claims until every slot of the run is done, waiting while other workers
        hold the last ones (a dead worker's lapse and are claimed here); the worker that claims the pairwise
        phase, once every answer is stored, compares them all."""
        self.batch = {c.id: [] for c in self.plan.contenders}
        while True:
            await self.run_round(self.plan.contenders, self.plan.cases)
            stopped = claims.unreachable is not None or self.writer.stopped  # its store went away
            if stopped or self.progress.skipped or (self.budget is not None and self.budget.exhausted):
                return  # what this worker could not call goes back to the others when it closes
            if self.pairs.judge is not None and await asyncio.to_thread(claims.claim_pairwise):
                before = self.progress.unjudged
                await asyncio.to_thread(self.pairs.load_stored)  # every worker's answers
                await self.pairs.judge_all(self.progress, self.judging)
                self.pairs.save()
                self.pairs_unjudged = self.progress.unjudged - before
                if self.pairs_unjudged:
                    return  # the phase goes back to the others when this worker closes: one may reach the judge
                await asyncio.to_thread(claims.finish_pairwise)
            if not await asyncio.to_thread(claims.held_elsewhere):
                return
            await asyncio.sleep(min(1.0, claims.lease_s / 4))  # until another worker's slots are done or lapse

    async def run_round(self, contenders: Sequence[Contender], cases: Sequence[Case]) -> None:
        """Call what is not done of ``contenders`` over ``cases`` (all of a plain run's; a round of a race's)."""
        experiments = asyncio.Semaphore(self.plan.parallelism)
        self.round = None if self.race is None else cases
        try:
            async with asyncio.TaskGroup() as group:
                for contender in contenders:
                    group.create_task(self._run_contender(contender, experiments))
        except BaseExceptionGroup as failures:
            raise first_leaf(failures) from None

    def _finish(self, status: RunStatus) -> str:
        if self.writer.is_alive():
            self.writer.close()
        lost = self.writer.lost
        if lost is None and self.claims is not None:
            # After the last write: what was not stored goes back to the other workers. A user's stop does not
            # wait to learn whether the others are alive.
            lost = close_claims(self.claims, wait=status != "interrupted")
            self.progress.run_unrun = self.claims.left
        if lost is not None:  # the results it could not store go to a file that `run --resume` stores
            end_without_store(self.store, self.run.info.id, self.writer, self.claims, lost, self.progress)
            self._report(force=True)
            return self.progress.status
        self.pairs.save()
        if self.writer.error is not None:
            status = "failed"
            self.progress.message = f"storing results failed: {self.writer.error}"
        p = self.progress
        if p.status == "running":
            p.budget_reached = self.budget is not None and self.budget.exhausted
            if self.budget is not None:  # the pairwise judge's calls too, made after the last case
                p.spent_usd = self.budget.spent_usd
            stop: dict[str, str] = {}
            unrun, unjudged = left_undone(p, self.claims, self.store, self.run.info.id, self.pairs_unjudged)
            if status == "interrupted":
                stop = {"stopped_by": STOPPED_BY_USER}
            elif status == "completed" and (unrun or unjudged):
                status = "interrupted"  # cases are left to call: resumable, not complete
                gone = [g for g in [self.adapter_blocked and self.adapter_blocked()] if g]  # an agent's MCP server
                opened = [b.message for b in self.breakers.opened()] + gone
                opened += self.batches.reasons() if self.batches is not None else []
                stop = stop_reason(opened, p, unrun, unjudged, self.plan.samples, self.run.info.id)
                self.progress.message = stop["reason"]
            # A worker leaving slots that others still hold leaves the run running: the last of them sets it.
            if self.claims is None or status == "completed" or not self.claims.others_live:
                finished = utc_now() if status == "completed" else None
                self.store.set_status(self.run.info.id, status, finished_at=finished, **stop)
            self.progress.status = CANCELLED if stop.get("stopped_by") == STOPPED_BY_USER else status
            if self.trackers is not None:
                self.progress.unsent = finish_trackers(self.trackers, self.store, self.run.info.id)
            self._report(force=True)
        return self.progress.status

    async def _watch_stop(self, work: asyncio.Future) -> None:
        while self.stop is not None:
            if self.stop.is_set():
                work.cancel()
                return
            await asyncio.sleep(0.1)

    async def _run_contender(self, contender: Contender, experiments: asyncio.Semaphore) -> None:
        if self.batches is not None:  # its calls of the round go out as one batch, whose replies the workers take
            await self.batches.fetch([contender], self.work_for)
        async with experiments:
            progress = self.progress.contenders[contender.id]
            progress.started = progress.started or time.monotonic()
            items = self.work_for(contender)
            workers = [self._worker(contender, items) for _ in range(self.plan.concurrency)]
            await asyncio.gather(*workers)
            if self.batches is not None:  # its replies are stored: a resume reads its batches no more
                await self.batches.landed(contender)
            if self.race is None:  # a race's contender is finished when it is stopped or the race ends
                progress.finished = time.monotonic()
            self._report(force=True)

    async def _worker(self, contender: Contender, items: Iterator[tuple[Case, int]]) -> None:
        provider = self.providers[contender.id]
        progress = self.progress.contenders[contender.id]
        breaker = self.breakers.of(contender)
        gate, budget, judging, trackers = self._gate(contender), self.budget, self.judging, self.trackers
        writer, pairs = self.writer, self.pairs if self.pairs.judge is not None else None  # None: no answers kept
        for case, sample in items:
            while writer.down.is_set():  # the store went away: no call starts until it is back
                await asyncio.sleep(0.05)
            if writer.stopped:  # its result could not be stored: left unrun, for a resume
                progress.skipped += 1
                progress.blocked = "the store cannot be written"
                continue
            # An endpoint that cannot be reached (the contender's, or its judge's): left unrun, not stored
            blocked = breaker.message if breaker.is_open else judging.blocked() if judging is not None else None
            if not blocked and self.adapter_blocked is not None:  # or what its cases need (MCP server) is gone
                blocked = self.adapter_blocked()
            if blocked:
                progress.skip(blocked)
                self._report()
                continue
            key = (contender.id, case.dataset, case.id, sample)
            stored = self.unjudged.get(key) if self.unjudged else None
            # A batch's reply was reserved with its batch (its judges reserve as they call): never refused here.
            reserving = None if self.batches is not None and self.batches.answered(key) else budget
            judge_usd = judging.expected_usd(self.messages.of(contender, case)) if judging and reserving else 0.0
            reserved = reserving.reserve(contender.id, judge_usd, paid=stored is None) if reserving is not None else 0.0
            if reserved is None:  # the call would pass the cap: left unrun, not stored, like the above
                progress.over_budget += 1
                self._report()
                continue
            session = judging.session(contender, judge_usd) if judging is not None else None
            # The case's first call draws on this reservation; later ones (an agent's steps) reserve their own.
            ticket = Ticket(reserved - judge_usd) if budget is not None else None
            if ticket is None:  # no budget: nothing to draw on
                result = await self._one(provider, contender, case, sample, breaker, gate, session, stored)
            else:
                with prepaid(ticket):
                    result = await self._one(provider, contender, case, sample, breaker, gate, session, stored)
            if session is not None:
                session.close()  # what it reserved and did not use goes back
            if isinstance(result, CallNotStarted):  # as if blocked above: no call made, left unrun (reported then)
                if budget is not None and ticket is not None:
                    budget.release(ticket.reserved)
                progress.skip(result.message)
                continue
            if budget is not None and ticket is not None:
                budget.settle_case(ticket, result, paid=stored is None)
                self.progress.spent_usd = budget.spent_usd
            self.writer.put(result)
            if result.error is not None and result.error.message.startswith(UNFINISHED_PREFIX):
                progress.over_budget += 1  # stored with what its calls cost; a resume calls it again
                progress.unfinished += 1
                self._report()
                continue
            if trackers is not None:
                trackers.put(result)
            if pairs is not None:
                pairs.add(result)
            if self.race is not None:
                self.race.add(result)
            progress.count(result)
            self._report()

    def _gate(self, contender: Contender) -> Gate | None:
        """The contender's rate limits (one gate for all its workers), telling its progress when calls wait on
        them; None when no limit applies (the plain path pays nothing)."""
        if contender.id not in self.gates:
            budgets = self.limits.of(contender)
            self.gates[contender.id] = Gate(budgets, self._tell(contender.id)) if budgets else None
        return self.gates[contender.id]

    def _tell(self, contender_id: str) -> Callable[[str | None, int], None]:
        """What tells a contender's progress that its calls (or its judges') wait on a rate limit, and why."""
        progress = self.progress.contenders[contender_id]

        def tell(reason: str | None, calls: int) -> None:
            progress.waiting, progress.waiting_calls = reason, calls
            self._report()

        return tell

    async def _one(
        self,
        provider: Provider,
        contender: Contender,
        case: Case,
        sample: int,
        breaker: Breaker,
        gate: Gate | None = None,
        judges: JudgeSession | None = None,
        stored: Result | None = None,
    ) -> Result | CallNotStarted:
        """One result: the call (scoring holds no place in its rate limits), or the ``stored`` reply; its score."""
        context = self.contexts[case.dataset]
        request = self._request(contender, case, sample, breaker)
        if conversation.kind_of(case) is not None:  # its turns, transcript and scores: one result
            return await conversation.converse(self, request, provider, gate, judges, stored)
        started = [utc_now() if stored is not None or gate is not None else ""]  # else call() stamps it first

        def call() -> Awaitable[Reply]:
            started[0] = utc_now()  # once the rate limits let the call start
            if self.direct:  # no adapter call; or a replay, whose stored raw text parse() reads whoever made the call
                return provider.complete(request)
            return call_adapter(self.adapter, Client(request, provider, context))

        try:
            if stored is not None:
                reply = stored_reply(stored)
            else:  # without rate limits, through() is the call itself
                reply = await (call() if gate is None else through(gate, call, request.messages))
        except OverBudget as exc:  # a later call of the case (an agent's step) was refused: never a score
            return unfinished_result(contender.id, case, sample, exc, started[0])
        except CallFailed as exc:
            if isinstance(exc, CallNotStarted):
                return exc  # never a result: the case is left unrun
            return failed_result(contender.id, case, sample, exc, started[0])
        parsed = with_stored_trace(self.adapter.parse(reply.text, context), reply)
        unjudged: CallFailed | None = None
        try:
            if self.ascore is None:
                scored = self._score(case, parsed, context)
            else:
                scored = await self._ascore(case, parsed, context, Client(request, provider, context, judges))
        except CallFailed as exc:  # a judge gave no verdict, or no trace came to score: the reply is kept, unscored
            unjudged, scored = exc, Scored({}, getattr(exc, "diagnostics", None) or {})
        problem = ErrorInfo("model", parsed.problem) if parsed.problem else None
        return Result(
            contender.id,
            case.dataset,
            case.id,
            sample,
            "scored" if unjudged is None else "error",
            scored.metrics.get(self.primary),
            metrics=scored.metrics,
            output=parsed.output,
            raw=reply.text,
            error=problem if unjudged is None else ErrorInfo(unjudged.kind, unjudged.message),
            diagnostics=marked(scored.diagnostics, reply),
            usage=reply.usage,
            latency_s=reply.latency_s,
            attempts=reply.attempts,
            started_at=started[0],
            trace=parsed.trace,
        )

    def _request(self, contender: Contender, case: Case, sample: int, breaker: Breaker | None = None) -> Request:
        messages, fields = self.messages.of(contender, case), self.contexts[case.dataset].fields
        plan, response_format = self.plan, self.adapter.response_format
        return Request(contender, messages, response_format, plan.timeout_s, plan.max_attempts, plan.backoff_s,
                       case=case, sample=sample, fields=fields, breaker=breaker)  # fmt: skip

    async def _ascore(self, case: Case, parsed: Parsed, context: Context, client: Client) -> Scored:
        """:meth:`_score` for a scorer that asks a model (a judge); its :class:`CallFailed` propagates."""
        assert self.ascore is not None  # only called when the scorer has one
        with scorer_failures(self.scorer.name, case):
            scored = await self.ascore(case, parsed, context, client)
        return self._checked(case, scored)

    def _score(self, case: Case, parsed: Parsed, context: Context) -> Scored:
        with scorer_failures(self.scorer.name, case):
            scored = self.scorer.score(case, parsed, context)
        return self._checked(case, scored)

    def _checked(self, case: Case, scored: Scored) -> Scored:
        if scored.metrics.get(self.primary) is None:
            why = f"gave no {self.primary} for {case.dataset}/{case.id}; the primary metric must always have a value"
            raise EvalcoreError(f"scorer {self.scorer.name} {why}")
        return scored

    def _report(self, force: bool = False) -> None:
        clock = time.monotonic()
        if self.on_progress is not None and (force or clock - self._last_report >= 0.1):
            self._last_report = clock
            self.on_progress(self.progress)


async def execute_plan(
    plan: Plan,
    store: Store,
    run: Run,
    done: set[Key] | None = None,
    on_progress: ProgressCallback | None = None,
    stop: threading.Event | None = None,
    claims: Claims | None = None,
) -> str:
    """Call everything the plan needs that is not in ``done``; returns the run's final status. With ``claims``
    (``evalcore run --resume RUN --worker``) only the slots this worker claims, until the shared run is done."""
    execution = _Execution(plan, run, store, done or set(), on_progress, stop, claims)
    try:
        with metering(execution.meter), caching(execution.cache):  # the tasks started inside inherit both
            return await execution.execute()
    except EvalcoreError as exc:
        execution.progress.message = str(exc)
        execution._finish("failed")
        raise
    finally:
        closing = getattr(execution.adapter, "aclose", None)
        if closing is not None:  # an adapter's sessions for the run (an agent's MCP servers)
            await closing()
        close_cache(execution.cache, execution.progress)
        await close_clients()  # litellm caches HTTP clients per event loop: close them before this loop ends
        await close_http_clients()


def start_run(plan: Plan, store: Store, run_id: str | None = None) -> Run:
    """Check the plan and store the run's header; nothing is called yet."""
    check_ready(plan)
    run = new_run(plan, run_id)
    store.create_run(run)
    return run


def run_suite(
    plan: Plan, store: Store, on_progress: ProgressCallback | None = None, stop: threading.Event | None = None,
    run_id: str | None = None,
) -> tuple[str, str]:  # fmt: skip
    """Start and finish a run in this thread: returns (run id, final status)."""
    run = start_run(plan, store, run_id)
    status = asyncio.run(execute_plan(plan, store, run, on_progress=on_progress, stop=stop))
    return run.info.id, status
