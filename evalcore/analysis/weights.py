"""Weights of the weighted score: parse ``name=number`` pairs, check names, and each name's share.

Pure Python, no pandas: the CLI's ``weights`` command and the runner's up-front check of a suite's
weights use these without paying for the leaderboard's numerics. :mod:`evalcore.analysis.leaderboard`
re-exports them.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Mapping, Sequence
from typing import TypedDict

from evalcore.core.aggregates import BASE_WEIGHT_NAMES, weightable_names, with_aggregates
from evalcore.core.errors import WeightsError
from evalcore.core.records import Metric

_WEIGHT_ITEM = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(\S+)\s*")


def weight_order(metrics: Sequence[Metric]) -> list[str]:
    """Every name a suite may weight, in the one order weights are kept in: ``score``, the declared metrics
    (aggregate metrics last), then ``errors``, ``cost`` and ``time``."""
    names = [m.name for m in with_aggregates(metrics)]
    return ["score", *names, *(n for n in BASE_WEIGHT_NAMES if n != "score")]


def validate_weights(weights: Mapping[str, float] | None, metrics: Sequence[Metric]) -> dict[str, float]:
    """Check weight names, drop zero weights and put the rest in :func:`weight_order`.

    A name that cannot be weighted is refused even with a zero weight: it is a typo either way. The order
    is the suite's, never the caller's: weight stability draws one factor per name in this order, so the
    same weights give the same numbers on every surface however they were typed.

    Raises:
        WeightsError: a name other than ``score, errors, cost, time``, the declared metrics and their
            aggregate metrics (:func:`evalcore.core.aggregates.aggregate_metrics`: ``macro_f1``), or a
            weight that is not a finite number; the message lists the allowed names.
    """
    allowed = weightable_names(metrics)
    metrics = with_aggregates(metrics)
    weights = dict(weights or {})
    unknown = [name for name in weights if name not in allowed]
    if unknown:
        raise WeightsError(f"cannot weight {', '.join(map(repr, unknown))}: allowed names are {', '.join(allowed)}")
    for name, weight in weights.items():
        if isinstance(weight, bool) or not isinstance(weight, numbers.Real) or not math.isfinite(weight):
            raise WeightsError(f"weight {name}={weight!r} is not a finite number")
    return {name: float(weights[name]) for name in weight_order(metrics) if weights.get(name, 0) != 0}


#: The direction of the names every suite may weight (``errors`` is charged by its penalty, whatever its sign).
_BASE_DIRECTIONS = {"score": True, "cost": False, "time": False}


def direction_warnings(weights: Mapping[str, float] | None, metrics: Sequence[Metric]) -> dict[str, str]:
    """A line for each weighted name whose weight's sign rewards the opposite of its direction (``score=-1``
    ranks the worst contender first), by name, for whoever sets the weights to show once, beside the weight.

    The sign alone sets the direction (spec), so such a weight is legal, but almost always a mistake.
    """
    better = dict(_BASE_DIRECTIONS) | {m.name: m.higher_is_better for m in with_aggregates(metrics)}
    lines = {}
    for name, weight in (weights or {}).items():
        if name not in better or not weight or (weight > 0) == better[name]:
            continue
        favoured, own = ("lowest", "higher") if weight < 0 else ("highest", "lower")
        sign = "positive" if better[name] else "negative"
        lines[name] = (
            f"weight {name}={weight:g} ranks the contenders with the {favoured} {name} first, but a {own} {name} "
            f"is better; give {name} a {sign} weight to reward a better {name}"
        )
    return lines


def parse_weights(text: str) -> dict[str, float]:
    """Parse ``"score=0.4,cost=-0.2"`` into ``{"score": 0.4, "cost": -0.2}``; blank text gives ``{}``.

    Raises:
        WeightsError: an item that is not ``name=number``, or a name given twice.
    """
    weights: dict[str, float] = {}
    if not text.strip():
        return weights
    for item in text.split(","):
        match = _WEIGHT_ITEM.fullmatch(item)
        number = finite_number(match.group(2)) if match else None
        if match is None or number is None:
            raise WeightsError(
                f"weights {text!r}: {item.strip()!r} is not name=number; "
                "write pairs separated by commas, e.g. score=0.4,cost=-0.2"
            )
        if match.group(1) in weights:
            raise WeightsError(f"weights {text!r}: {match.group(1)!r} is given twice")
        weights[match.group(1)] = number
    return weights


def finite_number(text: str) -> float | None:
    """``text`` as a finite float, or None when it is not one."""
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


class WeightShare(TypedDict):
    """One weighted name as a product brief reads it."""

    name: str
    weight: float
    #: ``|w| / Σ|w|``, from 0 to 1.
    share: float
    #: ``"higher is better"`` or ``"lower is better"``.
    direction: str


def weight_shares(weights: Mapping[str, float]) -> list[WeightShare]:
    """Each weighted name's share of the wscore, ``|w| / Σ|w|``, and its direction, in the given order.

    Returns:
        One ``{"name", "weight", "share", "direction"}`` per non-zero weight; direction is
        ``"higher is better"`` for a positive weight, ``"lower is better"`` for a negative one.
    """
    nonzero = {name: float(w) for name, w in weights.items() if w != 0}
    total = sum(abs(w) for w in nonzero.values())
    return [
        WeightShare(
            name=name, weight=w, share=abs(w) / total, direction="higher is better" if w > 0 else "lower is better"
        )
        for name, w in nonzero.items()
    ]
