"""Is one side really better than the other? Paired differences of per-case values, 95% intervals and p-values.

A pair is compared on the cases both have a value for, so the cases' difficulty cancels out. A case's
value is the mean of the contender's scored samples of it. Two methods, one per kind of data:

- **0/1 values** (every shared case right or wrong for both): of the ``n`` shared cases, ``b`` go to ``a``
  (right where the other is wrong) and ``c`` to the other side. The interval is Tango's asymptotic score
  interval for the difference of paired proportions ``(b − c) / n`` (Tango 1998), which Fagerland,
  Lydersen & Laake (2014) recommend, with a continuity adjustment of :data:`CONTINUITY` discordant cases;
  it is unconditional (it does not treat the number of discordant cases as fixed), so it keeps its
  coverage when every discordant case goes one way or none is discordant. The p-value is McNemar's
  asymptotic test with the same adjustment, the score test that the interval inverts: the interval
  excludes 0 exactly when p < 0.05. No resampling.
- **Other values**: a 95% paired bootstrap interval (cases drawn as :mod:`evalcore.analysis.stats.resampling`
  draws them): the hull of the percentile and BCa intervals, both read at Hesterberg's expanded level
  (:func:`evalcore.analysis.stats.intervals.bootstrap_interval`), so that it keeps its coverage on 30 cases when the
  difference is mostly 0; and a two-sided sign-flip permutation test. They are two tests, so near the 5%
  line they may disagree: the interval may exclude 0 with p just above 0.05, or hold 0 with p just below.

When the two sides hold the same value on every shared case, every resample is 0 and the bootstrap
interval is a point. For values in [0, 1] (scores, metrics) the interval is then :func:`agreement_bound`.
For values with no upper bound (cost, time: ``bounded=False``) no interval of the mean difference is valid
from the cases alone: a difference too rare to be seen may be large enough to move the mean anywhere
(R. R. Bahadur & L. J. Savage, "The nonexistence of certain statistical procedures in nonparametric
problems", Annals of Mathematical Statistics 27(4), 1956), so the interval is left unknown (NaN) and the
row's ``note`` says why (:data:`AGREE_UNBOUNDED`).

Used by :func:`evalcore.analysis.stats.significance.pairwise_significance` (contenders of one run) and
:func:`evalcore.analysis.decisions.compare.compare` (a candidate against a base); NumPy only, so a comparison of two
stored runs never loads pandas.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from statistics import NormalDist
from typing import Any

import numpy as np

from evalcore.analysis.stats.intervals import (
    LEVEL,
    bootstrap_interval,
    constant_interval,
    expanded_level,
    mean_acceleration,
    ratio,
)
from evalcore.analysis.stats.resampling import count_blocks

#: Significance threshold: a p-value below it is significant.
ALPHA = 0.05
#: The continuity adjustment of the 0/1 score test and interval, in discordant cases: the score
#: ``b − c − nΔ`` is moved this much towards 0 before it is compared with its standard error. Without it,
#: Tango's interval covers the true difference less than 93% of the time in some cells (``bench/RESULTS.md``);
#: Edwards' correction to McNemar's test (1) widens it far more than that needs.
CONTINUITY = 0.05
#: The two methods, as a row's ``method`` names them.
SCORE_TEST = "McNemar test, Tango interval"
PERMUTATION = "sign-flip permutation"
#: Why a difference of values that are not 0/1 has a bound, not a bootstrap interval (a row's ``note``).
AGREE_BOUND = (
    "the two sides agree on every case: the interval bounds the share of cases on which they could differ "
    "(Clopper-Pearson), as values lie in [0, 1]"
)
#: Why a difference of values with no upper bound (cost, time) that agree on every case has no interval.
AGREE_UNBOUNDED = (
    "the two sides agree on every case, and values with no upper bound admit no finite interval of a mean "
    "difference from agreeing cases alone (Bahadur & Savage 1956)"
)


def paired_difference(
    a: np.ndarray,
    b: np.ndarray,
    B: int = 1000,  # noqa: N803
    seed: int = 0,
    *,
    bounded: bool = True,
) -> dict[str, Any]:
    """The statistics of one pair (as :func:`evalcore.analysis.stats.significance.pairwise_significance` gives them),
    from
    per-case values (NaN where a case has none).

    Args:
        a, b: each case's value for the two sides, aligned case by case.
        B, seed: resamples and sign flips, and the seed of ``np.random.default_rng``; ``pairwise`` draws
            the same, so a pair gets the same numbers either way.
        bounded: whether the values lie in [0, 1] (scores, metrics); False for cost and time.

    Returns:
        ``n, mean_diff, lo, hi, p_value, significant, method, note`` of ``a − b``; when the two sides hold the
        same value on every shared case that is not 0/1, ``lo``/``hi`` is :func:`agreement_bound` (values in
        [0, 1], ``note`` :data:`AGREE_BOUND`) or NaN (values with no upper bound, ``note``
        :data:`AGREE_UNBOUNDED`); a 0/1 pair keeps Tango's interval, which is not a point; else ``note`` is
        empty.
    """
    column = np.asarray(a, dtype=float)[:, None], np.asarray(b, dtype=float)[:, None]
    return paired_differences(*column, B=B, seed=seed, bounded=np.array([bounded]))[0]


def paired_differences(
    a: np.ndarray,
    b: np.ndarray,
    B: int = 1000,  # noqa: N803
    seed: int = 0,
    *,
    bounded: np.ndarray | None = None,
) -> list[dict[str, Any]]:
    """:func:`paired_difference` of every column of ``a`` against the same column of ``b``, drawn once.

    The same draws as :func:`paired_stats` with ``resample_counts`` and ``B x cases`` random signs (in that
    order from one generator), taken a block of :data:`BLOCK` rows at a time: no ``B x cases`` matrix is
    ever made, which for big runs is most of the time (faulting in its pages) and the memory. Nothing is
    drawn when every column is 0/1 (the score test needs no resample).

    Args:
        a, b: (cases, columns) values, NaN where a case has none; every column shares the cases, so one set
            of resamples and sign flips serves them all (the numbers are those of :func:`paired_difference`
            column by column).
        bounded: per column, whether its values lie in [0, 1]; none: every column does.
    """
    columns = _Columns(np.asarray(a, dtype=float), np.asarray(b, dtype=float), bounded)
    if not len(columns.rest):
        return columns.rows(None, None, None, B)
    rng = np.random.default_rng(seed)
    cases = len(columns.diff)
    d = np.ascontiguousarray(columns.diff[:, columns.rest])
    distinct, which = _distinct_columns(columns.shared[:, columns.rest])
    sums, counts, flipped = np.empty((B, d.shape[1])), np.empty((B, distinct.shape[1])), np.empty((B, d.shape[1]))
    start = 0
    for block in count_blocks(np.zeros(cases, dtype=np.int64), B, rng, rows=BLOCK):
        sums[start : start + len(block)] = block @ d
        counts[start : start + len(block)] = block @ distinct
        start += len(block)
    signs = np.empty((min(BLOCK, B), cases))
    for start in range(0, B, BLOCK):
        rows = signs[: min(BLOCK, B - start)]
        # 32-bit draws of 0 or 1 are the same draws as 64-bit ones (numpy takes 32 bits per draw either way).
        np.multiply(rng.integers(0, 2, size=rows.shape, dtype=np.int32), 2.0, out=rows)
        rows -= 1.0
        flipped[start : start + len(rows)] = rows @ d
    return columns.rows(sums, counts[:, which], flipped, B)


def paired_stats(left: np.ndarray, right: np.ndarray, draws: np.ndarray, signs: np.ndarray) -> list[dict]:
    """Statistics of ``left − right`` column by column: n, mean, interval, p-value, method.

    Args:
        left, right: (cases, columns) values, NaN where a case has none.
        draws: (B, cases) bootstrap counts (:func:`evalcore.analysis.stats.resampling.resample_counts`).
        signs: (B, cases) random ±1.
    """
    columns = _Columns(left, right)
    if not len(columns.rest):
        return columns.rows(None, None, None, len(draws))
    d = columns.diff[:, columns.rest]
    distinct, which = _distinct_columns(columns.shared[:, columns.rest])
    return columns.rows(draws @ d, (draws @ distinct)[:, which], signs @ d, len(signs))


#: Resamples (and sign vectors) drawn and multiplied at a time by :func:`paired_differences`.
BLOCK = 125


class _Columns:
    """What the statistics of ``left − right`` need, column by column, before any resample."""

    def __init__(self, left: np.ndarray, right: np.ndarray, bounded: np.ndarray | None = None):
        self.bounded = np.ones(left.shape[1], dtype=bool) if bounded is None else np.asarray(bounded, dtype=bool)
        self.shared = ~np.isnan(left) & ~np.isnan(right)
        self.diff = np.where(self.shared, left - right, 0.0)
        self.n = self.shared.sum(axis=0)
        self.mean = ratio(self.diff.sum(axis=0), self.n.astype(float))
        self.binary = (~self.shared | _is_binary(left) & _is_binary(right)).all(axis=0) & (self.n > 0)
        # The bootstrap and the sign flips serve the columns that are not 0/1 only: those use the score test.
        self.rest = np.flatnonzero(~self.binary)

    def rows(
        self,
        sums: np.ndarray | None,
        counts: np.ndarray | None,
        flipped: np.ndarray | None,
        B: int,  # noqa: N803
    ) -> list[dict]:
        """Each column's statistics, given the columns of :attr:`rest`'s resampled sums and counts and
        sign-flipped sums, ``(B, len(rest))`` each (None when :attr:`rest` is empty)."""
        n, mean, rest = self.n, self.mean, self.rest
        lo, hi, p = np.full(len(n), np.nan), np.full(len(n), np.nan), np.full(len(n), np.nan)
        if len(rest) and sums is not None and counts is not None and flipped is not None:
            k = n[rest]
            skew = mean_acceleration(self.diff[:, rest], self.shared[:, rest])
            lo[rest], hi[rest] = bootstrap_interval(ratio(sums, counts), mean[rest], skew, expanded_level(k))
            # Every resample of a difference that is 0 on every case is 0: a point, which would claim
            # certainty. Values in [0, 1] differ in mean by at most the share of cases on which the two sides
            # differ; none differ here, and that share's exact bound bounds the difference. Values with no
            # upper bound have no such bound: their interval stays unknown.
            agree = rest[(k > 0) & ~(self.diff[:, rest] != 0).any(axis=0)]
            bound = np.where(self.bounded[agree], agreement_bound(n[agree]), np.nan)
            lo[agree], hi[agree] = -bound, bound
            t = np.abs(ratio(flipped, np.broadcast_to(k, flipped.shape).astype(float)))
            # The tolerance keeps a flip that reproduces |T| exactly (up to float noise) counted as extreme.
            extreme = (t >= np.abs(mean[rest]) - 1e-12).sum(axis=0)
            p[rest] = np.where(k > 0, (1 + extreme) / (B + 1), np.nan)
        rows = []
        for j in range(len(n)):
            row = {"n": int(n[j]), "mean_diff": mean[j], "lo": lo[j], "hi": hi[j], "p_value": p[j], "note": ""}
            if self.binary[j]:
                wins, losses = int((self.diff[:, j] == 1).sum()), int((self.diff[:, j] == -1).sum())
                row.update(score_test(wins, losses, int(n[j])), method=SCORE_TEST)
            else:
                agreeing = n[j] > 0 and not (self.diff[:, j] != 0).any()
                why = AGREE_BOUND if self.bounded[j] else AGREE_UNBOUNDED
                row.update(method=PERMUTATION, note=why if agreeing else "")
            rows.append({**row, "significant": bool(row["p_value"] < ALPHA)})
        return rows


def agreement_bound(n: np.ndarray | int, level: float = LEVEL) -> np.ndarray:
    """The largest mean difference of values in [0, 1] that ``n`` cases with no difference leave plausible.

    If the two sides differ on a share ``q`` of cases, their mean difference is at most ``q`` in size. With
    no differing case among ``n``, the one-sided exact (Clopper-Pearson, Biometrika 1934) upper bound on
    ``q`` at ``(1 + level) / 2`` is ``1 − ((1 − level) / 2)^(1/n)``, so ``[−bound, +bound]`` covers the
    difference at least as often as ``level``. On 30 cases it is ±11.6 points (Tango's interval for 0/1
    values that agree everywhere is ±11.6 too). It is the boundary rule of every interval here
    (:func:`evalcore.analysis.stats.intervals.constant_interval`) for the share of cases at a difference of 0.
    """
    return 1.0 - constant_interval(1.0, n, level)[0]


def _distinct_columns(shared: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct columns of ``shared`` as floats, and which of them each column is: the columns of one
    pair mostly share their cases, so most products with them would repeat."""
    distinct: dict[bytes, int] = {}
    which = np.array([distinct.setdefault(shared[:, j].tobytes(), len(distinct)) for j in range(shared.shape[1])])
    firsts = np.unique(which, return_index=True)[1]
    return shared[:, firsts].astype(float), which


def _is_binary(values: np.ndarray) -> np.ndarray:
    return (values == 0) | (values == 1)


def score_test(
    wins: int, losses: int, n: int, level: float = LEVEL, correction: float = CONTINUITY
) -> dict[str, float]:
    """McNemar's test of ``wins`` against ``losses`` among ``n`` paired 0/1 cases, and Tango's score interval.

    ``wins`` (``b``) are the cases ``a`` got right and ``b`` wrong, ``losses`` (``c``) the reverse, ``n`` every
    shared case, so the difference of the two proportions is ``Δ = (b − c) / n``.

    Args:
        wins, losses, n: the discordant counts and every shared case.
        level: the interval's confidence level.
        correction: the continuity adjustment, in cases (:data:`CONTINUITY`); 0 gives the published
            uncorrected test and interval.

    Returns:
        ``p_value``: McNemar's asymptotic test, ``z = (|b − c| − correction) / √(b + c)`` (0 when negative),
        two-sided (1 when no case is discordant); ``lo``/``hi``: Tango's (1998) asymptotic score interval of
        ``Δ`` with the same adjustment, the ``Δ`` whose score statistic stays within the normal quantile of
        ``level``. At ``Δ = 0`` that statistic is McNemar's ``z``, so the interval excludes 0 exactly when
        ``p_value < 1 − level``.
    """
    if n <= 0:
        raise ValueError(f"score_test: n must be a positive number of cases, got {n}")
    z = NormalDist().inv_cdf((1 + level) / 2)
    m = wins + losses
    p_value = 1.0 if m == 0 else math.erfc(max(abs(wins - losses) - correction, 0.0) / math.sqrt(2 * m))
    inside = partial(_tango_inside, wins, losses, n, z * z, correction)
    estimate = (wins - losses) / n
    # The score statistic falls as Δ grows, so the interval is one run of Δ around the estimate; each end
    # is where it leaves, found by halving a bracket whose inner end is inside and outer end outside.
    lo = -1.0 if inside(-1.0) else _edge(inside, estimate, -1.0)
    hi = 1.0 if inside(1.0) else _edge(inside, estimate, 1.0)
    return {"p_value": p_value, "lo": lo, "hi": hi}


def _tango_inside(b: int, c: int, n: int, z2: float, correction: float, delta: float) -> bool:
    """Whether ``Δ`` lies in Tango's interval: ``(|b − c − nΔ| − correction)² ≤ z² n (2 q̃ + Δ(1 − Δ))``
    (the left side 0 where the score is within the correction), with ``q̃`` the maximum-likelihood chance
    of a ``c``-case given ``Δ`` (Tango 1998, eq. 6). Squared, so that a zero variance (at ``Δ = ±1``, or with
    no discordant case at ``Δ = 0``) needs no division."""
    w = -b - c + (2 * n - b + c) * delta
    q = (-w + math.sqrt(max(0.0, w * w + 8 * n * c * delta * (1 - delta)))) / (4 * n)
    score = max(abs(b - c - n * delta) - correction, 0.0)
    return score**2 <= z2 * n * max(0.0, 2 * q + delta * (1 - delta))


def _edge(inside: Callable[[float], bool], inner: float, outer: float, steps: int = 60) -> float:
    """The last point inside between ``inner`` (inside) and ``outer`` (outside), to about 2⁻⁶⁰."""
    for _ in range(steps):
        middle = (inner + outer) / 2
        inner, outer = (middle, outer) if inside(middle) else (inner, middle)
    return inner
