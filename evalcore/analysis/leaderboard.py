"""Leaderboard math: select results, aggregate them per contender, weight and rank the rows.

Every rule here is "Leaderboard semantics" of the run-file spec (schema version 1), to the letter.
The functions are pure: a results frame in, a table out, no IO. The results frame has one row per
result, with the columns ``contender, dataset, case, variant, sample, status, error_kind, score,
m_<metric>..., cost_usd, latency_s, input_tokens, output_tokens, meta_<key>...`` (NaN for null;
string columns may be categoricals).

``aggregate`` is what a filter change costs; ``rank`` is what a weight change costs, so a slider
recomputes only ``rank`` on cached aggregates.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from evalcore.analysis.weights import (  # noqa: F401 - part of this module's API since before evalcore.analysis.weights
    BASE_WEIGHT_NAMES,
    WeightShare,
    finite_number,
    parse_weights,
    validate_weights,
    weight_shares,
)
from evalcore.core.errors import EvalcoreError
from evalcore.core.records import Metric

log = logging.getLogger(__name__)

#: Table columns, in order, around the metric columns.
COUNT_COLUMNS = ("cases", "scored", "errors")
USAGE_COLUMNS = ("cost", "time", "input_tokens", "output_tokens")
#: Where each usage column comes from in the results frame.
USAGE_SOURCES = {"cost": "cost_usd", "time": "latency_s", "input_tokens": "input_tokens",
                 "output_tokens": "output_tokens"}
GROUPINGS = (("contender",), ("contender", "dataset"))
AVERAGES = ("micro", "macro")
#: wscores equal to 9 decimals tie: float noise (all weights scaled by k, say) must not reorder rows.
TIE_DECIMALS = 9
#: "within 0.02 of the top score" includes 0.88 against 0.90, whose float difference is 0.0200…02.
POINTS_TOLERANCE = 1e-9


def select_results(
    df: pd.DataFrame,
    datasets: Iterable[str] | None = None,
    variants: Iterable[str] | None = None,
    contenders: Iterable[str] | None = None,
    metadata: Mapping[str, Iterable[str]] | None = None,
) -> pd.DataFrame:
    """Keep the results that pass every filter.

    Args:
        df: the results frame.
        datasets, variants, contenders: the values to keep; None or empty keeps all.
        metadata: case metadata key → values to keep, e.g. ``{"difficulty": ["hard"]}``, matched
            against the ``meta_<key>`` column (as numbers when it holds numbers, else as strings).

    Raises:
        EvalcoreError: a metadata key no case has; the message lists the known keys.
    """
    mask = np.ones(len(df), dtype=bool)
    for column, wanted in (("dataset", datasets), ("variant", variants), ("contender", contenders)):
        if wanted:
            mask &= df[column].isin(_as_list(wanted)).to_numpy()
    for key, wanted in (metadata or {}).items():
        mask &= _metadata_mask(df, key, _as_list(wanted))
    return df if mask.all() else df[mask]  # a copy of a million rows for nothing is a second's tenth


def _as_list(values: Iterable[str] | str) -> list[str]:
    # A lone string is one value, not its characters.
    return [values] if isinstance(values, str) else list(values)


def _metadata_mask(df: pd.DataFrame, key: str, wanted: list[str]) -> np.ndarray:
    column = f"meta_{key}"
    if column not in df.columns:
        known = sorted(c.removeprefix("meta_") for c in df.columns if c.startswith("meta_"))
        raise EvalcoreError(f"metadata filter {key!r}: no case has this key; known keys: {known}")
    values = df[column]
    # Filters come from a command line as strings; metadata from YAML/JSON may be numbers.
    if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
        return values.isin([n for n in map(finite_number, map(str, wanted)) if n is not None]).to_numpy()
    return (values.notna() & values.astype(str).isin({str(v) for v in wanted})).to_numpy()


def result_values(df: pd.DataFrame, metrics: Sequence[Metric]) -> dict[str, np.ndarray]:
    """The per-result numbers every aggregate is built from, as float arrays (NaN for null).

    Keys: ``scored`` and ``errors`` (1.0 or 0.0), ``score`` and each metric name (NaN unless the
    result is scored, so a stray value on an error never counts), then ``cost, time,
    input_tokens, output_tokens``.
    """
    scored = (df["status"] == "scored").to_numpy(dtype=bool)
    values = {"scored": scored.astype(float), "errors": (df["status"] == "error").to_numpy(float)}
    sources = {"score": "score", **{m.name: f"m_{m.name}" for m in metrics}}
    for name, source in sources.items():
        values[name] = np.where(scored, _floats(df, source), np.nan)
    for name, source in USAGE_SOURCES.items():
        values[name] = _floats(df, source)
    return values


def _floats(df: pd.DataFrame, column: str) -> np.ndarray:
    if column not in df.columns:
        return np.full(len(df), np.nan)
    return df[column].to_numpy(dtype=float, na_value=np.nan)


def aggregate(
    df: pd.DataFrame,
    metrics: Sequence[Metric],
    by: Sequence[str] = ("contender",),
    average: str = "micro",
) -> pd.DataFrame:
    """Aggregate results into leaderboard rows, one per group.

    Args:
        df: the (selected) results frame.
        metrics: the suite's declared metrics; each gets a column named by the bare metric name.
        by: ``("contender",)`` for the overall table, ``("contender", "dataset")`` per dataset.
        average: ``"micro"`` (mean over results, the default) or ``"macro"``: each value is first
            computed per dataset, then averaged over the datasets that have one; counts are summed.
            Grouped by dataset, both are the same.

    Returns:
        Columns ``contender`` (+ ``dataset``), ``cases, scored, errors, score, <metrics>..., cost,
        time, input_tokens, output_tokens``, sorted by the grouping keys.
    """
    keys = list(by) if tuple(by) in GROUPINGS else None
    if keys is None or average not in AVERAGES:
        raise ValueError(f"by={tuple(by)!r}, average={average!r}: "
                         f"use by in {GROUPINGS} and average in {AVERAGES}")
    return _aggregate(df, metrics, keys, average, result_values(df, metrics))


def _aggregate(df: pd.DataFrame, metrics: Sequence[Metric], keys: list[str], average: str,
               per_result: Mapping[str, np.ndarray]) -> pd.DataFrame:
    """:func:`aggregate` from the results' :func:`result_values`."""
    values = _values_frame(df, per_result)
    if average == "macro" and "dataset" not in keys:
        per_dataset = _group_means(values, [*keys, "dataset"])
        grouped = per_dataset.groupby(keys, sort=True)
        table = pd.concat([grouped[list(COUNT_COLUMNS)].sum(), grouped[_value_names(metrics)].mean()], axis=1)
        return table.reset_index()
    return _group_means(values, keys)


def _values_frame(df: pd.DataFrame, values: Mapping[str, np.ndarray]) -> pd.DataFrame:
    keys = {key: df[key].reset_index(drop=True) for key in ("contender", "dataset")}
    return pd.DataFrame({**keys, **values}, copy=False)


def _value_names(metrics: Sequence[Metric]) -> list[str]:
    return ["score", *(m.name for m in metrics), *USAGE_COLUMNS]


def _group_means(values: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    names = [c for c in values.columns if c not in ("contender", "dataset", "scored", "errors")]
    grouped = values.groupby(keys, observed=True, sort=True)
    # groupby mean skips NaN and gives NaN for a group with no value: the spec's "null when none".
    counts = grouped[["scored", "errors"]].sum().astype("int64")
    table = pd.concat([grouped.size().rename("cases"), counts, grouped[names].mean()], axis=1).reset_index()
    for key in keys:
        table[key] = table[key].astype(str)
    return table


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
            value = log_scale(columns[name]) if name in ("cost", "time") else np.asarray(columns[name], float)
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
    return np.where(errors >= 1, 15.0 + 5.0 * errors, 0.0)


def rank_order(wscore: np.ndarray, score: np.ndarray, cost: np.ndarray, id_rank: np.ndarray) -> np.ndarray:
    """Indices that sort rows by the spec's ranking, along the last axis.

    wscore descending (NaN last; all NaN means no weights, so score decides), then score
    descending (NaN last), then cost ascending (NaN last), then contender id (``id_rank``: the
    position of each id in sorted order).
    """
    keys = (id_rank, _nan_last(cost), _nan_last(-np.asarray(score, float)),
            _nan_last(-np.round(wscore, TIE_DECIMALS)))
    return np.lexsort(np.broadcast_arrays(*keys), axis=-1)


def _nan_last(values: np.ndarray) -> np.ndarray:
    values = np.asarray(values, dtype=float)
    return np.where(np.isnan(values), np.inf, values)


def rank(
    table: pd.DataFrame,
    weights: Mapping[str, float] | None,
    metrics: Sequence[Metric],
    best_value_points: float = 0.02,
) -> pd.DataFrame:
    """Add ``wscore``, ``rank``, ``best`` and ``best_value`` to an aggregated table, sorted by rank.

    A table with a ``dataset`` column is ranked per dataset (each dataset is its own table, with
    its own log scale for cost and time), sorted by dataset then rank.

    Args:
        table: output of :func:`aggregate`.
        weights: name → weight; validated here (zeros dropped, unknown names refused).
        metrics: the suite's declared metrics.
        best_value_points: how far below the table's highest score a best-value row may be.

    Raises:
        WeightsError: a weight names something that cannot be weighted.
    """
    weights = validate_weights(weights, metrics)
    if "dataset" in table.columns and len(table):
        parts = [_rank_table(part, weights, best_value_points)
                 for _, part in table.groupby("dataset", sort=True)]
        return pd.concat(parts, ignore_index=True)
    return _rank_table(table, weights, best_value_points)


def _rank_table(table: pd.DataFrame, weights: dict[str, float], points: float) -> pd.DataFrame:
    columns = {name: table[name].to_numpy(dtype=float) for name in {"errors", "score", "cost", *weights}}
    wscore = wscores(columns, weights)
    id_rank = np.unique(table["contender"].to_numpy(dtype=object), return_inverse=True)[1]
    order = rank_order(wscore, columns["score"], columns["cost"], id_rank)
    ranked = table.iloc[order].reset_index(drop=True)
    ranked["wscore"] = wscore[order]
    ranked["rank"] = np.arange(1, len(ranked) + 1)
    rated = ranked["wscore"] if weights else ranked["score"]
    ranked["best"] = _first(rated.notna().to_numpy() & (ranked["errors"] == 0).to_numpy())
    ranked["best_value"] = _best_value(ranked, id_rank[order], points)
    return ranked


def _first(mask: np.ndarray) -> np.ndarray:
    chosen = np.zeros(len(mask), dtype=bool)
    if mask.any():
        chosen[np.argmax(mask)] = True
    return chosen


def _best_value(ranked: pd.DataFrame, id_rank: np.ndarray, points: float) -> np.ndarray:
    score, cost = ranked["score"].to_numpy(float), ranked["cost"].to_numpy(float)
    # "The highest score in the table": every row's, errors or not (spec, read literally).
    top = np.where(np.isnan(score), -np.inf, score).max(initial=-np.inf)
    eligible = (ranked["errors"].to_numpy() == 0) & ~np.isnan(score) & ~np.isnan(cost)
    eligible &= score >= top - points - POINTS_TOLERANCE
    chosen = np.zeros(len(ranked), dtype=bool)
    if eligible.any():
        rows = np.flatnonzero(eligible)
        chosen[rows[np.lexsort((id_rank[rows], -score[rows], cost[rows]))[0]]] = True
    return chosen


@dataclass
class Prepared:
    """A selection aggregated, with its bootstrap resamples: all of a leaderboard but the weights.

    A weight change re-ranks it with :func:`finish` in milliseconds; computing it is what a filter
    change costs.

    Attributes:
        table: the aggregated table (:func:`aggregate`).
        resampled: (dataset or None, resamples) per table the intervals come from; empty without ``ci``.
    """

    table: pd.DataFrame
    resampled: list[tuple[str | None, Any]]


def prepare(
    df: pd.DataFrame,
    metrics: Sequence[Metric],
    *,
    datasets: Iterable[str] | None = None,
    variants: Iterable[str] | None = None,
    contenders: Iterable[str] | None = None,
    metadata: Mapping[str, Iterable[str]] | None = None,
    by: Sequence[str] = ("contender",),
    average: str = "micro",
    ci: bool = True,
    seed: int = 0,
    B: int = 1000,  # noqa: N803 (the bootstrap's usual name)
    overall: Prepared | None = None,
) -> Prepared:
    """Select and aggregate results and, with ``ci``, draw the bootstrap resamples (see :func:`leaderboard`).

    Args:
        overall: for a per-dataset table, the overall table prepared from the same selection, micro
            average, seed and B: when the selection has one dataset its resamples are that dataset's
            (the same results drawn the same way), and are not drawn twice.
    """
    # stats builds on this module's math, so it is imported here rather than at the top.
    from evalcore.analysis.stats import resample

    selected = select_results(df, datasets, variants, contenders, metadata)
    keys = list(by) if tuple(by) in GROUPINGS else None
    if keys is None or average not in AVERAGES:
        raise ValueError(f"by={tuple(by)!r}, average={average!r}: "
                         f"use by in {GROUPINGS} and average in {AVERAGES}")
    reusable = overall is not None and "dataset" in keys and (overall.resampled or not ci)
    only = _only_dataset(selected) if reusable else None
    if only is not None:
        # One dataset: its table is the overall one, row for row (the same results in the same groups).
        table = overall.table.copy()  # type: ignore[union-attr]
        table.insert(1, "dataset", pd.Series([only] * len(table), index=table.index, dtype=object).astype(str))
        return Prepared(table, [(only, overall.resampled[0][1])] if ci and overall.resampled else [])  # type: ignore[union-attr]
    values = result_values(selected, metrics)
    table = _aggregate(selected, metrics, keys, average, values)
    if not ci or table.empty:
        return Prepared(table, [])
    if "dataset" not in table.columns:
        return Prepared(table, [(None, resample(selected, metrics, average=average, B=B, seed=seed, values=values))])
    parts = list(selected.groupby("dataset", observed=True, sort=True))
    return Prepared(table, [(str(name), resample(part, metrics, B=B, seed=seed)) for name, part in parts])


def _only_dataset(df: pd.DataFrame) -> str | None:
    """The dataset of every result, when they share one (None when they do not, or there are none)."""
    column = df["dataset"]
    if not len(column) or column.isna().any():
        return None
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes = column.cat.codes.to_numpy()
        return str(column.cat.categories[codes[0]]) if codes.min() == codes.max() else None
    first = column.iloc[0]
    return str(first) if bool((column == first).all()) else None


def finish(
    prepared: Prepared,
    metrics: Sequence[Metric],
    weights: Mapping[str, float] | None = None,
    best_value_points: float = 0.02,
) -> pd.DataFrame:
    """Rank a prepared leaderboard under these weights, with its intervals and P(best) when it has resamples.

    Raises:
        WeightsError: a weight cannot be used.
    """
    from evalcore.analysis.stats import intervals

    weights = validate_weights(weights, metrics)
    table = rank(prepared.table, weights, metrics, best_value_points)
    if not prepared.resampled:
        return table
    if "dataset" not in table.columns:
        return table.merge(intervals(prepared.resampled[0][1], metrics, weights), on="contender", how="left")
    parts = [intervals(resampled, metrics, weights).assign(dataset=name) for name, resampled in prepared.resampled]
    return table.merge(pd.concat(parts, ignore_index=True), on=["contender", "dataset"], how="left")


def leaderboard(
    df: pd.DataFrame,
    metrics: Sequence[Metric],
    weights: Mapping[str, float] | None = None,
    *,
    datasets: Iterable[str] | None = None,
    variants: Iterable[str] | None = None,
    contenders: Iterable[str] | None = None,
    metadata: Mapping[str, Iterable[str]] | None = None,
    by: Sequence[str] = ("contender",),
    average: str = "micro",
    best_value_points: float = 0.02,
    ci: bool = True,
    seed: int = 0,
    B: int = 1000,  # noqa: N803 (the bootstrap's usual name)
) -> pd.DataFrame:
    """Select, aggregate and rank results in one call; with ``ci``, add intervals and P(best).

    The interval columns are ``score_lo, score_hi, <metric>_lo, <metric>_hi, wscore_lo,
    wscore_hi`` and ``p_best`` (see :func:`evalcore.analysis.stats.bootstrap`); a per-dataset table gets
    them per dataset. The same as :func:`finish` of :func:`prepare`.

    Raises:
        WeightsError: before anything is computed, when a weight cannot be used.
    """
    weights = validate_weights(weights, metrics)
    prepared = prepare(df, metrics, datasets=datasets, variants=variants, contenders=contenders, metadata=metadata,
                       by=by, average=average, ci=ci, seed=seed, B=B)
    return finish(prepared, metrics, weights, best_value_points)
