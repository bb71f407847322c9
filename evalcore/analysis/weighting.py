"""The weighted score and the ranking order of the run-file spec, on arrays of table values.

Everything that turns a table's values into a wscore and an order lives here, so the leaderboard, the
bootstrap and weight stability share one definition and import it from below. Every function takes
arrays whose last axis is one table (a resample or a weight draw adds leading axes) and weights already
checked by :func:`evalcore.analysis.weights.validate_weights`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from evalcore.analysis.rules import ERRORS_PENALTY_BASE, ERRORS_PENALTY_EACH, LOG_SCALE_NAMES, TIE_DECIMALS


def log_scale(values: np.ndarray) -> np.ndarray:
    """``t(x)`` of the spec along the last axis (one table per slice); NaN stays NaN.

    ``lo`` is the smallest positive value, ``hi`` the largest; ``t = 0`` when ``x ≤ lo``, else
    ``(ln x − ln lo) / (ln hi − ln lo)`` clipped to [0, 1]; ``t = 0`` everywhere when there is no
    positive value or ``lo = hi``.
    """
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
    errors = np.asarray(columns["errors"], dtype=float)
    if not weights:
        return np.full(errors.shape, np.nan)
    magnitudes = np.abs(np.fromiter(weights.values(), dtype=float))
    raw = 100.0 * (goodness_matrix(columns, weights) @ magnitudes) / magnitudes.sum()
    return np.maximum(raw - errors_penalty(errors, weights), 0.0)


def errors_penalty(errors: np.ndarray, weights: Mapping[str, float]) -> np.ndarray | float:
    """Points taken off each row: ``15 + 5n`` for ``n ≥ 1`` errors when ``errors`` is weighted, else 0."""
    if "errors" not in weights:
        return 0.0
    return np.where(errors >= 1, ERRORS_PENALTY_BASE + ERRORS_PENALTY_EACH * np.asarray(errors, float), 0.0)


def rank_order(wscore: np.ndarray, score: np.ndarray, cost: np.ndarray, id_rank: np.ndarray) -> np.ndarray:
    """Indices that sort rows by the spec's ranking, along the last axis.

    wscore descending (NaN last; all NaN means no weights, so score decides), then score
    descending (NaN last), then cost ascending (NaN last), then contender id (``id_rank``: the
    position of each id in sorted order).
    """
    keys = (id_rank, _nan_last(cost), _nan_last(-np.asarray(score, float)), _nan_last(-np.round(wscore, TIE_DECIMALS)))
    return np.lexsort(np.broadcast_arrays(*keys), axis=-1)


def _nan_last(values: np.ndarray) -> np.ndarray:
    values = np.asarray(values, dtype=float)
    return np.where(np.isnan(values), np.inf, values)


def first_shares(wscore: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Each row's share of first places over tables of shape ``(draws, rows)``: P(best) or weight stability.

    In each draw the rows tied for first share it equally, 1/k each for k rows: the table's tie-breaks
    (cost, then id) order a table but say nothing about which of two equal rows is better. First is by
    wscore (equal to :data:`TIE_DECIMALS` decimals); in a draw where no row has a wscore (no weights), by
    score, equal to as many decimals. A row with no score in a draw (nothing scored) is never first in it;
    a draw with no such row gives no one a share.

    Returns:
        ``(rows,)`` shares, each the sum of its draws' shares divided by the number of draws.
    """
    wscore, score = np.broadcast_arrays(np.asarray(wscore, dtype=float), np.asarray(score, dtype=float))
    if not wscore.shape[0]:
        return np.zeros(wscore.shape[-1])
    unweighted = np.isnan(wscore).all(axis=-1, keepdims=True)
    key = np.round(np.where(unweighted, score, wscore), TIE_DECIMALS)
    key = np.where(np.isnan(score), np.nan, key)
    top = np.where(np.isnan(key), -np.inf, key).max(axis=-1, keepdims=True)
    tied = (key == top) & ~np.isnan(key)
    k = tied.sum(axis=-1, keepdims=True)
    shares = np.divide(tied, k, out=np.zeros(tied.shape), where=k > 0)
    return shares.sum(axis=0) / wscore.shape[0]
