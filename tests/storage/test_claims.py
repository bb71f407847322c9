"""The claims of a run shared by workers (:mod:`evalcore.storage.claims`), on a real PostgreSQL server: a slot
is held by one worker at a time, a lapsed lease lets another take it, a late write is dropped, and the budget
counts every worker's spend and reservations."""

from __future__ import annotations

import itertools
import threading

import psycopg
import pytest
from factories import make_run

from evalcore.core.errors import ConfigError
from evalcore.storage.claims import PAIRWISE_SLOT, Claims
from evalcore.storage.store import Store

_RUNS = itertools.count(1)


@pytest.fixture
def shared(postgres_server):
    """A PostgreSQL store holding a run with no result yet, its slots, and the results it would get."""
    run = make_run(2, 3, run_id=f"shared-{next(_RUNS)}", status="running")
    results = list(run.results)
    run.results = []
    with Store(postgres_server.new_url()) as store:
        store.create_run(run)
        yield store, run.info.id, results


def _worker(store: Store, run_id: str, keys, lease_s: float = 30.0, spent_usd: float = 0.0) -> Claims:
    claims = Claims(store, run_id, lease_s)
    claims.seed(keys, spent_usd)
    return claims


def _lapse(store: Store, claims: Claims) -> None:
    """End ``claims``' lease at once, as if its worker had died a lease ago."""
    with psycopg.connect(store.location.url or "") as conn:
        conn.execute(
            "UPDATE evalcore_claims SET expires_at = now() - interval '1 second' WHERE held_by = %s", (claims.name,)
        )
        conn.execute(
            "UPDATE evalcore_workers SET expires_at = now() - interval '1 second' WHERE worker = %s", (claims.name,)
        )


def test_two_workers_never_claim_the_same_slot(shared):
    store, run_id, results = shared
    keys = [r.key for r in results]
    a, b = _worker(store, run_id, keys), _worker(store, run_id, keys)
    contender = results[0].contender
    first, second = a.claim(2, contender), b.claim(5, contender)
    assert len(first) == 2 and len(second) == 1 and not set(first) & set(second)
    assert a.claim(5, contender) == []
    a.close(wait=False), b.close()


def test_a_lapsed_lease_lets_another_worker_claim_the_slots(shared):
    store, run_id, results = shared
    keys = [r.key for r in results]
    dead, alive = _worker(store, run_id, keys), _worker(store, run_id, keys)
    contender = results[0].contender
    held = dead.claim(3, contender)
    assert alive.claim(3, contender) == []
    _lapse(store, dead)
    assert sorted(alive.claim(3, contender)) == sorted(held)
    alive.close()


def test_a_late_write_by_a_worker_whose_slot_was_claimed_again_is_dropped(shared):
    store, run_id, results = shared
    keys = [r.key for r in results]
    late, other = _worker(store, run_id, keys), _worker(store, run_id, keys)
    contender = results[0].contender
    (slot,) = late.claim(1, contender)
    _lapse(store, late)
    assert other.claim(1, contender) == [slot]
    rows = store.result_rows(run_id)
    result = next(r for r in results if r.key == slot)
    assert other.store_rows([rows(result)]) == 0
    assert late.store_rows([rows(result)]) == 1  # dropped: the slot is done by the other worker
    assert len(store.load_run(run_id).results) == 1
    assert other.held_elsewhere() == len(keys) - 1
    late.close(), other.close()


def test_the_pairwise_phase_is_claimed_by_one_worker_once_every_result_slot_is_done(shared):
    store, run_id, results = shared
    keys = [r.key for r in results]
    a, b = _worker(store, run_id, [*keys, PAIRWISE_SLOT]), _worker(store, run_id, [*keys, PAIRWISE_SLOT])
    rows = store.result_rows(run_id)
    for contender in {r.contender for r in results}:
        slots = set(a.claim(len(keys), contender))
        assert not a.claim_pairwise()  # answers are still to come
        a.store_rows([rows(r) for r in results if r.key in slots])
    assert b.claim_pairwise() and not a.claim_pairwise()
    assert a.held_elsewhere() == 1  # a waits for b's comparisons
    b.finish_pairwise()
    assert a.held_elsewhere() == 0 and not a.claim_pairwise()
    a.close(wait=False), b.close()


def test_a_dead_workers_pairwise_phase_is_taken_over(shared):
    store, run_id, _ = shared
    dead, alive = _worker(store, run_id, [PAIRWISE_SLOT]), _worker(store, run_id, [PAIRWISE_SLOT])
    assert dead.claim_pairwise() and not alive.claim_pairwise()
    _lapse(store, dead)
    assert alive.claim_pairwise()
    alive.close()


def test_the_budget_counts_every_workers_reservation_and_spend(shared):
    store, run_id, results = shared
    keys = [r.key for r in results]
    a, b = _worker(store, run_id, keys, spent_usd=0.25), _worker(store, run_id, keys)
    assert a.reserve(0.0, 0.5, cap_usd=1.0)
    assert not b.reserve(0.0, 0.5, cap_usd=1.0)  # 0.25 spent + 0.5 held by a
    assert b.reserve(0.0, 0.25, cap_usd=1.0)
    assert a.settle(0.0, 0.4) == pytest.approx(0.65)  # a's call cost 0.4; its reservation is given back
    assert not b.reserve(0.25, 0.2, cap_usd=1.0)
    _lapse(store, b)  # a dead worker's reservation no longer counts; what was spent does
    assert a.reserve(0.0, 0.35, cap_usd=1.0)
    a.close(wait=False), b.close()


def test_claims_refuse_a_sqlite_store(tmp_path):
    run = make_run(1, 1)
    with Store(tmp_path / "evalcore.db") as store:
        store.create_run(run)
        with pytest.raises(ConfigError, match="--worker needs a PostgreSQL store"):
            Claims(store, run.info.id)


def test_call_starts_under_one_rate_limit_are_spaced_across_workers(shared):
    store, run_id, results = shared
    keys = [r.key for r in results]
    a, b = _worker(store, run_id, keys), _worker(store, run_id, keys)
    clock = {f"rpm fake/model-{run_id}": 60.0}
    starts = [a.next_start(clock)[0], b.next_start(clock)[0], a.next_start(clock)[0]]
    assert [later - first for first, later in itertools.pairwise(starts)] == pytest.approx([60.0, 60.0])
    assert b.next_start(clock)[1] > 60.0  # the fourth start waits for three slots
    a.close(wait=False), b.close()


def test_a_start_under_two_clocks_waits_for_the_later_and_moves_each_by_its_own_share(shared):
    store, run_id, results = shared
    keys = [r.key for r in results]
    a, b = _worker(store, run_id, keys), _worker(store, run_id, keys)
    rpm, tpm = f"rpm fake/model-{run_id}", f"tpm fake/model-{run_id}"
    first = a.next_start({rpm: 1.0, tpm: 50.0})[0]
    second = b.next_start({rpm: 1.0, tpm: 5.0})[0]  # the tokens of the first call decide, not its rpm slot
    third = a.next_start({rpm: 1.0})[0]  # a start under rpm alone waits for the rpm clock only
    assert (second - first, third - second) == pytest.approx((50.0, 1.0))
    a.close(wait=False), b.close()


def test_pushing_a_clock_moves_the_next_start_of_every_worker(shared):
    store, run_id, results = shared
    keys = [r.key for r in results]
    a, b = _worker(store, run_id, keys), _worker(store, run_id, keys)
    tpm = f"tpm fake/model-{run_id}"
    first = a.next_start({tpm: 10.0})[0]
    a.push_clocks_now({tpm: 30.0})  # the call used three times its estimate
    assert b.next_start({tpm: 10.0})[0] - first == pytest.approx(40.0)
    a.close(wait=False), b.close()


def test_workers_starting_together_on_a_new_store_all_join(postgres_server):
    url = postgres_server.new_url()
    run = make_run(1, 1, run_id="together", status="running")
    with Store(url) as store:
        store.create_run(run)
    stores, failures = [Store(url) for _ in range(6)], []

    def join(store: Store) -> None:
        try:
            Claims(store, run.info.id).close()
        except Exception as e:  # noqa: BLE001 - collected for the assertion
            failures.append(e)

    threads = [threading.Thread(target=join, args=(store,)) for store in stores]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for store in stores:
        store.close()
    assert failures == []


def test_a_worker_closing_while_a_live_worker_holds_slots_sees_it_renew_its_lease(shared):
    store, run_id, results = shared
    keys = [r.key for r in results]
    leaving, staying = _worker(store, run_id, keys), _worker(store, run_id, keys, lease_s=0.6)
    staying.claim(1, results[0].contender)
    leaving.close()
    assert leaving.others_live and leaving.left == len(keys)
    staying.close()
    assert not staying.others_live and staying.left == len(keys)


def test_a_worker_stopped_by_its_user_counts_any_live_lease_as_a_live_worker(shared):
    store, run_id, results = shared
    keys = [r.key for r in results]
    leaving, dead = _worker(store, run_id, keys), Claims(store, run_id, lease_s=30.0)  # never renews
    dead.claim(1, results[0].contender)
    leaving.close(wait=False)
    assert leaving.others_live


def test_the_last_worker_closing_waits_out_a_dead_workers_lease_and_sees_no_one_live(shared):
    store, run_id, results = shared
    keys = [r.key for r in results]
    last, dead = _worker(store, run_id, keys), Claims(store, run_id, lease_s=0.5)  # never renews
    dead.claim(2, results[0].contender)
    last.close()
    assert not last.others_live and last.left == len(keys)


def test_a_worker_closing_tells_the_pairwise_phase_left_once_every_result_is_stored(shared):
    store, run_id, results = shared
    claims = _worker(store, run_id, [*(r.key for r in results), PAIRWISE_SLOT])
    for contender in {r.contender for r in results}:
        claims.claim(len(results), contender)
    rows = store.result_rows(run_id)
    claims.store_rows([rows(r) for r in results])
    claims.close()
    assert (claims.left, claims.pairwise_left) == (0, True)
