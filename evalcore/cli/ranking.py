"""Commands that rank and compare a run's contenders: ``leaderboard``, ``weights`` and ``significance``.

Weights given with ``--weights`` are parsed here and checked once, by the analysis function that ranks
(:func:`evalcore.analysis.tables.runs.rank_run`), before anything is computed.
"""

from __future__ import annotations

import argparse
import json
import textwrap
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from evalcore.analysis.tables.summaries import Summary
    from evalcore.core.metric_set import MetricSet
    from evalcore.core.records import Run
    from evalcore.storage.history import StoredRun

from evalcore.analysis.scores.rules import (
    BEST_VALUE_POINTS,
    ERRORS_PENALTY_BASE,
    ERRORS_PENALTY_EACH,
    errors_penalty_text,
)
from evalcore.cli._shared import (
    add_db,
    add_filters,
    filters_of,
    open_run,
    print_errors,
    read_header,
    table,
    terminal_width,
    warn_directions,
)
from evalcore.cli.imports import open_run_streamed


def add_leaderboard(p: argparse.ArgumentParser) -> None:
    from evalcore.core.repeat_metrics import REPEATS_HELP

    p.epilog = "\n".join([*textwrap.wrap(REPEATS_HELP, 100), "", p.epilog or ""])
    p.add_argument("run", help="a run id in the store, or a run file (.json / .json.gz)")
    add_filters(p)
    p.add_argument("--weights", help="e.g. score=0.6,hallucinated_rate=-0.2,cost=-0.2 (default: the run's)")
    p.add_argument(
        "--labels",
        action="store_true",
        help="also each contender's per-label precision, recall, F1 and support (a classification run)",
    )
    p.add_argument(
        "--average",
        choices=["micro", "macro"],
        default="micro",
        help="micro: mean over cases (default); macro: mean of per-dataset values",
    )
    p.add_argument("--by-dataset", action="store_true", help="one table per dataset (same as --by dataset)")
    p.add_argument(
        "--by",
        choices=["dataset", "variant"],
        help="rank within each dataset, or within each variant (case folder such as complete or vague) across "
        "datasets; a variant's rows use the micro average",
    )
    p.add_argument(
        "--best-value-points",
        type=float,
        default=100 * BEST_VALUE_POINTS,
        help=f"best value: cheapest row within this many points of the top score (default {100 * BEST_VALUE_POINTS:g})",
    )
    p.add_argument("--no-intervals", action="store_true", help="skip the bootstrap intervals and P(best)")
    p.add_argument("--format", choices=["table", "json", "csv", "markdown"], default="table")
    p.add_argument("--wide", action="store_true", help="every column, however wide (default: fit the terminal)")
    add_db(p)


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from evalcore.core.errors import ConfigError

    if args.by == "variant" and (args.by_dataset or args.average == "macro"):
        raise ConfigError("--by variant ranks across datasets: drop --by-dataset and --average macro")
    with ExitStack() as stack:
        return _leaderboard(open_run_streamed(args.run, args, stack), args)


def _leaderboard(run: Run | StoredRun, args: argparse.Namespace) -> int:
    import sys

    from evalcore.analysis.scores.weights import parse_weights
    from evalcore.analysis.tables.runs import metric_set_of, rank_basis_of, rank_run
    from evalcore.analysis.tables.text import format_leaderboard
    from evalcore.storage.history import header_of

    header = header_of(run)
    metric_set = metric_set_of(run)
    weights = parse_weights(args.weights) if args.weights is not None else header.info.weights
    if args.weights is not None:
        warn_directions(weights, metric_set)
    points = args.best_value_points / 100
    basis = rank_basis_of(run)
    ranked = rank_run(
        run,
        weights,
        filters_of(args),
        by_dataset=args.by_dataset or args.by == "dataset",
        by_variant=args.by == "variant",
        average=args.average,
        ci=not args.no_intervals,
        best_value_points=points,
        basis=basis,
        metric_set=metric_set,
    )
    width = None if args.wide else terminal_width()
    text = format_leaderboard(ranked, metric_set, args.format, weights=weights, best_value_points=points, width=width)
    labels = _label_tables(run, args, metric_set) if args.labels else None
    print(_labels_json(text, labels) if labels is not None and args.format == "json" else text, end="")
    if basis is not None:  # beside the table, never inside JSON, CSV or Markdown meant for a program
        print(basis.note, file=sys.stdout if args.format == "table" else sys.stderr)
    if labels is not None and args.format != "json":
        _print_labels(labels)
    if args.format == "table":
        print_judge_costs(run)
    print_run_problems(run)
    return 0


def print_run_problems(run: Run | StoredRun) -> None:
    """On stderr, under a run's leaderboard: why the run did not complete, what results it lacks (the
    contenders with none are in no row), and why its calls failed, as ``evalcore run`` says it."""
    import sys

    from evalcore.analysis.tables.completeness import completeness_of, failed_calls, run_notes
    from evalcore.storage.history import header_of

    for note in run_notes(header_of(run), completeness_of(run)):
        print(f"warning: {note}", file=sys.stderr)
    print_errors(failed_calls(run))


def _label_tables(run: Run | StoredRun, args: argparse.Namespace, metric_set: MetricSet) -> list[Any]:
    """Each contender's classification metrics under the leaderboard's filters; a run without labels is an error."""
    from evalcore.analysis.scores.classification import label_tables
    from evalcore.core.errors import ConfigError
    from evalcore.storage.history import StoredRun

    if args.format == "csv":
        raise ConfigError("--labels: a CSV holds one table; use --format table, markdown or json")
    whole = run.store.load_run(run.id) if isinstance(run, StoredRun) else run
    tables = label_tables(whole, filters_of(args), metric_set)
    if not tables:
        raise ConfigError(
            f"--labels: run {whole.info.id} has no classification labels among the results counted: its results "
            "carry no expected and predicted label (a `classification` scorer records them). Leave out --labels."
        )
    return tables


def _print_labels(tables: list[Any]) -> None:
    from evalcore.analysis.scores.classification import label_rows

    for found in tables:
        print(
            f"\nlabels of {found.contender}: {found.results} scored results, accuracy {100 * found.accuracy:.1f}%, "
            f"macro-F1 {found.macro_f1:.3f}"
        )
        header, rows = label_rows(found.rows)
        print(table(rows, header))


def _labels_json(leaderboard: str, tables: list[Any]) -> str:
    from evalcore.analysis.tables.text import json_value

    labels = [
        {
            "contender": found.contender,
            "results": found.results,
            "accuracy": json_value(found.accuracy),
            "macro_f1": json_value(found.macro_f1),
            "rows": [{k: json_value(v) for k, v in row.items()} for row in found.rows.to_dict("records")],
        }
        for found in tables
    ]
    return json.dumps({"leaderboard": json.loads(leaderboard), "labels": labels}, indent=2, ensure_ascii=False) + "\n"


def print_run_leaderboard(run: StoredRun, summary: Summary | None) -> None:
    """The leaderboard ``evalcore run`` prints when it finishes: the run's weights on its summary
    (:mod:`evalcore.analysis.tables.summaries`), the same table ``evalcore leaderboard`` computes from the results,
    with the pass rate of the cases that declare minimum scores, ranked by the judge's score corrected by people
    when the suite asks (and a line saying so)."""
    from evalcore.analysis.people.corrected import with_corrected
    from evalcore.analysis.ranking.leaderboard import finish
    from evalcore.analysis.ranking.outcomes import with_pass_rate
    from evalcore.analysis.scores.weights import validate_weights
    from evalcore.analysis.tables.runs import metric_set_of, rank_basis_of, run_stops
    from evalcore.analysis.tables.text import format_leaderboard

    if summary is None:
        print("no results")
        return
    header = run.header
    metric_set = metric_set_of(run)
    weights = validate_weights(header.info.weights, metric_set)
    basis = rank_basis_of(run)
    prepared = (
        summary.prepared.overall if basis is None else with_corrected(summary.prepared.overall, basis, metric_set)
    )
    ranked = with_pass_rate(finish(prepared, metric_set, weights, stops=run_stops(run)), run)
    text = format_leaderboard(ranked, metric_set, "table", weights=header.info.weights, width=terminal_width())
    print(text, end="")
    if basis is not None:
        print(basis.note)


def print_judge_costs(run: Run | StoredRun) -> None:
    """Under a judged run's leaderboard: what the judge cost and took per contender, apart from the contenders'
    own cost and time columns, and a line on its pairwise verdicts; nothing for a run without a judge."""
    from evalcore.analysis.people.judging import is_judged, judge_cost_rows, judge_costs
    from evalcore.cli.pairwise import print_pairwise_note
    from evalcore.storage.history import StoredRun, header_of

    print_pairwise_note(header_of(run))
    print_cache_costs(run)
    if not is_judged(header_of(run).metrics):
        return
    if isinstance(run, StoredRun):
        _, parts = run.store.load_run_in_parts(run.id)
        results = [r for part in parts for r in part]
    else:
        results = run.results
    costs = judge_costs(results)
    if not costs:
        return
    rows, header = judge_cost_rows(costs)
    print("\njudge: what judging cost, on top of the contenders' cost and time (per judged result)")
    print(table(rows, header))


def print_cache_costs(run: Run | StoredRun) -> None:
    """Under the leaderboard of a run with replies from the reply cache: per contender, what the run paid and what
    its calls would have cost without the cache (the cost column is each reply's price, so models compare as
    priced); nothing for a run without such replies."""
    from evalcore.execution.reply_cache import paid_usd
    from evalcore.storage.history import StoredRun
    from evalcore.storage.spend import cached_spend

    if isinstance(run, StoredRun):
        spend = cached_spend(run.store, run.id)
    else:
        spend = {}
        for contender in run.contenders:
            paid, listed, reused = paid_usd([r for r in run.results if r.contender == contender.id])
            spend[contender.id] = (sum(r.contender == contender.id for r in run.results), reused, listed, listed - paid)
        spend = spend if any(reused for _, reused, _, _ in spend.values()) else {}
    if not spend:
        return
    rows = [[c, n, reused, f"${usd - saved:.6f}", f"${usd:.6f}"] for c, (n, reused, usd, saved) in spend.items()]
    print("\nreply cache: what this decision paid, and what its calls would have cost without the cache")
    print(table(rows, ["contender", "results", "from cache", "paid", "without cache"]))


def add_weights(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", help="a suite folder, a run id in the store, or a run file")
    p.add_argument("--weights", help="weights to explain instead of the suite's or run's own")
    add_db(p)


def cmd_weights(args: argparse.Namespace) -> int:
    from evalcore.analysis.scores.weights import parse_weights, validate_weights, weight_shares
    from evalcore.core.metric_set import MetricSet

    source = Path(args.source)
    if source.is_dir():
        from evalcore.scoring.plugins import build_scorer
        from evalcore.suite.loader import load_suite

        suite = load_suite(source)
        metrics, weights = build_scorer(suite.scorer_refs, suite.path).metrics, suite.weights
    else:
        run = read_header(args.source, args)
        metrics, weights = run.metrics, run.info.weights
    if args.weights is not None:
        weights = parse_weights(args.weights)
    metric_set = MetricSet.of(metrics)
    weights = validate_weights(weights, metric_set)
    warn_directions(weights, metric_set)
    if not weights:
        print("no weights set: ranked by score, then cost")
        return 0
    rows = [[s["name"], f"{s['weight']:g}", s["direction"], f"{100 * s['share']:.1f}%"] for s in weight_shares(weights)]
    print(table(rows, ["name", "weight", "direction", "share of wscore"]))
    if "errors" in weights:
        print(f"\nerrors: each row with n >= 1 failed calls loses {errors_penalty_text()} points ({_penalties()} ...)")
    return 0


def _penalties() -> str:
    return ", ".join(str(ERRORS_PENALTY_BASE + ERRORS_PENALTY_EACH * n) for n in (1, 2, 3))


def add_significance(p: argparse.ArgumentParser) -> None:
    p.add_argument("run", help="a run id in the store, or a run file")
    p.add_argument("--metric", default="score", help="score (default) or a declared metric")
    add_filters(p)
    p.add_argument("--format", choices=["table", "json"], default="table")
    add_db(p)


def cmd_significance(args: argparse.Namespace) -> int:
    from evalcore.analysis.tables.runs import compare_run, rank_run
    from evalcore.storage.history import header_of

    run = open_run(args.run, args)
    filters = filters_of(args)
    pairs = compare_run(run, args.metric, filters)
    order = list(rank_run(run, header_of(run).info.weights, filters, ci=False)["contender"])
    if args.format == "json":
        position = {c: i for i, c in enumerate(order)}
        in_order = pairs.sort_values(["a", "b"], key=lambda ids: ids.map(position), ignore_index=True)
        print(in_order.to_json(orient="records", indent=1))
        return 0
    print(format_pairs(pairs, order, args.metric))
    return 0


def format_pairs(pairs: pd.DataFrame, order: list[str], metric: str) -> str:
    """Each pair once, the better-ranked contender as ``a``, in leaderboard order; differences in points."""
    from evalcore.analysis.stats.paired import PERMUTATION, SCORE_TEST
    from evalcore.analysis.tables.text import DASH

    position = {c: i for i, c in enumerate(order)}
    ranked = pairs.assign(_a=pairs.a.map(position), _b=pairs.b.map(position))
    chosen = ranked[ranked._a < ranked._b].sort_values(["_a", "_b"])
    rows, split = [], []
    for r in chosen.itertuples():
        if r.n == 0:
            rows.append([r.a, r.b, 0, DASH, "no shared scored cases", DASH, DASH])
            continue
        excludes = r.lo > 0 or r.hi < 0
        mark = " *" if excludes != r.significant else ""
        split += [f"{r.a} vs {r.b}"] if mark else []
        interval = f"[{_pts(r.lo)}, {_pts(r.hi)}] pts" if r.lo == r.lo else f"none: {r.note}"  # NaN ≠ NaN
        rows.append(
            [
                r.a,
                r.b,
                r.n,
                f"{_pts(r.mean_diff)} pts",
                interval,
                f"{r.p_value:.3f}",
                ("yes" if r.significant else "no") + mark,
            ]
        )
    lines = [table(rows, ["a", "b", "cases", f"{metric} a-b", "95% interval", "p", "p<0.05"]), ""]
    lines.append("rows in leaderboard order; paired over the cases both scored; differences in points (0-100)")
    methods = set(chosen.loc[chosen.n > 0, "method"])
    if SCORE_TEST in methods:
        lines.append(
            "0/1 values: p from McNemar's test, interval from Tango's score interval, which inverts it; they agree"
        )
    if PERMUTATION in methods:
        lines.append("other values: interval from a paired bootstrap over cases; p from a sign-flip permutation test")
    if split:
        lines.append(
            f"* {', '.join(split)}: the interval and p come from two different tests, which disagree near the 5% line:"
            " read it as borderline"
        )
    return "\n".join(lines)


def _pts(fraction: float) -> str:
    points = round(100 * fraction, 1)
    return f"{points or 0.0:+.1f}"  # no "-0.0": a difference that rounds to nothing reads +0.0


COMMANDS = {
    "leaderboard": (
        add_leaderboard,
        cmd_leaderboard,
        "rank the contenders of a run: weighted score, intervals, P(best), best and best value",
        "evalcore leaderboard RUN_ID --weights score=0.6,cost=-0.4 --format json",
    ),
    "weights": (
        add_weights,
        cmd_weights,
        "each weighted name, its direction and its real share of the wscore",
        "evalcore weights data/suites/intake --weights score=1,cost=-0.5",
    ),
    "significance": (
        add_significance,
        cmd_significance,
        "pairwise differences between contenders, in points: mean, 95%% interval, p-value",
        "evalcore significance RUN_ID --metric hallucinated_rate",
    ),
}
