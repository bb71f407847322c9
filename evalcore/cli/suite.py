"""``evalcore run``: a suite (or ``--resume`` a run), storing results as they complete (``verify`` and ``plan`` are in
:mod:`evalcore.cli.planning`, ``cases`` in :mod:`evalcore.cli.cases`)."""

from __future__ import annotations

import _thread
import argparse
import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalcore.analysis.scores.formats import plural
from evalcore.cli._shared import (
    SUITE_HELP,
    Watch,
    add_db,
    add_race,
    add_run_metadata,
    add_selection,
    add_trackers,
    open_store,
    plan_of,
    print_errors,
    print_refused,
    run_options,
    said_store_lost,
    store_holding,
    suite_folder,
)
from evalcore.cli.batch import add_batch
from evalcore.cli.cache import add_run_cache
from evalcore.cli.output import output_path

if TYPE_CHECKING:
    from evalcore.execution.plan import Plan
    from evalcore.storage.store import Store


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
    add_run_cache(p)
    add_batch(p)
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
    from evalcore.execution.batching import check_batchable
    from evalcore.execution.progress import StderrBars
    from evalcore.execution.resume import check_shareable, join_run
    from evalcore.execution.runner import execute_plan, resume_plan, start_run

    if args.resume and args.replay:
        raise ConfigError("--replay starts a new run; a resumed run replays the run it replayed before. Drop --replay.")
    if args.batch and args.resume:
        raise ConfigError("--batch starts a new run; a resumed run sends its calls as it started. Drop --batch.")
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
        check_batchable(plan)
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
        batches = "; the batches it sent are read, not sent again, by the resume" if plan.options.batch else ""
        print(
            f"\ncancelled: finished results are stored; calls still in flight (at most {slots}) were abandoned and "
            f"their replies not stored{batches}. Resume with: evalcore run --resume {run.info.id}",
            file=sys.stderr,
        )
        return 143 if terminated else 130
    except EvalcoreError as exc:
        print(f"error: {exc}\nrun {run.info.id}: failed", file=sys.stderr)
        return 1
    code = finish_run(args, store, run.info.id, status, watch, plan.samples)
    if code is None:
        return 1
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

    # A script's `evalcore run … &` starts with Ctrl-C ignored, and interrupt_main does nothing then: Ctrl-C's
    # handler is put back for the run, so that SIGTERM still stops it.
    ignored = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    if ignored:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    before = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)
        if ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)


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


def finish_run(
    args: argparse.Namespace, store: Store, run_id: str, status: str, watch: Watch, samples: int
) -> int | None:
    """After a run went its course: the leaderboard and the run file (:func:`after_run`), the tracker events not
    sent, and the exit code (:func:`exit_code`); None when the store was lost midway (already said)."""
    if said_store_lost(watch.last):
        return None
    after_run(args, store, run_id, status)
    for line in [*getattr(watch.last, "unsent", []), getattr(watch.last, "cache", None)]:
        if line:
            print(line, file=sys.stderr)
    return exit_code(store, run_id, status, watch.last, samples)


def _left_unrun(name: str, p: Any, samples: int) -> str | None:
    """What a contender's progress ``p`` left for a resume to call: cases not called because its endpoint could
    not be reached, else calls in flight when its breaker opened (stored, and called again); None: nothing."""
    noun = "case" if samples == 1 else "call"
    if p.skipped:
        return f"{plural(p.skipped, noun)} of {name} not called: {p.blocked}"
    if getattr(p, "cut_off", 0):
        return f"{plural(p.cut_off, noun)} of {name} stopped by its endpoint's circuit breaker"
    return None


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
        unrun = _left_unrun(name, p, samples)
        if unrun:
            print(f"{unrun}; retry with evalcore run --resume {run_id}", file=sys.stderr)
            code = 1
        if p.unjudged and not budget_reached:
            print(
                f"{p.unjudged} repl{'y' if p.unjudged == 1 else 'ies'} of {name} not judged: their judge could not "
                f"be reached; judge them with evalcore run --resume {run_id}",
                file=sys.stderr,
            )
            code = 1
    message: str = getattr(progress, "message", "") or ""
    contenders = getattr(progress, "contenders", {}).values()
    told = budget_reached or any(p.skipped or p.unjudged or getattr(p, "cut_off", 0) for p in contenders)
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
    from evalcore.analysis.tables.summaries import write_summary
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
    "run": (
        add_run,
        cmd_run,
        "run a suite (or --resume a run), storing results as they complete",
        "evalcore run data/suites/intake -d roofing --samples 3",
    ),
}
