"""The fault matrix's rows for ``evalcore judge align``: the judge endpoint fails while the aligned judge is asked
about the held-out ratings (5xx, a hang past the timeout, a dropped connection, replies that stop being verdicts
midway, the budget cap reached midway), and while the judge's model rewrites the rubric (5xx, a reply that is
not a rubric).

Each row runs a real ``evalcore judge align`` process against the local OpenAI-compatible server
(:mod:`tests.openai_server`) and asserts the matrix's invariants: exit 1 (the command ran, its outcome is
incomplete), no traceback, a time bound, the true status (``incomplete``, how many items were judged), what the
calls cost within the cap, and no aligned judge written from partial data.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.aligning import rated_suite_run
from tests.faults.invariants import assert_holds, run_cli
from tests.openai_server import OpenAIServer

JUDGE = "openai/judge"
PRICES = "prices:\n  openai/judge: {input_cost_per_token: 1.0e-6, output_cost_per_token: 2.0e-6}\n"
VERDICT = json.dumps({"correct": 1, "reasoning": "matches the reference"})
BOUND_S = 60
#: (row id, scripts queued before the rest, what every later call gets, extra arguments).
ROWS = [
    ("5xx", [], "status:500", []),
    ("hang", [], "slow:3", []),
    ("drop", [], "drop", []),
    ("garbage midway", ["ok"] * 8, "bad_content", []),
    ("budget midway", [], "ok", ["--max-cost", "0.003"]),
    ("5xx on the rubric rewrite", [], "status:500", ["--rewrite-rubric", JUDGE]),
    ("garbage rubric", [], "ok", ["--rewrite-rubric", JUDGE]),
]


@pytest.fixture
def rated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, openai_server: OpenAIServer) -> tuple[Path, Path, str]:
    """A run judged offline and rated by people, its suite's judge then moved to the local server."""
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")
    suite, db, run_id = rated_suite_run(tmp_path)
    text = (suite / "evalcore.yaml").read_text(encoding="utf-8")
    moved = f"model: {JUDGE}\n      api_base: {openai_server.base_url}"
    text = text.replace("model: fake/judge-learner", moved).replace("datasets:\n", PRICES + "datasets:\n", 1)
    (suite / "evalcore.yaml").write_text(text, encoding="utf-8")
    openai_server.content = VERDICT
    return suite, db, run_id


@pytest.mark.parametrize(("first", "then", "extra"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_a_failing_judge_endpoint_writes_no_aligned_judge(rated, openai_server, first, then, extra):
    suite, db, run_id = rated
    openai_server.scripts.extend(first)
    openai_server.inject(1.0, [then])
    args = ["--db", db, "--format", "json", "--timeout", "0.5", "--max-attempts", "2", *extra]
    outcome = run_cli("judge", "align", run_id, *args)
    assert_holds(outcome, exit_codes=[1], within_s=BOUND_S, says=["could not be judged", "no aligned judge written"])
    data = json.loads(outcome.stdout)
    assert data["status"] == "incomplete"
    assert data["report"] is None and data["written"] is None
    assert data["judged"] < data["items"] == 20
    assert not (suite / "judges").exists()
    if "--max-cost" in extra:
        assert 0 < data["spent_usd"] <= 0.003
        assert len(openai_server.requests) < 20  # the cap stopped the calls, not the server


def test_a_healthy_judge_endpoint_measures_the_alignment(rated, openai_server):
    _, db, run_id = rated
    outcome = run_cli("judge", "align", run_id, "--db", db, "--format", "json", "--max-cost", "1")
    assert_holds(outcome, exit_codes=[0], within_s=BOUND_S)
    data = json.loads(outcome.stdout)
    assert data["status"] == "not better"  # the server passes every reply, as the judge did before
    assert data["judged"] == 20
    assert len(openai_server.requests) == 20
    assert 0 < data["spent_usd"] <= 1
