"""A run scored by the trajectory scorer: a reply with no trace is an error of kind no_trace, kept in the run file."""

from __future__ import annotations

from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.runner import run_suite
from evalcore.execution.verify import verify_suite
from evalcore.runfile.read import read_run_file
from evalcore.runfile.write import write_run_file
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.suites import write_suite

LOOKUP = {"name": "lookup_order", "arguments": {"order_id": "A17"}}
CASES = {"refund/001": ("Refund order A17", {"actions": [LOOKUP]})}
TRACED = """
from evalcore.scoring.adapters import ChatAdapter, Parsed


class TracedChat(ChatAdapter):
    name = "traced"

    def parse(self, raw, context):
        step = {"kind": "tool", "index": 0, "call_id": "c1", "name": "lookup_order",
                "arguments": {"order_id": "A17"}, "result": "shipped", "error": None,
                "bytes": 7, "sent_bytes": 7, "latency_s": 0.001}
        return Parsed(output=raw.strip(), trace=[step])
"""


def _suite(tmp_path, adapter):
    config = {"adapter": adapter, "scorer": "trajectory", "fields": None, "lineup": [{"model": "fake/oracle"}]}
    config["weighted_score"] = {"weights": {"score": 1}}
    return load_suite(write_suite(tmp_path / "suite", config, CASES))


def test_a_reply_without_a_trace_is_a_no_trace_error_that_a_run_file_keeps(tmp_path, tmp_db):
    store = Store(tmp_db)
    run_id, status = run_suite(make_plan(_suite(tmp_path, "chat"), RunOptions()), store)
    (result,) = store.load_run(run_id).results
    assert status == "completed" and result.status == "error" and result.error.kind == "no_trace"
    assert result.score is None and result.metrics == {} and result.raw is not None
    path = write_run_file(store.load_run(run_id), tmp_path / "run.json")
    assert read_run_file(path).results[0].error.kind == "no_trace"


def test_a_reply_with_a_trace_is_scored_on_its_path(tmp_path, tmp_db):
    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "traced.py").write_text(TRACED)
    store = Store(tmp_db)
    run_id, _ = run_suite(make_plan(_suite(tmp_path, "traced:TracedChat"), RunOptions()), store)
    (result,) = store.load_run(run_id).results
    assert result.status == "scored" and result.metrics["order_correct"] == 1.0


def test_verify_scores_the_expected_actions_against_themselves(tmp_path):
    report = verify_suite(write_suite(tmp_path / "suite", {"adapter": "chat", "scorer": "trajectory"}, CASES))
    assert report.ok and "score 1/1 on order_correct" in "\n".join(report.lines)
