"""A run shared by workers (``evalcore run --resume RUN --worker``), on a real PostgreSQL server: what a worker
joining it records for every worker to claim, and the slots it then claims."""

from __future__ import annotations

import dataclasses

import pytest

from evalcore.core.errors import ConfigError
from evalcore.core.records import ErrorInfo, Result
from evalcore.execution.budget import Budget
from evalcore.execution.ending import left_undone
from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.progress import Progress
from evalcore.execution.race_settings import RaceSettings
from evalcore.execution.replay import open_replay
from evalcore.execution.resume import check_shareable, claimed_slots, join_run
from evalcore.execution.runner import resume_plan, run_suite, start_run
from evalcore.storage.spend import stored_spend
from evalcore.storage.store import Store
from evalcore.suite.lineup import Overrides
from evalcore.suite.loader import load_suite
from tests.suites import write_suite


@pytest.fixture
def interrupted(tmp_path, postgres_server, monkeypatch):
    """A PostgreSQL store and an interrupted run of 2 samples whose first case the budget cap stopped midway."""
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")
    suite = load_suite(write_suite(tmp_path / "suite"))
    with Store(postgres_server.new_url()) as store:
        run_id, _ = run_suite(make_plan(suite, RunOptions(samples=2)), store)
        store.set_status(run_id, "interrupted")
        first = store.load_run(run_id).results[0]
        lost = ErrorInfo("budget", "not finished: the budget cap was reached")
        store.add_results(run_id, [dataclasses.replace(first, status="error", score=None, error=lost)])
        yield store, run_id, first.key


@pytest.fixture
def started(tmp_path, postgres_server):
    """A PostgreSQL store and a run of 2 samples stored as started, nothing called yet."""
    suite = load_suite(write_suite(tmp_path / "suite"))
    with Store(postgres_server.new_url()) as store:
        run = start_run(make_plan(suite, RunOptions(samples=2)), store)
        yield store, run.info.id


def test_a_worker_joining_records_the_slots_still_to_call_and_the_run_s_spend(interrupted):
    store, run_id, lost = interrupted
    plan, run, done = resume_plan(store, run_id)
    claims = join_run(store, plan, run, done, lease_s=30)
    try:
        assert claims.spent() == pytest.approx(stored_spend(store, run_id, True)) and claims.spent() > 0
        assert claims.claim(100, lost[0]) == [lost]
        assert all(claims.claim(100, c.id) == [] for c in plan.contenders)
    finally:
        claims.close(wait=False)


def test_a_worker_joining_records_every_contender_case_and_sample_not_done(started):
    store, run_id = started
    plan, run, _ = resume_plan(store, run_id)
    claims = join_run(store, plan, run, set(), lease_s=30)
    try:
        for contender in plan.contenders:
            wanted = {(contender.id, c.dataset, c.id, s) for c in plan.cases for s in (0, 1)}
            assert set(claims.claim(100, contender.id)) == wanted
    finally:
        claims.close(wait=False)


def test_a_worker_claims_its_slots_a_batch_at_a_time_until_none_is_free(started):
    store, run_id = started
    plan, run, _ = resume_plan(store, run_id)
    plan.concurrency = 2
    claims = join_run(store, plan, run, set(), lease_s=30)
    try:
        contender = plan.contenders[0].id
        batch: list = []
        slots = claimed_slots(claims, plan, contender, batch, None)
        first = next(slots)
        assert len(batch) == 1  # two claimed, one handed out
        rest = list(slots)
        got = sorted((case.dataset, case.id, sample) for case, sample in [first, *rest])
        assert got == sorted((c.dataset, c.id, s) for c in plan.cases for s in (0, 1))
        assert batch == []
    finally:
        claims.close(wait=False)


def test_a_worker_whose_budget_is_spent_claims_nothing(started):
    store, run_id = started
    plan, run, _ = resume_plan(store, run_id)
    claims = join_run(store, plan, run, set(), lease_s=30)
    try:
        spent = Budget(1.0, {})
        spent.exhausted = True
        contender = plan.contenders[0].id
        assert list(claimed_slots(claims, plan, contender, [], spent)) == []
        assert len(claims.claim(100, contender)) == len(plan.cases) * 2  # every slot still free
    finally:
        claims.close(wait=False)


def test_an_adaptive_run_cannot_be_shared_by_workers(tmp_path):
    plan = make_plan(load_suite(write_suite(tmp_path / "suite")), RunOptions(adaptive=RaceSettings(seed=1)))
    with pytest.raises(ConfigError) as refused:
        check_shareable(plan, "r1")
    assert str(refused.value) == (
        "run r1 is adaptive: one process decides its rounds, so it cannot be shared by workers; run it without --worker"
    )
    with pytest.raises(ConfigError, match="^the run is adaptive: one process"):
        check_shareable(plan)
    check_shareable(make_plan(plan.suite))


def test_a_worker_cannot_join_an_adaptive_run_and_is_told_which(tmp_path, tmp_db):
    store = Store(tmp_db)
    plan = make_plan(load_suite(write_suite(tmp_path / "suite")), RunOptions(adaptive=RaceSettings(seed=1)))
    run = start_run(plan, store)
    with pytest.raises(ConfigError, match=f"^run {run.info.id} is adaptive: one process decides its rounds"):
        join_run(store, plan, run, set(), lease_s=30)


def test_a_worker_holds_its_claims_for_the_lease_it_was_given(started):
    store, run_id = started
    plan, run, done = resume_plan(store, run_id)
    claims = join_run(store, plan, run, done, lease_s=7)
    try:
        assert claims.lease_s == 7
    finally:
        claims.close(wait=False)


@pytest.mark.parametrize("pairwise", [False, True])
def test_the_pairwise_phase_is_one_more_slot_only_for_a_suite_with_a_pairwise_judge(
    tmp_path, postgres_server, pairwise
):
    config = {"pairwise": {"model": "fake/judge"}} if pairwise else {}
    plan = make_plan(load_suite(write_suite(tmp_path / "suite", config)))
    with Store(postgres_server.new_url()) as store:
        run = start_run(plan, store)
        claims = join_run(store, plan, run, set(), lease_s=30)
        try:
            assert claims.held_elsewhere() == len(plan.contenders) * len(plan.cases) + pairwise
        finally:
            claims.close(wait=False)


def test_a_worker_joining_a_replay_counts_only_what_its_judges_spent(tmp_path, postgres_server, monkeypatch):
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")
    suite = load_suite(write_suite(tmp_path / "suite"))
    with Store(postgres_server.new_url()) as store:
        source, _ = run_suite(make_plan(suite), store)
        options = RunOptions(overrides=Overrides())
        options.replay = open_replay(source, store)
        replayed, _ = run_suite(make_plan(suite, options), store)
        store.set_status(replayed, "interrupted")
        assert stored_spend(store, replayed) > 0  # the stored usage copies the replayed run's
        plan, run, done = resume_plan(store, replayed)
        claims = join_run(store, plan, run, done, lease_s=30)
        try:
            assert claims.spent() == 0.0
        finally:
            claims.close(wait=False)


@pytest.mark.parametrize(
    ("message", "asked_again"),
    [
        ("cannot connect to http://x: refused", True),
        ("stopped calling http://x: 3 failures", True),
        ("not judged: the budget cap", True),
        ("not finished: the budget cap", True),
        (None, False),
        ("429 Too Many Requests: cannot connect to http://x", False),
    ],
)
def test_a_worker_joining_asks_again_the_results_a_single_process_resume_asks_again(
    tmp_path, postgres_server, monkeypatch, message, asked_again
):
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")
    suite = load_suite(write_suite(tmp_path / "suite"))
    with Store(postgres_server.new_url()) as store:
        run_id, _ = run_suite(make_plan(suite, RunOptions(samples=2)), store)
        store.set_status(run_id, "interrupted")
        first = store.load_run(run_id).results[0]
        failed = dataclasses.replace(first, status="error", score=None, error=ErrorInfo("transport", message))
        store.add_results(run_id, [failed])
        plan, run, done = resume_plan(store, run_id)
        claims = join_run(store, plan, run, done, lease_s=30)
        try:
            assert claims.claim(100, first.key[0]) == ([first.key] if asked_again else [])
        finally:
            claims.close(wait=False)


def test_a_worker_joining_after_another_stored_an_unreachable_endpoint_asks_it_again(started):
    store, run_id = started
    plan, run, _ = resume_plan(store, run_id)
    contender = plan.contenders[0].id
    first = join_run(store, plan, run, set(), lease_s=30)
    try:
        (key,) = first.claim(1, contender)
        unreached = ErrorInfo("transport", "cannot connect to http://x: refused")
        first.store_rows([store.result_rows(run_id)(Result(*key, status="error", score=None, error=unreached))])
    finally:
        first.close(wait=False)
    plan, run, done = resume_plan(store, run_id)
    second = join_run(store, plan, run, done, lease_s=30)
    try:
        assert key in second.claim(100, contender)
    finally:
        second.close(wait=False)


def test_the_last_worker_counts_calls_another_worker_s_breaker_cut_off_as_left_undone(started):
    # Every slot is stored, one of them cut off by its endpoint's breaker: a resume calls it again, so the
    # worker that ends the run must not call it complete.
    store, run_id = started
    plan, run, done = resume_plan(store, run_id)
    worker = join_run(store, plan, run, done, lease_s=30)
    rows = store.result_rows(run_id)
    try:
        keys = [key for contender in plan.contenders for key in worker.claim(100, contender.id)]
        cut_off = ErrorInfo(
            "transport", "stopped calling http://x/v1: it answered 503 to 6 calls in a row, over 3 cases"
        )
        results = [Result(*key, status="scored", score=1.0) for key in keys[1:]]
        worker.store_rows([rows(r) for r in [Result(*keys[0], status="error", score=None, error=cut_off), *results]])
    finally:
        worker.close(wait=False)
    assert worker.left == 0
    assert left_undone(Progress(run_id), worker, store, run_id, 0) == (1, 0)
