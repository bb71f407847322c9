"""The fake judges' verdicts on a reply with no reference at all (a traced call): graded against the question."""

from __future__ import annotations

import asyncio
import json

from evalcore.core.records import Case, Contender
from evalcore.models.fakes import FakeProvider
from evalcore.models.types import Request
from evalcore.scoring.judge_prompt import judge_messages

QUESTION = "How do I reset my router password?"


def _verdict(answer: str) -> dict[str, float]:
    case = Case("traces", "span1", "default", {"messages": [{"role": "user", "content": QUESTION}]}, None)
    messages = judge_messages("Is it helpful?", ["correct"], (0.0, 1.0), case, answer, reference=False)
    request = Request(contender=Contender("fake/judge", "fake/judge"), messages=messages, case=case, backoff_s=0)
    return json.loads(asyncio.run(FakeProvider().complete(request)).text)


def test_a_fake_judge_without_a_reference_scores_a_reply_that_takes_up_the_question_higher():
    on_topic = _verdict("To reset your router password, hold the reset button, then set a new password.")
    off_topic = _verdict("Our opening hours are nine to five.")
    assert on_topic["correct"] > 0.2 > 0.1 > off_topic["correct"]
