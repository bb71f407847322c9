"""The estimate of an agent plan: a lower bound with no past traces, the past traces' steps and tokens with them."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalcore.execution.estimate import calls_text, describe, estimate_plan_cost
from evalcore.execution.plan import make_plan
from evalcore.execution.runner import run_suite
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.agents import CASES, agent_suite

MAX_STEPS = 6  # agent_suite's


def test_an_agent_with_no_past_traces_is_estimated_as_a_lower_bound_with_the_max_steps_ceiling(tmp_path: Path):
    plan = make_plan(load_suite(agent_suite(tmp_path / "s", [{"model": "fake/agent"}])))
    estimate = estimate_plan_cost(plan)
    (agent,) = estimate.contenders
    assert agent.source == "lower bound" and estimate.lower_bound
    assert agent.calls == (len(CASES),) * 3 and agent.max_calls == MAX_STEPS * len(CASES)
    assert estimate.usd is not None and estimate.high_usd is None  # a floor: no invented upper end
    assert calls_text(estimate) == (
        f"at least {len(CASES)}: an agent makes one call per step, up to max_steps = {MAX_STEPS} "
        f"(at most {MAX_STEPS * len(CASES)} calls)"
    )
    assert describe(estimate).startswith(f"at least ${estimate.usd:.4f}")


def test_an_agents_past_traces_give_its_steps_and_cost_per_case(tmp_path: Path, tmp_db: Path, monkeypatch):
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")
    plan = make_plan(load_suite(agent_suite(tmp_path / "s", [{"model": "fake/agent"}])))
    with Store(tmp_db) as store:
        run_suite(plan, store)  # two runs: six past cases, enough to stand for the three
        run_id, _ = run_suite(plan, store)
        estimate = estimate_plan_cost(plan, store)
        results = store.load_run(run_id).results
        (listed,) = [r for r in store.list_runs() if r["id"] == run_id]
    turns = sum(1 for r in results for s in r.trace if s["kind"] == "model")
    (agent,) = estimate.contenders
    assert agent.source == "past traces (6 cases)" and not estimate.lower_bound
    assert agent.calls is not None and agent.calls[1] == pytest.approx(turns)
    assert estimate.usd == pytest.approx(float(listed["cost_usd"]), rel=0.01)
    assert estimate.low_usd <= estimate.usd <= estimate.high_usd
    assert calls_text(estimate).startswith(f"about {turns} (")


def test_a_plan_of_another_adapter_has_no_model_calls_line(tmp_path: Path):
    from tests.suites import write_suite

    estimate = estimate_plan_cost(make_plan(load_suite(write_suite(tmp_path / "suite"))))
    assert calls_text(estimate) is None and estimate.contenders[0].calls is None
