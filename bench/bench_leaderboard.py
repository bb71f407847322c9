"""Timings of the leaderboard math against the targets of the leaderboard issue.

Run: ``python bench/bench_leaderboard.py``. Each figure is the best of a few repeats, printed with its
target and with a baseline measured in the same run on the same data, so the ratio travels between
machines better than the seconds do:

- aggregate 1,000,000 results (40 contenders × 25,000 cases) into the overall table, target < 1 s;
  baseline: ``df.groupby("contender")["score"].mean()`` alone.
- rank (wscore, ranks, best, best value) a 1,000-row aggregated table, target < 20 ms;
  baseline: ``table.sort_values("score")``.
- bootstrap 40 contenders × 2,000 cases with B = 1000, target < 2 s; baseline: a score-only
  bootstrap written the plain way (a Python loop over B of fancy-indexed means).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalcore.analysis.ranking.leaderboard import aggregate, rank  # noqa: E402
from evalcore.analysis.ranking.stability import weight_stability  # noqa: E402
from evalcore.analysis.stats.resampling import bootstrap  # noqa: E402
from evalcore.analysis.stats.significance import pairwise_significance  # noqa: E402
from evalcore.core.records import Metric  # noqa: E402

METRICS = [
    Metric("field_accuracy", "Mean per-field correctness.", higher_is_better=True, primary=True),
    Metric("hallucinated_rate", "Share of the open fields given a value.", higher_is_better=False),
]
WEIGHTS = {"score": 0.5, "hallucinated_rate": -0.2, "cost": -0.2, "time": -0.1}


def synthetic_results(n_contenders: int, n_cases: int, n_datasets: int = 5, seed: int = 0) -> pd.DataFrame:
    """A results frame shaped like ``evalcore.storage.frames`` builds it: categorical names, NaN for null."""
    rng = np.random.default_rng(seed)
    n = n_contenders * n_cases
    contender, case = np.repeat(np.arange(n_contenders), n_cases), np.tile(np.arange(n_cases), n_contenders)
    error = rng.random(n) < 0.002
    score = np.where(
        error, np.nan, np.clip(rng.uniform(0.4, 0.95, n_contenders)[contender] + rng.normal(0, 0.2, n), 0, 1)
    )
    price = np.exp(rng.uniform(-10, -3, n_contenders))[contender]

    def names(prefix: str, count: int, codes: np.ndarray) -> pd.Categorical:
        return pd.Categorical.from_codes(codes, [f"{prefix}{i:05d}" for i in range(count)])

    return pd.DataFrame(
        {
            "contender": names("provider/model-", n_contenders, contender),
            "dataset": names("dataset-", n_datasets, case % n_datasets),
            "case": names("case/", n_cases, case),
            "variant": names("variant-", 4, case % 4),
            "sample": np.zeros(n, dtype=np.int64),
            "status": pd.Categorical.from_codes(error.astype(np.int8), ["scored", "error"]),
            "error_kind": pd.Categorical.from_codes(np.where(error, 1, -1), ["model", "timeout"]),
            "score": score,
            "m_field_accuracy": score,
            "m_hallucinated_rate": np.where(error, np.nan, rng.random(n) * 0.3),
            "cost_usd": np.where(rng.random(n) < 0.02, np.nan, price * rng.uniform(0.5, 1.5, n)),
            "latency_s": rng.uniform(0.2, 8.0, n),
            "input_tokens": rng.integers(200, 2000, n).astype(float),
            "output_tokens": rng.integers(20, 400, n).astype(float),
            "meta_difficulty": names("level-", 3, case % 3),
        }
    )


def best_of(action: Callable[[], object], repeats: int) -> float:
    """Fastest of ``repeats`` runs, in seconds: the least disturbed by the rest of the machine."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def plain_bootstrap(df: pd.DataFrame, B: int, seed: int) -> np.ndarray:  # noqa: N803
    """The baseline: score-only percentile bootstrap, one Python iteration per resample."""
    matrix = df.pivot_table(index="contender", columns="case", values="score", observed=True).to_numpy()
    rng = np.random.default_rng(seed)
    means = np.empty((B, matrix.shape[0]))
    for b in range(B):
        means[b] = np.nanmean(matrix[:, rng.integers(0, matrix.shape[1], matrix.shape[1])], axis=1)
    return np.percentile(means, [2.5, 97.5], axis=0)


def line(name: str, seconds: float, target: float | None, baseline: str, base_seconds: float) -> str:
    verdict = "" if target is None else ("ok" if seconds < target else "SLOW")
    target_text = "" if target is None else f"< {target * 1000:,.0f} ms"
    return (
        f"{name:<44} {seconds * 1000:>9,.1f} ms  {target_text:>11}  {verdict:<4}  "
        f"{seconds / base_seconds:>6.1f}× {baseline} ({base_seconds * 1000:,.1f} ms)"
    )


def main() -> None:
    print(f"python {sys.version.split()[0]}, pandas {pd.__version__}, numpy {np.__version__}")
    big = synthetic_results(40, 25_000)
    groupby_mean = best_of(lambda: big.groupby("contender", observed=True)["score"].mean(), 5)
    rows = [
        line(
            "aggregate 1,000,000 results (micro)",
            best_of(lambda: aggregate(big, METRICS), 5),
            1.0,
            "groupby mean",
            groupby_mean,
        ),
        line(
            "aggregate 1,000,000 results (macro)",
            best_of(lambda: aggregate(big, METRICS, average="macro"), 3),
            None,
            "groupby mean",
            groupby_mean,
        ),
        line(
            "aggregate 1,000,000 results per dataset",
            best_of(lambda: aggregate(big, METRICS, by=("contender", "dataset")), 3),
            None,
            "groupby mean",
            groupby_mean,
        ),
    ]

    table = aggregate(synthetic_results(1000, 50, seed=1), METRICS)
    sort = best_of(lambda: table.sort_values("score"), 20)
    rows.append(
        line(
            "rank 1,000 rows (slider move)",
            best_of(lambda: rank(table, WEIGHTS, METRICS), 20),
            0.020,
            "sort_values",
            sort,
        )
    )

    small = synthetic_results(40, 2_000, seed=2)
    plain = best_of(lambda: plain_bootstrap(small, 1000, 0), 2)
    rows += [
        line(
            "bootstrap 40 × 2,000, B=1000 (all columns)",
            best_of(lambda: bootstrap(small, METRICS, WEIGHTS, B=1000), 3),
            2.0,
            "plain loop",
            plain,
        ),
        line(
            "bootstrap 40 × 2,000, B=1000, macro",
            best_of(lambda: bootstrap(small, METRICS, WEIGHTS, average="macro", B=1000), 3),
            None,
            "plain loop",
            plain,
        ),
        line(
            "pairwise 40 × 2,000 (1,560 pairs), B=1000",
            best_of(lambda: pairwise_significance(small, B=1000), 2),
            None,
            "plain loop",
            plain,
        ),
    ]
    overall = aggregate(small, METRICS)
    rows.append(
        line(
            "weight stability 40 rows, 1000 draws",
            best_of(lambda: weight_stability(overall, WEIGHTS, METRICS), 5),
            None,
            "sort_values",
            sort,
        )
    )
    print("\n".join(rows))


if __name__ == "__main__":
    main()
