"""Krippendorff's alpha against the worked example of Krippendorff (2011), and its edge cases."""

import math

import pytest

from evalcore.analysis.people.reliability import krippendorff_alpha

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: four observers, twelve units,
# missing values left out. Published: nominal 0.743, ordinal 0.815, interval 0.849.
OBSERVERS = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]
UNITS = {u: [row[u] for row in OBSERVERS if row[u] is not None] for u in range(12)}


@pytest.mark.parametrize(("level", "published"), [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)])
def test_alpha_matches_the_papers_worked_example(level: str, published: float) -> None:
    assert krippendorff_alpha(UNITS, level) == pytest.approx(published, abs=5e-4)  # type: ignore[arg-type]


def test_perfect_agreement_is_one() -> None:
    assert krippendorff_alpha({1: ["a", "a"], 2: ["b", "b", "b"], 3: ["a", "a"]}) == 1.0


def test_units_rated_once_are_left_out() -> None:
    with_single = {**UNITS, 99: [5]}
    assert krippendorff_alpha(with_single) == krippendorff_alpha(UNITS)


def test_no_variation_leaves_alpha_undefined() -> None:
    assert math.isnan(krippendorff_alpha({1: ["a", "a"], 2: ["a", "a"]}))
