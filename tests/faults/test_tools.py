"""The fault matrix of an agent's Python tools: a tool that exits, is interrupted, raises or hangs is the tool's
error sent to the model, never the end of the run; a real Ctrl-C during an agent run still stops it cleanly.

Each row runs a real ``evalcore run`` process on a small agent suite (:func:`tests.agents.agent_suite`) whose
cases make the fake agent call the faulty tool, then checks :func:`~tests.faults.invariants.assert_holds`.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from evalcore.storage.store import Store
from tests.agents import agent_suite
from tests.faults.invariants import Outcome, assert_holds, run_cli, start_cli, wait_for_results

FAULTY_PY = '''
import argparse
import time


def exits(order_id: str) -> str:
    """Parses flags with argparse, which exits on a flag it does not know.

    Args:
        order_id: the order.
    """
    argparse.ArgumentParser(prog="exits").parse_args(["--nope"])
    return "parsed"


def interrupted(order_id: str) -> str:
    """Raises KeyboardInterrupt.

    Args:
        order_id: the order.
    """
    raise KeyboardInterrupt("stop")


def raises(order_id: str) -> str:
    """Raises an ordinary exception.

    Args:
        order_id: the order.
    """
    raise ValueError(f"no order {order_id}")


def hangs(order_id: str) -> str:
    """Never returns in time.

    Args:
        order_id: the order.
    """
    time.sleep(60)
    return "late"


def slow(order_id: str) -> str:
    """Answers after a while, so a run can be stopped midway.

    Args:
        order_id: the order.
    """
    time.sleep(0.2)
    return f"order {order_id}: shipped"
'''

CASES = 4


def faulty_suite(root: Path, tool: str, cases: int = CASES, **options: object) -> Path:
    """An agent suite of ``cases`` cases, each making the fake agent call ``tool`` once, then answer."""
    want = {"actions": [{"name": tool, "arguments": {"order_id": "A17"}}], "answer": "Sorry."}
    suite = agent_suite(
        root,
        [{"model": "fake/agent"}],
        options={"tools": "faulty.py", **options},
        cases=[(f"status/{i}", "Where is my order A17?", want) for i in range(cases)],
    )
    (suite / "faulty.py").write_text(FAULTY_PY)
    return suite


def stored_run(db: Path) -> tuple[str, list]:
    (info,) = Store(db).list_runs()
    return info["status"], Store(db).load_run(info["id"]).results


def tool_errors(results: list) -> list[str | None]:
    return [next(s["error"] for s in r.trace if s["kind"] == "tool") for r in results]


@pytest.mark.parametrize(
    ("tool", "error", "options"),
    [
        ("exits", "exits raised SystemExit: 2", {}),
        ("interrupted", "interrupted raised KeyboardInterrupt: stop", {}),
        ("raises", "raises raised ValueError: no order A17", {}),
        ("hangs", "hangs timed out after 0.2 s", {"tool_timeout_s": 0.2}),
    ],
    ids=["systemexit", "keyboardinterrupt", "exception", "hang"],
)
def test_a_faulty_tool_is_its_error_sent_to_the_model_and_the_agent_run_completes(
    tmp_path: Path, tmp_db: Path, tool: str, error: str, options: dict
):
    suite = faulty_suite(tmp_path / "suite", tool, **options)
    outcome = run_cli("run", suite, "--db", tmp_db, "--quiet", timeout=90)
    status, results = stored_run(tmp_db)
    assert_holds(outcome, exit_codes=[0], within_s=60, status="completed", stored_status=status)
    assert len(results) == CASES and all(r.status == "scored" and r.output == "Sorry." for r in results)
    assert tool_errors(results) == [error] * CASES


def test_ctrl_c_during_an_agent_run_exits_130_cancelled_with_the_finished_results_kept(tmp_path: Path, tmp_db: Path):
    suite = faulty_suite(tmp_path / "suite", "slow", cases=40)
    started = time.monotonic()
    process = start_cli("run", suite, "--db", tmp_db, "--quiet")
    wait_for_results(tmp_db, 2, process=process)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    outcome = Outcome(process.returncode, out, err, time.monotonic() - started)
    status, results = stored_run(tmp_db)
    assert_holds(
        outcome, exit_codes=[130], within_s=60, status="cancelled", stored_status=status,
        says=["cancelled: finished results are stored"],
    )  # fmt: skip
    assert 2 <= len(results) < 40 and all(r.status == "scored" and r.output == "Sorry." for r in results)
