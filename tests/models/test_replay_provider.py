"""The replay provider hands back stored replies by key, and fails with kind ``replay`` where it has none."""

from __future__ import annotations

import asyncio

import pytest

from evalcore.core.errors import CallFailed
from evalcore.core.records import Case, Contender, Usage
from evalcore.models.replay import ReplayProvider, StoredAnswer, StoredFailure
from evalcore.models.types import Reply, Request

ORACLE = Contender("fake/oracle · t=0", "fake/oracle", {"temperature": 0})
CASE = Case("shop", "complete/001", "complete", "Ann needs kind a.", {"kind": "a"})
STORED = StoredAnswer('{"kind": "a"}', Usage(120, 14, 0.0021), 1.25, 2)


def ask(provider: ReplayProvider, contender: Contender = ORACLE, case: Case | None = CASE, sample: int = 0) -> Reply:
    request = Request(contender, [{"role": "user", "content": "Ann needs kind a."}], case=case, sample=sample)
    return asyncio.run(provider.complete(request))


def failure(provider: ReplayProvider, **options: object) -> CallFailed:
    with pytest.raises(CallFailed) as caught:
        ask(provider, **options)  # type: ignore[arg-type]
    assert caught.value.kind == "replay"
    return caught.value


def test_a_stored_reply_comes_back_with_its_usage_latency_and_attempts() -> None:
    provider = ReplayProvider("run r1", {(ORACLE.id, "shop", "complete/001", 0): STORED})
    reply = ask(provider)
    assert (reply.text, reply.usage, reply.latency_s, reply.attempts) == (STORED.raw, STORED.usage, 1.25, 2)


def test_a_key_without_a_stored_result_is_a_replay_error_that_names_it() -> None:
    provider = ReplayProvider("run r1", {(ORACLE.id, "shop", "complete/001", 0): STORED})
    message = failure(provider, sample=1).message
    assert message == "replay of run r1: it holds no result for fake/oracle · t=0 on shop/complete/001, sample 1"


def test_a_key_with_a_reason_fails_with_that_reason() -> None:
    provider = ReplayProvider("run r1", {(ORACLE.id, "shop", "complete/001", 0): "the stored call failed"})
    assert failure(provider).message == "replay of run r1: the stored call failed"


def test_a_stored_failure_fails_again_with_its_latency_and_attempts() -> None:
    failed = StoredFailure("the stored call failed (timeout: 60 s)", latency_s=60.0, attempts=4)
    provider = ReplayProvider("run r1", {(ORACLE.id, "shop", "complete/001", 0): failed})
    caught = failure(provider)
    assert (caught.message, caught.latency_s, caught.attempts) == (
        "replay of run r1: the stored call failed (timeout: 60 s)",
        60.0,
        4,
    )


def test_a_contender_the_run_cannot_answer_fails_on_every_call() -> None:
    provider = ReplayProvider("run r1", {(ORACLE.id, "shop", "complete/001", 0): STORED}, {ORACLE.id: "prompt changed"})
    assert failure(provider).message == "replay of run r1: prompt changed"


def test_a_replay_needs_no_key_and_refuses_no_model() -> None:
    provider = ReplayProvider("run r1", {})
    assert provider.missing_keys("openai/gpt-4o-mini", None) == []
    assert provider.refusal("openai/gpt-4o-mini", {"temperature": 3}) is None
    assert "without a case" in failure(provider, case=None).message
