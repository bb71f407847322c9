"""Does the winner hang on the exact weights? How often each contender ranks first when they wobble."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import numpy as np
import pandas as pd

from evalcore.analysis.scores.weights import errors_penalty, first_shares, goodness_matrix, validate_weights
from evalcore.core.metric_set import MetricSet
from evalcore.core.records import Metric


def weight_stability(
    table: pd.DataFrame,
    weights: Mapping[str, float] | None,
    metrics: Sequence[Metric],
    draws: int = 1000,
    seed: int = 0,
) -> dict[str, float]:
    """How often each contender ranks first when the weights wobble.

    Every weight is multiplied by its own factor, log-uniform in [0.5, 2] (signs kept), ``draws``
    times; the factors go to the names in sorted order, so the order of ``weights`` changes nothing.
    Goodness depends only on the signs, so it is computed once; each draw is a matrix product.

    Args:
        table: an overall table (one row per contender), as from
        :func:`evalcore.analysis.ranking.leaderboard.aggregate`.
        weights: the weights to perturb; without any, the ranking by score never changes.
        metrics: the declared metrics.
        draws: number of perturbed weight vectors.
        seed: seed of ``np.random.default_rng``.

    Returns:
        contender id → share of draws in which it ranks first; k rows tied for first share a draw,
        1/k each (the shares sum to 1 when some row has a score). A row with nothing scored gets 0.

    Raises:
        WeightsError: a weight cannot be used.
        ValueError: the table has several datasets.
    """
    return stability_of(table, validate_weights(weights, MetricSet.of(metrics)), draws=draws, seed=seed)


def stability_of(
    table: pd.DataFrame,
    weights: Mapping[str, float],
    *,
    draws: int = 1000,
    seed: int = 0,
    out_of_race: Collection[str] = (),
) -> dict[str, float]:
    """:func:`weight_stability` under weights already checked by
    :func:`~evalcore.analysis.scores.weights.validate_weights`;
    the contenders ``out_of_race`` (stopped by an adaptive run's race) rank below the others, never first."""
    if "dataset" in table.columns and table["dataset"].nunique() > 1:
        raise ValueError("weight_stability takes one table; call it once per dataset")
    if table.empty:
        return {}
    columns = {name: table[name].to_numpy(dtype=float) for name in {"errors", "score", "cost", *weights}}
    scores = _perturbed_wscores(columns, weights, draws, np.random.default_rng(seed))
    ids = table["contender"].to_numpy(dtype=object)
    eligible = np.where(np.isin(ids, list(out_of_race)), np.nan, columns["score"])
    return dict(zip(ids, first_shares(scores, eligible).tolist(), strict=True))


def _perturbed_wscores(
    columns: dict[str, np.ndarray], weights: Mapping[str, float], draws: int, rng: np.random.Generator
) -> np.ndarray:
    if not weights:
        return np.full((draws, len(columns["errors"])), np.nan)
    # Factors are drawn for the names in sorted order: which factor a name gets never depends on the
    # order the weights came in, so every surface shows the same stability.
    weights = dict(sorted(weights.items()))
    goodness = goodness_matrix(columns, weights)  # (contenders, names)
    factors = np.exp(rng.uniform(np.log(0.5), np.log(2.0), size=(draws, len(weights))))
    magnitudes = np.abs(np.fromiter(weights.values(), dtype=float)) * factors  # (draws, names)
    raw = 100.0 * (magnitudes @ goodness.T) / magnitudes.sum(axis=1, keepdims=True)
    return np.maximum(raw - errors_penalty(columns["errors"], weights), 0.0)
