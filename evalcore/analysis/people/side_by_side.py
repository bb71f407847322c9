"""Several judges of one run against the same people: each judge's agreement and its score corrected by people.

A run rescored with a judge and its aligned version (``evalcore judge align``) has one judged metric per judge
(``judge_score``, or ``<id>_judge_score`` for each of several ``llm_judge`` scorers). Each is compared with the
people's ratings of single replies (:func:`~evalcore.analysis.people.human.judge_on_singles`: accuracy and kappa)
and corrected by them (:func:`~evalcore.analysis.people.human.corrected_scores`: plain PPI). The corrected score
stays unbiased whichever judge it starts from; a judge that agrees more with people leaves a smaller rectifier
variance, so its corrected interval is narrower: the same people's ratings buy more precision.

Pure functions: records in, numbers out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from evalcore.analysis.people.agreement import Agreement
from evalcore.analysis.people.human import JUDGE_SCORE, corrected_scores, judge_on_singles
from evalcore.analysis.people.ppi import CorrectedMean
from evalcore.core.records import Rating, Run


@dataclass
class JudgeBeside:
    """One judge of the run against people.

    Attributes:
        metric: its judged metric.
        agreement: against people on the single replies both scored (None: none).
        corrected: per contender, its metric's mean corrected by people.
    """

    metric: str
    agreement: Agreement | None
    corrected: dict[str, CorrectedMean] = field(default_factory=dict)


def judged_metrics(run: Run) -> list[str]:
    """Every judge's judged metric of the run, in the run's order."""
    return [m.name for m in run.metrics if m.name == JUDGE_SCORE or m.name.endswith("_" + JUDGE_SCORE)]


def judges_side_by_side(run: Run, ratings: Sequence[Rating]) -> list[JudgeBeside]:
    """Each judged metric of ``run`` against people's single ratings (the run needs its results)."""
    singles = [r for r in ratings if r.b is None]
    return [
        JudgeBeside(metric, judge_on_singles(run, singles, metric), corrected_scores(run, singles, metric))
        for metric in judged_metrics(run)
    ]


def side_by_side_rows(judges: Sequence[JudgeBeside]) -> list[dict[str, Any]]:
    """One row per judge and contender: the judge's agreement with people, its corrected score and interval."""
    rows = []
    for judge in judges:
        stats = judge.agreement.stats if judge.agreement is not None else {}
        accuracy, kappa = stats.get("accuracy"), stats.get("kappa")
        for contender, m in judge.corrected.items():
            rows.append(
                {
                    "judge": judge.metric,
                    "contender": contender,
                    "accuracy": accuracy.value if accuracy else float("nan"),
                    "kappa": kappa.value if kappa else float("nan"),
                    "corrected": m.value,
                    "low": m.low,
                    "high": m.high,
                    "width": m.high - m.low,
                    "rated": m.rated,
                }
            )
    return rows
