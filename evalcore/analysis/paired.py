"""Is one side really better than the other? Paired differences of per-case values, 95% intervals and p-values.

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

Used by :func:`evalcore.analysis.significance.pairwise` (contenders of one run) and
:func:`evalcore.analysis.compare.compare` (a candidate against a base); NumPy only, so a comparison of two
stored runs never loads pandas.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from evalcore.analysis.draws import LEVEL, percentile_interval, ratio, resample_counts

#: Significance threshold: a p-value below it is significant.
ALPHA = 0.05
#: The two methods, as a row's ``method`` names them.
SIGN_TEST = "exact sign test"
PERMUTATION = "sign-flip permutation"


def paired_difference(a: np.ndarray, b: np.ndarray, B: int = 1000, seed: int = 0) -> dict[str, Any]:  # noqa: N803
    """The statistics of one pair (as :func:`evalcore.analysis.significance.pairwise` gives them), from
    per-case values (NaN where a case has none).

    Args:
        a, b: each case's value for the two sides, aligned case by case.
        B, seed: resamples and sign flips, and the seed of ``np.random.default_rng``; ``pairwise`` draws
            the same, so a pair gets the same numbers either way.

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
    return paired_stats(a, b, draws, signs)


def paired_stats(left: np.ndarray, right: np.ndarray, draws: np.ndarray, signs: np.ndarray) -> list[dict]:
    """Statistics of ``left − right`` column by column: n, mean, interval, p-value, method.

    Args:
        left, right: (cases, columns) values, NaN where a case has none.
        draws: (B, cases) bootstrap counts (:func:`evalcore.analysis.draws.resample_counts`).
        signs: (B, cases) random ±1.
    """
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
