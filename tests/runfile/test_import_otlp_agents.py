"""Agent runs in OTLP JSON traces (an ``invoke_agent`` span, ``chat`` turns and ``execute_tool`` spans, written by
the real OpenTelemetry SDK): each agent run one case, its model turns and tool calls the steps of its trace."""

from __future__ import annotations

from evalcore.runfile.importers import read_import
from evalcore.runfile.read import read_run_file
from evalcore.runfile.write import write_run_file
from tests.importing import OTLP

AGENTS = OTLP / "agent-traces.json"


def _by_reply(run, start: str):  # noqa: ANN001, ANN202
    return next(r for r in run.results if (r.raw or "").startswith(start))


def test_each_agent_run_is_one_case_of_its_agents_model_and_a_plain_call_stays_one_case():
    run = read_import(AGENTS)
    assert sorted((r.contender, r.trace is not None) for r in run.results) == [
        ("claude-3-5-haiku", True),
        ("gpt-4o-mini", False),
        ("gpt-4o-mini", True),
    ]
    counts = run.info.settings["import"]["source_counts"]
    assert (counts["agent_traces"], counts["model_calls"], counts["selected"]) == (3, 1, 4)


def test_tool_spans_become_tool_steps_between_the_model_turns():
    result = _by_reply(read_import(AGENTS), "Yes: rain is forecast.")
    assert [s["kind"] for s in result.trace] == ["model", "tool", "model"]
    turn, tool, last = result.trace
    assert turn["tool_calls"] == [{"id": "call_w1", "name": "get_weather", "arguments": {"city": "Oslo"}}]
    assert (tool["name"], tool["call_id"], tool["arguments"]) == ("get_weather", "call_w1", {"city": "Oslo"})
    assert tool["result"] == '{"forecast": "rain", "high_c": 6}' and tool["error"] is None
    assert last["content"] == "Yes: rain is forecast."
    assert (result.usage.input_tokens, result.usage.output_tokens) == (300, 48)


def test_the_question_of_an_agent_run_is_its_agents_input():
    run = read_import(AGENTS)
    result = _by_reply(run, "Yes: rain is forecast.")
    case = next(c for c in run.cases if c.id == result.case)
    assert case.input == {"messages": [{"role": "user", "content": "Should I pack an umbrella for Oslo?"}]}
    assert case.id == case.metadata["trace_id"] and case.expected is None


def test_a_tool_that_failed_is_a_tool_step_with_its_error_and_no_result():
    result = _by_reply(read_import(AGENTS), "Sorry, flight search is down")
    (tool,) = [s for s in result.trace if s["kind"] == "tool"]
    assert (tool["error"], tool["result"], tool["bytes"]) == ("flight API timed out", None, 0)


def test_an_agent_run_whose_content_was_not_captured_is_named_not_imported_empty():
    run = read_import(AGENTS)
    assert not any(r.raw == "" for r in run.results)
    (note,) = [n for n in run.info.settings["import"]["notes"] if "not captured" in n]
    assert note.startswith("agent trace ") and "'invoke_agent trip_planner', 4 spans" in note


def test_an_imported_agent_run_round_trips_through_a_run_file(tmp_path):
    run = read_import(AGENTS)
    again = read_run_file(write_run_file(run, tmp_path / "agents.json"))
    assert [r.trace for r in again.results] == [r.trace for r in run.results]
