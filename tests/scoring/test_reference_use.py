"""Every registered scorer declares whether it needs a case's expected answer, and the declaration is true:
a scorer declared free of it (with the options that make it so) scores a reply the same whatever the expected
answer, and a judge freed of it is never shown it."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from typing import Any

import pytest

from evalcore.core.records import Case, Usage
from evalcore.models.types import Reply
from evalcore.scoring.adapters import Context, Parsed
from evalcore.scoring.scorers import REFERENCE, SCORERS, reference_free

#: The options a scorer needs to be built at all, and those that free it of the expected answer.
OPTIONS: dict[str, dict[str, Any]] = {
    "max_chars": {"limit": 280},
    "regex_absent": {"pattern": "as an AI"},
    "regex": {"pattern": "[Rr]eturn"},
    "numbers": {"numbers": {"groundedness": {}}},
    "llm_judge": {"model": "fake/judge", "reference": "none"},
}
CASE = Case("tickets", "t1", "default", "Can I return my blender?", None)
EXPECTS = ["Yes, within 30 days: a SECRET-REFERENCE.", {"answer": "SECRET-REFERENCE"}, None]
REPLY = "Yes, you can return it within 30 days."
FREED = sorted(name for name, use in REFERENCE.items() if use.frees(OPTIONS.get(name, {})))


def test_every_registered_scorer_declares_whether_it_needs_an_expected_answer():
    assert set(REFERENCE) == set(SCORERS)


def test_a_scorer_that_reads_the_expected_answer_is_not_declared_free_without_its_option():
    assert not reference_free("exact", {})
    assert not reference_free("regex", {})
    assert reference_free("regex", {"pattern": "x"})
    assert not reference_free("llm_judge", {"model": "fake/judge"})
    assert reference_free("llm_judge", {"model": "fake/judge", "reference": "none"})


def test_a_custom_scorer_is_free_of_the_expected_answer_only_when_it_says_so():
    class Says:
        reference_free = True

    assert reference_free("checks:Says", {}, Says())
    assert not reference_free("checks:Silent", {}, object())


class RecordingJudge:
    """The run's client for a judge: it keeps what the judge was shown and gives one verdict."""

    def __init__(self) -> None:
        self.shown: list[Any] = []

    async def complete(self, messages: Any, **_: Any) -> Reply:
        self.shown.append(messages)
        return Reply(json.dumps({"correct": 1, "reasoning": "ok"}), Usage(10, 5, 0.0), 0.01, 1)


def _score(name: str, expected: Any) -> tuple[dict[str, Any], str]:
    """The metrics, and what a model was shown ('' for a scorer that asks none)."""
    scorer = SCORERS[name](**OPTIONS.get(name, {}))
    case, context = replace(CASE, expected=expected), Context("", ())
    parsed = Parsed(output=REPLY, numbers={"groundedness": 0.5})
    if name == "llm_judge":
        client = RecordingJudge()
        scored = asyncio.run(scorer.ascore(case, parsed, context, client))
        return scored.metrics, json.dumps(client.shown)
    return scorer.score(case, parsed, context).metrics, ""


@pytest.mark.parametrize("name", FREED)
def test_a_scorer_declared_free_of_the_expected_answer_scores_the_same_whatever_it_is(name: str):
    scored = [_score(name, expected) for expected in EXPECTS]
    assert all(metrics == scored[0][0] for metrics, _ in scored)
    assert all("SECRET-REFERENCE" not in seen for _, seen in scored)
