"""Commands on a suite: ``verify``, ``plan`` and ``run`` (``cases`` is in :mod:`evalcore.cli.cases`)."""

from __future__ import annotations

import _thread
import argparse
import contextlib
import dataclasses
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalcore.analysis.formats import plural
from evalcore.cli._shared import (
    SUITE_HELP,
    Watch,
    add_db,
    add_race,
    add_run_metadata,
    add_selection,
    add_suite,
    add_trackers,
    open_store,
    plan_of,
    print_errors,
    print_refused,
    run_options,
    said_store_lost,
    store_holding,
    suite_folder,
    table,
)
from evalcore.cli.output import output_path

if TYPE_CHECKING:
    from evalcore.execution.estimate import CostEstimate
    from evalcore.execution.plan import Plan
    from evalcore.storage.store import Store


def _budget_line(plan: Plan, estimate: CostEstimate) -> str | None:
    """What the plan's budget cap means for this run, in one line; None without a cap."""
    from evalcore.core.errors import ConfigError
    from evalcore.execution.budget import check_budget, usd_text

    if plan.max_cost_usd is None:
        return None
    cap = f"budget cap: {usd_text(plan.max_cost_usd)} for the whole run"
    try:
        check_budget(plan)
    except ConfigError as exc:
        return f"{cap}; the run would be refused: {exc}"
    if estimate.usd is None:
        return f"{cap}; the estimate is unknown"
    if estimate.lower_bound:
        floor = usd_text(estimate.usd)
        if estimate.usd > plan.max_cost_usd:
            return f"{cap}: even the estimate's lower bound ({floor}) is over it"
        return f"{cap}: the estimate is a lower bound ({floor}); an agent's steps decide whether the run fits"
    if (estimate.high_usd or estimate.usd) <= plan.max_cost_usd:
        return f"{cap}: the estimate fits under it"
    if estimate.usd <= plan.max_cost_usd:
        return f"{cap}: the estimate fits, but its upper end ({usd_text(estimate.high_usd or 0.0)}) does not"
    return (
        f"{cap}: the estimate is over it; the run would stop at the cap and leave the rest for "
        "evalcore run --resume RUN_ID --max-cost <more>"
    )


def add_verify(p: argparse.ArgumentParser) -> None:
    add_suite(p)


def cmd_verify(args: argparse.Namespace) -> int:
    """Exit 0 when the suite can run, 2 when it cannot (what ``evalcore run`` exits on the same suite)."""
    from evalcore.execution.verify import verify_suite

    report = verify_suite(suite_folder(args.suite))
    for line in report.lines:
        print(line)
    return 0 if report.ok else 2


def add_plan(p: argparse.ArgumentParser) -> None:
    add_suite(p)
    add_selection(p)
    add_db(p)
    p.add_argument(
        "--max-cost",
        type=float,
        metavar="USD",
        help="the budget cap the run would have (default: the suite's run.max_cost_usd; 0: none): the plan says "
        "whether the estimate fits under it",
    )
    add_race(p)
    p.add_argument("--format", choices=["table", "json"], default="table")


def cmd_plan(args: argparse.Namespace) -> int:
    from evalcore.execution.estimate import as_dict, calls_text, describe, estimate_plan_cost
    from evalcore.execution.race_estimate import estimate_race

    plan = plan_of(args)
    datasets = sorted({c.dataset for c in plan.cases})
    matrix = plan.matrix()
    past = _past_runs(args)
    estimate = estimate_plan_cost(plan, past)
    race = estimate_race(plan, past)
    budget = _budget_line(plan, estimate)
    if args.format == "json":
        print(
            json.dumps(
                {
                    "matrix": matrix,
                    "calls": plan.calls,
                    "estimated_cost_usd": estimate.usd,
                    "estimate": as_dict(estimate),
                    "max_cost_usd": plan.max_cost_usd,
                    "budget": budget,
                    "refused": [r.__dict__ for r in plan.refused],
                    "missing_keys": plan.missing_keys,
                    "limits": {key: _limited(plan, key) for key in plan.limits},
                    "adaptive": None if race is None else dataclasses.asdict(race),
                },
                indent=1,
            )
        )
        return 0
    costs = {c.contender: c for c in estimate.contenders}
    rows = [
        [cid] + [m.get(d, 0) for d in datasets] + [sum(m.values()), _usd(costs[cid].usd), costs[cid].source]
        for cid, m in matrix.items()
    ]
    print(table(rows, ["contender"] + datasets + ["results", "est. cost", "output tokens from"]))
    print(
        f"\n{plural(plan.calls, 'result')}: {plural(len(plan.contenders), 'contender')} x "
        f"{plural(len(plan.cases), 'case')} x {plural(plan.samples, 'sample')}; "
        f"{plural(plan.parallelism, 'contender')} in flight, {plural(plan.concurrency, 'case')} each"
    )
    agent_calls = calls_text(estimate)
    if agent_calls:
        print(f"model calls: {agent_calls}")
    print(f"estimated cost: {describe(estimate)}")
    if race is not None:
        print(f"adaptive: {race.text()}")
    if budget:
        print(budget)
    print_refused(plan)
    for model, keys in plan.missing_keys.items():
        print(f"missing API key: {model} needs {', '.join(keys)}")
    for key, limit in plan.limits.items():
        shared = _limited(plan, key)
        whom = f"shared by {', '.join(shared)}" if shared else "no contender of this plan"
        print(f"limit {key}: {limit.describe()} ({whom})")
    return 0


def _limited(plan: Plan, key: str) -> list[str]:
    """The contenders of the plan that the limit ``key`` of the suite applies to."""
    from evalcore.models.limits import Limits

    limits = Limits({key: plan.limits[key]})
    return [c.id for c in plan.contenders if limits.of(c)]


def _past_runs(args: argparse.Namespace) -> Store | None:
    """The store, when there is one to learn output tokens from (a plan never creates it)."""
    from evalcore.core.errors import StoreMissing

    try:
        return open_store(args)
    except StoreMissing:
        return None


def _usd(value: float | None) -> str:
    return "–" if value is None else f"${value:.4f}"


def add_run(p: argparse.ArgumentParser) -> None:
    p.add_argument("suite", nargs="?", help=f"{SUITE_HELP} (omit with --resume)")
    add_selection(p)
    add_db(p)
    p.add_argument("--resume", metavar="RUN_ID", help="finish an interrupted run: only what is missing is called")
    p.add_argument("--force", action="store_true", help="resume even if evalcore.yaml changed since the run")
    p.add_argument(
        "--retry-errors",
        action="store_true",
        help="with --resume: call again every result stored as an error (a completed run's too), keep the others; "
        "the retry is recorded in the run's settings",
    )
    p.add_argument(
        "--worker",
        action="store_true",
        help="on a PostgreSQL store: be one of several workers (processes or machines) sharing a run, the one "
        "--resume names, or a new one (its first worker; it prints the run id for the others); each calls the "
        "cases it claims, and one that dies gives them back after --lease",
    )
    p.add_argument(
        "--lease",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="with --worker: how long a worker's claims stay held without renewal (default 30)",
    )
    p.add_argument(
        "--replay",
        metavar="RUN_OR_FILE",
        help="answer every call from a stored run's replies (run id or run file), e.g. to score them with a new "
        "scorer: no model is called, no API key is needed",
    )
    p.add_argument("--parallelism", type=int, help="contenders in flight at once")
    p.add_argument("--concurrency", type=int, help="cases in flight per contender")
    p.add_argument("--max-attempts", type=int, help="calls per case, retries included")
    p.add_argument("--timeout", type=float, help="seconds per call")
    p.add_argument(
        "--max-cost",
        type=float,
        metavar="USD",
        help="a budget cap for the whole run (with --resume too: a higher cap continues a run it stopped; 0: none); "
        "no call starts that would pass it, and every model needs a known price",
    )
    add_race(p)
    p.add_argument("--revision", help="a label for provenance, e.g. a git commit of your prompts")
    add_run_metadata(
        p, "a label stored in the run's settings, shown by `evalcore runs` and on Runs (repeat), e.g. branch=main"
    )
    add_trackers(p)
    p.add_argument("-o", "--output", help="also write the run file here (.json or .json.gz)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.add_argument(
        "--gate",
        action="store_true",
        help="then check the run against the suite's gate and pinned baseline (exit 0 pass/warn, 1 fail, 2 undecided)",
    )


def cmd_run(args: argparse.Namespace) -> int:
    """Exit codes (docs/reliability.md): see :func:`_run`. A store the command created is removed again when no
    run was stored in it (a broken suite, a refused lineup): a failed command leaves no empty store behind."""
    from evalcore.cli.imports import StoreOnDemand

    if args.output:
        output_path(args.output)
    # Resuming, or replaying a stored run, reads a run the store must already hold: a mistyped --db is said,
    # never created empty.
    if args.replay and not args.resume and not Path(args.replay).is_file():
        return _run(args, store_holding(f"--replay {args.replay!r}", args))
    if args.resume:
        return _run(args, open_store(args))
    holder = StoreOnDemand(args)
    store = holder.store()
    try:
        return _run(args, store)
    finally:
        holder.written = not holder.created or bool(store.list_runs())
        holder.close()


def _run(args: argparse.Namespace, store: Store) -> int:
    """Exit codes (docs/reliability.md): 0 completed; 1 completed but every call of a contender failed, an
    endpoint could not be reached (cases left unrun) or the run failed; 2 a configuration error before any
    call (raised, see :func:`evalcore.cli.parser.main`); 130 Ctrl-C."""
    import asyncio

    from evalcore.core.errors import ConfigError, EvalcoreError
    from evalcore.execution.progress import StderrBars
    from evalcore.execution.resume import check_shareable, join_run
    from evalcore.execution.runner import execute_plan, resume_plan, start_run

    if args.resume and args.replay:
        raise ConfigError("--replay starts a new run; a resumed run replays the run it replayed before. Drop --replay.")
    if args.metadata and args.resume:
        raise ConfigError("--metadata labels a new run; a resumed run keeps the labels it started with. Drop it.")
    if args.retry_errors and not args.resume:
        raise ConfigError("--retry-errors retries a stored run's errors: give its id, --resume RUN_ID --retry-errors")
    if args.worker and args.retry_errors:
        raise ConfigError(
            "--retry-errors retries a run's errors with one process: drop --worker (evalcore run --resume RUN_ID "
            "--retry-errors)"
        )
    if args.worker:
        from evalcore.storage.claims import require_server

        require_server(store)
    if args.lease <= 0:
        raise ConfigError(f"--lease {args.lease:g}: give the seconds a worker's claims stay held, e.g. --lease 30")
    if args.resume:
        run_id = store.resolve_run_id(args.resume)
        plan, run, done = resume_plan(
            store, run_id, force=args.force, max_cost_usd=args.max_cost, retry_errors=args.retry_errors
        )
        kept, to_go = f"{len(done)}/{plan.calls}", plan.calls - len(done)
        said = (
            f"retrying the errors of run {run.info.id}: {kept} results kept, {to_go} to call again"
            if args.retry_errors
            else f"resuming run {run.info.id}: {kept} results stored, {to_go} to go"
        )
        print(said, file=sys.stderr)
        plan.options.trackers = list(args.tracker)
        claims = join_run(store, plan, run, done, args.lease) if args.worker else None
        store.set_status(run.info.id, "running")
    else:
        args.suite = suite_folder(args.suite)
        plan, done, claims = _run_plan(args, store), set(), None
        print_refused(plan)
        if args.worker:
            check_shareable(plan)
        run = start_run(plan, store)
        print(f"run {run.info.id}: {_calls_text(plan)}", file=sys.stderr)
        if args.worker:
            claims = join_run(store, plan, run, done, args.lease)
            print(
                f"this process is its first worker; start the others with: evalcore run --resume {run.info.id} "
                "--worker (and this --db)",
                file=sys.stderr,
            )
    if plan.max_cost_usd is not None:
        print(f"budget cap: ${plan.max_cost_usd:g} for the whole run", file=sys.stderr)
    watch = Watch(None if args.quiet else StderrBars())
    terminated: list[int] = []
    try:
        with _sigterm_as_ctrl_c(terminated):
            status = asyncio.run(execute_plan(plan, store, run, done, on_progress=watch, claims=claims))
    except KeyboardInterrupt:
        slots = plan.parallelism * plan.concurrency
        print(
            f"\ncancelled: finished results are stored; calls still in flight (at most {slots}) were abandoned and "
            f"their replies not stored. Resume with: evalcore run --resume {run.info.id}",
            file=sys.stderr,
        )
        return 143 if terminated else 130
    except EvalcoreError as exc:
        print(f"error: {exc}\nrun {run.info.id}: failed", file=sys.stderr)
        return 1
    if said_store_lost(watch.last):
        return 1
    after_run(args, store, run.info.id, status)
    for line in getattr(watch.last, "unsent", []):
        print(line, file=sys.stderr)
    code = exit_code(store, run.info.id, status, watch.last, plan.samples)
    code = max(code, _gate_code(store, run.info.id)) if args.gate else code
    print(f"run {run.info.id} stored in {store.location}", file=sys.stderr)
    return code


@contextlib.contextmanager
def _sigterm_as_ctrl_c(came: list[int]) -> Iterator[None]:
    """Stop the run on SIGTERM as on Ctrl-C (finished results stored, the run cancelled, an agent's MCP servers
    ended): the default action would end the process at once and leave the stdio servers, which run in
    sessions of their own, behind. ``came`` gets the signal's number when it comes."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: Any) -> None:
        came.append(signum)
        _thread.interrupt_main()  # what Ctrl-C does: asyncio cancels the run's task, which cleans up

    before = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def _run_plan(args: argparse.Namespace, store: Store) -> Plan:
    """The plan of ``run``'s arguments; under ``--replay`` answered from the stored run it names, which is said
    on stderr with every contender it cannot answer."""
    if not args.replay:
        return plan_of(args)
    from evalcore.execution.plan import make_plan
    from evalcore.execution.replay import open_replay, unanswerable
    from evalcore.suite.loader import load_suite

    suite = load_suite(args.suite)
    options = run_options(args, suite)
    options.replay = open_replay(args.replay, store)
    plan = make_plan(suite, options)
    replayed = options.replay.run.info.id
    print(f"replaying run {replayed} ({options.replay.file or store.path}): no model is called", file=sys.stderr)
    for contender, why in unanswerable(plan).items():
        print(f"replay of run {replayed[:8]}: {why}; every call of {contender} will fail (replay)", file=sys.stderr)
    return plan


def _gate_code(store: Store, run_id: str) -> int:
    """``evalcore gate`` of the run just made, against the suite's pinned baseline: its exit code."""
    from evalcore.cli.decide import gate_run
    from evalcore.core.errors import EvalcoreError
    from evalcore.storage.history import StoredRun

    print()
    try:
        return gate_run(StoredRun(store, run_id), store)
    except EvalcoreError as exc:
        print(f"gate: cannot decide: {exc}", file=sys.stderr)
        return 2


def exit_code(store: Store, run_id: str, status: str, progress: Any, samples: int) -> int:
    """1 when cases were left unrun (an unreachable endpoint), every call of a contender failed, or the
    run did not complete; else 0. Says why on stderr."""
    code = 0 if status == "completed" else 1
    budget_reached = progress is not None and (progress.over_budget or getattr(progress, "budget_reached", False))
    if budget_reached:
        from evalcore.execution.budget import budget_message

        unrun, unjudged = progress.over_budget + progress.skipped, progress.unjudged
        if getattr(progress, "run_unrun", None) is not None:  # a worker of a shared run: the whole run's
            unrun = progress.run_unrun
        unfinished = getattr(progress, "unfinished", 0)
        stop = budget_message(progress.spent_usd, progress.cap_usd, unrun, samples, run_id, unjudged, unfinished)
        print(stop, file=sys.stderr)
        code = 1
    for name, p in progress.contenders.items() if progress is not None else []:
        if p.skipped:
            noun = "case" if samples == 1 else "call"
            print(
                f"{plural(p.skipped, noun)} of {name} not called: {p.blocked}; "
                f"retry with evalcore run --resume {run_id}",
                file=sys.stderr,
            )
            code = 1
        if p.unjudged and not budget_reached:
            print(
                f"{p.unjudged} repl{'y' if p.unjudged == 1 else 'ies'} of {name} not judged: their judge could not "
                f"be reached; judge them with evalcore run --resume {run_id}",
                file=sys.stderr,
            )
            code = 1
    message: str = getattr(progress, "message", "") or ""
    told = budget_reached or any(p.skipped or p.unjudged for p in getattr(progress, "contenders", {}).values())
    if status == "interrupted" and message and not told:
        print(f"run {run_id} is not complete: {message}", file=sys.stderr)  # another worker left it so
    for name, (results, errors) in store.result_counts(run_id).items():
        if results and errors == results:
            failed = plural(errors, "error")
            print(f"every call of {name} failed ({failed}): nothing of it is scored", file=sys.stderr)
            code = 1
    return code


def _calls_text(plan: Plan) -> str:
    """``144 calls``; an adaptive run's are a ceiling: ``at most 144 calls (a race: …)``."""
    if plan.options.adaptive is None:
        return plural(plan.calls, "call")
    return f"at most {plan.calls:,} calls (a race: it stops calling the contenders that cannot win)"


def _race_calls(settings: dict[str, Any]) -> str:
    """``; the race made 96 of at most 144 calls (48 saved: one contender left)`` for a race that ended, else ''."""
    race = settings.get("adaptive")
    if not isinstance(race, dict):
        return ""
    made, ceiling = race.get("calls"), race.get("of_calls")
    if not isinstance(made, int) or not isinstance(ceiling, int):
        return ""
    return f"; the race made {made:,} of at most {ceiling:,} calls ({ceiling - made:,} saved: {race.get('ended')})"


def after_run(args: argparse.Namespace, store: Store, run_id: str, status: str) -> None:
    """The leaderboard, why calls failed and the run file, without reading every result back as a record:
    the leaderboard comes from the summary the app opens the run with, the failures from their own query,
    the file a part at a time."""
    from evalcore.analysis.summaries import write_summary
    from evalcore.core.errors import ConfigError, EvalcoreError
    from evalcore.storage.history import StoredRun

    run = StoredRun(store, run_id)
    try:
        summary = write_summary(store, run_id)
    except EvalcoreError as e:
        print(f"the leaderboard cannot be shown: {e}", file=sys.stderr)
    else:
        from evalcore.cli.ranking import print_judge_costs, print_run_leaderboard

        print_run_leaderboard(run, summary)
        if summary is not None:
            print_judge_costs(run)
    print_errors(store.failed_calls(run_id))
    stored = run.header.info.status
    if stored == "running" and status != "completed":  # a worker of a shared run that others still work on
        print(f"\nrun {run_id}: running (this worker stopped: {status}; the other workers finish it)")
    else:
        print(f"\nrun {run_id}: {status}{_race_calls(run.header.info.settings)}")
    if args.output:
        from evalcore.cli.output import writing
        from evalcore.runfile.write import export_run

        try:
            with writing(args.output):
                export_run(store, run_id, output_path(args.output))
        except ConfigError as e:
            raise ConfigError(f"{e}; the run is stored: write its file with evalcore export {run_id} -o PATH") from None
        print(f"wrote {args.output}")


COMMANDS = {
    "verify": (
        add_verify,
        cmd_verify,
        "check a suite offline: config, cases, expected answers, adapter, scorer",
        "evalcore verify data/suites/intake",
    ),
    "plan": (
        add_plan,
        cmd_plan,
        "show the contender x dataset matrix, calls, cost estimate and refusals; calls nothing",
        "evalcore plan data/suites/intake -m openai/o4-mini -e low,high",
    ),
    "run": (
        add_run,
        cmd_run,
        "run a suite (or --resume a run), storing results as they complete",
        "evalcore run data/suites/intake -d roofing --samples 3",
    ),
}
