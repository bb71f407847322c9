"""What people said, summarised: win rates, raters' and the judge's agreement, the corrected judge score.

Every number is worked out by hand from :func:`tests.factories.rated_run`'s ratings (see its docstring).
"""

import math

import pytest

from evalcore.analysis.people.human import human_summary, human_value, judged_metric
from evalcore.core.records import Rating
from tests.factories import rated_run

RUN = rated_run()
C0, C1, C2 = (c.id for c in RUN.contenders)


@pytest.fixture(scope="module")
def summary():
    return human_summary(RUN, resamples=100)


def test_people_win_rates_count_ties_half(summary):
    rates = {r.contender: r.win_rate for r in summary.pairs.win_rates}
    # c0: 8 wins over c1, 1 win and 7 ties against c2 → (9 + 3.5) / 16
    assert rates == {C0: pytest.approx(12.5 / 16), C2: pytest.approx(3.5 / 8), C1: 0.0}


def test_people_rank_contenders_by_bradley_terry(summary):
    assert [s.contender for s in summary.pairs.strengths] == [C0, C2, C1]


def test_two_raters_agree_by_cohens_kappa(summary):
    # 8 pairs both rated, 7 the same; ana says a and tie half each, ben a 5/8: chance 1/2 → (7/8 - 1/2) / (1/2)
    agreement = summary.pair_raters
    assert (agreement.raters, agreement.items, agreement.statistic) == (2, 8, "kappa")
    assert agreement.value == pytest.approx(0.75)
    assert agreement.low <= 0.75 <= agreement.high


def test_the_pairwise_judge_agrees_with_people_on_15_of_16(summary):
    judge = summary.judge_pairs
    assert judge.n == 16
    assert judge.stats["accuracy"].value == pytest.approx(15 / 16)
    assert judge.stats["kappa"].value == pytest.approx(0.875)  # chance 1/2
    assert judge.labels == ["a", "tie"] and judge.confusion == [[8, 0], [1, 7]]


def test_the_judge_score_is_corrected_by_peoples_pass_and_fail(summary):
    # c0: people 1, 0 where the judge said 1, 1; two unrated replies judged 1 → 1 + mean(-0, -1) = 0.5
    corrected = summary.corrected[C0]
    assert summary.metric == "judge_score"
    assert corrected.value == pytest.approx(0.5)
    assert corrected.se == pytest.approx(math.sqrt(0.25 / 2))
    assert (corrected.low, corrected.high) == (0.0, 1.0)  # 0.5 ± 0.69, clipped to where scores lie
    assert (corrected.judge, corrected.bias, corrected.rated, corrected.unrated) == (1.0, 0.5, 2, 2)
    assert set(summary.corrected) == {C0}


def test_pass_fail_people_against_the_judge_compare_as_labels(summary):
    assert summary.judge_single.kind == "labels"
    assert summary.judge_single.stats["accuracy"].value == pytest.approx(0.5)


def test_ratings_drawn_out_of_random_order_do_not_correct_the_judge():
    ratings = [r if r.b else Rating(**{**vars(r), "random": False}) for r in RUN.ratings]
    assert human_summary(RUN, ratings, resamples=0).corrected == {}


def test_three_raters_agree_by_krippendorffs_alpha():
    extra = [Rating(**{**vars(r), "rater": "cy"}) for r in RUN.ratings if r.rater == "ana" and r.b]
    agreement = human_summary(RUN, [*RUN.ratings, *extra], resamples=0).pair_raters
    assert (agreement.raters, agreement.statistic) == (3, "alpha")
    assert agreement.low is None


def test_a_reply_rated_on_dimensions_reads_as_their_mean_on_0_to_1():
    rating = Rating("d", "c", 0, "x", None, "ana", "0.625", {"correct": 5, "tone": 2})
    assert human_value(rating) == pytest.approx((1.0 + 0.25) / 2)


def test_the_judged_metric_is_the_judge_score():
    assert judged_metric(RUN) == "judge_score"


def test_json_has_no_nan(summary):
    import json

    json.dumps(summary.to_data(), allow_nan=False)


def test_the_judge_interval_beside_the_corrected_score_is_the_leaderboards(summary):
    from evalcore.analysis.tables.runs import rank_run

    board = rank_run(RUN, None).set_index("contender")
    assert summary.judge_intervals[C0] == (board.at[C0, "judge_score_lo"], board.at[C0, "judge_score_hi"])


def test_a_judge_scoring_every_reply_1_has_a_proportions_interval_not_a_point(summary):
    # c0's 4 cases all judged 1: Clopper-Pearson's 4/4 is [0.025^(1/4), 1]
    low, high = summary.judge_intervals[C0]
    assert low == pytest.approx(0.025**0.25) and high == 1.0


def test_a_graded_judge_interval_stays_within_0_and_1():
    run = rated_run()
    for value, result in zip([1.0, 1.0, 1.0, 0.9], [r for r in run.results if r.contender == C0], strict=False):
        result.metrics["judge_score"] = value
    low, high = human_summary(run, resamples=0).judge_intervals[C0]
    assert 0.9 <= low < high <= 1.0


@pytest.mark.parametrize(
    ("verdict", "scores"), [("1e308", {}), ("NaN", {}), ("-inf", {}), ("2", {}), ("1", {"tone": 99.0})]
)
def test_a_stored_rating_off_its_scale_is_never_read_as_a_score(verdict, scores):
    assert human_value(Rating("d", "c", 0, "x", None, "ana", verdict, scores)) is None
