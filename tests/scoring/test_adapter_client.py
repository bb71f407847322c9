"""An adapter that makes its own calls: the Client it gets, and how call_adapter classifies, retries and counts."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from evalcore.core.errors import CallFailed, ConfigError, EvalcoreError
from evalcore.core.records import Case, Contender, Usage
from evalcore.models.breaker import Breaker, EndpointUnreachable
from evalcore.models.registry import get_provider
from evalcore.models.types import Reply, Request
from evalcore.scoring.adapters import Context
from evalcore.scoring.client import Client, call_adapter

CASE = Case("d", "c/001", "c", "Say hi.", "hi")
ORACLE = Contender("fake/oracle", "fake/oracle")


def client_for(contender: Contender = ORACLE, **options: Any) -> Client:
    request = Request(
        contender=contender,
        messages=[{"role": "user", "content": "Say hi."}],
        case=CASE,
        **{"backoff_s": 0.0, "max_attempts": 3, **options},
    )
    return Client(request, get_provider(contender.model), Context("", ()))


class Scripted:
    """An adapter whose call() runs ``steps`` in turn: an exception to raise, or a reply to return."""

    name = "scripted"
    response_format = None

    def __init__(self, *steps: Any):
        self.steps = list(steps)
        self.calls = 0

    async def call(self, case: Case, contender: Contender, client: Client) -> Any:
        self.calls += 1
        step = self.steps.pop(0)
        if isinstance(step, BaseException):
            raise step
        return step


def run(adapter: Any, client: Client) -> Reply:
    return asyncio.run(call_adapter(adapter, client))


class TwoTurns:
    """Asks the contender, then asks it again with its first answer: a two-turn conversation."""

    name = "two_turns"

    async def call(self, case: Case, contender: Contender, client: Client) -> Reply:
        first = await client.complete()
        turns = [*client.messages, {"role": "assistant", "content": first.text}, {"role": "user", "content": "Again."}]
        second = await client.complete(turns)
        return Reply(text=f"{first.text} / {second.text}")


def test_usage_and_attempts_are_summed_over_the_calls_the_adapter_made():
    client = client_for()
    reply = run(TwoTurns(), client)
    assert reply.text == "hi / hi"
    one = asyncio.run(get_provider("fake/oracle").complete(client._request))
    assert reply.usage.input_tokens > one.usage.input_tokens  # the second turn sends more
    assert reply.usage.cost_usd == pytest.approx(client.usage.cost_usd)
    assert reply.attempts == 2 and client.attempts == 2


def test_usage_the_adapter_reports_beats_the_clients():
    client = client_for()
    reply = run(Scripted(Reply(text="x", usage=Usage(input_tokens=7))), client)
    assert (reply.usage.input_tokens, reply.usage.output_tokens, reply.usage.cost_usd) == (7, None, None)
    assert reply.attempts == 1 and reply.latency_s >= 0


def test_a_transient_fault_the_adapter_raises_is_retried():
    adapter = Scripted(ConnectionResetError("reset by peer"), TimeoutError(), Reply(text="ok"))
    reply = run(adapter, client_for())
    assert reply.text == "ok" and reply.attempts == 3 and adapter.calls == 3


def test_a_transient_fault_on_every_attempt_fails_with_its_kind():
    adapter = Scripted(TimeoutError("slow"), TimeoutError("slow"))
    with pytest.raises(CallFailed) as caught:
        run(adapter, client_for(max_attempts=2))
    assert caught.value.kind == "timeout" and caught.value.attempts == 2
    assert caught.value.message == "adapter scripted: timeout after 2 attempts: TimeoutError: slow"


def test_an_unexpected_exception_is_an_error_of_kind_other_and_not_retried():
    adapter = Scripted(KeyError("answer"), Reply(text="never"))
    with pytest.raises(CallFailed) as caught:
        run(adapter, client_for())
    assert caught.value.kind == "other" and caught.value.attempts == 1 and adapter.calls == 1
    assert caught.value.message == "adapter scripted: other after 1 attempt: KeyError: 'answer'"


def test_a_failed_model_call_is_final_and_counts_every_attempt():
    client = client_for(max_attempts=1)
    answered = []

    class Asks:
        name = "asks"

        async def call(self, case: Case, contender: Contender, client: Client) -> Reply:
            await client.complete()
            for seed in range(20):  # fake/flaky fails half its calls (drawn by settings): one of these fails
                answered.append(await client.complete(model="fake/flaky", settings={"seed": seed}))
            return Reply(text="unreachable")

    with pytest.raises(CallFailed) as caught:
        run(Asks(), client)
    assert caught.value.kind == "rate_limit"
    assert caught.value.attempts == client.attempts == 1 + len(answered) + 1


def test_a_configuration_problem_stops_the_run():
    with pytest.raises(ConfigError):
        run(Scripted(ConfigError("evalcore.yaml: adapter.options.body: undefined")), client_for())


def test_a_call_that_returns_no_reply_is_a_programming_error():
    with pytest.raises(EvalcoreError, match=r"adapter scripted: call\(\) returned str; it must return .*Reply"):
        run(Scripted("hi"), client_for())


def test_refused_connections_open_the_contenders_breaker():
    breaker = Breaker("http://127.0.0.1:9", threshold=2)
    adapter = Scripted(ConnectionRefusedError(111, "Connection refused"), ConnectionRefusedError(111, "refused"))
    with pytest.raises(EndpointUnreachable) as caught:
        run(adapter, client_for(breaker=breaker))
    assert breaker.is_open and caught.value.message.startswith("cannot connect to http://127.0.0.1:9: ")


def test_another_model_can_be_asked_with_its_own_settings():
    client = client_for()

    class AsksAJudge:
        name = "judge"

        async def call(self, case: Case, contender: Contender, client: Client) -> Reply:
            answer = await client.complete()
            verdict = await client.complete(
                [{"role": "user", "content": f"Grade: {answer.text}"}], model="fake/guesser", settings={"seed": 1}
            )
            return Reply(text=verdict.text)

    reply = run(AsksAJudge(), client)
    assert reply.text == "hi" and reply.attempts == 2
    with pytest.raises(TypeError, match="settings= and api_base= go with model="):
        asyncio.run(client.complete(settings={"temperature": 1}))


class Recorder:
    """A provider that records the requests it gets and answers "ok"."""

    def __init__(self) -> None:
        self.requests: list[Request] = []

    async def complete(self, request: Request) -> Reply:
        self.requests.append(request)
        return Reply(text="ok", usage=Usage(3, 1, 0.5))


def test_complete_sends_the_adapters_response_format_unless_told_otherwise():
    recorder = Recorder()
    request = Request(contender=ORACLE, messages=[], case=CASE, response_format={"type": "json_object"})
    client = Client(request, recorder, Context("", ()))  # type: ignore[arg-type]
    asyncio.run(client.complete())
    asyncio.run(client.complete(response_format=None, tools=[{"type": "function"}]))
    assert [r.response_format for r in recorder.requests] == [{"type": "json_object"}, None]
    assert recorder.requests[1].params == {"tools": [{"type": "function"}]}
    assert (client.usage.input_tokens, client.usage.cost_usd, client.attempts) == (6, 1.0, 2)
