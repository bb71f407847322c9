"""Issue 28: do evalcore's 95% intervals cover the truth 95% of the time? A simulation with known truth.

Two contenders answer ``N`` cases right with chances ``pa`` and ``pb``; each replicate run draws the answers
again and asks evalcore for its interval, and a cell's coverage is the share of replicates whose interval
holds the true value (``pa − pb`` for a difference, ``pa`` for a single score). Every interval evalcore shows:

- ``diff 0/1``: a paired difference of 0/1 values (``evalcore significance``, ``compare``, ``gate``, the
  forest plot): :func:`evalcore.analysis.stats.paired.paired_differences` (Tango's score interval, continuity-adjusted);
- ``diff samples``: the same of non-binary values, each case the mean of :data:`SAMPLES` sampled answers
  (the paired bootstrap of the same function: percentile and BCa hull at the expanded level);
- ``diff macro-F1``: the change of macro-F1 of a :data:`LABELS`-label classification
  (:func:`evalcore.analysis.stats.paired_f1.paired_macro_f1`: the bootstrap hull widened by half a pseudo-case
  going each way); a contender right with chance ``p`` and wrong labels spread evenly has population
  macro-F1 ``p``;
- ``single 0/1``: one contender's score of 0/1 values (the leaderboard's interval of a proportion,
  :func:`evalcore.analysis.stats.intervals.proportion_interval`);
- ``single samples``: one contender's score of non-binary values (the leaderboard's bootstrap at the
  expanded level,
  :func:`evalcore.analysis.stats.resampling.resample` and :func:`~evalcore.analysis.stats.resampling.intervals`).

The 0/1 methods' coverage is exact: summed over every possible outcome with its probability. Cases are
``independent`` (each side right on its own) or ``nested`` (one uniform draw per answer decides
both sides, so the better one is right wherever the worse one is). Every cell is seeded; a cell's replicates
share one set of resamples (their data are independent, so each replicate's interval is as evalcore gives it).

Every interval evalcore gives now exists whenever there is data (two sides that agree on every case get one
of non-zero width); should a run have none (``lo``/``hi`` null), a cell's coverage is that of the runs with an
interval, and ``shown`` the share of runs with one.

Run: ``python bench/bench_coverage.py [--quick] [--reps N] [--seed N] [--sizes 30,100] [--method NAME]``.
Prints one row per cell, then the lowest coverage of each method; exits 1 when a cell is under
:data:`TARGET`. The candidates each interval was chosen from: ``bench/bench_coverage_candidates.py``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd
from _common import ROOT  # noqa: F401  (puts the repository on sys.path)

from evalcore.analysis.stats.intervals import proportion_interval
from evalcore.analysis.stats.paired import paired_difference, paired_differences
from evalcore.analysis.stats.paired_f1 import LabelCounts, paired_macro_f1
from evalcore.analysis.stats.resampling import intervals, resample

#: Every cell's coverage must reach this.
TARGET = 0.93
#: The chances of a right answer tried, both sides.
CHANCES = (0.55, 0.7, 0.85, 0.95, 0.99, 1.0)
#: The numbers of cases tried.
SIZES = (30, 100, 400)
#: Sampled answers per case for the non-binary methods; labels of the classification.
SAMPLES, LABELS = 3, 3
#: Bootstrap resamples, as evalcore draws by default.
B = 1000


@dataclass(frozen=True)
class Cell:
    """One setting: the method, both chances, the number of cases and how the two sides' answers relate."""

    method: str
    pa: float
    pb: float
    n: int
    cases: str


def answers(rng: np.random.Generator, cell: Cell, reps: int, samples: int) -> tuple[np.ndarray, np.ndarray]:
    """(reps, N, samples) right (True) or wrong answers of both sides."""
    u = rng.random((reps, cell.n, samples))
    v = u if cell.cases == "nested" else rng.random((reps, cell.n, samples))
    return u < cell.pa, v < cell.pb


def diff_intervals(cell: Cell, rng: np.random.Generator, reps: int) -> tuple[np.ndarray, np.ndarray, float]:
    samples = 1 if cell.method == "diff 0/1" else SAMPLES
    a, b = (x.mean(axis=2).T for x in answers(rng, cell, reps, samples))  # (N, reps): a column per replicate
    rows = paired_differences(a, b, B=B, seed=int(rng.integers(2**31)))
    return np.array([r["lo"] for r in rows]), np.array([r["hi"] for r in rows]), cell.pa - cell.pb


def macro_f1_intervals(cell: Cell, rng: np.random.Generator, reps: int) -> tuple[np.ndarray, np.ndarray, float]:
    right_a, right_b = (x[:, :, 0] for x in answers(rng, cell, reps, 1))
    want = rng.integers(0, LABELS, size=(reps, cell.n))
    lows, highs = np.empty(reps), np.empty(reps)
    for r in range(reps):
        sides = [_label_counts(want[r], right, rng) for right in (right_b[r], right_a[r])]
        row = paired_macro_f1(*sides, B=B, seed=r)
        lows[r], highs[r] = row["lo"], row["hi"]
    return lows, highs, cell.pa - cell.pb


def _label_counts(want: np.ndarray, right: np.ndarray, rng: np.random.Generator) -> LabelCounts:
    wrong = (want + rng.integers(1, LABELS, size=len(want))) % LABELS  # any other label, evenly
    got = np.where(right, want, wrong)
    eye = np.eye(LABELS)
    return LabelCounts(eye[want] * right[:, None], eye[want], eye[got])


def single_intervals(cell: Cell, rng: np.random.Generator, reps: int) -> tuple[np.ndarray, np.ndarray, float]:
    if cell.method == "single 0/1":
        hits = (rng.random((reps, cell.n)) < cell.pa).sum(axis=1)
        low, high = proportion_interval(hits.astype(float), np.full(reps, float(cell.n)))
        return low, high, cell.pa
    values = (rng.random((reps, cell.n, SAMPLES)) < cell.pa).mean(axis=2)
    # One contender per replicate: a leaderboard's rows share their resampled cases, as here.
    df = pd.DataFrame(
        {
            "contender": np.repeat([f"r{r:04d}" for r in range(reps)], cell.n),
            "dataset": "d",
            "case": np.tile([f"c{i:04d}" for i in range(cell.n)], reps),
            "variant": "plain",
            "sample": 0,
            "status": "scored",
            "error_kind": None,
            "score": values.reshape(-1),
            "cost_usd": 0.001,
            "latency_s": 1.0,
            "input_tokens": 10.0,
            "output_tokens": 5.0,
        }
    )
    table = intervals(resample(df, [], B=B, seed=int(rng.integers(2**31))), [], {})
    return table["score_lo"].to_numpy(), table["score_hi"].to_numpy(), cell.pa


METHODS: dict[str, Callable[[Cell, np.random.Generator, int], tuple[np.ndarray, np.ndarray, float]]] = {
    "diff 0/1": diff_intervals,
    "diff samples": diff_intervals,
    "diff macro-F1": macro_f1_intervals,
    "single 0/1": single_intervals,
    "single samples": single_intervals,
}


def cells(chances: tuple[float, ...], sizes: tuple[int, ...], methods: list[str]) -> Iterator[Cell]:
    """Every cell of the grid: differences for ``pa ≥ pb`` (an interval of ``b − a`` is the mirror of
    ``a − b``'s) with both kinds of cases, single scores for each chance."""
    for method in methods:
        for n in sizes:
            if method.startswith("single"):
                yield from (Cell(method, p, p, n, "-") for p in chances)
                continue
            for pa in chances:
                for pb in (p for p in chances if p <= pa):
                    yield from (Cell(method, pa, pb, n, cases) for cases in ("independent", "nested"))


def exact_coverage(cell: Cell) -> tuple[float, float]:
    """A 0/1 method's coverage and mean width summed over every possible outcome with its probability: no
    simulation noise. A difference's outcome is ``(b, c)`` (multinomial), a single score's the hits (binomial)."""
    n, truth = cell.n, cell.pa - cell.pb if cell.method == "diff 0/1" else cell.pa
    if cell.method == "single 0/1":
        hits = np.arange(n + 1)
        low, high = proportion_interval(hits.astype(float), np.full(n + 1, float(n)))
        weight = np.exp(_log_multinomial(n, [hits, n - hits], [cell.pa, 1 - cell.pa]))
    else:
        p10, p01 = (truth, 0.0) if cell.cases == "nested" else (cell.pa * (1 - cell.pb), cell.pb * (1 - cell.pa))
        b, c = (x.reshape(-1) for x in np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij"))
        b, c = b[b + c <= n], c[b + c <= n]
        low, high = _tango_table(n)[:, b, c]
        weight = np.exp(_log_multinomial(n, [b, c, n - b - c], [p10, p01, 1 - p10 - p01]))
    held = (low <= truth + 1e-9) & (truth - 1e-9 <= high)
    return float((weight * held).sum()), float((weight * (high - low)).sum())


def _log_multinomial(n: int, counts: list[np.ndarray], chances: list[float]) -> np.ndarray:
    out = np.full(counts[0].shape, math.lgamma(n + 1))
    for k, p in zip(counts, chances, strict=True):
        out -= np.array([math.lgamma(x + 1) for x in k])
        out += np.where(k == 0, 0.0, k * math.log(p) if p > 0 else -np.inf)
    return out


@lru_cache(maxsize=4)
def _tango_table(n: int) -> np.ndarray:
    """(2, n + 1, n + 1): evalcore's interval for every ``(b, c)`` with ``b + c ≤ n``."""
    table = np.full((2, n + 1, n + 1), np.nan)
    for b in range(n + 1):
        for c in range(n + 1 - b):
            row = paired_difference(
                np.r_[np.ones(b), np.zeros(c), np.zeros(n - b - c)], np.r_[np.zeros(b), np.ones(c), np.zeros(n - b - c)]
            )
            table[:, b, c] = row["lo"], row["hi"]
    return table


def coverage(cell: Cell, reps: int, seed: int) -> tuple[float, float, float]:
    """The share of ``reps`` replicates with an interval whose interval holds the truth, the intervals' mean
    width and the share of replicates with an interval (a change whose two sides agree on every case has
    none); for a 0/1 method, its exact coverage and expected width (:func:`exact_coverage`), always shown."""
    if cell.method.endswith("0/1"):
        return (*exact_coverage(cell), 1.0)
    key = [seed, list(METHODS).index(cell.method), int(cell.pa * 100), int(cell.pb * 100), cell.n]
    rng = np.random.default_rng(key + [0 if cell.cases != "nested" else 1])
    low, high, truth = METHODS[cell.method](cell, rng, reps)
    slack = 1e-9  # an interval that ends on the truth holds it, whatever the float dust
    shown = ~np.isnan(low)
    held = (low <= truth + slack) & (truth - slack <= high)
    if not shown.any():
        return float("nan"), float("nan"), 0.0
    return float(held[shown].mean()), float(np.mean((high - low)[shown])), float(shown.mean())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few cells (N = 30 and 100, four chances)")
    parser.add_argument("--reps", type=int, default=1000, help="replicate runs per cell (default 1000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--method", action="append", choices=list(METHODS), help="only these methods")
    parser.add_argument("--sizes", type=lambda text: tuple(int(x) for x in text.split(",")), help="e.g. 30,100")
    args = parser.parse_args()
    chances = (0.55, 0.85, 0.99, 1.0) if args.quick else CHANCES
    sizes = args.sizes or ((30, 100) if args.quick else SIZES)
    methods = args.method or list(METHODS)
    worst: dict[str, tuple[float, Cell]] = {}
    fewest: dict[str, float] = {}
    print(f"{'method':<15} {'pa':>5} {'pb':>5} {'N':>4} {'cases':<11} {'coverage':>8} {'width':>7} {'shown':>6}")
    start = time.perf_counter()
    for cell in cells(chances, sizes, methods):
        covered, width, shown = coverage(cell, args.reps, args.seed)
        mark = "" if covered >= TARGET or shown == 0 else "  < target"
        print(
            f"{cell.method:<15} {cell.pa:>5.2f} {cell.pb:>5.2f} {cell.n:>4} {cell.cases:<11} {covered:>8.3f}"
            f" {width:>7.3f} {shown:>6.3f}{mark}",
            flush=True,
        )
        fewest[cell.method] = min(fewest.get(cell.method, 1.0), shown)
        if shown and (cell.method not in worst or covered < worst[cell.method][0]):
            worst[cell.method] = (covered, cell)
    print(f"\n{args.reps} replicates per cell, seed {args.seed}, {time.perf_counter() - start:.0f} s")
    for method, (covered, cell) in worst.items():
        where = f"pa {cell.pa}, pb {cell.pb}, N {cell.n}, {cell.cases}"
        verdict = "ok" if covered >= TARGET else "MISSED"
        none = f"; no interval in up to {1 - fewest[method]:.0%} of a cell's runs" if fewest[method] < 1 else ""
        print(f"coverage: {method}: min {covered:.4f} ({where}) (target >= {TARGET}) {verdict}{none}")
    return 0 if all(covered >= TARGET for covered, _ in worst.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
