"""A case's samples side by side: what each of a contender's tries at one case answered and scored, and which
disagree; and which cases' samples disagree at all (the Cases page's "Samples disagree" filter).

A case's samples disagree when their outcomes differ: two scores that are not the same, or a failed call beside a
scored one. A case with one sample never disagrees. The outcome most samples share is the case's usual one; a
sample with another outcome is marked as disagreeing.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable

import numpy as np
import pandas as pd

from evalcore.core.records import Result, Run

#: Scores closer than this are the same outcome.
SAME = 1e-9
#: The outcome of a failed call.
FAILED = "error"


def outcome(status: str, score: float | None) -> str:
    """A result's outcome as a key: :data:`FAILED`, ``unscored``, or its score rounded past :data:`SAME`."""
    if status == "error":
        return FAILED
    if score is None or score != score:
        return "unscored"
    return f"{round(float(score), 9):g}"


def disagreeing_cases(results: Iterable[Result]) -> set[tuple[str, str, str]]:
    """The (contender, dataset, case) whose samples disagree."""
    seen: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    for r in results:
        seen[(r.contender, r.dataset, r.case)].add(outcome(r.status, r.score))
    return {key for key, outcomes in seen.items() if len(outcomes) > 1}


def disagreeing_rows(frame: pd.DataFrame) -> np.ndarray:
    """For each result of a results frame, whether its case's samples (of its contender) disagree."""
    if not len(frame):
        return np.zeros(0, dtype=bool)
    scores = frame["score"].to_numpy(float)
    failed = (frame["status"] == "error").to_numpy(bool)
    # -1 for a failed call, -2 for a result with no score: outcomes no score in [0, 1] can be.
    keys = np.where(failed, -1.0, np.where(np.isnan(scores), -2.0, np.round(scores, 9)))
    groups = frame.groupby(["contender", "dataset", "case"], observed=True, sort=False).ngroup().to_numpy()
    spread = pd.Series(keys).groupby(groups).agg(lambda v: v.max() - v.min()).to_numpy()
    return spread[groups] > SAME


def case_samples(run: Run, contender: str, dataset: str, case: str) -> pd.DataFrame:
    """A contender's samples of one case side by side, in sample order.

    Columns: ``sample``, ``status``, ``score`` (0–100, NaN unscored), ``agrees`` (whether its outcome is the one
    most samples share; every sample agrees when all do), ``output`` (its answer as text), ``error``.
    """
    mine = sorted(
        (r for r in run.results if (r.contender, r.dataset, r.case) == (contender, dataset, case)),
        key=lambda r: r.sample,
    )
    outcomes = [outcome(r.status, r.score) for r in mine]
    usual = Counter(outcomes).most_common(1)[0][0] if outcomes else None
    return pd.DataFrame(
        {
            "sample": [r.sample for r in mine],
            "status": [r.status for r in mine],
            "score": [np.nan if r.score is None else 100.0 * r.score for r in mine],
            "agrees": [o == usual for o in outcomes],
            "output": [_text(r.output if r.output is not None else r.raw) for r in mine],
            "error": [f"{r.error.kind}: {r.error.message}" if r.error else "" for r in mine],
        },
        columns=["sample", "status", "score", "agrees", "output", "error"],
    )


def _text(value: object) -> str:
    """An answer as text: a string as it is, nothing as empty, anything else as compact JSON."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
