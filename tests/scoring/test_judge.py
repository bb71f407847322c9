"""The ``llm_judge`` scorer: its options, its prompt, strict verdicts, panels, and the fake judges."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from typing import Any

import pytest

from evalcore.core.errors import CallFailed, ConfigError
from evalcore.core.records import Case, Contender, Usage
from evalcore.models.fakes import FakeProvider
from evalcore.models.types import Reply, Request
from evalcore.scoring.adapters import Context, Parsed
from evalcore.scoring.judge import JudgeFailed, LlmJudge, judge_records, stored_verdicts
from evalcore.scoring.judge_prompt import VerdictError, judge_messages, parse_verdict, verdict_key

CASE = Case(
    "tickets",
    "r01",
    "returns",
    "Policy:\nItems can be returned within 30 days.\n\nCustomer:\nCan I return my blender after 12 days?",
    "Yes. You can return the blender because it is within 30 days of delivery.",
)
CONTEXT = Context(instructions="Answer the customer.", fields=())


class ScriptedClient:
    """A stand-in for the run's client: each judge model answers with its own text, usage and attempts."""

    def __init__(self, replies: dict[str, str], cost: float = 0.001):
        self.replies, self.cost = replies, cost
        self.asked: list[tuple[str, list[dict[str, Any]], Any]] = []

    async def complete(self, messages: Any, *, model: str, settings: Any, api_base: Any, response_format: Any) -> Reply:
        self.asked.append((model, messages, response_format))
        text = self.replies[model]
        if text.startswith("fail:"):
            raise CallFailed("rate_limit", text[5:], attempts=3, latency_s=0.2)
        return Reply(text=text, usage=Usage(100, 20, self.cost), latency_s=0.5, attempts=2)


def judge_of(replies: dict[str, str], **options: Any) -> tuple[LlmJudge, ScriptedClient]:
    models = list(replies)
    return LlmJudge(model=models if len(models) > 1 else models[0], **options), ScriptedClient(replies)


def score(judge: LlmJudge, client: ScriptedClient, output: str = "Yes, within 30 days.") -> Any:
    return asyncio.run(judge.ascore(CASE, Parsed(output=output), CONTEXT, client))  # type: ignore[arg-type]


def test_each_dimension_is_a_metric_mapped_from_the_scale_and_the_mean_is_primary():
    reply = json.dumps({"correct": 5, "grounded": 4, "tone": 2, "reasoning": "mostly right"})
    judge, client = judge_of({"openai/gpt-4o-mini": reply}, dimensions=["correct", "grounded", "tone"], scale=[1, 5])
    scored = score(judge, client)
    assert scored.metrics == pytest.approx({"correct": 1.0, "grounded": 0.75, "tone": 0.25, "judge_score": 2 / 3})
    assert [m.name for m in judge.metrics if m.primary] == ["judge_score"]
    assert client.asked[0][2] == {"type": "json_object"}


def test_the_record_keeps_prompt_reply_verdict_reasoning_usage_and_latency():
    reply = json.dumps({"correct": 1, "reasoning": "same outcome"})
    judge, client = judge_of({"openai/gpt-4o-mini": reply})
    record = score(judge, client).diagnostics["judge"]
    (one,) = record["judges"]
    (call,) = one["calls"]
    assert one["model"] == "openai/gpt-4o-mini" and one["messages"] == client.asked[0][1]
    assert one["key"] == verdict_key("openai/gpt-4o-mini", one["messages"])
    assert (call["raw"], call["verdict"], call["reasoning"]) == (reply, {"correct": 1.0}, "same outcome")
    assert (call["input_tokens"], call["output_tokens"], call["cost_usd"], call["latency_s"]) == (100, 20, 0.001, 0.5)
    assert (record["cost_usd"], record["attempts"], record["calls"]) == (0.001, 2, 1)


def test_a_panel_averages_its_judges_and_reports_their_spread():
    a = json.dumps({"correct": 5, "tone": 5, "reasoning": "fine"})  # judge a: 1.0, 1.0 -> 1.0
    b = json.dumps({"correct": 3, "tone": 2, "reasoning": "meh"})  # judge b: 0.5, 0.25 -> 0.375
    judge, client = judge_of({"openai/a": a, "openai/b": b}, dimensions=["correct", "tone"], scale=[1, 5])
    scored = score(judge, client)
    assert scored.metrics["correct"] == pytest.approx(0.75)
    assert scored.metrics["tone"] == pytest.approx(0.625)
    assert scored.metrics["judge_score"] == pytest.approx(0.6875)
    assert scored.metrics["judge_disagreement"] == pytest.approx(1.0 - 0.375)
    assert [m.higher_is_better for m in judge.metrics if m.name == "judge_disagreement"] == [False]
    assert record_cost(scored) == pytest.approx(0.002)


@pytest.mark.parametrize(("b_correct", "flagged"), [(2, 1.0), (3, 1.0), (4, 0.0)])
def test_a_panel_flags_a_result_whose_judges_spread_by_at_least_the_threshold(b_correct, flagged):
    a = json.dumps({"correct": 5, "reasoning": "right"})  # 1.0; judge b: 0.25, 0.5 or 0.75
    b = json.dumps({"correct": b_correct, "reasoning": "unsure"})
    judge, client = judge_of({"openai/a": a, "openai/b": b}, scale=[1, 5], disagreement_threshold=0.5)
    assert score(judge, client).metrics["judge_flagged"] == flagged


def test_the_flagged_metric_is_declared_only_with_a_threshold_and_lower_is_better():
    panel = ["openai/a", "openai/b"]
    assert "judge_flagged" not in [m.name for m in LlmJudge(model=panel).metrics]
    (flagged,) = [m for m in LlmJudge(model=panel, disagreement_threshold=0.3).metrics if m.name == "judge_flagged"]
    assert not flagged.higher_is_better and not flagged.primary


def record_cost(scored: Any) -> float:
    return scored.diagnostics["judge"]["cost_usd"]


def test_samples_ask_each_judge_several_times_and_average():
    judge, client = judge_of({"openai/a": json.dumps({"correct": 0.5, "reasoning": "half"})}, samples=3)
    scored = score(judge, client)
    assert len(client.asked) == 3 and scored.metrics["correct"] == 0.5
    assert len(scored.diagnostics["judge"]["judges"][0]["calls"]) == 3


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ("The answer is good. 4/5", "not JSON"),
        ("[1, 2]", "not an object"),
        ('{"reasoning": "x"}', "has no correct"),
        ('{"correct": 7, "reasoning": "x"}', "outside the scale"),
        ('{"correct": true, "reasoning": "x"}', "not a number"),
        ('{"correct": 1, "reasoning": "x", "bonus": 1}', "not dimensions: bonus"),
        ('{"correct": 1}', "reasoning is None"),
    ],
)
def test_a_reply_that_is_not_a_verdict_is_a_judge_error_never_a_zero(reply, why):
    judge, client = judge_of({"openai/a": reply}, scale=[1, 5])
    with pytest.raises(JudgeFailed) as caught:
        score(judge, client)
    assert caught.value.kind == "judge" and why in caught.value.message
    assert caught.value.message.startswith("judge openai/a: ")
    assert caught.value.diagnostics["judge"]["judges"][0]["calls"][0]["raw"] == reply


def test_a_judge_call_that_fails_after_retries_is_a_judge_error_with_its_attempts():
    judge, client = judge_of({"openai/a": "fail:429 Too Many Requests"})
    with pytest.raises(JudgeFailed) as caught:
        score(judge, client)
    assert "rate_limit: 429 Too Many Requests" in caught.value.message
    assert caught.value.attempts == 3


def test_the_prompt_shows_rubric_question_reference_and_answer_and_names_the_scale():
    messages = judge_messages("Be strict.", ["correct", "tone"], (1.0, 5.0), CASE, "Yes.", reference=True)
    text = messages[1]["content"]
    assert "Be strict." in text and "Can I return my blender" in text
    assert "<reference>\n" + CASE.expected + "\n</reference>" in text and "<answer>\nYes.\n</answer>" in text
    assert "Score each of these dimensions from 1 to 5: correct, tone." in text
    blind = judge_messages("Be strict.", ["correct"], (0.0, 1.0), CASE, "Yes.", reference=False)[1]["content"]
    assert "<reference>" not in blind and "from 0 to 1: correct." in blind


def test_parse_verdict_maps_the_scale_to_zero_one():
    verdict = parse_verdict('{"a": 3, "reasoning": "mid"}', ["a"], (1, 5))
    assert verdict.scores == {"a": 0.5} and verdict.given == {"a": 3.0}
    with pytest.raises(VerdictError):
        parse_verdict("```json\n{}\n```", ["a"], (1, 5))


@pytest.mark.parametrize(
    ("options", "key"),
    [
        ({"model": []}, "model"),
        ({"model": "fake/nope"}, "model"),
        ({"model": ["openai/a", "openai/a"]}, "model"),
        ({"model": "openai/a", "dimensions": ["score"]}, "dimensions"),
        ({"model": "openai/a", "dimensions": ["Bad Name"]}, "dimensions"),
        ({"model": "openai/a", "scale": [5, 1]}, "scale"),
        ({"model": "openai/a", "reference": "input"}, "reference"),
        ({"model": "openai/a", "samples": 0}, "samples"),
        ({"model": "openai/a", "primary": "tone"}, "primary"),
        ({"model": "openai/a", "rubric": " "}, "rubric"),
        ({"model": "openai/a", "disagreement_threshold": 0.5}, "disagreement_threshold"),
        ({"model": ["openai/a", "openai/b"], "disagreement_threshold": 0}, "disagreement_threshold"),
        ({"model": ["openai/a", "openai/b"], "disagreement_threshold": 1.5}, "disagreement_threshold"),
    ],
)
def test_bad_options_are_one_line_config_errors_naming_the_key(options, key):
    with pytest.raises(ConfigError, match=rf"^evalcore.yaml: scorers: llm_judge.options.{key}: "):
        LlmJudge(**options)


def test_a_dimension_can_be_the_primary_metric():
    judge = LlmJudge(model="openai/a", dimensions=["correct", "tone"], primary="correct")
    assert [m.name for m in judge.metrics if m.primary] == ["correct"]


def test_stored_verdicts_are_reused_when_model_and_prompt_are_unchanged():
    reply = json.dumps({"correct": 0.8, "reasoning": "good"})
    judge, client = judge_of({"openai/a": reply})
    first = score(judge, client)
    run = type("R", (), {"results": [type("X", (), {"diagnostics": first.diagnostics})()]})()
    judge.use_cache(stored_verdicts(run))  # type: ignore[arg-type]
    again = score(judge, client)
    assert len(client.asked) == 1  # the same answer: reused
    assert again.metrics == first.metrics and again.diagnostics["judge"]["cached"] == 1
    assert again.diagnostics["judge"]["cost_usd"] == 0
    score(judge, client, output="Another answer.")
    assert len(client.asked) == 2  # another prompt: asked


def test_judge_records_are_found_under_a_scorer_id_too():
    record = {"judges": []}
    assert judge_records({"judge": record}) == [record]
    assert judge_records({"llm_judge": {"judge": record}, "max_chars": {"chars": 3}}) == [record]
    assert judge_records({}) == []


def fake_verdict(model: str, answer: str, scale: tuple[float, float] = (1, 5)) -> str:
    messages = judge_messages("Rubric.", ["correct", "grounded", "tone"], scale, CASE, answer, reference=True)
    request = Request(Contender(model, model), messages, case=CASE, max_attempts=1, backoff_s=0)
    return asyncio.run(FakeProvider().complete(request)).text


def test_fake_judges_are_deterministic_and_prefer_better_answers():
    good, bad = CASE.expected, "You can return it any time within 90 days."
    for model in ("fake/judge", "fake/judge-strict"):
        assert fake_verdict(model, good) == fake_verdict(model, good)
        best, worst = json.loads(fake_verdict(model, good)), json.loads(fake_verdict(model, bad))
        assert best["correct"] == 5 and worst["correct"] < best["correct"]
        assert worst["grounded"] < best["grounded"]
    half = CASE.expected.split(" because")[0] + "."
    lenient, strict = json.loads(fake_verdict("fake/judge", half)), json.loads(fake_verdict("fake/judge-strict", half))
    assert strict["correct"] <= lenient["correct"]


def test_fake_judge_broken_sometimes_replies_with_prose():
    replies = []
    for i in range(40):
        case = replace(CASE, id=f"c{i}")
        messages = judge_messages("R.", ["correct"], (0, 1), case, case.expected, reference=True)
        request = Request(Contender("fake/judge-broken", "fake/judge-broken"), messages, case=case, max_attempts=1)
        replies.append(asyncio.run(FakeProvider().complete(request)).text)
    broken = [r for r in replies if not r.startswith("{")]
    assert 0 < len(broken) < 40
    with pytest.raises(VerdictError, match="not JSON"):
        parse_verdict(broken[0], ["correct"], (0, 1))


def test_fake_contenders_answer_free_text_worse_with_the_cases_distractors():
    case = replace(CASE, metadata={"distractors": ["We also refund shipping twice."]})
    answers = {}
    for name in ("oracle", "guesser"):
        texts = set()
        for i in range(30):
            request = Request(Contender(f"fake/{name}", f"fake/{name}"), [], case=replace(case, id=str(i)))
            texts.add(asyncio.run(FakeProvider().complete(request)).text)
        answers[name] = texts
    assert answers["oracle"] == {CASE.expected}
    assert any("refund shipping twice" in t for t in answers["guesser"])


def test_the_bundled_support_suite_verifies_offline_without_asking_its_judges():
    from pathlib import Path

    from evalcore.execution.verify import verify_suite

    report = verify_suite(Path(__file__).resolve().parents[2] / "data" / "suites" / "support")
    assert report.ok, report.lines
    assert any("not scored offline" in line for line in report.lines)
    assert report.lines[0].startswith("32 cases")
