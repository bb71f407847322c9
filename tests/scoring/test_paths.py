"""evalcore.scoring.paths: JSONPath-like paths that pick an answer out of a JSON reply."""

from __future__ import annotations

import pytest

from evalcore.scoring.paths import Missing, PathError, parse_path

REPLY = {
    "choices": [{"message": {"content": "hi"}}, {"message": {"content": "second"}}],
    "answer": {"text": "42", "the key": {"a.b": 1}},
}


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("choices[0].message.content", "hi"),
        ("$.choices[-1].message.content", "second"),
        ("$.answer.text", "42"),
        ("answer", REPLY["answer"]),
        ("$", REPLY),
        ("""answer["the key"]['a.b']""", 1),
        ("$['answer'].text", "42"),
    ],
)
def test_a_path_picks_its_value(path, value):
    assert parse_path(path).pick(REPLY) == value


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("answer.txt", "no key 'txt' in answer"),
        ("choices[2].message", "choices has 2 items, no [2]"),
        ("answer.text.more", "answer.text is a string, not an object"),
        ("answer[0]", "answer is an object, not a list"),
    ],
)
def test_a_missing_value_says_which_step_failed(path, problem):
    with pytest.raises(Missing) as caught:
        parse_path(path).pick(REPLY)
    assert str(caught.value) == problem


@pytest.mark.parametrize("path", ["a..b", "a[x]", "a.", "$$", "a b", "[0"])
def test_a_path_that_does_not_parse_names_where_it_stops(path):
    with pytest.raises(PathError) as caught:
        parse_path(path)
    assert "at character" in str(caught.value) and repr(path) in str(caught.value)
