"""Pairwise differences between contenders: paired intervals and sign-flip p-values."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from evalcore.analysis.significance import pairwise
from evalcore.core.errors import EvalcoreError
from tests.analysis.rows import NAN, frame, result


def test_pairwise_covers_every_ordered_pair_with_mirrored_differences():
    out = pairwise(frame({"a": [1, 1, 1, 0], "b": [0, 0, 0, 0], "c": [1, 0, 1, 0]}), B=500)
    assert list(zip(out["a"], out["b"], strict=True)) == [
        ("a", "b"),
        ("a", "c"),
        ("b", "a"),
        ("b", "c"),
        ("c", "a"),
        ("c", "b"),
    ]
    ab, ba = out.iloc[0], out.iloc[2]
    assert (ab["n"], ab["mean_diff"], ba["mean_diff"]) == (4, 0.75, -0.75)
    assert (ba["lo"], ba["hi"], ba["p_value"]) == (-ab["hi"], -ab["lo"], ab["p_value"])


def test_pairwise_sign_flip_p_value_matches_the_exact_distribution():
    # d = (1, 1, 1, 0): |mean| reaches 0.75 only when the three ones share a sign: p = 2/8.
    out = pairwise(frame({"a": [1, 1, 1, 0], "b": [0, 0, 0, 0]}), B=4000)
    assert out.iloc[0]["p_value"] == pytest.approx(0.25, abs=0.03) and not out.iloc[0]["significant"]


def test_pairwise_a_consistent_difference_is_significant():
    out = pairwise(frame({"a": [0.9] * 30, "b": [0.4] * 30}), B=1000)
    assert out.iloc[0]["p_value"] == pytest.approx(1 / 1001) and out.iloc[0]["significant"]
    assert (out.iloc[0]["lo"], out.iloc[0]["hi"]) == (pytest.approx(0.5), pytest.approx(0.5))


def test_pairwise_identical_contenders_differ_by_nothing():
    out = pairwise(frame({"a": [0.2, 0.9, 0.4], "b": [0.2, 0.9, 0.4]}), B=200)
    assert (out.iloc[0]["mean_diff"], out.iloc[0]["p_value"], out.iloc[0]["significant"]) == (0.0, 1.0, False)


def test_pairwise_uses_only_cases_both_scored():
    out = pairwise(frame({"a": [1.0, NAN, 1.0], "b": [0.0, 0.0, NAN]}), B=100)
    assert (out.iloc[0]["n"], out.iloc[0]["mean_diff"]) == (1, 1.0)


def test_pairwise_without_shared_cases_has_no_statistics():
    out = pairwise(frame({"a": [1.0, NAN], "b": [NAN, 0.0]}), B=100)
    assert out.iloc[0]["n"] == 0 and math.isnan(out.iloc[0]["p_value"]) and not out.iloc[0]["significant"]


def test_pairwise_compares_any_metric_over_averaged_samples():
    df = pd.DataFrame(
        [
            result("a", "1", hallucinated=0.2),
            result("a", "1", hallucinated=0.4, sample=1),
            result("b", "1", hallucinated=0.1),
        ]
    )
    assert pairwise(df, "hallucinated_rate", B=50).iloc[0]["mean_diff"] == pytest.approx(0.2)


def test_pairwise_names_the_known_metrics_for_an_unknown_one():
    with pytest.raises(EvalcoreError, match="'speed'.*score, field_accuracy, hallucinated_rate"):
        pairwise(frame({"a": [1.0]}), "speed")
