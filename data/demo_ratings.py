"""Give the bundled support run its demo ratings: ``python data/demo_ratings.py data/runs/support-demo.json``.

The ratings are made up, so that the Leaderboard's People panel and ``evalcore ratings`` can be seen on a fresh
install: three demo raters (``demo/rater-1`` …, never a person's name) rate what the Rate page would have shown
them, from their own queues. A demo rater reads a reply as the judges scored it, one point stricter on a
dimension now and then (a made-up judge bias for the corrected score to find). Everything is seeded by the run
and the rater, so the same run file always gets the same ratings; the file's earlier demo ratings are replaced
and any other rating is kept.
"""

from __future__ import annotations

import random
import sys
from datetime import datetime, timedelta
from pathlib import Path

from evalcore.analysis.people.human import SCALE, is_demo_rater
from evalcore.core.records import DEMO_RATER, Rating, Result, Run
from evalcore.explorer import rating
from evalcore.runfile.read import read_run_file
from evalcore.runfile.write import write_run_file

#: Pairs each of the first two raters rates (the same items, so their agreement can be measured).
PAIRS = 12
#: Single replies the third rater rates (a share of every contender's); the first rater rates the first few too.
SINGLES = 16
SHARED_SINGLES = 6


def demo_ratings(run: Run) -> list[Rating]:
    """The made-up ratings of a judged run with two or more contenders, the same for the same run."""
    replies = {(r.dataset, r.case, r.sample, r.contender): r for r in run.results}
    dimensions = rating.judge_dimensions(run)
    order = [c.id for c in run.contenders]
    one, two, three = (f"{DEMO_RATER}rater-{i}" for i in (1, 2, 3))
    made: list[Rating] = []
    for item in rating.rating_queue(run, one, "pairwise", size=PAIRS):
        for rater in (one, two):
            values = [_value(_scores(replies[(*_where(item), c)], dimensions, rater)) for c in item.shown]
            made.append(rating.pair_rating(item, _side(*values), rater, order))
    for i, item in enumerate(rating.rating_queue(run, three, "single", size=SINGLES)):
        for rater in (three, one) if i < SHARED_SINGLES else (three,):
            scores = _scores(replies[(*_where(item), item.shown[0])], dimensions, rater)
            made.append(rating.single_rating(item, rater, "", scores))
    start = datetime.fromisoformat(run.info.finished_at or run.info.created_at)
    return [_at(r, start + timedelta(minutes=5, seconds=20 * i)) for i, r in enumerate(made)]


def _where(item: rating.QueueItem) -> tuple[str, str, int]:
    return item.dataset, item.case, item.sample


def _scores(reply: Result, dimensions: list[str], rater: str) -> dict[str, float]:
    """A demo rater's 1..5 on each dimension: the judges' score, one point lower one time in four."""
    rng = random.Random(f"{rater}\n{reply.dataset}\n{reply.case}\n{reply.sample}\n{reply.contender}")
    low, high = SCALE
    scores = {}
    for d in dimensions:
        judged = round(low + (high - low) * float(reply.metrics.get(d, 0.0)))
        scores[d] = float(max(low, judged - (rng.random() < 0.25)))
    return scores


def _value(scores: dict[str, float]) -> float:
    return sum(scores.values()) / len(scores)


def _side(shown_a: float, shown_b: float) -> str:
    if max(shown_a, shown_b) < 3:
        return "both_bad"
    if abs(shown_a - shown_b) < 0.5:
        return "tie"
    return "A" if shown_a > shown_b else "B"


def _at(r: Rating, when: datetime) -> Rating:
    r.created_at = when.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return r


def main(path: str) -> int:
    """Replace the run file's demo ratings with :func:`demo_ratings`, keeping every other rating."""
    run = read_run_file(path)
    run.ratings = [r for r in run.ratings if not is_demo_rater(r.rater)] + demo_ratings(run)
    write_run_file(run, Path(path))
    print(f"{path}: {len(run.ratings)} ratings")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python data/demo_ratings.py RUN_FILE")
    sys.exit(main(sys.argv[1]))
