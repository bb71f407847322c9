"""The circuit breaker per endpoint, alone and inside the litellm provider over real sockets."""

from __future__ import annotations

import asyncio
import socket

import httpx
import pytest

from evalcore.core.errors import CallFailed
from evalcore.core.records import Contender
from evalcore.models.breaker import THRESHOLD, Breaker, Breakers, EndpointUnreachable, connection_failure, endpoint_of
from evalcore.models.llm import LiteLLMProvider, close_clients
from evalcore.models.types import Request
from tests.openai_server import OpenAIServer

MESSAGES = [{"role": "user", "content": "what is six times seven"}]


@pytest.fixture(autouse=True)
def fake_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-breaker-0000")


def dead_url() -> str:
    """A loopback URL nothing listens on: connecting is refused at once."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def call(url: str, breaker: Breaker | None, **options: object) -> CallFailed:
    contender = Contender(id="c", model="openai/test-model", api_base=url)
    request = Request(contender=contender, messages=MESSAGES, breaker=breaker, **{"timeout_s": 5, **options})  # type: ignore[arg-type]

    async def go() -> None:
        try:
            await LiteLLMProvider().complete(request)
        finally:
            await close_clients()

    with pytest.raises(CallFailed) as caught:
        asyncio.run(go())
    return caught.value


def test_three_identical_connection_failures_in_a_row_open_the_breaker() -> None:
    breaker = Breaker("http://127.0.0.1:9/v1")
    breaker.record_unreachable("connection refused")
    breaker.record_unreachable("connection refused")
    assert not breaker.is_open
    breaker.record_unreachable("connection refused")
    assert breaker.is_open
    assert breaker.message == "cannot connect to http://127.0.0.1:9/v1: connection refused"


def test_a_reply_or_a_different_failure_starts_the_count_again() -> None:
    breaker = Breaker("openai")
    for outcome in ["refused", "refused", None, "refused", "refused", "host not found", "refused", "refused"]:
        if outcome is None:
            breaker.record_reached()
        else:
            breaker.record_unreachable(outcome)
    assert not breaker.is_open


def test_an_open_breakers_failure_names_the_caller_its_own_cause_and_why_it_stopped() -> None:
    breaker = Breaker("http://127.0.0.1:9/v1")
    assert breaker.failure("openai/x", "connection refused", 1, 0.5).message == (
        "cannot connect to http://127.0.0.1:9/v1: connection refused (openai/x, 1 attempt)"
    )
    for _ in range(3):
        breaker.record_unreachable("host not found")
    failed = breaker.failure("my-target", "connect timeout", 2, 0.5)
    assert failed.message == (
        "cannot connect to http://127.0.0.1:9/v1: host not found "
        "(my-target, 2 attempts; stopped calling it after 3 failures in a row)"
    )
    assert (failed.kind, failed.attempts, failed.latency_s) == ("transport", 2, 0.5)


def test_an_endpoint_is_the_api_base_or_else_the_provider() -> None:
    assert endpoint_of(Contender("a", "openai/x", api_base="http://h:1/v1/")) == "http://h:1/v1"
    assert endpoint_of(Contender("b", "anthropic/claude")) == "anthropic"
    breakers = Breakers()
    low, high = Contender("l", "openai/x", api_base="http://h/v1"), Contender("h", "openai/y", api_base="http://h/v1")
    assert breakers.of(low) is breakers.of(high)  # one server, one breaker


def test_a_refused_connection_is_named_with_its_url_and_cause() -> None:
    url = dead_url()
    failed = call(url, Breaker(url.rstrip("/")), max_attempts=1)
    assert isinstance(failed, EndpointUnreachable)
    assert failed.message.startswith(f"cannot connect to {url}: connection refused")
    assert failed.kind == "transport" and failed.attempts == 1


def test_the_breaker_stops_the_retries_of_a_call_to_a_dead_endpoint() -> None:
    url = dead_url()
    breaker = Breaker(url)
    failed = call(url, breaker, max_attempts=10, backoff_s=0.05)
    assert breaker.is_open and failed.attempts == 3  # not 10
    assert "stopped calling it after 3 failures in a row" in failed.message


def test_replies_the_server_sends_never_open_the_breaker(openai_server: OpenAIServer) -> None:
    openai_server.script("status:500", "status:500", "status:429:0", "status:500")
    breaker = Breaker(openai_server.base_url)
    failed = call(openai_server.base_url, breaker, max_attempts=4, backoff_s=0.01)
    assert not breaker.is_open and not isinstance(failed, EndpointUnreachable)
    assert openai_server.calls == 4


def test_a_dropped_connection_is_not_a_connection_failure(openai_server: OpenAIServer) -> None:
    openai_server.script("drop")
    failed = call(openai_server.base_url, Breaker(openai_server.base_url), max_attempts=1)
    assert not isinstance(failed, EndpointUnreachable)


def test_connection_failure_reads_the_whole_exception_chain() -> None:
    try:
        try:
            raise ConnectionRefusedError(111, "Connect call failed")
        except ConnectionRefusedError as inner:
            raise RuntimeError("Connection error.") from inner
    except RuntimeError as outer:
        assert connection_failure(outer) == "connection refused"
    try:
        raise socket.gaierror(-2, "Name or service not known")
    except socket.gaierror as dns:
        assert connection_failure(dns) == "host not found"
    assert connection_failure(ValueError("bad json")) is None


def test_identical_server_errors_over_three_cases_open_the_breaker() -> None:
    breaker = Breaker("http://h/v1")
    for i in range(6):
        breaker.record_server_error(503, f"case {i % 3}")
    assert breaker.is_open and breaker.stopped
    assert breaker.message == "stopped calling http://h/v1: it answered 503 to 6 calls in a row, over 3 cases"


def test_server_errors_of_one_case_alone_leave_the_breaker_closed() -> None:
    breaker = Breaker("http://h/v1")
    for _ in range(10):
        breaker.record_server_error(503, "the same case")
    assert not breaker.is_open


def test_a_reply_or_another_status_starts_the_server_error_count_again() -> None:
    breaker = Breaker("http://h/v1")
    for i in range(5):
        breaker.record_server_error(503, i)
    breaker.record_reached()
    for i in range(5):
        breaker.record_server_error(503, i)
    breaker.record_server_error(500, 9)
    assert not breaker.is_open


def test_a_refused_key_opens_the_breaker_at_once_naming_its_variable(openai_server: OpenAIServer) -> None:
    openai_server.inject(1.0, ["status:401"])
    breaker = Breaker(openai_server.base_url)
    failed = call(openai_server.base_url, breaker, max_attempts=4)
    assert breaker.is_open and openai_server.calls == 1
    assert failed.kind == "auth"
    assert failed.message.startswith(
        f"stopped calling {openai_server.base_url}: it refused the key (401); check OPENAI_API_KEY"
    )


def test_http_targets_without_an_api_base_each_trip_their_own_breaker() -> None:
    breakers = Breakers()
    rag, search = Contender("rag", "http/rag"), Contender("search", "http/search")
    assert breakers.of(Contender("rag · t=1", "http/rag", {"temperature": 1})) is breakers.of(rag)
    for case in range(THRESHOLD):
        breakers.of(rag).record_failure("transport", None, "connection refused", case, "")
    assert breakers.of(rag).is_open and not breakers.of(search).is_open
    assert [b.endpoint for b in breakers.opened()] == ["http/rag"]


def test_the_http_targets_provider_is_one_whose_model_ids_are_endpoints_of_their_own() -> None:
    from evalcore.models.breaker import OWN_ENDPOINT_PROVIDERS
    from evalcore.models.http import HTTP_PREFIX

    assert HTTP_PREFIX.removesuffix("/") in OWN_ENDPOINT_PROVIDERS


def test_an_unreachable_endpoint_s_error_is_a_transport_fault_unless_told_otherwise() -> None:
    failed = EndpointUnreachable("http://h/v1", "connection refused", "openai/x, 1 attempt", 1)
    assert failed.kind == "transport" and failed.cause == "connection refused"
    assert failed.message == "cannot connect to http://h/v1: connection refused (openai/x, 1 attempt)"


def test_a_refused_key_without_a_status_is_named_without_one() -> None:
    breaker = Breaker("http://h/v1")
    breaker.record_refused_key(None, "MY_KEY")
    assert breaker.cause == "key refused" and breaker.stopped
    assert breaker.message == "stopped calling http://h/v1: it refused the key; check MY_KEY"


def test_a_call_stopped_after_a_refused_key_names_its_caller_what_the_server_said_and_its_time() -> None:
    breaker = Breaker("http://h/v1")
    breaker.record_refused_key(403, "MY_KEY")
    failed = breaker.stop_error("openai/x", "auth", None, 1, 4, 0.25, "Forbidden")
    assert failed is not None and failed.message == (
        "stopped calling http://h/v1: it refused the key (403); check MY_KEY (openai/x, 1 attempt: Forbidden)"
    )
    assert (failed.kind, failed.cause, failed.attempts, failed.latency_s) == ("auth", "key refused", 1, 0.25)


def test_the_last_attempt_of_a_call_that_could_not_connect_names_its_caller_and_its_time() -> None:
    breaker = Breaker("http://h/v1")
    breaker.record_unreachable("connection refused")
    assert breaker.stop_error("openai/x", "transport", "connection refused", 1, 2, 0.5, "") is None
    failed = breaker.stop_error("openai/x", "transport", "connection refused", 2, 2, 0.5, "")
    assert (
        failed is not None
        and failed.message == "cannot connect to http://h/v1: connection refused (openai/x, 2 attempts)"
    )
    assert (failed.kind, failed.latency_s) == ("transport", 0.5)


def _server_errors_of(breaker: Breaker, status: int | None, kind: str = "transport", cases: int = 6) -> None:
    for i in range(cases):
        breaker.record_failure(kind, status, None, f"case {i % 3}", "KEY")


def test_a_500_is_a_server_error_as_much_as_a_503() -> None:
    breaker = Breaker("http://h/v1")
    _server_errors_of(breaker, 500)
    assert breaker.is_open and breaker.cause == "server error 500"


@pytest.mark.parametrize(("kind", "status"), [("transport", 499), ("transport", None), ("rate_limit", 503)])
def test_only_a_transport_fault_with_a_5xx_status_counts_towards_stopping(kind: str, status: int | None) -> None:
    breaker = Breaker("http://h/v1")
    _server_errors_of(breaker, status, kind, cases=12)
    assert not breaker.is_open


def test_a_timeout_between_server_errors_neither_counts_nor_starts_the_count_again() -> None:
    breaker = Breaker("http://h/v1")
    _server_errors_of(breaker, 503, cases=5)
    breaker.record_failure("timeout", None, None, "case 9", "KEY")
    assert not breaker.is_open
    breaker.record_failure("transport", 503, None, "case 5", "KEY")
    assert breaker.is_open


def _raised(exc: BaseException, cause: BaseException | None) -> BaseException:
    try:
        raise exc from cause
    except BaseException as caught:  # noqa: BLE001 - the chain is what the test reads
        return caught


def test_a_connect_timeout_or_error_is_named_by_the_innermost_os_error_it_wraps() -> None:
    assert connection_failure(httpx.ConnectTimeout("timed out")) == "connect timed out"
    inner = _raised(OSError(101, "Network is unreachable"), None)
    middle = _raised(OSError(113, "No route to host"), inner)
    outer = _raised(OSError(99, "Cannot assign requested address"), middle)
    assert connection_failure(_raised(httpx.ConnectError("failed"), outer)) == "network is unreachable"
    assert connection_failure(httpx.ConnectError("failed")) == "connection failed"


def test_an_exception_chain_that_loops_is_read_once() -> None:
    a, b = ValueError("a"), ValueError("b")
    a.__cause__, b.__cause__ = b, a
    assert connection_failure(a) is None


def test_an_endpoint_keeps_its_path_and_a_provider_is_the_model_id_s_first_part() -> None:
    assert endpoint_of(Contender("c", "openai/x", api_base="http://h/MAX/")) == "http://h/MAX"
    assert endpoint_of(Contender("r", "openrouter/openai/gpt-4o")) == "openrouter"


def test_the_breakers_of_a_run_open_at_its_threshold() -> None:
    breaker = Breakers(threshold=1).of(Contender("a", "openai/x", api_base="http://h/v1"))
    breaker.record_unreachable("connection refused")
    assert breaker.is_open


def _send(breaker: Breaker, count: int) -> list[int]:
    return [breaker.sending() for _ in range(count)]


def test_a_reply_read_late_to_a_call_sent_between_server_errors_keeps_the_breaker_closed() -> None:
    # Concurrent calls finish out of order on a loaded client: the server answered 500, 500, 500, a reply,
    # 500, 500, 500 in the order the calls were sent, and the reply is read last. No six were in a row.
    breaker = Breaker("http://h/v1")
    sent = _send(breaker, 7)
    for i in (0, 1, 2, 4, 5, 6):
        breaker.record_failure("transport", 500, None, f"case {i}", "KEY", sent[i])
    assert not breaker.is_open
    breaker.record_reached(sent[3])
    assert not breaker.is_open


def test_server_errors_sent_after_a_reply_read_late_are_in_a_row() -> None:
    breaker = Breaker("http://h/v1")
    sent = _send(breaker, 7)
    for i in range(1, 7):
        breaker.record_failure("transport", 500, None, f"case {i}", "KEY", sent[i])
    assert breaker.is_open
    assert breaker.message == "stopped calling http://h/v1: it answered 500 to 6 calls in a row, over 6 cases"


def test_a_call_still_in_flight_between_server_errors_joins_their_run_when_it_fails_too() -> None:
    breaker = Breaker("http://h/v1")
    sent = _send(breaker, 6)
    for i in (0, 1, 2, 4, 5):
        breaker.record_server_error(503, f"case {i}", sent[i])
    assert not breaker.is_open
    breaker.record_server_error(503, "case 3", sent[3])
    assert breaker.is_open
    assert breaker.message == "stopped calling http://h/v1: it answered 503 to 6 calls in a row, over 6 cases"


def test_a_timeout_sent_between_server_errors_neither_counts_nor_breaks_their_run() -> None:
    breaker = Breaker("http://h/v1")
    sent = _send(breaker, 7)
    breaker.record_failure("timeout", None, None, "case 3", "KEY", sent[3])
    for i in (0, 1, 2, 4, 5):
        breaker.record_failure("transport", 502, None, f"case {i}", "KEY", sent[i])
    assert not breaker.is_open
    breaker.record_failure("transport", 502, None, "case 6", "KEY", sent[6])
    assert breaker.message == "stopped calling http://h/v1: it answered 502 to 6 calls in a row, over 6 cases"


def test_a_connection_failure_breaks_a_run_of_server_errors() -> None:
    breaker = Breaker("http://h/v1")
    for i in range(5):
        breaker.record_server_error(503, f"case {i}")
    breaker.record_unreachable("connection refused")
    breaker.record_server_error(503, "case 5")
    assert not breaker.is_open


def test_a_breaker_keeps_the_newest_outcomes_when_it_has_more_than_its_bound() -> None:
    breaker = Breaker("http://h/v1")
    for i in range(4096):
        breaker.record_server_error(500 + i % 2, f"case {i}")
    breaker.record_failure("timeout", None, None, "case t", "KEY")  # numbered now: nothing to keep
    assert len(breaker._outcomes) == 4096
    breaker.record_server_error(500, "case 4096")
    assert sorted(breaker._outcomes) == list(range(4097 + 1 - 2048, 4097 + 1))
    # The newest outcomes are the ones kept: a run continuing them still opens.
    for i in range(5):
        breaker.record_server_error(500, f"more {i}")
    assert breaker.is_open
