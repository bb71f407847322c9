"""How many cases a paired comparison needs: the sample size that detects a difference, and the reverse.

Two contenders answer the same cases, so the leaderboard and ``evalcore compare`` test their per-case
differences (:mod:`evalcore.analysis.stats.paired`). The planner sizes that same test at the usual settings:
80% power, α = 0.05, two-sided.

- **0/1 scores** (right or wrong): the leaderboard's test is McNemar's, which only sees the discordant cases
  (one right, the other wrong). With ``ψ`` the share of discordant cases and ``δ`` the difference to detect,
  Connor's formula (R. J. Connor, "Sample size for testing differences in proportions for the paired-sample
  design", Biometrics 43(1), 1987; also in Chow, Shao & Wang, *Sample Size Calculations in Clinical
  Research*) gives ``n = (z_{α/2} √ψ + z_β √(ψ − δ²))² / δ²``. ``ψ`` comes from the two contenders' accuracies
  ``p ± δ/2`` and the correlation ``ρ`` of their answers (the phi coefficient):
  ``ψ = p₁ + p₂ − 2 (p₁p₂ + ρ √(p₁q₁p₂q₂))``, never below ``|δ|``.
- **Other scores** (graded, several samples per case): the normal-approximation sample size of a paired
  mean difference (Chow, Shao & Wang, one-sample design of a mean), ``n = (z_{α/2} + z_β)² σ_d² / δ²`` with
  ``σ_d² = 2σ²(1 − ρ)`` (two contenders with the per-case variance ``σ²`` and correlation ``ρ``), plus
  ``z_{α/2}² / 2`` cases: Guenther's correction ("Sample size formulas for normal theory T tests", The
  American Statistician 35(4), 1981), which brings the normal formula to the t test's exact size, as the
  leaderboard's permutation test is no better than a t test on few cases.

Correlated contenders (they fail the same hard cases) need fewer cases: the case difficulty cancels in
the difference. ``tests/analysis/test_power.py`` checks the planned sizes against textbook numbers and, by
simulation, that they reach 80% power with the leaderboard's tests.

NumPy and the standard library only: numbers in, numbers out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from evalcore.analysis.stats.paired import ALPHA

#: The chance of detecting a true difference of the planned size.
POWER = 0.8
#: The fewest cases a plan asks for: below it the sign-flip permutation test cannot reach p < 0.05 at all
#: (six cases give at best p = 1/32) and the normal approximation is far off.
MIN_CASES = 10
#: The cases a pilot run is proposed with when the store knows nothing of the suite.
PILOT_CASES = 40
#: The largest per-case variance a score in [0, 1] can have (half the cases 0, half 1): with no history, a
#: plan at this variance and no correlation is the most cases any difference can need.
WORST_VARIANCE = 0.25
#: The most cases :func:`cases_needed` reports: beyond it a difference is too small to decide in practice.
MAX_CASES = 10_000_000


@dataclass(frozen=True)
class Spread:
    """How two contenders' per-case scores vary on a suite: what a paired comparison's size depends on."""

    #: The per-case variance of one contender's score (each case's mean over its samples).
    variance: float
    #: The correlation of two contenders' scores on the same case (0: unrelated; near 1: they fail alike).
    correlation: float
    #: The mean score: for 0/1 scores the discordant share depends on it.
    mean: float = 0.5
    #: Whether every score is 0 or 1 (then the plan is for McNemar's test).
    binary: bool = False


def _z(alpha: float, power: float) -> tuple[float, float]:
    normal = NormalDist()
    return normal.inv_cdf(1 - alpha / 2), normal.inv_cdf(power)


def discordance(delta: float, spread: Spread) -> float:
    """The share of cases on which two 0/1 contenders ``delta`` apart disagree (``ψ`` in the module docstring)."""
    d = min(abs(delta), 1.0)
    high = min(spread.mean + d / 2, 1.0)
    low = max(high - d, 0.0)
    high = low + d
    both = high * low + spread.correlation * math.sqrt(high * (1 - high) * low * (1 - low))
    both = min(max(both, high + low - 1, 0.0), low)  # the Fréchet bounds of a 2 x 2 table
    return max(high + low - 2 * both, d)


def discordant_cases(delta: float, psi: float, alpha: float = ALPHA, power: float = POWER) -> float:
    """Connor's (1987) size of McNemar's test for a difference ``delta`` with a discordant share ``psi``."""
    za, zb = _z(alpha, power)
    psi = max(psi, abs(delta))
    return (za * math.sqrt(psi) + zb * math.sqrt(max(psi - delta * delta, 0.0))) ** 2 / (delta * delta)


def mean_cases(delta: float, sd_diff: float, alpha: float = ALPHA, power: float = POWER) -> float:
    """The normal-approximation size of a paired mean difference ``delta`` whose per-case differences have
    standard deviation ``sd_diff``, with Guenther's (1981) correction."""
    za, zb = _z(alpha, power)
    return (za + zb) ** 2 * sd_diff**2 / (delta * delta) + za * za / 2


def cases_needed(delta: float, spread: Spread, alpha: float = ALPHA, power: float = POWER) -> int:
    """The cases a paired comparison needs to detect a difference of ``delta`` (a fraction: 0.03 is 3 points)
    with chance ``power`` at two-sided level ``alpha``, at least :data:`MIN_CASES`, at most :data:`MAX_CASES`.

    Raises:
        ValueError: ``delta`` is not between 0 (excluded) and 1.
    """
    if not 0 < abs(delta) <= 1:
        raise ValueError(f"the difference to detect must lie in (0, 1] (a fraction: 0.03 is 3 points), got {delta}")
    if spread.binary:
        n = discordant_cases(delta, discordance(delta, spread), alpha, power)
    else:
        n = mean_cases(delta, math.sqrt(max(2 * spread.variance * (1 - spread.correlation), 0.0)), alpha, power)
    return int(min(max(math.ceil(n - 1e-9), MIN_CASES), MAX_CASES))


def smallest_difference(cases: int, spread: Spread, alpha: float = ALPHA, power: float = POWER) -> float:
    """The smallest difference (a fraction) that ``cases`` cases detect with chance ``power``: the inverse of
    :func:`cases_needed`, found by halving, as the size falls with the difference.

    Raises:
        ValueError: fewer than :data:`MIN_CASES` cases.
    """
    if cases < MIN_CASES:
        raise ValueError(f"a plan needs at least {MIN_CASES} cases to detect anything, got {cases}")
    small, large = 1e-6, 1.0
    if cases_needed(large, spread, alpha, power) > cases:
        return float("nan")
    for _ in range(60):
        middle = (small + large) / 2
        small, large = (small, middle) if cases_needed(middle, spread, alpha, power) <= cases else (middle, large)
    return large


def spread_of(values: np.ndarray) -> Spread | None:
    """The spread of a (cases, contenders) table of per-case scores (NaN where a contender has none): the mean
    of the contenders' variances, the median correlation of their pairs on their shared cases, the mean score,
    and whether every score is 0 or 1. None when no contender has two scored cases.

    A pair whose scores are constant on its shared cases has no correlation and is left out; with no pair
    left, the correlation is 0 (the cautious choice: correlated contenders need fewer cases).
    """
    values = np.asarray(values, dtype=float)
    known = ~np.isnan(values)
    variances = [float(np.var(values[known[:, j], j], ddof=1)) for j in range(values.shape[1]) if known[:, j].sum() > 1]
    if not variances:
        return None
    correlations = []
    for a in range(values.shape[1]):
        for b in range(a + 1, values.shape[1]):
            both = known[:, a] & known[:, b]
            x, y = values[both, a], values[both, b]
            if both.sum() > 2 and x.std() > 0 and y.std() > 0:
                correlations.append(float(np.corrcoef(x, y)[0, 1]))
    finite = values[known]
    return Spread(
        variance=float(np.mean(variances)),
        correlation=float(np.clip(np.median(correlations), -0.99, 0.99)) if correlations else 0.0,
        mean=float(finite.mean()),
        binary=bool(np.isin(finite, (0.0, 1.0)).all()),
    )


def cases_to_decide(diffs: np.ndarray, binary: bool) -> int | None:
    """The cases a comparison needs to detect the difference it saw, at the size the planner gives, from its
    per-case differences ``diffs`` (NaN where a case has none); None when it saw no difference.

    For 0/1 values the discordant share is the share of non-zero differences (Connor 1987); else the
    differences' standard deviation (the normal approximation with Guenther's correction).
    """
    d = np.asarray(diffs, dtype=float)
    d = d[~np.isnan(d)]
    delta = float(d.mean()) if len(d) else 0.0
    if len(d) < 2 or abs(delta) < 1e-12:
        return None
    if binary:
        n = discordant_cases(delta, float(np.mean(d != 0)))
    else:
        n = mean_cases(delta, float(d.std(ddof=1)))
    return int(min(max(math.ceil(n - 1e-9), MIN_CASES), MAX_CASES))
