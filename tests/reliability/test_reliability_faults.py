"""Provider faults injected over real HTTP: a long run through a flaky server loses, duplicates and
mis-scores nothing; only transient faults are retried; Retry-After is honoured and capped.

The figures of the 1,000-call run go to the log (``pytest -s`` or ``--log-cli-level=INFO``);
docs/reliability.md quotes them.
"""

from __future__ import annotations

import asyncio
import collections
import email.utils
import json
import logging
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from evalcore.core.errors import CallFailed
from evalcore.core.records import Contender
from evalcore.execution.plan import make_plan
from evalcore.execution.runner import run_suite
from evalcore.models.llm import LiteLLMProvider, close_clients
from evalcore.models.types import Reply, Request
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.openai_server import OpenAIServer

log = logging.getLogger(__name__)

GOOD = '{"answer": 42}'
BAD = "this is not json {"  # what the server's ``bad_content`` script sends
TIMEOUT_S = 2.0  # far above a normal reply's latency, even on a loaded machine
#: Every transient fault the server can script: rate limits (with and without Retry-After), 5xx,
#: a reply slower than the timeout, a dropped connection, a body that is not JSON, a reply without choices.
#: The slow reply comes 4 s after the timeout: even a starved event loop cannot take it for a success.
TRANSIENT = (
    "status:429",
    "status:429:0.01",
    "status:500",
    "status:502",
    "status:503",
    "status:504",
    f"slow:{TIMEOUT_S + 4}",
    "drop",
    "malformed",
    "no_choices",
)
TRANSIENT_KINDS = {"rate_limit", "transport", "timeout"}
CASES, SAMPLES, CONTENDERS, MAX_ATTEMPTS = 250, 2, 2, 3


def write_fault_suite(root: Path, api_base: str) -> Path:
    """2 contenders × 250 cases × 2 samples = 1,000 results, 20 calls in flight per contender."""
    config = {
        "suite": "faults",
        "adapter": "extract",
        "scorer": "fields",
        "instructions": "Answer the question.",
        "fields": {"answer": {"type": "integer"}},
        "run": {
            "backoff_s": 0.001,
            "max_attempts": MAX_ATTEMPTS,
            "timeout_s": TIMEOUT_S,
            "concurrency": 20,
            "parallelism": CONTENDERS,
            "samples": SAMPLES,
        },
        "lineup": [{"model": "openai/x", "api_base": api_base, "settings": {"temperature": [0, 1]}}],
    }
    root.mkdir(parents=True)
    (root / "evalcore.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    dataset = root / "datasets" / "arithmetic"
    dataset.mkdir(parents=True)
    lines = [
        json.dumps({"id": f"q{i:03d}", "input": f"Question {i}: what is six times seven?", "expected": {"answer": 42}})
        for i in range(CASES)
    ]
    (dataset / "cases.jsonl").write_text("\n".join(lines) + "\n")
    return root


def test_a_thousand_calls_with_30_percent_transient_faults_lose_and_duplicate_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-fault-run-0000")
    with OpenAIServer(content=GOOD) as server:
        # Exactly 30 transient faults in every 100 calls (each kind 3 times), plus 1 reply that arrives fine
        # but is not JSON (a model error, scored 0).
        server.inject(0.31, [*TRANSIENT] * 3 + ["bad_content"], seed=20261129, exact=True)
        plan = make_plan(load_suite(write_fault_suite(tmp_path / "suite", server.base_url)))
        started = time.monotonic()
        run_id, status = run_suite(plan, Store(tmp_path / "faults.db"))
        elapsed = time.monotonic() - started
        served = collections.Counter(server.served)
    run = Store(tmp_path / "faults.db").load_run(run_id)
    results = run.results

    # Every (contender, case, sample) exactly once: none lost, none duplicated.
    wanted = {
        (c.id, "arithmetic", f"q{i:03d}", s) for c in plan.contenders for i in range(CASES) for s in range(SAMPLES)
    }
    assert status == "completed" and len(wanted) == plan.calls == 1000
    assert len(results) == 1000 and {r.key for r in results} == wanted

    # A score only ever comes from a reply that arrived: the good one (1.0) or the unusable one (0, kind model).
    scored = [r for r in results if r.status == "scored"]
    for r in scored:
        assert (r.raw, r.score, r.error) == (GOOD, 1.0, None) or (
            r.raw == BAD and r.score == 0.0 and r.error.kind == "model"
        ), r
    # A failed call is an error with its kind after every attempt, never a score.
    errors = [r for r in results if r.status == "error"]
    for r in errors:
        assert r.error.kind in TRANSIENT_KINDS and r.attempts == MAX_ATTEMPTS, r
        assert r.score is None and r.metrics == {} and r.raw is None
    # Attempts are counted: the server saw exactly the calls the results say were made.
    transient_served = sum(n for script, n in served.items() if script in TRANSIENT)
    assert sum(r.attempts for r in results) == len(server.served)
    assert sum(r.attempts - 1 for r in scored) + sum(r.attempts for r in errors) == transient_served
    model_errors = [r for r in scored if r.error is not None]
    assert len(model_errors) == served["bad_content"]
    share = transient_served / len(server.served)
    assert 0.29 <= share <= 0.31, share

    kinds = collections.Counter(r.error.kind for r in errors)
    figures = {
        "results": len(results),
        "calls": len(server.served),
        "transient_faults": transient_served,
        "transient_share": round(share, 3),
        "bad_content": served["bad_content"],
        "scored": len(scored),
        "scored_1": sum(r.score == 1.0 for r in scored),
        "model_errors": len(model_errors),
        "errors": len(errors),
        "error_kinds": dict(kinds),
        "retried_results": sum(r.attempts > 1 for r in results),
        "duplicates": len(results) - len(wanted),
        "slowest_reply_s": round(max(r.latency_s for r in scored), 3),
        "faults_by_script": {k: v for k, v in sorted(served.items()) if k != "ok"},
        "seconds": round(elapsed, 1),
    }
    log.info("fault run: %s", json.dumps(figures))
    print(f"\nRELIABILITY fault run: {json.dumps(figures)}")


# --- one call at a time -----------------------------------------------------------------------------


def ask(server: OpenAIServer, **options: Any) -> Reply:
    contender = Contender(id="c", model="openai/x", api_base=server.base_url)
    request = Request(
        contender=contender,
        messages=[{"role": "user", "content": "six times seven?"}],
        **{"backoff_s": 0.001, "timeout_s": 5, **options},
    )

    async def call() -> Reply:
        try:
            return await LiteLLMProvider().complete(request)
        finally:
            await close_clients()

    return asyncio.run(call())


def failure(server: OpenAIServer, **options: Any) -> CallFailed:
    with pytest.raises(CallFailed) as caught:
        ask(server, **options)
    return caught.value


@pytest.mark.parametrize("status", [400, 401, 403, 404, 405, 409, 410, 413, 415, 422, 451])
def test_a_client_error_other_than_429_is_never_retried(openai_server, status):
    openai_server.script(f"status:{status}", "ok")
    caught = failure(openai_server)
    assert (caught.attempts, openai_server.calls) == (1, 1)
    assert caught.kind in {"auth", "bad_request", "other"}


@pytest.mark.parametrize("script", [*TRANSIENT[:6], "drop", "malformed", "no_choices", "status:408"])
def test_each_transient_fault_is_retried_and_counted(openai_server, script):
    openai_server.script(script, script, "ok")
    reply = ask(openai_server, timeout_s=1.0)
    assert (reply.attempts, openai_server.calls, reply.text) == (3, 3, GOOD)


def test_a_reply_slower_than_the_timeout_is_a_timeout_then_retried(openai_server):
    openai_server.script("slow:1.5", "ok")
    reply = ask(openai_server, timeout_s=0.3)
    # Two attempts prove the first was cut at the timeout: the slow reply would have been a good one.
    assert reply.attempts == 2


def test_transient_faults_on_every_attempt_give_an_error_with_its_kind(openai_server):
    openai_server.script("status:429", "status:429", "status:429")
    caught = failure(openai_server, max_attempts=3)
    assert (caught.kind, caught.attempts, openai_server.calls) == ("rate_limit", 3, 3)


def test_content_that_is_not_json_arrives_once_and_is_not_retried(openai_server):
    openai_server.script("bad_content")
    reply = ask(openai_server)
    assert (reply.attempts, reply.text) == (1, BAD)  # the adapter scores it 0 with a `model` error


def test_retry_after_in_seconds_is_waited_for(openai_server):
    openai_server.script("status:429:0.5", "ok")
    started = time.monotonic()
    assert ask(openai_server, backoff_s=0).attempts == 2
    assert time.monotonic() - started >= 0.5


def test_retry_after_as_an_http_date_is_waited_for(openai_server):
    when = email.utils.formatdate(time.time() + 2, usegmt=True)  # whole seconds: waits 1 to 2 s
    openai_server.script(f"status:503:{when}", "ok")
    started = time.monotonic()
    assert ask(openai_server, backoff_s=0).attempts == 2
    assert time.monotonic() - started >= 0.9


def test_a_huge_retry_after_is_capped(openai_server):
    openai_server.script("status:429:86400", "ok")
    started = time.monotonic()
    assert ask(openai_server, backoff_s=0, max_retry_after_s=0.2).attempts == 2
    assert 0.2 <= time.monotonic() - started < 60  # far below the day the server asked for, whatever the load


@pytest.mark.parametrize("exact", [False, True])
def test_the_same_seed_injects_the_same_faults(exact):
    def served(seed: int) -> list[str]:
        server = OpenAIServer()
        server.inject(0.3, TRANSIENT, seed=seed, exact=exact)
        return [server._record({}, {}) for _ in range(200)]

    first = served(7)
    assert first == served(7) != served(8)
    faults = sum(s != "ok" for s in first)
    assert faults == 60 if exact else 40 <= faults <= 80
    if exact:
        assert collections.Counter(s for s in first if s != "ok") == dict.fromkeys(TRANSIENT, 6)
