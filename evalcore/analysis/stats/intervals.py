"""Interval arithmetic on plain arrays: percentile and BCa intervals read from resamples, Hesterberg's
expanded level, safe ratios, the closed-form interval of a proportion (:func:`proportion_interval`) that
replaces the bootstrap's for 0/1 values, and the boundary rule (:func:`constant_interval`,
:func:`widen_points`) that every interval of a value in [0, 1] applies where it would be a point.

The resamples themselves are drawn by :mod:`evalcore.analysis.stats.resampling`; the leaderboard, paired
comparisons, agreement and win rates read their intervals here.
"""

from __future__ import annotations

import math
from functools import lru_cache
from statistics import NormalDist

import numpy as np

#: Two-sided level of every interval here.
LEVEL = 0.95
#: The standard normal quantile of :data:`LEVEL`, two-sided.
Z = 1.959963984540054


#: Below this many cases a proportion's interval is Clopper–Pearson's, from it on Agresti–Coull's
#: (:func:`proportion_interval`).
EXACT_BELOW = 32


def proportion_interval(hits: np.ndarray, n: np.ndarray, level: float = LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided interval of a proportion, ``hits`` out of ``n`` (a half hit counts half); NaN where ``n`` is 0.

    From :data:`EXACT_BELOW` cases on, the Agresti–Coull interval (A. Agresti & B. A. Coull, "Approximate is
    better than 'exact' for interval estimation of binomial proportions", The American Statistician 52(2),
    1998): the Wald interval around ``(hits + z²/2) / (n + z²)`` with ``n + z²`` cases, clipped to [0, 1].
    Brown, Cai & DasGupta ("Interval estimation for a binomial proportion", Statistical Science 16(2), 2001)
    compare it with Wilson's, the modified Wilson and Jeffreys intervals and Clopper–Pearson's; measured by
    exact coverage on a fine grid of chances (``bench/bench_coverage_candidates.py single``), it is the
    narrowest whose coverage stays at 0.93 or more for every chance from 32 cases on (Wilson's falls to 0.86
    near 0 and 1 on 30 cases). Below 32 cases it falls to 0.92 at some chances, so there the interval is
    Clopper–Pearson's (C. J. Clopper & E. S. Pearson, Biometrika 26(4), 1934), which never covers less
    than ``level``: the beta quantiles ``B(α/2; hits, n − hits + 1)`` and ``B(1 − α/2; hits + 1, n − hits)``.
    Both end at 0 for no hit and at 1 for ``n`` hits only on that side: ``30/30`` gives ``[0.884, 1]``.
    """
    hits, n = np.broadcast_arrays(np.asarray(hits, dtype=float), np.asarray(n, dtype=float))
    z = NormalDist().inv_cdf((1 + level) / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        total = n + z * z
        centre = (hits + z * z / 2) / total
        half = z * np.sqrt(centre * (1 - centre) / total)
    low, high = np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)
    for i in np.flatnonzero((n > 0) & (n < EXACT_BELOW)):
        low.flat[i], high.flat[i] = _clopper_pearson(float(hits.flat[i]), float(n.flat[i]), level)
    low, high = np.where(hits <= 0, 0.0, low), np.where(hits >= n, 1.0, high)
    return np.where(n > 0, low, np.nan), np.where(n > 0, high, np.nan)


def constant_interval(
    value: np.ndarray | float, n: np.ndarray | int, level: float = LEVEL
) -> tuple[np.ndarray, np.ndarray]:
    """The interval of a mean of values in [0, 1] when every one of its ``n`` values is ``value`` (``c``): the
    boundary rule every interval here applies where it would otherwise be a point.

    Every resample of such values is ``c``, so a bootstrap interval is the point ``[c, c]``, which claims a
    certainty no finite sample gives. The share ``s`` of the population at ``c`` was seen ``n`` times out of
    ``n``; Clopper–Pearson's one-sided bound (C. J. Clopper & E. S. Pearson, Biometrika 26(4), 1934; with no
    miss, ``s ≥ L = ((1 − level) / 2)^(1/n)``, the "rule of three" of J. A. Hanley & A. Lippman-Hand, JAMA
    249(13), 1983, made exact) bounds it, and the rest of the population lies anywhere in [0, 1], so the mean
    lies in ``[c·L, 1 − (1 − c)·L]``. At ``c = 1`` and ``c = 0`` it is Clopper–Pearson's interval of ``n`` of
    ``n`` (and of 0 of ``n``), the spec's boundary: 30 perfect cases give ``[0.884, 1]``, 10 give
    ``[0.692, 1]``; 10 cases at 0.75 give ``[0.519, 0.827]``. NaN where ``n`` is 0.
    """
    c, size = np.broadcast_arrays(np.asarray(value, dtype=float), np.asarray(n, dtype=float))
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(size > 0, ((1 - level) / 2) ** (1 / np.maximum(size, 1)), np.nan)
    return c * share, 1 - (1 - c) * share


def widen_points(
    low: np.ndarray, high: np.ndarray, value: np.ndarray, n: np.ndarray | int, level: float = LEVEL
) -> tuple[np.ndarray, np.ndarray]:
    """``[low, high]``, with :func:`constant_interval` in place of every interval of one point (a mean in
    [0, 1] whose every value was the same, or a statistic that every resample left unchanged); NaN stays NaN.

    Args:
        low, high: the intervals as computed (a bootstrap's, a normal approximation's).
        value: each estimate (a point interval is widened around it).
        n: the number of cases (or rated items) each estimate is a mean of.
    """
    low, high, value = (np.asarray(x, dtype=float) for x in (low, high, value))
    point = (np.abs(high - low) <= 1e-12) & (value >= 0) & (value <= 1) & (np.asarray(n) > 0)
    wide_low, wide_high = constant_interval(np.clip(value, 0.0, 1.0), np.maximum(n, 1), level)
    return np.where(point, wide_low, low), np.where(point, wide_high, high)


@lru_cache(maxsize=4096)
def _clopper_pearson(hits: float, n: float, level: float) -> tuple[float, float]:
    alpha = 1 - level
    low = 0.0 if hits <= 0 else _beta_quantile(alpha / 2, hits, n - hits + 1)
    high = 1.0 if hits >= n else _beta_quantile(1 - alpha / 2, hits + 1, n - hits)
    return low, high


def _beta_quantile(q: float, a: float, b: float) -> float:
    """The beta distribution's ``q`` quantile: the root of its distribution function, found by halving."""
    low, high = 0.0, 1.0
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if _incomplete_beta(middle, a, b) < q else (low, middle)
    return (low + high) / 2


def ratio(sums: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``sums / counts``, NaN where the count is 0 (a mean of no value is null)."""
    return np.divide(sums, counts, out=np.full_like(sums, np.nan), where=counts > 0)


def percentile_interval(
    samples: np.ndarray, level: float | np.ndarray = LEVEL, *, ordered: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval along axis 0, ignoring NaN (linear interpolation, as ``np.percentile``).

    A column with no finite sample gets NaN, without numpy's all-NaN warnings.

    Args:
        samples: (resamples, columns) or (resamples,) values.
        level: one level, or one per column (:func:`expanded_level`).
        ordered: ``np.sort(samples, axis=0)``, when already sorted.
    """
    ordered = np.sort(samples, axis=0) if ordered is None else ordered  # NaN sorts last
    last = np.maximum((~np.isnan(samples)).sum(axis=0) - 1, 0)
    return _read(ordered, last, (1 - level) / 2), _read(ordered, last, (1 + level) / 2)


def _read(ordered: np.ndarray, last: np.ndarray, q: float | np.ndarray) -> np.ndarray:
    """The ``q`` quantile of each column of ``ordered`` (its first ``last + 1`` values), interpolated."""
    position = q * last
    below = np.floor(position).astype(np.int64)
    above = np.minimum(below + 1, last)
    low = np.take_along_axis(ordered, below[None], axis=0)[0]
    high = np.take_along_axis(ordered, above[None], axis=0)[0]
    return low + (position - below) * (high - low)


def bootstrap_interval(
    samples: np.ndarray, estimate: np.ndarray, acceleration: np.ndarray, level: float | np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The bootstrap interval of a paired difference: the smallest interval holding both the percentile
    interval and the BCa interval, each read at ``level`` (:func:`expanded_level`), per column.

    BCa (B. Efron, "Better bootstrap confidence intervals", JASA 82(397), 1987; T. J. DiCiccio & B. Efron,
    "Bootstrap confidence intervals", Statistical Science 11(3), 1996, eq. 2.3) reads the resamples at
    ``Φ(z₀ + (z₀ + z) / (1 − a(z₀ + z)))`` for ``z`` each normal quantile of ``level``: ``z₀`` corrects
    for the resamples' median bias (``Φ⁻¹`` of the share of resamples below the estimate, ties counting
    half), ``a`` for the skew. On 30 cases of a difference that is mostly 0 (two sides right almost
    everywhere) the percentile interval misses a small true difference from below (0.90 coverage) and BCa
    corrects it, while BCa overshoots where a single case differs (0.92) and the percentile interval does
    not: measured on the grid of ``bench/bench_coverage.py``, neither alone keeps 0.93, both together do.

    Args:
        samples: (resamples, columns) resampled values, NaN where a resample has none.
        estimate: (columns,) the value on the cases as drawn.
        acceleration: (columns,) ``a``; :func:`mean_acceleration` for a mean.
        level: one level, or one per column.
    """
    ordered = np.sort(samples, axis=0)  # NaN sorts last
    finite = (~np.isnan(samples)).sum(axis=0)
    low, high = percentile_interval(samples, level, ordered=ordered)
    below = (samples < estimate - 1e-12).sum(axis=0) + 0.5 * (np.abs(samples - estimate) <= 1e-12).sum(axis=0)
    share = np.clip(ratio(below, finite.astype(float)), 0.5 / np.maximum(finite, 1), 1 - 0.5 / np.maximum(finite, 1))
    normal = NormalDist()
    bounds = []
    for z in np.broadcast_to(np.array([-1.0, 1.0])[:, None] * _normal_quantiles(level), (2, samples.shape[1])):
        q = np.full(samples.shape[1], np.nan)
        for j in np.flatnonzero(finite > 0):
            z0 = normal.inv_cdf(float(share[j]))
            stretch = 1 - acceleration[j] * (z0 + z[j])
            # Past the pole of BCa's correction the end is the last resample on that side.
            q[j] = normal.cdf(z0 + (z0 + z[j]) / stretch) if stretch > 0 else float(z[j] > 0)
        bounds.append(_read(ordered, np.maximum(finite - 1, 0), np.nan_to_num(q)))
    return np.fmin(low, bounds[0]), np.fmax(high, bounds[1])


def mean_acceleration(values: np.ndarray, known: np.ndarray) -> np.ndarray:
    """BCa's acceleration of a mean, column by column, from its jackknife: ``Σ(x − x̄)³ / (6 (Σ(x − x̄)²)^1.5)``
    over the known values (0 where they do not vary)."""
    n = known.sum(axis=0)
    mean = ratio(np.where(known, values, 0.0).sum(axis=0), n.astype(float))
    deviation = np.where(known, values - mean, 0.0)
    squared = deviation * deviation  # products, not powers: ** 3 is several times slower on big arrays
    spread, skew = squared.sum(axis=0), (squared * deviation).sum(axis=0)
    return np.divide(skew, 6 * spread**1.5, out=np.zeros_like(skew), where=spread > 0)


def _normal_quantiles(level: float | np.ndarray) -> np.ndarray:
    """The upper normal quantile of each two-sided ``level`` (a level that rounds to 1, as the expanded level
    of 2 cases does, is read just under 1: the resamples' extremes)."""
    normal = NormalDist()
    return np.array([normal.inv_cdf(min((1 + float(x)) / 2, 1 - 1e-15)) for x in np.atleast_1d(level)])


def expanded_level(n: np.ndarray | int, level: float = LEVEL) -> np.ndarray:
    """The level at which to read a bootstrap percentile interval of a mean over ``n`` cases so that it
    covers as a ``level`` t interval does: Hesterberg's expanded percentile interval (Hesterberg 2015, "What
    teachers should know about the bootstrap", The American Statistician 69(4), §3.3).

    A plain percentile interval is too narrow for small ``n``: it uses the spread of the resampled means,
    ``√((n − 1) / n)`` times the usual standard error, and normal quantiles instead of t's. The expanded
    level is ``1 − 2Φ(−√(n / (n − 1)) t)``, ``t`` the ``(1 + level) / 2`` quantile of Student's t with
    ``n − 1`` degrees of freedom: 0.9625 for 95% at ``n = 30``, 0.951 at ``n = 400``. ``n < 2`` keeps ``level``.
    """
    sizes = np.atleast_1d(np.asarray(n, dtype=np.int64))
    out = np.full(sizes.shape, level, dtype=float)
    distinct = np.unique(sizes[sizes >= 2])
    quantiles = t_quantiles((1 + level) / 2, [int(size) - 1 for size in distinct])
    for size, t in zip(distinct, quantiles, strict=True):
        out[sizes == size] = 1 - 2 * NormalDist().cdf(-math.sqrt(size / (size - 1)) * t)
    return out


#: Student's t quantiles found so far, by (q, degrees of freedom): a leaderboard asks for the same few at every
#: redraw. At most :data:`_KEPT` of them.
_QUANTILES: dict[tuple[float, int], float] = {}
_KEPT = 4096
#: Past this many quantiles to find, they are halved all at once (fewer go faster one by one).
_AT_ONCE = 8


def t_quantiles(q: float, dfs: list[int]) -> list[float]:
    """Student's t quantile at ``q > 0.5`` for each of ``dfs`` degrees of freedom: the root of its distribution
    function, found by halving (:func:`_t_quantile`; many at once by :func:`_halved`, to the same numbers)."""
    missing = [df for df in dict.fromkeys(dfs) if (q, df) not in _QUANTILES]
    if len(_QUANTILES) + len(missing) > _KEPT:
        _QUANTILES.clear()
        missing = list(dict.fromkeys(dfs))
    found = _halved(q, missing) if len(missing) > _AT_ONCE else [_t_quantile(q, df) for df in missing]
    _QUANTILES.update(zip(((q, df) for df in missing), found, strict=True))
    return [_QUANTILES[(q, df)] for df in dfs]


def _t_quantile(q: float, df: int) -> float:
    """Student's t quantile, ``q > 0.5``: the root of its distribution function, found by halving."""
    low, high = 0.0, 1.0
    while _t_cdf(high, df) < q:
        low, high = high, 2 * high
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if _t_cdf(middle, df) < q else (low, middle)
    return (low + high) / 2


def _t_cdf(x: float, df: int) -> float:
    """Student's t distribution function at ``x ≥ 0``, through the regularised incomplete beta function
    ``I_{df / (df + x²)}(df / 2, 1 / 2)`` (its continued fraction, Numerical Recipes §6.4)."""
    return 1 - 0.5 * _incomplete_beta(df / (df + x * x), df / 2, 0.5)


def _halved(q: float, dfs: list[int]) -> list[float]:
    """:func:`_t_quantile` of every one of ``dfs``, all halved at once.

    Each step is the arithmetic of one degree of freedom alone (NumPy's +, −, ×, ÷ and comparisons round as
    Python's floats do; logarithms and the gamma function stay Python's), so each quantile is the one
    :func:`_t_quantile` finds, to the last bit.
    """
    df = np.asarray(dfs, dtype=float)
    low, high = np.zeros(len(df)), np.ones(len(df))
    while (short := _t_cdfs(high, df) < q).any():
        low, high = np.where(short, high, low), np.where(short, 2 * high, high)
    for _ in range(60):
        middle = (low + high) / 2
        below = _t_cdfs(middle, df) < q
        low, high = np.where(below, middle, low), np.where(below, high, middle)
    return ((low + high) / 2).tolist()


def _t_cdfs(x: np.ndarray, df: np.ndarray) -> np.ndarray:
    """:func:`_t_cdf` element by element."""
    return 1 - 0.5 * _incomplete_betas(df / (df + x * x), df / 2, 0.5)


def _incomplete_betas(x: np.ndarray, a: np.ndarray, b: float) -> np.ndarray:
    """:func:`_incomplete_beta` element by element, its continued fraction evaluated for every element at once."""
    inside = (x > 0.0) & (x < 1.0)
    flipped = inside & (x > (a + 1) / (a + b + 2))  # the continued fraction converges fast on the other side only
    xs = np.where(inside, np.where(flipped, 1 - x, x), 0.5)
    first, second = np.where(flipped, b, a), np.where(flipped, a, b)
    fractions = _beta_fractions(xs, first, second)
    values = np.asarray(
        [
            math.exp(math.lgamma(p + r) - math.lgamma(p) - math.lgamma(r) + p * math.log(y) + r * math.log1p(-y))
            * f
            / p
            for y, p, r, f in zip(xs.tolist(), first.tolist(), second.tolist(), fractions.tolist(), strict=True)
        ]
    )
    return np.where(inside, np.where(flipped, 1 - values, values), np.where(x <= 0.0, 0.0, 1.0))


def _beta_fractions(x: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """:func:`_beta_fraction` element by element: each element stops where it alone would."""
    tiny = 1e-300
    c, d = np.ones(len(x)), 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / np.where(np.abs(d) > tiny, d, tiny)
    h = d.copy()
    going = np.ones(len(x), dtype=bool)
    for m in range(1, 300):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            next_d = 1.0 + numerator * d
            next_d = 1.0 / np.where(np.abs(next_d) > tiny, next_d, tiny)
            next_c = 1.0 + numerator / c
            next_c = np.where(np.abs(next_c) > tiny, next_c, tiny)
            d, c, h = np.where(going, next_d, d), np.where(going, next_c, c), np.where(going, h * (next_d * next_c), h)
        going &= ~(np.abs(d * c - 1.0) < 1e-15)
        if not going.any():
            break
    return h


def _incomplete_beta(x: float, a: float, b: float) -> float:
    if x <= 0.0 or x >= 1.0:
        return 0.0 if x <= 0.0 else 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x > (a + 1) / (a + b + 2):  # the continued fraction converges fast on this side only
        return 1 - _incomplete_beta(1 - x, b, a)
    return math.exp(log_front) * _beta_fraction(x, a, b) / a


def _beta_fraction(x: float, a: float, b: float) -> float:
    """Lentz's evaluation of the incomplete beta function's continued fraction."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h
