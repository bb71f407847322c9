"""Runs judged by an LLM judge over real HTTP (the local OpenAI-compatible server): verdicts, judge errors,
retries on the judge, and the judge's cost kept apart from the contender's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evalcore.execution.plan import make_plan
from evalcore.execution.runner import run_suite
from evalcore.models.llm import litellm_module
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.openai_server import OpenAIServer

CONTENDER = "openai/test-model"
JUDGE = "openai/gpt-4o-mini"  # priced by litellm's own price map
PRICES = {"input_cost_per_token": 0.001, "output_cost_per_token": 0.002}
ANSWER = "Yes, you can return it within 30 days."


def write_judged_suite(root: Path, server: OpenAIServer, judge: dict[str, Any] | None = None) -> Path:
    config = {
        "suite": "judged",
        "adapter": "chat",
        "instructions": "Answer the customer using the policy.",
        "scorers": [
            {
                "name": "llm_judge",
                "options": {
                    "model": JUDGE,
                    "api_base": server.base_url,
                    "dimensions": ["correct", "tone"],
                    "scale": [1, 5],
                    **(judge or {}),
                },
            }
        ],
        "run": {"max_attempts": 3, "backoff_s": 0, "concurrency": 1},
        "lineup": [{"model": CONTENDER, "api_base": server.base_url, "prices": PRICES}],
        "weighted_score": {"weights": {"judge_score": 1}},
    }
    root.mkdir(parents=True)
    (root / "evalcore.yaml").write_text(json.dumps(config))
    dataset = root / "datasets" / "tickets"
    dataset.mkdir(parents=True)
    case = {"id": "r01", "input": "Policy: returns within 30 days.\nCustomer: can I return it?", "expected": ANSWER}
    (dataset / "cases.jsonl").write_text(json.dumps(case) + "\n")
    return root


def answering(verdict: str) -> Any:
    """Server content: the verdict for the judge, the answer for the contender."""
    return lambda body: verdict if body.get("model") == "gpt-4o-mini" else ANSWER


def run(tmp_path: Path, server: OpenAIServer, **judge: Any) -> Any:
    store = Store(tmp_path / "evalcore.db")
    plan = make_plan(load_suite(write_judged_suite(tmp_path / "suite", server, judge)))
    run_id, status = run_suite(plan, store)
    assert status == "completed"
    (result,) = store.load_run(run_id).results
    return result


def test_a_judged_result_has_a_metric_per_dimension_and_the_judges_record(tmp_path, openai_server):
    openai_server.content = answering(json.dumps({"correct": 5, "tone": 3, "reasoning": "right, a bit curt"}))
    result = run(tmp_path, openai_server)
    assert result.status == "scored" and result.output == ANSWER
    assert result.metrics == pytest.approx({"correct": 1.0, "tone": 0.5, "judge_score": 0.75})
    assert result.score == pytest.approx(0.75)
    (judge,) = result.diagnostics["judge"]["judges"]
    (call,) = judge["calls"]
    assert call["reasoning"] == "right, a bit curt" and call["verdict"] == {"correct": 5, "tone": 3}
    assert ANSWER in judge["messages"][1]["content"]
    judged = [r for r in openai_server.requests if r["model"] == "gpt-4o-mini"]
    assert judged[0]["response_format"] == {"type": "json_object"}


def test_the_judges_cost_is_kept_apart_from_the_contenders(tmp_path, openai_server):
    openai_server.content = answering(json.dumps({"correct": 4, "tone": 4, "reasoning": "good"}))
    result = run(tmp_path, openai_server)
    contender_tokens = (result.usage.input_tokens, result.usage.output_tokens)
    assert result.usage.cost_usd == pytest.approx(contender_tokens[0] * 0.001 + contender_tokens[1] * 0.002)
    record = result.diagnostics["judge"]
    price = litellm_module().get_model_info("gpt-4o-mini")
    judge_cost = record["input_tokens"] * price["input_cost_per_token"]
    judge_cost += record["output_tokens"] * price["output_cost_per_token"]
    assert record["cost_usd"] == pytest.approx(judge_cost) and judge_cost > 0
    assert record["input_tokens"] > contender_tokens[0]  # the judge reads the question, the answer and more
    assert record["latency_s"] > 0 and result.latency_s > 0


def test_a_judge_reply_that_is_not_json_is_an_error_of_kind_judge(tmp_path, openai_server):
    openai_server.content = answering("I would give this answer a 4 out of 5.")
    result = run(tmp_path, openai_server)
    assert result.status == "error" and result.score is None
    assert result.error.kind == "judge" and "reply is not JSON" in result.error.message
    assert result.raw == ANSWER and result.usage.cost_usd is not None  # the contender's reply is kept
    (judge,) = result.diagnostics["judge"]["judges"]
    assert judge["calls"][0]["raw"] == "I would give this answer a 4 out of 5."


def test_a_429_on_the_judge_is_retried_and_counted_in_the_judges_attempts(tmp_path, openai_server):
    openai_server.content = answering(json.dumps({"correct": 5, "tone": 5, "reasoning": "fine"}))
    openai_server.script("ok", "status:429:0")  # the contender's call, then the judge's first attempt
    result = run(tmp_path, openai_server)
    assert result.status == "scored" and result.score == 1.0
    assert result.attempts == 1  # the contender's own
    assert result.diagnostics["judge"]["attempts"] == 2
    assert result.diagnostics["judge"]["judges"][0]["calls"][0]["attempts"] == 2
    assert openai_server.served[:3] == ["ok", "status:429:0", "ok"]


def test_a_judge_that_keeps_failing_makes_a_judge_error_naming_the_cause(tmp_path, openai_server):
    openai_server.content = answering("{}")
    openai_server.script("ok", "status:500", "status:500", "status:500")
    result = run(tmp_path, openai_server)
    assert result.error.kind == "judge" and result.error.message.startswith(f"judge {JUDGE}: ")
    assert result.diagnostics["judge"]["attempts"] == 3


def test_a_panel_of_fake_judges_runs_offline_and_reports_disagreement(tmp_path, openai_server):
    openai_server.content = answering("unused")
    result = run(tmp_path, openai_server, model=["fake/judge", "fake/judge-strict"])
    assert result.status == "scored"
    assert {"correct", "tone", "judge_score", "judge_disagreement"} == set(result.metrics)
    assert [j["model"] for j in result.diagnostics["judge"]["judges"]] == ["fake/judge", "fake/judge-strict"]
    assert openai_server.calls == 1  # the contender only


def test_a_panels_flagged_share_is_a_leaderboard_metric(tmp_path, openai_server):
    from evalcore.analysis.tables.runs import rank_run
    from evalcore.storage.history import StoredRun

    openai_server.content = answering("unused")
    result = run(tmp_path, openai_server, model=["fake/judge", "fake/judge-strict"], disagreement_threshold=0.01)
    flagged = 1.0 if result.metrics["judge_disagreement"] >= 0.01 else 0.0
    assert result.metrics["judge_flagged"] == flagged
    with Store(tmp_path / "evalcore.db") as store:
        (row,) = rank_run(StoredRun(store, store.list_runs()[0]["id"]), {"judge_flagged": -1}, ci=False).to_dict(
            "records"
        )
    assert row["judge_flagged"] == flagged
