"""The Router path over real HTTP: calls spread over two local servers, retries in one place only, keys and
refusals per deployment, cost never invented, one Router per router setup."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from evalcore.core.errors import CallFailed
from evalcore.core.records import Contender
from evalcore.models.llm import LiteLLMProvider, close_clients, model_prices
from evalcore.models.registry import run_providers
from evalcore.models.router import RouterProvider
from evalcore.models.types import Reply, Request
from tests.openai_server import OpenAIServer

MESSAGES = [{"role": "user", "content": "what is six times seven"}]


@pytest.fixture(autouse=True)
def fake_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-router-0000")


def deployment(base: str, group: str = "pool", **params: Any) -> dict[str, Any]:
    return {"model_name": group, "litellm_params": {"model": "openai/test-model", "api_base": base, **params}}


def pool(*bases: str, **options: Any) -> dict[str, Any]:
    return {"model_list": [deployment(b) for b in bases], **options}


def contender(router: dict[str, Any], prices: dict[str, float] | None = None) -> Contender:
    return Contender("pool", "pool", router=router, prices=prices)


def ask_many(provider: LiteLLMProvider, who: Contender, n: int, **options: Any) -> list[Reply | CallFailed]:
    """``n`` calls, one after another, each a reply or its failure."""

    async def go() -> list[Reply | CallFailed]:
        found: list[Reply | CallFailed] = []
        try:
            for _ in range(n):
                request = Request(who, MESSAGES, **{"backoff_s": 0.01, "timeout_s": 5, **options})
                try:
                    found.append(await provider.complete(request))
                except CallFailed as exc:
                    found.append(exc)
        finally:
            await close_clients()
        return found

    return asyncio.run(go())


def test_calls_spread_over_both_deployments(openai_server: OpenAIServer) -> None:
    with OpenAIServer() as other:
        router = pool(openai_server.base_url, other.base_url)
        replies = ask_many(RouterProvider(router), contender(router), 16)
        assert all(isinstance(r, Reply) and r.text == '{"answer": 42}' for r in replies)
        assert openai_server.calls > 0 and other.calls > 0
        assert openai_server.calls + other.calls == 16


@pytest.mark.parametrize("down", ["closed port", "500s"])
def test_one_deployment_down_the_other_answers_every_call(openai_server: OpenAIServer, down: str) -> None:
    with OpenAIServer() as other:
        router = pool(openai_server.base_url, other.base_url, allowed_fails=1, cooldown_time=60)
        if down == "closed port":
            other.stop()
        else:
            other.inject(1.0, ["status:500"])
        replies = ask_many(RouterProvider(router), contender(router), 12, max_attempts=4)
        assert all(isinstance(r, Reply) for r in replies), [r for r in replies if not isinstance(r, Reply)]
        assert openai_server.calls == 12


def test_without_num_retries_evalcore_retries_and_counts_its_attempts(openai_server: OpenAIServer) -> None:
    openai_server.script("status:500", "status:500")
    router = pool(openai_server.base_url)
    (reply,) = ask_many(RouterProvider(router), contender(router), 1, max_attempts=4)
    assert isinstance(reply, Reply) and reply.attempts == 3 and openai_server.calls == 3


def test_with_num_retries_the_router_retries_and_evalcore_does_not_on_top(openai_server: OpenAIServer) -> None:
    openai_server.inject(1.0, ["status:500"])
    router = pool(openai_server.base_url, num_retries=2, retry_after=0)
    (failed,) = ask_many(RouterProvider(router), contender(router), 1, max_attempts=4)
    assert isinstance(failed, CallFailed) and failed.kind == "transport" and failed.attempts == 1
    assert openai_server.calls == 3  # the Router's 1 + 2 retries, not 4 x 3


def test_tokens_come_from_the_reply_and_an_unpriced_model_has_no_cost(openai_server: OpenAIServer) -> None:
    router = pool(openai_server.base_url)
    (reply,) = ask_many(RouterProvider(router), contender(router), 1)
    assert isinstance(reply, Reply)
    assert (reply.usage.input_tokens, reply.usage.output_tokens, reply.usage.cost_usd) == (5, 2, None)
    # The Router leaves a price entry without prices for the model: it still reads as unpriced, not free.
    assert model_prices("openai/test-model") is None
    plain = Contender("openai/test-model", "openai/test-model", api_base=openai_server.base_url)
    (direct,) = ask_many(LiteLLMProvider(), plain, 1)
    assert isinstance(direct, Reply) and direct.usage.cost_usd is None


def test_prices_price_the_routers_replies(openai_server: OpenAIServer) -> None:
    router = pool(openai_server.base_url)
    prices = {"input_cost_per_token": 0.001, "output_cost_per_token": 0.002}
    (reply,) = ask_many(RouterProvider(router), contender(router, prices), 1)
    assert isinstance(reply, Reply) and reply.usage.cost_usd == pytest.approx(5 * 0.001 + 2 * 0.002)


def test_the_contenders_of_one_router_setup_share_one_provider_and_one_router() -> None:
    router = pool("http://127.0.0.1:9/v1")
    cold = Contender("pool · t=0", "pool", {"temperature": 0}, router=router)
    hot = Contender("pool · t=0.7", "pool", {"temperature": 0.7}, router=dict(router))
    other = Contender("pool2", "pool", router=pool("http://127.0.0.1:10/v1"))
    providers = run_providers([cold, hot, other])
    assert providers[cold.id] is providers[hot.id] is not providers[other.id]
    provider = providers[cold.id]
    assert isinstance(provider, RouterProvider) and provider.router() is provider.router()


def test_missing_keys_are_read_per_deployment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    router = {
        "model_list": [
            deployment("http://127.0.0.1:8001/v1"),
            {"model_name": "pool", "litellm_params": {"model": "openai/gpt-4o-mini", "api_key": "os.environ/POOL_KEY"}},
            {"model_name": "pool", "litellm_params": {"model": "openai/gpt-4o-mini"}},
            {"model_name": "backup", "litellm_params": {"model": "anthropic/claude-3-5-haiku-latest"}},
        ],
        "fallbacks": [{"pool": ["backup"]}],
    }
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    provider = RouterProvider(router)
    assert provider.missing_keys("pool", None) == ["POOL_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"]
    for name in ("POOL_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.setenv(name, "sk-set")
    assert provider.missing_keys("pool", None) == []


def test_a_deployment_that_cannot_chat_refuses_the_group() -> None:
    router = {"model_list": [{"model_name": "pool", "litellm_params": {"model": "openai/text-embedding-3-small"}}]}
    reason = RouterProvider(router).refusal("pool", {})
    assert reason is not None and reason.endswith("this suite needs chat (a deployment of pool)")
