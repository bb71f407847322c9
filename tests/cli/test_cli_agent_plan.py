"""``evalcore plan`` of an agent suite: its model calls, a lower bound until past runs tell the steps."""

from __future__ import annotations

from pathlib import Path

from evalcore.cli import main
from tests.agents import CASES, agent_suite


def test_plan_of_an_agent_suite_says_its_calls_and_cost_are_a_lower_bound(capsys, tmp_path: Path):
    root = agent_suite(tmp_path / "s", [{"model": "fake/agent"}])
    code = main(["plan", str(root), "--db", str(tmp_path / "none.db")])
    out = capsys.readouterr().out
    assert code == 0
    assert f"model calls: at least {len(CASES)}: an agent makes one call per step, up to max_steps = 6" in out
    assert "estimated cost: at least $" in out


def test_plan_of_an_agent_suite_counts_results_apart_from_its_model_calls(capsys, tmp_path: Path):
    root = agent_suite(tmp_path / "s", [{"model": "fake/agent"}])
    assert main(["plan", str(root), "--db", str(tmp_path / "none.db")]) == 0
    out = capsys.readouterr().out
    assert f"{len(CASES)} results: 1 contender x {len(CASES)} cases x 1 sample" in out
    assert " calls:" not in out.replace("model calls:", "")
    assert out.splitlines()[0].split()[:3] == ["contender", "support", "results"]


def test_plan_of_an_agent_suite_with_past_runs_estimates_its_calls_from_their_traces(
    capsys, tmp_path: Path, monkeypatch
):
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")
    root, db = agent_suite(tmp_path / "s", [{"model": "fake/agent"}]), str(tmp_path / "e.db")
    for _ in range(2):
        assert main(["run", str(root), "--db", db, "--quiet"]) == 0
    capsys.readouterr()
    assert main(["plan", str(root), "--db", db]) == 0
    out = capsys.readouterr().out
    assert "model calls: about 7 (" in out and "at most 18 (max_steps = 6)" in out
    assert "past traces (6 cases)" in out
