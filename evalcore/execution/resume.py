"""Resuming a stored run that did not finish: its plan, and the results already done.

``evalcore run --resume RUN`` (and the app's Runs page) call only what is missing: a result stored with an
unreachable endpoint is called again, and so is a case the budget cap stopped midway; a reply stored but not judged
is judged, every other stored result is kept.
With ``--retry-errors`` (the Runs page's Retry errors) every result stored as an error is called again too,
even in a completed run; each retry is recorded in the run's settings under :data:`RETRIES_SETTING`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from evalcore.core.clock import utc_now
from evalcore.core.errors import ConfigError
from evalcore.core.records import Case, Result, Run
from evalcore.execution.batch_settings import recorded_batch
from evalcore.execution.budget import Budget, check_budget
from evalcore.execution.plan import TRACES_SETTING, Plan, RunOptions, make_plan
from evalcore.execution.race_settings import recorded_race
from evalcore.execution.replay import stored_replay
from evalcore.execution.rescore import rescore_plan
from evalcore.execution.trace_scoring import split_scorers, trace_plan
from evalcore.models.breaker import BREAKER_PREFIXES
from evalcore.models.metering import UNFINISHED_PREFIX
from evalcore.scoring.client import UNJUDGED_PREFIX
from evalcore.storage.history import update_settings
from evalcore.storage.spend import CAP_SETTING, stored_spend
from evalcore.storage.store import Store
from evalcore.storage.unsaved import store_unsaved
from evalcore.suite.lineup import Overrides
from evalcore.suite.loader import Suite, load_suite

if TYPE_CHECKING:
    from evalcore.storage.claims import Claims

Key = tuple[str, str, str, int]


#: What a run records of how it was run, which a resume runs the rest with.
RUN_SETTINGS = ("suite_path", "samples", "parallelism", "concurrency", "max_attempts", "timeout_s")


#: The stored errors a resume asks again, by how their message begins: the call never reached its endpoint (or its
#: breaker stopped it), the reply was not judged (the budget cap, an unreachable judge: its stored reply is judged),
#: or the budget cap stopped the case midway (an agent's later step). Read by the single-process resume and by a
#: worker joining a shared run (:func:`join_run`), so both ask again the same results.
ASKED_AGAIN = (*BREAKER_PREFIXES, UNJUDGED_PREFIX, UNFINISHED_PREFIX)


#: The key of a run's settings that lists its retries of errors: ``[{"at", "errors", "kinds"}]``, oldest first.
RETRIES_SETTING = "retries"


def why_not_resumable(run: Run, retry_errors: bool = False) -> str | None:
    """Why a stored run cannot be resumed, in words for its user; None when it can.

    A completed run has nothing left to call (unless its errors are retried); a run imported from another
    tool's file (or a run file whose settings lack the suite folder) has no suite to call the rest of its
    cases from.

    Args:
        run: the stored run (its header is enough).
        retry_errors: the resume calls the run's errors again, so a completed run may be resumed.
    """
    if run.info.status == "completed" and not retry_errors:
        return (
            f"run {run.info.id} is already completed; nothing to resume. "
            f"To call its errors again: evalcore run --resume {run.info.id} --retry-errors"
        )
    missing = [key for key in RUN_SETTINGS if key not in run.info.settings]
    if not missing:
        return None
    source = run.info.provenance.get("source") or {}
    origin = (
        f"it was imported from {source.get('file', 'a file')} ({source['tool']}), not run by evalcore"
        if source.get("tool")
        else f"it records no {', '.join(missing)}"
    )
    return (
        f"run {run.info.id} cannot be resumed: {origin}, so there is no suite to call the rest of its cases from. "
        "Finish it where it was run and import it again, or run an evalcore suite."
    )


def resume_plan(
    store: Store, run_id: str, force: bool = False, max_cost_usd: float | None = None, retry_errors: bool = False
) -> tuple[Plan, Run, set[Key]]:
    """The plan of a stored, unfinished run, and the keys already done.

    Args:
        store: the store.
        run_id: the run.
        force: resume even though the suite or a prompt changed since the run started.
        max_cost_usd: a new budget cap for the whole run (0: none); None keeps the cap the run recorded.
        retry_errors: call every result stored as an error again (a completed run's too); the others are kept.
            The retry is recorded in the run's settings (:func:`record_retry`) once the plan is made.

    Raises:
        ConfigError: the run cannot be resumed as it was, a capped contender has no known price, or (with
            ``retry_errors``) a completed run has no error to retry.
        StoreError: the results a run kept in a file when its store went away cannot be stored
            (:func:`~evalcore.storage.unsaved.store_unsaved`).
    """
    store_unsaved(store, run_id)  # results paid for before the store went away count as done
    run = store.load_run(run_id)
    refused = why_not_resumable(run, retry_errors)
    if refused:
        raise ConfigError(refused)
    errors = [r for r in run.results if r.status == "error"] if retry_errors else []
    if retry_errors and not errors and run.info.status == "completed":
        raise ConfigError(f"run {run.info.id} has no errors to retry: every result is scored.")
    settings = run.info.settings
    suite = load_suite(settings["suite_path"])
    if suite.suite_hash != run.info.provenance.get("suite_hash") and not force:
        raise ConfigError(
            f"{suite.path}: evalcore.yaml changed since run {run_id} started; resuming would "
            "mix results of two configurations. Pass --force to resume anyway."
        )
    edited = _edited_prompts(run, suite)
    if edited and not force:
        raise ConfigError(
            f"{suite.path}: prompt {', '.join(edited)} changed since run {run_id} started; resuming would "
            "ask the rest of the cases another question. Pass --force to resume anyway."
        )
    options = RunOptions(
        samples=settings["samples"],
        parallelism=settings["parallelism"],
        concurrency=settings["concurrency"],
        max_attempts=settings["max_attempts"],
        timeout_s=settings["timeout_s"],
        overrides=Overrides(**settings.get("overrides", {})),
        revision=run.info.provenance.get("revision"),
        replay=stored_replay(settings, store),
        rescore=bool(settings.get("rescore")),
        judge_cache=bool(settings.get("judge_cache")),
        # The run's own cap, or none: a cap the suite gained since does not apply to a run started without one.
        max_cost_usd=settings.get(CAP_SETTING, 0.0) if max_cost_usd is None else max_cost_usd,
        # An adaptive run continues its race, with its seed, so the rest of its cases come in the same order.
        adaptive=recorded_race(settings),
        # A batch run polls the batches it sent before it sends the rest.
        batch=recorded_batch(settings),
    )
    traced = settings.get(TRACES_SETTING) is not None
    if traced and options.replay is not None:  # the cases are the imported traces', not the suite's
        plan = trace_plan(options.replay.run, split_scorers(suite), options)
    elif options.rescore and options.replay is not None:  # the contenders come from the rescored run, not the lineup
        plan = rescore_plan(options.replay, suite, options)
    else:
        plan = make_plan(suite, options)
    wanted = {c.id for c in run.contenders}
    plan.contenders = [c for c in plan.contenders if c.id in wanted]
    plan.cases = plan.cases if traced else _stored_cases(run, suite)
    check_budget(plan)
    done = store.done_keys(run_id) - _unreachable_keys(store, run_id) - {r.key for r in errors}
    if errors:
        record_retry(store, run_id, errors)
    return plan, run, done


def record_retry(store: Store, run_id: str, errors: list[Result]) -> None:
    """Add a retry of ``errors`` to the run's settings (:data:`RETRIES_SETTING`): when, how many, of which kinds.

    The settings are free form in the run file (schema version 1), so a reader that knows nothing of retries
    still reads the run.
    """
    kinds = Counter(r.error.kind if r.error is not None else "other" for r in errors)
    entry = {"at": utc_now(), "errors": len(errors), "kinds": dict(sorted(kinds.items()))}
    update_settings(store, run_id, lambda settings: {**settings, RETRIES_SETTING: [*retries(settings), entry]})


def retries(settings: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The retries of errors a run's settings record, oldest first (none for a run never retried)."""
    found = settings.get(RETRIES_SETTING)
    return [dict(r) for r in found if isinstance(r, dict)] if isinstance(found, list) else []


def _edited_prompts(run: Run, suite: Suite) -> list[str]:
    """The prompts the run asked with whose file now differs (or is gone), by name."""
    asked = run.info.provenance.get("prompts") or {}
    return [
        name
        for name, prompt in asked.items()
        if name not in suite.prompts or suite.prompts[name].sha256 != prompt.get("sha256")
    ]


def _unreachable_keys(store: Store, run_id: str) -> set[Key]:
    """The stored results a resume asks again (:data:`ASKED_AGAIN`)."""
    return {key for key, message in store.error_messages(run_id).items() if (message or "").startswith(ASKED_AGAIN)}


def _stored_cases(run: Run, suite: Suite) -> list[Case]:
    missing = sorted({c.dataset for c in run.cases} - set(suite.datasets))
    if missing:
        raise ConfigError(f"{suite.path}: dataset {missing[0]!r} of the run is gone from the suite; cannot resume.")
    return list(run.cases)


def check_shareable(plan: Plan, run_id: str | None = None) -> None:
    """Refuse a plan that workers cannot share: an adaptive run (its rounds need one process to decide them), a
    batch run (one process sends and polls its batches).

    Args:
        plan: the run's plan.
        run_id: the stored run (None: a run not started yet).

    Raises:
        ConfigError: one line saying to run it without ``--worker``.
    """
    if plan.options.batch is not None:
        raise ConfigError(
            f"{f'run {run_id}' if run_id else 'the run'} sends its calls in batches, which one process sends and "
            "polls; run it without --worker"
        )
    if plan.options.adaptive is not None:
        raise ConfigError(
            f"{f'run {run_id}' if run_id else 'the run'} is adaptive: one process decides its rounds, so it cannot "
            "be shared by workers; run it without --worker"
        )


def join_run(store: Store, plan: Plan, run: Run, done: set[Key], lease_s: float) -> Claims:
    """This process as one worker of a run shared by several (``evalcore run --resume RUN --worker``).

    The slots the plan still needs are recorded for every worker to claim (the first worker records them; a
    slot another worker recorded is kept as it is), with the pairwise phase of a suite that has one, and what the
    run's stored results cost.

    Args:
        store: a PostgreSQL store.
        plan: the run's plan (:func:`resume_plan`).
        run: the stored run.
        done: the slots already stored.
        lease_s: seconds a claim stays held without renewal: a dead worker's slots are claimed again after it.

    Raises:
        ConfigError: the store is SQLite, or the run is adaptive (its rounds need one process to decide them).
    """
    from evalcore.execution.pairwise import pairwise_judge
    from evalcore.storage.claims import PAIRWISE_SLOT, Claims

    check_shareable(plan, run.info.id)
    claims = Claims(store, run.info.id, lease_s)
    todo = (
        (contender.id, case.dataset, case.id, sample)
        for contender in plan.contenders
        for case in plan.cases
        for sample in range(plan.samples)
    )
    slots = [key for key in todo if key not in done]
    if pairwise_judge(plan.suite) is not None:  # its comparisons stored so far are not compared again
        slots.append(PAIRWISE_SLOT)
    # A slot another worker marked done whose stored result is one a resume asks again is to claim again.
    claims.seed(slots, stored_spend(store, run.info.id, plan.replay is None), redo=ASKED_AGAIN)
    return claims


def claimed_slots(
    claims: Claims, plan: Plan, contender_id: str, batch: list[tuple[Case, int]], budget: Budget | None
) -> Iterator[tuple[Case, int]]:
    """A worker's slots of a contender as it claims them, a few at a time (a short call to the database in the
    event loop), until none is free or the budget is spent; ``batch`` holds the claimed ones not yet started."""
    cases = {c.key: c for c in plan.cases}
    while budget is None or not budget.exhausted:
        if not batch:
            keys = claims.claim(plan.concurrency, contender_id)
            if not keys:
                return
            batch.extend((cases[(dataset, case)], sample) for _, dataset, case, sample in keys)
        yield batch.pop(0)
