"""The fault matrix's rows for conversations: the contender's endpoint and a simulated user's endpoint answering
5xx, hanging past the timeout or sending bodies that are not JSON, each through a real ``evalcore run`` process
against the local OpenAI-compatible server (:mod:`tests.openai_server`), the other side an offline fake.

A fault on every call ends the run with its true status and exit 1, never a hang, never a score for a conversation
that failed midway; intermittent faults cost only retries. Every call either endpoint received is counted in a
stored result's ``attempts`` (a conversation's count both sides' calls). A run stopped midway and resumed calls
its unfinished conversations again from their first turn.
"""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from evalcore.models.breaker import BREAKER_PREFIXES
from evalcore.storage.store import Store
from tests.faults.invariants import assert_holds, run_cli, start_cli
from tests.openai_server import OpenAIServer

CASES = 4
PRICES = {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}
TIMEOUT_S = 0.5
FAULTS = {"5xx": "status:500", "hang": f"slow:{TIMEOUT_S + 2}", "garbage": "malformed"}
BOUND_S = 90
BOT, SIMULATOR = "openai/bot", "openai/customer"


def _suite(root: Path, server: OpenAIServer, served: str) -> Path:
    """A suite of simulated conversations whose ``served`` side (``contender`` or ``simulator``) is the server's."""
    run = {"max_attempts": 2, "backoff_s": 0, "timeout_s": TIMEOUT_S, "concurrency": 4}
    bot = {"model": BOT, "api_base": server.base_url, "prices": PRICES} if served == "contender" else None
    config: dict[str, Any] = {
        "suite": f"faults-conversation-{served}",
        "adapter": "chat",
        "instructions": "Help the customer.",
        "scorers": [{"name": "goal_completed", "primary": True}, "turns"],
        "run": run,
        "lineup": [bot or {"model": "fake/helpdesk"}],
        "prices": {SIMULATOR: PRICES},
    }
    user: dict[str, Any] = {"goal": "A refund.", "facts": {"order number": "4417"}, "max_turns": 3}
    user |= {"model": SIMULATOR, "api_base": server.base_url} if served == "simulator" else {"model": "fake/user"}
    root.mkdir(parents=True)
    (root / "evalcore.yaml").write_text(json.dumps(config))
    dataset = root / "datasets" / "chats"
    dataset.mkdir(parents=True)
    (dataset / "cases.jsonl").write_text(
        "".join(json.dumps({"id": f"c{i}", "user": user}) + "\n" for i in range(CASES))
    )
    return root


def _content(body: dict[str, Any]) -> str:
    """The bot confirms at once; the customer states its goal, then is done."""
    if body.get("model") == BOT.split("/")[1]:
        return "Confirmed: order number 4417. Your request is done."
    spoke = any(m.get("role") == "assistant" for m in body.get("messages", []))
    return "Thank you, that is all. [DONE]" if spoke else "I want a refund for order 4417."


@pytest.fixture
def served(openai_server: OpenAIServer) -> OpenAIServer:
    openai_server.content = _content
    return openai_server


def _stored(db: Path) -> tuple[dict[str, Any], list[Any]]:
    store = Store(db)
    (info,) = store.list_runs()
    run = store.load_run(info["id"])
    store.close()
    return info, run.results


def _calls_of(results: list[Any], side: str) -> int:
    """The calls of one side the stored results count: the simulator's apart, else every attempt but those."""
    sims = sum((r.diagnostics.get("simulator") or {}).get("attempts", 0) for r in results)
    return sims if side == "simulator" else sum(r.attempts for r in results) - sims


@pytest.mark.parametrize("side", ["contender", "simulator"])
@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_an_endpoint_failing_every_call_of_a_conversation_ends_with_its_true_status(
    tmp_path: Path, served: OpenAIServer, side: str, fault: str
):
    served.inject(1.0, [FAULTS[fault]], seed=1)
    db = tmp_path / "evalcore.db"
    outcome = run_cli("run", _suite(tmp_path / "suite", served, side), "--db", db, "--quiet", timeout=BOUND_S + 30)
    info, results = _stored(db)
    # An endpoint's breaker that opened leaves the cases not yet started unrun, and stops those in flight with its
    # message: a resume calls both again, so the run is then not complete.
    stopped = any(r.error is not None and r.error.message.startswith(BREAKER_PREFIXES) for r in results)
    assert_holds(
        outcome,
        exit_codes={1},
        within_s=BOUND_S,
        status="completed" if len(results) == CASES and not stopped else "interrupted",
        stored_status=info["status"],
        paid=served.calls,
        stored=_calls_of(results, side),
    )
    assert results and all(r.status == "error" and r.score is None and r.metrics == {} for r in results)
    assert side == "contender" or all(r.error.message.startswith(f"simulated user {SIMULATOR}") for r in results)


@pytest.mark.parametrize("side", ["contender", "simulator"])
def test_intermittent_faults_in_a_conversation_cost_only_retries(tmp_path: Path, served: OpenAIServer, side: str):
    served.inject(0.3, list(FAULTS.values()), seed=5)
    db = tmp_path / "evalcore.db"
    outcome = run_cli("run", _suite(tmp_path / "suite", served, side), "--db", db, "--quiet", timeout=BOUND_S + 30)
    info, results = _stored(db)
    assert_holds(
        outcome,
        exit_codes={0, 1},
        within_s=BOUND_S,
        status="completed",
        stored_status=info["status"],
        paid=served.calls,
        stored=_calls_of(results, side),
    )
    assert len({r.key for r in results}) == len(results) == CASES
    assert all(r.score is None for r in results if r.status == "error")
    assert all(r.metrics["goal_completed"] == 1.0 for r in results if r.status == "scored")


def test_a_run_stopped_mid_conversation_resumes_it_from_its_first_turn(tmp_path: Path, served: OpenAIServer):
    served.scripts.extend(["ok", "slow:8"])  # the second conversation's call hangs until the run is stopped
    db = tmp_path / "evalcore.db"
    suite = _suite(tmp_path / "suite", served, "simulator")
    process = start_cli("run", suite, "--db", db, "--quiet", "--concurrency", "1")
    while served.calls < 2 and process.poll() is None:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    process.communicate(timeout=60)
    info, _ = _stored(db)
    assert info["status"] == "cancelled"  # stopped by the user, resumable
    before = served.calls
    outcome = run_cli("run", "--resume", info["id"], "--db", db, "--quiet", timeout=BOUND_S)
    info, results = _stored(db)
    assert_holds(outcome, exit_codes={0}, within_s=BOUND_S, status="completed", stored_status=info["status"])
    assert len(results) == CASES and all(r.status == "scored" for r in results)
    assert all(r.trace[0]["kind"] == "user" and r.trace[0]["turn"] == 0 for r in results)
    assert served.calls - before >= 2  # the stopped conversation was asked again from its first message
