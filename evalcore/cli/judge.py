"""``evalcore judge align RUN``: the suite's judge given few-shot examples where it disagreed with people.

Reports the judge's agreement with people (accuracy and Cohen's kappa) before and after, on ratings held out from
the choice of examples (K-fold cross-validation), and writes the aligned judge (``judges/NAME.yaml`` in the suite's
folder) only when the paired bootstrap interval of the per-item agreement difference lies above 0
(:mod:`evalcore.execution.align`). Exit 0 when it measured (aligned or not better), 1 when some held-out items
could not be judged (nothing written), 2 on a user error.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from evalcore.cli._shared import add_db, store_holding, table

if TYPE_CHECKING:
    from evalcore.execution.align import AlignOutcome


def add_judge(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["align"], help="align: give the judge examples where people disagreed")
    p.add_argument("run", metavar="RUN", help="a run id in the store (a unique prefix is enough) with people's ratings")
    p.add_argument("--judge", metavar="NAME", help="the llm_judge scorer (its id) or judge model; needed with several")
    p.add_argument("--shots", type=int, default=4, metavar="K", help="few-shot examples per prompt (default 4)")
    p.add_argument("--folds", type=int, default=5, metavar="F", help="cross-validation folds (default 5)")
    p.add_argument(
        "--rewrite-rubric",
        metavar="MODEL",
        help="also have MODEL rewrite the rubric from each fold's examples (a litellm id or fake/judge-learner)",
    )
    p.add_argument(
        "--rejudge-before",
        action="store_true",
        help="ask the judge as it is again for 'before' instead of reading its stored verdicts (twice the calls)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the folds, the examples and the bootstrap (default 0)")
    p.add_argument("--max-cost", type=float, metavar="USD", help="stop judging once the judge calls would pass this")
    p.add_argument("--name", help="the aligned judge's id and file name (default: <judge>_aligned)")
    p.add_argument("--suite", help="the suite folder (default: the one the run recorded)")
    p.add_argument("--concurrency", type=int, default=4, help="judge calls at once (default 4)")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per judge call (default 60)")
    p.add_argument("--max-attempts", type=int, default=3, help="attempts per judge call (default 3)")
    p.add_argument("--format", choices=["table", "json"], default="table")
    add_db(p)


def cmd_judge(args: argparse.Namespace) -> int:
    from evalcore.core.errors import ConfigError
    from evalcore.execution.align import AlignOptions, align_judge
    from evalcore.storage.ratings import load_ratings
    from evalcore.suite.loader import load_suite

    if args.shots < 1:
        raise ConfigError(f"--shots {args.shots}: show at least 1 example")
    if args.max_cost is not None and args.max_cost <= 0:
        raise ConfigError(f"--max-cost {args.max_cost}: give a cap above 0 USD")
    store = store_holding(args.run, args)
    run_id = store.resolve_run_id(args.run)
    run = store.load_run(run_id)
    ratings = load_ratings(store, run_id)
    if not ratings:
        raise ConfigError(f"run {run_id} has no ratings: rate its replies on the app's Rate page first")
    suite_path = args.suite or run.info.settings.get("suite_path")
    if not suite_path or not Path(suite_path).is_dir():
        named = f"names {suite_path!r}, which is not a folder here" if suite_path else "names no suite"
        raise ConfigError(f"run {run_id} {named}: give the suite folder with --suite PATH")
    options = AlignOptions(
        judge=args.judge,
        shots=args.shots,
        folds=args.folds,
        seed=args.seed,
        max_cost=args.max_cost,
        name=args.name,
        rewrite_rubric=args.rewrite_rubric,
        rejudge_before=args.rejudge_before,
        concurrency=max(1, args.concurrency),
        timeout_s=args.timeout,
        max_attempts=max(1, args.max_attempts),
    )
    try:
        outcome = align_judge(run, ratings, load_suite(suite_path), options)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    if args.format == "json":
        print(json.dumps(outcome_data(run_id, outcome), indent=2))
    else:
        print("\n".join(outcome_lines(run_id, outcome)))
    if outcome.status == "incomplete":
        print(f"error: {outcome.message}", file=sys.stderr)
        return 1
    return 0


def outcome_data(run_id: str, outcome: AlignOutcome) -> dict[str, object]:
    """``--format json``: the status, the report, where the judge was written."""
    return {
        "run": run_id,
        "status": outcome.status,
        "message": outcome.message,
        "items": outcome.items,
        "judged": outcome.judged,
        "spent_usd": outcome.spent_usd,
        "report": outcome.report.to_data() if outcome.report else None,
        "written": str(outcome.written) if outcome.written else None,
        "scorer_entry": outcome.entry or None,
    }


def outcome_lines(run_id: str, outcome: AlignOutcome) -> list[str]:
    """The text the command prints."""
    report = outcome.report
    if report is None:
        return [f"run {run_id}: {outcome.status}: {outcome.message}"]

    def row(name: str, a: object) -> list[str]:
        acc, kappa = a.accuracy, a.kappa  # type: ignore[attr-defined]
        return [name, f"{acc.value:.1%}", f"[{acc.lo:.1%}, {acc.hi:.1%}]", _num(kappa.value), _interval(kappa)]

    d = report.difference
    lines = [
        f"run {run_id}: {report.items} replies rated by people and judged; {report.folds} folds, up to "
        f"{report.shots} examples each, chosen from the other folds' disagreements",
        "",
        "agreement with people on held-out ratings (each judged by a prompt that never showed it)",
        table(
            [row("before", report.before), row("aligned", report.after)], ["judge", "accuracy", "95%", "kappa", "95%"]
        ),  # fmt: skip
        "",
        f"agreement difference (aligned - before): {d.value:+.3f} [{d.lo:+.3f}, {d.hi:+.3f}] "
        f"(paired bootstrap, {report.resamples} resamples; better only when the interval lies above 0)",
        *(f"note: {n}" for n in report.notes),
        f"{outcome.status}: {outcome.message}",
    ]
    if outcome.entry:
        import yaml

        lines += [
            "",
            "to use it, add under scorers: in evalcore.yaml:",
            yaml.safe_dump([outcome.entry], sort_keys=False),
        ]
    return lines


def _num(value: float) -> str:
    return "–" if value != value else f"{value:.2f}"


def _interval(e: object) -> str:
    return f"[{_num(e.lo)}, {_num(e.hi)}]"  # type: ignore[attr-defined]


COMMANDS = {
    "judge": (
        add_judge,
        cmd_judge,
        "align the suite's judge to people: few-shot examples where it disagreed, measured on held-out ratings",
        "evalcore judge align RUN_ID --shots 4 --folds 5 --max-cost 0.50",
    ),
}
