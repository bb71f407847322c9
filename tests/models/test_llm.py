"""evalcore.models.llm over real HTTP against the OpenAI-compatible test server."""

from __future__ import annotations

import asyncio
import base64
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from evalcore.core.errors import CallFailed
from evalcore.core.records import Contender
from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.runner import run_suite
from evalcore.models.llm import LiteLLMProvider, close_clients, scrub
from evalcore.models.types import Reply, Request
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.openai_server import OpenAIServer

FAKE_KEY = "sk-test-abcdef1234567890SECRET"
MESSAGES = [{"role": "user", "content": "what is six times seven"}]
RECEIPTS = Path(__file__).resolve().parents[2] / "docs" / "examples" / "receipts"


@pytest.fixture(autouse=True)
def fake_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)


def ask(server: OpenAIServer, prices: dict[str, float] | None = None, **options: Any) -> Reply:
    """One ``complete`` call against ``server`` with fast retry settings unless overridden."""
    contender = Contender(id="c", model="openai/test-model", api_base=server.base_url, prices=prices)
    request = Request(contender=contender, messages=MESSAGES, **{"backoff_s": 0.01, "timeout_s": 5, **options})
    return asyncio.run(_complete(request))


async def _complete(request: Request) -> Reply:
    try:
        return await LiteLLMProvider().complete(request)
    finally:
        await close_clients()  # litellm's clients are bound to this event loop


def fail(server: OpenAIServer, **options: Any) -> CallFailed:
    with pytest.raises(CallFailed) as caught:
        ask(server, **options)
    return caught.value


def test_reply_has_text_usage_and_cost_from_suite_prices(openai_server: OpenAIServer) -> None:
    openai_server.content = "forty two"
    prices = {"input_cost_per_token": 0.001, "output_cost_per_token": 0.002}
    reply = ask(openai_server, prices=prices)
    assert reply.text == "forty two"
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (5, 2)
    assert reply.usage.cost_usd == pytest.approx(5 * 0.001 + 2 * 0.002)
    assert reply.attempts == 1 and reply.latency_s > 0


def test_cost_is_none_for_a_model_litellm_cannot_price(openai_server: OpenAIServer) -> None:
    assert ask(openai_server).usage.cost_usd is None


def test_a_model_added_to_litellms_price_map_is_priced_from_then_on(openai_server: OpenAIServer) -> None:
    from evalcore.models.llm import litellm_module

    litellm = litellm_module()
    assert ask(openai_server).usage.cost_usd is None
    known = set(litellm.model_cost)
    try:
        litellm.register_model(
            {
                "openai/test-model": {
                    "input_cost_per_token": 0.5,
                    "output_cost_per_token": 1.0,
                    "litellm_provider": "openai",
                    "mode": "chat",
                }
            }
        )
        assert ask(openai_server).usage.cost_usd == pytest.approx(5 * 0.5 + 2 * 1.0)
    finally:
        for name in set(litellm.model_cost) - known:
            del litellm.model_cost[name]
    assert ask(openai_server).usage.cost_usd is None


def test_cost_comes_from_litellms_price_map_for_a_model_it_knows(openai_server: OpenAIServer) -> None:
    from evalcore.models.llm import litellm_module

    openai_server.content = "forty two"
    contender = Contender(id="c", model="openai/gpt-4o-mini", api_base=openai_server.base_url)
    reply = asyncio.run(_complete(Request(contender=contender, messages=MESSAGES, timeout_s=5)))
    price = litellm_module().get_model_info("gpt-4o-mini")
    expected = 5 * price["input_cost_per_token"] + 2 * price["output_cost_per_token"]
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (5, 2)
    assert reply.usage.cost_usd == pytest.approx(expected) and expected > 0


def test_suite_prices_win_over_litellms_price_map(openai_server: OpenAIServer) -> None:
    contender = Contender(
        id="c",
        model="openai/gpt-4o-mini",
        api_base=openai_server.base_url,
        prices={"input_cost_per_token": 1.0, "output_cost_per_token": 0.0},
    )
    reply = asyncio.run(_complete(Request(contender=contender, messages=MESSAGES, timeout_s=5)))
    assert reply.usage.cost_usd == pytest.approx(5.0)


def test_the_provider_reads_no_private_attribute_of_litellm() -> None:
    import evalcore.models.llm

    source = Path(evalcore.models.llm.__file__).read_text(encoding="utf-8")
    assert "_hidden_params" not in source


def test_request_carries_messages_settings_and_response_format(openai_server: OpenAIServer) -> None:
    contender = Contender(
        id="c", model="openai/test-model", settings={"temperature": 0.3}, api_base=openai_server.base_url
    )
    request = Request(contender=contender, messages=MESSAGES, response_format={"type": "json_object"})
    asyncio.run(_complete(request))
    body = openai_server.requests[0]
    assert body["messages"] == MESSAGES
    assert body["temperature"] == 0.3
    assert body["response_format"] == {"type": "json_object"}


def test_local_server_gets_a_placeholder_key_when_none_is_set(
    openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    assert ask(openai_server).text
    assert openai_server.headers[0]["authorization"] == "Bearer sk-no-key"


def test_rate_limit_then_success_takes_two_attempts(openai_server: OpenAIServer) -> None:
    openai_server.script("status:429", "ok")
    assert ask(openai_server).attempts == 2


def test_retry_after_is_honoured(openai_server: OpenAIServer) -> None:
    openai_server.script("status:429:0.4", "ok")
    started = time.monotonic()
    reply = ask(openai_server, backoff_s=0)
    assert reply.attempts == 2
    assert time.monotonic() - started >= 0.4


def test_retry_after_is_capped(openai_server: OpenAIServer) -> None:
    openai_server.script("status:503:30", "ok")
    started = time.monotonic()
    assert ask(openai_server, max_retry_after_s=0.1).attempts == 2
    assert time.monotonic() - started < 20  # not the 30 s the server asked for, whatever the load


def test_server_error_on_every_try_fails_as_transport_after_max_attempts(openai_server: OpenAIServer) -> None:
    openai_server.script(*["status:500"] * 3)
    failure = fail(openai_server, max_attempts=3)
    assert (failure.kind, failure.attempts, openai_server.calls) == ("transport", 3, 3)
    assert failure.latency_s is not None


@pytest.mark.parametrize("script", ["status:502", "status:503", "drop", "malformed", "no_choices"])
def test_transport_faults_are_retried(openai_server: OpenAIServer, script: str) -> None:
    openai_server.script(script, "ok")
    assert ask(openai_server).attempts == 2


@pytest.mark.parametrize("script", ["drop", "malformed", "no_choices"])
def test_broken_replies_fail_as_transport_after_retries(openai_server: OpenAIServer, script: str) -> None:
    openai_server.script(script, script)
    failure = fail(openai_server, max_attempts=2)
    assert (failure.kind, failure.attempts) == ("transport", 2)


def test_a_reply_that_is_not_json_is_said_to_be_the_server_s_once(openai_server: OpenAIServer) -> None:
    openai_server.script("malformed", "malformed")
    failure = fail(openai_server, max_attempts=2)
    assert failure.kind == "transport"
    assert str(failure).startswith("openai/test-model: transport after 2 attempts: the server's reply was not JSON")
    assert "InternalServerError" not in str(failure) and str(failure).count("JSON") == 1


def test_slow_reply_fails_as_timeout(openai_server: OpenAIServer) -> None:
    openai_server.script("slow:2", "slow:2")
    failure = fail(openai_server, timeout_s=0.2, max_attempts=2)
    assert (failure.kind, failure.attempts) == ("timeout", 2)


@pytest.mark.parametrize(("status", "kind"), [(401, "auth"), (403, "auth"), (400, "bad_request"), (404, "bad_request")])
def test_client_errors_are_not_retried(openai_server: OpenAIServer, status: int, kind: str) -> None:
    openai_server.script(f"status:{status}", "ok")
    failure = fail(openai_server)
    assert (failure.kind, failure.attempts, openai_server.calls) == (kind, 1, 1)


def test_unsupported_setting_fails_as_bad_request_without_a_call(openai_server: OpenAIServer) -> None:
    contender = Contender(id="c", model="openai/o3-mini", settings={"top_p": 0.5}, api_base=openai_server.base_url)
    with pytest.raises(CallFailed) as caught:
        asyncio.run(_complete(Request(contender=contender, messages=MESSAGES)))
    assert (caught.value.kind, caught.value.attempts, openai_server.calls) == ("bad_request", 1, 0)


def test_failure_message_never_contains_the_key(openai_server: OpenAIServer) -> None:
    openai_server.script("status:401")
    failure = fail(openai_server)
    assert FAKE_KEY not in str(failure) and FAKE_KEY not in failure.message
    assert "test-model" in failure.message and "auth" in failure.message


def test_scrub_removes_keys_and_env_key_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACME_API_KEY", "acme-secret-value")
    text = scrub("bad key sk-proj-abc123XYZ and acme-secret-value; a task-force is fine")
    assert "sk-proj" not in text and "acme-secret-value" not in text
    assert "task-force" in text


def test_refusal_names_an_embedding_model() -> None:
    reason = LiteLLMProvider().refusal("text-embedding-3-small", {})
    assert reason == "text-embedding-3-small is a embedding model; this suite needs chat"


def test_refusal_accepts_a_chat_model_with_temperature() -> None:
    assert LiteLLMProvider().refusal("gpt-4o-mini", {"temperature": 0.2}) is None


def test_refusal_names_a_setting_the_model_does_not_take() -> None:
    assert LiteLLMProvider().refusal("o3-mini", {"top_p": 0.9}) == "o3-mini does not take top_p"


def test_refusal_skips_models_litellm_does_not_know() -> None:
    assert LiteLLMProvider().refusal("openai/my-local-model", {"reasoning_effort": "high"}) is None


def test_missing_keys_names_the_openai_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    assert LiteLLMProvider().missing_keys("gpt-4o-mini", None) == ["OPENAI_API_KEY"]


@pytest.mark.parametrize("api_base", ["http://127.0.0.1:8000/v1", "http://localhost:1234/v1", "http://10.0.0.5/v1"])
def test_missing_keys_is_empty_for_local_servers(monkeypatch: pytest.MonkeyPatch, api_base: str) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    assert LiteLLMProvider().missing_keys("openai/test-model", api_base) == []


def test_missing_keys_is_empty_for_ollama() -> None:
    assert LiteLLMProvider().missing_keys("ollama_chat/llama3", None) == []


def test_guard_blocks_connections_off_the_loopback(network_guard: list[Any]) -> None:
    with socket.socket() as sock, pytest.raises(OSError, match="must not reach the network"):
        sock.connect(("93.184.216.34", 443))
    assert network_guard == [("93.184.216.34", 443)]
    network_guard.clear()


@pytest.mark.parametrize("module", ["evalcore.models.types", "evalcore.core.records"])
def test_importing_the_core_does_not_import_litellm(module: str) -> None:
    code = f"import {module}, sys; assert 'litellm' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_refusal_names_reasoning_effort_for_a_model_without_reasoning() -> None:
    reason = LiteLLMProvider().refusal("openai/gpt-4o-mini", {"reasoning_effort": "high"})
    assert reason == "openai/gpt-4o-mini does not take reasoning_effort (litellm lists no reasoning for it)"


def test_refusal_accepts_reasoning_effort_on_a_reasoning_model() -> None:
    assert LiteLLMProvider().refusal("openai/o3-mini", {"reasoning_effort": "high"}) is None


def test_a_model_litellm_lists_with_vision_takes_images() -> None:
    assert LiteLLMProvider().takes_images("gpt-4o") is True


def test_a_model_litellm_lists_without_vision_takes_no_images() -> None:
    assert LiteLLMProvider().takes_images("gpt-3.5-turbo") is False


def test_a_model_litellm_does_not_know_is_taken_at_its_word_on_images() -> None:
    assert LiteLLMProvider().takes_images("openai/my-local-vision-model") is True


def test_a_local_model_is_sent_the_case_s_image_as_a_data_url_over_http(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    openai_server.content = "6.00"
    folder = shutil.copytree(RECEIPTS, tmp_path / "receipts")
    config = yaml.safe_load((folder / "evalcore.yaml").read_text())
    config["lineup"] = [{"model": "openai/local-vision", "api_base": openai_server.base_url}]
    (folder / "evalcore.yaml").write_text(yaml.safe_dump(config))
    plan = make_plan(load_suite(folder), RunOptions(variants=["file"], limit=1))
    _, status = run_suite(plan, Store(tmp_path / "evalcore.db"))
    assert status == "completed"
    (request,) = openai_server.requests
    text, image = request["messages"][-1]["content"]
    assert text == {"type": "text", "text": "What is the total on this receipt?"}
    assert image["type"] == "image_url"
    media, data = image["image_url"]["url"].split(",", 1)
    assert media == "data:image/png;base64"
    assert base64.b64decode(data) == (folder / "datasets" / "receipts" / "images" / "cafe.png").read_bytes()
