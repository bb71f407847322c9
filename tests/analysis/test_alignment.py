"""Choosing a judge's examples by cross-validation, and the rule that says whether the aligned judge is better."""

from __future__ import annotations

import numpy as np
import pytest

from evalcore.analysis.people.alignment import alignment_report, assign_folds, paired_difference, pick_examples


def test_every_item_falls_in_one_fold_and_folds_differ_in_size_by_at_most_one():
    fold = assign_folds(23, 5, seed=3)
    sizes = np.bincount(fold, minlength=5)
    assert sizes.sum() == 23
    assert sizes.max() - sizes.min() <= 1


def test_folds_are_a_seeded_shuffle():
    assert assign_folds(20, 4, seed=1).tolist() == assign_folds(20, 4, seed=1).tolist()
    assert assign_folds(20, 4, seed=1).tolist() != assign_folds(20, 4, seed=2).tolist()


@pytest.mark.parametrize(("n", "folds"), [(10, 1), (3, 4)])
def test_folds_that_cannot_split_the_items_are_refused(n, folds):
    with pytest.raises(ValueError, match=f"--folds {folds}"):
        assign_folds(n, folds)


def test_examples_are_only_disagreements_among_the_candidates():
    human = ["pass", "fail", "fail", "pass", "fail", "pass"]
    judge = ["pass", "pass", "pass", "fail", "fail", "fail"]
    chosen = pick_examples(human, judge, candidates=[0, 1, 2, 3, 4], shots=10)
    assert sorted(chosen) == [1, 2, 3]  # 5 disagrees too, but it is held out


def test_examples_take_each_kind_of_mistake_in_turn():
    human = ["fail"] * 6 + ["pass"] * 2
    judge = ["pass"] * 6 + ["fail"] * 2
    chosen = pick_examples(human, judge, candidates=range(8), shots=3, seed=0)
    assert [human[i] for i in chosen] == ["fail", "pass", "fail"]


def test_a_judge_that_agrees_everywhere_gives_no_example():
    assert pick_examples(["pass", "fail"], ["pass", "fail"], [0, 1], shots=4) == []


def test_a_clear_gain_has_a_paired_interval_above_zero():
    before = [False] * 10 + [True] * 10
    after = [True] * 20
    d = paired_difference(before, after, seed=0)
    assert d.value == 0.5
    assert d.lo > 0


def test_the_same_verdicts_before_and_after_are_not_better():
    ok = [True, False] * 10
    d = paired_difference(ok, ok)
    assert (d.value, d.lo, d.hi) == (0.0, 0.0, 0.0)


def test_a_gain_within_the_noise_is_not_better():
    human = ["pass"] * 20
    before = ["pass"] * 10 + ["fail"] * 10
    after = ["fail"] + ["pass"] * 9 + ["pass"] * 2 + ["fail"] * 8  # one broken, two fixed: one better of 20
    report = alignment_report(human, before, after, folds=2, shots=1, examples=[[], []])
    assert report.difference.value == pytest.approx(0.05)
    assert report.difference.lo <= 0
    assert not report.better


def test_the_report_compares_accuracy_and_kappa_before_and_after():
    human = ["pass", "fail"] * 10
    before = ["pass"] * 20
    report = alignment_report(human, before, list(human), folds=5, shots=2, examples=[[0]] * 5)
    assert (report.before.accuracy.value, report.before.kappa.value) == (0.5, 0.0)
    assert (report.after.accuracy.value, report.after.kappa.value) == (1.0, 1.0)
    assert report.better
    assert report.to_data()["rule"].startswith("paired bootstrap 95% interval")
