"""The ``report`` command: one self-contained HTML file of a run, with live weights, Markdown, or a format an
installed package registers (:mod:`evalcore.explorer.reporters`)."""

from __future__ import annotations

import argparse
import sys

from evalcore.cli._shared import add_db, add_filters, filters_of, open_run, warn_directions
from evalcore.cli.output import output_path, write_output


def add_report(p: argparse.ArgumentParser) -> None:
    p.add_argument("run", help="a run id in the store, or a run file (.json / .json.gz)")
    p.add_argument(
        "-o", "--output", help="write here (default: report.<suffix> of the format, or stdout for --format markdown)"
    )
    p.add_argument("--weights", help="e.g. score=0.6,cost=-0.4 (default: the run's); the page's sliders start here")
    add_filters(p)
    p.add_argument(
        "--format",
        default="html",
        metavar="NAME",
        help="html (default), markdown, or a format an installed package registers under the entry-point group "
        "evalcore.reporters (docs/cli.md: 'Adding a report format')",
    )
    p.add_argument(
        "--failing-per-contender",
        type=int,
        default=20,
        metavar="N",
        help="detail at most N failing results per contender (default 20)",
    )
    add_db(p)


def cmd_report(args: argparse.Namespace) -> int:
    from evalcore.analysis.scores.weights import parse_weights
    from evalcore.core.errors import ConfigError
    from evalcore.explorer.report import ReportOptions
    from evalcore.explorer.reporters import find_reporter

    try:
        reporter = find_reporter(args.format)
    except ConfigError as e:
        raise ConfigError(f"--format {args.format}: {e}") from None
    if args.failing_per_contender < 0:
        raise ConfigError(f"--failing-per-contender {args.failing_per_contender}: give 0 or more")
    weights = parse_weights(args.weights) if args.weights is not None else None
    options = ReportOptions(weights=weights, filters=filters_of(args), failing_per_contender=args.failing_per_contender)
    target = args.output or (None if reporter.stdout else f"report.{reporter.suffix}")
    path = None if target is None or target == "-" else output_path(target, example=f"report.{reporter.suffix}")
    run = open_run(args.run, args)
    if weights is not None:
        from evalcore.analysis.tables.runs import metric_set_of

        warn_directions(weights, metric_set_of(run))
    text = reporter.render(run, options)
    data = text.encode("utf-8") if isinstance(text, str) else text
    if path is None:
        if isinstance(text, str):
            sys.stdout.write(text)
        else:
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
        return 0
    write_output(path, data)
    print(f"wrote {target} ({len(data) / 1024:,.0f} KiB)", file=sys.stderr)
    return 0


COMMANDS = {
    "report": (
        add_report,
        cmd_report,
        "one self-contained HTML report of a run (tables, charts, failing cases, live weight sliders)",
        "evalcore report RUN_ID -o report.html --weights score=0.6,cost=-0.4",
    ),
}
