"""A judge's mean corrected by people: prediction-powered inference of a mean.

Angelopoulos, Bates, Fannjiang, Jordan & Zrnic, "Prediction-powered inference", Science 382 (2023), with
the power tuning of Angelopoulos, Duchi & Zrnic, "PPI++" (arXiv:2311.01453, 2023), as the authors' package
``ppi_py`` computes it (``ppi_mean_ci``).

People rated ``n`` items chosen at random (``human``, with the judge's values of the same items,
``judge_rated``); the judge alone scored ``N`` more (``judge_unrated``). The estimate of what people would say
on average over all the items is

    θ = λ · mean(judge_unrated) + mean(human − λ · judge_rated)

the judge's mean, corrected by its mean error measured where people rated (the *rectifier*). It is unbiased
for any λ whatever the judge's bias; its 95% interval ``θ ± z · se`` with

    se² = λ² · var(judge_unrated) / N + var(human − λ · judge_rated) / n      (variances with ddof 0)

carries both the sampling of cases and the judge's measured error; its ends are clipped to the range the values lie
in (``bounds``, [0, 1] for metric values), while ``se`` keeps the unclipped standard error. Where ``se`` is 0 (the
people agree with each other and with the judge on every rated item) the interval would be a point: for values in
[0, 1] it is then the boundary rule's over the ``n`` rated items
(:func:`evalcore.analysis.stats.intervals.constant_interval`: 8 ratings that all say 1 give [0.631, 1]), and the
judge's own over its ``n + N`` items the same way. ``λ = 1`` (the default)
is plain PPI, as the Science paper has it; ``λ = 0`` the people's own mean; ``lam=None`` tunes λ to the value that
minimises the variance, ``cov(human, judge_rated) / ((1 + n/N) · var(all judge values))``, clipped to [0, 1], as
``ppi_py`` does by default. The interval is a normal approximation: with a judge wrong on a third of the failing
answers, 400 items and pass/fail ratings, plain PPI covered the people's mean 94% of the time with 60 rated items
and 93% with 30, the tuned λ 93% and 91% (it spends rated items on estimating λ), reaching 95% at 100.

Pure function: arrays in, numbers out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from evalcore.analysis.stats.intervals import Z, widen_points


@dataclass(frozen=True)
class CorrectedMean:
    """A prediction-powered mean and its 95% interval, beside the judge's and the people's own.

    Attributes:
        value: the corrected estimate θ (NaN with no rated item).
        low: its interval's lower bound.
        high: its upper bound.
        judge: the judge's mean over every item (rated or not), uncorrected.
        judge_low: the judge's own normal interval, which knows nothing of its error.
        judge_high: its upper bound.
        people: the people's mean over the items they rated.
        bias: the judge's mean error where people rated, ``mean(judge_rated − human)``.
        rated: ``n``, items people rated.
        unrated: ``N``, items only the judge scored.
        lam: the λ used.
        se: the standard error of ``value``, from which ``low``/``high`` were drawn before clipping.
        judge_se: the standard error of ``judge``, the same way.
    """

    value: float
    low: float
    high: float
    judge: float
    judge_low: float
    judge_high: float
    people: float
    bias: float
    rated: int
    unrated: int
    lam: float
    se: float = float("nan")
    judge_se: float = float("nan")


def tuned_lambda(human: np.ndarray, judge_rated: np.ndarray, judge_unrated: np.ndarray) -> float:
    """The λ that minimises the estimate's variance, clipped to [0, 1] (0 when the judge's values never vary)."""
    n, big_n = len(human), len(judge_unrated)
    if n < 2 or big_n == 0:
        return 0.0
    covariance = float(np.mean((human - human.mean()) * (judge_rated - judge_rated.mean())))
    spread = float(np.var(np.concatenate([judge_rated, judge_unrated]), ddof=1))
    if spread == 0:
        return 0.0
    return float(np.clip(covariance / ((1 + n / big_n) * spread), 0.0, 1.0))


def ppi_mean(
    human: Sequence[float],
    judge_rated: Sequence[float],
    judge_unrated: Sequence[float],
    *,
    lam: float | None = 1.0,
    z: float = Z,
    bounds: tuple[float, float] = (0.0, 1.0),
) -> CorrectedMean:
    """The prediction-powered estimate of the people's mean, with its interval (see the module docstring).

    Args:
        human: the people's values of the rated items (one per item: average several raters first).
        judge_rated: the judge's values of the same items, in the same order.
        judge_unrated: the judge's values of the items no one rated.
        lam: the power-tuning λ: 1 is plain PPI (the default), None tunes it (:func:`tuned_lambda`).
        z: the normal quantile of the interval (95% by default).
        bounds: the range the values lie in: an interval's ends are clipped to it, as no mean lies outside.

    Raises:
        ValueError: ``human`` and ``judge_rated`` differ in length.
    """
    y = np.asarray(human, dtype=float)
    rated = np.asarray(judge_rated, dtype=float)
    unrated = np.asarray(judge_unrated, dtype=float)
    if len(y) != len(rated):
        raise ValueError(f"{len(y)} human values but {len(rated)} judge values of the rated items")
    n, big_n = len(y), len(unrated)
    every = np.concatenate([rated, unrated])
    judge = float(every.mean()) if len(every) else float("nan")
    judge_se = float(every.std()) / np.sqrt(len(every)) if len(every) else float("nan")
    judge_low, judge_high = _clipped(judge, z * judge_se, bounds, len(every))
    if n == 0:
        nan = float("nan")
        return CorrectedMean(nan, nan, nan, judge, judge_low, judge_high, nan, nan, 0, big_n, nan, nan, judge_se)
    if big_n == 0:  # with every item rated, the people's mean is the estimate
        lam = 0.0
    elif lam is None:
        lam = tuned_lambda(y, rated, unrated)
    rectifier = y - lam * rated
    imputed = float((lam * unrated).mean()) if big_n else 0.0
    value = imputed + float(rectifier.mean())
    variance = float(rectifier.var()) / n + (float((lam * unrated).var()) / big_n if big_n else 0.0)
    se = float(np.sqrt(variance))
    low, high = _clipped(value, z * se, bounds, n)
    return CorrectedMean(
        value=value,
        low=low,
        high=high,
        judge=judge,
        judge_low=judge_low,
        judge_high=judge_high,
        people=float(y.mean()),
        bias=float((rated - y).mean()),
        rated=n,
        unrated=big_n,
        lam=float(lam),
        se=se,
        judge_se=judge_se,
    )


def _clipped(value: float, half: float, bounds: tuple[float, float], n: int) -> tuple[float, float]:
    """``value ± half`` clipped to ``bounds``; for values in [0, 1], the boundary rule where that is a point
    (:func:`evalcore.analysis.stats.intervals.widen_points`: ``n`` items that all agree)."""
    low, high = max(value - half, bounds[0]), min(value + half, bounds[1])
    if tuple(bounds) == (0.0, 1.0) and n > 0:
        wide_low, wide_high = widen_points(np.array([low]), np.array([high]), np.array([value]), n)
        low, high = float(wide_low[0]), float(wide_high[0])
    return low, high
