"""Is one contender really better than another? Every ordered pair of a run's contenders, on their shared cases.

The methods (McNemar's test and Tango's score interval for 0/1 values, else a paired bootstrap interval and
a sign-flip permutation test) are :mod:`evalcore.analysis.stats.paired`'s.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalcore.analysis.scores.results import aggregate_only_mask
from evalcore.analysis.stats.intervals import ratio
from evalcore.analysis.stats.paired import paired_stats
from evalcore.analysis.stats.resampling import case_matrix, resample_counts
from evalcore.core.errors import EvalcoreError
from evalcore.core.records import Metric

COLUMNS = ["a", "b", "n", "mean_diff", "lo", "hi", "p_value", "significant", "method", "note"]


def pairwise_significance(df: pd.DataFrame, metric: str = "score", B: int = 1000, seed: int = 0) -> pd.DataFrame:  # noqa: N803
    """Paired differences between every ordered pair of contenders, on their shared scored cases.

    ``mean_diff`` is the mean of ``a − b`` over the shared cases. When every shared value of both is 0
    or 1, ``lo``/``hi`` is Tango's score interval and ``p_value`` McNemar's test, which it inverts
    (:func:`evalcore.analysis.stats.paired.score_test`, method ``"McNemar test, Tango interval"``); else
    ``lo``/``hi`` is a 95% paired bootstrap interval (when the two agree on every case, the exact bound of
    :func:`evalcore.analysis.stats.paired.agreement_bound`, with ``note`` saying so) and ``p_value`` comes from a
    two-sided sign-flip permutation test, ``(1 + #{|T*| ≥ |T|}) / (B + 1)`` over B random sign vectors (method
    ``"sign-flip permutation"``).
    ``significant`` is ``p_value < 0.05``.

    Args:
        df: the selected results.
        metric: ``"score"`` or a declared metric name (read from ``m_<metric>``).
        B: number of resamples and of sign flips.
        seed: seed of ``np.random.default_rng``.

    Returns:
        ``a, b, n, mean_diff, lo, hi, p_value, significant, method, note``, one row per ordered pair (a ≠ b).

    Raises:
        EvalcoreError: the results have no such metric; the message lists the known ones.
    """
    values, contenders, case_dataset = _case_values(df, metric)
    rng = np.random.default_rng(seed)
    draws = resample_counts(np.zeros_like(case_dataset), B, rng)
    signs = rng.integers(0, 2, size=(B, len(case_dataset))) * 2.0 - 1.0
    rows = []
    for a in range(len(contenders)):
        for row in _pairs_of(values, a, draws, signs):
            b = row.pop("b")
            rows.append({"a": contenders[a], "b": contenders[b], **row})
            rows.append({"a": contenders[b], "b": contenders[a], **_reverse(row)})
    return pd.DataFrame(rows, columns=COLUMNS).sort_values(["a", "b"], ignore_index=True)


def _case_values(df: pd.DataFrame, metric: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(cases, contenders) mean value of each case, the contenders, and each case's dataset."""
    reported = aggregate_only_mask(df)
    if reported.any() and reported.all():
        raise EvalcoreError(
            "every result here is a reported aggregate score (an imported record with no per-item results): a "
            "paired test needs each case's result; import the records with their per-item samples files"
        )
    df = df[~reported] if reported.any() else df  # reported aggregates pair nothing: only cases are tested
    column = "score" if metric == "score" else f"m_{metric}"
    if column not in df.columns and f"want_{metric}" in df.columns:
        raise EvalcoreError(
            f"{metric!r} is an aggregate metric (computed from a contender's results as a whole, not a mean of "
            "per-case values): it has no per-case value to test case by case; `evalcore leaderboard` gives its "
            "95% bootstrap interval and P(best), recomputed on each resample of the cases"
        )
    if column not in df.columns:
        known = ["score", *(c.removeprefix("m_") for c in df.columns if c.startswith("m_"))]
        raise EvalcoreError(f"no metric {metric!r} in these results; known: {', '.join(known)}")
    matrix = case_matrix(df, [Metric(metric, "")] if metric != "score" else [])
    q = matrix.names.index(metric)
    return ratio(matrix.sums[:, q, :], matrix.counts[:, q, :]), matrix.contenders, matrix.case_dataset


def _pairs_of(values: np.ndarray, a: int, draws: np.ndarray, signs: np.ndarray) -> list[dict]:
    """Statistics of contender ``a`` against every later contender, all pairs in one product each."""
    others = values[:, a + 1 :]
    left = np.broadcast_to(values[:, [a]], others.shape)
    return [{"b": a + 1 + j, **row} for j, row in enumerate(paired_stats(left, others, draws, signs))]


def _reverse(row: dict) -> dict:
    return {**row, "mean_diff": -row["mean_diff"], "lo": -row["hi"], "hi": -row["lo"]}
