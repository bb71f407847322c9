"""An Inspect agent eval's events as each result's trace: model turns and tool calls in order, tool errors,
results Inspect cut to max_tool_output, from .eval and .json logs (tests/runfile/test_import_lean.py holds
the lean parse to the standard one on every .json fixture)."""

from __future__ import annotations

import json

from evalcore.runfile.importers import read_import
from evalcore.runfile.trace import check_trace
from tests.importing import INSPECT

AGENT = INSPECT / "orders-agent.eval"


def _result(run, case):
    return next(r for r in run.results if r.case == case)


def test_model_and_tool_events_become_the_trace_in_order():
    trace = _result(read_import(AGENT), "status-a17").trace
    assert [(s["kind"], s["index"]) for s in trace] == [("model", 0), ("tool", 1), ("model", 2)]
    turn, call, answer = trace
    assert turn["tool_calls"][0]["name"] == "lookup_order"
    assert turn["tool_calls"][0]["arguments"] == {"order_id": "A17"}
    assert (turn["input_tokens"], turn["output_tokens"]) == (5, 7) and turn["latency_s"] > 0
    assert call["call_id"] == turn["tool_calls"][0]["id"] and call["name"] == "lookup_order"
    assert call["arguments"] == {"order_id": "A17"} and json.loads(call["result"])["status"] == "shipped"
    assert call["error"] is None and call["bytes"] == call["sent_bytes"] == len(call["result"].encode())
    assert answer["tool_calls"] == [] and answer["content"].startswith("About A17")
    assert check_trace(trace) is trace  # the steps are the run file's


def test_a_tool_error_is_the_steps_error_with_no_result():
    call = _result(read_import(AGENT), "status-z99").trace[1]
    assert (call["error"], call["result"], call["bytes"], call["sent_bytes"]) == ("no order Z99", None, 0, 0)


def test_a_result_inspect_cut_keeps_its_whole_size():
    call = _result(read_import(AGENT), "history-b02").trace[3]
    assert call["name"] == "order_history" and call["bytes"] == 12000
    assert call["sent_bytes"] == len(call["result"].encode()) < call["bytes"]


def test_a_json_log_of_the_same_eval_gives_the_same_traces():
    from_json, from_eval = read_import(INSPECT / "orders-agent.json"), read_import(AGENT)

    def shape(run):
        return [[(s["kind"], s.get("name"), s.get("error"), s.get("bytes")) for s in r.trace] for r in run.results]

    assert shape(from_json) == shape(from_eval)


def test_a_sample_without_events_has_no_trace():
    run = read_import(INSPECT / "older" / "v1-log.json")
    assert all(r.trace is None for r in run.results)
