"""Issue 28: the candidates evalcore's 0/1 intervals were chosen from, by exact coverage and expected width.

Exact: summed over every possible outcome with its probability, no simulation noise.

- ``single``: one proportion on a fine grid of chances (0.001 to 0.999 by :data:`STEP`, both ends included),
  for each N: Wilson (1927); the modified Wilson of Brown, Cai & DasGupta (2001, Statistical Science 16(2),
  §4.1.1: the lower bound of ``x = 1 … x*`` hits replaced by the one-sided Poisson bound ``½χ²_{2x, α} / n``,
  ``x* = 2`` up to 50 cases, 3 above, mirrored at the top); Agresti–Coull (1998); the modified Jeffreys
  interval of the same paper (§4.1.2: no lower bound at 1 hit, ``(α/2)^{1/n}`` at ``n``, mirrored);
  Clopper–Pearson (1934); and evalcore's (Agresti–Coull from 32 cases, Clopper–Pearson below).
- ``paired``: a paired difference of 0/1 values on ``bench_coverage``'s grid of chances (independent and nested
  answers): Tango's score interval with evalcore's continuity adjustment
  (:data:`evalcore.analysis.stats.paired.CONTINUITY`
  cases) and without it (Tango 1998, as published); Bonett & Price's adjusted Wald interval (2012, J. Educ. Behav.
  Stat. 37(4): ``p̃₁₂ = (b + 1)/(n + 2)``, ``p̃₂₁ = (c + 1)/(n + 2)``); Newcombe's square-and-add interval (1998,
  Stat. Med. 17, method 10, with the correlation estimate of Fagerland, Lydersen & Laake 2014). Newcombe's depends on
  all four cells of the table, so it is summed over every table (N ≤ 100). ``--tests`` adds each test's size (the
  chance of p < 0.05 when both sides are right as often) for McNemar's test with and without the adjustment, which
  Tango's interval inverts, and the Wald test of Bonett and Price's adjusted estimates, which theirs inverts.

Run: ``python bench/bench_coverage_candidates.py [single|paired] [--sizes 30,100,400] [--tests]``; ``--sizes
10-130`` tries every N from 10 to 130 (with ``paired``, Newcombe's only up to 100 cases). Prints each
method's lowest coverage (where) and mean expected width per N, and the cells under :data:`TARGET`.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from functools import cache
from statistics import NormalDist

import numpy as np
from _common import ROOT  # noqa: F401  (puts the repository on sys.path)
from bench_coverage import CHANCES, TARGET, Cell, _tango_table

from evalcore.analysis.stats.intervals import EXACT_BELOW, _beta_quantile, proportion_interval
from evalcore.analysis.stats.paired import CONTINUITY, score_test

Z = NormalDist().inv_cdf(0.975)
ALPHA = 0.05
STEP = 0.001

Interval = tuple[np.ndarray, np.ndarray]


def wilson(n: int) -> Interval:
    x = np.arange(n + 1.0)
    p, scale = x / n, 1 + Z * Z / n
    centre, half = (p + Z * Z / (2 * n)) / scale, Z * np.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / scale
    return np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)


def modified_wilson(n: int) -> Interval:
    low, high = wilson(n)
    for x in range(1, (2 if n <= 50 else 3) + 1):
        if x < n:
            low[x], high[n - x] = _poisson_lower(x) / n, 1 - _poisson_lower(x) / n
    return low, high


@cache
def _poisson_lower(x: int) -> float:
    """``½χ²_{2x, α}``: the λ with P(Poisson(λ) ≥ x) = α, found by halving."""
    low, high = 0.0, 50.0
    for _ in range(80):
        middle = (low + high) / 2
        below = sum(math.exp(-middle) * middle**j / math.factorial(j) for j in range(x))
        low, high = (middle, high) if 1 - below < ALPHA else (low, middle)
    return (low + high) / 2


def agresti_coull(n: int) -> Interval:
    x = np.arange(n + 1.0)
    total = n + Z * Z
    centre = (x + Z * Z / 2) / total
    half = Z * np.sqrt(centre * (1 - centre) / total)
    return np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)


def modified_jeffreys(n: int) -> Interval:
    low = np.array([0.0 if x <= 1 else _beta_quantile(ALPHA / 2, x + 0.5, n - x + 0.5) for x in range(n + 1)])
    high = np.array([1.0 if x >= n - 1 else _beta_quantile(1 - ALPHA / 2, x + 0.5, n - x + 0.5) for x in range(n + 1)])
    low[n], high[0] = (ALPHA / 2) ** (1 / n), 1 - (ALPHA / 2) ** (1 / n)
    return low, high


def clopper_pearson(n: int) -> Interval:
    low = np.array([0.0 if x == 0 else _beta_quantile(ALPHA / 2, x, n - x + 1) for x in range(n + 1)])
    high = np.array([1.0 if x == n else _beta_quantile(1 - ALPHA / 2, x + 1, n - x) for x in range(n + 1)])
    return low, high


def evalcore_single(n: int) -> Interval:
    return proportion_interval(np.arange(n + 1.0), np.full(n + 1, float(n)))


SINGLE: dict[str, Callable[[int], Interval]] = {
    "Wilson": wilson,
    "modified Wilson": modified_wilson,
    "Agresti–Coull": agresti_coull,
    "modified Jeffreys": modified_jeffreys,
    "Clopper–Pearson": clopper_pearson,
    f"evalcore (AC, CP < {EXACT_BELOW})": evalcore_single,
}


def single(sizes: tuple[int, ...]) -> None:
    chances = np.r_[0.0, np.arange(1, round(1 / STEP)) * STEP, 1.0]
    print(f"single 0/1 score: exact coverage on {len(chances)} chances from 0 to 1")
    for name, method in SINGLE.items():
        for n in sizes:
            low, high = method(n)
            hits = np.arange(n + 1)
            log_choose = np.array([math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) for k in hits])
            covered, widths = [], []
            for p in chances:
                with np.errstate(divide="ignore", invalid="ignore"):
                    log_p = np.where(hits == 0, 0.0, hits * np.log(p)) + np.where(
                        hits == n, 0.0, (n - hits) * np.log1p(-p)
                    )
                weight = np.exp(log_choose + log_p)
                covered.append(float((weight * ((low <= p + 1e-12) & (p - 1e-12 <= high))).sum()))
                widths.append(float((weight * (high - low)).sum()))
            worst = int(np.argmin(covered))
            under = sum(c < TARGET for c in covered)
            print(
                f"  {name:<26} N {n:>4}: min {covered[worst]:.4f} at p {chances[worst]:.3f}, mean width"
                f" {np.mean(widths):.4f}, {under} chances under {TARGET}",
                flush=True,
            )


def bonett_price(b: np.ndarray, c: np.ndarray, n: int) -> Interval:
    p12, p21 = (b + 1) / (n + 2), (c + 1) / (n + 2)
    delta = p12 - p21
    se = np.sqrt(np.maximum(p12 + p21 - delta * delta, 0) / (n + 2))
    return np.maximum(delta - Z * se, -1), np.minimum(delta + Z * se, 1)


def newcombe(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray, n: int) -> Interval:
    p1, p2 = (a + b) / n, (a + c) / n
    (l1, u1), (l2, u2) = _wilson_of(a + b, n), _wilson_of(a + c, n)
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    cross = a * d - b * c
    cross = np.where(cross > n / 2, cross - n / 2, np.where(cross >= 0, 0.0, cross))
    psi = np.divide(cross, np.sqrt(margins), out=np.zeros_like(cross), where=margins > 0)
    below = np.sqrt(np.maximum((p1 - l1) ** 2 - 2 * psi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2, 0))
    above = np.sqrt(np.maximum((p2 - l2) ** 2 - 2 * psi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2, 0))
    return np.maximum(p1 - p2 - below, -1), np.minimum(p1 - p2 + above, 1)


def _wilson_of(x: np.ndarray, n: int) -> Interval:
    low, high = wilson(n)
    return low[x.astype(np.int64)], high[x.astype(np.int64)]


def _chances(cell: Cell) -> tuple[float, float, float, float]:
    """P(both right), P(only a), P(only b), P(both wrong)."""
    pa, pb = cell.pa, cell.pb
    if cell.cases == "nested":
        return pb, pa - pb, 0.0, 1 - pa
    return pa * pb, pa * (1 - pb), pb * (1 - pa), (1 - pa) * (1 - pb)


def _log_pmf(n: int, counts: list[np.ndarray], chances: tuple[float, ...]) -> np.ndarray:
    log_factorial = np.array([math.lgamma(k + 1) for k in range(n + 1)])
    out = np.full(counts[0].shape, log_factorial[n])
    for k, p in zip(counts, chances, strict=True):
        out -= log_factorial[k]
        out += np.where(k == 0, 0.0, k * math.log(p) if p > 0 else -np.inf)
    return out


def paired(sizes: tuple[int, ...], tests: bool) -> None:
    grid = [
        Cell("diff 0/1", pa, pb, 0, cases)
        for pa in CHANCES
        for pb in CHANCES
        if pb <= pa
        for cases in ("independent", "nested")
    ]
    print("paired 0/1 difference: exact coverage on bench_coverage's grid of chances")
    for n in sizes:
        b, c = (x.reshape(-1) for x in np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij"))
        b, c = b[b + c <= n], c[b + c <= n]
        methods = {
            "Tango adjusted": tuple(_tango_table(n)[:, b, c]),
            "Tango": _uncorrected_tango(b, c, n),
            "Bonett–Price": bonett_price(b * 1.0, c * 1.0, n),
        }
        for name, (low, high) in methods.items():
            rows = []
            for cell in grid:
                _, p10, p01, _ = _chances(cell)
                weight = np.exp(_log_pmf(n, [b, c, n - b - c], (p10, p01, 1 - p10 - p01)))
                truth = cell.pa - cell.pb
                held = (low <= truth + 1e-9) & (truth - 1e-9 <= high)
                rows.append(((weight * held).sum(), (weight * (high - low)).sum(), cell))
            _print_paired(name, n, rows)
        if n <= 100:
            _newcombe_rows(n, grid)
        if tests:
            _sizes_of_tests(n, b, c)


def _uncorrected_tango(b: np.ndarray, c: np.ndarray, n: int) -> Interval:
    ends = [score_test(int(x), int(y), n, correction=0.0) for x, y in zip(b, c, strict=True)]
    return np.array([e["lo"] for e in ends]), np.array([e["hi"] for e in ends])


def _newcombe_rows(n: int, grid: list[Cell]) -> None:
    table = np.stack(np.meshgrid(*[np.arange(n + 1)] * 3, indexing="ij"), -1).reshape(-1, 3)
    a, b, c = table[table.sum(axis=1) <= n].T
    d = n - a - b - c
    low, high = newcombe(*(x.astype(float) for x in (a, b, c, d)), n)
    rows = []
    for cell in grid:
        weight = np.exp(_log_pmf(n, [a, b, c, d], _chances(cell)))
        truth = cell.pa - cell.pb
        rows.append(
            ((weight * ((low <= truth + 1e-9) & (truth - 1e-9 <= high))).sum(), (weight * (high - low)).sum(), cell)
        )
    _print_paired("Newcombe 10", n, rows)


def _print_paired(name: str, n: int, rows: list[tuple[float, float, Cell]]) -> None:
    covered, width, cell = min(rows, key=lambda row: row[0])
    under = [f"{r[2].pa}/{r[2].pb} {r[2].cases} {r[0]:.4f}" for r in rows if r[0] < TARGET]
    print(
        f"  {name:<14} N {n:>4}: min {covered:.4f} (pa {cell.pa}, pb {cell.pb}, {cell.cases}), mean width"
        f" {np.mean([r[1] for r in rows]):.4f}; under {TARGET}: {', '.join(under) or 'none'}",
        flush=True,
    )


def _sizes_of_tests(n: int, b: np.ndarray, c: np.ndarray) -> None:
    discordant = b + c
    z = np.divide(b - c, np.sqrt(discordant), out=np.zeros(len(b)), where=discordant > 0)
    mcnemar = np.abs(z) > Z
    moved = np.maximum(np.abs(b - c) - CONTINUITY, 0)
    adjusted_mcnemar = np.divide(moved, np.sqrt(discordant), out=np.zeros(len(b)), where=discordant > 0) > Z
    low, high = bonett_price(b * 1.0, c * 1.0, n)
    adjusted = (low > 0) | (high < 0)
    for p in CHANCES[:-1]:
        weight = np.exp(_log_pmf(n, [b, c, n - b - c], (p * (1 - p), p * (1 - p), 1 - 2 * p * (1 - p))))
        print(
            f"  size at pa = pb = {p}, N {n}: McNemar {(weight * mcnemar).sum():.4f},"
            f" adjusted {(weight * adjusted_mcnemar).sum():.4f},"
            f" Bonett–Price Wald {(weight * adjusted).sum():.4f}"
        )


def _sizes(text: str) -> tuple[int, ...]:
    if "-" in text:
        first, last = (int(x) for x in text.split("-"))
        return tuple(range(first, last + 1))
    return tuple(int(x) for x in text.split(","))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("which", nargs="?", choices=["single", "paired"], help="one family (default both)")
    parser.add_argument("--sizes", type=_sizes, default=(30, 100, 400), help="e.g. 30,100 or 10-130")
    parser.add_argument("--tests", action="store_true", help="the size of each paired interval's test")
    args = parser.parse_args()
    if args.which in (None, "single"):
        single(args.sizes)
    if args.which in (None, "paired"):
        paired(args.sizes, args.tests)
    return 0


if __name__ == "__main__":
    sys.exit(main())
