"""Commands that rank and compare a run's contenders: ``leaderboard``, ``weights`` and ``significance``.

Weights given with ``--weights`` are parsed here and checked once, by the analysis function that ranks
(:func:`evalcore.analysis.runs.rank_run`), before anything is computed.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from evalcore.cli._shared import add_db, add_filters, filters_of, open_run, read_header, table


def add_leaderboard(p: argparse.ArgumentParser) -> None:
    p.add_argument("run", help="a run id in the store, or a run file (.json / .json.gz)")
    add_filters(p)
    p.add_argument("--weights", help="e.g. score=0.6,hallucinated_rate=-0.2,cost=-0.2 (default: the run's)")
    p.add_argument(
        "--average",
        choices=["micro", "macro"],
        default="micro",
        help="micro: mean over cases (default); macro: mean of per-dataset values",
    )
    p.add_argument("--by-dataset", action="store_true", help="one table per dataset")
    p.add_argument(
        "--best-value-points",
        type=float,
        default=2.0,
        help="best value: cheapest row within this many points of the top score (default 2)",
    )
    p.add_argument("--no-intervals", action="store_true", help="skip the bootstrap intervals and P(best)")
    p.add_argument("--format", choices=["table", "json", "csv", "markdown"], default="table")
    add_db(p)


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from evalcore.analysis.runs import header_of, rank_run
    from evalcore.analysis.text import format_leaderboard
    from evalcore.analysis.weights import parse_weights

    run = open_run(args.run, args)
    header = header_of(run)
    weights = parse_weights(args.weights) if args.weights is not None else header.info.weights
    points = args.best_value_points / 100
    ranked = rank_run(
        run,
        weights,
        filters_of(args),
        by_dataset=args.by_dataset,
        average=args.average,
        ci=not args.no_intervals,
        best_value_points=points,
    )
    print(format_leaderboard(ranked, header.metrics, args.format, weights=weights, best_value_points=points), end="")
    return 0


def add_weights(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", help="a suite folder, a run id in the store, or a run file")
    p.add_argument("--weights", help="weights to explain instead of the suite's or run's own")
    add_db(p)


def cmd_weights(args: argparse.Namespace) -> int:
    from evalcore.analysis.weights import parse_weights, validate_weights, weight_shares

    source = Path(args.source)
    if source.is_dir():
        from evalcore.scoring.plugins import build_scorer
        from evalcore.suite.loader import load_suite

        suite = load_suite(source)
        metrics, weights = build_scorer(suite.scorer_ref, suite.path).metrics, suite.weights
    else:
        run = read_header(args.source, args)
        metrics, weights = run.metrics, run.info.weights
    if args.weights is not None:
        weights = parse_weights(args.weights)
    weights = validate_weights(weights, metrics)
    if not weights:
        print("no weights: contenders rank by score, then cost")
        return 0
    rows = [[s["name"], f"{s['weight']:g}", s["direction"], f"{100 * s['share']:.1f}%"] for s in weight_shares(weights)]
    print(table(rows, ["name", "weight", "direction", "share of wscore"]))
    if "errors" in weights:
        print("\nerrors: each row with n >= 1 failed calls loses 15 + 5n points (20, 25, 30 ...)")
    return 0


def add_significance(p: argparse.ArgumentParser) -> None:
    p.add_argument("run", help="a run id in the store, or a run file")
    p.add_argument("--metric", default="score", help="score (default) or a declared metric")
    add_filters(p)
    p.add_argument("--format", choices=["table", "json"], default="table")
    add_db(p)


def cmd_significance(args: argparse.Namespace) -> int:
    from evalcore.analysis.runs import compare_run

    pairs = compare_run(open_run(args.run, args), args.metric, filters_of(args))
    if args.format == "json":
        print(pairs.to_json(orient="records", indent=1))
        return 0
    rows = [
        [
            r.a,
            r.b,
            r.n,
            f"{r.mean_diff:+.3f}",
            f"[{r.lo:+.3f}, {r.hi:+.3f}]",
            f"{r.p_value:.3f}",
            "yes" if r.significant else "no",
        ]
        for r in pairs.itertuples()
        if r.a < r.b
    ]
    print(table(rows, ["a", "b", "cases", f"mean {args.metric} a-b", "95% interval", "p", "p<0.05"]))
    print("\npaired over shared cases; interval: paired bootstrap over cases; p: two-sided sign-flip permutation test")
    return 0


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
        "pairwise differences between contenders: mean, 95%% interval, p-value",
        "evalcore significance RUN_ID --metric hallucinated_rate",
    ),
}
