"""``evalcore ratings``: people's ratings of a run's replies, summarised, imported and exported.

- ``evalcore ratings RUN [--format json]``: human win rates and Bradley–Terry ranking, agreement between raters,
  the judge against people, and the judge's score corrected by people
  (:func:`evalcore.analysis.people.human.human_summary`).
- ``evalcore ratings import FILE``: ratings as JSON Lines (``docs/judges.md``) into the store's runs.
- ``evalcore ratings export RUN [-o FILE]``: a run's ratings as JSON Lines (stdout without ``-o``).

Exit 0 on success, 2 on a user error (no ratings, an unknown run, a bad line: then nothing is imported).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from evalcore.cli._bootstrap import RESAMPLES, check_resamples, print_bootstrap_report
from evalcore.cli._shared import add_db, open_store, store_holding, table

if TYPE_CHECKING:
    from evalcore.analysis.people.human import HumanSummary
    from evalcore.core.records import Run


def add_ratings(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "what",
        nargs="+",
        metavar="RUN | import FILE | export RUN",
        help="a run id (a unique prefix is enough) or run file to summarise; import FILE; export RUN",
    )
    p.add_argument("-o", "--output", help="export: the JSON Lines file to write (default: stdout)")
    p.add_argument(
        "--resamples", type=int, default=RESAMPLES, help=f"bootstrap resamples over cases (default {RESAMPLES})"
    )
    p.add_argument("--format", choices=["table", "json"], default="table")
    add_db(p)


def cmd_ratings(args: argparse.Namespace) -> int:
    from evalcore.core.errors import ConfigError

    action, rest = args.what[0], args.what[1:]
    if action in ("import", "export") and len(rest) != 1:
        raise ConfigError(f"evalcore ratings {action}: give one {'FILE' if action == 'import' else 'RUN'}")
    if action == "import":
        return _import(Path(rest[0]), args)
    if action == "export":
        return _export(rest[0], args)
    if rest:
        raise ConfigError(f"evalcore ratings: unexpected {' '.join(rest)!r}; give one RUN, import FILE or export RUN")
    return _summary(action, args)


#: The most bytes ``ratings import`` reads (``EVALCORE_MAX_RATINGS_BYTES`` to change it): a file past it is
#: refused before it is read, so a mistaken or hostile file cannot fill the memory.
MAX_RATINGS_BYTES = 64 << 20
MAX_BYTES_ENV = "EVALCORE_MAX_RATINGS_BYTES"


def _import(path: Path, args: argparse.Namespace) -> int:
    from evalcore.core.errors import ConfigError
    from evalcore.runfile.ratings import numbered_ratings, rating_problems
    from evalcore.storage.ratings import add_runs_ratings

    if not path.is_file():
        raise ConfigError(f"{path}: no such file; give a JSON Lines file of ratings (docs/judges.md)")
    by_run = numbered_ratings(_read_capped(path), str(path))
    if not by_run:
        raise ConfigError(f"{path}: no rating in the file (one JSON object a line, docs/judges.md)")
    store = open_store(args)
    checked: dict[str, list] = {}
    for ref, numbered in by_run.items():  # every run is checked before any rating is stored
        run_id = store.resolve_run_id(ref)
        run = store.load_run(run_id, results=False)
        cases = [(c.dataset, c.id) for c in store.load_cases(run_id)]
        problems = rating_problems(numbered, [c.id for c in run.contenders], cases, store.done_keys(run_id))
        if problems:
            raise ConfigError(f"{path}: run {run_id}: " + "; ".join(problems) + "; nothing was imported")
        checked.setdefault(run_id, []).extend(r for _, r in numbered)
    add_runs_ratings(store, checked)
    for run_id, ratings in checked.items():
        print(f"imported {len(ratings)} ratings into run {run_id}")
    return 0


def _read_capped(path: Path) -> str:
    """The file's text, refused past :data:`MAX_RATINGS_BYTES` (or ``EVALCORE_MAX_RATINGS_BYTES``)."""
    import os

    from evalcore.core.errors import ConfigError

    limit_text = os.environ.get(MAX_BYTES_ENV, str(MAX_RATINGS_BYTES))
    try:
        limit = int(limit_text)
    except ValueError:
        raise ConfigError(f"{MAX_BYTES_ENV}={limit_text!r}: give a number of bytes") from None
    with path.open("rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise ConfigError(
            f"{path}: larger than {limit} bytes, the most a ratings import reads; split it into smaller files "
            f"or raise the limit with {MAX_BYTES_ENV}"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start}); save it as UTF-8 JSON Lines") from None


def _export(ref: str, args: argparse.Namespace) -> int:
    from evalcore.runfile.ratings import dump_ratings
    from evalcore.storage.ratings import load_ratings

    store = open_store(args)
    run_id = store.resolve_run_id(ref)
    text = dump_ratings(run_id, load_ratings(store, run_id))
    if args.output and args.output != "-":
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"wrote {text.count(chr(10))} ratings of run {run_id} to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def rated_run(ref: str, args: argparse.Namespace) -> Run:
    """A run file read whole, or a stored run with its results and ratings."""
    path = Path(ref)
    if path.is_file():
        from evalcore.runfile.importers import read_import

        return read_import(path)
    from evalcore.storage.ratings import load_ratings

    store = store_holding(ref, args)
    run_id = store.resolve_run_id(ref)
    run = store.load_run(run_id)
    run.ratings = load_ratings(store, run_id)
    return run


def _summary(ref: str, args: argparse.Namespace) -> int:
    from evalcore.analysis.people.human import human_summary
    from evalcore.core.errors import ConfigError

    check_resamples(args, 0)
    run = rated_run(ref, args)
    if not run.ratings:
        raise ConfigError(
            f"run {run.info.id} has no ratings: rate its replies on the app's Rate page, or import them "
            "(evalcore ratings import FILE)"
        )
    summary = human_summary(run, resamples=args.resamples)
    print_bootstrap_report(
        args, lambda: {"run": run.info.id, **summary.to_data()}, lambda: summary_lines(run.info.id, summary)
    )
    return 0


def summary_lines(run_id: str, summary: HumanSummary) -> list[str]:
    """The text ``evalcore ratings RUN`` prints."""
    from evalcore.analysis.people.human import agreement_line, corrected_rows, rater_line
    from evalcore.analysis.people.win_rates import strength_rows, win_rate_rows
    from evalcore.analysis.tables.view import count

    demo = " (demo data: made-up raters)" if summary.demo else ""
    lines = [f"run {run_id}: {count(summary.ratings, 'rating')} by {count(len(summary.raters), 'rater')}{demo}", ""]
    if summary.pairs:
        lines += ["people's win rates (pairs rated blind)", table(*win_rate_rows(summary.pairs)), ""]
        lines += ["people's Bradley-Terry ranking", table(*strength_rows(summary.pairs)), ""]
        lines += [rater_line("pairs", summary.pair_raters), agreement_line("pairwise judge", summary.judge_pairs), ""]
    if summary.single_raters:
        lines += [rater_line("single replies", summary.single_raters)]
        lines += [agreement_line(f"judge ({summary.metric})", summary.judge_single), ""]
    if summary.corrected:
        lines += [f"{summary.metric} corrected by people (prediction-powered, 95% intervals)"]
        lines += [table(*corrected_rows(summary)), ""]
        lines += ["corrected: judge mean + mean(people - judge) on randomly drawn rated replies; its interval "
                  "carries both the sampling of cases and the judge's measured error"]  # fmt: skip
    return lines


COMMANDS = {
    "ratings": (
        add_ratings,
        cmd_ratings,
        "people's ratings of a run's replies: win rates, agreement, the judge corrected by people; import, export",
        "evalcore ratings RUN_ID --format json",
    ),
}
