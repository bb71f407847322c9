"""The leaderboard's numbers, each named once (``docs/run-file.md``, "Leaderboard semantics").

The ranking in Python (:mod:`~evalcore.analysis.scores.weights`, :mod:`~evalcore.analysis.ranking.leaderboard`), the
texts that explain it, the CLI's defaults and the report's JavaScript all read these: the report's page
gets them written in by :func:`evalcore.explorer.report.report_script`, so its copy of the ranking cannot
drift from this one. Pure Python, so the CLI reads its defaults without numpy.
"""

from __future__ import annotations

from typing import Any

#: Points a row with ``n ≥ 1`` errors loses when ``errors`` is weighted:
#: ``ERRORS_PENALTY_BASE + ERRORS_PENALTY_EACH·n``.
ERRORS_PENALTY_BASE = 15
#: See :data:`ERRORS_PENALTY_BASE`.
ERRORS_PENALTY_EACH = 5
#: Best value: the cheapest row within this much of the top score (0.02: two points), unless told otherwise.
BEST_VALUE_POINTS = 0.02
#: The names whose goodness is on a log scale within the table (each doubling costs the same).
LOG_SCALE_NAMES = ("cost", "time")
#: wscores equal to 9 decimals tie: float noise (all weights scaled by k, say) must not reorder rows.
TIE_DECIMALS = 9
#: "within 0.02 of the top score" includes 0.88 against 0.90, whose float difference is 0.0200…02.
POINTS_TOLERANCE = 1e-9
#: What a leaderboard says of a table with one contender, after its name: a rank needs another row.
ALONE_TEXT = (
    "nothing to rank it against, so no winner: its first place, best mark and P(best) of 100% hold by "
    "construction, not by evidence; read its score and interval."
)


def errors_penalty_text() -> str:
    """The penalty as a person reads it: ``15 + 5n``."""
    return f"{ERRORS_PENALTY_BASE} + {ERRORS_PENALTY_EACH}n"


def best_value_text(points: float = BEST_VALUE_POINTS) -> str:
    """What best value means, for a person: ``the cheapest row with no errors within 2 points of the top score``."""
    return f"the cheapest row with no errors within {100 * points:g} points of the top score"


def ranking_rules() -> dict[str, Any]:
    """These numbers as the JSON object the report's JavaScript ranks with."""
    return {
        "errors_penalty_base": ERRORS_PENALTY_BASE,
        "errors_penalty_each": ERRORS_PENALTY_EACH,
        "best_value_points": BEST_VALUE_POINTS,
        "log_scale_names": list(LOG_SCALE_NAMES),
        "tie_decimals": TIE_DECIMALS,
        "points_tolerance": POINTS_TOLERANCE,
        "alone_text": ALONE_TEXT,
    }
