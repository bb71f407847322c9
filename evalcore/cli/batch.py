"""The batch flags of ``evalcore run`` and ``evalcore plan`` (``docs/batch.md``), and what ``plan`` says of them."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from evalcore.execution.batching import BatchSettings

#: A batch's turnaround ``plan`` assumes when none is given: providers promise 24 h and mostly answer within one.
TURNAROUND, TURNAROUND_S = "1h", 3600.0


def _age(text: str) -> float:
    """An argparse type: seconds of ``90s``, ``15m``, ``12h``, ``1d`` or a plain number of seconds."""
    from evalcore.execution.reply_cache import parse_age

    try:
        return parse_age(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_batch(p: argparse.ArgumentParser, plan: bool = False) -> None:
    """``--batch`` and, for ``run``, ``--batch-poll``; for ``plan``, ``--batch-turnaround``."""
    p.add_argument(
        "--batch",
        action="store_true",
        help="send each contender's calls (an adaptive run's: each round's) through its provider's batch API, at the "
        "batch price (the suite's *_cost_per_token_batches, else litellm's, else half the price); results come "
        "when the batch ends; run --resume polls the batches a stopped run sent",
    )
    if plan:
        p.add_argument(
            "--batch-turnaround",
            type=_age,
            default=TURNAROUND_S,
            metavar="AGE",
            help=f"with --batch: how long a batch takes to come back, for the wall time (default {TURNAROUND})",
        )
        return
    p.add_argument(
        "--batch-poll",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="with --batch: seconds between two looks at a batch (default 30)",
    )


def batch_settings(args: argparse.Namespace) -> BatchSettings | None:
    """The batch settings of the flags; None without ``--batch``."""
    from evalcore.core.errors import ConfigError
    from evalcore.execution.batching import BatchSettings

    if not getattr(args, "batch", False):
        return None
    poll = getattr(args, "batch_poll", 30.0)
    if not poll > 0:
        raise ConfigError(f"--batch-poll {poll:g}: give the seconds between two looks at a batch, e.g. 30")
    return BatchSettings(poll_s=poll)
