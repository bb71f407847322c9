"""The fault matrix's row of workers after an endpoint outage: a shared run whose endpoint could not be reached is
stored ``interrupted`` with its unreached calls as errors, and the workers joined once the endpoint is back ask
those calls again (as ``evalcore run --resume RUN`` does), so the run is ``completed`` only with every case
answered. Runs real processes and asserts the matrix's invariants."""

from __future__ import annotations

import psycopg

from evalcore.storage.store import Store
from tests.faults import test_store
from tests.faults.invariants import assert_holds, run_cli
from tests.faults.test_store import BOUND_S, REPLY, pg_status, pg_stored
from tests.openai_server import OpenAIServer
from tests.suites import write_suite

CASES = 6
no_process_left = test_store.no_process_left


def test_workers_joined_after_an_endpoint_outage_ask_the_unreached_cases_again(postgres_server, tmp_path):
    url = postgres_server.new_url()
    cases = {f"vague/{i:03d}": ("Someone may want something.", {"name": None}) for i in range(CASES)}
    config = {"fields": {"name": {"type": "string"}}, "run": {"max_attempts": 1, "backoff_s": 0, "concurrency": 3}}
    suite = write_suite(tmp_path / "suite", config, cases)
    server = OpenAIServer(REPLY).start()
    port = server.port
    server.stop()  # the endpoint is down: nothing listens on its port
    api_base = f"http://127.0.0.1:{port}/v1"
    down = run_cli("run", suite, "--db", url, "--quiet", "-m", "openai/x", "--api-base", api_base, "--worker")
    assert_holds(down, exit_codes=[1], within_s=BOUND_S, status="interrupted", stored_status=pg_status(url))
    with psycopg.connect(url) as conn:
        (run_id,) = conn.execute("SELECT id FROM runs").fetchone()
    unreached = [m for m in Store(url).error_messages(run_id).values() if (m or "").startswith("cannot connect")]
    assert unreached
    server.start(port)  # the endpoint is back
    try:
        back = run_cli("run", "--resume", run_id, "--worker", "--db", url, "--quiet")
    finally:
        server.stop()
    assert_holds(
        back,
        exit_codes=[0],
        within_s=BOUND_S,
        status="completed",
        stored_status=pg_status(url),
        paid=server.calls,
        stored=pg_stored(url),
    )
    assert pg_stored(url) == CASES and not any(Store(url).error_messages(run_id).values())
    assert server.calls >= len(unreached)
