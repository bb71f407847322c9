"""The ``evalcore`` command line. Heavy modules (pandas, litellm) are imported only by the commands that need them."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evalcore.core.version import __version__

EPILOG = """\
examples:
  evalcore cases  data/suites/intake             list every case; calls nothing
  evalcore verify data/suites/intake             offline checks of the suite
  evalcore plan   data/suites/intake             what a run would call
  evalcore run    data/suites/intake             run the bundled fake lineup offline
  evalcore run    data/suites/intake -m openai/gpt-4o-mini -d tax_preparation -e low,high -t 0,0.7
  evalcore runs                                  run history
  evalcore leaderboard RUN_ID --weights score=0.6,cost=-0.4
  evalcore export RUN_ID -o run.json.gz          write the run file
  evalcore import run.json.gz                    read a run file into the store
  evalcore run --resume RUN_ID                   finish an interrupted run
"""


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``evalcore`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if not getattr(args, "handler", None):
        parser.print_help()
        return 0
    from evalcore.core.errors import EvalcoreError

    try:
        return int(args.handler(args) or 0)
    except EvalcoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="evalcore", formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG,
        description="Which model, prompt and settings should we ship? Run eval suites over lineups of "
                    "models and compare them on leaderboards.")
    parser.add_argument("--version", action="version", version=f"evalcore {__version__}")
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")
    for name, (add, handler, summary, example) in COMMANDS.items():
        p = sub.add_parser(name, help=summary, description=summary.replace("%%", "%"), epilog=f"example:\n  {example}",
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        add(p)
        p.set_defaults(handler=handler)
    return parser


# --- arguments -------------------------------------------------------------------------------------


def _db(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", help="SQLite store (default: $EVALCORE_DB or data/evalcore.db)")


def _suite_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("suite", help="suite folder (holding evalcore.yaml)")


def _selection(p: argparse.ArgumentParser) -> None:
    p.add_argument("-d", "--dataset", action="append", default=[],
                   help="only these datasets (repeat or comma-separate)")
    p.add_argument("--variant", action="append", default=[], help="only these variants (repeat or comma-separate)")
    p.add_argument("--limit", type=int, help="at most N cases per dataset")
    p.add_argument("-m", "--model", action="append", default=[],
                   help="replace the lineup with these models (repeat or comma-separate)")
    p.add_argument("-e", "--effort", help="reasoning_effort values, e.g. low,high (one contender each)")
    p.add_argument("-t", "--temperature", help="temperature values, e.g. 0,0.7 (one contender each)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=V1,V2",
                   help="any other setting, e.g. --set max_tokens=300")
    p.add_argument("--api-base", help="send every real model's calls to this endpoint (local servers)")
    p.add_argument("--samples", type=int, help="repetitions per case")


def _add_cases(p: argparse.ArgumentParser) -> None:
    _suite_arg(p)
    _selection(p)
    p.add_argument("--format", choices=["table", "json"], default="table")


def _add_verify(p: argparse.ArgumentParser) -> None:
    _suite_arg(p)


def _add_plan(p: argparse.ArgumentParser) -> None:
    _suite_arg(p)
    _selection(p)
    p.add_argument("--format", choices=["table", "json"], default="table")


def _add_run(p: argparse.ArgumentParser) -> None:
    p.add_argument("suite", nargs="?", help="suite folder (omit with --resume)")
    _selection(p)
    _db(p)
    p.add_argument("--resume", metavar="RUN_ID", help="finish an interrupted run: only what is missing is called")
    p.add_argument("--force", action="store_true", help="resume even if evalcore.yaml changed since the run")
    p.add_argument("--parallelism", type=int, help="contenders in flight at once")
    p.add_argument("--concurrency", type=int, help="cases in flight per contender")
    p.add_argument("--max-attempts", type=int, help="calls per case, retries included")
    p.add_argument("--timeout", type=float, help="seconds per call")
    p.add_argument("--revision", help="a label for provenance, e.g. a git commit of your prompts")
    p.add_argument("-o", "--output", help="also write the run file here (.json or .json.gz)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")


def _add_runs(p: argparse.ArgumentParser) -> None:
    _db(p)
    p.add_argument("--format", choices=["table", "json"], default="table")


def _add_export(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_id")
    p.add_argument("-o", "--output", required=True, help="file to write (.json, or .json.gz for gzip)")
    _db(p)


def _add_import(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", help="run file (.json or .json.gz)")
    p.add_argument("--replace", action="store_true", help="replace a stored run with the same id")
    _db(p)


def _add_delete(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_id")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    _db(p)


# --- helpers ---------------------------------------------------------------------------------------


def _split(values: list[str] | str | None) -> list[str]:
    if not values:
        return []
    items = [values] if isinstance(values, str) else values
    return [v.strip() for item in items for v in item.split(",") if v.strip()]


def _setting_value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _options(args: argparse.Namespace):  # noqa: ANN202
    from evalcore.core.errors import ConfigError
    from evalcore.execution.plan import RunOptions
    from evalcore.suite.lineup import Overrides

    settings: dict[str, list[Any]] = {}
    if args.effort:
        settings["reasoning_effort"] = _split(args.effort)
    if args.temperature:
        settings["temperature"] = [_setting_value(v) for v in _split(args.temperature)]
    for item in args.set:
        key, sep, values = item.partition("=")
        if not sep or not key:
            raise ConfigError(f"--set {item!r}: write KEY=VALUE or KEY=V1,V2")
        settings[key.strip()] = [_setting_value(v) for v in _split(values)]
    return RunOptions(
        datasets=_split(args.dataset), variants=_split(args.variant), limit=args.limit, samples=args.samples,
        parallelism=getattr(args, "parallelism", None), concurrency=getattr(args, "concurrency", None),
        max_attempts=getattr(args, "max_attempts", None), timeout_s=getattr(args, "timeout", None),
        revision=getattr(args, "revision", None),
        overrides=Overrides(models=_split(args.model), settings=settings, api_base=args.api_base),
    )


def _plan(args: argparse.Namespace):  # noqa: ANN202
    from evalcore.execution.plan import make_plan
    from evalcore.suite.loader import load_suite

    return make_plan(load_suite(args.suite), _options(args))


def _store(args: argparse.Namespace):  # noqa: ANN202
    from evalcore.storage.store import Store, default_db_path

    return Store(args.db or default_db_path())


def _table(rows: list[list[Any]], header: list[str]) -> str:
    cells = [header] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _print_refused(plan) -> None:  # noqa: ANN001
    for r in plan.refused:
        settings = " ".join(f"{k}={v}" for k, v in r.settings.items())
        print(f"refused: {r.model} {settings}: {r.reason}")


# --- commands --------------------------------------------------------------------------------------


def cmd_cases(args: argparse.Namespace) -> int:
    plan = _plan(args)
    rows = [[c.dataset, c.variant, c.id, _words(c.input), _summary(c.expected)] for c in plan.cases]
    if args.format == "json":
        print(json.dumps([dict(zip(["dataset", "variant", "id", "words", "expected"], r, strict=True))
                          for r in rows], indent=1))
        return 0
    print(_table(rows, ["dataset", "variant", "id", "words", "expected"]))
    print(f"\n{len(rows)} cases in {len({r[0] for r in rows})} datasets")
    _print_refused(plan)
    return 0


def _words(value: Any) -> int:
    return len((value if isinstance(value, str) else json.dumps(value)).split())


def _summary(expected: Any) -> str:
    if isinstance(expected, dict):
        known = sum(v is not None for v in expected.values())
        return f"{known}/{len(expected)} fields set"
    text = json.dumps(expected, ensure_ascii=False)
    return text if len(text) <= 40 else text[:39] + "…"


def cmd_verify(args: argparse.Namespace) -> int:
    from evalcore.execution.verify import verify_suite

    report = verify_suite(args.suite)
    for line in report.lines:
        print(line)
    return 0 if report.ok else 1


def cmd_plan(args: argparse.Namespace) -> int:
    from evalcore.execution.estimate import estimate_cost

    plan = _plan(args)
    datasets = sorted({c.dataset for c in plan.cases})
    matrix = plan.matrix()
    cost = estimate_cost(plan)
    if args.format == "json":
        print(json.dumps({"matrix": matrix, "calls": plan.calls, "estimated_cost_usd": cost,
                          "refused": [r.__dict__ for r in plan.refused], "missing_keys": plan.missing_keys},
                         indent=1))
        return 0
    rows = [[cid] + [m.get(d, 0) for d in datasets] + [sum(m.values())] for cid, m in matrix.items()]
    print(_table(rows, ["contender"] + datasets + ["calls"]))
    print(f"\n{plan.calls} calls: {len(plan.contenders)} contenders x {len(plan.cases)} cases x "
          f"{plan.samples} sample(s); {plan.parallelism} contenders in flight, {plan.concurrency} cases each")
    print("estimated cost: " + (f"${cost:.4f}" if cost is not None else "unknown (no prices for some models)"))
    _print_refused(plan)
    for model, keys in plan.missing_keys.items():
        print(f"missing API key: {model} needs {', '.join(keys)}")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    import asyncio

    from evalcore.core.errors import ConfigError
    from evalcore.execution.progress import StderrBars
    from evalcore.execution.runner import execute_plan, resume_plan, start_run

    store = _store(args)
    if args.resume:
        plan, run, done = resume_plan(store, args.resume, force=args.force)
        print(f"resuming run {run.info.id}: {len(done)} results stored, "
              f"{plan.calls - len(done)} to go", file=sys.stderr)
        store.set_status(run.info.id, "running")
    elif args.suite:
        plan, done = _plan(args), set()
        _print_refused(plan)
        run = start_run(plan, store)
        print(f"run {run.info.id}: {plan.calls} calls", file=sys.stderr)
    else:
        raise ConfigError("name a suite folder, or --resume RUN_ID")
    bars = None if args.quiet else StderrBars()
    try:
        status = asyncio.run(execute_plan(plan, store, run, done, on_progress=bars))
    except KeyboardInterrupt:
        print(f"\ninterrupted: finished results are stored. Resume with: evalcore run --resume {run.info.id}",
              file=sys.stderr)
        return 130
    _after_run(args, store, run.info.id, status)
    return 0 if status == "completed" else 1


def _after_run(args: argparse.Namespace, store, run_id: str, status: str) -> None:  # noqa: ANN001
    """The leaderboard, why calls failed and the run file, without reading every result back as a record
    (a run of 100,000 results took 4 s here): the leaderboard comes from the summary the app opens the run
    with, the failures from their own query, the file a part at a time."""
    from evalcore.analysis.summaries import write_summary
    from evalcore.core.errors import EvalcoreError

    run = store.load_run(run_id, results=False)
    try:
        summary = write_summary(store, run_id)
    except EvalcoreError as e:
        print(f"the leaderboard cannot be shown: {e}", file=sys.stderr)
    else:
        print_run_leaderboard(run, summary)
    _print_errors(store.failed_calls(run_id))
    print(f"\nrun {run_id}: {status}")
    if args.output:
        from evalcore.runfile.io import export_run

        export_run(store, run_id, Path(args.output))
        print(f"wrote {args.output}")


def _print_errors(failed: list[tuple[str, str, str]]) -> None:
    """Why calls failed, per contender: counts by kind and the first message (a failed call is never scored).

    Args:
        failed: (contender, kind, message) of each failed call, in the run's order (:meth:`Store.failed_calls`).
    """
    from collections import Counter

    kinds: dict[str, Counter[str]] = {}
    first: dict[str, str] = {}
    for contender, kind, message in failed:
        kinds.setdefault(contender, Counter())[kind] += 1
        first.setdefault(contender, message)
    for contender, counts in kinds.items():
        summary = ", ".join(f"{n} {kind}" for kind, n in counts.most_common())
        print(f"errors: {contender}: {summary}; first: {first[contender]}", file=sys.stderr)


def cmd_runs(args: argparse.Namespace) -> int:
    runs = _store(args).list_runs()
    if args.format == "json":
        print(json.dumps(runs, indent=1, default=str))
        return 0
    if not runs:
        print("no runs yet: try `evalcore run data/suites/intake`")
        return 0
    keys = ["id", "suite", "created_at", "status", "contenders", "cases", "results", "errors", "cost_usd"]
    rows = [[_cell(r.get(k)) for k in keys] for r in runs]
    print(_table(rows, keys))
    return 0


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return "–" if value is None else str(value)


def cmd_export(args: argparse.Namespace) -> int:
    from evalcore.runfile.io import export_run

    count = export_run(_store(args), args.run_id, Path(args.output))
    print(f"wrote {args.output}: {count} results")
    return 0


#: ``evalcore import`` stores the leaderboard summary of a run with more results than this (the explorer
#: then opens it without reading them). A smaller run's takes the explorer a tenth of a second to compute
#: and save on first open, and its import stays free of pandas (about 0.4 s to load).
SUMMARY_AT_IMPORT_ABOVE = 100_000


def cmd_import(args: argparse.Namespace) -> int:
    from evalcore.runfile.io import read_run_file

    run = read_run_file(Path(args.path))
    store = _store(args)
    store.import_run(run, replace=args.replace)
    if len(run.results) > SUMMARY_AT_IMPORT_ABOVE:
        from evalcore.analysis.summaries import refresh_summary

        refresh_summary(store, run.info.id)
    print(f"imported run {run.info.id} ({run.info.suite}, {len(run.results)} results)")
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    store = _store(args)
    if not args.yes:
        answer = input(f"delete run {args.run_id} and all its results? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("kept")
            return 1
    store.delete_run(args.run_id)
    print(f"deleted run {args.run_id}")
    return 0


def _add_leaderboard(p: argparse.ArgumentParser) -> None:
    p.add_argument("run", help="a run id in the store, or a run file (.json / .json.gz)")
    _filters(p)
    p.add_argument("--weights", help="e.g. score=0.6,hallucinated_rate=-0.2,cost=-0.2 (default: the run's)")
    p.add_argument("--average", choices=["micro", "macro"], default="micro",
                   help="micro: mean over cases (default); macro: mean of per-dataset values")
    p.add_argument("--by-dataset", action="store_true", help="one table per dataset")
    p.add_argument("--best-value-points", type=float, default=2.0,
                   help="best value: cheapest row within this many points of the top score (default 2)")
    p.add_argument("--no-intervals", action="store_true", help="skip the bootstrap intervals and P(best)")
    p.add_argument("--format", choices=["table", "json", "csv", "markdown"], default="table")
    _db(p)


def _filters(p: argparse.ArgumentParser) -> None:
    p.add_argument("-d", "--dataset", action="append", default=[], help="only these datasets")
    p.add_argument("--variant", action="append", default=[], help="only these variants")
    p.add_argument("-c", "--contender", action="append", default=[], help="only these contenders (exact ids)")
    p.add_argument("--where", action="append", default=[], metavar="KEY=VALUE",
                   help="only cases whose metadata KEY equals VALUE, e.g. --where difficulty=hard")


def _add_weights(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", help="a suite folder, a run id in the store, or a run file")
    p.add_argument("--weights", help="weights to explain instead of the suite's or run's own")
    _db(p)


def _add_significance(p: argparse.ArgumentParser) -> None:
    p.add_argument("run", help="a run id in the store, or a run file")
    p.add_argument("--metric", default="score", help="score (default) or a declared metric")
    _filters(p)
    p.add_argument("--format", choices=["table", "json"], default="table")
    _db(p)


def _open_run(ref: str, args: argparse.Namespace):  # noqa: ANN202
    """A run from a file path or the store, with its results frame (a stored run without its results:
    its frame comes from the store's packed numbers, a million results in a second, not as records)."""
    if Path(ref).is_file():
        from evalcore.storage.frames import results_frame

        run = _read_run(ref, args)
        return run, results_frame(run)
    store = _store(args)
    return store.load_run(ref, results=False), store.load_results_frame(ref)


def _read_run(ref: str, args: argparse.Namespace):  # noqa: ANN202
    """A run from a file path, or its header from the store (no results, no frame: pandas stays unloaded)."""
    path = Path(ref)
    if path.is_file():
        from evalcore.runfile.io import read_run_file

        return read_run_file(path)
    return _store(args).load_run(ref, results=False)


def _metadata_filter(items: list[str]) -> dict[str, list[str]]:
    from evalcore.core.errors import ConfigError

    wanted: dict[str, list[str]] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise ConfigError(f"--where {item!r}: write KEY=VALUE, e.g. difficulty=hard")
        wanted.setdefault(key.strip(), []).append(value.strip())
    return wanted


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from evalcore.analysis.leaderboard import finish, leaderboard, parse_weights
    from evalcore.analysis.text import format_leaderboard

    summarized = _summarized(args)
    if summarized is not None:  # the whole run of a stored one: its summary, no result read
        run, prepared = summarized
        weights = parse_weights(args.weights) if args.weights is not None else run.info.weights
        table = finish(prepared, run.metrics, weights, best_value_points=args.best_value_points / 100)
    else:
        run, frame = _open_run(args.run, args)
        weights = parse_weights(args.weights) if args.weights is not None else run.info.weights
        table = leaderboard(frame, run.metrics, weights, datasets=_split(args.dataset) or None,
                            variants=_split(args.variant) or None, contenders=args.contender or None,
                            metadata=_metadata_filter(args.where) or None,
                            by=("contender", "dataset") if args.by_dataset else ("contender",),
                            average=args.average, best_value_points=args.best_value_points / 100,
                            ci=not args.no_intervals)
    print(format_leaderboard(table, run.metrics, args.format, weights=weights,
                             best_value_points=args.best_value_points / 100), end="")
    return 0


def _summarized(args: argparse.Namespace):  # noqa: ANN202
    """A stored run's header and the part of its summary this leaderboard needs, when it needs no more:
    no filter, the micro average. None otherwise, or when the run has no summary."""
    if Path(args.run).is_file() or args.dataset or args.variant or args.contender or args.where or \
            args.average != "micro":
        return None
    from evalcore.analysis.leaderboard import Prepared
    from evalcore.analysis.summaries import read_summary

    store = _store(args)
    summary = read_summary(store, args.run)
    if summary is None:
        return None
    prepared = summary.prepared.by_dataset if args.by_dataset else summary.prepared.overall
    return store.load_run(args.run, results=False), Prepared(prepared.table, []) if args.no_intervals else prepared


def print_run_leaderboard(run, summary) -> None:  # noqa: ANN001
    """The leaderboard ``evalcore run`` prints when it finishes: the run's weights on its summary
    (:mod:`evalcore.analysis.summaries`), the same table ``evalcore leaderboard`` computes from the results."""
    from evalcore.analysis.leaderboard import finish
    from evalcore.analysis.text import format_leaderboard

    if summary is None:
        print("no results")
        return
    table = finish(summary.prepared.overall, run.metrics, run.info.weights)
    print(format_leaderboard(table, run.metrics, "table", weights=run.info.weights), end="")


def cmd_weights(args: argparse.Namespace) -> int:
    from evalcore.analysis.weights import parse_weights, validate_weights, weight_shares

    source = Path(args.source)
    if source.is_dir():
        from evalcore.scoring.plugins import build_scorer
        from evalcore.suite.loader import load_suite

        suite = load_suite(source)
        metrics, weights = build_scorer(suite.scorer_ref, suite.path).metrics, suite.weights
    else:
        run = _read_run(args.source, args)
        metrics, weights = run.metrics, run.info.weights
    if args.weights is not None:
        weights = parse_weights(args.weights)
    weights = validate_weights(weights, metrics)
    if not weights:
        print("no weights: contenders rank by score, then cost")
        return 0
    rows = [[s["name"], f"{s['weight']:g}", s["direction"], f"{100 * s['share']:.1f}%"]
            for s in weight_shares(weights)]
    print(_table(rows, ["name", "weight", "direction", "share of wscore"]))
    if "errors" in weights:
        print("\nerrors: each row with n >= 1 failed calls loses 15 + 5n points (20, 25, 30 ...)")
    return 0


def cmd_significance(args: argparse.Namespace) -> int:
    from evalcore.analysis.leaderboard import select_results
    from evalcore.analysis.stats import pairwise

    run, frame = _open_run(args.run, args)
    selected = select_results(frame, _split(args.dataset) or None, _split(args.variant) or None,
                              args.contender or None, _metadata_filter(args.where) or None)
    pairs = pairwise(selected, metric=args.metric)
    if args.format == "json":
        print(pairs.to_json(orient="records", indent=1))
        return 0
    rows = [[r.a, r.b, r.n, f"{r.mean_diff:+.3f}", f"[{r.lo:+.3f}, {r.hi:+.3f}]", f"{r.p_value:.3f}",
             "yes" if r.significant else "no"] for r in pairs.itertuples() if r.a < r.b]
    print(_table(rows, ["a", "b", "cases", f"mean {args.metric} a-b", "95% interval", "p", "p<0.05"]))
    print("\npaired over shared cases; interval: paired bootstrap over cases; p: two-sided sign-flip "
          "permutation test")
    return 0


Adder = Callable[[argparse.ArgumentParser], None]
Handler = Callable[[argparse.Namespace], int]
COMMANDS: dict[str, tuple[Adder, Handler, str, str]] = {
    "cases": (_add_cases, cmd_cases, "list every case: dataset, variant, id, words, expected summary; calls nothing",
              "evalcore cases data/suites/intake -d roofing"),
    "verify": (_add_verify, cmd_verify, "check a suite offline: config, cases, expected answers, adapter, scorer",
               "evalcore verify data/suites/intake"),
    "plan": (_add_plan, cmd_plan,
             "show the contender x dataset matrix, calls, cost estimate and refusals; calls nothing",
             "evalcore plan data/suites/intake -m openai/gpt-4o-mini -e low,high"),
    "run": (_add_run, cmd_run, "run a suite (or --resume a run), storing results as they complete",
            "evalcore run data/suites/intake -d roofing --samples 3"),
    "runs": (_add_runs, cmd_runs, "list stored runs", "evalcore runs --format json"),
    "export": (_add_export, cmd_export, "write a stored run as a run file (.json or .json.gz)",
               "evalcore export 3f2c... -o run.json.gz"),
    "import": (_add_import, cmd_import, "read a run file into the store; atomic",
               "evalcore import run.json.gz --replace"),
    "delete": (_add_delete, cmd_delete, "delete a stored run and its results", "evalcore delete 3f2c... --yes"),
    "leaderboard": (_add_leaderboard, cmd_leaderboard,
                    "rank the contenders of a run: weighted score, intervals, P(best), best and best value",
                    "evalcore leaderboard RUN_ID --weights score=0.6,cost=-0.4 --format json"),
    "weights": (_add_weights, cmd_weights, "each weighted name, its direction and its real share of the wscore",
                "evalcore weights data/suites/intake --weights score=1,cost=-0.5"),
    "significance": (_add_significance, cmd_significance,
                     "pairwise differences between contenders: mean, 95%% interval, p-value",
                     "evalcore significance RUN_ID --metric hallucinated_rate"),
}


if __name__ == "__main__":
    sys.exit(main())
