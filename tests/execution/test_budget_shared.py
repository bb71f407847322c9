"""The budget of a run shared by workers (:class:`~evalcore.execution.budget.SharedBudget`), on a real PostgreSQL
server: one cap for every worker, counted in the database, and a database that cannot be reached refuses calls
without calling the cap reached."""

from __future__ import annotations

import contextlib
import itertools
import sqlite3

import pytest
from factories import make_run

from evalcore.execution.budget import SharedBudget, open_budget
from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.runner import start_run
from evalcore.storage.claims import Claims
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.suites import write_suite

_RUNS = itertools.count(1)


@pytest.fixture
def workers(postgres_server):
    """Two workers' claims on one PostgreSQL run whose stored results cost $0.25."""
    run = make_run(2, 3, run_id=f"budget-{next(_RUNS)}", status="running")
    keys = [r.key for r in run.results]
    run.results = []
    with Store(postgres_server.new_url()) as store:
        store.create_run(run)
        both = [Claims(store, run.info.id), Claims(store, run.info.id)]
        for claims in both:
            claims.seed(keys, 0.25)
        yield both
        for claims in both:
            # A test that halts the server leaves every connection ended: nothing is given back on them.
            with contextlib.suppress(sqlite3.OperationalError):
                claims.close(wait=False)


def test_a_worker_s_budget_starts_from_what_the_run_spent(workers):
    budget = SharedBudget(workers[0], 1.0, {"c": 0.1})
    assert (budget.spent_usd, budget.reserved_usd, budget.exhausted) == (0.25, 0.0, False)


def test_workers_share_one_cap_and_the_worker_it_refuses_stops_calling(workers):
    a, b = SharedBudget(workers[0], 1.0, {"c": 0.3}), SharedBudget(workers[1], 1.0, {"c": 0.3})
    assert a.reserve("c") == pytest.approx(0.3) and b.reserve("c", extra_usd=0.1) == pytest.approx(0.4)
    assert a.reserve("c") is None  # 0.25 spent + 0.7 held
    assert a.exhausted and (a.reserved_usd, b.reserved_usd) == (pytest.approx(0.3), pytest.approx(0.4))
    assert a.reserve_usd(0.0) is False  # once refused, nothing more starts
    assert b.reserve_usd(0.05) is True and b.exhausted is False


def test_a_reservation_may_reach_the_cap_exactly(workers):
    budget = SharedBudget(workers[0], 1.0, {"c": 0.75})
    assert budget.reserve("c") == 0.75 and not budget.exhausted


def test_settling_replaces_a_reservation_by_its_cost_in_the_run_s_shared_spend(workers):
    a, b = SharedBudget(workers[0], 1.0, {"c": 0.2}), SharedBudget(workers[1], 1.0, {"c": 0.2})
    a.reserve("c"), a.reserve("c"), b.reserve("c")
    a.settle_usd(0.2, 0.1)
    assert (a.spent_usd, a.reserved_usd, a.unsettled_usd) == (pytest.approx(0.35), pytest.approx(0.2), 0.0)
    b.settle_usd(0.5, 0.2)  # more than it held: its reservation goes to 0, not below
    assert (b.spent_usd, b.reserved_usd) == (pytest.approx(0.55), 0.0)
    assert b.reserve_usd(0.2) and not b.reserve_usd(0.1)  # 0.55 spent + 0.2 held by a + 0.2, then 0.1 more


def test_a_released_reservation_is_given_back_to_every_worker(workers):
    a, b = SharedBudget(workers[0], 1.0, {"c": 0.5}), SharedBudget(workers[1], 1.0, {"c": 0.5})
    a.reserve("c")
    a.release(0.5)
    assert (a.spent_usd, a.reserved_usd) == (pytest.approx(0.25), 0.0)
    assert b.reserve_usd(0.75)


def test_under_a_replay_a_worker_reserves_only_the_judging(workers):
    budget = SharedBudget(workers[0], 1.0, {"c": 0.5}, paid=False)
    assert budget.reserve("c", extra_usd=0.1) == pytest.approx(0.1)


def test_a_database_that_cannot_be_reached_refuses_calls_without_calling_the_cap_reached(
    workers, postgres_server, caplog
):
    budget = SharedBudget(workers[0], 1.0, {"c": 0.1})
    budget.reserve("c")
    postgres_server.halt()
    try:
        assert budget.reserve_usd(0.1) is False
        why = workers[0].unreachable
        assert budget.exhausted is False and "connection refused" in why
        assert f"run {workers[0].run_id}: this worker cannot count its spend: {why}" in caplog.messages
        budget.settle_usd(0.1, 0.05)  # counted here, for the next settlement that reaches the database
        budget.settle_usd(0.0, 0.02)
        assert (budget.spent_usd, budget.reserved_usd, budget.unsettled_usd) == (
            pytest.approx(0.32),
            0.0,
            pytest.approx(0.07),
        )
        assert workers[0].unreachable == why  # the first cause is kept
        assert budget.reserve_usd(0.0) is False
    finally:
        postgres_server.start()


def test_a_settlement_that_cannot_reach_the_database_says_why(workers, postgres_server):
    budget = SharedBudget(workers[1], 1.0, {"c": 0.1})
    postgres_server.halt()
    try:
        budget.settle_usd(0.0, 0.05)
        assert "connection refused" in workers[1].unreachable
    finally:
        postgres_server.start()


def test_a_worker_of_a_capped_shared_run_opens_a_budget_counted_in_the_database(tmp_path, postgres_server):
    suite = load_suite(write_suite(tmp_path / "suite"))
    plan = make_plan(suite, RunOptions(max_cost_usd=2.0))
    with Store(postgres_server.new_url()) as store:
        run = start_run(plan, store)
        claims = Claims(store, run.info.id)
        claims.seed([], 0.5)
        try:
            budget = open_budget(plan, store, run, claims)
            alone = open_budget(plan, store, run)
            assert isinstance(budget, SharedBudget) and budget.claims is claims
            assert (budget.cap_usd, budget.per_call, budget.paid) == (2.0, alone.per_call, True)
            assert budget.spent_usd == 0.5 and alone.per_call
        finally:
            claims.close(wait=False)
