"""The fault matrix's rows for the judge that scores imported traces (``evalcore import traces.json --suite``):
its endpoint answering 500, hanging past the timeout, answering garbage, and the budget running out midway, each
through a real ``evalcore import`` process against the local OpenAI-compatible server.

No traced model is ever called (every request the server gets is the judge's); the scoring run ends with its true
stored status, every judge call the server received is counted in a stored result, and the cap holds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from evalcore.storage.spend import stored_spend
from evalcore.storage.store import Store
from tests.faults.invariants import Outcome, assert_holds, run_cli
from tests.importing import OTLP
from tests.openai_server import OpenAIServer

TRACES = OTLP / "chat-traces.json"
TIMEOUT_S = 0.5
PRICES = {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}
VERDICT = json.dumps({"helpful": 4, "reasoning": "answers the question"})
FAULTS = {"5xx": "status:500", "hang": f"slow:{TIMEOUT_S + 2}", "not_json": "malformed", "no_verdict": "bad_content"}
BOUND_S = 90
#: The replies the fixture holds (6 of its 7 traced calls; one failed when it was traced).
REPLIES = 6


def _suite(root: Path, server: OpenAIServer) -> Path:
    judge = {"model": "openai/judge", "api_base": server.base_url, "reference": "none", "scale": [1, 5]}
    config = {
        "suite": "traced",
        "adapter": "chat",
        "scorers": [{"name": "llm_judge", "options": judge | {"dimensions": ["helpful"]}}, "exact"],
        "prices": {"openai/judge": PRICES},
        "run": {"max_attempts": 2, "backoff_s": 0, "timeout_s": TIMEOUT_S, "concurrency": 4},
        "lineup": [{"model": "fake/oracle"}],
    }
    root.mkdir()
    (root / "evalcore.yaml").write_text(yaml.safe_dump(config))
    (root / "datasets" / "own").mkdir(parents=True)
    (root / "datasets" / "own" / "cases.jsonl").write_text('{"id": "a", "input": "hi", "expected": "hello"}\n')
    return root


def _import(tmp_path: Path, server: OpenAIServer, *extra: object) -> tuple[Outcome, Path]:
    db = tmp_path / "e.db"
    outcome = run_cli("import", TRACES, "--suite", _suite(tmp_path / "s", server), "--db", db, "--quiet", *extra)
    return outcome, db


def _scoring_run(db: Path) -> tuple[dict[str, Any], Any, float]:
    store = Store(db)
    (info,) = [r for r in store.list_runs() if not r["id"].startswith("otlp-")]
    return info, store.load_run(info["id"]), stored_spend(store, info["id"], contenders=False)


def _judge_attempts(run: Any) -> int:
    return sum(r.diagnostics.get("judge", {}).get("attempts", 0) for r in run.results)


@pytest.fixture
def judge(openai_server: OpenAIServer) -> OpenAIServer:
    openai_server.content = VERDICT
    return openai_server


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_judge_failing_every_call_ends_the_scoring_with_its_true_status(
    tmp_path: Path, judge: OpenAIServer, fault: str
):
    judge.inject(1.0, [FAULTS[fault]], seed=1)
    outcome, db = _import(tmp_path, judge)
    info, run, _ = _scoring_run(db)
    # An endpoint that cannot be reached opens its breaker: the replies left are not judged (a resume judges
    # them) and the run is interrupted; a judge that answers, however badly, leaves every reply an error.
    status = "interrupted" if "not judged" in outcome.output else "completed"
    assert_holds(
        outcome,
        exit_codes={1},
        within_s=BOUND_S,
        status=status,
        stored_status=info["status"],
        paid=judge.calls,
        stored=_judge_attempts(run),
    )
    assert {b["model"] for b in judge.requests} == {"judge"}  # no traced model is called
    assert all(r.status == "error" and r.score is None and "helpful" not in r.metrics for r in run.results)


def test_intermittent_judge_faults_cost_only_retries(tmp_path: Path, judge: OpenAIServer):
    judge.inject(0.3, list(FAULTS.values()), seed=7)
    outcome, db = _import(tmp_path, judge)
    info, run, _ = _scoring_run(db)
    status = "interrupted" if "not judged" in outcome.output else "completed"
    assert_holds(
        outcome,
        exit_codes={0, 1},
        within_s=BOUND_S,
        status=status,
        stored_status=info["status"],
        paid=judge.calls,
        stored=_judge_attempts(run),
    )
    keys = [r.key for r in run.results]
    assert len(keys) == len(set(keys)) == REPLIES + 1
    assert all(r.score is None for r in run.results if r.status == "error")


def test_the_budget_running_out_midway_stops_judging_and_holds_the_cap(tmp_path: Path, judge: OpenAIServer):
    (tmp_path / "free").mkdir()
    free, free_db = _import(tmp_path / "free", judge)
    assert free.exit_code == 0, free.output
    _, whole, spent_whole = _scoring_run(free_db)
    per_call = max(r.diagnostics["judge"]["cost_usd"] for r in whole.results if "judge" in r.diagnostics)
    # Each reply's judging is reserved at a cautious estimate (several times what a call costs here), so a cap
    # of three quarters of what judging every reply cost stops the scoring after its first replies.
    cap = round(spent_whole * 0.75, 6)
    paid_before = judge.calls
    (tmp_path / "capped").mkdir()
    outcome, db = _import(tmp_path / "capped", judge, "--max-cost", cap)
    info, run, spent = _scoring_run(db)
    assert_holds(
        outcome,
        exit_codes={1},
        within_s=BOUND_S,
        status="interrupted",
        stored_status=info["status"],
        paid=judge.calls - paid_before,
        stored=_judge_attempts(run),
        spent=spent,
        cap=cap,
        slack=per_call,
        says=["budget cap reached", f"evalcore run --resume {info['id']} --max-cost <more than"],
    )
    assert run.info.settings["stopped_by"] == "budget"
    assert 0 < sum(r.status == "scored" for r in run.results) < REPLIES
