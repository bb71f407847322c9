"""Ratings as JSON Lines: one rating a line, read back as written, bad lines named."""

import json
import re

import pytest

from evalcore.core.errors import RunFileError
from evalcore.runfile.ratings import dump_ratings, parse_ratings, rating_problems
from tests.factories import rated_run

RUN = rated_run()


def test_ratings_round_trip_through_json_lines():
    text = dump_ratings("run-0001", RUN.ratings)
    assert len(text.splitlines()) == len(RUN.ratings)
    assert parse_ratings(text, "r.jsonl") == {"run-0001": RUN.ratings}


def test_a_line_names_one_reply_by_contender_and_a_pair_by_a_and_b():
    lines = [json.loads(line) for line in dump_ratings("run-0001", RUN.ratings).splitlines()]
    assert {"a", "b"} <= lines[0].keys() and "contender" not in lines[0]
    assert lines[-1]["contender"] == RUN.contenders[0].id and "a" not in lines[-1]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"run": "r", "dataset": "d", "case": "c", "a": "x", "b": "y", "rater": "ana", "verdict": "left"}',
         "line 2: verdict 'left' of a pair is not one of"),
        ('{"run": "r", "dataset": "d", "case": "c", "rater": "ana", "verdict": "pass"}',
         "line 2: give either contender (one reply) or a and b"),
        ('{"run": "r", "dataset": "d", "case": "c", "contender": "x", "rater": "ana", "verdict": "pass", "x": 1}',
         "line 2: x: Extra inputs are not permitted"),
        ("not json", "line 2: Invalid JSON"),
    ],
)  # fmt: skip
def test_a_bad_line_is_named_with_its_number_and_field(line, message):
    with pytest.raises(RunFileError, match=re.escape(message)):
        parse_ratings("\n" + line, "r.jsonl")


def test_ratings_of_contenders_or_cases_a_run_lacks_are_named():
    ratings = parse_ratings(
        '{"run": "r", "dataset": "d", "case": "c", "contender": "ghost", "rater": "ana", "verdict": "pass"}', "f"
    )["r"]
    problems = rating_problems(ratings, ["x"], [("d", "other")])
    assert problems == ["contender 'ghost' is not in the run (it has x)", "case d/c is not in the run"]
