"""The options and the output of a command that prints a bootstrap's intervals (agreement, pairwise, ratings)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

from evalcore.cli._shared import add_db

#: Bootstrap resamples per interval unless ``--resamples`` says otherwise.
RESAMPLES = 1000


def add_bootstrap_report(p: argparse.ArgumentParser, resampled: str) -> None:
    """The options of a command that prints a bootstrap's intervals: ``--resamples``, ``--seed``, ``--format``
    (table or json) and ``--db``.

    Args:
        p: the command's parser.
        resampled: what a resample draws, for the help text (``over cases``, ``per interval``).
    """
    p.add_argument(
        "--resamples", type=int, default=RESAMPLES, help=f"bootstrap resamples {resampled} (default {RESAMPLES})"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default 0)")
    p.add_argument("--format", choices=["table", "json"], default="table")
    add_db(p)


def check_resamples(args: argparse.Namespace, least: int) -> None:
    """Refuse a ``--resamples`` below ``least`` (0: a command that can print no intervals at all)."""
    from evalcore.core.errors import ConfigError

    if args.resamples < least:
        give = "give 0 (no intervals) or more" if least == 0 else f"give at least {least}"
        raise ConfigError(f"--resamples {args.resamples}: {give} ({RESAMPLES} is the default)")


def print_bootstrap_report(
    args: argparse.Namespace, data: Callable[[], dict[str, Any]], lines: Callable[[], list[str]]
) -> None:
    """Print a bootstrap report as its ``--format`` asks: ``data()`` as strict JSON (a NaN is an error, not an
    invalid file), or ``lines()`` as text."""
    if args.format == "json":
        print(json.dumps(data(), indent=2, ensure_ascii=False, allow_nan=False))
    else:
        print("\n".join(lines()))
