"""The weighted score: weights given as ``name=number`` pairs, checked against a suite's names, each
name's share, and the spec's wscore and ranking order on arrays of table values.

Everything that turns weights and a table's values into a wscore and an order lives here, so the
leaderboard, the bootstrap, weight stability and the CLI's ``weights`` command share one definition. The
array functions take arrays whose last axis is one table (a resample or a weight draw adds leading axes)
and weights already checked by :func:`validate_weights`. NumPy is imported by the array functions only:
checking and parsing weights (the ``weights`` command, the runner's up-front check) does not load it.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, TypedDict

from evalcore.analysis.scores.rules import ERRORS_PENALTY_BASE, ERRORS_PENALTY_EACH, LOG_SCALE_NAMES, TIE_DECIMALS
from evalcore.core.errors import WeightsError
from evalcore.core.metric_set import MetricSet

if TYPE_CHECKING:
    import numpy as np

# A name is a metric's: letters, digits and underscores, and the ``@`` / ``^`` of pass@k and pass^k.
_WEIGHT_ITEM = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_@^]*)\s*=\s*(\S+)\s*")


def validate_weights(weights: Mapping[str, float] | None, metric_set: MetricSet) -> dict[str, float]:
    """Check weight names, drop zero weights and put the rest in the run's weight order
    (:attr:`~evalcore.core.metric_set.MetricSet.order`).

    A name that cannot be weighted is refused even with a zero weight: it is a typo either way. The order
    is the suite's, never the caller's: weight stability draws one factor per name in this order, so the
    same weights give the same numbers on every surface however they were typed.

    Raises:
        WeightsError: a name other than ``score, errors, cost, time``, the declared metrics and their
            aggregate metrics (:func:`evalcore.core.aggregates.aggregate_metrics`: ``macro_f1``), or a
            weight that is not a finite number; the message lists the allowed names.
    """
    allowed = metric_set.weightable
    weights = dict(weights or {})
    unknown = [name for name in weights if name not in allowed]
    if unknown:
        raise WeightsError(f"cannot weight {', '.join(map(repr, unknown))}: allowed names are {', '.join(allowed)}")
    for name, weight in weights.items():
        if isinstance(weight, bool) or not isinstance(weight, numbers.Real) or not math.isfinite(weight):
            raise WeightsError(f"weight {name}={weight!r} is not a finite number")
    return {name: float(weights[name]) for name in metric_set.order if weights.get(name, 0) != 0}


def fold_primary(weights: Mapping[str, float] | None, metric_set: MetricSet) -> dict[str, float]:
    """``weights`` with the primary metric's weight added to ``score``'s, for one slider per number.

    The score is the primary metric's value, so a weight on either weighs the same goodness ``g``
    (spec, "Weighted score"): ``score=0.85`` ranks as ``judge_score=0.85`` does, and the two together as
    their sum when their signs agree. A sum of opposite signs is one weight of their difference, which is
    what a single slider can show.
    """
    primary = metric_set.primary
    folded = dict(weights or {})
    if primary is not None and primary != "score" and primary in folded:
        total = folded.pop(primary) + folded.get("score", 0.0)
        folded = {"score": total, **{k: v for k, v in folded.items() if k != "score"}}
    return folded


def direction_warnings(weights: Mapping[str, float] | None, metric_set: MetricSet) -> dict[str, str]:
    """A line for each weighted name whose weight's sign rewards the opposite of its direction (``score=-1``
    ranks the worst contender first), by name, for whoever sets the weights to show once, beside the weight.

    The sign alone sets the direction (spec), so such a weight is legal, but almost always a mistake.
    """
    better = metric_set.directions
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


def log_scale(values: np.ndarray) -> np.ndarray:
    """``t(x)`` of the spec along the last axis (one table per slice); NaN stays NaN.

    ``lo`` is the smallest positive value, ``hi`` the largest; ``t = 0`` when ``x ≤ lo``, else
    ``(ln x − ln lo) / (ln hi − ln lo)`` clipped to [0, 1]; ``t = 0`` everywhere when there is no
    positive value or ``lo = hi``.
    """
    import numpy as np

    x = np.asarray(values, dtype=float)
    lo = np.where(x > 0, x, np.inf).min(axis=-1, keepdims=True, initial=np.inf)
    hi = np.where(np.isnan(x), -np.inf, x).max(axis=-1, keepdims=True, initial=-np.inf)
    usable = np.isfinite(lo) & (hi > lo)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (np.log(x) - np.log(lo)) / (np.log(hi) - np.log(lo))
    t = np.where(usable & (x > lo), np.clip(t, 0.0, 1.0), 0.0)
    return np.where(np.isnan(x), np.nan, t)


def goodness_matrix(columns: Mapping[str, np.ndarray], weights: Mapping[str, float]) -> np.ndarray:
    """Goodness ``g`` in [0, 1] of every row for every weighted name, shape ``(..., rows, names)``.

    Args:
        columns: name → values with shape ``(..., rows)``; the last axis is one table (the log
            scale of cost and time is computed along it).
        weights: validated, non-zero weights; their order is the order of the last axis.
    """
    import numpy as np

    parts = []
    for name, weight in weights.items():
        if name == "errors":
            value = np.ones_like(columns["errors"], dtype=float)  # errors are charged by the penalty
        else:
            value = log_scale(columns[name]) if name in LOG_SCALE_NAMES else np.asarray(columns[name], float)
            value = value if weight > 0 else 1.0 - value
        parts.append(value)
    return np.stack(parts, axis=-1)


def wscores(columns: Mapping[str, np.ndarray], weights: Mapping[str, float]) -> np.ndarray:
    """The spec's wscore for rows of shape ``(..., rows)``: NaN without weights or for a missing value.

    Args:
        columns: name → values (``errors`` always, plus every weighted name).
        weights: validated, non-zero weights.
    """
    import numpy as np

    errors = np.asarray(columns["errors"], dtype=float)
    if not weights:
        return np.full(errors.shape, np.nan)
    magnitudes = np.abs(np.fromiter(weights.values(), dtype=float))
    raw = 100.0 * (goodness_matrix(columns, weights) @ magnitudes) / magnitudes.sum()
    return np.maximum(raw - errors_penalty(errors, weights), 0.0)


def errors_penalty(errors: np.ndarray, weights: Mapping[str, float]) -> np.ndarray | float:
    """Points taken off each row: ``15 + 5n`` for ``n ≥ 1`` errors when ``errors`` is weighted, else 0."""
    import numpy as np

    if "errors" not in weights:
        return 0.0
    return np.where(errors >= 1, ERRORS_PENALTY_BASE + ERRORS_PENALTY_EACH * np.asarray(errors, float), 0.0)


def rank_order(wscore: np.ndarray, score: np.ndarray, cost: np.ndarray, id_rank: np.ndarray) -> np.ndarray:
    """Indices that sort rows by the spec's ranking, along the last axis.

    wscore descending (NaN last; all NaN means no weights, so score decides), then score
    descending (NaN last), then cost ascending (NaN last), then contender id (``id_rank``: the
    position of each id in sorted order).
    """
    import numpy as np

    keys = (id_rank, _nan_last(cost), _nan_last(-np.asarray(score, float)), _nan_last(-np.round(wscore, TIE_DECIMALS)))
    return np.lexsort(np.broadcast_arrays(*keys), axis=-1)


def _nan_last(values: np.ndarray) -> np.ndarray:
    import numpy as np

    values = np.asarray(values, dtype=float)
    return np.where(np.isnan(values), np.inf, values)


def first_shares(wscore: np.ndarray, score: np.ndarray, weighted: bool | None = None) -> np.ndarray:
    """Each row's share of first places over tables of shape ``(draws, rows)``: P(best) or weight stability.

    In each draw the rows tied for first share it equally, 1/k each for k rows: the table's tie-breaks
    (cost, then id) order a table but say nothing about which of two equal rows is better. First is by
    wscore (equal to :data:`TIE_DECIMALS` decimals); in a draw where no row has a wscore (no weights), by
    score, equal to as many decimals. A row with no score in a draw (nothing scored) is never first in it;
    a draw with no such row gives no one a share.

    Args:
        weighted: True: the table has weights, so first is by wscore only and a draw where no row has one
            gives no one a share (the spec's "best" needs a wscore); False: by score; None: by wscore where
            a draw has one, else by score.

    Returns:
        ``(rows,)`` shares, each the sum of its draws' shares divided by the number of draws.
    """
    import numpy as np

    wscore, score = np.broadcast_arrays(np.asarray(wscore, dtype=float), np.asarray(score, dtype=float))
    if not wscore.shape[0]:
        return np.zeros(wscore.shape[-1])
    unweighted = np.isnan(wscore).all(axis=-1, keepdims=True) if weighted is None else np.full((1, 1), not weighted)
    key = np.round(np.where(unweighted, score, wscore), TIE_DECIMALS)
    key = np.where(np.isnan(score), np.nan, key)
    top = np.where(np.isnan(key), -np.inf, key).max(axis=-1, keepdims=True)
    tied = (key == top) & ~np.isnan(key)
    k = tied.sum(axis=-1, keepdims=True)
    shares = np.divide(tied, k, out=np.zeros(tied.shape), where=k > 0)
    return shares.sum(axis=0) / wscore.shape[0]
