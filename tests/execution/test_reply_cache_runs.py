"""The reply cache over real HTTP: a litellm contender on the local OpenAI-compatible server, runs stored in SQLite
(and PostgreSQL): what a second run asks, what it is charged, and which draws it reuses."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from evalcore.execution.estimate import estimate_plan_cost
from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.runner import run_suite
from evalcore.storage.spend import stored_spend
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.openai_server import OpenAIServer
from tests.suites import CASES, write_suite

PRICES = {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}


@pytest.fixture(autouse=True)
def no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


@pytest.fixture
def server(openai_server: OpenAIServer) -> OpenAIServer:
    """Each reply differs from every other (a counter in it), so a reused reply is told from a new one."""
    counter = itertools.count()
    openai_server.content = lambda body: f'{{"name": "draw {next(counter)}"}}'
    return openai_server


def suite(tmp_path: Path, server: OpenAIServer, run: dict[str, Any] | None = None) -> Path:
    config = {
        "lineup": [{"model": "openai/local", "api_base": server.base_url, "settings": {"temperature": 0.7}}],
        "prices": {"openai/local": PRICES},
        "run": {"max_attempts": 1, "backoff_s": 0, **(run or {})},
    }
    return write_suite(tmp_path / "suite", config)


def run(root: Path, store: Store, **options: Any) -> tuple[str, str]:
    return run_suite(make_plan(load_suite(root), RunOptions(**options)), store)


def cached_keys(store: Store) -> int:
    with store.transaction("DEFERRED") as conn:
        return int(conn.execute("SELECT COUNT(*) FROM reply_cache").fetchone()[0])


def test_a_second_run_takes_every_reply_from_the_cache_and_pays_nothing(
    tmp_path: Path, server: OpenAIServer, store_location: str
) -> None:
    store, root = Store(store_location), suite(tmp_path, server)
    first, _ = run(root, store, cache=True)
    asked = server.calls
    second, status = run(root, store, cache=True)
    assert status == "completed" and server.calls == asked == len(CASES)
    before = {r.case: r for r in store.load_run(first).results}
    after = store.load_run(second).results
    assert [r.raw for r in after] == [before[r.case].raw for r in after]
    assert all(r.usage == before[r.case].usage and r.usage.cost_usd for r in after)  # what it would have cost
    assert all(r.diagnostics["cached"]["cost_usd"] == r.usage.cost_usd for r in after)
    assert "cached" not in str([r.diagnostics for r in before.values()])
    assert stored_spend(store, second) == 0.0 and stored_spend(store, first) > 0.0
    assert store.load_run(second).info.settings["reply_cache"] == {"max_age_s": None}


def test_the_cache_is_off_unless_asked(tmp_path: Path, server: OpenAIServer, tmp_db: Path) -> None:
    store, root = Store(tmp_db), suite(tmp_path, server)
    run(root, store)
    run(root, store)
    assert server.calls == 2 * len(CASES) and cached_keys(store) == 0


def test_the_suite_can_turn_it_on_and_no_cache_turns_it_off(tmp_path: Path, server: OpenAIServer, tmp_db: Path) -> None:
    store, root = Store(tmp_db), suite(tmp_path, server, {"cache": True})
    run(root, store)
    run(root, store)
    assert server.calls == len(CASES)
    run(root, store, cache=False)
    assert server.calls == 2 * len(CASES)


def test_each_sample_is_its_own_entry(tmp_path: Path, server: OpenAIServer, tmp_db: Path) -> None:
    store, root = Store(tmp_db), suite(tmp_path, server, {"samples": 3})
    first, _ = run(root, store, cache=True)
    assert cached_keys(store) == 3 * len(CASES)
    raws = [r.raw for r in store.load_run(first).results]
    assert len(set(raws)) == len(raws)  # three different draws of each case were kept, none replayed


def test_a_cached_answer_never_stands_in_for_another_sample(tmp_path: Path, server: OpenAIServer, tmp_db: Path) -> None:
    store, root = Store(tmp_db), suite(tmp_path, server)
    run(root, store, cache=True)
    second, _ = run(root, store, cache=True, samples=3)
    assert server.calls == len(CASES) + 2 * len(CASES)
    results = store.load_run(second).results
    assert {r.sample for r in results if "cached" in r.diagnostics} == {0}
    assert len({r.raw for r in results}) == len(results)


def test_another_setting_is_another_request(tmp_path: Path, server: OpenAIServer, tmp_db: Path) -> None:
    store, root = Store(tmp_db), suite(tmp_path, server)
    run(root, store, cache=True)
    run(root, store, cache=True, overrides=_temperature("0.2"))
    assert server.calls == 2 * len(CASES)


def _temperature(value: str) -> Any:
    from evalcore.suite.lineup import Overrides

    return Overrides(settings={"temperature": [float(value)]})


def test_errors_are_never_cached(tmp_path: Path, server: OpenAIServer, tmp_db: Path) -> None:
    store, root = Store(tmp_db), suite(tmp_path, server)
    server.script("status:400")
    first, _ = run(root, store, cache=True)
    assert sum(r.status == "error" for r in store.load_run(first).results) == 1
    assert cached_keys(store) == len(CASES) - 1
    second, _ = run(root, store, cache=True)
    assert server.calls == len(CASES) + 1
    assert all(r.status == "scored" for r in store.load_run(second).results)


def test_a_reply_older_than_the_max_age_is_asked_again_and_replaced(
    tmp_path: Path, server: OpenAIServer, tmp_db: Path
) -> None:
    store, root = Store(tmp_db), suite(tmp_path, server)
    run(root, store, cache=True)
    with store.transaction() as conn:
        conn.execute("UPDATE reply_cache SET created_at = '2020-01-01T00:00:00.000Z'")
    run(root, store, cache=True, cache_max_age_s=3600)
    assert server.calls == 2 * len(CASES)
    run(root, store, cache=True, cache_max_age_s=3600)
    assert server.calls == 2 * len(CASES) and cached_keys(store) == len(CASES)


def test_a_reply_from_the_cache_costs_nothing_against_the_budget(
    tmp_path: Path, server: OpenAIServer, tmp_db: Path
) -> None:
    # One call in flight: a call reserves its estimate before the cache is asked, and gives it back on a hit.
    store, root = Store(tmp_db), suite(tmp_path, server, {"concurrency": 1})
    run(root, store, cache=True)
    plan = make_plan(load_suite(root))
    one_call = (estimate_plan_cost(plan, store).usd or 0.0) / plan.calls  # what the budget reserves per call
    second, status = run(root, store, cache=True, max_cost_usd=1.5 * one_call)
    assert status == "completed" and server.calls == len(CASES)
    assert stored_spend(store, second) == 0.0
    # Without the cache the same cap stops the run after a call or two.
    third, status = run(root, store, cache=False, max_cost_usd=1.5 * one_call)
    assert status == "interrupted" and len(store.load_run(third).results) < len(CASES)


def test_a_judge_takes_its_verdicts_from_the_cache_too(tmp_path: Path, openai_server: OpenAIServer) -> None:
    from tests.execution.test_judge_runs import answering, write_judged_suite

    openai_server.content = answering('{"correct": 5, "tone": 4, "reasoning": "fine"}')
    store = Store(tmp_path / "evalcore.db")
    plan_of = lambda: make_plan(load_suite(root), RunOptions(cache=True))  # noqa: E731
    root = write_judged_suite(tmp_path / "suite", openai_server, {"samples": 3})
    first, _ = run_suite(plan_of(), store)
    assert openai_server.calls == 1 + 3  # the contender once, the judge three times: three draws, three entries
    second, _ = run_suite(plan_of(), store)
    assert openai_server.calls == 4
    (result,) = store.load_run(second).results
    record = result.diagnostics["judge"]
    assert record["cached"] == 3 and record["calls"] == 0 and record["cost_usd"] == 0.0  # nothing paid
    assert result.metrics == store.load_run(first).results[0].metrics


def test_a_conversations_turns_from_the_cache_pay_nothing(tmp_path: Path, tmp_db: Path) -> None:
    from tests.execution.test_owned_calls import CASES as SUMS
    from tests.execution.test_owned_calls import suite as owned_suite

    root, store = owned_suite(tmp_path / "s", "Conversation"), Store(tmp_db)
    first, _ = run(root, store, cache=True, max_cost_usd=1.0)
    second, status = run(root, store, cache=True, max_cost_usd=1.0)
    assert status == "completed" and cached_keys(store) == 2 * len(SUMS)  # two turns per case
    results = store.load_run(second).results
    assert all(
        r.usage.cost_usd and r.diagnostics["cached"]["cost_usd"] == pytest.approx(r.usage.cost_usd) for r in results
    )
    assert stored_spend(store, second) == pytest.approx(0.0, abs=1e-12) and stored_spend(store, first) > 0


def test_a_pairwise_judge_takes_its_verdicts_from_the_cache_too(tmp_path: Path, openai_server: OpenAIServer) -> None:
    from tests.execution.test_pairwise_runs import JUDGE, fair, judged_by
    from tests.execution.test_pairwise_runs import write_suite as paired_suite

    openai_server.content = judged_by(fair)
    root = paired_suite(tmp_path / "suite", openai_server, {"model": JUDGE})
    store = Store(tmp_path / "evalcore.db")
    first, _ = run(root, store, cache=True)
    asked = openai_server.calls
    second, _ = run(root, store, cache=True)
    assert openai_server.calls == asked == 2 * 2 + 2 * 2  # two contenders and two orders, over two cases
    before, after = store.load_run(first).pairwise, store.load_run(second).pairwise
    assert [v.outcome for v in after] == [v.outcome for v in before] == ["win", "win"]
    assert all(c.get("cached") for v in after for c in v.calls) and not any(v.cost_usd for v in after)
    assert stored_spend(store, second) == 0.0


def test_a_resumed_run_keeps_its_cache(tmp_path: Path, server: OpenAIServer, tmp_db: Path) -> None:
    import asyncio

    from evalcore.execution.runner import execute_plan, resume_plan

    store, root = Store(tmp_db), suite(tmp_path, server)
    server.script("status:400")
    first, _ = run(root, store, cache=True)
    plan, stored, done = resume_plan(store, first, retry_errors=True)
    assert asyncio.run(execute_plan(plan, store, stored, done)) == "completed"
    assert server.calls == len(CASES) + 1 and cached_keys(store) == len(CASES)  # the retried reply was kept


def test_a_reply_from_the_cache_judged_on_resume_keeps_its_mark(tmp_path: Path, openai_server: OpenAIServer) -> None:
    import asyncio

    from evalcore.execution.runner import execute_plan, resume_plan
    from tests.execution.test_judge_runs import answering, write_judged_suite

    openai_server.content = answering('{"correct": 5, "tone": 4, "reasoning": "fine"}')
    store = Store(tmp_path / "evalcore.db")
    run(write_judged_suite(tmp_path / "suite", openai_server), store, cache=True)
    gone = write_judged_suite(tmp_path / "gone", openai_server, {"api_base": "http://127.0.0.1:9/v1"})
    second, status = run(gone, store, cache=True)  # the reply from the cache; its judge cannot be reached
    (unjudged,) = store.load_run(second).results
    assert status == "interrupted" and unjudged.status == "error" and "cached" in unjudged.diagnostics
    (gone / "evalcore.yaml").write_text((tmp_path / "suite" / "evalcore.yaml").read_text())
    plan, stored, done = resume_plan(store, second, force=True)
    assert asyncio.run(execute_plan(plan, store, stored, done)) == "completed"
    (judged,) = store.load_run(second).results
    assert judged.status == "scored" and judged.diagnostics["cached"] == unjudged.diagnostics["cached"]
    assert stored_spend(store, second) == judged.diagnostics["judge"]["cost_usd"]  # the judge's call only
