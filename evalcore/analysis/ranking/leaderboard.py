"""Leaderboard math: aggregate results per contender, weight and rank the rows, add intervals.

Every rule here is "Leaderboard semantics" of the run-file spec (schema version 1), to the letter.
The functions are pure: a results frame (:mod:`evalcore.analysis.scores.results`) in, a table out, no IO.

``aggregate`` is what a filter change costs; ``rank`` is what a weight change costs, so a slider
recomputes only ``rank`` on cached aggregates. :func:`prepare` and :func:`finish` are the same split
with the bootstrap: everything but the weights, then the weights.

An adaptive run (``evalcore run --adaptive``) adds one rule to the spec's, for its contenders the race stopped
(``stops``: contender → :func:`evalcore.analysis.stats.racing.stop_text`): they rank below every contender still
in, each ranked among the stopped by the spec's rules, are never best nor best value, and never rank first
in a resample or a weight jitter (P(best) and stability 0). Their numbers are those of the cases they
answered. Without stops, every rule is the spec's.

Weights are checked once, where they come in: :func:`rank` and :func:`leaderboard` take them as a user
gives them; :func:`finish` takes weights already checked by
:func:`~evalcore.analysis.scores.weights.validate_weights`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from evalcore.analysis.ranking.stability import stability_of
from evalcore.analysis.scores.classification import frame_labels, grouped_macro_f1
from evalcore.analysis.scores.repeats import spread
from evalcore.analysis.scores.results import (
    USAGE_COLUMNS,
    Filters,
    aggregate_only_mask,
    result_values,
    select_results,
)
from evalcore.analysis.scores.rules import BEST_VALUE_POINTS, POINTS_TOLERANCE
from evalcore.analysis.scores.weights import rank_order, validate_weights, wscores
from evalcore.analysis.stats.resampling import Resampled, case_positions, intervals, resample
from evalcore.core.aggregates import AggregateMetric
from evalcore.core.metric_set import MetricSet
from evalcore.core.records import Metric

#: Table columns, in order, around the metric columns.
COUNT_COLUMNS = ("cases", "scored", "errors")
GROUPINGS = (("contender",), ("contender", "dataset"))
AVERAGES = ("micro", "macro")
#: A row scored on fewer cases than this (but on some) is marked ``few_cases``: its numbers move a lot.
FEW_CASES = 30
#: Columns a row with nothing scored never has, whatever its resamples say.
UNRATED = ("wscore", "p_best", "stability")
#: The column that marks a row holding a reported aggregate score (a case marked
#: :data:`~evalcore.core.records.AGGREGATE_ONLY`): no interval, P(best) or stability is drawn for it, as one reported
#: number has no cases to resample. The table has the column only when such a row is in it.
AGGREGATE_ONLY = "aggregate_only"
#: The column of a race's stop text (an adaptive run's table only; None for a contender still in).
STOPPED = "stopped"
#: The column that says which score ranked a row of a per-dataset table when the suite ranks by the judge's score
#: corrected by people (:func:`evalcore.analysis.people.corrected.with_corrected_by_dataset`).
RANKED_BY = "ranked_by"


def aggregate(
    df: pd.DataFrame,
    metrics: Sequence[Metric] | MetricSet,
    by: Sequence[str] = ("contender",),
    average: str = "micro",
) -> pd.DataFrame:
    """Aggregate results into leaderboard rows, one per group.

    Args:
        df: the (selected) results frame.
        metrics: the suite's declared metrics, each a column named by the bare metric name, with the repeat
            metrics of the samples in ``df`` (:mod:`evalcore.core.repeat_metrics`); or the run's metric set.
        by: ``("contender",)`` for the overall table, ``("contender", "dataset")`` per dataset.
        average: ``"micro"`` (mean over results, the default) or ``"macro"``: each value is first
            computed per dataset, then averaged over the datasets that have one; counts are summed.
            Grouped by dataset, both are the same.

    Returns:
        Columns ``contender`` (+ ``dataset``), ``cases, scored, errors, distinct_cases, samples, score,
        <metrics>..., cost, time, input_tokens, output_tokens``, sorted by the grouping keys. ``cases`` is
        the spec's: the number of results; ``distinct_cases`` the cases they answer and ``samples`` the most
        samples of one case (``cases = distinct_cases × samples`` when every case has them all).
    """
    keys = list(by) if tuple(by) in GROUPINGS else None
    if keys is None or average not in AVERAGES:
        raise ValueError(f"by={tuple(by)!r}, average={average!r}: use by in {GROUPINGS} and average in {AVERAGES}")
    metric_set = metrics if isinstance(metrics, MetricSet) else MetricSet.of(metrics, samples_in(df))
    return _aggregate(df, metric_set, keys, average, result_values(df, metric_set.per_result))


def _aggregate(
    df: pd.DataFrame, metric_set: MetricSet, keys: list[str], average: str, per_result: Mapping[str, np.ndarray]
) -> pd.DataFrame:
    """:func:`aggregate` from the results' :func:`result_values`; aggregate metrics from the whole group; with the
    score's spread within and between cases (:func:`~evalcore.analysis.scores.repeats.spread`) when the run took several
    samples of a case."""
    table = _aggregate_values(df, metric_set, keys, average, per_result)
    if not metric_set.repeats or table.empty:
        return table
    spreads = spread(df, np.asarray(per_result["score"]), keys)
    return table.merge(spreads, on=keys, how="left")


def _aggregate_values(
    df: pd.DataFrame, metric_set: MetricSet, keys: list[str], average: str, per_result: Mapping[str, np.ndarray]
) -> pd.DataFrame:
    values = _values_frame(df, per_result)
    for metric in metric_set.aggregates:
        values[metric.name] = np.nan  # a place in the column order; computed below, never averaged
    aggregates = metric_set.aggregates
    if average == "macro" and "dataset" not in keys:
        per_dataset = _with_aggregate_values(
            df, aggregates, _group_means(values, [*keys, "dataset"]), [*keys, "dataset"]
        )
        grouped = per_dataset.groupby(keys, sort=True)
        counts = [grouped[[*COUNT_COLUMNS, "distinct_cases"]].sum(), grouped[["samples"]].max()]
        table = pd.concat([*counts, grouped[_value_names(metric_set)].mean()], axis=1)
        return table.reset_index()[_aggregate_order(keys, metric_set)]
    return _with_aggregate_values(df, aggregates, _group_means(values, keys), keys)


def _with_aggregate_values(
    df: pd.DataFrame, aggregates: Sequence[AggregateMetric], table: pd.DataFrame, keys: list[str]
) -> pd.DataFrame:
    """The table with each aggregate metric computed from its group's results (null without labels)."""
    if not aggregates or table.empty:
        return table
    # The same groups, in the same order, as the table's (groupby sorts its keys the same way).
    groups = df.groupby(keys, observed=True, sort=True).ngroup().to_numpy()
    for metric in aggregates:
        labels = frame_labels(df, metric)
        if labels is not None:
            table[metric.name] = grouped_macro_f1(labels, groups, len(table))
    return table


def _values_frame(df: pd.DataFrame, values: Mapping[str, np.ndarray]) -> pd.DataFrame:
    keys = {key: df[key].reset_index(drop=True) for key in ("contender", "dataset")}
    cases = (
        {"case_code": case_positions(df), "sample": df["sample"].to_numpy()}
        if len(df)
        else {"case_code": [], "sample": []}
    )
    return pd.DataFrame({**keys, **cases, **values}, copy=False)


def _aggregate_order(keys: list[str], metric_set: MetricSet) -> list[str]:
    return [*keys, *COUNT_COLUMNS, "distinct_cases", "samples", *_value_names(metric_set)]


def _value_names(metric_set: MetricSet) -> list[str]:
    return ["score", *(m.name for m in metric_set.metrics), *USAGE_COLUMNS]


def _group_means(values: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    skip = ("contender", "dataset", "scored", "errors", "case_code", "sample")
    names = [c for c in values.columns if c not in skip]
    grouped = values.groupby(keys, observed=True, sort=True)
    # groupby mean skips NaN and gives NaN for a group with no value: the spec's "null when none".
    counts = grouped[["scored", "errors"]].sum().astype("int64")
    # The spec's ``cases`` counts results; how many distinct cases and samples per case make them up.
    asked = [grouped["case_code"].nunique().rename("distinct_cases"), (grouped["sample"].max() + 1).rename("samples")]
    means = grouped[names].mean()
    # One block of numbers, not one per column: a run of many samples has a hundred repeat metrics or more, and
    # pandas warns of (and slows on) a frame of that many blocks.
    means = pd.DataFrame(means.to_numpy(dtype=float), index=means.index, columns=means.columns)
    table = pd.concat([grouped.size().rename("cases"), counts, *asked, means], axis=1).reset_index()
    for key in keys:
        table[key] = table[key].astype(str)
    return table


def rank(
    table: pd.DataFrame,
    weights: Mapping[str, float] | None,
    metrics: Sequence[Metric],
    best_value_points: float = BEST_VALUE_POINTS,
    stops: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Add ``wscore``, ``rank``, ``best``, ``best_value`` and ``few_cases`` to an aggregated table, sorted by rank.

    ``rank`` is a nullable ``Int64`` column: ranked rows get 1..n; a row with nothing scored (every
    result an error) gets <NA> and no ``wscore``, is never best or best value, and comes after every
    ranked row, by contender id. ``few_cases`` is True when ``0 < scored <`` :data:`FEW_CASES`.

    A table with a ``dataset`` column is ranked per dataset (each dataset is its own table, with
    its own log scale for cost and time), sorted by dataset then rank.

    Args:
        table: output of :func:`aggregate`.
        weights: name → weight; validated here (zeros dropped, unknown names refused).
        metrics: the suite's declared metrics.
        best_value_points: how far below the table's highest score a best-value row may be.
        stops: an adaptive run's stopped contenders, id → stop text (see the module's docstring); none: the
            spec's ranking.

    Raises:
        WeightsError: a weight names something that cannot be weighted.
    """
    return _rank(table, validate_weights(weights, MetricSet.of(metrics)), best_value_points, stops or {})


def _rank(table: pd.DataFrame, weights: Mapping[str, float], points: float, stops: Mapping[str, str]) -> pd.DataFrame:
    """:func:`rank` under validated weights."""
    if "dataset" in table.columns and len(table):
        parts = [_rank_table(part, weights, points, stops) for _, part in table.groupby("dataset", sort=True)]
        return pd.concat(parts, ignore_index=True)
    return _rank_table(table, weights, points, stops)


def _rank_table(
    table: pd.DataFrame, weights: Mapping[str, float], points: float, stops: Mapping[str, str]
) -> pd.DataFrame:
    columns = {name: table[name].to_numpy(dtype=float) for name in {"errors", "score", "cost", *weights}}
    scored = table["scored"].to_numpy() > 0
    wscore = np.where(scored, wscores(columns, weights), np.nan)
    ids = table["contender"].to_numpy(dtype=object)
    id_rank = np.unique(ids, return_inverse=True)[1]
    order = rank_order(wscore, columns["score"], columns["cost"], id_rank)
    in_race = np.array([c not in stops for c in ids], dtype=bool)
    # Contenders still in the race first, then those it stopped; rows with nothing scored come after every
    # ranked row, by id, with no rank.
    unscored = order[~scored[order]]
    order = np.concatenate(
        [
            order[scored[order] & in_race[order]],
            order[scored[order] & ~in_race[order]],
            unscored[np.argsort(id_rank[unscored], kind="stable")],
        ]
    )
    ranked = table.iloc[order].reset_index(drop=True)
    ranked["wscore"] = wscore[order]
    n_ranked = int(scored.sum())
    ranked["rank"] = pd.array([*range(1, n_ranked + 1), *[pd.NA] * (len(ranked) - n_ranked)], dtype="Int64")
    rated = ranked["wscore"] if weights else ranked["score"]
    racing = in_race[order]
    ranked["best"] = _first(rated.notna().to_numpy() & (ranked["errors"] == 0).to_numpy() & scored[order] & racing)
    ranked["best_value"] = _best_value(ranked, id_rank[order], points, racing)
    ranked["few_cases"] = (ranked["scored"] > 0) & (ranked["scored"] < FEW_CASES)
    if AGGREGATE_ONLY in ranked.columns:  # its intervals are not wide: it has none
        ranked["few_cases"] &= ~ranked[AGGREGATE_ONLY].astype(bool)
    if stops:
        ranked[STOPPED] = pd.Series([stops.get(c) for c in ranked["contender"]], dtype=object)
    return ranked


def _first(mask: np.ndarray) -> np.ndarray:
    chosen = np.zeros(len(mask), dtype=bool)
    if mask.any():
        chosen[np.argmax(mask)] = True
    return chosen


def _best_value(ranked: pd.DataFrame, id_rank: np.ndarray, points: float, racing: np.ndarray) -> np.ndarray:
    score, cost = ranked["score"].to_numpy(float), ranked["cost"].to_numpy(float)
    # "The highest score in the table": every row's, errors or not (spec, read literally); a contender a race
    # stopped has its score from fewer cases, and is out of the comparison.
    top = np.where(np.isnan(score) | ~racing, -np.inf, score).max(initial=-np.inf)
    eligible = (ranked["errors"].to_numpy() == 0) & ~np.isnan(score) & ~np.isnan(cost) & racing
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
    resampled: list[tuple[str | None, Resampled]]

    def without_intervals(self) -> Prepared:
        """The same table with no resamples: :func:`finish` then ranks it without intervals."""
        return Prepared(self.table, [])


@dataclass
class PreparedView:
    """A run's selection prepared overall and per dataset: the weight-independent half of a leaderboard view
    (:class:`evalcore.analysis.tables.view.LeaderboardView`), which :func:`evalcore.analysis.tables.view.view_of`
    ranks and
    :func:`evalcore.analysis.people.corrected.with_corrected_view` corrects.

    It depends on the run and the filters only: cache it, and a weight slider costs only the ranking.
    """

    overall: Prepared
    by_dataset: Prepared
    ci: bool


def prepare(
    df: pd.DataFrame,
    metric_set: MetricSet,
    filters: Filters | None = None,
    *,
    by: Sequence[str] = ("contender",),
    average: str = "micro",
    ci: bool = True,
    seed: int = 0,
    B: int = 1000,  # noqa: N803 (the bootstrap's usual name)
    overall: Prepared | None = None,
) -> Prepared:
    """Select and aggregate results and, with ``ci``, draw the bootstrap resamples (see :func:`leaderboard`).

    Args:
        metric_set: the run's metric set (:meth:`~evalcore.core.metric_set.MetricSet.of` its declared metrics).
        overall: for a per-dataset table, the overall table prepared from the same selection, micro
            average, seed and B: when the selection has one dataset its resamples are that dataset's
            (the same results drawn the same way), and are not drawn twice.

    Raises:
        EvalcoreError: a metadata filter on a key no case has.
    """
    selected = select_results(df, filters)
    keys = list(by) if tuple(by) in GROUPINGS else None
    if keys is None or average not in AVERAGES:
        raise ValueError(f"by={tuple(by)!r}, average={average!r}: use by in {GROUPINGS} and average in {AVERAGES}")
    reusable = overall is not None and "dataset" in keys and (overall.resampled or not ci)
    only = _only_dataset(selected) if reusable else None
    if overall is not None and only is not None:
        # One dataset: its table is the overall one, row for row (the same results in the same groups).
        table = overall.table.copy()
        table.insert(1, "dataset", pd.Series([only] * len(table), index=table.index, dtype=object).astype(str))
        return Prepared(table, [(only, overall.resampled[0][1])] if ci and overall.resampled else [])
    values = result_values(selected, metric_set.per_result)
    table = _aggregate(selected, metric_set, keys, average, values)
    reported = aggregate_only_mask(selected)
    if reported.any():
        table = _mark_aggregate_only(table, selected, reported, keys)
    if not ci or table.empty:
        return Prepared(table, [])
    if "dataset" not in table.columns:
        if reported.any():  # a bootstrap over reported aggregates would draw intervals from no cases
            return Prepared(table, [])
        return Prepared(table, [(None, resample(selected, metric_set, average=average, B=B, seed=seed, values=values))])
    of_reported = set(selected["dataset"].to_numpy()[reported].astype(str))
    parts = [(n, p) for n, p in selected.groupby("dataset", observed=True, sort=True) if str(n) not in of_reported]
    return Prepared(table, [(str(name), resample(part, metric_set, B=B, seed=seed)) for name, part in parts])


def _mark_aggregate_only(
    table: pd.DataFrame, selected: pd.DataFrame, reported: np.ndarray, keys: list[str]
) -> pd.DataFrame:
    """The table with its :data:`AGGREGATE_ONLY` column: True for a row any of whose results is a reported
    aggregate."""
    groups = pd.DataFrame({k: selected[k].astype(str).to_numpy() for k in keys}).assign(_r=reported)
    marked = groups.groupby(keys, sort=False)["_r"].any()
    index = pd.MultiIndex.from_frame(table[keys].astype(str)) if len(keys) > 1 else table[keys[0]].astype(str)
    table = table.copy()
    table[AGGREGATE_ONLY] = marked.reindex(index).fillna(False).to_numpy(dtype=bool)
    return table


def samples_in(df: pd.DataFrame) -> int:
    """How many samples of a case a results frame numbers (its highest sample + 1; 1 when empty)."""
    return int(df["sample"].max()) + 1 if len(df) else 1


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
    metric_set: MetricSet,
    weights: Mapping[str, float],
    best_value_points: float = BEST_VALUE_POINTS,
    stops: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Rank a prepared leaderboard under these weights, with its intervals, P(best) and weight stability
    (``stability``: the share of weight jitters in which the row ranks first, NaN without weights) when it
    has resamples.

    This is the ranking every surface shows (the CLI, the app, the report): a run's surfaces pass its race's
    stops (:func:`evalcore.analysis.tables.runs.run_stops`), and the table then has a ``stopped`` column.

    Args:
        prepared: from :func:`prepare`.
        metric_set: the run's metric set.
        weights: checked by :func:`~evalcore.analysis.scores.weights.validate_weights` (no zero weight).
        best_value_points: as for :func:`rank`.
        stops: as for :func:`rank`.
    """
    stops = stops or {}
    table = _rank(prepared.table, weights, best_value_points, stops)
    if not prepared.resampled:
        return table
    out = set(stops)
    if "dataset" not in table.columns:
        bounds = intervals(prepared.resampled[0][1], metric_set, weights, out)
        merged = table.merge(bounds, on="contender", how="left")
    else:
        parts = [intervals(r, metric_set, weights, out).assign(dataset=name) for name, r in prepared.resampled]
        merged = table.merge(pd.concat(parts, ignore_index=True), on=["contender", "dataset"], how="left")
    merged["stability"] = _stability(merged, weights, out)
    unscored = merged["scored"].to_numpy() == 0
    if unscored.any():
        bounds = [c for c in merged.columns if c.endswith(("_lo", "_hi"))]
        merged.loc[unscored, [*UNRATED, *bounds]] = np.nan
    return merged


def _stability(table: pd.DataFrame, weights: Mapping[str, float], out_of_race: set[str]) -> np.ndarray:
    """Each row's weight stability (:func:`evalcore.analysis.ranking.stability.stability_of`) within its table; NaN
    without weights, where a jitter of the weights cannot change anything."""
    out = np.full(len(table), np.nan)
    if not weights:
        return out
    parts = table.groupby("dataset", sort=True).indices.values() if "dataset" in table.columns else [slice(None)]
    for rows in parts:
        part = table.iloc[rows]
        shares = stability_of(part, weights, out_of_race=out_of_race)
        out[rows] = [shares[c] for c in part["contender"]]
    return out


def leaderboard(
    df: pd.DataFrame,
    metrics: Sequence[Metric] | MetricSet,
    weights: Mapping[str, float] | None = None,
    filters: Filters | None = None,
    *,
    by: Sequence[str] = ("contender",),
    average: str = "micro",
    best_value_points: float = BEST_VALUE_POINTS,
    ci: bool = True,
    seed: int = 0,
    B: int = 1000,  # noqa: N803 (the bootstrap's usual name)
) -> pd.DataFrame:
    """Select, aggregate and rank results in one call; with ``ci``, add intervals and P(best).

    The interval columns are ``score_lo, score_hi, <metric>_lo, <metric>_hi, wscore_lo,
    wscore_hi`` and ``p_best`` (see :func:`evalcore.analysis.stats.resampling.bootstrap`); a per-dataset
    table gets them per dataset, and a row with nothing scored gets NaN in every one of them (see
    :func:`rank` for its rank). The same as :func:`finish` of :func:`prepare`.

    Raises:
        WeightsError: before anything is computed, when a weight cannot be used.
        EvalcoreError: a metadata filter on a key no case has.
    """
    # A metric set is the run's, as opened; plain metrics get the repeat metrics of the samples in the frame.
    metric_set = metrics if isinstance(metrics, MetricSet) else MetricSet.of(metrics, samples_in(df))
    weights = validate_weights(weights, metric_set)
    prepared = prepare(df, metric_set, filters, by=by, average=average, ci=ci, seed=seed, B=B)
    return finish(prepared, metric_set, weights, best_value_points)
