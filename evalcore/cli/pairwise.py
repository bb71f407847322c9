"""``evalcore pairwise RUN``: a run's pairwise verdicts as a win-rate table and a Bradley–Terry ranking.

The verdicts come from the suite's ``pairwise:`` judge (docs/judges.md); the numbers from
:func:`evalcore.analysis.people.win_rates.pairwise_summary`. Exit 0 when the run has verdicts, 2 when it has none.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from evalcore.cli._bootstrap import add_bootstrap_report, check_resamples, print_bootstrap_report
from evalcore.cli._shared import read_header, table

if TYPE_CHECKING:
    from evalcore.core.records import Run


def add_pairwise(p: argparse.ArgumentParser) -> None:
    p.add_argument("run", metavar="RUN", help="a run id in the store (a unique prefix is enough) or a run file")
    p.add_argument(
        "--inconsistent",
        choices=["tie", "exclude"],
        default="tie",
        help="count a verdict whose two orders disagree as a tie (default) or not at all",
    )
    add_bootstrap_report(p, "over cases")


def cmd_pairwise(args: argparse.Namespace) -> int:
    from evalcore.analysis.people.win_rates import pairwise_summary
    from evalcore.core.errors import ConfigError

    check_resamples(args, 0)
    run = read_header(args.run, args)
    if not run.pairwise:
        raise ConfigError(
            f"run {run.info.id} has no pairwise verdicts: give its suite a pairwise: judge (docs/judges.md) "
            "and run it, or rescore it (evalcore rescore)"
        )
    summary = pairwise_summary(
        run.pairwise,
        [c.id for c in run.contenders],
        inconsistent=args.inconsistent,
        resamples=args.resamples,
        seed=args.seed,
    )
    print_bootstrap_report(
        args, lambda: {"run": run.info.id, **summary.to_data()}, lambda: pairwise_lines(run.info.id, summary)
    )
    return 0


def pairwise_lines(run_id: str, summary: object) -> list[str]:
    """The text ``evalcore pairwise`` prints: the outcome counts, the win-rate table, the ranking, a legend."""
    from evalcore.analysis.people.win_rates import PairwiseSummary, headline, legend, strength_rows, win_rate_rows

    assert isinstance(summary, PairwiseSummary)
    lines = [f"run {run_id}: {headline(summary)}", ""]
    lines += ["win rate (each comparison judged in both orders)", table(*win_rate_rows(summary)), ""]
    lines += ["Bradley-Terry ranking", table(*strength_rows(summary)), ""]
    return lines + legend(summary)


def print_pairwise_note(run: Run) -> None:
    """Under a leaderboard: one line on the run's pairwise verdicts and what judging them cost; nothing without."""
    if not run.pairwise:
        return
    costs = [v.cost_usd for v in run.pairwise]
    cost = "unknown" if None in costs else f"${sum(c or 0.0 for c in costs):.6f}"
    inconsistent = sum(v.outcome == "inconsistent" for v in run.pairwise)
    print(
        f"\npairwise: {len(run.pairwise)} comparisons ({inconsistent} inconsistent), judge cost {cost} on top; "
        f"evalcore pairwise {run.info.id} for win rates and the Bradley-Terry ranking"
    )


COMMANDS = {
    "pairwise": (
        add_pairwise,
        cmd_pairwise,
        "a run's pairwise verdicts: win rates with intervals and a Bradley-Terry ranking",
        "evalcore pairwise RUN_ID --format json",
    ),
}
