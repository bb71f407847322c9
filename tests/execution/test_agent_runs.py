"""Runs of the agent adapter: fake agents through the runner, the trace stored with each result, a replay that
calls neither model nor tool, and the loop through litellm against the local OpenAI-compatible server."""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import Any

from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.replay import open_replay
from evalcore.execution.runner import run_suite
from evalcore.execution.verify import verify_suite
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.agents import CASES, agent_suite, alive
from tests.openai_server import OpenAIServer

EXAMPLE = Path(__file__).resolve().parents[2] / "data" / "suites" / "agent"
FAKES = [{"model": m} for m in ("fake/agent", "fake/agent-skips", "fake/agent-forbidden", "fake/agent-wrong-arg")]


def run(root: Path, store: Store, options: RunOptions | None = None) -> tuple[str, dict[tuple[str, str], Any]]:
    run_id, status = run_suite(make_plan(load_suite(root), options or RunOptions()), store)
    assert status == "completed"
    return run_id, {(r.contender, r.case): r for r in store.load_run(run_id).results}


def actions(result: Any) -> list[tuple[str, dict[str, Any]]]:
    return [(s["name"], s["arguments"]) for s in result.trace if s["kind"] == "tool"]


def test_each_fake_agents_path_is_stored_with_its_result(tmp_path: Path, tmp_db: Path):
    with Store(tmp_db) as store:
        _, results = run(agent_suite(tmp_path / "s", FAKES), store)
    refund = {m["model"]: actions(results[(m["model"], "refund/A17")]) for m in FAKES}
    lookup, pay = ("lookup_order", {"order_id": "A17"}), ("refund_order", {"order_id": "A17", "amount": 42.5})
    assert refund["fake/agent"] == [lookup, pay]
    assert refund["fake/agent-skips"] == [pay]
    assert refund["fake/agent-forbidden"] == [("delete_account", {"customer": "example"}), lookup, pay]
    assert refund["fake/agent-wrong-arg"] == [lookup, ("refund_order", {"order_id": "71A", "amount": 42.5})]
    assert results[("fake/agent", "refund/A17")].output == "Refunded 42.50."


def test_the_trajectory_scorer_scores_each_fake_agents_path_and_a_contains_scorer_its_answer(
    tmp_path: Path, tmp_db: Path
):
    scorers = [{"name": "trajectory"}, {"name": "contains", "expected": "answer"}]
    cases = [c for c in CASES if "answer" in c[2]]
    with Store(tmp_db) as store:
        _, results = run(agent_suite(tmp_path / "s", FAKES, scorers=scorers, cases=cases), store)
    refund = {m["model"]: results[(m["model"], "refund/A17")].metrics for m in FAKES}
    assert refund["fake/agent"]["order_correct"] == 1.0 and refund["fake/agent"]["contains"] == 1.0
    assert refund["fake/agent-skips"]["action_recall"] == 0.5 and refund["fake/agent-skips"]["order_correct"] == 0.0
    assert refund["fake/agent-forbidden"]["extra_calls"] == 1.0
    assert refund["fake/agent-wrong-arg"]["action_precision"] == 0.5


def test_a_results_usage_is_the_sum_of_its_model_turns(tmp_path: Path, tmp_db: Path):
    with Store(tmp_db) as store:
        _, results = run(agent_suite(tmp_path / "s", FAKES[:1]), store)
    result = results[("fake/agent", "refund/A17")]
    turns = [s for s in result.trace if s["kind"] == "model"]
    assert len(turns) == 3 and result.usage.input_tokens == sum(s["input_tokens"] for s in turns)
    assert result.usage.output_tokens == sum(s["output_tokens"] for s in turns)


def test_a_replay_gives_back_the_traces_without_calling_a_model_or_a_tool(tmp_path: Path, tmp_db: Path):
    root = agent_suite(tmp_path / "s", FAKES[:2])
    with Store(tmp_db) as store:
        first, before = run(root, store)
        (root / "tools.py").write_text("def lookup_order(order_id: str) -> str:\n    raise SystemExit('called')\n")
        _, after = run(root, store, RunOptions(replay=open_replay(first, store)))
    assert {k: r.trace for k, r in after.items()} == {k: r.trace for k, r in before.items()}
    assert {k: r.usage for k, r in after.items()} == {k: r.usage for k, r in before.items()}


def test_the_loop_runs_through_litellm_against_a_server_that_calls_a_tool_then_answers(
    tmp_path: Path, tmp_db: Path, openai_server: OpenAIServer
):
    def calls(body: dict[str, Any]) -> list[dict[str, Any]]:
        answered = any(m["role"] == "tool" for m in body["messages"])
        return [] if answered else [{"name": "lookup_order", "arguments": {"order_id": "A17"}}]

    openai_server.tool_calls = calls
    lineup = [{"model": "openai/agent-test", "api_base": openai_server.base_url}]
    with Store(tmp_db) as store:
        _, results = run(agent_suite(tmp_path / "s", lineup), store)
    result = results[("openai/agent-test", "status/A17")]
    assert result.status == "scored" and result.output == "No tool is needed."  # the server's text reply
    assert [s["kind"] for s in result.trace] == ["model", "tool", "model"]
    assert json.loads(result.trace[1]["result"]) == {"status": "shipped", "total": 42.5}
    second = openai_server.requests[-1]["messages"]
    assert second[-1]["role"] == "tool" and second[-2]["tool_calls"][0]["function"]["name"] == "lookup_order"
    turns = [s for s in result.trace if s["kind"] == "model"]
    assert result.usage.input_tokens == sum(s["input_tokens"] for s in turns) > 0


def test_a_failed_model_call_is_the_cases_error_and_not_scored(
    tmp_path: Path, tmp_db: Path, openai_server: OpenAIServer
):
    openai_server.scripts.extend(["status:400"] * 3)
    lineup = [{"model": "openai/agent-test", "api_base": openai_server.base_url}]
    with Store(tmp_db) as store:
        _, results = run(agent_suite(tmp_path / "s", lineup), store)
    failed = [r for r in results.values() if r.status == "error"]
    assert len(failed) == 3 and all(r.error.kind == "bad_request" and r.score is None for r in failed)


def test_the_example_agent_suite_verifies_with_30_cases():
    report = verify_suite(EXAMPLE)
    assert report.ok, report.lines
    assert "30 cases in 1 dataset (orders: 30)" in report.lines


def mcp_suite(tmp_path: Path, starts: Path, cases: int = 1) -> Path:
    """An agent suite of lookups whose one tool is the fixture MCP server, which logs its starts to ``starts``."""
    server = {
        "command": sys.executable,
        "args": [str(Path(__file__).resolve().parents[1] / "fixtures" / "mcp_orders.py")],
        "env": {"MCP_ORDERS_STARTS": str(starts)},
    }
    lookups = [c for c in CASES if all(a["name"] == "lookup_order" for a in c[2]["actions"])]
    many = [(f"{case_id}-{i}", text, want) for i in range(cases) for case_id, text, want in lookups]
    return agent_suite(tmp_path / "s", FAKES[:2], options={"tools": [], "mcp": [server]}, cases=many)


def test_an_mcp_server_is_started_once_per_run_and_stopped_when_it_ends(tmp_path: Path, tmp_db: Path, monkeypatch):
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")
    starts = tmp_path / "starts"
    with Store(tmp_db) as store:
        _, results = run(mcp_suite(tmp_path, starts), store)
    assert len(results) == 4 and all(r.status == "scored" for r in results.values())
    (pid,) = [int(line) for line in starts.read_text().split()]
    assert not alive(pid)


def test_an_mcp_server_is_stopped_when_its_run_is_stopped_midway(tmp_path: Path, tmp_db: Path, monkeypatch):
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0.05")
    starts, stop = tmp_path / "starts", threading.Event()

    def stop_after_one(progress: Any) -> None:
        if progress.done >= 1:
            stop.set()

    plan = make_plan(load_suite(mcp_suite(tmp_path, starts, cases=10)), RunOptions(concurrency=1, parallelism=1))
    with Store(tmp_db) as store:
        _, status = run_suite(plan, store, on_progress=stop_after_one, stop=stop)
    assert status == "cancelled"
    (pid,) = [int(line) for line in starts.read_text().split()]
    assert not alive(pid)


def test_verify_refuses_an_agent_suite_whose_expected_action_names_no_tool(tmp_path: Path):
    typo = [("status/A17", "Where is A17?", {"actions": [{"name": "lookup_ordr", "arguments": {"order_id": "A17"}}]})]
    report = verify_suite(agent_suite(tmp_path / "s", FAKES[:1], cases=typo))
    assert not report.ok
    assert "cases.jsonl: line 1: expected.actions[0].name: 'lookup_ordr'" in report.lines[-1]
    assert report.lines[-1].endswith("did you mean `lookup_order`?")


def test_verify_checks_expected_actions_against_the_tools_an_mcp_server_lists(tmp_path: Path):
    server = {
        "command": sys.executable,
        "args": [str(Path(__file__).resolve().parents[1] / "fixtures" / "mcp_orders.py")],
    }
    typo = [("status/A17", "Where is A17?", {"actions": [{"name": "lookup_order", "arguments": {"orderid": "A17"}}]})]
    report = verify_suite(agent_suite(tmp_path / "s", FAKES[:1], options={"tools": [], "mcp": [server]}, cases=typo))
    assert not report.ok
    wrong = "expected.actions[0].arguments: 'orderid' is not a parameter of lookup_order (order_id)"
    assert report.lines[-1].endswith(f"{wrong}; did you mean `order_id`?")


def test_verify_notes_an_mcp_server_it_cannot_open_and_checks_the_rest(tmp_path: Path):
    url = {"url": "http://127.0.0.1:9/mcp"}  # a port nothing listens on
    report = verify_suite(agent_suite(tmp_path / "s", FAKES[:1], options={"mcp": [url], "mcp_connect_timeout_s": 2}))
    assert report.ok, report.lines
    assert any(
        line.startswith("note: the MCP servers' tools are not checked") and ":9/mcp" in line for line in report.lines
    )
