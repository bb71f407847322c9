"""Batch runs (``evalcore run --batch``, ``docs/batch.md``): each contender's calls of a round go out as one batch.

Before the runner's workers call a contender's round (a plain run's one round: every case), :meth:`Batches.fetch`
sends the requests it still needs as one batch through the provider's batch API
(:mod:`evalcore.models.batches`), polls every batch every ``poll_s`` seconds until it ends, and keeps each request's
reply or error. The workers then take their replies from :class:`BatchAnswers` instead of calling the model: the
adapter parses them, the scorer scores them (a judge is called as in any run), the writer stores them as they
come. An adaptive run (``--adaptive --batch``) does this each round, for the contenders still in.

- **Prices.** A batch's replies cost the batch price (:func:`~evalcore.models.batches.batch_prices`).
- **Budget.** A capped run reserves a batch's whole estimate (the contender's estimated cost per call at the
  batch price, times its requests) before sending it; a batch that does not fit is not sent, and its cases are
  left unrun for ``run --resume --max-cost``. A batch's replies then reserve nothing more: each settles its cost
  as it is stored.
- **Resume.** Every batch is recorded in the run's settings under :data:`SETTING` (``sent``: its id, contender,
  cases and reservation) as soon as the provider accepts it, and as ended only once the workers have taken its
  replies (:meth:`Batches.landed`), so a stopped process's ``run --resume`` polls the batches it sent, and reads
  again one whose replies it had not stored, instead of sending (and paying for) them again.
- **Cache.** With the reply cache on (``--cache``), a request the cache holds a reply for is answered from it
  and not sent; the replies a batch brings are stored in it.
- **Errors.** A request the batch answered with an error is an error result of its case, never scored; so is a
  request a completed batch has no readable line for (its output names what was lost). The cases of a batch that
  failed, expired or was cancelled before answering them, or that could not be sent or read, are left unrun with
  the batch's reason: the run ends ``interrupted`` and ``run --resume`` sends them again (a batch that cannot be
  read is polled again, not sent again).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from evalcore.core.clock import utc_now
from evalcore.core.errors import CallFailed, CallNotStarted, ConfigError
from evalcore.core.records import Case, Contender, RunInfo
from evalcore.execution.batch_settings import SETTING, BatchSettings
from evalcore.models.batches import DONE, BatchState, Prices, batch_prices
from evalcore.models.cache import current_cache, request_digest, request_key
from evalcore.models.registry import batch_client
from evalcore.models.types import Provider, Reply, Request, WrappedProvider
from evalcore.storage.history import update_settings

if TYPE_CHECKING:
    from evalcore.execution.budget import Budget
    from evalcore.execution.plan import Plan
    from evalcore.execution.progress import Progress
    from evalcore.storage.store import Store

log = logging.getLogger(__name__)

#: Polls of a batch in a row that may fail before its cases are left for a resume (which polls it again).
POLL_FAILURES = 5

Slot = tuple[str, str, int]  # dataset, case, sample
Key = tuple[str, str, str, int]  # contender, dataset, case, sample


def check_batchable(plan: Plan) -> None:
    """Refuse a batch plan whose calls cannot go in a batch.

    Raises:
        ConfigError: one line saying why and what to drop.
    """
    if plan.options.batch is None:
        return
    if plan.replay is not None:
        raise ConfigError("--batch sends the calls to the models; a replay calls none. Drop --batch or --replay.")
    from evalcore.scoring.plugins import build_adapter

    if getattr(build_adapter(plan.suite.adapter_ref, plan.suite.path), "call", None) is not None:
        raise ConfigError(
            f"{plan.suite.path}: adapter {plan.suite.adapter_ref!r} makes its own calls (an agent's steps "
            "depend on each reply), which a batch cannot hold; run it without --batch"
        )
    routed = [c.id for c in plan.contenders if c.router is not None or c.model.startswith("http/")]
    if routed:
        raise ConfigError(f"{routed[0]} is called through a router or an application endpoint, which has no batch API; "
                          "run it without --batch")  # fmt: skip


class BatchAnswers(WrappedProvider):
    """A contender's provider in a batch run: it answers each request with its batch's reply (see the module)."""

    def __init__(self, inner: Provider, answers: dict[Key, Reply | CallFailed], unsent: dict[Key, str]):
        super().__init__(inner)
        self.answers, self.unsent = answers, unsent

    async def complete(self, request: Request) -> Reply:
        """The reply the request's batch gave.

        Raises:
            CallFailed: the batch's error for the request.
            CallNotStarted: the request's batch was not sent or did not answer it (its reason).
        """
        case = request.case
        key = (request.contender.id, case.dataset, case.id, request.sample) if case is not None else None
        found = self.answers.pop(key, None) if key is not None else None
        if isinstance(found, CallFailed):
            raise found
        if found is None:
            raise CallNotStarted(self.unsent.get(key, "not sent in a batch") if key else "not sent in a batch")
        return found


class Batches:
    """The batches of one run: what it sent, what came back, and the replies the workers take (see the module)."""

    def __init__(
        self,
        plan: Plan,
        store: Store,
        run_id: str,
        budget: Budget | None,
        progress: Progress,
        request: Callable[[Contender, Case, int], Request],
        prices: Callable[[Contender], Prices | None],
        recorded: dict[str, Any],
    ):
        settings = plan.options.batch or BatchSettings()
        self.poll_s, self.store, self.run_id, self.budget = settings.poll_s, store, run_id, budget
        self.progress, self.request = progress, request
        self.cases = {c.key: c for c in plan.cases}
        self.answers: dict[Key, Reply | CallFailed] = {}
        self.unsent: dict[Key, str] = {}
        #: The batches the run sent (a resumed run's too), as its settings record them.
        self.sent: list[dict[str, Any]] = [dict(b) for b in recorded.get("sent", []) if isinstance(b, dict)]
        #: Each contender's (interactive, batch) prices; the estimate of a batch scales its interactive one.
        self.prices = {c.id: (prices(c), batch_prices(c, prices(c), _listed(c))) for c in plan.contenders}
        #: The reply cache's key of each request sent (``--cache``): the reply it brings is stored under it.
        self._keys: dict[Key, str] = {}
        self._inner: dict[str, Provider] = {}
        #: Batches read whose replies the workers are taking, with how each ended, by contender (:meth:`landed`).
        self._read: dict[str, list[tuple[dict[str, Any], str]]] = {}
        #: What the reservations of batches sent before this process (a resume's) are: reserved again once.
        self._held: set[str] = set()
        #: Each contender's estimated USD per call at the interactive price: its calls in a batch are reserved by
        #: the batch, so the workers reserve nothing for them.
        self.per_call = dict(budget.per_call) if budget is not None else {}
        if budget is not None:
            budget.per_call = {c: 0.0 for c in budget.per_call}

    def providers(self, found: dict[str, Provider]) -> dict[str, Provider]:
        """The run's providers, each answering from its contender's batches."""
        self._inner = dict(found)
        return {cid: BatchAnswers(p, self.answers, self.unsent) for cid, p in found.items()}

    def answered(self, key: Key) -> bool:
        """Whether a batch answered this call (its reply, or its error): the worker reserves nothing for it."""
        return key in self.answers

    def reasons(self) -> list[str]:
        """Why cases were left unrun (batches not sent, failed, expired, or not read), one line each."""
        return list(dict.fromkeys(self.unsent.values()))

    async def fetch(
        self, contenders: Sequence[Contender], slots: Callable[[Contender], Iterable[tuple[Case, int]]]
    ) -> None:
        """Send and collect the batches of ``contenders`` over the slots they still need (see the module)."""
        work = [self._contender(c, [(case.dataset, case.id, s) for case, s in slots(c)]) for c in contenders]
        await asyncio.gather(*work)

    async def _contender(self, contender: Contender, wanted: list[Slot]) -> None:
        cases = self.cases
        todo = set(wanted)
        pending = [b for b in self.sent if b["contender"] == contender.id and b.get("ended") is None]
        pending = [b for b in pending if todo & {tuple(s) for s in b["slots"]}]
        for batch in pending:  # sent by a stopped process: polled, never sent again
            todo -= {tuple(s) for s in batch["slots"]}
            if batch["id"] not in self._held and self.budget is not None:
                self.budget.reserved_usd += batch.get("usd") or 0.0  # it is being paid for, whatever the cap
            self._held.add(batch["id"])
        fresh = await self._from_cache(contender, [s for s in wanted if s in todo])
        if fresh:
            sent = await self._send(contender, fresh, cases)
            pending += [sent] if sent is not None else []
        await asyncio.gather(*(self._collect(contender, b, cases) for b in pending))
        self.progress.contenders[contender.id].waiting = None

    async def _from_cache(self, contender: Contender, slots: list[Slot]) -> list[Slot]:
        """The slots the reply cache has no reply for; the others answered from it (see the module)."""
        cache = current_cache()
        if cache is None:
            return slots
        extra = getattr(self._inner.get(contender.id), "cache_extra", None)
        fresh = []
        for slot in slots:
            request = self.request(contender, self.cases[(slot[0], slot[1])], slot[2])
            digest = request_digest(request, extra(request) if extra is not None else None)
            key = self._keys[(contender.id, *slot)] = request_key(digest, cache.draw(digest))
            found = await cache.lookup(key)
            if found is None:
                fresh.append(slot)
            else:
                self.answers[(contender.id, *slot)] = found  # type: ignore[index]
        return fresh

    async def _send(
        self, contender: Contender, slots: list[Slot], cases: dict[tuple[str, str], Case]
    ) -> dict[str, Any] | None:
        usd = self._estimate(contender, len(slots))
        if self.budget is not None and not self.budget.reserve_usd(usd):
            return None  # its cases are refused by the workers' own reservations: left for a resume
        requests = {_custom_id(s): self.request(contender, cases[(s[0], s[1])], s[2]) for s in slots}
        try:
            batch_id = await batch_client(contender.model).submit(contender, requests)
        except CallFailed as failed:
            if self.budget is not None:
                self.budget.release(usd)
            self._leave(contender, slots, f"{contender.id}: the batch was not sent: {failed}")
            return None
        entry = {"id": batch_id, "contender": contender.id, "slots": [list(s) for s in slots], "usd": usd,
                 "sent_at": utc_now(), "ended": None}  # fmt: skip
        self.sent.append(entry)
        self._held.add(batch_id)
        await asyncio.to_thread(self._record)  # before polling: a stopped process's resume polls it
        log.info("batch %s: %d requests of %s sent", batch_id, len(slots), contender.id)
        return entry

    async def _collect(self, contender: Contender, entry: dict[str, Any], cases: dict[tuple[str, str], Case]) -> None:
        slots = [tuple(s) for s in entry["slots"]]
        client, batch_id = batch_client(contender.model), entry["id"]
        try:
            state = await self._poll(contender, batch_id)
            requests = {
                _custom_id(s): self.request(contender, cases[(s[0], s[1])], s[2])
                for s in slots
                if (s[0], s[1]) in cases
            }
            answers = (
                await client.replies(contender, batch_id, requests, self.prices[contender.id][1])
                if state.has_output
                else {}
            )
        except CallFailed as failed:  # not read: a resume polls the same batch again
            self._release(entry)
            self._leave(contender, slots, f"{contender.id}: batch {batch_id} could not be read ({failed}); "
                        f"evalcore run --resume {self.run_id} reads it again")  # fmt: skip
            return
        lost = 0
        for slot in slots:
            key = (contender.id, *slot)
            found = answers.get(_custom_id(slot))
            if found is not None:
                self.answers[key] = found  # type: ignore[index]
                cache, cache_key = current_cache(), self._keys.pop(key, None)  # type: ignore[call-overload]
                if cache is not None and cache_key is not None and isinstance(found, Reply):
                    await cache.save(cache_key, contender.model, found)
            elif state.status == DONE:  # a finished batch with no line for it: an error, maybe paid
                lost += 1
                self.answers[key] = CallFailed(  # type: ignore[index]
                    "transport",
                    f"{contender.model}: batch {batch_id} completed without a readable reply to this request",
                )
            else:
                self.unsent[key] = (  # type: ignore[index]
                    f"{contender.id}: batch {batch_id} {state.status}{f' ({state.reason})' if state.reason else ''} "
                    f"before answering; evalcore run --resume {self.run_id} sends its cases again"
                )
        if lost:
            log.warning(
                "batch %s completed without a readable reply to %d of its %d requests", batch_id, lost, len(slots)
            )
        self._release(entry)
        self._read.setdefault(contender.id, []).append((entry, state.status))

    async def landed(self, contender: Contender) -> None:
        """Record as ended the batches of ``contender`` whose replies the workers have taken (stored, or being
        stored): a resume reads a batch until then, so a process stopped between reading a batch and storing its
        replies neither loses them nor sends them again."""
        read = self._read.pop(contender.id, [])
        for entry, status in read:
            entry["ended"] = status
        if read:
            await asyncio.to_thread(self._record)

    async def _poll(self, contender: Contender, batch_id: str) -> BatchState:
        client, failures = batch_client(contender.model), 0
        progress = self.progress.contenders[contender.id]
        while True:
            try:
                state = await client.state(contender, batch_id)
                failures = 0
            except CallFailed:
                failures += 1
                if failures >= POLL_FAILURES:
                    raise
                await asyncio.sleep(self.poll_s)
                continue
            if state.ended:
                return state
            progress.waiting = f"waiting on batch {batch_id} ({state.status}, {state.done} done)"
            progress.waiting_calls = state.total
            await asyncio.sleep(self.poll_s)

    def _release(self, entry: dict[str, Any]) -> None:
        if self.budget is not None and entry["id"] in self._held:
            self.budget.release(entry.get("usd") or 0.0)  # its replies settle their own cost as they are stored
        self._held.discard(entry["id"])

    def _leave(self, contender: Contender, slots: Iterable[Slot], why: str) -> None:
        log.warning("%s", why)
        for slot in slots:
            self.unsent[(contender.id, *slot)] = why  # type: ignore[index]

    def _estimate(self, contender: Contender, calls: int) -> float:
        interactive, batch = self.prices[contender.id]
        share = _share(interactive, batch)
        return self.per_call.get(contender.id, 0.0) * share * calls

    def _record(self) -> None:
        sent = [dict(b) for b in self.sent]
        update_settings(self.store, self.run_id, lambda s: {**s, SETTING: {**s.get(SETTING, {}), "sent": sent}})


def _share(interactive: Prices | None, batch: Prices | None) -> float:
    """The batch price as a share of the interactive one: the larger of the input and output shares, so a
    reservation never falls short for the price's sake."""
    if interactive is None or batch is None:
        return 1.0
    shares = [b / i for b, i in zip(batch, interactive, strict=True) if i > 0]
    return max(shares) if shares else 0.0


def batch_share(contender: Contender, interactive: Prices | None) -> float:
    """What a contender's calls cost in a batch as a share of their interactive cost (:func:`_share`)."""
    return _share(interactive, batch_prices(contender, interactive, _listed(contender)))


def _listed(contender: Contender) -> Prices | None:
    if contender.model.startswith("fake/") or contender.prices:
        return None
    from evalcore.models.llm_batch import listed_batch_prices

    return listed_batch_prices(contender.model)


def _custom_id(slot: Slot | tuple[Any, ...]) -> str:
    dataset, case, sample = slot
    return f"{dataset}/{case}/{sample}"


def open_batches(
    plan: Plan, store: Store, run: RunInfo, budget: Budget | None, progress: Progress,
    request: Callable[[Contender, Case, int], Request], providers: dict[str, Provider],
) -> Batches | None:  # fmt: skip
    """The run's batches (a resumed run's as its settings record them), its ``providers`` (by contender id) made
    to answer from them; None for a run without ``--batch``."""
    if plan.options.batch is None:
        return None
    from evalcore.execution.budget import meter_prices

    recorded = run.settings.get(SETTING) or {}
    batches = Batches(plan, store, run.id, budget, progress, request, meter_prices(plan), recorded)
    providers.update(batches.providers(providers))
    return batches
