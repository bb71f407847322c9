"""Is one contender really better than another? Paired differences, bootstrap intervals and p-values.

A pair is compared on the cases both have a value for, so the cases' difficulty cancels out. The
resamples are drawn as the bootstrap draws them (:mod:`evalcore.analysis.resampling`), and the
p-value comes from a sign-flip permutation test.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalcore.analysis.resampling import case_matrix, percentile_interval, ratio, resample_counts
from evalcore.core.errors import EvalcoreError
from evalcore.core.records import Metric

#: Significance threshold of :func:`pairwise`.
ALPHA = 0.05


def pairwise(df: pd.DataFrame, metric: str = "score", B: int = 1000, seed: int = 0) -> pd.DataFrame:  # noqa: N803
    """Paired differences between every ordered pair of contenders, on their shared scored cases.

    A case's value is the mean of the contender's scored samples of it; a case counts for a pair
    when both have a value. ``mean_diff`` is the mean of ``a − b`` over those cases; ``lo``/``hi`` a
    95% paired bootstrap interval (cases drawn from all cases, shared by every pair); ``p_value``
    comes from a two-sided paired sign-flip permutation test (B random sign vectors, the observed
    one counted: ``(1 + #{|T*| ≥ |T|}) / (B + 1)``); ``significant`` is ``p_value < 0.05``.

    Args:
        df: the selected results.
        metric: ``"score"`` or a declared metric name (read from ``m_<metric>``).
        B: number of resamples and of sign flips.
        seed: seed of ``np.random.default_rng``.

    Returns:
        ``a, b, n, mean_diff, lo, hi, p_value, significant``, one row per ordered pair (a ≠ b).

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
    columns = ["a", "b", "n", "mean_diff", "lo", "hi", "p_value", "significant"]
    return pd.DataFrame(rows, columns=columns).sort_values(["a", "b"], ignore_index=True)


def _case_values(df: pd.DataFrame, metric: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(cases, contenders) mean value of each case, the contenders, and each case's dataset."""
    column = "score" if metric == "score" else f"m_{metric}"
    if column not in df.columns:
        known = ["score", *(c.removeprefix("m_") for c in df.columns if c.startswith("m_"))]
        raise EvalcoreError(f"no metric {metric!r} in these results; known: {', '.join(known)}")
    matrix = case_matrix(df, [Metric(metric, "")] if metric != "score" else [])
    q = matrix.names.index(metric)
    return ratio(matrix.sums[:, q, :], matrix.counts[:, q, :]), matrix.contenders, matrix.case_dataset


def _pairs_of(values: np.ndarray, a: int, draws: np.ndarray, signs: np.ndarray) -> list[dict]:
    """Statistics of contender ``a`` against every later contender, all pairs in one product each."""
    others = values[:, a + 1 :]
    shared = ~np.isnan(others) & ~np.isnan(values[:, [a]])
    diff = np.where(shared, values[:, [a]] - others, 0.0)
    n = shared.sum(axis=0)
    mean = ratio(diff.sum(axis=0), n.astype(float))
    lo, hi = percentile_interval(ratio(draws @ diff, draws @ shared))
    flipped = np.abs(ratio(signs @ diff, np.broadcast_to(n, (len(signs), len(n))).astype(float)))
    # The tolerance keeps a flip that reproduces |T| exactly (up to float noise) counted as extreme.
    extreme = (flipped >= np.abs(mean) - 1e-12).sum(axis=0)
    p = np.where(n > 0, (1 + extreme) / (len(signs) + 1), np.nan)
    return [
        {
            "b": a + 1 + j,
            "n": int(n[j]),
            "mean_diff": mean[j],
            "lo": lo[j],
            "hi": hi[j],
            "p_value": p[j],
            "significant": bool(p[j] < ALPHA),
        }
        for j in range(len(n))
    ]


def _reverse(row: dict) -> dict:
    return {**row, "mean_diff": -row["mean_diff"], "lo": -row["hi"], "hi": -row["lo"]}
