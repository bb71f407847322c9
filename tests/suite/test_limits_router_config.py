"""``limits:`` and a lineup entry's ``router:`` are checked when the suite loads: each mistake is one line naming
the file and the key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evalcore.core.errors import ConfigError
from evalcore.execution.plan import RunOptions, make_plan
from evalcore.suite.lineup import Overrides
from evalcore.suite.loader import load_suite
from tests.suites import write_suite

POOL = {
    "model_list": [
        {"model_name": "pool", "litellm_params": {"model": "openai/llama3", "api_base": "http://127.0.0.1:8001/v1"}},
        {"model_name": "pool", "litellm_params": {"model": "openai/llama3", "api_base": "http://127.0.0.1:8002/v1"}},
    ]
}


def load(tmp_path: Path, **config: Any):
    return load_suite(write_suite(tmp_path / "suite", config))


def refused(tmp_path: Path, match: str, **config: Any) -> str:
    with pytest.raises(ConfigError, match=match) as caught:
        load(tmp_path, **config)
    message = str(caught.value)
    assert message.startswith(str(tmp_path / "suite" / "evalcore.yaml")) and "\n" not in message
    return message


def test_limits_load_by_model_and_by_endpoint(tmp_path: Path) -> None:
    limits = {
        "openai/gpt-4o-mini": {"rpm": 500, "tpm": 200000, "concurrency": 20},
        "http://127.0.0.1:8000/v1": {"rpm": 60},
    }
    suite = load(tmp_path, limits=limits)
    plan = make_plan(suite)
    assert plan.limits["openai/gpt-4o-mini"].describe() == "rpm 500, tpm 200000, concurrency 20"
    assert plan.limits["http://127.0.0.1:8000/v1"].rpm == 60


def test_an_unknown_limit_is_an_error_naming_its_key(tmp_path: Path) -> None:
    refused(tmp_path, r"line \d+: limits\.openai/m\.rpn: unknown key", limits={"openai/m": {"rpn": 10}})


def test_a_limit_with_no_value_or_a_zero_is_refused(tmp_path: Path) -> None:
    refused(tmp_path, r"limits\.openai/m: .*give at least one of rpm, tpm or concurrency", limits={"openai/m": {}})
    refused(
        tmp_path, r"limits\.openai/m\.rpm: Input should be greater than or equal to 1", limits={"openai/m": {"rpm": 0}}
    )


def test_a_router_entry_loads_with_its_model_group(tmp_path: Path) -> None:
    suite = load(tmp_path, lineup=[{"model": "pool", "router": POOL | {"num_retries": 2}}])
    (contender,) = make_plan(suite).contenders
    assert (contender.id, contender.model, contender.api_base) == ("pool", "pool", None)
    assert contender.router == POOL | {"num_retries": 2}


def test_a_router_entry_must_name_one_of_its_groups(tmp_path: Path) -> None:
    refused(
        tmp_path,
        r"lineup\.0: .*model 'llama' is no model_name of router\.model_list \['pool'\]",
        lineup=[{"model": "llama", "router": POOL}],
    )


def test_fallbacks_must_name_groups_of_the_router(tmp_path: Path) -> None:
    router = POOL | {"fallbacks": [{"pool": ["backup"]}]}
    refused(
        tmp_path,
        r"fallback 'backup' is no model_name of model_list \['pool'\]",
        lineup=[{"model": "pool", "router": router}],
    )


def test_a_router_key_litellm_takes_but_evalcore_does_not_is_unknown(tmp_path: Path) -> None:
    router = POOL | {"redis_url": "redis://localhost"}
    refused(tmp_path, r"lineup\.0\.router\.redis_url: unknown key", lineup=[{"model": "pool", "router": router}])


def test_a_deployment_needs_its_litellm_model(tmp_path: Path) -> None:
    router = {"model_list": [{"model_name": "pool", "litellm_params": {"api_base": "http://127.0.0.1:8001/v1"}}]}
    refused(
        tmp_path,
        r"lineup\.0\.router\.model_list\.0\.litellm_params\.model: required key is missing",
        lineup=[{"model": "pool", "router": router}],
    )


def test_a_router_entry_takes_no_api_base(tmp_path: Path) -> None:
    entry = {"model": "pool", "router": POOL, "api_base": "http://127.0.0.1:9/v1"}
    refused(tmp_path, r"api_base and router: each deployment names its own api_base", lineup=[entry])


def test_the_command_lines_api_base_cannot_redirect_a_router_entry(tmp_path: Path) -> None:
    suite = load(tmp_path, lineup=[{"model": "pool", "router": POOL}])
    with pytest.raises(ConfigError, match="--api-base cannot redirect a router entry"):
        make_plan(suite, RunOptions(overrides=Overrides(api_base="http://127.0.0.1:9/v1")))


def test_a_router_groups_shared_prices_price_its_contender(tmp_path: Path) -> None:
    priced = {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}
    router = {"model_list": [{**d, "litellm_params": d["litellm_params"] | priced} for d in POOL["model_list"]]}
    (contender,) = make_plan(load(tmp_path, lineup=[{"model": "pool", "router": router}])).contenders
    assert contender.prices == priced


def test_a_run_records_the_deployments_and_limits_but_never_a_key(tmp_path: Path) -> None:
    from evalcore.execution.plan import new_run

    router = {
        "model_list": [
            {**d, "litellm_params": d["litellm_params"] | {"api_key": "sk-secret-1234"}} for d in POOL["model_list"]
        ]
    }
    suite = load(tmp_path, lineup=[{"model": "pool", "router": router}], limits={"pool": {"concurrency": 4}})
    settings = new_run(make_plan(suite)).info.settings
    assert settings["routers"] == {
        "pool": [
            {"model": "openai/llama3", "api_base": "http://127.0.0.1:8001/v1"},
            {"model": "openai/llama3", "api_base": "http://127.0.0.1:8002/v1"},
        ]
    }
    assert settings["limits"] == {"pool": {"concurrency": 4}}
    assert "sk-secret-1234" not in repr(settings)
