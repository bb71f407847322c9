"""The bundled support run's demo ratings: made by ``data/demo_ratings.py`` (the recipe in data/README.md), by
made-up raters only, and only in that file."""

from __future__ import annotations

import dataclasses

from data import demo_ratings
from evalcore.analysis.people.human import is_demo_rater
from evalcore.runfile.read import read_run_file
from tests.app.test_app_shared import REPO

SUPPORT = REPO / "data" / "runs" / "support-demo.json"


def test_the_support_runs_ratings_are_what_the_recipe_makes():
    run = read_run_file(SUPPORT)
    assert run.ratings == demo_ratings.demo_ratings(dataclasses.replace(run, ratings=[]))


def test_the_support_run_is_rated_by_demo_raters_on_pairs_and_single_replies():
    ratings = read_run_file(SUPPORT).ratings
    assert ratings and all(is_demo_rater(r.rater) for r in ratings)
    assert {r.b is None for r in ratings} == {True, False}


def test_no_other_bundled_run_holds_ratings():
    others = [p for p in (REPO / "data" / "runs").glob("*.json") if p != SUPPORT]
    assert others and all(not read_run_file(p).ratings for p in others)
