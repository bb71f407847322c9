"""``evalcore import traces.json --suite SUITE``: imported traces scored by the suite's scorers and judges that need
no expected answer (:mod:`evalcore.execution.trace_scoring`), with a summary of what was scored and what was not."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from evalcore.analysis.scores.formats import plural

if TYPE_CHECKING:
    from evalcore.core.records import Run
    from evalcore.execution.trace_scoring import TraceScorers
    from evalcore.storage.store import Store


def add_trace_scoring(group: Any) -> None:
    """``--suite`` and ``--max-cost`` of ``evalcore import``."""
    group.add_argument(
        "--suite",
        metavar="PATH",
        help="score the traced replies with this suite's scorers and judges that need no expected answer (an "
        "llm_judge with reference: none, non_empty, regex_absent …); no traced model is called",
    )
    group.add_argument(
        "--max-cost", type=float, metavar="USD", help="with --suite: stop judging before the judges' cost passes USD"
    )


def trace_scorers(args: argparse.Namespace) -> TraceScorers | None:
    """The ``--suite``'s scorers split by whether they can score traces; None without ``--suite``.

    Raises:
        ConfigError: the suite cannot be loaded, none of its scorers can score traces, a ``--max-cost`` without
            ``--suite`` or below 0.
    """
    from evalcore.core.errors import ConfigError
    from evalcore.execution.trace_scoring import split_scorers
    from evalcore.suite.loader import load_suite

    if args.suite is None:
        if args.max_cost is not None:
            raise ConfigError(f"--max-cost {args.max_cost:g}: it caps the judges of --suite; give --suite too")
        return None
    if args.max_cost is not None and args.max_cost < 0:
        raise ConfigError(f"--max-cost {args.max_cost:g}: give a positive amount in USD, or 0 for no cap")
    return split_scorers(load_suite(args.suite))


def score_traces(args: argparse.Namespace, store: Store, imported: Run, scorers: TraceScorers) -> int:
    """Score a stored trace run into a new run; say what was scored and what was not, and why.

    Returns:
        The exit code of a run (``evalcore run``'s): 0 completed, 1 when it did not or results failed wholesale.
    """
    from evalcore.cli.rescore import run_started
    from evalcore.execution.plan import RunOptions
    from evalcore.execution.runner import start_run
    from evalcore.execution.trace_scoring import trace_plan

    plan = trace_plan(imported, scorers, RunOptions(max_cost_usd=args.max_cost))
    run = start_run(plan, store)
    for line in summary(imported, scorers, run.info.id):
        print(line)
    return run_started(plan, store, run, args.quiet, argparse.Namespace(output=None))


def summary(imported: Run, scorers: TraceScorers, run_id: str) -> list[str]:
    """What scoring the traces will do: which scorers score them, which do not and why, and which calls are not
    scored (not captured, failed)."""
    counts = imported.info.settings.get("import", {}).get("source_counts", {})
    replies = sum(r.status != "error" for r in imported.results)
    failed = len(imported.results) - replies
    suite = scorers.suite
    lines = [
        f"scoring run {imported.info.id} with suite {suite.name} ({suite.path}) as run {run_id}: "
        f"{plural(replies, 'traced reply', 'traced replies')}; no traced model is called",
        f"  scored by: {', '.join(scorers.kept_ids)}",
    ]
    lines += [f"  not scored by {name}: {why}" for name, why in scorers.left_out.items()]
    uncaptured = counts.get("not_captured") or 0
    if uncaptured:
        lines.append(
            f"  not scored: {plural(uncaptured, 'traced call')} whose content was not captured (named in the notes)"
        )
    if failed:
        lines.append(f"  not scored: {plural(failed, 'traced call')} that failed (an error result, its message kept)")
    return lines
