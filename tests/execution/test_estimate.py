"""evalcore.execution.estimate against what the fake models really charge."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalcore.core.conversation import kind_of
from evalcore.execution.estimate import describe, estimate_plan_cost
from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.runner import run_suite
from evalcore.storage.store import Store
from evalcore.suite.lineup import Overrides
from evalcore.suite.loader import load_suite
from tests.suites import write_suite

BUNDLED = sorted(p.parent for p in (Path(__file__).resolve().parents[2] / "data" / "suites").glob("*/evalcore.yaml"))
#: The bundled agent suites: one call per step, estimated from past traces (tests/execution/test_agent_estimate.py).
AGENTS = [p for p in BUNDLED if load_suite(p).adapter_ref.name == "agent"]
#: The bundled conversation suites: one call per turn, a number known only once each conversation ends.
CONVERSATIONS = [p for p in BUNDLED if any(kind_of(c) for c in load_suite(p).cases)]
SUITES = [p for p in BUNDLED if p not in AGENTS and p not in CONVERSATIONS]


def actual_cost(store: Store, run_id: str) -> float:
    (info,) = [r for r in store.list_runs() if r["id"] == run_id]
    return float(info["cost_usd"])


@pytest.mark.parametrize("folder", SUITES, ids=[p.name for p in SUITES])
def test_the_estimate_of_a_bundled_suite_is_within_a_quarter_of_what_it_costs(folder, tmp_db):
    plan = make_plan(load_suite(folder))
    estimate = estimate_plan_cost(plan)
    store = Store(tmp_db)
    run_id, _ = run_suite(plan, store)
    actual = actual_cost(store, run_id)
    assert estimate.usd == pytest.approx(actual, rel=0.25)
    assert estimate.low_usd <= estimate.usd <= estimate.high_usd
    assert estimate.sources == ["schema"]


@pytest.mark.parametrize("folder", AGENTS, ids=[p.name for p in AGENTS])
def test_the_estimate_of_a_bundled_agent_suite_is_a_floor_then_its_past_traces_cost(folder, tmp_db, monkeypatch):
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")
    plan = make_plan(load_suite(folder))
    floor = estimate_plan_cost(plan)
    store = Store(tmp_db)
    run_id, _ = run_suite(plan, store)
    actual = actual_cost(store, run_id)
    assert floor.lower_bound and floor.usd <= actual
    assert estimate_plan_cost(plan, store).usd == pytest.approx(actual, rel=0.25)


def test_past_runs_of_the_same_contenders_replace_the_schema_and_are_named(tmp_path, tmp_db):
    plan = make_plan(load_suite(write_suite(tmp_path / "suite")))
    store = Store(tmp_db)
    assert estimate_plan_cost(plan, store).sources == ["schema"]  # nothing stored yet
    run_suite(plan, store)  # two runs: enough calls per contender and dataset
    run_id, _ = run_suite(plan, store)
    estimate = estimate_plan_cost(plan, store)
    assert estimate.sources == ["past runs"]
    assert all(c.source == "past runs (6 calls)" for c in estimate.contenders)
    assert estimate.usd == pytest.approx(actual_cost(store, run_id), rel=0.1)
    assert "output tokens from past runs of the same contenders" in describe(estimate)


def test_reasoning_effort_raises_the_estimate_of_a_model_that_reasons(tmp_path):
    config = {"lineup": [{"model": "fake/cautious", "settings": {"reasoning_effort": ["low", "high"]}}]}
    plan = make_plan(load_suite(write_suite(tmp_path / "suite", config)))
    low, high = estimate_plan_cost(plan).contenders
    assert high.output_tokens > low.output_tokens + 3 * 400 - 1  # 400 reasoning tokens per call at high


def test_an_unpriced_model_makes_the_estimate_unknown_by_name(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-estimate-0000")
    config = {"lineup": [{"model": "openai/my-local-model", "api_base": "http://127.0.0.1:9/v1"}]}
    estimate = estimate_plan_cost(make_plan(load_suite(write_suite(tmp_path / "suite", config))))
    assert estimate.usd is None
    assert describe(estimate) == "unknown (no prices for openai/my-local-model)"


def test_suite_prices_give_an_estimate_for_any_model(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-estimate-0000")
    prices = {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}
    config = {"lineup": [{"model": "openai/my-local-model", "api_base": "http://127.0.0.1:9/v1", "prices": prices}]}
    estimate = estimate_plan_cost(make_plan(load_suite(write_suite(tmp_path / "suite", config))))
    (only,) = estimate.contenders
    assert estimate.usd == pytest.approx(only.input_tokens * 1e-6 + only.output_tokens * 2e-6)


def test_each_contender_is_estimated_from_the_messages_of_its_own_prompt():
    intake = Path(__file__).resolve().parents[2] / "data" / "suites" / "intake"
    overrides = Overrides(models=["fake/oracle"], settings={"prompt": ["default", "terse"]})
    plan = make_plan(load_suite(intake), RunOptions(overrides=overrides))
    by_prompt = {c.contender.split("prompt=")[1].split(" ")[0]: c for c in estimate_plan_cost(plan).contenders}
    assert by_prompt["terse"].input_tokens < 0.8 * by_prompt["default"].input_tokens  # the terse prompt is shorter
    assert by_prompt["terse"].output_tokens == by_prompt["default"].output_tokens  # the same answers are asked for


@pytest.mark.parametrize("folder", CONVERSATIONS, ids=[p.name for p in CONVERSATIONS])
def test_the_estimate_of_a_conversation_suite_is_a_lower_bound_of_what_it_costs(folder, tmp_db):
    plan = make_plan(load_suite(folder))
    estimate = estimate_plan_cost(plan)
    store = Store(tmp_db)
    run_id, _ = run_suite(plan, store)
    assert estimate.lower_bound and estimate.high_usd is None
    assert 0 < estimate.usd <= actual_cost(store, run_id)
    assert describe(estimate).startswith(f"at least ${estimate.usd:.4f} (one model call per case: a conversation")
