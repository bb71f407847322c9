"""The fault matrix's rows of workers under a budget cap (``evalcore run --resume RUN --worker --max-cost``): the
run's spend is counted in PostgreSQL (:mod:`evalcore.storage.claims`), so a store that goes away meets the worker in
its spend bookkeeping as much as in its writes; and a worker's agent case the cap stopped midway is left for the
resume, never counted as done. Each row runs real processes and asserts the matrix's invariants."""

from __future__ import annotations

from pathlib import Path

import psycopg

from evalcore.storage.spend import stored_spend
from evalcore.storage.store import Store
from tests.agents import CASES as AGENT_CASES
from tests.agents import agent_suite
from tests.faults import test_store
from tests.faults.invariants import assert_holds, run_cli
from tests.faults.test_store import (
    BOUND_S,
    CASES,
    finish,
    kept_in_file,
    only_run,
    pg_status,
    pg_stored,
    popen,
    start_run,
    wait_until,
)
from tests.suites import write_suite

# The store rows' fixtures: a PostgreSQL server of their own, the slow model server, no process left behind.
own_server, server, no_process_left = test_store.own_server, test_store.server, test_store.no_process_left

PRICES = {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}


def priced_suite(root: Path) -> Path:
    cases = {f"vague/{i:03d}": ("Someone may want something.", {"name": None}) for i in range(CASES)}
    config = {
        "fields": {"name": {"type": "string"}},
        "run": {"max_attempts": 1, "backoff_s": 0, "concurrency": 3},
        "prices": {"openai/x": PRICES},
    }
    return write_suite(root, config, cases)


def test_a_capped_worker_whose_server_stays_stopped_ends_in_one_line(own_server, server, tmp_path):
    url, unsaved = own_server.new_url(), tmp_path / "unsaved"
    suite = priced_suite(tmp_path / "suite")
    env = {"EVALCORE_UNSAVED_DIR": str(unsaved)}
    process, started = start_run(suite, url, server, env, "--worker", "--lease", "3", "--max-cost", "1")
    wait_until_stored(url)
    own_server.halt()
    try:
        outcome = finish(process, started)
    finally:
        own_server.start()
    info = only_run(url)
    assert_holds(
        outcome,
        exit_codes=[1],
        within_s=BOUND_S,
        paid=server.calls,
        stored=info["results"],
        named_lost=kept_in_file(outcome, unsaved, info["id"]),
        says=[f"evalcore run --resume {info['id']}"],
    )
    assert server.calls < CASES
    assert "budget cap reached" not in outcome.output  # the store went away, not the money

    resumed = run_cli("run", "--resume", info["id"], "--worker", "--db", url, "--quiet", "--max-cost", "1", env=env)
    spent = stored_spend(Store(url), info["id"])
    assert_holds(
        resumed, exit_codes=[0], within_s=BOUND_S, status="completed", stored_status=pg_status(url), spent=spent, cap=1
    )
    assert pg_stored(url) == CASES == server.calls  # the kept results' slots are not called again
    assert shared_spend(url, info["id"]) >= spent - 1e-12  # what the lost worker could not count is counted


def shared_spend(url: str, run_id: str) -> float:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT spent_usd FROM evalcore_spend WHERE run_id = %s", (run_id,)).fetchone()
    return float(row[0]) if row else 0.0


def wait_until_stored(url: str) -> None:
    wait_until(lambda: pg_stored(url) > 0)


def unfinished(url: str) -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM results WHERE error_message LIKE 'not finished: %'").fetchone()
    return int(row[0]) if row else 0


def test_workers_leave_the_agent_cases_the_cap_stopped_midway_to_the_resume(postgres_server, tmp_path):
    url = postgres_server.new_url()
    cases = [(f"status/{i:02d}", AGENT_CASES[0][1], AGENT_CASES[0][2]) for i in range(12)]
    suite = agent_suite(tmp_path / "s", [{"model": "fake/agent-loops"}], options={"max_steps": 40}, cases=cases)
    first, started = popen(
        ["-m", "evalcore.cli", "run", str(suite), "--db", url, "--quiet", "--worker", "--max-cost", "0.002"], {}
    )
    info = wait_for_run(url)
    second, joined = popen(["-m", "evalcore.cli", "run", "--resume", info, "--db", url, "--quiet", "--worker"], {})
    outcomes = [finish(first, started), finish(second, joined)]
    stopped = unfinished(url)
    assert stopped > 0
    for outcome in outcomes:
        assert_holds(outcome, exit_codes=[1], within_s=BOUND_S)
    spent = stored_spend(Store(url), info)
    assert_holds(outcomes[0], exit_codes=[1], within_s=BOUND_S, status="interrupted", stored_status=pg_status(url))
    resumed = run_cli("run", "--resume", info, "--worker", "--db", url, "--quiet", "--max-cost", "1")
    assert_holds(resumed, exit_codes=[0], within_s=BOUND_S, status="completed", stored_status=pg_status(url))
    assert unfinished(url) == 0 and pg_stored(url) == len(cases)
    assert stored_spend(Store(url), info) > spent  # the stopped cases were called again, their earlier steps kept


def wait_for_run(url: str) -> str:
    found: list[str] = []

    def started() -> bool:
        with psycopg.connect(url, autocommit=True) as conn:
            row = conn.execute("SELECT id FROM runs").fetchone()
        found.extend([row[0]] if row else [])
        return bool(found)

    wait_until(started)
    return found[0]
