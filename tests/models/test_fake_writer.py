"""``fake/writer``: cases written from the prompt's source in the example's form, the same for the same prompt and
seed, with a near-duplicate and a malformed case among three or more; answered through the registry."""

from __future__ import annotations

import asyncio
import json

from evalcore.core.records import Contender
from evalcore.execution.estimate import prices_of
from evalcore.models.fake_writer import MODEL, PRICES, WriterProvider, written_cases
from evalcore.models.registry import get_provider
from evalcore.models.types import Request

SOURCE = "Items can be returned within 30 days. Sale items cannot be refunded at all. Shipping is free over 50 dollars."


def prompt(example: dict, count: int) -> str:
    shown = f"<example>\n{json.dumps(example)}\n</example>\n"
    return shown + f'<source name="a">\n{SOURCE}\n</source>\nWrite {count} new cases'


def test_free_text_cases_quote_the_source_and_repeat_for_the_same_seed():
    example = {"variant": "returns", "input": "Can I?", "expected": "Yes. You can."}
    cases = written_cases(prompt(example, 2), seed=1)
    assert cases == written_cases(prompt(example, 2), seed=1)
    assert [c["variant"] for c in cases] == ["returns", "returns"]
    assert all(c["input"].startswith("Is it true that") and c["expected"].startswith("Yes. ") for c in cases)


def test_three_or_more_cases_hold_a_near_duplicate_and_a_malformed_one():
    cases = written_cases(prompt({"input": "q", "expected": "billing"}, 4), seed=0)
    assert cases[1]["input"] == cases[0]["input"].upper().replace("?", "?!")
    assert "expected" not in cases[-1] and cases[0]["expected"] == "billing"  # a label stays the example's


def test_an_object_expected_answer_keeps_its_form():
    example = {"input": {"message": "hi", "lang": "en"}, "expected": {"actions": [{"name": "lookup"}]}}
    (case,) = written_cases(prompt(example, 1))
    assert case["input"]["lang"] == "en" and case["input"]["message"].startswith("Is it true")
    assert case["expected"] == example["expected"]


def test_the_registry_answers_fake_writer_with_a_priced_reply(monkeypatch):
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")
    provider = get_provider(MODEL)
    writer = Contender(MODEL, MODEL, {"seed": 3})
    assert isinstance(provider, WriterProvider) and provider.refusal(MODEL, {"seed": 3}) is None
    assert provider.refusal(MODEL, {"reasoning_effort": "high"}) == "fake/writer does not take reasoning_effort"
    reply = asyncio.run(provider.complete(Request(writer, [{"role": "user", "content": prompt({}, 2)}])))
    assert len(json.loads(reply.text)["cases"]) == 2 and reply.usage.cost_usd > 0
    assert prices_of(writer) == PRICES
