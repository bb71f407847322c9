"""The ``evalcore`` command line: the parser, built from every command group, and the entry point."""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path

from evalcore.cli import (
    agreement,
    cache,
    cases,
    completion,
    decide,
    generate,
    history,
    judge,
    pairwise,
    planning,
    ranking,
    ratings,
    report,
    rescore,
    suite,
)
from evalcore.core.version import __version__

EPILOG = """\
examples:
  evalcore cases  data/suites/intake             list every case; calls nothing
  evalcore verify data/suites/intake             offline checks of the suite
  evalcore plan   data/suites/intake             what a run would call
  evalcore run    data/suites/intake             run the bundled fake lineup offline
  evalcore run    data/suites/intake -m openai/o4-mini -d tax_preparation -e low,high
  evalcore runs                                  run history
  evalcore leaderboard RUN_ID --weights score=0.6,cost=-0.4
  evalcore report RUN_ID -o report.html          one HTML file with live weight sliders
  evalcore export RUN_ID -o run.json.gz          write the run file
  evalcore import run.json.gz                    read a run file into the store
  evalcore import out.json logs/                 promptfoo results, Inspect logs (told apart by content)
  evalcore merge RUN_A RUN_B -o merged.json      one run of the contenders of both, over their common cases
  evalcore copy --from data/evalcore.db --to postgresql://USER@HOST/DB   move the history to a server
  evalcore run --resume RUN_ID                   finish an interrupted run
  evalcore rescore RUN_ID --judge-cache          score a run's stored outputs again; calls no contender
  evalcore compare BASE_RUN CANDIDATE_RUN        what changed between two runs, case by case
  evalcore gate RUN_ID --baseline BASE_RUN       PASS / WARN (exit 0), FAIL (exit 1), cannot decide (exit 2)
  evalcore agreement labels.csv                  how well the judge agrees with human labels
  evalcore pairwise RUN_ID                       win rates and Bradley-Terry ranking of a pairwise judge
  evalcore ratings RUN_ID                        what people said: ranking, agreement, the judge corrected
  evalcore ratings import ratings.jsonl          people's ratings (JSON Lines) into the store
  evalcore generate SUITE --dataset D --from docs   propose new cases; evalcore generate review accepts them
  evalcore judge align RUN_ID                    few-shot examples where the judge disagreed with people
"""

Adder = Callable[[argparse.ArgumentParser], None]
Handler = Callable[[argparse.Namespace], int]
#: Every command: name → (adds its arguments, runs it, one-line summary, example), in the order of ``--help``.
COMMANDS: dict[str, tuple[Adder, Handler, str, str]] = {
    **cases.COMMANDS,
    **planning.COMMANDS,
    **suite.COMMANDS,
    **rescore.COMMANDS,
    **history.COMMANDS,
    **ranking.COMMANDS,
    **report.COMMANDS,
    **decide.COMMANDS,
    **agreement.COMMANDS,
    **pairwise.COMMANDS,
    **ratings.COMMANDS,
    **generate.COMMANDS,
    **judge.COMMANDS,
    **cache.COMMANDS,
}


def cmd_completion(args: argparse.Namespace) -> int:
    """Print the completion script of every parser, this one included (so it lives here, not in its module)."""
    print(completion.completion_script(args.shell, *build_parsers()), end="")
    return 0


COMMANDS["completion"] = (completion.add_completion, cmd_completion, completion.SUMMARY, completion.EXAMPLE)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``evalcore`` console script.

    Every command exits 0 when it did what was asked, 1 when it ran but its outcome is a failure (a gate's
    FAIL, a run whose calls failed or that stopped with cases left), 2 when it cannot be done as given (a bad
    argument, suite, file or run id: one line on stderr), 130 on Ctrl-C and 141 when stdout's reader is gone
    (docs/reliability.md lists them per command).
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 0
    from evalcore._util.deplog import dependency_log, said_where

    with dependency_log(_store_folder(args)) as log:
        code = _handle(args)
    where = said_where(log)
    if where:
        print(where, file=sys.stderr)
    return code


def _store_folder(args: argparse.Namespace) -> Path:
    """The folder of the store the command uses (``--db``, else the default one): where dependency warnings go."""
    from evalcore.cli._shared import store_location
    from evalcore.core.errors import ConfigError
    from evalcore.storage.location import DEFAULT_DB

    try:
        return store_location(args).folder
    except ConfigError:  # the command itself reports the bad --db
        return DEFAULT_DB.parent


def _handle(args: argparse.Namespace) -> int:
    """Run the command; its exit code."""
    from evalcore.core.errors import EvalcoreError

    try:
        code = int(args.handler(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not at exit where it cannot be caught
        return code
    except BrokenPipeError:
        return _reader_gone()
    except EvalcoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a file or folder the command was given that it cannot use: one line, not a traceback
        print(f"error: {_os_error_text(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def _os_error_text(exc: OSError) -> str:
    """``data/x.json: Permission denied``: the file the system refused and why."""
    where = ": ".join(str(name) for name in (exc.filename, exc.filename2) if name is not None)
    return f"{where}: {exc.strerror}" if where and exc.strerror else str(exc)


def _reader_gone() -> int:
    """Exit quietly when whoever reads stdout has stopped (``evalcore … | head``): 128 + SIGPIPE, as a shell says.

    stdout now points at devnull, so flushing what is left at exit cannot fail again.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 141


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command (see :data:`COMMANDS`)."""
    return build_parsers()[0]


def build_parsers(width: int | None = None) -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The ``evalcore`` parser and each command's own, by name; help wraps at ``width`` (default: the terminal's)."""
    formatter = functools.partial(argparse.RawDescriptionHelpFormatter, width=width) if width else None
    parser = argparse.ArgumentParser(
        prog="evalcore",
        formatter_class=formatter or argparse.RawDescriptionHelpFormatter,
        epilog=EPILOG,
        description="Which model, prompt and settings should we ship? Run eval suites over lineups of "
        "models and compare them on leaderboards.",
    )
    parser.add_argument("--version", action="version", version=f"evalcore {__version__}")
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")
    commands = {}
    for name, (add, handler, summary, example) in COMMANDS.items():
        p = sub.add_parser(
            name,
            help=summary,
            description=summary.replace("%%", "%"),
            epilog=f"example:\n  {example}",
            formatter_class=formatter or argparse.RawDescriptionHelpFormatter,
        )
        add(p)
        p.set_defaults(handler=handler)
        commands[name] = p
    return parser, commands
