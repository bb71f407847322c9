"""Judge against human: Cohen's kappa, correlations and MAE checked by hand, and their intervals."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from evalcore.analysis.people.agreement import (
    _kappa,
    agreement,
    cohen_kappa,
    column_kind,
    compare_raters,
    mean_absolute_error,
    pearson,
    report_data,
    spearman,
    weighted_pearson,
    weighted_ranks,
)
from evalcore.analysis.people.labels import labels_frame


def wikipedia_example() -> tuple[list[str], list[str]]:
    """Wikipedia's "Cohen's kappa" worked example: 50 items; yes/yes 20, yes/no 5, no/yes 10, no/no 15."""
    a = ["yes"] * 25 + ["no"] * 25
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    return a, b


def test_kappa_of_the_textbook_example_is_0_4():
    a, b = wikipedia_example()
    # po = (20 + 15) / 50 = 0.70; pe = 0.5 * 0.6 + 0.5 * 0.4 = 0.50; kappa = (0.70 - 0.50) / (1 - 0.50)
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    found = compare_raters(a, b, "human", "judge")
    assert found.stats["accuracy"].value == pytest.approx(0.70)
    assert found.labels == ["no", "yes"]
    assert found.confusion == [[15, 10], [5, 20]]  # rows: human's label; columns: the judge's


def test_kappa_of_three_classes_by_hand():
    # Counts (rows a, columns b): A [5 1 0], B [1 6 1], C [0 2 4]; 20 items.
    pairs = {("A", "A"): 5, ("A", "B"): 1, ("B", "A"): 1, ("B", "B"): 6, ("B", "C"): 1, ("C", "B"): 2, ("C", "C"): 4}
    a = [x for (x, _), k in pairs.items() for _ in range(k)]
    b = [y for (_, y), k in pairs.items() for _ in range(k)]
    # po = 15/20 = 0.75; a's shares 6, 8, 6 and b's 6, 9, 5 of 20: pe = (36 + 72 + 30)/400 = 0.345.
    assert cohen_kappa(a, b) == pytest.approx((0.75 - 0.345) / (1 - 0.345))
    assert cohen_kappa(a, b) == pytest.approx(81 / 131)


def test_kappa_is_1_for_perfect_agreement_and_minus_1_for_perfect_disagreement_on_two_balanced_labels():
    assert cohen_kappa(["y", "n", "y", "n"], ["y", "n", "y", "n"]) == pytest.approx(1.0)
    assert cohen_kappa(["y", "n", "y", "n"], ["n", "y", "n", "y"]) == pytest.approx(-1.0)


def test_kappa_is_undefined_when_both_raters_give_one_and_the_same_label_throughout():
    assert math.isnan(cohen_kappa(["ok"] * 5, ["ok"] * 5))
    # One rater constant, the other not: chance agreement is below 1 and kappa is defined (here 0).
    assert cohen_kappa(["ok"] * 4, ["ok", "ok", "bad", "ok"]) == pytest.approx(0.0)


def test_kappa_leaves_out_rows_where_either_rater_is_missing():
    a, b = wikipedia_example()
    assert cohen_kappa([*a, None, "yes"], [*b, "no", None]) == pytest.approx(0.4)


def test_pearson_by_hand():
    # x mean 3, y mean 4: sxy = 6, sxx = 10, syy = 6.
    assert pearson([1, 2, 3, 4, 5], [2, 4, 5, 4, 5]) == pytest.approx(6 / math.sqrt(60))
    assert pearson([1, 2, 3], [10, 20, 30]) == pytest.approx(1.0)
    assert math.isnan(pearson([1, 2, 3], [4, 4, 4]))


def test_spearman_gives_tied_values_their_average_rank():
    # y = 2, 4, 5, 4, 5 ranks as 1, 2.5, 4.5, 2.5, 4.5; x's ranks are 1..5: r = 7 / sqrt(10 * 9).
    assert spearman([1, 2, 3, 4, 5], [2, 4, 5, 4, 5]) == pytest.approx(7 / math.sqrt(90))
    assert spearman([1, 2, 3, 4], [1, 8, 27, 64]) == pytest.approx(1.0)  # monotone, not linear
    assert spearman([1, 2, 3, 4], [9, 3, 2, 1]) == pytest.approx(-1.0)


def test_spearman_matches_pandas_average_ranks_on_random_data_with_ties():
    rng = np.random.default_rng(7)
    x, y = rng.integers(0, 4, 40).astype(float), rng.integers(0, 6, 40).astype(float)
    expected = pd.Series(x).rank(method="average").corr(pd.Series(y).rank(method="average"))
    assert spearman(x.tolist(), y.tolist()) == pytest.approx(expected)


def test_mean_absolute_error_by_hand():
    assert mean_absolute_error([1, 2, 3], [2, 2, 5]) == pytest.approx(1.0)


def test_a_resample_counts_a_row_drawn_twice_twice_in_every_statistic():
    rng = np.random.default_rng(3)
    x, y = rng.integers(0, 3, 25).astype(float), rng.integers(0, 5, 25).astype(float)
    drawn = rng.integers(0, 25, 25)
    w = np.bincount(drawn, minlength=25).astype(float)[None]
    xs, ys = pd.Series(x[drawn]), pd.Series(y[drawn])
    ranked = weighted_pearson(w, weighted_ranks(w, x), weighted_ranks(w, y))[0]
    assert ranked == pytest.approx(xs.rank().corr(ys.rank()))
    assert weighted_pearson(w, x, y)[0] == pytest.approx(xs.corr(ys))
    labels = x.astype(np.int64), (y > 1).astype(np.int64)
    assert _kappa(w, *labels, 3)[0] == pytest.approx(cohen_kappa(list(x[drawn]), list((y > 1)[drawn].astype(float))))


def test_numbers_get_correlations_and_mae_with_intervals_that_contain_them():
    rng = np.random.default_rng(0)
    human = rng.integers(1, 6, 80).astype(float)
    judge = np.clip(human + rng.integers(-1, 2, 80), 1, 5)
    found = compare_raters(human.tolist(), judge.tolist(), kind="numbers")
    assert set(found.stats) == {"accuracy", "pearson", "spearman", "mae"}
    assert found.stats["mae"].value == pytest.approx(np.mean(np.abs(human - judge)))
    assert found.stats["pearson"].value == pytest.approx(np.corrcoef(human, judge)[0, 1])
    for e in found.stats.values():
        assert e.lo <= e.value <= e.hi and e.lo < e.hi


def test_intervals_are_deterministic_with_the_seed():
    a, b = wikipedia_example()
    first, again, other = (compare_raters(a, b, seed=s).stats["kappa"] for s in (3, 3, 4))
    assert first == again
    assert (first.lo, first.hi) != (other.lo, other.hi)
    assert first.lo <= 0.4 <= first.hi


def test_intervals_widen_with_fewer_rows():
    a, b = wikipedia_example()
    few, many = compare_raters(a, b), compare_raters(a * 4, b * 4)  # the same agreement over 50 and 200 rows
    for name in ("accuracy", "kappa"):
        assert few.stats[name].value == pytest.approx(many.stats[name].value)
        assert few.stats[name].hi - few.stats[name].lo > many.stats[name].hi - many.stats[name].lo


def test_accuracy_has_an_exact_interval_that_keeps_its_coverage_at_100_percent():
    found = compare_raters(["a", "b"] * 15, ["a", "b"] * 15)
    assert found.stats["accuracy"].value == 1.0
    # Clopper–Pearson's 30 of 30 (R's binom.confint(30, 30, method = "exact"): 0.8842967).
    assert found.stats["accuracy"].lo == pytest.approx(0.8842967, abs=1e-6) and found.stats["accuracy"].hi == 1.0


def test_no_shared_row_gives_undefined_statistics():
    found = compare_raters(["a", None], [None, "b"])
    assert (found.n, found.missing) == (0, 2)
    assert all(math.isnan(e.value) for e in found.stats.values())


def test_a_column_is_numbers_only_when_every_value_is_a_number():
    assert column_kind([1.0, None, 3.0]) == "numbers"
    assert column_kind([1.0, "n/a", 3.0]) == "labels"


def frame_of(**columns: list) -> pd.DataFrame:
    n = len(next(iter(columns.values())))
    return labels_frame([str(i) for i in range(n)], columns)


def test_agreement_compares_each_judge_with_the_human_and_every_two_judges():
    a, b = wikipedia_example()
    swapped = b[:10] + [("no" if v == "yes" else "yes") for v in b[10:15]] + b[15:]
    frame = frame_of(human=list(a), judge=list(b), judge_swapped=swapped, judge_score=[float(i % 5) for i in range(50)])
    report = agreement(frame, ["judge", "judge_swapped", "judge_score"])
    assert [(j.a, j.b, j.kind) for j in report.judges] == [
        ("human", "judge", "labels"),
        ("human", "judge_swapped", "labels"),
        ("human", "judge_score", "labels"),  # the human gave labels: compared as labels
    ]
    assert report.judges[0].stats["kappa"].value == pytest.approx(0.4)
    consistency = report.pairs[0]
    assert (consistency.a, consistency.b) == ("judge", "judge_swapped")
    assert consistency.stats["accuracy"].value == pytest.approx(45 / 50)  # the order flipped 5 verdicts
    assert [(p.a, p.b) for p in report.pairs[1:]] == [("judge", "judge_score"), ("judge_swapped", "judge_score")]


def test_numbers_compare_as_numbers_unless_labels_are_forced():
    frame = frame_of(human=[1.0, 2.0, 3.0, 4.0, 5.0, None], judge=[2.0, 2.0, 3.0, 5.0, 5.0, 1.0])
    numbers = agreement(frame, ["judge"]).judges[0]
    assert numbers.kind == "numbers" and (numbers.n, numbers.missing) == (5, 1)
    assert numbers.stats["mae"].value == pytest.approx(0.4)
    assert numbers.stats["accuracy"].value == pytest.approx(0.6)
    forced = agreement(frame, ["judge"], labels=True).judges[0]
    assert forced.kind == "labels" and forced.labels == ["1", "2", "3", "4", "5"]  # 4.0 reads as the label "4"
    assert "kappa" in forced.stats and "pearson" not in forced.stats


def test_report_data_is_json_ready_with_null_for_undefined():
    frame = frame_of(human=["ok"] * 3, judge=["ok"] * 3)
    data = report_data(agreement(frame, ["judge"], B=50))
    (judge,) = data["judges"]
    assert judge["judge"] == "judge" and judge["kappa"] == {"value": None, "lo": None, "hi": None}
    assert judge["accuracy"]["value"] == 1.0 and judge["confusion"] == [[3]]
    assert data["resamples"] == 50 and data["pairs"] == []
