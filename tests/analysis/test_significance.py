"""Pairwise differences between contenders: paired intervals and sign-flip p-values."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalcore.analysis.stats.paired import AGREE_BOUND, CONTINUITY, agreement_bound, paired_difference, score_test
from evalcore.analysis.stats.significance import pairwise_significance
from evalcore.core.errors import EvalcoreError
from tests.analysis.rows import NAN, frame, result


def test_pairwise_covers_every_ordered_pair_with_mirrored_differences():
    out = pairwise_significance(frame({"a": [1, 1, 1, 0], "b": [0, 0, 0, 0], "c": [1, 0, 1, 0]}), B=500)
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
    # d = (.5, .5, .5, 0): |mean| reaches 0.375 only when the three halves share a sign: p = 2/8.
    out = pairwise_significance(frame({"a": [0.5, 0.5, 0.5, 0], "b": [0, 0, 0, 0]}), B=4000)
    assert out.iloc[0]["p_value"] == pytest.approx(0.25, abs=0.03) and not out.iloc[0]["significant"]
    assert out.iloc[0]["method"] == "sign-flip permutation"


def test_on_0_1_values_the_p_value_is_mcnemars_test_on_discordant_cases():
    # Three discordant cases, all a's: z = (3 − adjustment) / √3, two-sided p = erfc(z / √2).
    out = pairwise_significance(frame({"a": [1, 1, 1, 0], "b": [0, 0, 0, 0]}), B=100)
    assert out.iloc[0]["p_value"] == pytest.approx(math.erfc((3 - CONTINUITY) / math.sqrt(3) / math.sqrt(2)))
    assert out.iloc[0]["method"] == "McNemar test, Tango interval"


def test_the_uncorrected_0_1_interval_and_test_match_the_published_worked_example():
    # Fagerland, Lydersen & Laake's R package `contingencytables` (Statistical Analysis of Contingency Tables,
    # 2017, ch. 8), tests/testthat/test-ch8.R, on Cavo et al. (2012), n12 = 6, n21 = 16, N = 161:
    # "Tango asymptotic score CI: estimate = -0.0621 (95% CI -0.1240 to -0.0054)";
    # "The McNemar asymptotic test: P = 0.033006, Z = -2.132".
    cavo = score_test(6, 16, 161, correction=0.0)
    assert (round(cavo["lo"], 4), round(cavo["hi"], 4)) == (-0.1240, -0.0054)
    assert round(cavo["p_value"], 6) == 0.033006


def test_the_continuity_corrected_test_matches_the_published_worked_example():
    # The same file, on the same table: "McNemar test with continuity correction: P = 0.055009, Z =  1.919"
    # (Edwards' correction, 1 case).
    assert round(score_test(6, 16, 161, correction=1.0)["p_value"], 6) == 0.055009


def test_the_continuity_adjustment_widens_the_interval_on_both_sides():
    plain, adjusted = score_test(6, 16, 161, correction=0.0), score_test(6, 16, 161)
    assert adjusted["lo"] < plain["lo"] < plain["hi"] < adjusted["hi"]


def test_the_0_1_interval_reaches_the_bound_when_every_case_goes_one_way():
    # The same file, on the table n12 = 3, n21 = 0, N = 3: "1.0000 (95% CI -0.1230 to 1.0000)", and its mirror.
    every = score_test(3, 0, 3, correction=0.0)
    assert (round(every["lo"], 4), every["hi"]) == (-0.1230, 1.0)
    mirror = score_test(0, 3, 3, correction=0.0)
    assert (mirror["lo"], round(mirror["hi"], 4)) == (-1.0, 0.1230)


def test_two_identical_contenders_get_an_interval_of_nonzero_width():
    # No discordant case among n = 30, adjustment g: (nΔ − g)² = z² nΔ(1 − Δ) at the upper bound, the larger
    # root of (n² + z²n)Δ² − (2ng + z²n)Δ + g² = 0; the lower bound is its mirror.
    same = score_test(0, 0, 30)
    n, g, z2 = 30, CONTINUITY, 1.959963984540054**2
    a, b = n * n + z2 * n, 2 * n * g + z2 * n
    bound = (b + math.sqrt(b * b - 4 * a * g * g)) / (2 * a)
    assert same["p_value"] == 1.0
    assert (same["lo"], same["hi"]) == (pytest.approx(-bound), pytest.approx(bound))


def test_the_0_1_interval_is_not_stuck_at_the_estimate_when_every_discordant_case_goes_one_way():
    result = score_test(12, 0, 30)
    assert result["lo"] < 12 / 30 < result["hi"] < 1


def test_one_pair_from_its_case_values_is_its_row_of_pairwise():
    df = frame({"a": [0.2, 0.9, 0.4, 1.0], "b": [0.1, 0.5, NAN, 1.0]})
    row = pairwise_significance(df, B=300, seed=4).iloc[0]
    one = paired_difference(np.array([0.2, 0.9, 0.4, 1.0]), np.array([0.1, 0.5, NAN, 1.0]), B=300, seed=4)
    assert one == {k: row[k] for k in one}


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 60), st.integers(0, 60), st.integers(0, 60))
def test_the_0_1_interval_excludes_0_exactly_when_the_test_is_significant(wins, losses, ties):
    n = wins + losses + ties + 1
    result = score_test(wins, losses, n)
    assert (result["lo"] > 0 or result["hi"] < 0) == (result["p_value"] < 0.05)
    assert -1 <= result["lo"] <= (wins - losses) / n <= result["hi"] <= 1


def test_the_0_1_test_keeps_its_size_near_5_percent():
    # 100 cases, both right half the time independently: no difference to find.
    rng = np.random.default_rng(1)
    hits = 0
    for _ in range(1000):
        a, b = rng.random(100) < 0.5, rng.random(100) < 0.5
        hits += score_test(int((a & ~b).sum()), int((b & ~a).sum()), 100)["p_value"] < 0.05
    assert 0.03 < hits / 1000 < 0.065


def test_pairwise_a_consistent_difference_is_significant():
    out = pairwise_significance(frame({"a": [0.9] * 30, "b": [0.4] * 30}), B=1000)
    assert out.iloc[0]["p_value"] == pytest.approx(1 / 1001) and out.iloc[0]["significant"]
    assert (out.iloc[0]["lo"], out.iloc[0]["hi"]) == (pytest.approx(0.5), pytest.approx(0.5))


def test_pairwise_identical_contenders_differ_by_nothing():
    out = pairwise_significance(frame({"a": [0.2, 0.9, 0.4], "b": [0.2, 0.9, 0.4]}), B=200)
    assert (out.iloc[0]["mean_diff"], out.iloc[0]["p_value"], out.iloc[0]["significant"]) == (0.0, 1.0, False)


def test_pairwise_uses_only_cases_both_scored():
    out = pairwise_significance(frame({"a": [1.0, NAN, 1.0], "b": [0.0, 0.0, NAN]}), B=100)
    assert (out.iloc[0]["n"], out.iloc[0]["mean_diff"]) == (1, 1.0)


def test_pairwise_without_shared_cases_has_no_statistics():
    out = pairwise_significance(frame({"a": [1.0, NAN], "b": [NAN, 0.0]}), B=100)
    assert out.iloc[0]["n"] == 0 and math.isnan(out.iloc[0]["p_value"]) and not out.iloc[0]["significant"]


def test_pairwise_compares_any_metric_over_averaged_samples():
    df = pd.DataFrame(
        [
            result("a", "1", hallucinated=0.2),
            result("a", "1", hallucinated=0.4, sample=1),
            result("b", "1", hallucinated=0.1),
        ]
    )
    assert pairwise_significance(df, "hallucinated_rate", B=50).iloc[0]["mean_diff"] == pytest.approx(0.2)


def test_pairwise_names_the_known_metrics_for_an_unknown_one():
    with pytest.raises(EvalcoreError, match="'speed'.*score, field_accuracy, hallucinated_rate"):
        pairwise_significance(frame({"a": [1.0]}), "speed")


def test_many_columns_at_once_drawn_in_blocks_give_the_numbers_of_whole_draws():
    """``paired_differences`` draws its resamples and sign flips a block at a time; the numbers are those of
    ``paired_stats`` given every draw at once (B x cases), column by column, 0/1 columns included."""
    from evalcore.analysis.stats.paired import BLOCK, paired_differences, paired_stats
    from evalcore.analysis.stats.resampling import resample_counts

    rng = np.random.default_rng(7)
    cases, B = 300, 2 * BLOCK + 17  # blocks that do not divide B
    a, b = rng.random((cases, 4)), rng.random((cases, 4))
    a[:, 3], b[:, 3] = rng.integers(0, 2, cases), rng.integers(0, 2, cases)  # a 0/1 column: the score test
    a[rng.random(cases) < 0.1, 1] = np.nan  # cases one side lacks
    b[:, 2] = a[:, 2] + 0.05  # a clear difference
    draws_rng = np.random.default_rng(3)
    draws = resample_counts(np.zeros(cases, dtype=np.int64), B, draws_rng)
    signs = draws_rng.integers(0, 2, size=(B, cases)) * 2.0 - 1.0
    whole = paired_stats(a, b, draws, signs)
    blocked = paired_differences(a, b, B=B, seed=3)
    assert [row["method"] for row in blocked] == ["sign-flip permutation"] * 3 + ["McNemar test, Tango interval"]
    for got, want in zip(blocked, whole, strict=True):
        assert got.keys() == want.keys()
        for key, value in want.items():
            exact = isinstance(value, str | bool)
            assert got[key] == (value if exact else pytest.approx(value, rel=1e-12, abs=1e-15, nan_ok=True)), key
    assert blocked[2]["p_value"] == pytest.approx(1 / (B + 1)) and blocked[2]["hi"] < 0


def test_only_0_1_columns_draw_nothing():
    from evalcore.analysis.stats.paired import paired_differences

    a, b = np.array([[1.0], [1.0], [0.0], [1.0]]), np.array([[0.0], [1.0], [0.0], [0.0]])
    row = paired_differences(a, b, B=10**9)[0]  # B that large would be seconds and gigabytes if drawn
    assert row["method"] == "McNemar test, Tango interval" and row["mean_diff"] == 0.5 and row["n"] == 4


def test_two_sides_with_the_same_non_binary_value_on_every_case_get_the_exact_bound_and_the_reason():
    same = np.array([0.5, 1 / 3, 2 / 3, 1.0] * 8)
    row = paired_difference(same, same.copy())
    # No differing case of 32: the one-sided 97.5% Clopper-Pearson bound on the share is 1 - 0.025^(1/32).
    bound = 1 - 0.025 ** (1 / 32)
    assert row["mean_diff"] == 0.0 and row["lo"] == pytest.approx(-bound) and row["hi"] == pytest.approx(bound)
    assert row["note"] == AGREE_BOUND and row["p_value"] == 1.0 and not row["significant"]
    binary = paired_difference(np.ones(30), np.ones(30))
    assert binary["note"] == "" and binary["lo"] < 0 < binary["hi"]  # Tango's interval is not a point


def test_a_difference_on_two_cases_gets_the_resamples_extremes():
    row = paired_difference(np.array([0.5, 1.0]), np.array([0.0, 1 / 3]), B=200, seed=1)
    assert row["lo"] == pytest.approx(0.5) and row["hi"] == pytest.approx(2 / 3)


def test_the_agreement_bound_is_the_rule_of_three_s_exact_form():
    # Clopper-Pearson with no event in n: 1 - (alpha/2)^(1/n), about 3.69 / n for large n
    # (the two-sided form of the rule of three: Hanley & Lippman-Hand, JAMA 249, 1983).
    assert agreement_bound(30) == pytest.approx(0.1157, abs=1e-4)
    assert agreement_bound(1000) * 1000 == pytest.approx(3.682, abs=1e-3)


def test_the_agreement_bound_misses_a_true_difference_no_more_often_than_its_tail():
    # Known truth: the sides differ on each of 30 cases with chance 0.12, by a full point, so the true mean
    # difference is 0.12, just above the 30-case bound (0.1157). The bound misses it exactly when no case
    # differs, which happens with chance 0.88^30 = 0.0216: at most the one-sided 2.5% the bound allows.
    rng = np.random.default_rng(11)
    reps, misses, agreed = 2000, 0, 0
    for _ in range(reps):
        a = np.full(30, 0.5)
        b = a.copy()
        differ = rng.random(30) < 0.12
        a[differ], b[differ] = 1.0, 0.0
        if differ.any():
            continue  # the bootstrap's coverage is measured by tests/analysis/test_coverage.py
        agreed += 1
        row = paired_difference(a, b, B=10)
        misses += not (row["lo"] <= 0.12 <= row["hi"])
    assert agreed > 0 and misses == agreed  # the bound is tight: every all-agree run misses a 0.12 difference
    assert misses / reps <= 0.025 + 3 * (0.025 * 0.975 / reps) ** 0.5
