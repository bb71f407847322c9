import math

import numpy as np
import pytest

from evalcore.analysis.scores.classification import (
    NO_LABEL,
    accuracy,
    confusion_matrix,
    label_rows,
    label_tables,
    macro_f1,
    per_label,
    resampled_macro_f1,
    result_labels,
)
from evalcore.analysis.stats.intervals import percentile_interval
from evalcore.analysis.stats.resampling import resample_counts
from evalcore.core.records import Metric, Result, Run, RunInfo

# By hand: c is expected once and never predicted; d is predicted once and never expected.
WANT = ["a", "a", "a", "b", "b", "c"]
GOT = ["a", "a", "b", "b", "d", "a"]


def test_per_label_precision_recall_f1_and_support_match_the_hand_count():
    table = per_label(WANT, GOT).set_index("label")
    assert list(table.index) == ["a", "b", "c", "d"]
    assert table.loc["a", ["precision", "recall", "f1"]].tolist() == pytest.approx([2 / 3, 2 / 3, 2 / 3])
    assert table.loc["b", ["precision", "recall", "f1"]].tolist() == pytest.approx([0.5, 0.5, 0.5])
    assert math.isnan(table.loc["c", "precision"]) and table.loc["c", "recall"] == 0 and table.loc["c", "f1"] == 0
    assert table.loc["d", "precision"] == 0 and math.isnan(table.loc["d", "recall"]) and table.loc["d", "f1"] == 0
    assert table["support"].tolist() == [3, 2, 1, 0]
    assert table["predicted"].tolist() == [3, 2, 0, 1]


def test_macro_f1_averages_every_label_that_occurs_and_accuracy_is_the_share_right():
    assert macro_f1(WANT, GOT) == pytest.approx((2 / 3 + 0.5 + 0 + 0) / 4)
    assert accuracy(WANT, GOT) == 0.5


def test_declared_labels_come_first_and_are_listed_even_when_absent():
    table = per_label(["b"], ["b"], labels=["z", "b"])
    assert table["label"].tolist() == ["z", "b"]
    assert math.isnan(table.loc[0, "f1"]) and table.loc[1, "f1"] == 1


def test_confusion_matrix_rows_expected_columns_predicted_with_no_label_last():
    matrix = confusion_matrix([*WANT, "a"], [*GOT, None])
    assert list(matrix.columns) == ["a", "b", "c", "d", NO_LABEL]
    assert matrix.loc["a"].tolist() == [2, 1, 0, 0, 1]
    assert matrix.loc["b"].tolist() == [0, 1, 0, 1, 0]
    assert matrix.loc["c"].tolist() == [1, 0, 0, 0, 0]
    assert matrix.loc["d"].tolist() == [0, 0, 0, 0, 0]


def test_resampled_macro_f1_recomputes_each_resample():
    cases = np.arange(6)
    counts = np.array([np.ones(6), [2, 0, 1, 1, 0, 2]])
    drawn = resampled_macro_f1(cases, WANT, GOT, counts)
    assert drawn[0] == pytest.approx(macro_f1(WANT, GOT))
    # The second resample by hand: a,a / a,b / b,b / c,a,c,a (case 0 twice, case 5 twice, cases 1 and 4 out).
    assert drawn[1] == pytest.approx(macro_f1(["a", "a", "a", "b", "c", "c"], ["a", "a", "b", "b", "a", "a"]))


def test_resampled_macro_f1_interval_is_deterministic_with_a_seed_and_contains_the_estimate():
    rng_a, rng_b = np.random.default_rng(7), np.random.default_rng(7)
    want, got = WANT * 10, GOT * 10
    cases = np.arange(len(want))
    first = resampled_macro_f1(cases, want, got, resample_counts(np.zeros(len(want)), 500, rng_a))
    again = resampled_macro_f1(cases, want, got, resample_counts(np.zeros(len(want)), 500, rng_b))
    assert np.array_equal(first, again)
    low, high = percentile_interval(first[:, None])
    assert low[0] <= macro_f1(want, got) <= high[0]
    assert low[0] < high[0]


def test_result_labels_read_the_scorer_diagnostics_nested_or_not():
    results = [
        Result("m", "d", "1", 0, "scored", 1.0, {"correct": 1.0}, diagnostics={"want": "a", "got": "a"}),
        Result("m", "d", "2", 0, "scored", 0.0, {"correct": 0.0}, diagnostics={"cls": {"want": "b", "got": None}}),
        Result("m", "d", "3", 0, "error", None),
    ]
    run = Run(RunInfo("r", "s", "2026-01-01T00:00:00Z"), [Metric("correct", "", True, True)], [], [], results)
    labels = result_labels(run)
    assert labels[["case", "want", "got"]].values.tolist() == [["1", "a", "a"], ["2", "b", None]]


def labelled_run() -> Run:
    from evalcore.core.records import Case, Contender

    pairs = {"m1": list(zip(WANT, GOT, strict=True)), "m2": [(w, w) for w in WANT]}
    results = [
        Result(
            c,
            "d" if i < 4 else "e",
            str(i),
            0,
            "scored",
            float(w == g),
            {"correct": float(w == g)},
            diagnostics={"want": w, "got": g},
        )
        for c, rows in pairs.items()
        for i, (w, g) in enumerate(rows)
    ]
    cases = [Case("d" if i < 4 else "e", str(i), "v", "text", None) for i in range(len(WANT))]
    contenders = [Contender("m1", "m1"), Contender("m2", "m2")]
    from evalcore.core.aggregates import CORRECT_DESCRIPTION
    from tests.factories import make_info

    info = make_info("r", "s", "completed", 1, cases)
    info.weights = {}
    return Run(info, [Metric("correct", CORRECT_DESCRIPTION, True, True)], contenders, cases, results)


def test_label_tables_give_each_contender_its_per_label_rows_accuracy_and_macro_f1():
    first, second = label_tables(labelled_run())
    assert (first.contender, first.results) == ("m1", 6)
    assert first.accuracy == pytest.approx(accuracy(WANT, GOT)) and first.macro_f1 == pytest.approx(macro_f1(WANT, GOT))
    assert first.rows.equals(per_label(WANT, GOT))
    assert (second.contender, second.accuracy, second.macro_f1) == ("m2", 1.0, 1.0)


def test_label_tables_count_only_the_filtered_results():
    from evalcore.analysis.scores.results import Filters

    (only,) = label_tables(labelled_run(), Filters(datasets=["d"], contenders=["m1"]))
    assert only.results == 4 and only.rows.equals(per_label(WANT[:4], GOT[:4]))


def test_label_rows_are_text_with_a_dash_where_undefined():
    header, rows = label_rows(per_label(WANT, GOT))
    assert header == ["label", "precision", "recall", "F1", "support", "predicted"]
    assert rows[2] == ["c", "–", "0.000", "0.000", "1", "0"]
