"""Repeats: what a run with several samples per case says about each case, and how consistent a contender is.

The estimators, on plain arrays of per-case counts (n samples scored, c of them passing):

- :func:`pass_at_k`: the unbiased estimator of pass@k of Chen et al. 2021, "Evaluating Large Language Models
  Trained on Code" (eq. 1): ``1 − C(n−c, k) / C(n, k)``, the chance that at least one of k samples drawn without
  replacement from the n passes;
- :func:`pass_hat_k`: pass^k of τ-bench (Yao et al. 2024, "τ-bench: A Benchmark for Tool-Agent-User Interaction
  in Real-World Domains"): ``C(c, k) / C(n, k)``, the chance that all k of them pass.

Both are unbiased for a case's true chances when its n samples are independent draws, and their mean over cases
is the leaderboard's value. :func:`repeat_values` puts each case's value on one of its results (its first scored
sample) and null on the others, so the leaderboard's mean of known values is the mean over cases and the
bootstrap, which folds results per case, resamples whole cases (:mod:`evalcore.analysis.stats.resampling`;
their intervals are :func:`evalcore.analysis.stats.repeat_intervals.repeat_intervals`).

:func:`spread` splits a score's variation into the part within cases (samples disagreeing) and the part between
cases, and :func:`spread_advice` says whether more samples or more cases would narrow the score's interval most.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from evalcore.core.metric_set import MetricSet
from evalcore.core.records import Metric
from evalcore.core.repeat_metrics import CONSISTENCY, PASS_ALL, PASS_AT, RepeatMetric

if TYPE_CHECKING:
    import pandas as pd

#: The leaderboard columns of :func:`spread`, besides the grouping keys.
SPREAD_COLUMNS = ("sd_within", "sd_between", "samples_per_case")
#: Values closer than this are the same value (a case's samples agree).
SAME = 1e-12


def _ratio_of_combinations(top: np.ndarray, n: np.ndarray, k: int) -> np.ndarray:
    """``C(top, k) / C(n, k)`` as the product of ``(top − i) / (n − i)`` for i < k: exact in floats for small k, 0
    when ``top < k``, NaN when ``n < k``."""
    top, n = np.asarray(top, dtype=float), np.asarray(n, dtype=float)
    out = np.ones(np.broadcast(top, n).shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(k):
            out = out * np.maximum(top - i, 0.0) / (n - i)
    return np.where(n >= k, out, np.nan)


def pass_at_k(n: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """Chen et al. 2021's unbiased pass@k per case: ``1 − C(n−c, k) / C(n, k)``; NaN where ``n < k``.

    Args:
        n: samples scored per case.
        c: of them, how many passed.
        k: tries, at least 1.
    """
    n = np.asarray(n, dtype=float)
    return 1.0 - _ratio_of_combinations(n - np.asarray(c, dtype=float), n, k)


def pass_hat_k(n: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """τ-bench's pass^k per case (Yao et al. 2024): ``C(c, k) / C(n, k)``, all k tries pass; NaN where ``n < k``."""
    return _ratio_of_combinations(np.asarray(c, dtype=float), np.asarray(n, dtype=float), k)


def case_groups(df: pd.DataFrame) -> np.ndarray:
    """Each result's (contender, dataset, case) as a group number."""
    if not len(df):
        return np.zeros(0, dtype=np.int64)
    return df.groupby(["contender", "dataset", "case"], observed=True, sort=False).ngroup().to_numpy()


def repeat_values(
    df: pd.DataFrame, values: Mapping[str, np.ndarray], repeats: Sequence[RepeatMetric]
) -> dict[str, np.ndarray]:
    """Each repeat metric's per-result array: its case's value on the case's first scored result, NaN elsewhere.

    pass@k and pass^k are null throughout when any result's value of their source is neither 0 nor 1 (a mean
    field accuracy of 1.0 on a case is no pass of a 0/1 test), and on a case with fewer than k scored samples.

    Args:
        df: the results frame.
        values: the per-result values of the score and the declared metrics (NaN unless scored).
        repeats: the run's repeat metrics.
    """
    if not repeats:
        return {}
    groups = case_groups(df)
    size = int(groups.max(initial=-1)) + 1
    facts = {source: _case_facts(values[source], groups, size) for source in dict.fromkeys(m.source for m in repeats)}
    out = {}
    for metric in repeats:
        n, c, binary, agree, first = facts[metric.source]
        if metric.kind == CONSISTENCY:
            per_case = np.where(n >= 2, agree.astype(float), np.nan)
        elif not binary.all():  # a metric with any value but 0 or 1 has no pass: a case of all 1.0 is no pass
            per_case = np.full(size, np.nan)
        else:
            estimate = pass_at_k if metric.kind == PASS_AT else pass_hat_k
            per_case = estimate(n, c, metric.k)
        column = np.full(len(df), np.nan)
        placed = first >= 0
        column[first[placed]] = per_case[placed]
        out[metric.name] = column
    return out


def _case_facts(
    value: np.ndarray, groups: np.ndarray, size: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per group: samples with a value, their sum, whether all are 0 or 1, whether all agree, the first row."""
    known = ~np.isnan(value)
    rows = np.flatnonzero(known)
    g, v = groups[rows], value[rows]
    n = np.bincount(g, minlength=size).astype(float)
    c = np.bincount(g, weights=v, minlength=size)
    odd = np.bincount(g, weights=((v != 0) & (v != 1)).astype(float), minlength=size)
    high, low = np.full(size, -np.inf), np.full(size, np.inf)
    np.maximum.at(high, g, v)
    np.minimum.at(low, g, v)
    first = np.full(size, -1, dtype=np.int64)
    first[g[::-1]] = rows[::-1]  # the last write wins: each group's lowest row
    return n, c, odd == 0, (high - low) <= SAME, first


def spread(df: pd.DataFrame, score: np.ndarray, keys: Sequence[str]) -> pd.DataFrame:
    """The score's spread per row of a leaderboard: within cases (its samples) and between cases.

    Returns:
        The grouping ``keys``, then ``sd_within``: the mean over cases with two or more scored samples of their
        samples' standard deviation; ``sd_between``: the standard deviation of the cases' mean scores;
        ``samples_per_case``: the mean number of scored samples per case. NaN where there is too little.
    """
    import pandas as pd

    groups = case_groups(df)
    known = ~np.isnan(score)
    size = int(groups.max(initial=-1)) + 1
    g, v = groups[known], score[known]
    n = np.bincount(g, minlength=size).astype(float)
    total, squares = np.bincount(g, weights=v, minlength=size), np.bincount(g, weights=v * v, minlength=size)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = total / n
        sd = np.sqrt(np.maximum(squares - n * mean * mean, 0.0) / (n - 1))
    first = np.full(size, -1, dtype=np.int64)
    first[g[::-1]] = np.flatnonzero(known)[::-1]
    kept = n > 0
    per_case = pd.DataFrame({k: df[k].to_numpy()[first[kept]] for k in keys})
    per_case = per_case.astype(str).assign(mean=mean[kept], sd=np.where(n[kept] >= 2, sd[kept], np.nan), n=n[kept])
    rows = per_case.groupby(list(keys), sort=True).agg(
        sd_within=("sd", "mean"), sd_between=("mean", "std"), samples_per_case=("n", "mean")
    )
    return rows.reset_index()


def spread_advice(sd_within: float, sd_between: float, samples: float) -> str:
    """Whether more samples or more cases would narrow the score's interval most, in a sentence.

    The mean of n cases × m samples has variance ``(σ_b² + σ_w²/m) / n``, σ_w the within-case and σ_b the
    between-case standard deviation of the true case scores; ``sd_between`` estimates ``√(σ_b² + σ_w²/m)``.
    Doubling the samples halves only the ``σ_w²/m`` term; doubling the cases halves all of it, for the same
    number of extra calls.
    """
    if any(not math.isfinite(x) for x in (sd_within, sd_between, samples)) or samples < 2 or sd_between <= 0:
        return "Too few cases or samples to tell where the score's uncertainty comes from."
    observed = sd_between**2
    sampling = min(sd_within**2 / samples, observed)
    share = sampling / observed
    by_samples = 1 - math.sqrt((observed - sampling / 2) / observed)
    by_cases = 1 - math.sqrt(0.5)
    return (
        f"{share:.0%} of the score's variance comes from samples disagreeing within a case, the rest from "
        f"differences between cases: for the same number of extra calls, doubling the cases would narrow the "
        f"interval by about {by_cases:.0%}, doubling the samples by about {by_samples:.0%}, so more cases narrow it "
        + ("most." if by_cases > by_samples + 0.005 else "as much as more samples.")
    )


def shown_metric_set(metric_set: MetricSet, table: pd.DataFrame, brief: bool) -> MetricSet:
    """The metric set a leaderboard shows: without the repeat metrics no row has a value of (pass@k of a metric
    that is not 0/1); ``brief`` (a text table) keeps of them only ``consistency`` and, per source, pass^k at the
    most tries any row has a value for; the JSON and CSV keep every one that has a value."""
    valued = [m for m in metric_set.repeats if m.name in table.columns and bool(table[m.name].notna().any())]
    if brief:
        top: dict[str, RepeatMetric] = {}
        for m in valued:
            if m.kind == PASS_ALL and (m.source not in top or m.k > top[m.source].k):
                top[m.source] = m
        valued = [m for m in valued if m.kind == CONSISTENCY or top.get(m.source) is m]
    if len(valued) == len(metric_set.repeats):
        return metric_set
    kept = set(valued)
    return dataclasses.replace(
        metric_set,
        repeats=tuple(valued),
        metrics=tuple(m for m in metric_set.metrics if not isinstance(m, RepeatMetric) or m in kept),
    )


def repeat_notes(table: pd.DataFrame) -> list[str]:
    """What a leaderboard of a run with several samples per case says under its table: how to read pass@k, pass^k
    and consistency, and for the top row, where the score's uncertainty comes from (:func:`spread_advice`)."""
    if "sd_within" not in table.columns or not len(table):
        return []
    lines = [
        "pass@k: chance that at least one of k tries passes; pass^k: chance that all k pass (both per case, "
        "averaged over cases; --format json has every k); consistency: share of cases whose samples all agree"
    ]
    top = table.iloc[0]
    within, between = float(top["sd_within"]), float(top["sd_between"])
    samples = float(top.get("samples_per_case", float("nan")))
    if math.isfinite(within) and math.isfinite(between):
        lines.append(
            f"spread of {top['contender']}'s score: {within:.3f} within a case (its samples), {between:.3f} "
            f"between cases; {spread_advice(within, between, samples)}"
        )
    return lines


def table_metric_set(metrics: Sequence[Metric], table: pd.DataFrame) -> MetricSet:
    """The metric set a ranked table shows (:func:`shown_metric_set`, brief), for a surface that has the run's
    declared metrics and the table: the samples taken are the table's ``samples`` column's largest."""
    taken = table["samples"].max() if "samples" in table.columns and len(table) else 1
    samples = int(taken) if taken == taken else 1  # NaN (no scored result) is not a number of samples
    return shown_metric_set(MetricSet.of(metrics, samples), table, brief=True)
