"""What names a request in the reply cache: everything that can change the reply, and nothing else."""

from __future__ import annotations

import dataclasses
from typing import Any

from evalcore.core.records import Case, Contender
from evalcore.models.cache import request_digest
from evalcore.models.fakes import FakeProvider
from evalcore.models.types import Request

IMAGE = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAE"


def request(**changes: Any) -> Request:
    contender = Contender("m", "openai/m", {"temperature": 0.7}, api_base="http://127.0.0.1:1/v1")
    image = {"type": "image_url", "image_url": {"url": IMAGE}}
    messages = [{"role": "user", "content": [{"type": "text", "text": "What is it?"}, image]}]
    return dataclasses.replace(Request(contender=contender, messages=messages), **changes)


def test_the_same_request_has_the_same_digest() -> None:
    assert request_digest(request()) == request_digest(request())


def test_the_sample_index_is_part_of_the_key() -> None:
    assert request_digest(request(sample=1)) != request_digest(request())


def test_each_setting_sent_is_part_of_the_key_and_the_prompt_name_is_not() -> None:
    base = request()
    hotter = dataclasses.replace(base.contender, settings={"temperature": 1.0})
    named = dataclasses.replace(base.contender, settings={"temperature": 0.7, "prompt": "short"})
    assert request_digest(request(contender=hotter)) != request_digest(base)
    assert request_digest(request(contender=named)) == request_digest(base)  # the prompt is in the messages


def test_the_model_endpoint_tools_and_response_format_are_part_of_the_key() -> None:
    base = request()
    other_base = dataclasses.replace(base.contender, api_base="http://127.0.0.1:2/v1")
    tools = [{"type": "function", "function": {"name": "lookup", "parameters": {}}}]
    digests = {
        request_digest(base),
        request_digest(request(contender=dataclasses.replace(base.contender, model="openai/n"))),
        request_digest(request(contender=other_base)),
        request_digest(request(params={"tools": tools})),
        request_digest(request(response_format={"type": "json_object"})),
    }
    assert len(digests) == 5


def test_an_image_counts_by_its_bytes() -> None:
    other = IMAGE.replace("ggg", "ggh")
    messages = [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": other}}]}]
    assert request_digest(request(messages=messages)) != request_digest(request())


def test_a_fake_models_key_holds_the_expected_answer_it_reads() -> None:
    case = Case("shop", "001", "plain", "text", {"name": "Ann"})
    changed = dataclasses.replace(case, expected={"name": "Bob"})
    fake = FakeProvider()
    digest = lambda c: request_digest(request(case=c), fake.cache_extra(request(case=c)))  # noqa: E731
    assert digest(case) != digest(changed)
