"""The fault matrix's batch rows: a provider's batch API failing under a real ``evalcore run --batch``.

Each row runs a real process against the local OpenAI-compatible server's batch routes (``/v1/files``,
``/v1/batches``: :mod:`tests.openai_batches`), which litellm's batch API calls, with one fault: the batch is
refused, never finishes (the process is killed mid-poll and ``run --resume`` finishes it), comes back as garbage
or short of lines, fails some requests, or expires; or the budget cannot hold the batch. Every row asserts the
matrix's invariants: no traceback, the promised exit code, a true stored status, every request the server
answered (what it would bill) stored, the budget held.
"""

from __future__ import annotations

import json
import signal
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from evalcore.storage.store import Store
from tests.faults.invariants import Outcome, assert_holds, run_cli, start_cli
from tests.openai_server import OpenAIServer
from tests.suites import write_suite

CASES = 10
BOUND_S = 60
PRICE = {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer(json.dumps({"name": None})) as served:
        yield served


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    cases = {f"vague/{i:03d}": (f"Someone may want thing {i}.", {"name": None}) for i in range(CASES)}
    config = {"fields": {"name": {"type": "string"}}, "run": {"max_attempts": 1, "backoff_s": 0},
              "prices": {"openai/x": PRICE}}  # fmt: skip
    return write_suite(tmp_path / "suite", config, cases)


def batch_run(suite: Path, db: Path, server: OpenAIServer, *extra: object) -> Outcome:
    argv = ["run", suite, "--db", db, "--quiet", "--batch", "--batch-poll", "0.05", "-m", "openai/x"]
    return run_cli(*argv, "--api-base", server.base_url, *extra, timeout=BOUND_S)


def stored(db: Path) -> tuple[str, str, int, int, float]:
    """The latest run's id, status, results stored, errors among them and the spend."""
    store = Store(str(db))
    try:
        run = store.load_run(store.list_runs()[0]["id"])
    finally:
        store.close()
    errors = sum(r.status == "error" for r in run.results)
    spent = sum(r.usage.cost_usd or 0.0 for r in run.results)
    return run.info.id, run.info.status, len(run.results), errors, spent


def test_a_batch_the_endpoint_refuses_leaves_its_cases_unrun_and_resumable(tmp_path, suite, server) -> None:
    server.batch.fault = "refuse"
    outcome = batch_run(suite, tmp_path / "e.db", server)
    _, status, results, _, _ = stored(tmp_path / "e.db")
    assert_holds(
        outcome, exit_codes=[1], within_s=BOUND_S, status="interrupted", stored_status=status,
        paid=server.batch.paid, stored=results, says=["the batch was not sent", "--resume"],
    )  # fmt: skip
    assert results == 0 and server.batch.created == 0


def test_a_batch_killed_mid_poll_is_polled_by_resume_and_not_sent_again(tmp_path, suite, server) -> None:
    db = tmp_path / "e.db"
    server.batch.fault = "never"
    process = start_cli(
        "run", suite, "--db", db, "--quiet", "--batch", "--batch-poll", "0.05", "-m", "openai/x",
        "--api-base", server.base_url,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + BOUND_S
        while not server.batch.batches and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)  # polling
        assert process.poll() is None, process.communicate()
    finally:
        process.send_signal(signal.SIGKILL)
        process.communicate()
    with sqlite3.connect(db) as conn:
        (settings,) = conn.execute("SELECT settings FROM runs").fetchone()
    (sent,) = json.loads(settings)["batch"]["sent"]
    server.batch.batches[sent["id"]]["_fault"] = None  # the provider finishes it meanwhile
    run_id = stored(db)[0]
    outcome = run_cli("run", "--resume", run_id, "--db", db, "--quiet", timeout=BOUND_S)
    _, status, results, errors, _ = stored(db)
    assert_holds(
        outcome, exit_codes=[0], within_s=BOUND_S, status="completed", stored_status=status,
        paid=server.batch.paid, stored=results,
    )  # fmt: skip
    assert server.batch.created == 1 and results == CASES == server.batch.paid and errors == 0


def test_a_batch_whose_output_is_garbage_stores_every_case_as_an_error(tmp_path, suite, server) -> None:
    server.batch.fault = "garbage"
    outcome = batch_run(suite, tmp_path / "e.db", server)
    _, status, results, errors, _ = stored(tmp_path / "e.db")
    assert_holds(
        outcome, exit_codes=[1], within_s=BOUND_S, status="completed", stored_status=status,
        paid=server.batch.paid, stored=results, says=["without a readable reply"],
    )  # fmt: skip
    assert errors == results == CASES


def test_a_batch_missing_lines_stores_those_cases_as_errors(tmp_path, suite, server) -> None:
    server.batch.fault = "missing:3"
    outcome = batch_run(suite, tmp_path / "e.db", server)
    _, status, results, errors, _ = stored(tmp_path / "e.db")
    assert_holds(
        outcome, exit_codes=[0], within_s=BOUND_S, status="completed", stored_status=status,
        paid=server.batch.paid, stored=results, says=["3 transport", "without a readable reply"],
    )  # fmt: skip
    assert (results, errors) == (CASES, 3)


def test_requests_a_batch_fails_are_errors_of_their_cases_never_scored(tmp_path, suite, server) -> None:
    server.batch.fault = "fail:4"
    outcome = batch_run(suite, tmp_path / "e.db", server)
    _, status, results, errors, _ = stored(tmp_path / "e.db")
    assert_holds(
        outcome, exit_codes=[0], within_s=BOUND_S, status="completed", stored_status=status,
        paid=server.batch.paid, stored=results, says=["the request failed"],
    )  # fmt: skip
    assert (results, errors, server.batch.paid) == (CASES, 4, CASES - 4)


def test_an_expired_batch_keeps_what_it_answered_and_resume_sends_the_rest(tmp_path, suite, server) -> None:
    db = tmp_path / "e.db"
    server.batch.fault = "expire"
    outcome = batch_run(suite, db, server)
    run_id, status, results, errors, _ = stored(db)
    assert_holds(
        outcome, exit_codes=[1], within_s=BOUND_S, status="interrupted", stored_status=status,
        paid=server.batch.paid, stored=results, says=["expired before answering", f"--resume {run_id}"],
    )  # fmt: skip
    assert (results, errors) == (CASES // 2, 0)
    server.batch.fault = None
    outcome = run_cli("run", "--resume", run_id, "--db", db, "--quiet", timeout=BOUND_S)
    _, status, results, errors, _ = stored(db)
    assert_holds(
        outcome, exit_codes=[0], within_s=BOUND_S, status="completed", stored_status=status,
        paid=server.batch.paid, stored=results,
    )  # fmt: skip
    assert (results, errors, server.batch.created, server.batch.paid) == (CASES, 0, 2, CASES)


def test_a_batch_the_budget_cannot_hold_is_not_sent(tmp_path, suite, server) -> None:
    outcome = batch_run(suite, tmp_path / "e.db", server, "--max-cost", "0.000001")
    _, status, results, _, spent = stored(tmp_path / "e.db")
    assert_holds(
        outcome, exit_codes=[1], within_s=BOUND_S, status="interrupted", stored_status=status,
        paid=server.batch.paid, stored=results, spent=spent, cap=0.000001, says=["budget cap reached"],
    )  # fmt: skip
    assert server.batch.created == 0 and results == 0


def test_a_batch_the_budget_holds_is_paid_at_the_batch_price(tmp_path, suite, server) -> None:
    outcome = batch_run(suite, tmp_path / "e.db", server, "--max-cost", "1")
    _, status, results, errors, spent = stored(tmp_path / "e.db")
    assert_holds(
        outcome, exit_codes=[0], within_s=BOUND_S, status="completed", stored_status=status,
        paid=server.batch.paid, stored=results, spent=spent, cap=1.0,
    )  # fmt: skip
    words_in = sum(len(" ".join(m["content"] for m in r["body"]["messages"]).split()) for r in _lines(server))
    assert spent == pytest.approx(0.5 * (words_in * 1e-6 + CASES * 2 * 2e-6))


def _lines(server: OpenAIServer) -> list[dict]:
    (batch,) = server.batch.batches.values()
    return batch["_lines"]
