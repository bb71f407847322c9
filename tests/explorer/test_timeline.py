"""The Cases page's trace timeline, prepared without a browser: steps in order with their facts, tool errors,
results cut to the byte budget, and the expected actions against the ones taken (matched, missing, extra)."""

from __future__ import annotations

from evalcore.core.records import Case, Result
from evalcore.explorer.timeline import EXTRA, MATCHED, MISSING, trace_timeline

EXPECTED = {
    "actions": [
        {"name": "lookup_order", "arguments": {"order_id": "A17"}},
        {"name": "refund_order", "arguments": {"order_id": "A17"}},
    ],
    "order": "strict",
    "answer": "Refunded.",
}


def _model(index, calls=(), content=None, tokens=(812, 40)):
    return {
        "kind": "model",
        "index": index,
        "latency_s": 0.41,
        "input_tokens": tokens[0],
        "output_tokens": tokens[1],
        "cost_usd": 0.0001,
        "content": content,
        "tool_calls": [{"id": f"call_{index}", "name": n, "arguments": a} for n, a in calls],
    }


def _tool(index, name, arguments, result="ok", error=None, size=None):
    sent = 0 if result is None else len(result.encode())
    return {
        "kind": "tool",
        "index": index,
        "call_id": f"call_{index - 1}",
        "name": name,
        "arguments": arguments,
        "result": result,
        "error": error,
        "bytes": size if size is not None else sent,
        "sent_bytes": sent,
        "latency_s": 0.002,
    }


def _timeline(trace, expected=EXPECTED):
    case = Case("orders", "refund/01", "refund", "Refund A17 please", expected, {})
    result = Result("fake/agent", "orders", "refund/01", 0, "scored", 1.0, trace=trace)
    return trace_timeline(case, result)


SKIPS_LOOKUP = [
    _model(0, [("delete_account", {"customer": "Ann"})]),
    _tool(1, "delete_account", {"customer": "Ann"}, result=None, error="PermissionError: never"),
    _model(2, [("refund_order", {"order_id": "A17"})]),
    _tool(3, "refund_order", {"order_id": "A17"}, result="x" * 100, size=4000),
    _model(4, content="Refunded."),
]


def test_each_step_is_a_row_in_order_with_its_facts():
    steps = _timeline(SKIPS_LOOKUP).steps
    assert [(s["index"], s["kind"]) for s in steps] == [
        (0, "model"),
        (1, "tool"),
        (2, "model"),
        (3, "tool"),
        (4, "model"),
    ]
    assert steps[0]["title"] == "Model turn: calls delete_account"
    assert steps[0]["facts"] == "812 in / 40 out tokens · 0.410 s · $0.0001"
    assert steps[0]["calls"] == ['delete_account({"customer": "Ann"})']
    assert steps[3]["arguments"] == '{"order_id": "A17"}' and steps[4]["content"] == "Refunded."


def test_a_failed_tool_call_is_marked_with_its_error():
    failed = _timeline(SKIPS_LOOKUP).steps[1]
    assert failed["title"] == "Tool delete_account failed" and failed["error"] == "PermissionError: never"


def test_a_result_cut_to_the_byte_budget_says_so():
    steps = _timeline(SKIPS_LOOKUP).steps
    assert steps[3]["cut"] == "result cut to the byte budget: the model was sent 100 of its 4,000 bytes"
    assert steps[1]["cut"] is None


def test_tool_steps_are_marked_against_the_expected_actions():
    timeline = _timeline(SKIPS_LOOKUP)
    assert [(s["mark"], s["expected"]) for s in timeline.steps] == [
        (None, None),
        (EXTRA, None),
        (None, None),
        (MATCHED, 2),
        (None, None),
    ]
    assert [(e["number"], e["name"], e["mark"], e["step"]) for e in timeline.expected] == [
        (1, "lookup_order", MISSING, None),
        (2, "refund_order", MATCHED, 3),
    ]
    assert timeline.expected[0]["arguments"] == '{"order_id": "A17"}' and timeline.order == "strict"


def test_a_wrong_argument_is_not_a_match():
    trace = [_model(0, [("lookup_order", {"order_id": "B02"})]), _tool(1, "lookup_order", {"order_id": "B02"})]
    timeline = _timeline(trace)
    assert timeline.steps[1]["mark"] == EXTRA and {e["mark"] for e in timeline.expected} == {MISSING}


def test_the_totals_count_turns_calls_errors_tokens_and_cut_results():
    assert _timeline(SKIPS_LOOKUP).totals == {
        "model turns": 3,
        "tool calls": 2,
        "tool errors": 1,
        "input tokens": 3 * 812,
        "output tokens": 3 * 40,
        "cut results": 1,
    }


def test_a_case_that_expects_no_actions_leaves_the_steps_unmarked():
    timeline = _timeline(SKIPS_LOOKUP, expected="Refunded.")
    assert timeline.expected == [] and timeline.order is None
    assert {s["mark"] for s in timeline.steps} == {None}


def test_an_empty_trace_is_a_timeline_with_every_expected_action_missing():
    timeline = _timeline([])
    assert timeline.steps == [] and [e["mark"] for e in timeline.expected] == [MISSING, MISSING]


def test_a_result_with_no_trace_has_no_timeline():
    assert _timeline(None) is None


def test_a_tool_call_under_a_millisecond_says_so():
    step = _tool(1, "lookup_order", {"order_id": "A17"}, result="ok") | {"latency_s": 0.0002}
    assert _timeline([step]).steps[0]["facts"] == "under 1 ms · 2 bytes"


def test_the_expected_actions_table_leaves_a_missing_actions_step_empty():
    table = _timeline(SKIPS_LOOKUP).expected_table()
    assert list(table.columns) == ["number", "name", "arguments", "mark", "step"]
    assert table["step"].isna().tolist() == [True, False] and table["step"].iloc[1] == 3
