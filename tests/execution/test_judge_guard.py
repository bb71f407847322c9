"""An LLM judge's calls are held to what a contender's are: the suite's rate limits (``limits:``), the circuit
breaker of its endpoint, the budget cap (reserved before each call, unjudged replies judged on resume) and the
suite's ``prices:``. Over real HTTP against the local OpenAI-compatible server, and with the fake judges."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from evalcore.core.errors import ConfigError
from evalcore.execution import runner
from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.runner import execute_plan, resume_plan, run_suite, start_run
from evalcore.models import limits
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.openai_server import OpenAIServer

CONTENDER = "openai/guard-contender"
JUDGE = "openai/guard-judge"  # in no price map: priced by the suite, or unknown
FREE = {"input_cost_per_token": 0.0, "output_cost_per_token": 0.0}
JUDGE_PRICES = {"input_cost_per_token": 1e-3, "output_cost_per_token": 2e-3}
ANSWER = "Yes, you can return it within 30 days."
VERDICT = json.dumps({"correct": 1, "reasoning": "matches the policy"})
DEAD = "http://127.0.0.1:9/v1"


def judged_suite(
    root: Path,
    server: OpenAIServer,
    n: int = 4,
    judge: dict[str, Any] | None = None,
    **config: Any,
) -> Path:
    """A chat suite of ``n`` cases, one contender on the local server, judged by ``JUDGE`` there."""
    suite = {
        "suite": "guarded",
        "adapter": "chat",
        "instructions": "Answer the customer using the policy.",
        "scorers": [{"name": "llm_judge", "options": {"model": JUDGE, "api_base": server.base_url, **(judge or {})}}],
        "run": {"max_attempts": 3, "backoff_s": 0, "concurrency": 1},
        "lineup": [{"model": CONTENDER, "api_base": server.base_url, "prices": FREE}],
        "prices": {JUDGE: JUDGE_PRICES},
        **config,
    }
    root.mkdir(parents=True, exist_ok=True)
    (root / "evalcore.yaml").write_text(json.dumps(suite))
    dataset = root / "datasets" / "tickets"
    dataset.mkdir(parents=True, exist_ok=True)
    lines = [
        json.dumps(
            {"id": f"r{i:02d}", "input": f"Policy: returns within 30 days.\nCustomer {i}: can I?", "expected": ANSWER}
        )
        for i in range(n)
    ]
    (dataset / "cases.jsonl").write_text("\n".join(lines) + "\n")
    return root


def answering(answer: str = ANSWER) -> Any:
    """Server content: a verdict for the judge (it asks for JSON), the answer for the contender."""
    return lambda body: VERDICT if body.get("response_format") else answer


def asked_by(server: OpenAIServer, judge: bool) -> int:
    return sum(1 for r in server.requests if bool(r.get("response_format")) == judge)


def duplicates(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        query = 'SELECT count(*) FROM results GROUP BY contender, dataset, "case", sample HAVING count(*) > 1'
        return len(conn.execute(query).fetchall())


@pytest.fixture
def acquired(monkeypatch) -> list[tuple[str, int]]:
    """Every start a rate limit let through: (its key, the budget object's id)."""
    seen: list[tuple[str, int]] = []
    original = limits.Budget.acquire

    async def spy(self: limits.Budget, charge: limits.Charge, on_wait: Any = None) -> None:
        await original(self, charge, on_wait)
        seen.append((self.limit.key, id(self)))

    monkeypatch.setattr(limits.Budget, "acquire", spy)
    return seen


def test_a_judge_goes_through_the_rate_limit_of_its_model(tmp_path, tmp_db, openai_server, acquired):
    openai_server.content = answering()
    suite = judged_suite(tmp_path / "s", openai_server, n=4, limits={JUDGE: {"rpm": 6000}})
    _, status = run_suite(make_plan(load_suite(suite)), Store(tmp_db))
    assert status == "completed"
    assert [key for key, _ in acquired] == [JUDGE] * 4  # one start per judge call, none for the contender
    assert asked_by(openai_server, judge=True) == 4


def test_a_judge_waiting_on_a_limit_shows_on_its_contender_s_progress(tmp_path, tmp_db, openai_server, monkeypatch):
    openai_server.content = answering()
    told: list[tuple[str, str | None]] = []
    original = runner._Execution._tell

    def spy(self: Any, contender_id: str) -> Any:
        tell = original(self, contender_id)

        def recorded(reason: str | None, calls: int) -> None:
            told.append((contender_id, reason))
            tell(reason, calls)

        return recorded

    monkeypatch.setattr(runner._Execution, "_tell", spy)
    suite = judged_suite(tmp_path / "s", openai_server, n=2, judge={"samples": 2}, limits={JUDGE: {"rpm": 1200}})
    _, status = run_suite(make_plan(load_suite(suite)), Store(tmp_db))
    assert status == "completed"
    contender = load_suite(suite).config.lineup[0].model
    assert (contender, f"waiting on rpm limit of {JUDGE}") in told  # a judge's two samples: the second waits
    assert told[-1] == (contender, None)


def test_a_contender_and_a_judge_of_one_model_share_one_limit(tmp_path, tmp_db, openai_server, acquired):
    openai_server.content = answering()
    shared = {CONTENDER: {"rpm": 6000, "concurrency": 1}}  # one call at a time: a judge waits for no held place
    suite = judged_suite(tmp_path / "s", openai_server, n=3, judge={"model": CONTENDER}, limits=shared)
    config = json.loads((suite / "evalcore.yaml").read_text())
    config["prices"] = {CONTENDER: FREE}
    (suite / "evalcore.yaml").write_text(json.dumps(config))
    _, status = run_suite(make_plan(load_suite(suite)), Store(tmp_db))
    assert status == "completed"
    assert len(acquired) == 6 and len({budget for _, budget in acquired}) == 1  # 3 contender + 3 judge calls


def test_the_suite_s_prices_price_a_judge_model(tmp_path, tmp_db, openai_server):
    openai_server.content = answering()
    suite = judged_suite(tmp_path / "s", openai_server, n=1)
    run_id, _ = run_suite(make_plan(load_suite(suite)), Store(tmp_db))
    (result,) = Store(tmp_db).load_run(run_id).results
    (call,) = result.diagnostics["judge"]["judges"][0]["calls"]
    want = call["input_tokens"] * JUDGE_PRICES["input_cost_per_token"]
    want += call["output_tokens"] * JUDGE_PRICES["output_cost_per_token"]
    assert call["cost_usd"] == pytest.approx(want) and want > 0


def test_a_fake_judge_is_priced_by_the_suite_when_it_gives_a_price(tmp_path, tmp_db, openai_server):
    prices = {"fake/judge": {"input_cost_per_token": 1.0, "output_cost_per_token": 0.0}}
    judge = {"model": "fake/judge", "api_base": None}
    suite = judged_suite(
        tmp_path / "s", openai_server, n=1, judge=judge, lineup=[{"model": "fake/oracle"}], prices=prices
    )
    run_id, _ = run_suite(make_plan(load_suite(suite)), Store(tmp_db))
    (result,) = Store(tmp_db).load_run(run_id).results
    record = result.diagnostics["judge"]
    assert record["input_tokens"] > 0 and record["cost_usd"] == pytest.approx(record["input_tokens"])  # $1 a token


def test_an_unpriced_judge_under_a_cap_is_refused_before_any_call(tmp_path, tmp_db, openai_server):
    suite = judged_suite(tmp_path / "s", openai_server, prices={})
    plan = make_plan(load_suite(suite), RunOptions(max_cost_usd=1.0))
    with pytest.raises(ConfigError) as refused:
        start_run(plan, Store(tmp_db))
    message = str(refused.value)
    assert "evalcore.yaml: no price is known for the judge model openai/guard-judge" in message
    assert f"prices: {{{JUDGE}: {{input_cost_per_token:" in message and "\n" not in message
    assert openai_server.calls == 0 and Store(tmp_db).list_runs() == []


def test_an_unpriced_judge_without_a_cap_runs_with_an_unknown_cost(tmp_path, tmp_db, openai_server):
    openai_server.content = answering()
    suite = judged_suite(tmp_path / "s", openai_server, n=1, prices={})
    run_id, status = run_suite(make_plan(load_suite(suite)), Store(tmp_db))
    (result,) = Store(tmp_db).load_run(run_id).results
    assert status == "completed" and result.status == "scored"
    assert result.diagnostics["judge"]["cost_usd"] is None  # unknown, never 0


def test_a_dead_judge_endpoint_opens_its_breaker_and_leaves_the_rest_unrun(tmp_path, tmp_db, openai_server):
    openai_server.content = answering()
    suite = judged_suite(tmp_path / "s", openai_server, n=5, judge={"api_base": DEAD})
    store = Store(tmp_db)
    run_id, status = run_suite(make_plan(load_suite(suite)), store)
    run = store.load_run(run_id)
    (result,) = run.results  # the one reply whose judge was tried; the 4 other cases were not called
    assert status == "interrupted" and run.info.settings["stopped_by"] == "unreachable"
    assert f"cannot connect to {DEAD}: connection refused" in run.info.settings["stop_reason"]
    assert result.status == "error" and result.score is None and result.metrics == {}
    assert result.error.kind == "judge" and result.error.message.startswith("not judged: judge openai/guard-judge: ")
    assert f"cannot connect to {DEAD}" in result.error.message
    assert result.raw == ANSWER  # the reply is kept, for a resume to judge
    assert asked_by(openai_server, judge=False) == 1

    # The judge answers again (its endpoint fixed): the resume judges the stored reply without asking the
    # contender again, and calls the cases left unrun.
    config = json.loads((suite / "evalcore.yaml").read_text())
    config["scorers"][0]["options"]["api_base"] = openai_server.base_url
    (suite / "evalcore.yaml").write_text(json.dumps(config))
    plan, stored, done = resume_plan(store, run_id, force=True)
    assert len(done) == 0
    assert asyncio.run(execute_plan(plan, store, stored, done)) == "completed"
    results = store.load_run(run_id).results
    assert len(results) == 5 and all(r.status == "scored" for r in results) and duplicates(tmp_db) == 0
    assert asked_by(openai_server, judge=False) == 5  # 1 before + 4 unrun: the stored reply was not asked again


def test_a_judge_call_the_cap_refuses_leaves_the_reply_unjudged_and_a_resume_judges_it(tmp_path, tmp_db, openai_server):
    # A long answer makes the judge prompt far dearer than what the contender's short question let expect.
    long_answer = "Yes. " + "You may return it within thirty days of delivery. " * 120
    openai_server.content = answering(long_answer)
    suite = judged_suite(tmp_path / "s", openai_server, n=3)
    store = Store(tmp_db)
    run_id, status = run_suite(make_plan(load_suite(suite), RunOptions(max_cost_usd=1.0)), store)
    run = store.load_run(run_id)
    (result,) = run.results
    assert status == "interrupted" and run.info.settings["stopped_by"] == "budget"
    assert (
        "1 reply not judged" in run.info.settings["stop_reason"]
        and "2 cases not called" in run.info.settings["stop_reason"]
    )
    assert result.error.kind == "judge" and result.error.message.startswith("not judged: judge openai/guard-judge: ")
    assert "budget cap was reached" in result.error.message and result.raw == long_answer
    assert asked_by(openai_server, judge=True) == 0  # the judge call did not start: nothing was spent on it

    plan, stored, done = resume_plan(store, run_id, max_cost_usd=100.0)
    assert asyncio.run(execute_plan(plan, store, stored, done)) == "completed"
    results = store.load_run(run_id).results
    assert len(results) == 3 and all(r.status == "scored" for r in results) and duplicates(tmp_db) == 0
    assert asked_by(openai_server, judge=False) == 3 and asked_by(openai_server, judge=True) == 3


def test_a_judged_run_over_its_cap_stops_within_a_batch_and_a_resume_finishes_it(tmp_path, tmp_db):
    from evalcore.storage.spend import stored_spend

    support = load_suite("data/suites/support")
    store = Store(tmp_db)
    full = make_plan(support, RunOptions(limit=6))
    calls = full.calls
    cap = 0.002
    run_id, status = run_suite(make_plan(support, RunOptions(limit=6, max_cost_usd=cap)), store)
    run = store.load_run(run_id)
    assert status == "interrupted" and run.info.settings["stopped_by"] == "budget"
    assert 0 < len(run.results) < calls
    spent = stored_spend(store, run_id)
    per_result = spent / len(run.results)
    batch = full.parallelism * full.concurrency
    assert spent <= cap + batch * per_result  # within one batch of calls in flight (judges included)
    plan, stored, done = resume_plan(store, run_id, max_cost_usd=10.0)
    assert asyncio.run(execute_plan(plan, store, stored, done)) == "completed"
    assert len(store.load_run(run_id).results) == calls and duplicates(tmp_db) == 0


def test_an_unpriced_pairwise_judge_under_a_cap_is_refused_before_any_call(tmp_path, tmp_db, openai_server):
    pairwise = {"model": JUDGE, "api_base": openai_server.base_url}
    lineup = [{"model": "fake/oracle"}, {"model": "fake/sloppy"}]
    judge = {"model": "fake/judge", "api_base": None}
    suite = judged_suite(tmp_path / "s", openai_server, judge=judge, lineup=lineup, pairwise=pairwise, prices={})
    with pytest.raises(ConfigError, match=f"no price is known for the judge model {JUDGE}"):
        start_run(make_plan(load_suite(suite), RunOptions(max_cost_usd=1.0)), Store(tmp_db))
    assert openai_server.calls == 0
