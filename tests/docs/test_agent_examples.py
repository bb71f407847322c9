"""The YAML examples of docs/suites.md for tool-call rules and the trajectory scorer are answers they accept, and
the MCP server of docs/agents.md serves an agent run its tool."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from evalcore.core.records import Case
from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.runner import run_suite
from evalcore.scoring.adapters import Context, Parsed
from evalcore.scoring.tool_calls import score_tool_calls
from evalcore.scoring.trajectory import TrajectoryScorer
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.agents import CASES, agent_suite

SUITES = Path(__file__).resolve().parents[2] / "docs" / "suites.md"
AGENTS = Path(__file__).resolve().parents[2] / "docs" / "agents.md"
BLOCK = re.compile(r"^( *)```yaml\n(.*?)^\1```", re.DOTALL | re.MULTILINE)
PYTHON = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)


def yaml_block(marker: str) -> dict:
    """The YAML block of docs/suites.md that holds ``marker`` (an indented block made flush)."""
    (found,) = [m for m in BLOCK.finditer(SUITES.read_text()) if marker in m.group(2)]
    indent = len(found.group(1))
    return yaml.safe_load("\n".join(line[indent:] for line in found.group(2).splitlines()))


def test_the_object_argument_example_scores_a_right_call_exactly():
    expected = yaml_block("book_table")["expected"]
    call = {"name": "book_table", "arguments": {"restaurant": "Luigi", "party": {"size": 4, "seating": "outdoor"}}}
    assert score_tool_calls(expected, call)[0]["call_exact"] == 1.0


def test_the_trajectory_example_accepts_a_lookup_and_a_refund_with_a_call_between():
    expected = yaml_block("refund-a17")["expected"]
    case = Case("support", "refund-a17", "v", "I want my money back", expected)
    steps = [
        {"kind": "tool", "index": 0, "name": "lookup_order", "arguments": {"order_id": "a17"}},
        {"kind": "tool", "index": 1, "name": "get_policy", "arguments": {}},
        {"kind": "tool", "index": 2, "name": "refund", "arguments": {"order_id": "A17"}},
    ]
    scored = TrajectoryScorer().score(case, Parsed("Refunded.", trace=steps), Context("", ()))
    assert scored.metrics["order_correct"] == 1.0 and scored.metrics["extra_calls"] == 1.0


def test_the_mcp_server_example_serves_its_tool_to_an_agent_run_over_stdio(tmp_path: Path, tmp_db: Path, monkeypatch):
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")
    (server,) = [m.group(1) for m in PYTHON.finditer(AGENTS.read_text()) if "MCPServer(" in m.group(1)]
    options = {"tools": [], "mcp": [{"command": "python", "args": ["orders_server.py"]}]}
    root = agent_suite(tmp_path / "s", [{"model": "fake/agent"}], options=options, cases=[CASES[0], CASES[2]])
    (root / "orders_server.py").write_text(server)
    with Store(tmp_db) as store:
        run_id, status = run_suite(make_plan(load_suite(root), RunOptions()), store)
        results = {r.case: r for r in store.load_run(run_id).results}
    assert status == "completed"
    found, missing = results["status/A17"].trace[1], results["unknown/Z9"].trace[1]
    assert found["result"] == "order A17: shipped, total 42.5" and found["error"] is None
    assert missing["error"] == "Error executing tool lookup_order: no order Z9"
