"""An ``llm_judge`` shown few-shot examples people graded (what ``evalcore judge align`` writes), and the fake
judge that learns from them."""

from __future__ import annotations

import asyncio
import json

import pytest

from evalcore.core.errors import ConfigError
from evalcore.core.records import Case, Contender
from evalcore.models.fakes import FakeProvider
from evalcore.models.types import Request
from evalcore.scoring.judge import LlmJudge
from evalcore.scoring.judge_prompt import Example, judge_messages

CASE = Case("tickets", "r01", "returns", "Can I return my lamp after 21 days for a refund?", "Yes, within 60 days.")
ALIKE = Example("Can I return my chair after 26 days for a refund?", "Yes, within 60 days.", "fail")
UNLIKE = Example("How long does delivery to Peru take by express mail?", "Three to five days.", "fail")


def test_the_prompt_shows_the_examples_between_the_rubric_and_the_question():
    text = judge_messages("Rubric.", ["correct"], (0, 1), CASE, "Yes.", True, [ALIKE])[1]["content"]
    assert text.index("## Rubric") < text.index("## Examples graded by people") < text.index("## Question")
    assert "<example>\nQuestion: Can I return my chair after 26 days for a refund?\n" in text
    assert "People's verdict: fail\n</example>" in text


def test_a_judge_without_examples_asks_the_prompt_it_always_did():
    plain = judge_messages("Rubric.", ["correct"], (0, 1), CASE, "Yes.", True)
    assert "Examples" not in plain[1]["content"]
    assert LlmJudge("fake/judge").examples == []


def test_the_examples_option_reads_a_file_in_the_suite_folder(tmp_path):
    (tmp_path / "judges").mkdir()
    data = {"examples": [{"question": "Q?", "answer": "A.", "verdict": "pass"}], "aligned_from": {"run": "r"}}
    (tmp_path / "judges" / "aligned.yaml").write_text(json.dumps(data), encoding="utf-8")
    judge = LlmJudge("fake/judge", examples="judges/aligned.yaml", suite_dir=tmp_path)
    assert judge.examples == [Example("Q?", "A.", "pass")]


@pytest.mark.parametrize(
    ("examples", "says"),
    [
        ("judges/missing.yaml", "cannot read"),
        ([{"question": "Q?", "answer": "A."}], "is not {question, answer, verdict}"),
        ({"question": "Q?"}, "give a list"),
    ],
)
def test_bad_examples_are_one_line_config_errors(tmp_path, examples, says):
    with pytest.raises(ConfigError, match=r"examples.*" + says.replace("{", r"\{").replace("}", r"\}")):
        LlmJudge("fake/judge", examples=examples, suite_dir=tmp_path)


def _verdict(model: str, examples: list[Example]) -> float:
    messages = judge_messages("Rubric.", ["correct"], (0, 1), CASE, CASE.expected, True, examples)
    request = Request(Contender(model, model), messages, case=CASE, max_attempts=1, backoff_s=0)
    return json.loads(asyncio.run(FakeProvider().complete(request)).text)["correct"]


def test_the_learner_grades_like_people_did_an_example_alike():
    assert _verdict("fake/judge-learner", []) >= 0.9  # the reference's own words: it passes, as fake/judge does
    assert _verdict("fake/judge-learner", [ALIKE]) <= 0.1  # people failed a question alike: so does it


def test_the_learner_ignores_examples_of_another_kind():
    assert _verdict("fake/judge-learner", [UNLIKE]) == _verdict("fake/judge-learner", [])


def test_a_judge_that_does_not_learn_ignores_every_example():
    assert _verdict("fake/judge", [ALIKE]) == _verdict("fake/judge", [])


def test_the_learner_rewrites_a_rubric_with_a_rule_per_example():
    from evalcore.models import fake_learner
    from evalcore.scoring.judge_prompt import REWRITE_HEADING, parse_rubric, rubric_messages

    assert fake_learner.REWRITE == REWRITE_HEADING
    messages = rubric_messages("Is it right?", [ALIKE])
    request = Request(Contender("fake/judge-learner", "fake/judge-learner"), messages, max_attempts=1, backoff_s=0)
    rubric = parse_rubric(asyncio.run(FakeProvider().complete(request)).text)
    assert rubric == "Is it right?\nPeople's verdict: fail for questions like: " + ALIKE.question
    judged = judge_messages(rubric, ["correct"], (0, 1), CASE, CASE.expected, True)
    verdict = FakeProvider().complete(Request(Contender("fake/judge-learner", "fake/judge-learner"), judged, case=CASE))
    assert json.loads(asyncio.run(verdict).text)["correct"] <= 0.1  # the rule alone teaches it


@pytest.mark.parametrize("reply", ['{"rubric": ""}', '{"rubric": "x", "why": "y"}', "Here is a rubric."])
def test_a_rewrite_reply_that_is_not_a_rubric_is_refused(reply):
    from evalcore.scoring.judge_prompt import VerdictError, parse_rubric

    with pytest.raises(VerdictError):
        parse_rubric(reply)
