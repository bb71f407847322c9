"""Issue 32: adaptive runs, measured by simulation with known truth.

Lineups of contenders with known accuracies answer N cases (0/1 scores); errors independent (each contender
errs on its own cases) or nested (a better contender is right wherever a worse one is). Each lineup is raced
as ``evalcore run --adaptive`` races it (:func:`evalcore.analysis.stats.racing.replay_race`: the same rounds and
decisions, no calls), over many seeds. Per lineup:

- ``calls``: the race's calls as a share of the full run's (contenders × cases);
- ``≠ true best``: how often the race's winner (the leader when it ended) is not the contender with the
  highest accuracy (— when all are equal: there is none); ``≠ full run``: how often it is not the full run's
  winner (highest score over all N);
- ``one winner``: how often the race ended with a single contender left (for the all-equal lineups, the
  share of seeds in which one contender was wrongly declared the single winner: at most 1 - confidence).

Targets (issue 32): 0.90 against seven at most 0.80, over 1,000 cases: calls at most 40% of the full run's and
the true best picked in at least 95% of seeds, independent or nested; all equal: one winner in at most 5%.

Run: ``python bench/bench_adaptive.py [--seeds 200] [--quick]``: by default the full grid (every lineup, N = 200,
1,000 and 2,000, independent and nested errors); ``--quick``: the target lineups at N = 1,000 only.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalcore.analysis.stats.racing import replay_race  # noqa: E402
from evalcore.execution.race_settings import default_round  # noqa: E402

#: name: accuracies (the first is the true best, except in the all-equal lineups).
LINEUPS = {
    "clear winner, 8 (0.90 vs seven at 0.80)": [0.90] + [0.80] * 7,
    "clear winner, 8 (0.90 vs 0.80..0.60)": [0.90, 0.80, 0.78, 0.75, 0.72, 0.70, 0.65, 0.60],
    "clear winner, 4 (0.90 vs 0.80, 0.75, 0.70)": [0.90, 0.80, 0.75, 0.70],
    "clear winner, 16 (0.90 vs 0.80..0.50)": [0.90] + list(np.linspace(0.80, 0.50, 15)),
    "two close leaders, 8 (0.85, 0.83, rest 0.75..0.60)": [0.85, 0.83, 0.75, 0.72, 0.70, 0.66, 0.63, 0.60],
    "all equal, 4 (0.80)": [0.80] * 4,
    "all equal, 8 (0.80)": [0.80] * 8,
    "all equal, 16 (0.80)": [0.80] * 16,
}
TARGETS = ["clear winner, 8 (0.90 vs seven at 0.80)", "clear winner, 8 (0.90 vs 0.80..0.60)", "all equal, 8 (0.80)"]


def scores(accuracies: list[float], cases: int, rng: np.random.Generator, nested: bool) -> np.ndarray:
    """Per-case 0/1 scores of a lineup, in the order the race calls the cases."""
    shared = rng.random(cases)
    return np.array([((shared if nested else rng.random(cases)) < a).astype(float) for a in accuracies])


def measure(accuracies: list[float], cases: int, seeds: int, nested: bool) -> dict[str, float]:
    """The race's figures over ``seeds`` seeds."""
    rng = np.random.default_rng(32)
    best = int(np.argmax(accuracies)) if len(set(accuracies)) > 1 else None
    calls: list[float] = []
    not_best: list[bool] = []
    not_full: list[bool] = []
    single: list[bool] = []
    for _ in range(seeds):
        matrix = scores(accuracies, cases, rng, nested)
        race = replay_race(matrix, default_round(cases))
        winner = race.survivors[0]
        calls.append(race.calls / matrix.size)
        full = matrix.mean(axis=1)
        not_best.append(winner != best)
        not_full.append(full[winner] < full.max())
        single.append(len(race.survivors) == 1)
    return {
        "calls": float(np.mean(calls)),
        "not_best": float(np.mean(not_best)) if best is not None else float("nan"),
        "not_full": float(np.mean(not_full)),
        "single": float(np.mean(single)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--quick", action="store_true", help="only the target lineups, at N = 1000")
    args = parser.parse_args()
    began = time.perf_counter()
    sizes = [1000] if args.quick else [200, 1000, 2000]
    names = TARGETS if args.quick else list(LINEUPS)
    print("| lineup | N | errors | calls | ≠ true best | ≠ full run | one winner |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: |")
    for name in names:
        for cases in sizes:
            for nested in (False, True):
                m = measure(LINEUPS[name], cases, args.seeds, nested)
                kind = "nested" if nested else "independent"
                not_best = "—" if np.isnan(m["not_best"]) else f"{m['not_best']:.1%}"
                print(
                    f"| {name} | {cases} | {kind} | {m['calls']:.0%} | {not_best} | {m['not_full']:.1%} "
                    f"| {m['single']:.1%} |",
                    flush=True,
                )
    print(f"\n{args.seeds} seeds per line; {time.perf_counter() - began:.0f} s in all", flush=True)


if __name__ == "__main__":
    main()
