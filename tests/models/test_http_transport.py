"""evalcore.models.http over real HTTP: retries and fault kinds like the model calls', and http/ model ids."""

from __future__ import annotations

import asyncio
import socket
import time
from typing import Any

import pytest

from evalcore.core.errors import CallFailed
from evalcore.core.records import Contender
from evalcore.models.breaker import Breaker, EndpointUnreachable
from evalcore.models.http import (
    HttpPolicy,
    HttpReply,
    HttpTargetProvider,
    classify_exception,
    close_http_clients,
    send_http,
)
from evalcore.models.registry import get_provider
from evalcore.models.types import Request
from evalcore.suite.lineup import missing_api_keys, split_refused
from tests.openai_server import OpenAIServer

BODY = {"model": "m", "messages": [{"role": "user", "content": "hi there"}]}


def post(server: OpenAIServer, path: str = "/chat/completions", **options: Any) -> HttpReply:
    policy = HttpPolicy(**{"timeout_s": 5.0, "backoff_s": 0.0, **options})
    return asyncio.run(_send("POST", server.base_url + path, policy))


async def _send(method: str, url: str, policy: HttpPolicy, **kwargs: Any) -> HttpReply:
    try:
        return await send_http(method, url, policy, json_body=BODY, **kwargs)
    finally:
        await close_http_clients()


def fail(server: OpenAIServer, path: str = "/chat/completions", **options: Any) -> CallFailed:
    with pytest.raises(CallFailed) as caught:
        post(server, path, **options)
    return caught.value


def test_a_reply_has_its_status_headers_and_body(openai_server: OpenAIServer) -> None:
    openai_server.content = "forty two"
    reply = post(openai_server)
    assert reply.status == 200 and reply.attempts == 1 and reply.latency_s > 0
    assert reply.headers["content-type"] == "application/json"
    assert reply.json()["choices"][0]["message"]["content"] == "forty two"
    assert openai_server.requests == [BODY]


def test_a_server_error_is_retried(openai_server: OpenAIServer) -> None:
    openai_server.script("status:500", "status:503")
    reply = post(openai_server)
    assert reply.attempts == 3 and openai_server.served == ["status:500", "status:503", "ok"]


def test_a_rate_limit_waits_for_retry_after(openai_server: OpenAIServer) -> None:
    openai_server.script("status:429:0.3")
    started = time.monotonic()
    reply = post(openai_server)
    assert reply.attempts == 2 and time.monotonic() - started >= 0.3


def test_transient_faults_on_every_attempt_fail_with_their_kind(openai_server: OpenAIServer) -> None:
    openai_server.script("status:429:0", "status:429:0")
    failure = fail(openai_server, max_attempts=2)
    assert failure.kind == "rate_limit" and failure.attempts == 2
    assert failure.message.startswith(f"POST {openai_server.base_url}/chat/completions: rate_limit after 2 attempts")
    assert "HTTP 429" in failure.message and "scripted 429" in failure.message


@pytest.mark.parametrize(("script", "kind"), [("status:400", "bad_request"), ("status:422", "bad_request")])
def test_a_client_error_is_not_retried(openai_server: OpenAIServer, script: str, kind: str) -> None:
    openai_server.script(script)
    failure = fail(openai_server)
    assert failure.kind == kind and failure.attempts == 1 and openai_server.calls == 1


def test_an_unknown_route_is_a_bad_request(openai_server: OpenAIServer) -> None:
    failure = fail(openai_server, "/nowhere")
    assert failure.kind == "bad_request" and "HTTP 404" in failure.message


def test_an_auth_error_never_quotes_the_headers_sent(openai_server: OpenAIServer) -> None:
    openai_server.script("echo_auth")
    policy = HttpPolicy(timeout_s=5, backoff_s=0)
    headers = {"Authorization": "Bearer my-app-token-123"}
    with pytest.raises(CallFailed) as caught:
        asyncio.run(_send("POST", openai_server.base_url + "/chat/completions", policy, headers=headers))
    assert caught.value.kind == "auth" and caught.value.attempts == 1
    message = caught.value.message
    assert "my-app-token-123" not in message and "Incorrect API key provided: ***" in message


def test_an_error_never_quotes_the_query_or_the_secrets_it_is_given(openai_server: OpenAIServer) -> None:
    policy = HttpPolicy(timeout_s=5, backoff_s=0)
    url = openai_server.base_url + "/nowhere?key=query-secret"
    with pytest.raises(CallFailed) as caught:
        asyncio.run(_send("POST", url, policy, secrets=("query-secret",)))
    message = caught.value.message
    assert message.startswith(f"POST {openai_server.base_url}/nowhere: bad_request after 1 attempt: HTTP 404")
    assert "query-secret" not in message and "no route /v1/nowhere?key=***" in message


def test_a_slow_reply_times_out_and_is_retried(openai_server: OpenAIServer) -> None:
    openai_server.script("slow:2", "slow:2")
    failure = fail(openai_server, timeout_s=0.3, max_attempts=2)
    assert failure.kind == "timeout" and failure.attempts == 2


def test_a_dropped_connection_is_a_transport_fault(openai_server: OpenAIServer) -> None:
    openai_server.script("drop")
    assert post(openai_server).attempts == 2


def test_a_refused_connection_opens_the_breaker_and_says_cannot_connect() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    breaker = Breaker(f"http://127.0.0.1:{port}", threshold=2)
    policy = HttpPolicy(timeout_s=2, max_attempts=4, backoff_s=0, breaker=breaker)
    with pytest.raises(EndpointUnreachable) as caught:
        asyncio.run(_send("POST", f"http://127.0.0.1:{port}/ask", policy))
    assert breaker.is_open and caught.value.kind == "transport" and caught.value.attempts == 2
    assert caught.value.message.startswith(f"cannot connect to http://127.0.0.1:{port}: connection refused")


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (TimeoutError(), "timeout"),
        (ConnectionResetError(), "transport"),
        (socket.gaierror(), "transport"),
        (KeyError("x"), "other"),
        (CallFailed("auth", "no"), "auth"),
        (type("ServiceError", (Exception,), {"status_code": 503})(), "transport"),
        (type("LimitError", (Exception,), {"status_code": 429})(), "rate_limit"),
    ],
)
def test_exceptions_are_classified_like_the_model_calls(exc: BaseException, kind: str) -> None:
    assert classify_exception(exc) == kind


def test_an_http_model_id_needs_no_key_takes_any_setting_and_is_never_asked_directly() -> None:
    contender = Contender("http/rag · top_k=3", "http/rag", {"top_k": 3})
    assert isinstance(get_provider("http/rag"), HttpTargetProvider)
    assert split_refused([contender]) == ([contender], [])
    assert missing_api_keys([contender]) == {}
    with pytest.raises(CallFailed) as caught:
        asyncio.run(HttpTargetProvider().complete(Request(contender=contender, messages=[])))
    assert caught.value.kind == "bad_request" and "use the http adapter" in caught.value.message


def ask_cases(server: OpenAIServer, breaker: Breaker, cases: int, **options: Any) -> list[CallFailed]:
    """Ask ``cases`` cases one after another with one breaker, as a run does; what each call failed with."""
    failures = []
    for case in range(cases):
        policy = HttpPolicy(**{"timeout_s": 5.0, "max_attempts": 2, "backoff_s": 0.0, **options})
        policy.breaker, policy.asked = breaker, ("greet", case, 0)
        with pytest.raises(CallFailed) as caught:
            asyncio.run(_send("POST", server.base_url + "/chat/completions", policy))
        failures.append(caught.value)
    return failures


def test_a_server_answering_500_to_every_case_opens_the_breaker(openai_server: OpenAIServer) -> None:
    openai_server.inject(1.0, ["status:500"])
    breaker = Breaker(openai_server.base_url)
    *first, third = ask_cases(openai_server, breaker, 3)
    assert [f.kind for f in first] == ["transport", "transport"] and not isinstance(first[-1], EndpointUnreachable)
    assert breaker.is_open and isinstance(third, EndpointUnreachable)
    assert third.message.startswith(
        f"stopped calling {openai_server.base_url}: it answered 500 to 6 calls in a row, over 3 cases"
    )


def test_a_server_timing_out_on_every_case_leaves_the_breaker_closed(openai_server: OpenAIServer) -> None:
    # A timeout can be the waiting machine's load as much as the server's: it never stops a contender.
    openai_server.inject(1.0, ["slow:0.5"])
    breaker = Breaker(openai_server.base_url)
    failures = ask_cases(openai_server, breaker, 3, timeout_s=0.1)
    assert not breaker.is_open and [f.kind for f in failures] == ["timeout"] * 3


def test_one_case_failing_with_500_alone_leaves_the_breaker_closed(openai_server: OpenAIServer) -> None:
    openai_server.inject(1.0, ["status:500"])
    breaker = Breaker(openai_server.base_url)
    policy = HttpPolicy(timeout_s=5.0, max_attempts=8, backoff_s=0.0, breaker=breaker, asked=("greet", 0, 0))
    with pytest.raises(CallFailed) as caught:
        asyncio.run(_send("POST", openai_server.base_url + "/chat/completions", policy))
    assert not breaker.is_open and caught.value.attempts == 8
