"""A suite's ``limits:`` as the server sees them: call starts spread by rpm, calls in flight capped, one budget
shared by the contenders of a model, and the wait shown in the progress."""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from evalcore.core.records import Contender
from evalcore.execution.plan import make_plan
from evalcore.execution.progress import ContenderProgress, Progress, format_line
from evalcore.execution.runner import run_suite
from evalcore.models.llm import LiteLLMProvider, close_clients
from evalcore.models.types import Request
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.openai_server import OpenAIServer
from tests.suites import CASES, write_suite

FIELDS_REPLY = '{"name": null, "kind": null, "count": null, "amount": null, "urgent": null, "tags": null}'
MODEL = "openai/test-model"


@pytest.fixture(autouse=True)
def fake_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-limits-0000")


class Watch:
    """A server reply that records when each request arrived and how many were in flight at once."""

    def __init__(self, hold_s: float = 0.0):
        self.hold_s = hold_s
        self.arrivals: list[float] = []
        self.in_flight = self.most_in_flight = 0
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> str:
        with self._lock:
            self.arrivals.append(time.monotonic())
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
        time.sleep(self.hold_s)
        with self._lock:
            self.in_flight -= 1
        return FIELDS_REPLY


def many_cases(n: int) -> dict[str, tuple[str, dict]]:
    text, expected = CASES["vague/001"]
    return {f"vague/{i:03d}": (text, expected) for i in range(n)}


@dataclass
class Limited:
    """A finished run under limits: its id, its store, every progress report, and the waits they showed."""

    run_id: str
    store: Store
    seen: list[Progress] = field(default_factory=list)
    #: (contender, why it waits, its progress line) of each report in which a contender waited.
    waits: list[tuple[str, str, str]] = field(default_factory=list)


def run_limited(
    tmp_path: Path, server: OpenAIServer, limits: dict[str, Any], cases: int, settings: dict[str, Any] | None = None
) -> Limited:
    """Run ``cases`` cases of the test model under ``limits``, after one call that warms litellm up (its first
    call is slow, which would bunch the first requests of the run at the server)."""
    content, server.content = server.content, FIELDS_REPLY
    asyncio.run(_warm_up(server))
    server.content = content
    config = {
        "lineup": [{"model": MODEL, "api_base": server.base_url, "settings": settings or {}}],
        "run": {"max_attempts": 2, "backoff_s": 0, "concurrency": 8, "parallelism": 4},
        "limits": limits,
    }
    plan = make_plan(load_suite(write_suite(tmp_path / "suite", config, many_cases(cases))))
    outcome = Limited("", Store(tmp_path / "evalcore.db"))

    def on_progress(progress: Progress) -> None:
        outcome.seen.append(progress)
        for name, p in progress.contenders.items():
            if p.waiting:
                outcome.waits.append((name, p.waiting, format_line(name, p, time.monotonic())))

    outcome.run_id, status = run_suite(plan, outcome.store, on_progress=on_progress)
    assert status == "completed"
    return outcome


async def _warm_up(server: OpenAIServer) -> None:
    contender = Contender(MODEL, MODEL, api_base=server.base_url)
    try:
        await LiteLLMProvider().complete(Request(contender, [{"role": "user", "content": "hi"}], timeout_s=10))
    finally:
        await close_clients()


def check_spread(arrivals: list[float], interval: float) -> None:
    """The arrivals are spread at ``interval``: together they span at least 90% of it per gap, and no two are
    closer than half of it (requests leave the client exactly ``interval`` apart; the way to the server, on a
    busy machine, moves each by a few hundredths of a second)."""
    times = sorted(arrivals)
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert times[-1] - times[0] >= 0.9 * interval * len(gaps), gaps
    assert min(gaps) >= 0.5 * interval, gaps


def test_rpm_spreads_the_calls_the_server_receives(tmp_path: Path, openai_server: OpenAIServer) -> None:
    watch = Watch()
    openai_server.content = watch
    run = run_limited(tmp_path, openai_server, {MODEL: {"rpm": 240}}, cases=6)  # 0.25 s apart
    assert len(watch.arrivals) == 6
    check_spread(watch.arrivals, 0.25)
    assert all(r.status == "scored" for r in run.store.load_run(run.run_id).results)
    assert run.store.load_run(run.run_id, results=False).info.settings["limits"] == {MODEL: {"rpm": 240}}


def test_concurrency_caps_the_requests_in_flight_at_the_server(tmp_path: Path, openai_server: OpenAIServer) -> None:
    watch = Watch(hold_s=0.1)
    openai_server.content = watch
    run_limited(tmp_path, openai_server, {openai_server.base_url: {"concurrency": 2}}, cases=8)
    assert len(watch.arrivals) == 8
    assert watch.most_in_flight == 2


def test_two_contenders_of_one_model_share_its_rpm(tmp_path: Path, openai_server: OpenAIServer) -> None:
    watch = Watch()
    openai_server.content = watch
    run = run_limited(tmp_path, openai_server, {MODEL: {"rpm": 300}}, cases=4, settings={"temperature": [0, 0.7]})
    assert len(run.store.load_run(run.run_id, results=False).contenders) == 2
    assert len(watch.arrivals) == 8
    check_spread(watch.arrivals, 0.2)  # across both contenders: one budget, not one each


def test_the_progress_says_what_a_run_waits_on(tmp_path: Path, openai_server: OpenAIServer) -> None:
    openai_server.content = FIELDS_REPLY
    run = run_limited(tmp_path, openai_server, {MODEL: {"rpm": 300}}, cases=4)
    assert run.waits, "no progress report showed a wait"
    name, reason, line = run.waits[0]
    assert reason == f"waiting on rpm limit of {MODEL}"
    assert line.endswith(f"waiting on rpm limit of {MODEL}") and name in line
    final = run.seen[-1].contenders[name]
    assert (final.waiting, final.waiting_calls) == (None, 0)


def test_a_run_without_limits_records_none(tmp_path: Path, openai_server: OpenAIServer) -> None:
    openai_server.content = FIELDS_REPLY
    config = {"lineup": [{"model": MODEL, "api_base": openai_server.base_url}], "run": {"backoff_s": 0}}
    plan = make_plan(load_suite(write_suite(tmp_path / "suite", config)))
    assert plan.limits == {}
    store = Store(tmp_path / "evalcore.db")
    run_id, status = run_suite(plan, store)
    assert status == "completed" and "limits" not in store.load_run(run_id, results=False).info.settings


def test_the_apps_progress_rows_carry_the_wait() -> None:
    from evalcore.explorer.jobs import progress_rows

    waiting = ContenderProgress(total=8, done=2, waiting=f"waiting on tpm limit of {MODEL}", waiting_calls=3)
    rows = progress_rows(Progress("r", {"a": waiting, "b": ContenderProgress(total=8)}))
    assert list(rows["waiting"]) == [f"3 waiting on tpm limit of {MODEL}", ""]
