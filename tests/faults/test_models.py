"""The fault matrix's rows for a model endpoint: 5xx, 429, replies past the timeout and bodies that are not
JSON, on a plain run, a judged run and a pairwise run, each through a real ``evalcore run`` process against
the local OpenAI-compatible server (:mod:`tests.openai_server`).

Intermittent faults (four calls in ten) must cost nothing but retries: one result per (contender, case,
sample), every call the server received counted in a stored result's attempts, no fault stored as a score,
the run ``completed``. A fault on every call ends the run with its true status and exit 1, never a hang.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evalcore.storage.store import Store
from tests.faults.invariants import assert_holds, run_cli
from tests.openai_server import OpenAIServer

CASES = 6
CONTENDERS = ("openai/alpha", "openai/beta")
JUDGE = "openai/judge"
PRICES = {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}
TIMEOUT_S = 0.5
#: A reply this late is past every attempt's timeout, even on a loaded machine.
FAULTS = {"5xx": "status:500", "429": "status:429:0.01", "timeout": f"slow:{TIMEOUT_S + 2}", "not_json": "malformed"}
BOUND_S = 90


def _suite(root: Path, server: OpenAIServer, path: str) -> Path:
    run = {"max_attempts": 3, "backoff_s": 0, "timeout_s": TIMEOUT_S, "concurrency": 4, "parallelism": 2}
    config: dict[str, Any] = {
        "suite": f"faults-{path}",
        "run": run,
        "lineup": [{"model": m, "api_base": server.base_url, "prices": PRICES} for m in CONTENDERS],
    }
    if path == "plain":
        config |= {"adapter": "extract", "scorer": "fields", "fields": {"answer": {"type": "integer"}}}
        config["instructions"] = "Answer the question."
    elif path == "judged":
        judge = {"model": JUDGE, "api_base": server.base_url, "scale": [1, 5], "reference": "expected"}
        config |= {"adapter": "chat", "scorers": [{"name": "llm_judge", "options": judge}]}
        config["prices"] = {JUDGE: PRICES}
    else:
        config |= {"adapter": "chat", "scorers": ["non_empty"]}
        config["pairwise"] = {"model": JUDGE, "api_base": server.base_url, "reference": "expected"}
        config["prices"] = {JUDGE: PRICES}
    root.mkdir(parents=True)
    (root / "evalcore.yaml").write_text(json.dumps(config))
    dataset = root / "datasets" / "questions"
    dataset.mkdir(parents=True)
    cases = [
        {"id": f"q{i:02d}", "input": f"Question {i}: six times seven?", "expected": {"answer": 42}}
        for i in range(CASES)
    ]
    if path != "plain":
        cases = [{**case, "expected": "42"} for case in cases]
    (dataset / "cases.jsonl").write_text("".join(json.dumps(case) + "\n" for case in cases))
    return root


def _content(body: dict[str, Any]) -> str:
    """A verdict for the judges (they name themselves by model), the answer for the contenders."""
    if body.get("model") == JUDGE.split("/")[1]:
        if "answer_a" in json.dumps(body.get("messages")):
            return json.dumps({"winner": "A", "reasoning": "compared"})
        return json.dumps({"score": 4, "reasoning": "close to the reference"})
    return '{"answer": 42}'


def _judge_calls(server: OpenAIServer) -> int:
    return sum(1 for body in server.requests if body.get("model") == JUDGE.split("/")[1])


def _stored(db: Path) -> tuple[dict[str, Any], list[Any]]:
    store = Store(db)
    (info,) = store.list_runs()
    run = store.load_run(info["id"])
    store.close()
    return info, run.results


def _attempts(results: list[Any]) -> int:
    return sum(result.attempts for result in results)


@pytest.fixture
def served(openai_server: OpenAIServer) -> OpenAIServer:
    openai_server.content = _content
    return openai_server


#: Each fault alone on a plain run; every fault at once on the judged and the pairwise runs.
ROWS = [("plain", fault) for fault in sorted(FAULTS)] + [("judged", "all"), ("pairwise", "all")]


@pytest.mark.parametrize(("path", "fault"), ROWS)
def test_intermittent_endpoint_faults_cost_only_retries(tmp_path: Path, served: OpenAIServer, path: str, fault: str):
    served.inject(0.4, list(FAULTS.values()) if fault == "all" else [FAULTS[fault]], seed=7)
    db = tmp_path / "evalcore.db"
    outcome = run_cli("run", _suite(tmp_path / "suite", served, path), "--db", db, "--quiet", timeout=BOUND_S + 30)
    info, results = _stored(db)
    contender_calls = served.calls - _judge_calls(served)
    assert_holds(
        outcome,
        exit_codes={0, 1},
        within_s=BOUND_S,
        status="completed",
        stored_status=info["status"],
        paid=contender_calls,
        stored=_attempts(results),
    )
    keys = [r.key for r in results]
    assert len(keys) == len(set(keys)) == CASES * len(CONTENDERS)
    assert all(r.score is None for r in results if r.status == "error")
    assert all(r.error is None or r.error.kind != "model" or fault in ("not_json", "all") for r in results)


@pytest.mark.parametrize("fault", ["5xx", "429", "timeout"])
def test_an_endpoint_failing_every_call_ends_the_run_with_its_true_status(
    tmp_path: Path, served: OpenAIServer, fault: str
):
    served.inject(1.0, [FAULTS[fault]], seed=1)
    db = tmp_path / "evalcore.db"
    outcome = run_cli("run", _suite(tmp_path / "suite", served, "plain"), "--db", db, "--quiet", timeout=BOUND_S + 30)
    info, results = _stored(db)
    # The same 5xx on every call opens the breaker: the cases left are unrun (resumable), the run interrupted.
    # Replies past the timeout never open it, but a client starved of CPU can time out while still connecting,
    # which counts as unreachable: either way the stored status is the one the output gives.
    stopped = "stopped calling" in outcome.output
    assert stopped or fault != "5xx"
    status = "interrupted" if stopped else "completed"
    assert_holds(
        outcome,
        exit_codes={1},
        within_s=BOUND_S,
        status=status,
        stored_status=info["status"],
        paid=served.calls,
        stored=_attempts(results),
    )
    assert results and all(r.status == "error" and r.score is None for r in results)
