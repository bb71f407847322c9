"""``evalcore rescore``: a stored run's outputs scored again by its suite's current scorers, calling no contender."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from evalcore.cli._shared import add_db, open_store, store_holding
from evalcore.cli.output import output_path

if TYPE_CHECKING:
    from evalcore.core.records import Run
    from evalcore.execution.plan import Plan
    from evalcore.storage.store import Store


def add_rescore(p: argparse.ArgumentParser) -> None:
    p.add_argument("run", help="a run id in the store, or a run file (.json / .json.gz)")
    p.add_argument("--suite", metavar="PATH", help="the suite whose scorers apply (default: the one the run names)")
    p.add_argument("-o", "--output", help="also write the new run file here (.json or .json.gz)")
    p.add_argument(
        "--judge-cache",
        action="store_true",
        help="reuse a stored judge verdict when the judge's model and prompt are unchanged (no judge call)",
    )
    p.add_argument("--concurrency", type=int, help="results scored at once per contender (judge calls in flight)")
    p.add_argument("--max-attempts", type=int, help="judge calls per verdict, retries included")
    p.add_argument("--timeout", type=float, help="seconds per judge call")
    p.add_argument("--revision", help="a label for provenance, e.g. a git commit of your rubric")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    add_db(p)


def cmd_rescore(args: argparse.Namespace) -> int:
    """Exit codes as ``evalcore run``'s: 0 completed, 1 when results failed wholesale or the run failed, 2 a
    configuration error before anything was scored, 130 Ctrl-C."""
    from evalcore.core.errors import ConfigError
    from evalcore.execution.plan import RunOptions
    from evalcore.execution.replay import open_replay
    from evalcore.execution.rescore import keep_ratings, rescore_plan
    from evalcore.execution.runner import start_run
    from evalcore.suite.loader import load_suite

    if args.output:
        output_path(args.output)
    # A run file rescored writes a new run, into a store created for it; a stored run needs its store.
    store = open_store(args, create=True) if Path(args.run).is_file() else store_holding(args.run, args)
    replay = open_replay(args.run, store)
    stored = replay.run
    suite_path = args.suite or stored.info.settings.get("suite_path")
    if not suite_path or not Path(suite_path).is_dir():
        named = f"names {suite_path!r}, which is not a folder here" if suite_path else "names no suite"
        raise ConfigError(f"run {stored.info.id} {named}: give the suite folder with --suite PATH")
    options = RunOptions(
        concurrency=args.concurrency,
        max_attempts=args.max_attempts,
        timeout_s=args.timeout,
        revision=args.revision,
        judge_cache=args.judge_cache,
    )
    plan = rescore_plan(replay, load_suite(suite_path), options)
    run = start_run(plan, store)
    keep_ratings(store, stored, run.info.id)
    reused = "; stored judge verdicts are reused where unchanged" if args.judge_cache else ""
    print(
        f"rescoring run {stored.info.id} as run {run.info.id}: {plan.calls} results, no contender is called{reused}",
        file=sys.stderr,
    )
    return run_started(plan, store, run, args.quiet, args)


def run_started(plan: Plan, store: Store, run: Run, quiet: bool, args: argparse.Namespace) -> int:
    """Execute a run that calls no contender (a rescore, traces scored), with progress bars unless ``quiet``;
    its exit code, and what it did said as ``evalcore run`` says it (``args.output``: where to write the run)."""
    import asyncio

    from evalcore.cli.suite import Watch, finish_run
    from evalcore.core.errors import EvalcoreError
    from evalcore.execution.progress import StderrBars
    from evalcore.execution.runner import execute_plan

    watch = Watch(None if quiet else StderrBars())
    try:
        status = asyncio.run(execute_plan(plan, store, run, on_progress=watch))
    except KeyboardInterrupt:
        print(f"\ncancelled: resume with: evalcore run --resume {run.info.id}", file=sys.stderr)
        return 130
    except EvalcoreError as exc:
        print(f"error: {exc}\nrun {run.info.id}: failed", file=sys.stderr)
        return 1
    code = finish_run(args, store, run.info.id, status, watch, plan.samples)
    return 1 if code is None else code


COMMANDS = {
    "rescore": (
        add_rescore,
        cmd_rescore,
        "score a stored run's outputs again with the suite's current scorers, into a new run; calls no contender",
        "evalcore rescore RUN_ID --judge-cache -o rescored.json",
    ),
}
