"""A run scored by the trajectory scorer: a reply with no trace is an error of kind no_trace, kept in the run file."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler

import pytest
import yaml

from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.runner import run_suite
from evalcore.execution.verify import verify_suite
from evalcore.runfile.read import read_run_file
from evalcore.runfile.write import write_run_file
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.local_server import LocalServer
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
        return Parsed(output="Your refund is on its way.", trace=[step])
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


def test_a_suite_scores_the_path_and_the_final_answer_at_its_own_key(tmp_path, tmp_db):
    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "traced.py").write_text(TRACED)
    scorers = ["trajectory", {"name": "contains", "expected": "answer"}]
    config = {"adapter": "traced:TracedChat", "fields": None, "lineup": [{"model": "fake/oracle"}]}
    cases = {"refund/001": ("Refund order A17", {"actions": [LOOKUP], "answer": "refund"})}
    root = write_suite(tmp_path / "suite", config | {"weighted_score": {"weights": {"score": 1}}}, cases)
    suite = yaml.safe_load((root / "evalcore.yaml").read_text())
    del suite["scorer"]
    (root / "evalcore.yaml").write_text(yaml.safe_dump(suite | {"scorers": scorers}))
    assert verify_suite(root).ok
    store = Store(tmp_db)
    run_id, _ = run_suite(make_plan(load_suite(root)), store)
    (result,) = store.load_run(run_id).results
    assert result.metrics["order_correct"] == 1.0 and result.metrics["contains"] == 1.0


class AgentApp(LocalServer):
    """A team's agent behind an endpoint: it answers with the actions it took, except for a question about
    order B2, where it reports none (an application without instrumentation)."""

    def handler(self) -> type[BaseHTTPRequestHandler]:
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                question = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["question"]
                steps = [{"tool": "lookup_order", "args": {"order_id": "A17"}, "output": {"status": "broken"}}]
                reply = {"answer": "Refunded."} | ({} if "B2" in question else {"steps": steps})
                data = json.dumps(reply).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


@pytest.fixture
def agent_app():
    with AgentApp() as app:
        yield app


def test_an_agent_behind_an_http_endpoint_is_scored_on_the_actions_it_reports(tmp_path, tmp_db, agent_app):
    adapter = {
        "name": "http",
        "options": {
            "url": f"http://127.0.0.1:{agent_app.port}/ask",
            "body": {"question": "{{ input }}"},
            "output": "answer",
            "trace": {"path": "steps", "name": "tool", "arguments": "args", "result": "output"},
        },
    }
    config = {"adapter": adapter, "scorer": "trajectory", "fields": None, "lineup": [{"model": "http/agent"}]}
    config |= {"weighted_score": {"weights": {"score": 1}}, "run": {"max_attempts": 1}}
    cases = CASES | {"refund/002": ("Refund order B2", {"actions": [LOOKUP]})}
    store = Store(tmp_db)
    run_id, _ = run_suite(make_plan(load_suite(write_suite(tmp_path / "suite", config, cases))), store)
    traced, untraced = sorted(store.load_run(run_id).results, key=lambda r: r.case)
    assert traced.status == "scored" and traced.metrics["order_correct"] == 1.0
    assert traced.diagnostics["tool_result_bytes"] == len('{"status": "broken"}')
    assert untraced.status == "error" and untraced.error.kind == "no_trace" and untraced.output == "Refunded."
