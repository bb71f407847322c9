"""The pairwise judge: its prompt, how a reply is read, and the swap rule that makes a verdict."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from evalcore.core.errors import CallFailed, ConfigError
from evalcore.core.records import Case, Usage
from evalcore.models.types import Reply
from evalcore.scoring.judge_prompt import VerdictError
from evalcore.scoring.pairwise import PairwiseJudge
from evalcore.scoring.pairwise_prompt import pair_messages, parse_choice

CASE = Case("tickets", "r01", "tickets", "Customer: can I return it?", "Yes, within 30 days.")


def replies(*by_order: str) -> Any:
    """An ``ask`` that answers the order showing ``first`` as A with the next of ``by_order[0]``'s replies, the
    other order with ``by_order[1]``'s; it records the messages it was asked."""
    asked: list[list[dict[str, str]]] = []

    async def ask(messages: list[dict[str, str]]) -> Reply:
        asked.append(messages)
        first_shown = messages[1]["content"].split("<answer_a>\n")[1].startswith("first")
        text = by_order[0] if first_shown else by_order[1]
        return Reply(text=text, usage=Usage(100, 20, 0.001), latency_s=0.5, attempts=1)

    ask.asked = asked  # type: ignore[attr-defined]
    return ask


def choice(winner: str) -> str:
    return json.dumps({"winner": winner, "reasoning": "because"})


def compare(judge: PairwiseJudge, ask: Any) -> Any:
    return asyncio.run(judge.compare(CASE, 0, "x", "first answer", "y", "second answer", ask))


@pytest.mark.parametrize(
    ("a_first", "b_first", "outcome", "orders"),
    [
        ("A", "B", "win", ["a", "a"]),  # x's answer preferred wherever it stands
        ("B", "A", "loss", ["b", "b"]),
        ("tie", "tie", "tie", ["tie", "tie"]),
        ("A", "A", "inconsistent", ["a", "b"]),  # always the first one shown: position bias
        ("B", "B", "inconsistent", ["b", "a"]),
        ("A", "tie", "inconsistent", ["a", "tie"]),
        ("tie", "B", "inconsistent", ["tie", "a"]),
    ],
)
def test_a_verdict_counts_only_when_both_orders_agree(a_first, b_first, outcome, orders):
    verdict = compare(PairwiseJudge("fake/judge"), replies(choice(a_first), choice(b_first)))
    assert verdict.outcome == outcome and verdict.orders == orders and verdict.error is None
    assert [c["order"] for c in verdict.calls] == ["ab", "ba"]
    assert verdict.cost_usd == pytest.approx(0.002) and verdict.latency_s == pytest.approx(1.0)


def test_the_two_orders_show_the_answers_swapped():
    ask = replies(choice("A"), choice("B"))
    compare(PairwiseJudge("fake/judge"), ask)
    first, second = (m[1]["content"] for m in ask.asked)
    assert first.index("first answer") < first.index("second answer")
    assert second.index("second answer") < second.index("first answer")
    assert "<reference>\nYes, within 30 days.\n</reference>" in first


def test_a_reply_that_is_no_verdict_is_a_judge_error_never_an_outcome():
    verdict = compare(PairwiseJudge("fake/judge"), replies(choice("A"), "B is better."))
    assert verdict.outcome is None and verdict.error.kind == "judge"
    assert "reply is not JSON" in verdict.error.message and "(ba)" in verdict.error.message
    assert verdict.orders == ["a", None]
    assert verdict.calls[1]["raw"] == "B is better."


def test_a_failed_call_is_a_judge_error_naming_its_cause():
    async def ask(messages: list[dict[str, str]]) -> Reply:
        raise CallFailed("rate_limit", "429 Too Many Requests", attempts=3)

    verdict = compare(PairwiseJudge("openai/gpt-4o-mini"), ask)
    assert verdict.outcome is None and verdict.error.kind == "judge"
    assert "rate_limit: 429 Too Many Requests" in verdict.error.message
    assert [c["attempts"] for c in verdict.calls] == [3, 3]


def test_samples_vote_per_order_and_a_split_vote_is_a_tie():
    judge = PairwiseJudge("fake/judge", samples=3)
    texts = iter([choice("A"), choice("A"), choice("B"), choice("B"), choice("A"), choice("tie")])

    async def ask(messages: list[dict[str, str]]) -> Reply:
        return Reply(text=next(texts))

    verdict = compare(judge, ask)
    # a first: A, A, B -> x; b first: B, A, tie -> one each for x, y and tie: a split vote
    assert verdict.orders == ["a", "tie"] and verdict.outcome == "inconsistent"
    assert len(verdict.calls) == 6


def test_stored_calls_are_reused_when_model_and_prompt_are_unchanged():
    first = compare(PairwiseJudge("fake/judge"), replies(choice("A"), choice("B")))
    judge = PairwiseJudge("fake/judge")
    judge.use_cache([first])
    ask = replies("never asked", "never asked")
    again = compare(judge, ask)
    assert ask.asked == [] and again.outcome == "win"
    assert all(c["cached"] for c in again.calls) and again.cost_usd == 0.0
    changed = PairwiseJudge("fake/judge", rubric="Which one is shorter?")
    changed.use_cache([first])
    ask = replies(choice("A"), choice("B"))
    compare(changed, ask)
    assert len(ask.asked) == 2


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ('{"winner": "C", "reasoning": "x"}', "winner is 'C'"),
        ('{"winner": "A"}', "reasoning is None"),
        ('{"winner": "A", "reasoning": "x", "score": 3}', "keys other than winner and reasoning: score"),
        ('["A"]', "not an object"),
        ("```json\n{}\n```", "reply is not JSON"),
    ],
)
def test_a_reply_is_read_strictly(raw, problem):
    with pytest.raises(VerdictError, match=problem.replace("(", r"\(")):
        parse_choice(raw)


def test_the_prompt_without_reference_does_not_show_the_expected_answer():
    messages = pair_messages("Which is better?", CASE, "one", "two", reference=False)
    assert "<reference>" not in messages[1]["content"] and "30 days" not in messages[1]["content"]
    assert messages[1]["content"].rstrip().splitlines()[-2] == "Which answer is better, A or B?"


def test_pairs_are_every_pair_or_each_against_the_baseline():
    assert PairwiseJudge("fake/judge").pairs(["x", "y", "z"]) == [("x", "y"), ("x", "z"), ("y", "z")]
    assert PairwiseJudge("fake/judge", baseline="y").pairs(["x", "y", "z"]) == [("y", "x"), ("y", "z")]
    with pytest.raises(ConfigError, match=r"evalcore.yaml: pairwise.baseline: 'w' is not a contender id"):
        PairwiseJudge("fake/judge", baseline="w").pairs(["x", "y"])
    with pytest.raises(ConfigError, match="evalcore.yaml: pairwise: compares contenders two by two"):
        PairwiseJudge("fake/judge").pairs(["x"])


def test_an_unknown_fake_judge_is_refused_naming_the_key():
    with pytest.raises(ConfigError, match=r"^evalcore.yaml: pairwise.model: fake/nobody is not a fake model"):
        PairwiseJudge("fake/nobody")
