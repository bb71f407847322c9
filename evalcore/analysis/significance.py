"""Is one contender really better than another? Paired differences, 95% intervals and p-values.

A pair is compared on the cases both have a value for, so the cases' difficulty cancels out. A case's
value is the mean of the contender's scored samples of it. Two methods, one per kind of data, each with
an interval and a p-value of the same family, so the two cannot disagree:

- **0/1 values** (every shared case right or wrong for both): only the discordant cases (one right, the
  other wrong) carry information. Of the ``m`` discordant cases, ``k`` go to ``a``; under no difference
  ``k ~ Binomial(m, 1/2)``. The p-value is the two-sided exact sign test (McNemar's exact test: its
  false-positive rate never exceeds 5%), and the interval is the exact (Clopper-Pearson) interval of
  ``θ = P(a wins a discordant case)``, as ``(m / n)(2θ − 1)`` in differences: it inverts the same test,
  so it excludes 0 exactly when p < 0.05.
- **Other values**: a 95% paired bootstrap interval (cases drawn as :mod:`evalcore.analysis.resampling`
  draws them) and a two-sided sign-flip permutation test; near the 5% line the two may disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from evalcore.analysis.resampling import LEVEL, case_matrix, percentile_interval, ratio, resample_counts
from evalcore.core.errors import EvalcoreError
from evalcore.core.records import Metric

#: Significance threshold of :func:`pairwise`.
ALPHA = 0.05
#: The two methods, as :func:`pairwise`'s ``method`` column names them.
SIGN_TEST = "exact sign test"
PERMUTATION = "sign-flip permutation"
COLUMNS = ["a", "b", "n", "mean_diff", "lo", "hi", "p_value", "significant", "method"]


def pairwise(df: pd.DataFrame, metric: str = "score", B: int = 1000, seed: int = 0) -> pd.DataFrame:  # noqa: N803
    """Paired differences between every ordered pair of contenders, on their shared scored cases.

    ``mean_diff`` is the mean of ``a − b`` over the shared cases. When every shared value of both is 0
    or 1, ``lo``/``hi`` and ``p_value`` come from the exact sign test on the discordant cases
    (:func:`sign_test`, method ``"exact sign test"``); else ``lo``/``hi`` is a 95% paired bootstrap
    interval and ``p_value`` comes from a two-sided sign-flip permutation test,
    ``(1 + #{|T*| ≥ |T|}) / (B + 1)`` over B random sign vectors (method ``"sign-flip permutation"``).
    ``significant`` is ``p_value < 0.05``.

    Args:
        df: the selected results.
        metric: ``"score"`` or a declared metric name (read from ``m_<metric>``).
        B: number of resamples and of sign flips.
        seed: seed of ``np.random.default_rng``.

    Returns:
        ``a, b, n, mean_diff, lo, hi, p_value, significant, method``, one row per ordered pair (a ≠ b).

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


def paired_difference(a: np.ndarray, b: np.ndarray, B: int = 1000, seed: int = 0) -> dict[str, Any]:  # noqa: N803
    """:func:`pairwise`'s statistics of one pair, from per-case values (NaN where a case has none).

    Args:
        a, b: each case's value for the two sides, aligned case by case.
        B, seed: as for :func:`pairwise`; the same draws, so a pair gets the same numbers either way.

    Returns:
        ``n, mean_diff, lo, hi, p_value, significant, method`` of ``a − b``.
    """
    column = np.asarray(a, dtype=float)[:, None], np.asarray(b, dtype=float)[:, None]
    return paired_differences(*column, B=B, seed=seed)[0]


def paired_differences(a: np.ndarray, b: np.ndarray, B: int = 1000, seed: int = 0) -> list[dict[str, Any]]:  # noqa: N803
    """:func:`paired_difference` of every column of ``a`` against the same column of ``b``, drawn once.

    Args:
        a, b: (cases, columns) values, NaN where a case has none; every column shares the cases, so one set
            of resamples and sign flips serves them all (the numbers are those of :func:`paired_difference`
            column by column).
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    rng = np.random.default_rng(seed)
    draws = resample_counts(np.zeros(len(a), dtype=np.int64), B, rng)
    signs = rng.integers(0, 2, size=(B, len(a))).astype(float)
    signs *= 2.0
    signs -= 1.0
    return _stats(a, b, draws, signs)


def _case_values(df: pd.DataFrame, metric: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(cases, contenders) mean value of each case, the contenders, and each case's dataset."""
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
    return [{"b": a + 1 + j, **row} for j, row in enumerate(_stats(left, others, draws, signs))]


def _stats(left: np.ndarray, right: np.ndarray, draws: np.ndarray, signs: np.ndarray) -> list[dict]:
    """Statistics of ``left − right`` column by column: n, mean, interval, p-value, method."""
    shared = ~np.isnan(left) & ~np.isnan(right)
    diff = np.where(shared, left - right, 0.0)
    n = shared.sum(axis=0)
    mean = ratio(diff.sum(axis=0), n.astype(float))
    binary = (~shared | _is_binary(left) & _is_binary(right)).all(axis=0) & (n > 0)
    # The bootstrap and the sign flips serve the columns that are not 0/1 only: those use the sign test.
    lo, hi, p = np.full(len(n), np.nan), np.full(len(n), np.nan), np.full(len(n), np.nan)
    rest = np.flatnonzero(~binary)
    if len(rest):
        d, s, k = diff[:, rest], shared[:, rest], n[rest]
        lo[rest], hi[rest] = percentile_interval(ratio(draws @ d, _resampled_counts(draws, s)))
        flipped = np.abs(ratio(signs @ d, np.broadcast_to(k, (len(signs), len(k))).astype(float)))
        # The tolerance keeps a flip that reproduces |T| exactly (up to float noise) counted as extreme.
        extreme = (flipped >= np.abs(mean[rest]) - 1e-12).sum(axis=0)
        p[rest] = np.where(k > 0, (1 + extreme) / (len(signs) + 1), np.nan)
    rows = []
    for j in range(len(n)):
        row = {"n": int(n[j]), "mean_diff": mean[j], "lo": lo[j], "hi": hi[j], "p_value": p[j]}
        if binary[j]:
            wins, losses = int((diff[:, j] == 1).sum()), int((diff[:, j] == -1).sum())
            row.update(sign_test(wins, losses, int(n[j])), method=SIGN_TEST)
        else:
            row["method"] = PERMUTATION
        rows.append({**row, "significant": bool(row["p_value"] < ALPHA)})
    return rows


def _resampled_counts(draws: np.ndarray, shared: np.ndarray) -> np.ndarray:
    """``draws @ shared``, each distinct column of ``shared`` multiplied once: the columns of one pair
    mostly share their cases, so most products would repeat."""
    distinct: dict[bytes, int] = {}
    which = np.array([distinct.setdefault(shared[:, j].tobytes(), len(distinct)) for j in range(shared.shape[1])])
    firsts = np.unique(which, return_index=True)[1]
    return (draws @ shared[:, firsts].astype(float))[:, which]


def _is_binary(values: np.ndarray) -> np.ndarray:
    return (values == 0) | (values == 1)


def sign_test(wins: int, losses: int, n: int, level: float = LEVEL) -> dict[str, float]:
    """The exact sign test of ``wins`` against ``losses`` among ``n`` paired 0/1 cases, and its interval.

    Returns:
        ``p_value``: two-sided, twice the smaller tail of ``Binomial(wins + losses, 1/2)`` at ``wins``,
        at most 1; ``lo``/``hi``: the exact (Clopper-Pearson) interval of ``θ``, the chance that ``a``
        wins a discordant case, as a mean difference ``(m / n)(2θ − 1)``. It excludes 0 exactly when
        ``p_value < 1 − level``.
    """
    m = wins + losses
    if m == 0:
        return {"p_value": 1.0, "lo": 0.0, "hi": 0.0}
    tail = (1 - level) / 2
    binomial = _Binomial(m)
    p_value = min(1.0, 2 * min(binomial.at_most(wins, 0.5), binomial.at_least(wins, 0.5)))
    # P(X ≥ k) grows with θ and P(X ≤ k) shrinks: each bound is where its tail is (1 − level) / 2.
    theta_lo = 0.0 if wins == 0 else _bisect(lambda t: binomial.at_least(wins, t) - tail)
    theta_hi = 1.0 if wins == m else _bisect(lambda t: tail - binomial.at_most(wins, t))
    scale = m / n
    return {"p_value": p_value, "lo": scale * (2 * theta_lo - 1), "hi": scale * (2 * theta_hi - 1)}


class _Binomial:
    """``X ~ Binomial(m, θ)`` for one ``m`` and any ``0 < θ < 1``: the binomial coefficients are computed
    once, in log space, and serve every ``θ`` the bisections try."""

    def __init__(self, m: int):
        self.m = m
        self.x = np.arange(m + 1)
        log_factorial = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, m + 1)))])
        self.log_choose = log_factorial[m] - log_factorial[self.x] - log_factorial[m - self.x]

    def pmf(self, theta: float, start: int = 0, stop: int | None = None) -> np.ndarray:
        """``P(X = x)`` for ``x`` in ``start..stop - 1``."""
        x = self.x[start:stop]
        return np.exp(self.log_choose[start:stop] + x * np.log(theta) + (self.m - x) * np.log1p(-theta))

    def at_least(self, k: int, theta: float) -> float:
        return float(self.pmf(theta, start=k).sum())

    def at_most(self, k: int, theta: float) -> float:
        return float(self.pmf(theta, stop=k + 1).sum())


def _bisect(f: Callable[[float], float], low: float = 1e-12, high: float = 1 - 1e-12, steps: int = 60) -> float:
    """The root of an increasing ``f`` on ``[low, high]``."""
    for _ in range(steps):
        middle = (low + high) / 2
        low, high = (middle, high) if f(middle) < 0 else (low, middle)
    return (low + high) / 2


def _reverse(row: dict) -> dict:
    return {**row, "mean_diff": -row["mean_diff"], "lo": -row["hi"], "hi": -row["lo"]}
