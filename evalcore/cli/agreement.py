"""``evalcore agreement``: how well a judge agrees with human labels, and judges with each other.

The rows come from a labels file (:func:`evalcore.analysis.people.labels.parse_labels`) or, with ``--human-key``,
from a run whose cases carry the human label in their metadata
(:func:`evalcore.analysis.people.labels.labels_from_run`); the numbers from
:func:`evalcore.analysis.people.agreement.agreement`. Exit 0 when it could compare, 2 on bad input.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

from evalcore.cli._bootstrap import add_bootstrap_report, check_resamples, print_bootstrap_report
from evalcore.cli._shared import store_holding, table, terminal_width

if TYPE_CHECKING:
    from evalcore.analysis.people.agreement import Agreement, AgreementReport, Estimate
    from evalcore.analysis.people.labels import LabelsTable
    from evalcore.core.records import Run

#: Label sets up to this size get their confusion matrix in the table output (JSON always has it).
MAX_CONFUSION_LABELS = 10
#: Fewer rows than this and a comparison's intervals are wide: the table says so (the leaderboard's "few cases").
FEW_ROWS = 30
HEADERS = {"accuracy": "accuracy", "kappa": "kappa", "pearson": "pearson", "spearman": "spearman", "mae": "MAE"}


def add_agreement(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "source",
        metavar="LABELS",
        help="a CSV or JSON Lines file with the columns id, human and judge (judge_*: more judges); "
        "with --human-key, a run id in the store or a run file",
    )
    p.add_argument(
        "--labels",
        dest="as_labels",
        action="store_true",
        help="compare every column as labels (classes), even numbers such as 1-5 ratings",
    )
    p.add_argument("--human-key", metavar="KEY", help="read a run: each case's metadata KEY holds the human label")
    p.add_argument(
        "--judge-metric",
        action="append",
        default=[],
        metavar="NAME",
        help="with --human-key: the verdict per result: score (default), a metric, output or output.FIELD "
        "(repeatable: one judge column each)",
    )
    p.add_argument(
        "--contender",
        action="append",
        default=[],
        metavar="ID",
        help="with --human-key: whose results are the verdicts; needed when the run has several (repeatable)",
    )
    add_bootstrap_report(p, "per interval")


def cmd_agreement(args: argparse.Namespace) -> int:
    from evalcore.analysis.people.agreement import agreement, report_data

    check_resamples(args, 1)
    labels = labels_table(args)
    report = agreement(labels.frame, labels.judges, labels=args.as_labels, B=args.resamples, seed=args.seed)
    print_bootstrap_report(
        args,
        lambda: {
            "source": labels.source,
            "notes": labels.notes,
            "forced_labels": args.as_labels,
            **report_data(report),
        },
        lambda: agreement_lines(labels, report, forced_labels=args.as_labels),
    )
    return 0


def labels_table(args: argparse.Namespace) -> LabelsTable:
    """The rows to compare: the labels file, or with ``--human-key`` the run the argument names.

    Raises:
        ConfigError: a missing or unreadable file, run options without ``--human-key``, or bad rows.
    """
    from evalcore.analysis.people.labels import labels_from_run, parse_labels
    from evalcore.core.errors import ConfigError

    if args.human_key is None:
        if args.judge_metric or args.contender:
            raise ConfigError("--judge-metric and --contender read a run: give --human-key KEY too")
        path = Path(args.source)
        if not path.is_file():
            raise ConfigError(f"{args.source}: no such file (a run id needs --human-key KEY)")
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as e:
            raise ConfigError(f"{args.source}: not UTF-8 text (byte {e.start}); save it as UTF-8") from None
        return parse_labels(text, args.source)
    return labels_from_run(_run(args), args.human_key, args.judge_metric or ["score"], args.contender)


def _run(args: argparse.Namespace) -> Run:
    """The run file, or the stored run by id or unique prefix, read with only the chosen contender's results
    when one is chosen."""
    if Path(args.source).is_file():
        from evalcore.runfile.read import read_run_file

        return read_run_file(Path(args.source))
    store = store_holding(args.source, args)
    run_id = store.resolve_run_id(args.source)
    if not args.contender:
        header = store.load_run(run_id, results=False)
        if len(header.contenders) != 1:
            # labels_from_run checks the key on the cases, then asks for --contender: no result is needed.
            return dataclasses.replace(header, cases=store.load_cases(run_id))
    return store.load_run(run_id, contender=args.contender[0] if len(set(args.contender)) == 1 else None)


def agreement_lines(labels: LabelsTable, report: AgreementReport, *, forced_labels: bool = False) -> list[str]:
    """The report as text: a table per kind of human-vs-judge comparison, the same between judges, the
    confusion matrices of labels, and what the columns mean."""
    judges = ", ".join(labels.judges)
    lines = [f"{labels.source}: {report.rows} rows; {'judge' if len(labels.judges) == 1 else 'judges'}: {judges}"]
    lines += labels.notes
    for kind in ("labels", "numbers"):
        chosen = [a for a in report.judges if a.kind == kind]
        if chosen:
            lines += ["", f"judge vs human, as {kind}"]
            lines.append(table([[a.b, *_cells(a)] for a in chosen], ["judge", "n", "missing", *_headers(kind)]))
    for kind in ("labels", "numbers"):
        chosen = [a for a in report.pairs if a.kind == kind]
        if chosen:
            lines += ["", f"between judges, as {kind}"]
            rows = [[a.a, a.b, *_cells(a)] for a in chosen]
            lines.append(table(rows, ["a", "b", "n", "missing", *_headers(kind)]))
    for a in report.judges:
        lines += _confusion(a)
    width = terminal_width()
    notes = [
        part for note in _notes(report, forced_labels) for part in textwrap.wrap(note, width, subsequent_indent="  ")
    ]
    return [*lines, "", *notes]


def _headers(kind: str) -> list[str]:
    from evalcore.analysis.people.agreement import STATISTICS

    return [HEADERS[name] for name in STATISTICS[kind]]


def _cells(a: Agreement) -> list[str]:
    from evalcore.analysis.people.agreement import STATISTICS

    return [str(a.n), str(a.missing), *(_estimate(name, a.stats[name]) for name in STATISTICS[a.kind])]


def _estimate(name: str, e: Estimate) -> str:
    from evalcore.analysis.tables.text import DASH, format_percent

    if math.isnan(e.value):
        return DASH
    if name == "accuracy":
        interval = "" if math.isnan(e.lo) else f" [{format_percent(e.lo).rstrip('%')}–{format_percent(e.hi)}]"
        return format_percent(e.value) + interval
    number = "{:.3g}" if name == "mae" else "{:.2f}"
    interval = "" if math.isnan(e.lo) else f" [{number.format(e.lo)}, {number.format(e.hi)}]"
    return number.format(e.value) + interval


def _confusion(a: Agreement) -> list[str]:
    if a.kind != "labels" or not a.n:
        return []
    title = f"human (rows) x {a.b} (columns)"
    if len(a.labels) > MAX_CONFUSION_LABELS:
        return ["", f"{title}: {len(a.labels)} labels, too many to show here (--format json has the matrix)"]
    # Only the labels each rater gave: the matrix kappa counts is square over both raters' labels.
    given = [i for i, row in enumerate(a.confusion) if any(row)]
    got = [j for j in range(len(a.labels)) if any(row[j] for row in a.confusion)]
    header = ["", *(a.labels[j] for j in got)]
    rows = [[a.labels[i], *(str(a.confusion[i][j]) for j in got)] for i in given]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "  ".join([cells[0].ljust(widths[0]), *(c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True))])

    return ["", title, line(header).rstrip(), *(line(row) for row in rows)]


def _notes(report: AgreementReport, forced_labels: bool) -> list[str]:
    kinds = {a.kind for a in [*report.judges, *report.pairs]}
    lines = [
        "n: rows where both have a value; missing: rows where either is blank or null",
        "accuracy: share of rows with exactly the same value;"
        " [low–high]: 95% Agresti–Coull interval (Clopper–Pearson under 32 rows)",
    ]
    if "labels" in kinds:
        lines.append(
            "kappa: Cohen's kappa, agreement beyond chance (1 perfect, 0 no better than chance, below 0 worse); "
            "– when both give one and the same label throughout"
        )
    if "numbers" in kinds:
        lines.append(
            "pearson, spearman: correlation of the values and of their ranks (ties share their average rank); "
            "MAE: mean absolute difference; – when a rater gives one value throughout"
        )
    statistics = "kappa" if kinds == {"labels"} else "pearson, spearman, MAE" if kinds == {"numbers"} else "the rest"
    lines.append(
        f"[low, high] of {statistics}: 95% bootstrap percentile interval over rows "
        f"({report.resamples} resamples, seed {report.seed})"
    )
    if forced_labels:
        lines.append("--labels: every column compared as labels")
    few = [a.b if a.a == "human" else f"{a.a} vs {a.b}" for a in [*report.judges, *report.pairs] if 0 < a.n < FEW_ROWS]
    if few:
        lines.append(f"fewer than {FEW_ROWS} rows, so wide intervals: {', '.join(few)}")
    empty = [a.b if a.a == "human" else f"{a.a} vs {a.b}" for a in [*report.judges, *report.pairs] if not a.n]
    if empty:
        lines.append(f"no row where both have a value: {', '.join(empty)}")
    return lines


COMMANDS = {
    "agreement": (
        add_agreement,
        cmd_agreement,
        "how well a judge agrees with human labels (accuracy, kappa or correlations, with 95%% intervals), "
        "and judges with each other",
        "evalcore agreement labels.csv --format json",
    ),
}
