"""Commands that look at a suite before it runs, calling nothing: ``verify`` and ``plan``."""

from __future__ import annotations

import argparse
import dataclasses
import json
import textwrap
from typing import TYPE_CHECKING

from evalcore.analysis.scores.formats import plural
from evalcore.cli._shared import (
    add_db,
    add_race,
    add_selection,
    add_suite,
    open_store,
    plan_of,
    print_refused,
    suite_folder,
    table,
)
from evalcore.cli.batch import add_batch

if TYPE_CHECKING:
    from evalcore.execution.estimate import CostEstimate
    from evalcore.execution.plan import Plan
    from evalcore.execution.size_plan import SizePlan
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
    add_batch(p, plan=True)
    p.add_argument(
        "--detect",
        metavar="SIZE",
        help="the difference between two contenders to detect (3pts, or 0.03): says how many cases a paired "
        "comparison needs for it (80%% power, alpha 0.05), from the spread of the suite's past scores",
    )
    p.add_argument(
        "--cases",
        type=int,
        metavar="N",
        help="says the smallest difference between two contenders that N cases detect (80%% power, alpha 0.05)",
    )
    p.add_argument("--format", choices=["table", "json"], default="table")


def cmd_plan(args: argparse.Namespace) -> int:
    from evalcore.execution.batch_estimate import estimate_batches
    from evalcore.execution.estimate import as_dict, calls_text, describe, estimate_plan_cost
    from evalcore.execution.race_estimate import estimate_race

    plan = plan_of(args)
    datasets = sorted({c.dataset for c in plan.cases})
    matrix = plan.matrix()
    past = _past_runs(args)
    estimate = estimate_plan_cost(plan, past)
    race = estimate_race(plan, past, estimate.usd)
    budget = _budget_line(plan, estimate)
    size = _size(args, plan, past, estimate.usd)
    batch = None if plan.options.batch is None else estimate_batches(plan, estimate, race, args.batch_turnaround)
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
                    "size": None if size is None else dataclasses.asdict(size),
                    "batch": None if batch is None else dataclasses.asdict(batch),
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
    if plan.samples > 1:
        from evalcore.core.repeat_metrics import REPEATS_HELP

        print("\n".join(textwrap.wrap(f"samples: {REPEATS_HELP}", 100, subsequent_indent="  ")))
    agent_calls = calls_text(estimate)
    if agent_calls:
        print(f"model calls: {agent_calls}")
    print(f"estimated cost: {describe(estimate)}")
    if race is not None:
        print(f"adaptive: {race.text()}")
    for line in [] if batch is None else batch.lines():
        print(line)
    if budget:
        print(budget)
    for line in [] if size is None else size.lines():
        print(f"size: {line}")
    print_refused(plan)
    for model, keys in plan.missing_keys.items():
        print(f"missing API key: {model} needs {', '.join(keys)}")
    for key, limit in plan.limits.items():
        shared = _limited(plan, key)
        whom = f"shared by {', '.join(shared)}" if shared else "no contender of this plan"
        print(f"limit {key}: {limit.describe()} ({whom})")
    return 0


def _size(args: argparse.Namespace, plan: Plan, store: Store | None, usd: float | None) -> SizePlan | None:
    """The sample-size answer to ``--detect`` or ``--cases``; None when neither is given."""
    from evalcore.execution.size_plan import parse_difference, plan_size

    if args.detect is None and args.cases is None:
        return None
    detect = None if args.detect is None else parse_difference(args.detect)
    return plan_size(plan, store, detect, args.cases, usd)


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
}
