"""``fake/writer``: an offline, deterministic writer of new cases, so ``evalcore generate`` runs without keys.

It reads the prompt :mod:`evalcore.execution.generate` writes: the source between ``<source>`` tags, an existing
case of the dataset between ``<example>`` tags, and the line ``Write N new cases``. It answers
``{"cases": [...]}`` with N cases, one per sentence of the source (round the sentences again when there are
fewer): the input asks about the sentence, the expected answer is in the example's form (a free-text answer
quoting the sentence, the example's label, or the example's object of fields or actions). When N is at least 3,
the second case is the first one again in other capitals and punctuation (a near-duplicate) and the last one
has no expected answer (malformed): the generator's filters are tested by them. The same prompt and ``seed``
setting give the same cases.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from typing import Any

from evalcore.core.errors import CallFailed
from evalcore.core.records import Usage
from evalcore.models.types import Reply, Request

#: The model id.
MODEL = "fake/writer"
#: USD per input and output token: priced, so a ``--max-cost`` cap can bound its calls.
PRICES = (5.0e-7, 2.0e-6)
#: Simulated seconds per call, scaled by ``EVALCORE_FAKE_LATENCY_SCALE``.
LATENCY_S = 0.8
_SETTINGS = frozenset({"temperature", "max_tokens", "top_p", "seed"})
_SOURCE = re.compile(r"<source[^>]*>\n?(.*?)\n?</source>", re.DOTALL)
_EXAMPLE = re.compile(r"<example>\n?(.*?)\n?</example>", re.DOTALL)
_COUNT = re.compile(r"Write (\d+) new cases?")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


class WriterProvider:
    """Answers ``fake/writer``."""

    def refusal(self, model: str, settings: dict[str, Any]) -> str | None:
        if model != MODEL:
            return f"{model} is not a fake writer (the fake writer is {MODEL})"
        unknown = sorted(set(settings) - _SETTINGS)
        return f"{model} does not take {unknown[0]}" if unknown else None

    def missing_keys(self, model: str, api_base: str | None) -> list[str]:
        return []

    def takes_images(self, model: str) -> bool:
        return False

    async def complete(self, request: Request) -> Reply:
        from evalcore.models.fakes import latency_scale

        if request.contender.model != MODEL:
            raise CallFailed("bad_request", f"unknown fake model {request.contender.model}")
        prompt = "\n".join(str(m.get("content") or "") for m in request.messages)
        latency = LATENCY_S * latency_scale()
        await asyncio.sleep(latency)
        text = json.dumps({"cases": written_cases(prompt, request.contender.settings.get("seed"))}, ensure_ascii=False)
        words_in, words_out = len(prompt.split()), len(text.split())
        usage = Usage(words_in, words_out, words_in * PRICES[0] + words_out * PRICES[1])
        return Reply(text=text, usage=usage, latency_s=latency)


def written_cases(prompt: str, seed: Any = None) -> list[dict[str, Any]]:
    """The cases ``fake/writer`` answers ``prompt`` with (see the module)."""
    source = _SOURCE.search(prompt)
    example_text = _EXAMPLE.search(prompt)
    asked = _COUNT.search(prompt)
    count = int(asked.group(1)) if asked else 3
    example = json.loads(example_text.group(1)) if example_text else {"input": "", "expected": ""}
    sentences = [" ".join(s.split()) for s in _SENTENCE.split(source.group(1) if source else "") if len(s.split()) >= 4]
    if not sentences:
        return []
    random.Random(json.dumps([seed, sentences])).shuffle(sentences)
    cases = [_case(sentences[i % len(sentences)], example, i // len(sentences)) for i in range(count)]
    if count >= 3:
        cases[1] = dict(cases[0], input=_shouted(cases[0]["input"]))
        cases[-1] = {k: v for k, v in cases[-1].items() if k != "expected"}
    return cases


def _case(sentence: str, example: dict[str, Any], round_: int) -> dict[str, Any]:
    claim = sentence.rstrip(".!?")
    question = f"Is it true that {claim[:1].lower()}{claim[1:]}?" + (f" (asked again, {round_ + 1})" if round_ else "")
    expected = example.get("expected")
    if isinstance(expected, str) and len(expected.split()) > 1:
        expected = f"Yes. {sentence}"
    case_input: Any = question
    if isinstance(example.get("input"), dict):
        case_input = dict(example["input"])
        key = next((k for k, v in case_input.items() if isinstance(v, str)), "question")
        case_input[key] = question
    return {"variant": example.get("variant") or "generated", "input": case_input, "expected": expected}


def _shouted(value: Any) -> Any:
    """The same input in capitals with more punctuation: a near-duplicate by the generator's rule."""
    if isinstance(value, str):
        return value.upper().replace("?", "?!")
    return {k: _shouted(v) for k, v in value.items()} if isinstance(value, dict) else value
