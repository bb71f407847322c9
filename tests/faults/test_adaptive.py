"""The fault matrix's rows for an adaptive run (``evalcore run --adaptive``) whose model endpoint fails for one
contender: 5xx, 429, replies past the timeout and bodies that are not JSON, through a real ``evalcore run``
process against the local OpenAI-compatible server (:mod:`tests.openai_server`), raced against an offline fake.

Whatever the endpoint does, the race ends with a true status: an error is never a score (a contender whose
calls all fail is never ranked, nor stopped on scores it does not have), every call the endpoint received is
a stored attempt, the process ends in bounded time with an exit code ``docs/reliability.md`` promises, and it
says how many calls the race made.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evalcore.storage.store import Store
from tests.faults.invariants import assert_holds, run_cli
from tests.openai_server import OpenAIServer

CASES = 20
REAL = "openai/remote"
FAKE = "fake/oracle"
PRICES = {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}
TIMEOUT_S = 0.5
#: A reply this late is past every attempt's timeout, even on a loaded machine.
FAULTS = {"5xx": "status:500", "429": "status:429:0.01", "timeout": f"slow:{TIMEOUT_S + 2}", "not_json": "malformed"}
BOUND_S = 90


def _suite(root: Path, server: OpenAIServer) -> Path:
    config: dict[str, Any] = {
        "suite": "faults-adaptive",
        "adapter": "extract",
        "scorer": "fields",
        "fields": {"answer": {"type": "integer"}},
        "instructions": "Answer the question.",
        "run": {"max_attempts": 3, "backoff_s": 0, "timeout_s": TIMEOUT_S, "concurrency": 4, "parallelism": 2},
        "lineup": [{"model": REAL, "api_base": server.base_url, "prices": PRICES}, {"model": FAKE}],
    }
    root.mkdir(parents=True)
    (root / "evalcore.yaml").write_text(json.dumps(config))
    dataset = root / "datasets" / "questions"
    dataset.mkdir(parents=True)
    cases = [
        {"id": f"q{i:02d}", "input": f"Question {i}: six times seven?", "expected": {"answer": 42}}
        for i in range(CASES)
    ]
    (dataset / "cases.jsonl").write_text("".join(json.dumps(case) + "\n" for case in cases))
    return root


def _race(tmp_path: Path, server: OpenAIServer) -> tuple[Any, dict[str, Any], list[Any]]:
    db = tmp_path / "evalcore.db"
    argv = ["run", _suite(tmp_path / "suite", server), "--db", db, "--quiet", "--adaptive", "--seed", "1"]
    outcome = run_cli(*argv, "--round", "5", timeout=BOUND_S + 30)
    store = Store(db)
    (info,) = store.list_runs()
    run = store.load_run(info["id"])
    store.close()
    return outcome, {**info, "settings": run.info.settings}, run.results


def _remote_attempts(results: list[Any]) -> int:
    return sum(r.attempts for r in results if r.contender == REAL)


def _errors_never_scored(results: list[Any], race: dict[str, Any]) -> None:
    assert all(r.score is None for r in results if r.status == "error")
    scored = {r.contender for r in results if r.status == "scored"}
    assert {stop["contender"] for stop in race["stops"]} <= scored, race["stops"]


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_race_whose_endpoint_fails_every_call_of_one_contender_ends_with_its_true_status(
    tmp_path: Path, openai_server: OpenAIServer, fault: str
):
    openai_server.inject(1.0, [FAULTS[fault]], seed=1)
    outcome, info, results = _race(tmp_path, openai_server)
    race = info["settings"]["adaptive"]
    # The same 5xx on every call opens the breaker: the remote's cases left are unrun (resumable), the run
    # interrupted. Other faults fail each call after its attempts; a client starved of CPU may time out while
    # still connecting, which counts as unreachable: either way the stored status is the one the output gives.
    stopped = "stopped calling" in outcome.output or "cannot connect" in outcome.output
    assert stopped or fault != "5xx"
    assert_holds(
        outcome,
        exit_codes={1},
        within_s=BOUND_S,
        status="interrupted" if stopped else "completed",
        stored_status=info["status"],
        paid=openai_server.calls,
        stored=_remote_attempts(results),
        says=[f"every call of {REAL} failed"] if not stopped else ["not called"],
    )
    remote = [r for r in results if r.contender == REAL]
    assert remote and all(r.status == "error" for r in remote)
    _errors_never_scored(results, race)
    if fault == "not_json":
        assert all("the server's reply was not JSON" in r.error.message for r in remote)
    assert race["ended"] is not None and race["calls"] == len(results)
    assert f"the race made {len(results)} of at most {2 * CASES} calls" in outcome.output


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_intermittent_faults_in_a_race_cost_only_retries(tmp_path: Path, openai_server: OpenAIServer, fault: str):
    openai_server.content = '{"answer": 42}'
    openai_server.inject(0.4, [FAULTS[fault]], seed=7)
    outcome, info, results = _race(tmp_path, openai_server)
    race = info["settings"]["adaptive"]
    assert_holds(
        outcome,
        exit_codes={0, 1},
        within_s=BOUND_S,
        status="completed",
        stored_status=info["status"],
        paid=openai_server.calls,
        stored=_remote_attempts(results),
        says=["the race made"],
    )
    keys = [r.key for r in results]
    assert len(keys) == len(set(keys)) == race["calls"]
    _errors_never_scored(results, race)
