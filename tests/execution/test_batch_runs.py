import time
from collections import Counter
from pathlib import Path

import pytest

from evalcore.core.errors import ConfigError
from evalcore.core.records import Contender
from evalcore.execution.adaptive import race_stops
from evalcore.execution.batch_settings import BatchSettings
from evalcore.execution.batching import check_batchable
from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.race_settings import RaceSettings
from evalcore.execution.runner import run_suite
from evalcore.models.batches import FAKE_TURNAROUND_VARIABLE, batch_prices
from evalcore.models.llm_batch import listed_batch_prices
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.suites import write_suite

WANT = {"name": "Ann", "kind": "a", "count": 2, "amount": 10.5, "urgent": True, "tags": ["x"]}
BATCH = BatchSettings(poll_s=0.01)


@pytest.fixture
def suite(tmp_path):
    cases = {f"c/{i:03d}": ("Ann needs kind a, 2 units, $10.5, urgent, tag x.", WANT) for i in range(240)}
    lineup = [{"model": "fake/skill", "settings": {"skill": [0.95, 0.75, 0.2]}}]
    return load_suite(write_suite(tmp_path / "suite", {"lineup": lineup, "weighted_score": {"weights": {}}}, cases))


def _costs(store, run_id):
    costs = Counter()
    for r in store.load_run(run_id).results:
        costs[(r.contender, r.dataset, r.case)] += r.usage.cost_usd
    return costs


def test_a_batch_run_pays_half_the_interactive_price_for_the_same_replies(suite, tmp_path):
    store = Store(tmp_path / "e.db")
    plain, _ = run_suite(make_plan(suite, RunOptions(limit=20)), store)
    batched, status = run_suite(make_plan(suite, RunOptions(limit=20, batch=BATCH)), store)
    assert status == "completed"
    interactive, batch = _costs(store, plain), _costs(store, batched)
    assert set(batch) == set(interactive) and len(batch) == 3 * 20
    assert all(batch[k] == pytest.approx(interactive[k] / 2) for k in batch)
    scores = {(r.contender, r.case): r.score for r in store.load_run(plain).results}
    assert {(r.contender, r.case): r.score for r in store.load_run(batched).results} == scores


def test_a_batch_run_records_one_batch_per_contender_with_its_cases(suite, tmp_db):
    store = Store(tmp_db)
    run_id, _ = run_suite(make_plan(suite, RunOptions(limit=10, batch=BATCH)), store)
    sent = store.load_run(run_id).info.settings["batch"]["sent"]
    assert sorted(b["contender"] for b in sent) == sorted(c.id for c in store.load_run(run_id).contenders)
    assert all(len(b["slots"]) == 10 and b["ended"] == "completed" and b["id"] for b in sent)


def test_a_batch_is_collected_when_its_turnaround_has_passed(suite, tmp_db, monkeypatch):
    monkeypatch.setenv(FAKE_TURNAROUND_VARIABLE, "0.4")
    began = time.monotonic()
    run_id, status = run_suite(make_plan(suite, RunOptions(limit=5, batch=BATCH)), Store(tmp_db))
    assert status == "completed" and time.monotonic() - began >= 0.4


def test_an_adaptive_batch_run_sends_one_batch_per_contender_still_in_each_round(suite, tmp_db):
    store = Store(tmp_db)
    options = RunOptions(adaptive=RaceSettings(seed=5, round=20), batch=BATCH)
    run_id, status = run_suite(make_plan(suite, options), store)
    run = store.load_run(run_id)
    stops, sent = race_stops(run.info.settings), run.info.settings["batch"]["sent"]
    assert status == "completed" and stops, "the race stopped nobody: the test no longer reaches its case"
    rounds = Counter(b["contender"] for b in sent)
    for contender in run.contenders:
        after = stops.get(contender.id, {}).get("after_cases", run.info.settings["adaptive"]["ended_after_cases"])
        assert rounds[contender.id] == after // 20
        assert all(len(b["slots"]) == 20 for b in sent if b["contender"] == contender.id)
    assert Counter(r.contender for r in run.results) == {c: n * 20 for c, n in rounds.items()}


def test_the_suites_batch_prices_beat_litellms_and_the_half_price():
    given = Contender("m", "openai/gpt-4o-mini", prices={"input_cost_per_token": 4e-6,
                      "output_cost_per_token": 8e-6, "input_cost_per_token_batches": 1e-6})  # fmt: skip
    assert batch_prices(given, (4e-6, 8e-6), (7.5e-8, 3e-7)) == (1e-6, 4e-6)


def test_a_model_litellm_lists_a_batch_price_for_is_priced_from_its_map():
    assert listed_batch_prices("openai/gpt-4o-mini") == (7.5e-08, 3e-07)
    plain = Contender("m", "openai/gpt-4o-mini")
    assert batch_prices(plain, (1.5e-7, 6e-7), listed_batch_prices(plain.model)) == (7.5e-08, 3e-07)


def test_a_model_with_no_batch_price_is_priced_at_half_its_price():
    assert batch_prices(Contender("m", "openai/x"), (2e-6, 4e-6)) == (1e-6, 2e-6)


def test_a_batch_plan_of_an_agent_suite_is_refused():
    suite = load_suite(Path(__file__).resolve().parents[2] / "data" / "suites" / "agent")
    with pytest.raises(ConfigError, match="makes its own calls"):
        check_batchable(make_plan(suite, RunOptions(batch=BATCH)))


def test_a_batch_run_cannot_be_shared_by_workers(suite):
    from evalcore.execution.resume import check_shareable

    with pytest.raises(ConfigError, match="without --worker"):
        check_shareable(make_plan(suite, RunOptions(batch=BATCH)))


def test_a_cached_batch_run_sends_only_the_requests_the_cache_has_no_reply_for(tmp_path):
    cases = {f"c/{i:03d}": (f"Ann needs kind a, {i} units.", WANT) for i in range(12)}
    lineup = [{"model": "fake/skill", "settings": {"skill": [0.9, 0.5]}}]
    root = write_suite(tmp_path / "suite", {"lineup": lineup}, cases)
    store, options = Store(tmp_path / "e.db"), RunOptions(batch=BATCH, cache=True)
    first, _ = run_suite(make_plan(load_suite(root), options), store)
    changed = {**cases, "c/003": ("Bob needs kind b, 7 units.", WANT)}
    root = write_suite(tmp_path / "suite", {"lineup": lineup}, changed)
    second, status = run_suite(make_plan(load_suite(root), options), store)
    sent = store.load_run(second).info.settings["batch"]["sent"]
    assert status == "completed" and sorted(len(b["slots"]) for b in sent) == [1, 1]
    assert all(b["slots"] == [["shop", "c/003", 0]] for b in sent)
    results = store.load_run(second).results
    assert sum("cached" in r.diagnostics for r in results) == 2 * 11 and len(results) == 2 * 12
    assert len(store.load_run(first).results) == 2 * 12


def test_a_resumed_run_reads_a_batch_it_sent_and_did_not_store_instead_of_sending_it_again(suite, tmp_db):
    import asyncio

    from evalcore.execution.runner import execute_plan, resume_plan, start_run
    from evalcore.storage.history import update_settings

    store = Store(tmp_db)
    plan = make_plan(suite, RunOptions(limit=6, batch=BATCH))
    run = start_run(plan, store)
    first = plan.contenders[0].id
    slots = [[c.dataset, c.id, 0] for c in plan.cases]
    stopped = {"id": f"fakebatch-{time.time() - 5:.3f}-0000abcd", "contender": first, "slots": slots, "usd": 0.0,
               "sent_at": "2026-12-07T00:00:00.000Z", "ended": None}  # fmt: skip
    update_settings(store, run.info.id, lambda s: {**s, "batch": {**s["batch"], "sent": [stopped]}})
    store.set_status(run.info.id, "interrupted")
    plan, run, done = resume_plan(store, run.info.id)
    assert asyncio.run(execute_plan(plan, store, run, done)) == "completed"
    sent = store.load_run(run.info.id).info.settings["batch"]["sent"]
    assert [b["id"] for b in sent if b["contender"] == first] == [stopped["id"]]
    assert all(b["ended"] == "completed" for b in sent) and len(sent) == len(plan.contenders)
    assert len(store.load_run(run.info.id).results) == 6 * len(plan.contenders)
