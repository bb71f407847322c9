"""pages/cases.py under AppTest, an agent's trace: the bundled agent demo's timeline with its expected actions
marked, an imported Inspect agent eval's trace (a result Inspect cut), and no trace section without a trace."""

from __future__ import annotations

from evalcore.runfile.importers import read_import
from evalcore.runfile.read import read_run_file
from tests.app.test_app_shared import REPO, demo_run, open_page, seed, texts
from tests.importing import INSPECT

PAGE = "pages/cases.py"
AGENT_DEMO = REPO / "data" / "runs" / "agent-demo.json"


def _open_case(monkeypatch, tmp_path, run, contender, case):
    """The Cases page of ``run`` with one result picked, as a click on its row leaves it."""
    seed(monkeypatch, tmp_path, run)
    at = open_page(PAGE)
    table = at.dataframe[0].value
    row = next(i for i, r in enumerate(table.itertuples()) if (r.contender, r.case) == (contender, case))
    at.session_state["case_table"] = {"selection": {"rows": [row], "columns": [], "cells": []}}
    return at.run()


def test_the_bundled_agent_run_shows_a_results_steps_with_expected_actions_marked(monkeypatch, tmp_path):
    at = _open_case(monkeypatch, tmp_path, read_run_file(AGENT_DEMO), "fake/agent-loops", "refund/01")
    assert not at.exception and not at.error
    shown = texts(at)
    assert "Trace" in shown and "Expected actions (order: `strict`)" in shown
    expected = next(d.value for d in at.dataframe if "mark" in d.value.columns)
    assert set(expected["mark"]) <= {"matched", "missing"} and "missing" in set(expected["mark"])
    tools = [e for e in at.expander if "Tool " in e.label]
    assert tools and any("extra" in e.label for e in tools)
    assert any("Model turn" in m.value for m in at.markdown)


def test_a_tool_error_is_marked_in_the_timeline(monkeypatch, tmp_path):
    at = _open_case(monkeypatch, tmp_path, read_run_file(AGENT_DEMO), "fake/agent", "status/09")
    failed = [e for e in at.expander if "failed" in e.label]
    assert failed and failed[0].icon == ":material/error:"


def test_an_imported_inspect_agent_eval_shows_its_trace_with_a_cut_result(monkeypatch, tmp_path):
    run = read_import(INSPECT / "orders-agent.eval")
    at = _open_case(monkeypatch, tmp_path, run, run.contenders[0].id, "history-b02")
    assert not at.exception and not at.error
    assert [e.label.split(" · ")[0] for e in at.expander if "Tool " in e.label] == [
        "1. Tool lookup\\_order",
        "3. Tool order\\_history",
    ]
    assert "the model was sent 1,140 of its 12,000 bytes" in texts(at)


def test_a_result_without_a_trace_has_no_trace_section(monkeypatch, tmp_path):
    run = demo_run()
    at = _open_case(monkeypatch, tmp_path, run, run.contenders[0].id, run.cases[0].id)
    assert "Trace" not in [m.value for m in at.markdown]


def test_an_agent_that_missed_its_lookup_shows_the_actions_wanted_and_taken_as_wrong(monkeypatch, tmp_path):
    at = _open_case(monkeypatch, tmp_path, read_run_file(AGENT_DEMO), "fake/agent-skips", "status/01")
    assert not at.exception and not at.error
    table = next(d.value for d in at.dataframe if list(d.value.columns) == ["field", "want", "got", "right"])
    rows = {r.field: r for r in table.itertuples()}
    assert set(rows) == {"actions (order: strict)", "answer"}
    assert rows["actions (order: strict)"].got == "no tool call" and not rows["actions (order: strict)"].right
    assert "null" not in set(table["got"])
