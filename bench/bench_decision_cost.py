"""Issue 44: what a decision costs. 8 contenders x 1,000 cases, the fake lineups of ``bench_adaptive.py``.

For each lineup (independent or nested errors) and seed, three ways to pick the best contender, with their
calls as a share of the full run's (every call costs the same here, so calls are cost):

- **full**: every contender on every case; the winner is the highest score;
- **adaptive**: ``evalcore run --adaptive`` over all 1,000 cases (:func:`evalcore.analysis.stats.racing.replay_race`);
- **planned**: a pilot of :data:`PILOT` cases per contender (``evalcore run --limit``), the planner's size
  for the difference asked about (``evalcore plan --detect``, :func:`evalcore.analysis.stats.power.cases_needed`,
  from the pilot's spread), then the adaptive race over that many cases (the pilot's among them, in a random
  order); its cost counts the pilot and the race. When the race runs out of cases, its leader is the winner.
- **planned, pilot reused**: the same, with the race's calls on the pilot's cases answered from the pilot (as
  a reply cache would answer them): the pilot and the race's calls on the other cases.
- **(c) adaptive in batch rounds**: ``evalcore run --adaptive --batch``: the adaptive race, each round one batch per
  contender still in, at the batch price (:data:`evalcore.models.batches.BATCH_SHARE` of the interactive one, the
  price with no batch price listed); its rounds, each one batch turnaround of wall time. The planned race with the
  pilot reused is also given at the batch price.
- **(d) (c) after one changed case, with the cache**: one case (a random position of the race's order) is
  changed and (c) runs again with ``--cache``: only the changed case and the calls the first race did not make
  are paid (the race may go further or stop sooner with the new scores).

``≠ true best`` is how often the winner is not the contender with the highest accuracy.

Run: ``python bench/bench_decision_cost.py [--seeds 200] [--detect 0.10]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_adaptive import LINEUPS, scores  # noqa: E402

from evalcore.analysis.stats.power import PILOT_CASES, cases_needed, spread_of  # noqa: E402
from evalcore.analysis.stats.racing import replay_race  # noqa: E402
from evalcore.execution.race_settings import default_round  # noqa: E402
from evalcore.models.batches import BATCH_SHARE  # noqa: E402

CASES = 1000
PILOT = PILOT_CASES
#: The 8-contender lineups with a true best.
NAMES = ["clear winner, 8 (0.90 vs seven at 0.80)", "clear winner, 8 (0.90 vs 0.80..0.60)"]
TARGET = 0.10


def measure(accuracies: list[float], seeds: int, nested: bool, detect: float) -> dict[str, float]:
    """Each way's mean share of the full run's calls, and how often its winner is not the true best."""
    rng = np.random.default_rng(44)
    edits = np.random.default_rng(4444)  # its own stream: the other columns draw what they drew without it
    best = int(np.argmax(accuracies))
    full_calls = len(accuracies) * CASES
    names = ("adaptive", "planned", "reused", "n", "full_miss", "ad_miss", "pl_miss", "rounds", "changed", "ch_miss")
    figures: dict[str, list[float]] = {k: [] for k in names}
    for _ in range(seeds):
        matrix = scores(accuracies, CASES, rng, nested)
        race = replay_race(matrix, default_round(CASES))
        pilot = matrix[:, :PILOT]
        spread = spread_of(pilot.T)
        n = CASES if spread is None else max(min(cases_needed(detect, spread), CASES), PILOT)
        order = rng.permutation(n)  # the race's order of the n cases; the pilot's are the first PILOT columns
        planned = replay_race(matrix[:, order], default_round(n))
        fresh = np.cumsum(order >= PILOT)  # cases outside the pilot among the first k the race called
        again = sum(int(fresh[a - 1]) if a else 0 for a in planned.answered)
        figures["adaptive"].append(race.calls / full_calls)
        figures["planned"].append((planned.calls + pilot.size) / full_calls)
        figures["reused"].append((again + pilot.size) / full_calls)
        figures["n"].append(n)
        figures["full_miss"].append(float(np.argmax(matrix.mean(axis=1)) != best))
        figures["ad_miss"].append(float(race.survivors[0] != best))
        figures["pl_miss"].append(float(planned.survivors[0] != best))
        figures["rounds"].append(np.ceil(max(race.answered) / default_round(CASES)))
        paid, again = changed_case(matrix, race.answered, accuracies, edits, nested)
        figures["changed"].append(paid / full_calls)
        figures["ch_miss"].append(float(again.survivors[0] != best))
    return {k: float(np.mean(v)) for k, v in figures.items()}


def changed_case(
    matrix: np.ndarray, answered: list[int], accuracies: list[float], rng: np.random.Generator, nested: bool
) -> tuple[int, object]:
    """The calls the race pays on a second run after one case changed, with every earlier reply cached: the
    changed case where a contender answers it, and what each contender answers beyond the first race."""
    changed, at = matrix.copy(), int(rng.integers(CASES))
    changed[:, at] = scores(accuracies, 1, rng, nested)[:, 0]
    again = replay_race(changed, default_round(CASES))
    paid = sum(max(0, new - old) + (at < min(new, old)) for new, old in zip(again.answered, answered, strict=True))
    return paid, again


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--detect", type=float, default=TARGET, help="the difference the planner is asked about")
    args = parser.parse_args()
    began = time.perf_counter()
    print(
        "| lineup | errors | full: ≠ best | adaptive: cost, ≠ best | planned N (mean) | "
        "pilot + adaptive on N: cost, ≠ best | pilot reused: cost | (c) batch rounds: cost, rounds | "
        "reused in batches: cost | (d) changed case, cached: cost, ≠ best |"
    )
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in NAMES:
        for nested in (False, True):
            m = measure(LINEUPS[name], args.seeds, nested, args.detect)
            kind = "nested" if nested else "independent"
            print(
                f"| {name} | {kind} | {m['full_miss']:.1%} | {m['adaptive']:.1%}, {m['ad_miss']:.1%} | "
                f"{m['n']:.0f} | {m['planned']:.1%}, {m['pl_miss']:.1%} | {m['reused']:.1%} | "
                f"{BATCH_SHARE * m['adaptive']:.1%}, {m['rounds']:.1f} | {BATCH_SHARE * m['reused']:.1%} | "
                f"{BATCH_SHARE * m['changed']:.2%}, {m['ch_miss']:.1%} |",
                flush=True,
            )
    print(
        f"\nfull run = 100% ({len(LINEUPS[NAMES[0]]) * CASES:,} calls); pilot {PILOT} cases; detect "
        f"{100 * args.detect:g} pts; {args.seeds} seeds per line; {time.perf_counter() - began:.0f} s in all",
        flush=True,
    )


if __name__ == "__main__":
    main()
