"""How one number reads in a table, a note or a chart: percentages, USD and seconds, with a dash for null.

No pandas or numpy here: commands that print a few numbers (``evalcore compare``, ``evalcore verify``) never
load them. A numpy number is still read as one: numpy registers its types as :class:`numbers.Real`.
"""

from __future__ import annotations

import math
import numbers

#: What a missing value reads as.
DASH = "–"
#: What a cost shown as :data:`DASH` means, for the tooltip of a column of costs: unknown, never free.
UNKNOWN_COST_HELP = (
    "– means cost unknown: the provider gave none (a local model: give it a price under `prices:` in evalcore.yaml)"
)


def format_percent(value: float) -> str:
    """``0.8125`` → ``81.2%``; null → ``–``."""
    return DASH if is_missing(value) else f"{100 * value:.1f}%"


def format_cost(value: float) -> str:
    """USD with at least two significant digits, so a small cost never shows as ``$0.00``.

    ``0.0004`` → ``$0.0004``, ``0.000412`` → ``$0.00041``, ``1.5`` → ``$1.50``, null → ``–``.
    """
    return DASH if is_missing(value) else f"${_significant(value)}"


def format_seconds(value: float) -> str:
    """``1.234`` → ``1.23 s``, ``0.0042`` → ``0.0042 s``; null → ``–``."""
    return DASH if is_missing(value) else f"{_significant(value)} s"


def _significant(value: float) -> str:
    if value == 0:
        return "0"
    if abs(value) >= 1:
        return f"{value:,.2f}"
    decimals = max(2, 1 - math.floor(math.log10(abs(value))))
    text = f"{value:.{decimals}f}".rstrip("0")
    whole, _, fraction = text.partition(".")
    return f"{whole}.{fraction.ljust(2, '0')}"


def is_missing(value: object) -> bool:
    """None or NaN (a Python or a numpy float)."""
    return value is None or (isinstance(value, numbers.Real) and math.isnan(value))


def format_value(name: str, value: float, delta: bool = False) -> str:
    """A value as the leaderboard shows it: scores, metrics and error rates in %, cost in USD, time in s.

    With ``delta``, a difference: points for scores and rates, and a sign before the ``$`` of a cost.
    """
    if is_missing(value):
        return DASH
    if name in ("cost", "time"):
        text = (format_cost if name == "cost" else format_seconds)(abs(value))
        return ("-" if value < 0 else "") + text
    return f"{100 * value:.1f} pts" if delta else f"{100 * value:.1f}%"


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 result``, ``2 results``, ``0 results``; ``many`` for an irregular plural (``2 analyses``)."""
    return f"{count} {word if count == 1 else many or word + 's'}"
