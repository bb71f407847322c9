"""A judge aligned to people: few-shot examples chosen where it disagreed with them, measured on held-out ratings.

The items are replies people rated and the judge judged, each with the people's label and the judge's (both
labels: ``pass``/``fail``, or a pair's winner). The alignment is measured by **K-fold cross-validation**
(:func:`assign_folds`): the items are shuffled with ``np.random.default_rng(seed)`` and dealt into ``F`` folds;
for each fold, the few-shot examples are chosen only from the items of the other folds
(:func:`pick_examples`: those where the judge disagreed with people), and the aligned judge is asked about the
items of that fold alone. Every item is thus judged after alignment exactly once, by a prompt that never
showed it, and the before/after comparison (:func:`alignment_report`) is over the same held-out items.

**The rule for "better by more than the noise"**: the paired bootstrap (Efron & Tibshirani, *An Introduction to
the Bootstrap*, 1993, ch. 16; for judges of text, Koehn, "Statistical significance tests for machine
translation evaluation", EMNLP 2004) of the per-item agreement difference ``agrees_after − agrees_before``
(each 1 when the judge's label is the people's, else 0): B resamples of the items with replacement, the mean
difference of each, and its 95% percentile interval. The aligned judge is better only when that interval lies
above 0 (its lower end > 0); an interval that touches or crosses 0 keeps the judge as it was.

Pure functions: labels in, numbers out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from evalcore.analysis.people.agreement import Estimate, compare_raters
from evalcore.analysis.stats.intervals import LEVEL, percentile_interval

#: Bootstrap resamples of the per-item difference.
RESAMPLES = 2000


def assign_folds(n: int, folds: int, seed: int = 0) -> np.ndarray:
    """Each of ``n`` items' fold (0 .. folds-1): a seeded shuffle dealt round-robin, so fold sizes differ by one.

    Raises:
        ValueError: fewer than 2 folds, or more folds than items.
    """
    if folds < 2:
        raise ValueError(f"--folds {folds}: cross-validation needs at least 2 folds")
    if folds > n:
        raise ValueError(f"--folds {folds}: only {n} rated items to split; use at most {n} folds")
    order = np.random.default_rng(seed).permutation(n)
    out = np.empty(n, dtype=np.int64)
    out[order] = np.arange(n) % folds
    return out


def pick_examples(
    human: Sequence[str], judge: Sequence[str], candidates: Sequence[int], shots: int, seed: int = 0
) -> list[int]:
    """Up to ``shots`` items among ``candidates`` where the judge disagreed with people, to show as examples.

    The disagreements are shuffled (seeded) and taken in turn from each people's label (``fail`` then ``pass``
    then …, labels in sorted order), so the examples cover every kind of mistake before repeating one.
    """
    rng = np.random.default_rng(seed)
    wrong = [i for i in candidates if human[i] != judge[i]]
    by_label: dict[str, list[int]] = {}
    for i in (wrong[j] for j in rng.permutation(len(wrong))):
        by_label.setdefault(human[i], []).append(i)
    queues = [by_label[label] for label in sorted(by_label)]
    chosen: list[int] = []
    while len(chosen) < shots and any(queues):
        for queue in queues:
            if queue and len(chosen) < shots:
                chosen.append(queue.pop(0))
    return chosen


@dataclass(frozen=True)
class JudgeAgreement:
    """A judge's agreement with people over the held-out items: accuracy and Cohen's kappa, 95% intervals."""

    accuracy: Estimate
    kappa: Estimate


@dataclass
class AlignmentReport:
    """Before and after, on the same held-out items.

    Attributes:
        items: held-out items compared (each judged after alignment once, by a prompt that never showed it).
        folds: the cross-validation's F.
        shots: examples asked for per fold.
        examples: per fold, the items shown as examples (indices into the items).
        before: the judge as it was.
        after: the aligned judge.
        difference: the mean per-item agreement difference (after − before) and its paired bootstrap interval.
        better: the interval's lower end is above 0 (the module docstring's rule).
        resamples, seed: the bootstrap's.
    """

    items: int
    folds: int
    shots: int
    examples: list[list[int]]
    before: JudgeAgreement
    after: JudgeAgreement
    difference: Estimate
    better: bool
    resamples: int
    seed: int
    level: float = LEVEL
    notes: list[str] = field(default_factory=list)

    def to_data(self) -> dict[str, object]:
        """The report as plain JSON values; NaN as None."""

        def est(e: Estimate) -> dict[str, float | None]:
            return {k: (None if np.isnan(v) else float(v)) for k, v in (("value", e.value), ("lo", e.lo), ("hi", e.hi))}

        return {
            "items": self.items,
            "folds": self.folds,
            "shots": self.shots,
            "examples_per_fold": [len(e) for e in self.examples],
            "before": {"accuracy": est(self.before.accuracy), "kappa": est(self.before.kappa)},
            "after": {"accuracy": est(self.after.accuracy), "kappa": est(self.after.kappa)},
            "difference": est(self.difference),
            "better": self.better,
            "rule": "paired bootstrap 95% interval of mean(agrees_after - agrees_before) lies above 0",
            "resamples": self.resamples,
            "seed": self.seed,
            "level": self.level,
            "notes": self.notes,
        }


def agreement_rows(report: AlignmentReport) -> list[dict[str, object]]:
    """The judge before and after as rows (accuracy and kappa with their 95% interval), for a table."""
    return [
        {
            "judge": name,
            "accuracy": a.accuracy.value,
            "accuracy low": a.accuracy.lo,
            "accuracy high": a.accuracy.hi,
            "kappa": a.kappa.value,
            "kappa low": a.kappa.lo,
            "kappa high": a.kappa.hi,
        }
        for name, a in (("before", report.before), ("aligned", report.after))
    ]


def judge_agreement(human: Sequence[str], judge: Sequence[str], resamples: int = 1000, seed: int = 0) -> JudgeAgreement:
    """Accuracy and Cohen's kappa of ``judge`` against ``human`` (labels), with their 95% intervals."""
    stats = compare_raters(list(human), list(judge), "human", "judge", "labels", B=resamples, seed=seed).stats
    return JudgeAgreement(stats["accuracy"], stats["kappa"])


def paired_difference(
    before_ok: Sequence[bool], after_ok: Sequence[bool], resamples: int = RESAMPLES, seed: int = 0
) -> Estimate:
    """The mean of ``after_ok − before_ok`` over the items and its paired bootstrap 95% percentile interval."""
    diff = np.asarray(after_ok, dtype=float) - np.asarray(before_ok, dtype=float)
    if not len(diff):
        return Estimate(np.nan, np.nan, np.nan)
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(0, len(diff), size=(resamples, len(diff)))].mean(axis=1)
    lo, hi = percentile_interval(means)
    return Estimate(float(diff.mean()), float(lo), float(hi))


def alignment_report(
    human: Sequence[str],
    before: Sequence[str],
    after: Sequence[str],
    *,
    folds: int,
    shots: int,
    examples: list[list[int]],
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> AlignmentReport:
    """Compare the judge before and after alignment with people, item by item over the same held-out items.

    Args:
        human: the people's label of each item.
        before: the judge's label of each item as it was.
        after: the aligned judge's label of each item, each from the fold that held it out.
        folds, shots, examples: how the examples were chosen (for the report).
        resamples, seed: the paired bootstrap's.

    Raises:
        ValueError: the three sequences differ in length.
    """
    if not len(human) == len(before) == len(after):
        raise ValueError(f"{len(human)} people's labels, {len(before)} before, {len(after)} after: one per item")
    before_ok = [h == b for h, b in zip(human, before, strict=True)]
    after_ok = [h == a for h, a in zip(human, after, strict=True)]
    difference = paired_difference(before_ok, after_ok, resamples, seed)
    return AlignmentReport(
        items=len(human),
        folds=folds,
        shots=shots,
        examples=examples,
        before=judge_agreement(human, before, seed=seed),
        after=judge_agreement(human, after, seed=seed),
        difference=difference,
        better=bool(difference.lo > 0),
        resamples=resamples,
        seed=seed,
    )
