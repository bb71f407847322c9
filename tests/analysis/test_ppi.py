"""The prediction-powered mean: hand-computed numbers, and its coverage with a biased judge of known truth."""

import math

import numpy as np
import pytest

from evalcore.analysis.people.ppi import ppi_mean, tuned_lambda
from evalcore.analysis.stats.intervals import Z

HUMAN = [1.0, 0.0, 1.0, 1.0]
JUDGE_RATED = [1.0, 1.0, 1.0, 0.0]
JUDGE_UNRATED = [1.0, 0.0, 1.0, 1.0, 1.0, 0.0]


def test_plain_ppi_is_the_judge_mean_plus_the_rectifier_with_both_variances():
    # rectifier human - judge = [0, -1, 0, 1]: mean 0, variance 0.5 over 4 items;
    # unrated judge mean 4/6, variance (2/3)(1/3) = 2/9 over 6 items.
    est = ppi_mean(HUMAN, JUDGE_RATED, JUDGE_UNRATED, lam=1.0)
    se = math.sqrt(0.5 / 4 + (2 / 9) / 6)
    assert est.value == pytest.approx(4 / 6)
    assert est.se == pytest.approx(se)
    assert (est.rated, est.unrated, est.lam) == (4, 6, 1.0)


def test_an_interval_end_past_the_values_range_is_clipped_and_the_standard_error_kept():
    # The same estimate: 4/6 ∓ 1.96 · 0.404 reaches below 0 and above 1, where no mean of values in [0, 1] lies.
    est = ppi_mean(HUMAN, JUDGE_RATED, JUDGE_UNRATED, lam=1.0)
    assert (est.low, est.high) == (0.0, 1.0)
    assert est.se == pytest.approx(math.sqrt(0.5 / 4 + (2 / 9) / 6))
    unbounded = ppi_mean(HUMAN, JUDGE_RATED, JUDGE_UNRATED, lam=1.0, bounds=(-math.inf, math.inf))
    assert unbounded.low == pytest.approx(4 / 6 - 1.959963984540054 * est.se)


def test_the_judges_bias_is_its_mean_error_where_people_rated():
    est = ppi_mean(HUMAN, JUDGE_RATED, JUDGE_UNRATED, lam=1.0)
    assert est.bias == pytest.approx(0.0)
    assert est.people == pytest.approx(0.75)
    assert est.judge == pytest.approx(7 / 10)


def test_a_judge_that_disagrees_with_people_gets_no_weight():
    # covariance of human and judge on the rated items is -1/16: clipped to 0, the estimate is the people's mean.
    assert tuned_lambda(np.array(HUMAN), np.array(JUDGE_RATED), np.array(JUDGE_UNRATED)) == 0.0
    est = ppi_mean(HUMAN, JUDGE_RATED, JUDGE_UNRATED, lam=None)
    assert est.value == pytest.approx(0.75)
    assert est.se == pytest.approx(math.sqrt(0.1875 / 4))


def test_tuned_lambda_is_the_covariance_over_the_inflated_judge_variance():
    human = np.array([1.0, 0.0, 1.0, 0.0])
    rated = np.array([1.0, 0.0, 1.0, 1.0])
    unrated = np.array([1.0, 0.0, 0.0, 1.0])
    covariance = np.mean((human - 0.5) * (rated - 0.75))
    spread = np.var(np.concatenate([rated, unrated]), ddof=1)
    assert tuned_lambda(human, rated, unrated) == pytest.approx(covariance / (2 * spread))


def test_with_every_item_rated_the_estimate_is_the_peoples_mean():
    est = ppi_mean(HUMAN, JUDGE_RATED, [], lam=1.0)
    assert est.value == pytest.approx(0.75)
    assert est.lam == 0.0


def test_no_rated_item_gives_no_estimate_but_keeps_the_judges_mean():
    est = ppi_mean([], [], JUDGE_UNRATED)
    assert math.isnan(est.value)
    assert est.judge == pytest.approx(4 / 6)


def test_lengths_of_human_and_judge_values_must_match():
    with pytest.raises(ValueError, match="3 human values but 4 judge values"):
        ppi_mean([1.0, 0.0, 1.0], JUDGE_RATED, JUDGE_UNRATED)


def _coverage(lam: float | None, rated_items: int) -> tuple[float, float]:
    """Share of 1000 simulated runs whose corrected and raw-judge intervals cover the people's mean (0.6).

    People pass an item with probability 0.6; the judge passes 95% of those and 30% of the others, so its own
    mean is 0.69. Each run has 400 items, of which people rated ``rated_items`` drawn at random.
    """
    rng = np.random.default_rng(7)
    truth, covered, raw = 0.6, 0, 0
    for _ in range(1000):
        human = (rng.random(400) < truth).astype(float)
        judge = np.where(human == 1, rng.random(400) < 0.95, rng.random(400) < 0.30).astype(float)
        rated = rng.choice(400, rated_items, replace=False)
        unrated = np.setdiff1d(np.arange(400), rated)
        est = ppi_mean(human[rated], judge[rated], judge[unrated], lam=lam)
        covered += est.low <= truth <= est.high
        raw += est.judge_low <= truth <= est.judge_high
    return covered / 1000, raw / 1000


def test_corrected_interval_covers_the_peoples_mean_and_the_raw_judges_does_not():
    corrected, raw = _coverage(lam=1.0, rated_items=60)
    assert corrected >= 0.93
    assert raw < 0.05


def test_tuned_interval_covers_the_peoples_mean_with_enough_rated_items():
    corrected, _ = _coverage(lam=None, rated_items=100)
    assert corrected >= 0.93


# Reference numbers from the authors' package, ppi-python 0.2.3 (numpy 2.4.6), in a scratch venv
# (python3 -m venv /tmp/ppi && /tmp/ppi/bin/pip install ppi-python), copied by hand:
#   ppi_py.ppi_mean_pointestimate(Y, Yhat, Yhat_unlabeled, lam=LAM)
#   ppi_py.ppi_mean_ci(Y, Yhat, Yhat_unlabeled, alpha=0.05, lam=LAM)
# with the arrays below as float numpy arrays and LAM 1 (plain PPI) or None (power-tuned, PPI++).
PASS_FAIL = (
    [1, 0, 1, 1, 0, 1, 0, 1, 1, 1],
    [1, 0, 1, 1, 1, 1, 0, 0, 1, 1],
    [1, 1, 0, 1, 1, 1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1],
)
GRADED = (
    [0.9, 0.2, 0.7, 1.0, 0.4, 0.8, 0.1, 0.6],
    [0.8, 0.5, 0.6, 0.9, 0.7, 0.9, 0.3, 0.4],
    [0.7, 0.9, 0.2, 0.6, 0.8, 1.0, 0.5, 0.3, 0.9, 0.6, 0.4, 0.8],
)


@pytest.mark.parametrize(
    ("data", "lam", "reference"),
    [
        (PASS_FAIL, 1.0, (0.75, 0.4140790973191904, 1.0859209026808097)),
        (PASS_FAIL, None, (0.7181250000000001, 0.4624532397857464, 0.9737967602142539)),
        (GRADED, 1.0, (0.5916666666666667, 0.402656937271917, 0.7806763960614164)),
        (GRADED, None, (0.5898002253043071, 0.41702780286839713, 0.762572647740217)),
    ],
    ids=["pass-fail-plain", "pass-fail-tuned", "graded-plain", "graded-tuned"],
)
def test_the_estimate_and_interval_match_the_authors_ppi_py(data, lam, reference):
    # ppi_py does not clip an interval to the range of the values: compare ours unclipped.
    est = ppi_mean(*data, lam=lam, bounds=(-math.inf, math.inf))
    assert (est.value, est.low, est.high) == pytest.approx(reference, abs=1e-12)


@pytest.mark.parametrize("lam", [1.0, None])
def test_eight_ratings_that_all_agree_give_a_corrected_interval_with_width(lam):
    judge_unrated = [1.0] * 40
    corrected = ppi_mean([1.0] * 8, [1.0] * 8, judge_unrated, lam=lam)
    assert corrected.value == 1.0 and corrected.high == 1.0
    assert corrected.low == pytest.approx(0.025 ** (1 / 8))  # the boundary rule on the 8 rated items: 0.631
    assert corrected.judge_low == pytest.approx(0.025 ** (1 / 48)) and corrected.judge_high == 1.0


def test_plain_ppi_is_the_default():
    assert ppi_mean(HUMAN, JUDGE_RATED, JUDGE_UNRATED) == ppi_mean(HUMAN, JUDGE_RATED, JUDGE_UNRATED, lam=1.0)


def test_with_every_item_rated_the_standard_error_is_the_peoples_alone():
    est = ppi_mean(HUMAN, JUDGE_RATED, [], lam=1.0)
    assert est.se == pytest.approx(math.sqrt(0.1875 / 4))


def test_no_rated_item_leaves_every_corrected_figure_unknown_and_gives_the_judges_interval():
    est = ppi_mean([], [], JUDGE_UNRATED)
    judge_only = ppi_mean(JUDGE_UNRATED, JUDGE_UNRATED, [], bounds=(-math.inf, math.inf))
    corrected = (est.value, est.low, est.high, est.people, est.bias, est.lam, est.se)
    assert all(math.isnan(x) for x in corrected)
    assert (est.rated, est.unrated) == (0, 6)
    assert est.judge_se == pytest.approx(judge_only.se)
    assert (est.judge_low, est.judge_high) == pytest.approx(
        (4 / 6 - Z * est.judge_se, min(4 / 6 + Z * est.judge_se, 1.0))
    )


def test_no_item_at_all_gives_no_estimate_and_no_judge_mean():
    est = ppi_mean([], [], [])
    figures = (est.value, est.judge, est.judge_low, est.judge_high, est.judge_se)
    assert all(math.isnan(x) for x in figures)
    assert (est.rated, est.unrated) == (0, 0)


def test_values_outside_zero_one_keep_the_point_interval_where_everyone_agrees():
    # The boundary rule bounds a mean of values in [0, 1]; on a scale of -1 to 1 it would claim a width it has not.
    est = ppi_mean([1.0] * 8, [1.0] * 8, [1.0] * 40, bounds=(-1.0, 1.0))
    assert (est.low, est.high) == (1.0, 1.0)


@pytest.mark.parametrize(
    ("human", "rated", "unrated"),
    [([], [], [1.0, 0.0]), ([1.0], [1.0], [1.0, 0.0]), ([1.0, 0.0], [1.0, 0.0], []), ([1.0, 0.0], [0.5, 0.5], [0.5])],
    ids=["no-rated-item", "one-rated-item", "no-unrated-item", "judge-never-varies"],
)
def test_tuned_lambda_is_zero_without_the_items_to_estimate_it(human, rated, unrated):
    assert tuned_lambda(np.array(human), np.array(rated), np.array(unrated)) == 0.0


def test_tuned_lambda_is_clipped_to_one():
    # covariance 0.05 over 2 · 0.04/7: 4.375 before clipping.
    human = np.array([0.0, 1.0, 0.0, 1.0])
    rated = np.array([0.4, 0.6, 0.4, 0.6])
    assert tuned_lambda(human, rated, np.array([0.5] * 4)) == 1.0


@pytest.mark.parametrize(
    ("human", "rated", "unrated", "expected"),
    [
        ([0.0, 1.0], [0.0, 1.0], [0.0, 1.0, 1.0, 0.0], 0.25 / (1.5 * 0.3)),
        ([0.0, 1.0, 1.0, 0.0], [0.0, 1.0, 1.0, 0.0], [1.0], 0.25 / (5 * 0.3)),
    ],
    ids=["two-rated-items", "one-unrated-item"],
)
def test_tuned_lambda_is_estimated_from_two_rated_items_or_one_unrated(human, rated, unrated, expected):
    assert tuned_lambda(np.array(human), np.array(rated), np.array(unrated)) == pytest.approx(expected)
