"""Ratings as JSON Lines: one rating a line, read back as written, bad lines named."""

import json
import re

import pytest

from evalcore.core.errors import RunFileError
from evalcore.runfile.ratings import dump_ratings, numbered_ratings, parse_ratings, rating_problems
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
    ratings = numbered_ratings(
        '{"run": "r", "dataset": "d", "case": "c", "contender": "ghost", "rater": "ana", "verdict": "pass"}', "f"
    )["r"]
    problems = rating_problems(ratings, ["x"], [("d", "other")], set())
    assert problems == ["line 1: contender 'ghost' is not in the run (it has x)", "line 1: case d/c is not in the run"]


def test_a_rating_of_a_sample_the_run_has_no_reply_to_is_named_by_its_line():
    text = '{"run": "r", "dataset": "d", "case": "c", "sample": 3, "contender": "x", "rater": "ana", "verdict": "pass"}'
    problems = rating_problems(numbered_ratings("\n" + text, "f")["r"], ["x"], [("d", "c")], {("x", "d", "c", 0)})
    assert problems == ["line 2: sample 3 of case d/c has no reply by 'x' in the run's results"]


@pytest.mark.parametrize("verdict", ["NaN", "nan", "inf", "-Infinity", "1e308", "1.5", "-0.1"])
def test_a_verdict_written_as_a_number_off_the_0_to_1_scale_is_refused(verdict):
    line = json.dumps({"run": "r", "dataset": "d", "case": "c", "contender": "x", "rater": "ana", "verdict": verdict})
    with pytest.raises(
        RunFileError, match=re.escape(f"line 1: verdict: verdict {verdict!r} is not a score from 0 to 1")
    ):
        parse_ratings(line, "r.jsonl")


@pytest.mark.parametrize("verdict", ["pass", "fail", "0", "0.75", "1", "helpful"])
def test_words_labels_and_scores_from_0_to_1_are_verdicts(verdict):
    line = json.dumps({"run": "r", "dataset": "d", "case": "c", "contender": "x", "rater": "ana", "verdict": verdict})
    assert parse_ratings(line, "r.jsonl")["r"][0].verdict == verdict


@pytest.mark.parametrize(
    ("score", "message"), [(99, "less than or equal to 5 (got 99)"), (0, "greater than or equal to 1 (got 0)")]
)
def test_a_dimension_score_off_the_1_to_5_scale_is_refused(score, message):
    line = json.dumps(
        {
            "run": "r",
            "dataset": "d",
            "case": "c",
            "contender": "x",
            "rater": "a",
            "verdict": "1",
            "scores": {"t": score},
        }
    )
    with pytest.raises(RunFileError, match=re.escape(f"line 1: scores.t: Input should be {message}")):
        parse_ratings(line, "r.jsonl")


def test_a_sample_past_a_64_bit_integer_is_refused():
    line = json.dumps({"run": "r", "dataset": "d", "case": "c", "sample": 2**70, "contender": "x", "rater": "a",
                       "verdict": "pass"})  # fmt: skip
    with pytest.raises(RunFileError, match=re.escape("line 1: sample: Input should be less than or equal to")):
        parse_ratings(line, "r.jsonl")
