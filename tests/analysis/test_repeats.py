"""pass@k and pass^k of a run with several samples per case: the estimators against every k-subset of a case's
samples, their leaderboard columns, weights and gates on them, and their intervals' coverage by simulation."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from evalcore.analysis.ranking.leaderboard import leaderboard
from evalcore.analysis.scores.repeats import pass_at_k, pass_hat_k, spread_advice
from evalcore.core.errors import WeightsError
from evalcore.core.metric_set import MetricSet
from evalcore.core.records import Metric

NAN = float("nan")
METRICS = [Metric("correct", "Right or wrong.", primary=True), Metric("exact", "Word for word.")]


def _enumerated(outcomes: tuple[int, ...], k: int) -> tuple[float, float]:
    """pass@k and pass^k as shares of every k-subset of the samples in which one / all pass."""
    subsets = list(itertools.combinations(outcomes, k))
    return (
        sum(any(s) for s in subsets) / len(subsets),
        sum(all(s) for s in subsets) / len(subsets),
    )


def test_pass_at_k_and_pass_hat_k_equal_the_shares_of_every_k_subset_of_the_samples():
    for n in range(1, 8):
        for c in range(n + 1):
            outcomes = (1,) * c + (0,) * (n - c)
            for k in range(1, n + 1):
                at, every = _enumerated(outcomes, k)
                assert pass_at_k(np.array([n]), np.array([c]), k)[0] == pytest.approx(at, abs=1e-12), (n, c, k)
                assert pass_hat_k(np.array([n]), np.array([c]), k)[0] == pytest.approx(every, abs=1e-12), (n, c, k)


def test_pass_at_k_is_null_for_a_case_with_fewer_samples_than_k():
    assert np.isnan(pass_at_k(np.array([2]), np.array([1]), 3)[0])
    assert np.isnan(pass_hat_k(np.array([2]), np.array([1]), 3)[0])


def _rows(outcomes: dict[str, list[list[float]]], dataset: str = "d") -> pd.DataFrame:
    """Results of contender → per case, the list of its samples' scores (NaN: an error)."""
    rows = []
    for contender, cases in outcomes.items():
        for i, samples in enumerate(cases):
            for s, value in enumerate(samples):
                error = math.isnan(value)
                rows.append(
                    {
                        "contender": contender,
                        "dataset": dataset,
                        "case": f"{i:03d}",
                        "variant": "plain",
                        "sample": s,
                        "status": "error" if error else "scored",
                        "error_kind": "timeout" if error else None,
                        "score": value,
                        "m_correct": value,
                        "m_exact": value,
                        "cost_usd": 0.001,
                        "latency_s": 1.0,
                        "input_tokens": 10.0,
                        "output_tokens": 5.0,
                    }
                )
    return pd.DataFrame(rows)


def test_a_leaderboard_of_a_run_with_samples_has_pass_at_k_and_pass_hat_k_as_means_over_cases():
    df = _rows({"a": [[1, 1, 1], [1, 0, 0], [0, 0, 0], [1, 1, 0]]})
    row = leaderboard(df, METRICS, ci=False).iloc[0]
    assert row["pass@1"] == pytest.approx(6 / 12)
    assert row["pass^3"] == pytest.approx(1 / 4)
    assert row["pass@3"] == pytest.approx(3 / 4)
    assert row["pass^2"] == pytest.approx((1 + 0 + 0 + 1 / 3) / 4)
    assert row["pass^2_exact"] == pytest.approx(row["pass^2"])
    assert "pass^2_correct" not in row  # the primary metric is the score: its pass^2 is pass^2
    assert row["consistency"] == pytest.approx(2 / 4)


def test_a_case_with_an_error_sample_counts_in_pass_hat_k_only_up_to_its_scored_samples():
    df = _rows({"a": [[1, 1, NAN], [1, 1, 1]]})
    row = leaderboard(df, METRICS, ci=False).iloc[0]
    assert row["pass^2"] == pytest.approx(1.0)
    assert row["pass^3"] == pytest.approx(1.0)  # only the case with three scored samples has a value


def test_a_run_of_one_sample_has_no_repeat_columns():
    table = leaderboard(_rows({"a": [[1], [0]]}), METRICS, ci=False)
    assert not [c for c in table.columns if c.startswith(("pass", "consistency"))]


def test_pass_hat_k_can_be_weighted_and_ranks_the_consistent_contender_first():
    steady = [[1, 1, 1]] * 6 + [[0, 0, 0]] * 4
    shaky = [[1, 1, 0]] * 10
    table = leaderboard(_rows({"shaky": shaky, "steady": steady}), METRICS, {"pass^3": 1.0}, ci=False)
    assert list(table["contender"]) == ["steady", "shaky"]
    unweighted = leaderboard(_rows({"shaky": shaky, "steady": steady}), METRICS, ci=False)
    assert list(unweighted["contender"]) == ["shaky", "steady"]


def test_a_weight_on_pass_hat_k_beyond_the_samples_taken_is_refused():
    with pytest.raises(WeightsError, match="pass\\^4"):
        leaderboard(_rows({"a": [[1, 1, 1]]}), METRICS, {"pass^4": 1.0}, ci=False)


def test_the_metric_set_of_three_samples_names_pass_at_k_and_pass_hat_k_up_to_three():
    names = MetricSet.of(METRICS, samples=3).weightable
    assert {"pass@1", "pass@3", "pass^3", "pass^3_exact", "consistency"} <= set(names)
    assert "pass^4" not in names


def _interval_coverage(
    kind: str, k: int, n_cases: int, samples: int, reps: int, seed: int, shape: tuple[float, float] = (2.0, 1.0)
) -> float:
    """How often the 95% interval of pass^k holds the true pass^k, over ``reps`` simulated runs (a contender each,
    as the coverage tests of ``tests/analysis/test_coverage.py`` put a replicate per column): each case's chance
    of a right answer drawn from a Beta(a, b) (``shape``), so cases differ, and its samples drawn with that chance."""
    rng = np.random.default_rng(seed)
    a, b = shape
    truth = math.prod((a + i) / (a + b + i) for i in range(k))  # E[p^k] for p ~ Beta(a, b)
    if kind == "pass@":
        truth = 1 - math.prod((b + i) / (a + b + i) for i in range(k))  # 1 − E[(1 − p)^k]
    chances = rng.beta(a, b, size=(reps, n_cases))
    draws = (rng.random((reps, n_cases, samples)) < chances[..., None]).astype(float)
    df = _rows({f"run{r:04d}": draws[r].tolist() for r in range(reps)})
    metric_set = MetricSet.of(METRICS, samples)
    name = f"{kind}{k}"
    wanted = [m for m in metric_set.repeats if m.name == name]
    table = leaderboard(df, [*METRICS, *wanted], B=1000, seed=seed)
    held = (table[f"{name}_lo"] - 1e-9 <= truth) & (truth <= table[f"{name}_hi"] + 1e-9)
    return float(held.mean())


#: (kind, k, samples, Beta shape of the cases' chances): skewed per-case values (pass@4 of a good contender is 1
#: on most cases) are where a plain percentile interval missed most (0.83 at pass@4 of 5, Beta(2, 1)).
COVERAGE_CELLS = [
    ("pass^", 3, 3, (2.0, 1.0)),
    ("pass^", 2, 5, (1.0, 1.0)),
    ("pass^", 5, 5, (5.0, 1.0)),
    ("pass@", 3, 5, (1.0, 2.0)),
    ("pass@", 4, 5, (2.0, 1.0)),
    ("pass@", 1, 5, (0.5, 0.5)),
]


@pytest.mark.parametrize(("kind", "k", "samples", "shape"), COVERAGE_CELLS)
def test_the_interval_of_pass_at_k_and_pass_hat_k_covers_the_truth_at_least_93_percent_of_the_time_on_30_cases(
    kind, k, samples, shape
):
    assert _interval_coverage(kind, k, n_cases=30, samples=samples, reps=1000, seed=k, shape=shape) >= 0.93


def test_the_advice_says_more_cases_narrow_the_interval_most_when_cases_differ_most():
    assert "more cases narrow it most" in spread_advice(0.1, 0.4, 5)
    assert "Too few" in spread_advice(NAN, 0.4, 5)


def _repeated_run():
    from tests.factories import make_run

    return make_run(1, 9, samples=3, with_errors=False)


def test_a_gate_checks_a_minimum_on_pass_at_k_like_any_metric():
    from evalcore.analysis.decisions.gate import FAIL, PASS, evaluate
    from evalcore.analysis.tables.runs import rank_run
    from evalcore.suite.config import GateModel

    run = _repeated_run()
    value = float(rank_run(run, None, ci=False).iloc[0]["pass@3_exact_match"])
    assert 0 < value < 1
    for limit, status in ((value - 0.01, PASS), (value + 0.01, FAIL)):
        report = evaluate(run, GateModel(minimum={"pass@3_exact_match": limit}))
        (check,) = report.checks
        assert (check.name, check.value, check.status) == ("pass@3_exact_match", pytest.approx(value), status)


def test_a_gate_refuses_pass_hat_k_beyond_the_samples_taken_and_a_regression_on_pass_hat_k():
    from evalcore.analysis.decisions.gate import GateError, evaluate
    from evalcore.suite.config import GateModel, RegressionModel

    with pytest.raises(GateError, match="pass\\^4"):
        evaluate(_repeated_run(), GateModel(minimum={"pass^4": 0.5}))
    with pytest.raises(GateError, match="pass\\^3"):
        evaluate(_repeated_run(), GateModel(regression={"pass^3": RegressionModel(tolerance=0.1)}))


def test_pass_hat_k_of_a_score_that_is_not_always_0_or_1_is_null_even_on_cases_where_it_is():
    df = _rows({"a": [[0.5, 1, 1], [1, 1, 1]]})
    row = leaderboard(df, METRICS, ci=False).iloc[0]
    assert np.isnan(row["pass^3"]) and np.isnan(row["pass@1"])
    assert row["consistency"] == pytest.approx(0.5)


def test_spread_gives_the_mean_within_case_and_the_between_case_standard_deviation():
    from evalcore.analysis.scores.repeats import spread

    df = _rows({"a": [[0.2, 0.4], [0.6, 1.0], [0.9, 0.9]]})
    row = spread(df, df["score"].to_numpy(float), ["contender"]).iloc[0]
    within = np.mean([np.std([0.2, 0.4], ddof=1), np.std([0.6, 1.0], ddof=1), 0.0])
    assert row["sd_within"] == pytest.approx(within)
    assert row["sd_between"] == pytest.approx(np.std([0.3, 0.8, 0.9], ddof=1))
    assert row["samples_per_case"] == 2


def test_the_advice_gives_how_much_doubling_cases_or_samples_narrows_the_interval():
    # Observed between-case variance 0.09, of which 0.3² / 3 = 0.03 from sampling: doubling the samples leaves
    # 0.075 (√(0.075 / 0.09) = 0.913, 9% narrower); doubling the cases halves it all (29% narrower).
    text = spread_advice(0.3, 0.3, 3)
    assert text.startswith("33% of the score's variance")
    assert "about 29%, doubling the samples by about 9%" in text


def test_the_json_leaderboard_carries_every_pass_at_k_pass_hat_k_consistency_and_the_spread():
    import json

    from evalcore.analysis.tables.text import format_leaderboard

    df = _rows({"a": [[1, 1, 0], [1, 1, 1], [0, 0, 0]]})
    metric_set = MetricSet.of(METRICS, 3)
    row = json.loads(format_leaderboard(leaderboard(df, metric_set, B=50), metric_set, "json"))[0]
    assert {"pass@1", "pass@3", "pass^3", "pass^3_lo", "consistency", "sd_within", "sd_between"} <= set(row)
    assert row["pass^3"] == pytest.approx(1 / 3) and row["consistency"] == pytest.approx(2 / 3)


def test_the_text_leaderboard_shows_pass_hat_k_and_consistency_columns_when_a_run_has_samples():
    from evalcore.analysis.tables.text import format_leaderboard

    df = _rows({"a": [[1, 1, 0], [1, 1, 1], [0, 0, 0]]})
    metric_set = MetricSet.of(METRICS, 3)
    header = format_leaderboard(leaderboard(df, metric_set, B=50), metric_set).splitlines()[0].split()
    assert "pass^3" in header and "consistency" in header
    assert "pass@1" not in header and "pass^2" not in header  # the JSON has every k; the table the strictest
    one = MetricSet.of(METRICS)
    assert "consistency" not in format_leaderboard(leaderboard(_rows({"a": [[1], [0]]}), one, B=50), one)


def test_at_100_characters_the_marks_are_shortened_before_pass_hat_k_and_consistency_are_left_out():
    from evalcore.analysis.tables.text import format_leaderboard

    outcomes = [[1, 1, 0], [1, 1, 1], [0, 0, 0]] * 10
    long, other = "fake/skill · skill=0.8 · seed=1", "fake/steady"
    df = _rows({long: outcomes, other: [[1, 1, 1], [0, 0, 0], [1, 1, 1]] * 10})
    metric_set = MetricSet.of(METRICS, 3)
    lines = format_leaderboard(leaderboard(df, metric_set, B=50), metric_set, width=100).splitlines()
    assert {"pass^3", "consistency"} <= set(lines[0].split()) and max(map(len, lines[:4])) <= 100
    assert long in lines[2] + lines[3] and "★ best" not in lines[2]  # the marks in short, the id whole


def test_weights_given_as_text_may_name_pass_at_k_and_pass_hat_k():
    from evalcore.analysis.scores.weights import parse_weights

    assert parse_weights("pass^5=1,pass@3_correct=0.5") == {"pass^5": 1.0, "pass@3_correct": 0.5}


def test_a_run_of_twenty_samples_ranks_and_renders_with_its_hundred_repeat_metrics():
    # Warnings are errors in the tests: pandas warns of a frame built a column at a time past 100 blocks.
    from evalcore.analysis.tables.runs import metric_set_of, rank_run
    from evalcore.analysis.tables.text import format_leaderboard
    from evalcore.analysis.tables.view import leaderboard_view
    from evalcore.explorer.report import ReportOptions, build_report
    from evalcore.storage.frames import results_frame
    from tests.factories import make_run

    run = make_run(2, 9, samples=20, with_errors=False)
    metric_set = metric_set_of(run)
    assert len(metric_set.repeats) > 100
    for by_dataset in (False, True):
        table = rank_run(run, {"pass^20_exact_match": 1.0, "score": 1.0}, by_dataset=by_dataset)
        assert "pass^20_exact_match_lo" in table.columns
        format_leaderboard(table, metric_set, "json")
    leaderboard_view(results_frame(run), metric_set, {"score": 1.0}, contenders=run.contenders, B=50)
    assert "consistency" in build_report(run, ReportOptions(B=50), fmt="markdown")
