import asyncio
import json
import sys

import pytest

from evalcore.core.errors import CallFailed
from evalcore.core.images import data_url, sha256_of
from evalcore.core.records import Case, Contender
from evalcore.core.schema import FieldSpec
from evalcore.models.fakes import FAKES, FakeProvider
from evalcore.models.registry import get_provider
from evalcore.models.types import Request

FIELDS = (
    FieldSpec("name", "string"),
    FieldSpec("kind", "enum", values=("a", "b")),
    FieldSpec("count", "integer"),
    FieldSpec("ok", "boolean"),
)
EXPECTED = {"name": "Ann", "kind": None, "count": 3, "ok": None}


def _request(model, case_id="c1", sample=0, settings=None, max_attempts=4):
    contender = Contender(model, model, settings or {})
    return Request(
        contender=contender,
        messages=[{"role": "user", "content": "some words here"}],
        case=Case("d", case_id, "v", "text", EXPECTED),
        sample=sample,
        fields=FIELDS,
        max_attempts=max_attempts,
        backoff_s=0,
    )


def _ask(model, case_id="c1", sample=0, settings=None, max_attempts=4):
    return asyncio.run(FakeProvider().complete(_request(model, case_id, sample, settings, max_attempts)))


def test_fake_model_ids_go_to_the_fake_provider():
    assert isinstance(get_provider("fake/oracle"), FakeProvider)


def test_fake_models_are_checked_and_answer_without_litellm(monkeypatch):
    monkeypatch.setitem(sys.modules, "litellm", None)  # any import of litellm now raises ImportError
    provider = get_provider("fake/guesser")
    assert provider.refusal("fake/guesser", {"reasoning_effort": "low"}) is None
    assert provider.missing_keys("fake/guesser", None) == []
    reply = asyncio.run(provider.complete(_request("fake/guesser")))
    assert json.loads(reply.text).keys() == EXPECTED.keys()


def test_oracle_answers_the_expected_object():
    assert json.loads(_ask("fake/oracle").text) == EXPECTED


def test_answers_are_deterministic_per_model_case_and_sample():
    assert _ask("fake/guesser", "c7", 1).text == _ask("fake/guesser", "c7", 1).text


def test_guesser_fills_in_open_fields_across_cases():
    invented = sum(json.loads(_ask("fake/guesser", f"c{i}").text)["kind"] is not None for i in range(40))
    assert 5 <= invented <= 35


def test_cautious_never_invents_a_value():
    for i in range(40):
        answer = json.loads(_ask("fake/cautious", f"c{i}").text)
        assert answer["kind"] is None and answer["ok"] is None


def test_flaky_fails_some_calls_after_its_attempts_and_counts_them():
    outcomes = []
    for i in range(60):
        try:
            outcomes.append(_ask("fake/flaky", f"c{i}", max_attempts=2).attempts)
        except CallFailed as exc:
            assert exc.kind == "rate_limit" and exc.attempts == 2
            outcomes.append("error")
    assert "error" in outcomes and 2 in outcomes and 1 in outcomes


def test_sloppy_sometimes_replies_with_invalid_json():
    bad = 0
    for i in range(60):
        try:
            json.loads(_ask("fake/sloppy", f"c{i}").text)
        except json.JSONDecodeError:
            bad += 1
    assert 3 <= bad <= 30


def test_usage_has_tokens_and_a_cost_from_the_fake_price():
    reply = _ask("fake/oracle")
    spec = FAKES["oracle"]
    usage = reply.usage
    assert usage.input_tokens > 0 and usage.output_tokens > 0
    assert usage.cost_usd == pytest.approx(
        usage.input_tokens * spec.input_cost_per_token + usage.output_tokens * spec.output_cost_per_token
    )


def test_high_effort_costs_more_output_tokens():
    low = _ask("fake/guesser", settings={"reasoning_effort": "low"}).usage.output_tokens
    high = _ask("fake/guesser", settings={"reasoning_effort": "high"}).usage.output_tokens
    assert high > low


def test_latency_is_scaled_by_the_environment(monkeypatch):
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")
    assert _ask("fake/oracle").latency_s == 0
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0.001")
    assert 0 < _ask("fake/oracle").latency_s < 0.01


def test_skill_answers_a_case_right_with_its_chance_and_nested_under_one_seed():
    provider = FakeProvider()
    assert "needs a skill setting" in provider.refusal("fake/skill", {})
    assert provider.refusal("fake/skill", {"skill": 0.7, "seed": 1}) is None

    def right(skill, seed=0):
        answers = []
        for i in range(300):
            request = _request("fake/skill", case_id=f"c/{i}", settings={"skill": skill, "seed": seed})
            answers.append(asyncio.run(provider.complete(request)).text == json.dumps(request.case.expected))
        return answers

    better, worse, other = right(0.8), right(0.5), right(0.5, seed=1)
    assert 0.7 < sum(better) / 300 < 0.9 and 0.4 < sum(worse) / 300 < 0.6
    assert all(b for b, w in zip(better, worse, strict=True) if w)  # nested: right wherever the worse one is
    assert worse != other  # another seed errs on other cases


def test_the_suites_doc_names_every_fake_and_the_metadata_that_makes_them_err():
    from pathlib import Path

    from evalcore.models.fakes import FAKES

    doc = (Path(__file__).resolve().parents[2] / "docs" / "suites.md").read_text()
    section = doc.split("## How the fake models go wrong", 1)[1].split("\n## ", 1)[0]
    for name in FAKES:
        assert f"`fake/{name}`" in section, name
    for key in ("confusable", "distractors"):
        assert f"`{key}`" in section, key


PIXELS = b"\x89PNG\r\n\x1a\n receipt"


def _vision_request(shown: bytes | None) -> Request:
    ref = {"path": "r.png", "media_type": "image/png", "sha256": sha256_of(PIXELS), "bytes": len(PIXELS)}
    content: list[dict] = [{"type": "text", "text": "What is the total?"}]
    if shown is not None:
        content.append({"type": "image_url", "image_url": {"url": data_url("image/png", shown)}})
    return Request(
        contender=Contender("fake/vision", "fake/vision"),
        messages=[{"role": "user", "content": content}],
        case=Case("d", "c1", "v", {"text": "What is the total?", "images": [ref]}, "6.00"),
        backoff_s=0,
    )


def test_fake_vision_answers_when_the_request_carries_the_case_s_image():
    assert asyncio.run(FakeProvider().complete(_vision_request(PIXELS))).text == "6.00"


def test_fake_vision_says_it_was_shown_no_image_when_the_request_has_none():
    assert asyncio.run(FakeProvider().complete(_vision_request(None))).text == "I was shown no image."


def test_fake_vision_tells_another_image_from_the_case_s():
    reply = asyncio.run(FakeProvider().complete(_vision_request(b"another picture")))
    assert reply.text == "These are not the images of this case."


def test_fake_vision_and_the_fake_judges_take_images_and_the_other_fakes_do_not():
    takers = {f"fake/{name}" for name in FAKES if FakeProvider().takes_images(f"fake/{name}")}
    assert takers == {"fake/vision", *(f"fake/{n}" for n, spec in FAKES.items() if spec.judge)}
