"""The fault matrix's MCP rows: an agent run through a real ``evalcore run`` whose MCP server refuses, never
answers, never finishes its handshake, crashes midway or cannot be started."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evalcore.storage.store import Store
from tests.agents import CASES, agent_suite, alive
from tests.faults.invariants import ROOT, Outcome, assert_holds, fault_env, run_cli
from tests.openai_server import OpenAIServer

FIXTURES = ROOT / "tests" / "fixtures"
#: The connect and handshake timeout the rows' suites set, in seconds.
CONNECT_S = 2
#: The connect timeout of the rows whose server does start: a Python MCP server's start-up on a loaded machine.
STARTS_S = 30
#: A row's bound: the timeout, the stopping of a stdio server (its grace periods), and a Python start-up or two.
WITHIN_S = CONNECT_S + 20
LOOKUPS = [c for c in CASES if all(a["name"] == "lookup_order" for a in c[2]["actions"])]


def mcp_suite(
    root: Path,
    server: dict[str, Any],
    lineup: list[dict[str, Any]] | None = None,
    cases: int = 1,
    connect_s: float = CONNECT_S,
) -> Path:
    """An agent suite of order lookups whose one tool server is ``server``, with a ``connect_s`` connect timeout."""
    many = [(f"{case_id}-{i}", text, want) for i in range(cases) for case_id, text, want in LOOKUPS]
    options = {"tools": [], "mcp": [server], "mcp_connect_timeout_s": connect_s}
    return agent_suite(root / "s", lineup or [{"model": "fake/agent"}], options=options, cases=many)


def stored_status(db: Path) -> str | None:
    """The status of the one run the store holds; None when no run was stored."""
    if not db.exists():
        return None
    with Store(db) as store:
        runs = store.list_runs()
    assert len(runs) <= 1
    return runs[0]["status"] if runs else None


@pytest.fixture
def refused_url() -> str:
    """An MCP URL on a port nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/mcp"


@pytest.fixture
def silent_url() -> Iterator[str]:
    """An MCP URL whose port accepts connections (the kernel's backlog) and never answers."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(16)
        yield f"http://127.0.0.1:{s.getsockname()[1]}/mcp"


def test_an_mcp_url_that_refuses_fails_the_run_fast_naming_it(tmp_path: Path, tmp_db: Path, refused_url: str):
    suite = mcp_suite(tmp_path, {"url": refused_url})
    outcome = run_cli("run", suite, "--db", tmp_db, "--quiet")
    assert_holds(
        outcome, exit_codes=[1], within_s=WITHIN_S, status="failed", stored_status=stored_status(tmp_db),
        says=[f"cannot open MCP server {refused_url}"],
    )  # fmt: skip


def test_an_mcp_url_that_never_answers_fails_the_run_at_the_connect_timeout(
    tmp_path: Path, tmp_db: Path, silent_url: str
):
    suite = mcp_suite(tmp_path, {"url": silent_url})
    outcome = run_cli("run", suite, "--db", tmp_db, "--quiet", timeout=60)
    assert_holds(
        outcome, exit_codes=[1], within_s=WITHIN_S, status="failed", stored_status=stored_status(tmp_db),
        says=[f"cannot open MCP server {silent_url}", f"no answer within {CONNECT_S} s"],
    )  # fmt: skip


def silent_server(pids: Path) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(FIXTURES / "mcp_silent.py")], "env": {"MCP_SILENT_PID": str(pids)}}


def test_a_stdio_server_that_never_finishes_its_handshake_fails_the_run_and_is_ended(tmp_path: Path, tmp_db: Path):
    pids = tmp_path / "pids"
    outcome = run_cli("run", mcp_suite(tmp_path, silent_server(pids)), "--db", tmp_db, "--quiet", timeout=60)
    assert_holds(
        outcome, exit_codes=[1], within_s=WITHIN_S, status="failed", stored_status=stored_status(tmp_db),
        says=["cannot open MCP server", "mcp_silent.py", f"no answer within {CONNECT_S} s"],
    )  # fmt: skip
    (pid,) = [int(line) for line in pids.read_text().split()]
    assert not alive(pid)


def test_a_stdio_server_is_ended_when_its_run_is_sent_sigterm(tmp_path: Path, tmp_db: Path):
    pids = tmp_path / "pids"
    suite = mcp_suite(tmp_path, silent_server(pids), connect_s=120)
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-m", "evalcore.cli", "run", str(suite), "--db", str(tmp_db), "--quiet"],
        cwd=ROOT, env=fault_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    while not pids.exists() or not pids.read_text().strip():
        assert process.poll() is None and time.monotonic() - started < 30, "the stdio server never started"
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    try:
        out, err = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise AssertionError("evalcore run still running 30 s after SIGTERM") from None
    outcome = Outcome(process.returncode, out, err, time.monotonic() - started)
    assert_holds(
        outcome, exit_codes=[143], within_s=WITHIN_S + 10, status="cancelled", stored_status=stored_status(tmp_db)
    )
    (pid,) = [int(line) for line in pids.read_text().split()]
    assert not alive(pid)


def test_a_stdio_server_that_crashes_midway_keeps_what_was_paid_and_leaves_the_rest_to_a_resume(
    tmp_path: Path, tmp_db: Path, openai_server: OpenAIServer
):
    def calls(body: dict[str, Any]) -> list[dict[str, Any]]:
        answered = any(m["role"] == "tool" for m in body["messages"])
        return [] if answered else [{"name": "lookup_order", "arguments": {"order_id": "A17"}}]

    openai_server.tool_calls = calls
    starts = tmp_path / "starts"
    server = {
        "command": sys.executable,
        "args": [str(FIXTURES / "mcp_orders.py")],
        "env": {"MCP_ORDERS_STARTS": str(starts), "MCP_ORDERS_CRASH_AFTER": "1"},
    }
    lineup = [{"model": "openai/agent-test", "api_base": openai_server.base_url}]
    suite = mcp_suite(tmp_path, server, lineup, cases=3, connect_s=STARTS_S)
    outcome = run_cli("run", suite, "--db", tmp_db, "--quiet", "--concurrency", "1", timeout=120)
    with Store(tmp_db) as store:
        (run,) = store.list_runs()
        results = store.load_run(run["id"]).results
    paid_turns = sum(1 for r in results for s in r.trace or [] if s["kind"] == "model")
    gone = "of openai/agent-test not called: the MCP server"
    assert_holds(
        outcome, exit_codes=[1], within_s=2 * STARTS_S, status="interrupted", stored_status=run["status"],
        paid=openai_server.calls, stored=paid_turns, says=[gone, "mcp_orders.py", f"evalcore run --resume {run['id']}"],
    )  # fmt: skip
    assert 0 < len(results) < 6 and all(r.status == "scored" for r in results)
    assert all(not alive(int(pid)) for pid in starts.read_text().split())
    config = suite / "evalcore.yaml"  # the server mended: the resume calls the cases left, and only those
    config.write_text(config.read_text().replace("MCP_ORDERS_CRASH_AFTER", "MCP_ORDERS_CRASHED_AFTER"))
    before = openai_server.calls
    resumed = run_cli("run", "--resume", run["id"], "--force", "--db", tmp_db, "--quiet", timeout=120)
    with Store(tmp_db) as store:
        after = store.load_run(run["id"]).results
    assert_holds(
        resumed, exit_codes=[0], within_s=2 * STARTS_S, status="completed", stored_status=stored_status(tmp_db)
    )
    assert len(after) == 6 and all(r.status == "scored" for r in after)
    assert openai_server.calls - before == 2 * (6 - len(results))  # two model turns per case left


def test_an_mcp_command_not_found_is_refused_before_the_run(tmp_path: Path, tmp_db: Path):
    suite = mcp_suite(tmp_path, {"command": "no-such-mcp-server-xyz", "args": ["--stdio"]})
    outcome = run_cli("run", suite, "--db", tmp_db, "--quiet")
    assert_holds(
        outcome, exit_codes=[2], within_s=WITHIN_S, says=["no-such-mcp-server-xyz", "not found"],
    )  # fmt: skip
    assert stored_status(tmp_db) is None
