"""A run against an endpoint that cannot be reached stops calling it, leaves the rest unrun, and resumes."""

from __future__ import annotations

import asyncio
import re
import socket
import time
from collections.abc import Iterator

import pytest

from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.runner import Progress, execute_plan, resume_plan, run_suite
from evalcore.storage.store import Store
from evalcore.suite.lineup import Overrides
from evalcore.suite.loader import load_suite
from tests.openai_server import OpenAIServer
from tests.suites import CASES, write_suite

FIELDS_REPLY = '{"name": null, "kind": null, "count": null, "amount": null, "urgent": null, "tags": null}'


@pytest.fixture(autouse=True)
def fake_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-breaker-0000")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def server_later() -> Iterator[tuple[int, OpenAIServer]]:
    """A port nothing listens on yet, and the server to start on it later (``serve(server, port)``)."""
    server = OpenAIServer(FIELDS_REPLY)
    yield free_port(), server
    server.stop()


def serve(server: OpenAIServer, port: int) -> None:
    server.start(port)


def many_cases(n: int) -> dict[str, tuple[str, dict]]:
    text, expected = CASES["vague/001"]
    return {f"vague/{i:03d}": (text, expected) for i in range(n)}


def dead_plan(tmp_path, port: int, concurrency: int = 2):
    suite = load_suite(write_suite(tmp_path / "suite", {"run": {"max_attempts": 4, "backoff_s": 0.05}}, many_cases(20)))
    options = RunOptions(
        concurrency=concurrency,
        overrides=Overrides(models=["openai/test-model"], api_base=f"http://127.0.0.1:{port}/v1"),
    )
    return make_plan(suite, options)


def test_a_dead_endpoint_opens_the_breaker_and_leaves_the_other_cases_unrun(tmp_path, tmp_db, server_later):
    port, _ = server_later
    seen: list[Progress] = []
    started = time.monotonic()
    run_id, status = run_suite(dead_plan(tmp_path, port), Store(tmp_db), on_progress=seen.append)
    assert time.monotonic() - started < 25  # each case retried with backoff took 33 s for 48 cases
    assert status == "interrupted"
    (progress,) = seen[-1].contenders.values()
    url = f"http://127.0.0.1:{port}/v1"
    assert progress.blocked == f"cannot connect to {url}: connection refused"
    stored = Store(tmp_db).load_run(run_id)
    assert progress.skipped == 20 - len(stored.results) >= 15
    assert stored.info.status == "interrupted" and stored.info.finished_at is None
    assert stored.info.settings["stopped_by"] == "unreachable"
    assert stored.info.settings["stop_reason"] == f"cannot connect to {url}: connection refused"
    for result in stored.results:  # only calls really made are stored, each with its attempts
        assert result.status == "error" and result.attempts >= 1
        assert result.error is not None and result.error.message.startswith(f"cannot connect to {url}")


def test_resume_calls_the_unrun_cases_once_the_endpoint_is_back(tmp_path, tmp_db, server_later):
    port, server = server_later
    store = Store(tmp_db)
    run_id, _ = run_suite(dead_plan(tmp_path, port), store)
    serve(server, port)
    plan, run, done = resume_plan(store, run_id)
    assert done == set()  # the failed connections are called again too
    seen: list[Progress] = []
    status = asyncio.run(execute_plan(plan, store, run, done, on_progress=seen.append))
    assert status == "completed"
    stored = store.load_run(run_id)
    assert len(stored.results) == 20 and all(r.status == "scored" for r in stored.results)
    assert "stopped_by" not in stored.info.settings
    assert server.calls == 20


def test_resume_progress_counts_done_out_of_the_whole_run(tmp_path, tmp_db):
    suite = load_suite(write_suite(tmp_path / "suite", cases=many_cases(8)))
    plan = make_plan(suite, RunOptions(overrides=Overrides(models=["fake/oracle"])))
    store = Store(tmp_db)
    run_id, _ = run_suite(plan, store)
    with store.transaction() as conn:
        conn.execute("DELETE FROM results WHERE run_id = ? AND \"case\" >= 'vague/005'", (run_id,))
    store.set_status(run_id, "interrupted")
    plan, run, done = resume_plan(store, run_id)
    seen: list[tuple[int, int]] = []
    asyncio.run(
        execute_plan(
            plan, store, run, done, on_progress=lambda p: seen.extend((c.done, c.total) for c in p.contenders.values())
        )
    )
    assert seen[0][1] == 8 and seen[0][0] >= 5  # 5/8 at the start, not 0/3
    assert seen[-1] == (8, 8)


def test_the_progress_line_of_a_stopped_contender_names_the_url_and_the_cases_not_called():
    from evalcore.execution.progress import format_line
    from evalcore.execution.runner import ContenderProgress

    p = ContenderProgress(total=48, done=3, errors=3, started=1.0, finished=1.5, skipped=45)
    p.blocked = "cannot connect to http://127.0.0.1:9/v1: connection refused"
    line = format_line("openai/gpt-4o-mini", p, clock=2.0)
    assert line.endswith("45 not called: cannot connect to http://127.0.0.1:9/v1: connection refused")
    assert "3/48" in line


def failing_plan(tmp_path, url: str, cases: int = 16):
    run = {"run": {"max_attempts": 4, "backoff_s": 0.01}}
    suite = load_suite(write_suite(tmp_path / "suite", run, many_cases(cases)))
    options = RunOptions(concurrency=2, overrides=Overrides(models=["openai/test-model"], api_base=url))
    return make_plan(suite, options)


def test_a_refused_key_stops_the_contender_after_its_first_calls(tmp_path, tmp_db, openai_server: OpenAIServer):
    openai_server.inject(1.0, ["status:401"])
    seen: list[Progress] = []
    run_id, status = run_suite(failing_plan(tmp_path, openai_server.base_url), Store(tmp_db), on_progress=seen.append)
    assert status == "interrupted"
    assert openai_server.calls <= 2  # the calls already in flight; not 16
    (progress,) = seen[-1].contenders.values()
    url = openai_server.base_url
    assert progress.blocked == f"stopped calling {url}: it refused the key (401); check OPENAI_API_KEY"
    assert progress.skipped == 16 - len(Store(tmp_db).load_run(run_id).results)


def test_a_server_failing_every_case_opens_the_breaker_across_cases(tmp_path, tmp_db, openai_server: OpenAIServer):
    openai_server.inject(1.0, ["status:503"])
    seen: list[Progress] = []
    run_id, status = run_suite(failing_plan(tmp_path, openai_server.base_url), Store(tmp_db), on_progress=seen.append)
    assert status == "interrupted"
    assert openai_server.calls <= 12  # 6 in a row over 3 cases, and what was in flight; not 16 x 4
    (progress,) = seen[-1].contenders.values()
    assert re.fullmatch(
        f"stopped calling {re.escape(openai_server.base_url)}: "
        "it answered 503 to [0-9]+ calls in a row, over [0-9]+ cases",
        progress.blocked,
    )
    assert Store(tmp_db).load_run(run_id).info.settings["stop_reason"] == progress.blocked


def test_resume_calls_again_the_cases_a_refused_key_stopped(tmp_path, tmp_db, openai_server: OpenAIServer):
    openai_server.inject(1.0, ["status:401"])
    store = Store(tmp_db)
    run_id, _ = run_suite(failing_plan(tmp_path, openai_server.base_url), store)
    openai_server.inject(0.0, [])
    plan, run, done = resume_plan(store, run_id)
    assert done == set()
    assert asyncio.run(execute_plan(plan, store, run, done)) == "completed"
    assert all(r.status == "scored" for r in store.load_run(run_id).results)
