"""The budget cap (``--max-cost``, ``run: {max_cost_usd}``): a run stops before passing it, within one batch of
calls in flight, resumes with a higher cap with no duplicated result, and refuses an unpriced model up front."""

from __future__ import annotations

import asyncio
import dataclasses
from collections import Counter
from pathlib import Path

import pytest

from evalcore.core.errors import ConfigError
from evalcore.core.records import ErrorInfo, Result, Usage
from evalcore.execution.budget import (
    Budget,
    budget_message,
    check_budget,
    left_message,
    open_budget,
    result_cost,
    usd_text,
)
from evalcore.execution.estimate import estimate_plan_cost
from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.runner import Progress, execute_plan, resume_plan, run_suite, start_run
from evalcore.models.metering import Ticket
from evalcore.storage.spend import stored_spend
from evalcore.storage.store import Store
from evalcore.suite.lineup import Overrides
from evalcore.suite.loader import load_suite
from tests.openai_server import OpenAIServer
from tests.suites import CASES, write_suite

FIELDS_REPLY = '{"name": null, "kind": null, "count": null, "amount": null, "urgent": null, "tags": null}'
PRICES = {"input_cost_per_token": 1e-5, "output_cost_per_token": 3e-5}


@pytest.fixture(autouse=True)
def instant_fakes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-budget-0000")


def many_cases(n: int) -> dict[str, tuple[str, dict]]:
    text, expected = CASES["complete/001"]
    return {f"complete/{i:03d}": (text, expected) for i in range(n)}


def fake_suite(tmp_path: Path, run: dict | None = None, n: int = 40) -> Path:
    return write_suite(tmp_path / "suite", {"run": {"max_attempts": 2, "backoff_s": 0, **(run or {})}}, many_cases(n))


def keys(results: list[Result]) -> Counter:
    return Counter((r.contender, r.dataset, r.case, r.sample) for r in results)


def capped_run(tmp_path: Path, db: Path, cap: float, parallelism: int = 2, concurrency: int = 3):
    plan = make_plan(
        load_suite(fake_suite(tmp_path)),
        RunOptions(parallelism=parallelism, concurrency=concurrency, max_cost_usd=cap),
    )
    seen: list[Progress] = []
    run_id, status = run_suite(plan, Store(db), on_progress=seen.append)
    return plan, run_id, status, seen[-1]


def test_the_cap_stops_a_run_of_fake_models_within_one_batch_of_calls(tmp_path, tmp_db):
    whole = Store(tmp_db)
    uncapped = make_plan(load_suite(fake_suite(tmp_path)))
    full_id, _ = run_suite(uncapped, whole)
    costs = [r.usage.cost_usd or 0.0 for r in whole.load_run(full_id).results]
    cap = sum(costs) / 3
    plan, run_id, status, progress = capped_run(tmp_path, tmp_db, cap)

    stored = Store(tmp_db).load_run(run_id)
    spent = sum(r.usage.cost_usd or 0.0 for r in stored.results)
    batch = plan.parallelism * plan.concurrency  # calls in flight at once
    assert status == "interrupted"
    assert spent <= cap + batch * max(costs)
    assert spent >= cap - (batch + 1) * max(costs)  # it did not stop long before the cap either
    assert 0 < len(stored.results) < plan.calls
    assert progress.over_budget == plan.calls - len(stored.results)
    assert progress.spent_usd == pytest.approx(spent)
    assert progress.cap_usd == cap
    # Unrun cases are never stored: no made-up error stands for a call that was not made.
    assert all(r.attempts >= 1 and r.status == "scored" for r in stored.results)
    assert stored.info.settings["max_cost_usd"] == cap
    assert stored.info.settings["stopped_by"] == "budget"
    reason = stored.info.settings["stop_reason"]
    assert reason.startswith("budget cap reached: spent $")
    assert f"{plan.calls - len(stored.results)} cases not called" in reason
    assert f"evalcore run --resume {run_id} --max-cost <more than" in reason


def test_a_resume_with_a_higher_cap_finishes_the_run_with_no_duplicated_result(tmp_path, tmp_db):
    plan, run_id, status, first = capped_run(tmp_path, tmp_db, cap=0.002)
    assert status == "interrupted"
    store = Store(tmp_db)
    before = len(store.load_run(run_id).results)

    resumed, run, done = resume_plan(store, run_id, max_cost_usd=10.0)
    assert resumed.max_cost_usd == 10.0 and len(done) == before
    store.set_status(run_id, "running")
    seen: list[Progress] = []
    assert asyncio.run(execute_plan(resumed, store, run, done, on_progress=seen.append)) == "completed"

    final = store.load_run(run_id)
    counted = keys(final.results)
    assert len(counted) == plan.calls and set(counted.values()) == {1}
    assert final.info.settings["max_cost_usd"] == 10.0
    assert "stopped_by" not in final.info.settings
    # The resumed run's spend starts from what the first part cost: the cap is for the whole run.
    assert seen[-1].spent_usd == pytest.approx(sum(r.usage.cost_usd or 0.0 for r in final.results))


def test_a_resume_keeps_the_recorded_cap_so_a_spent_run_calls_nothing_more(tmp_path, tmp_db):
    _, run_id, _, _ = capped_run(tmp_path, tmp_db, cap=0.002)
    store = Store(tmp_db)
    before = keys(store.load_run(run_id).results)

    plan, run, done = resume_plan(store, run_id)
    assert plan.max_cost_usd == 0.002
    store.set_status(run_id, "running")
    assert asyncio.run(execute_plan(plan, store, run, done)) == "interrupted"
    assert keys(store.load_run(run_id).results) == before


def test_a_resume_with_max_cost_0_lifts_the_cap(tmp_path, tmp_db):
    plan, run_id, _, _ = capped_run(tmp_path, tmp_db, cap=0.002)
    store = Store(tmp_db)
    resumed, run, done = resume_plan(store, run_id, max_cost_usd=0)
    assert resumed.max_cost_usd is None
    store.set_status(run_id, "running")
    assert asyncio.run(execute_plan(resumed, store, run, done)) == "completed"
    final = store.load_run(run_id)
    assert len(final.results) == plan.calls and "max_cost_usd" not in final.info.settings


def test_the_suite_gives_a_cap_and_max_cost_beats_it(tmp_path):
    suite = load_suite(fake_suite(tmp_path, {"max_cost_usd": 0.5}))
    assert make_plan(suite).max_cost_usd == 0.5
    assert make_plan(suite, RunOptions(max_cost_usd=2.0)).max_cost_usd == 2.0
    assert make_plan(suite, RunOptions(max_cost_usd=0)).max_cost_usd is None  # 0: no cap


def test_a_cap_that_is_not_positive_is_refused_naming_the_file_and_key(tmp_path):
    with pytest.raises(ConfigError) as caught:
        load_suite(fake_suite(tmp_path, {"max_cost_usd": 0}))
    assert "evalcore.yaml" in str(caught.value) and "run.max_cost_usd" in str(caught.value)
    suite = load_suite(fake_suite(tmp_path / "ok"))
    with pytest.raises(ConfigError, match="--max-cost -1: give a positive amount"):
        make_plan(suite, RunOptions(max_cost_usd=-1))


def test_no_cap_leaves_a_run_as_it_was(tmp_path, tmp_db):
    seen: list[Progress] = []
    plan = make_plan(load_suite(fake_suite(tmp_path)))
    run_id, status = run_suite(plan, Store(tmp_db), on_progress=seen.append)
    stored = Store(tmp_db).load_run(run_id)
    assert status == "completed" and len(stored.results) == plan.calls
    assert "max_cost_usd" not in stored.info.settings
    assert seen[-1].cap_usd is None and seen[-1].over_budget == 0


def local_suite(tmp_path: Path, server: OpenAIServer, prices: dict | None) -> Path:
    entry = {"model": "openai/budget-test-model", "api_base": server.base_url}
    return write_suite(
        tmp_path / "local",
        {"lineup": [entry | ({"prices": prices} if prices else {})], "run": {"max_attempts": 1, "backoff_s": 0}},
        many_cases(30),
    )


def test_the_cap_stops_calls_to_a_server_by_the_usage_it_reports(tmp_path, tmp_db):
    with OpenAIServer(FIELDS_REPLY) as server:
        suite = load_suite(local_suite(tmp_path, server, PRICES))
        plan = make_plan(suite, RunOptions(concurrency=4, max_cost_usd=0.01))
        run_id, status = run_suite(plan, Store(tmp_db))
        first = server.calls
        stored = Store(tmp_db).load_run(run_id)
        per_call = max(r.usage.cost_usd or 0.0 for r in stored.results)
        spent = sum(r.usage.cost_usd or 0.0 for r in stored.results)
        assert status == "interrupted"
        assert first == len(stored.results) < plan.calls  # every call made is stored, and no more were made
        assert 0.01 - (plan.concurrency + 1) * per_call <= spent <= 0.01 + plan.concurrency * per_call

        store = Store(tmp_db)
        resumed, run, done = resume_plan(store, run_id, max_cost_usd=1.0)
        store.set_status(run_id, "running")
        assert asyncio.run(execute_plan(resumed, store, run, done)) == "completed"
        assert server.calls - first == plan.calls - len(stored.results)
    counted = keys(Store(tmp_db).load_run(run_id).results)
    assert len(counted) == plan.calls and set(counted.values()) == {1}


def test_a_model_with_no_known_price_under_a_cap_is_refused_before_any_call(tmp_path, tmp_db):
    with OpenAIServer(FIELDS_REPLY) as server:
        plan = make_plan(load_suite(local_suite(tmp_path, server, None)), RunOptions(max_cost_usd=1.0))
        with pytest.raises(ConfigError) as caught:
            run_suite(plan, Store(tmp_db))
        assert server.calls == 0
    message = str(caught.value)
    assert "\n" not in message
    assert "evalcore.yaml: no price is known for openai/budget-test-model" in message
    assert "prices: {openai/budget-test-model: {input_cost_per_token:" in message
    assert Store(tmp_db).list_runs() == []


def test_the_suite_s_price_lets_an_unknown_model_run_under_a_cap(tmp_path, tmp_db):
    with OpenAIServer(FIELDS_REPLY) as server:
        suite = write_suite(
            tmp_path / "priced",
            {
                "lineup": [{"model": "openai/budget-test-model", "api_base": server.base_url}],
                "prices": {"openai/budget-test-model": PRICES},
            },
            many_cases(3),
        )
        plan = make_plan(load_suite(suite), RunOptions(max_cost_usd=1.0))
        _, status = run_suite(plan, Store(tmp_db))
        assert status == "completed" and server.calls == 3


def test_without_a_cap_an_unpriced_model_runs_as_before(tmp_path, tmp_db):
    with OpenAIServer(FIELDS_REPLY) as server:
        plan = make_plan(load_suite(local_suite(tmp_path, server, None)), RunOptions(limit=3))
        _, status = run_suite(plan, Store(tmp_db))
        assert status == "completed" and server.calls == 3


def test_judge_calls_count_against_the_cap(tmp_db):
    support = load_suite("data/suites/support")
    plan = make_plan(support, RunOptions(max_cost_usd=1.0, limit=4))
    seen: list[Progress] = []
    run_id, status = run_suite(plan, Store(tmp_db), on_progress=seen.append)
    store = Store(tmp_db)
    own = sum(r.usage.cost_usd or 0.0 for r in store.load_run(run_id).results)
    assert status == "completed"
    spent = stored_spend(store, run_id)
    assert spent > own > 0  # the judges' calls cost too
    assert seen[-1].spent_usd == pytest.approx(spent)


def test_a_budget_reserves_estimates_and_settles_actual_costs():
    budget = Budget(1.0, {"a": 0.4})
    assert budget.reserve("a") == 0.4 and budget.reserve("a") == 0.4
    assert budget.reserve("a") is None and budget.exhausted  # 1.2 would pass the cap
    assert budget.reserve("b") is None  # once refused, nothing more starts
    scored = Result("a", "d", "c", 0, "scored", 1.0, usage=Usage(10, 10, 0.3))
    budget.settle_case(Ticket(0.4), scored)  # no metered call drew on it (an adapter's own HTTP call)
    assert budget.spent_usd == pytest.approx(0.3) and budget.reserved_usd == pytest.approx(0.4)


def test_a_result_s_cost_is_its_calls_and_its_judges():
    unknown = Result("a", "d", "c", 0, "scored", 1.0, usage=Usage(10, 10, None))
    failed = Result("a", "d", "c", 0, "error", None, error=ErrorInfo("timeout", "slow"))
    judge = {"judge": {"judges": [], "cost_usd": 0.02}}
    judged = Result("a", "d", "c", 0, "scored", 1.0, usage=Usage(1, 1, 0.01), diagnostics=judge)
    assert result_cost(unknown, 0.5) == 0.5  # a reply of unknown cost counts its estimate
    assert result_cost(failed, 0.5) == 0.0  # a failed call with no cost was not billed
    assert result_cost(judged, 0.5) == pytest.approx(0.03)
    assert result_cost(judged, 0.5, paid=False) == pytest.approx(0.02)  # a replay pays only its judges


def test_a_replay_under_a_cap_needs_no_price_and_spends_nothing(tmp_path, tmp_db):
    from evalcore.execution.replay import open_replay

    store = Store(tmp_db)
    plan = make_plan(load_suite(fake_suite(tmp_path, n=5)))
    source, _ = run_suite(plan, store)
    options = RunOptions(max_cost_usd=1e-9, overrides=Overrides())
    options.replay = open_replay(source, store)
    replay = make_plan(load_suite(tmp_path / "suite"), options)
    seen: list[Progress] = []
    _, status = run_suite(replay, store, on_progress=seen.append)
    assert status == "completed" and seen[-1].spent_usd == 0.0


def looping_agent_suite(tmp_path: Path, n: int = 12) -> Path:
    from tests.agents import CASES as AGENT_CASES
    from tests.agents import agent_suite

    cases = [(f"status/{i:02d}", AGENT_CASES[0][1], AGENT_CASES[0][2]) for i in range(n)]
    return agent_suite(tmp_path / "agent", [{"model": "fake/agent-loops"}], options={"max_steps": 40}, cases=cases)


def model_steps(results: list[Result]) -> list[dict]:
    return [s for r in results for s in (r.trace or []) if s["kind"] == "model"]


def test_the_cap_holds_every_step_of_an_agent_not_only_a_cases_first_call(tmp_path, tmp_db):
    store = Store(tmp_db)
    plan = make_plan(load_suite(looping_agent_suite(tmp_path)), RunOptions(max_cost_usd=0.002))
    seen: list[Progress] = []
    run_id, status = run_suite(plan, store, on_progress=seen.append)
    run = store.load_run(run_id)
    finished = [r for r in run.results if r.error is None]
    steepest = max(s["cost_usd"] for s in model_steps(finished)) if finished else 0.0
    assert status == "interrupted" and run.info.status == "interrupted" and seen[-1].budget_reached
    assert run.info.settings["stopped_by"] == "budget"
    assert stored_spend(store, run_id) <= 0.002 + plan.concurrency * steepest
    assert seen[-1].spent_usd <= 0.002 + plan.concurrency * steepest


def test_an_agent_case_the_cap_stops_midway_is_stored_unfinished_and_the_resume_calls_it_again(tmp_path, tmp_db):
    store = Store(tmp_db)
    plan = make_plan(load_suite(looping_agent_suite(tmp_path, n=4)), RunOptions(max_cost_usd=0.002))
    run_id, _ = run_suite(plan, store)
    stopped = [r for r in store.load_run(run_id).results if r.error is not None]
    assert stopped and all(r.status == "error" and r.score is None for r in stopped)
    assert all(r.error.message.startswith("not finished: the budget cap was reached") for r in stopped)
    assert all(r.usage.cost_usd and r.usage.cost_usd > 0 for r in stopped)  # what its steps cost is counted
    reason = store.load_run(run_id, results=False).info.settings["stop_reason"]
    assert f"cases not called ({len(stopped)} of them stopped midway)" in reason
    again, run, done = resume_plan(store, run_id, max_cost_usd=5.0)
    assert not {r.key for r in stopped} & done
    status = asyncio.run(execute_plan(again, store, run, done))
    results = store.load_run(run_id).results
    assert status == "completed" and len(results) == 4 and all(r.status == "scored" for r in results)
    assert max(keys(results).values()) == 1


def test_a_budget_may_be_spent_to_the_cap_exactly_but_not_past_it():
    budget = Budget(1.0, {"a": 0.5})
    assert budget.reserve("a") == 0.5 and budget.reserve("a") == 0.5  # 1.0: the cap reached, not passed
    assert budget.exhausted is False  # a run's progress reports it as it is
    assert budget.reserve("a") is None and budget.exhausted is True


def test_a_call_reserves_its_judging_with_it_and_a_contender_with_no_estimate_reserves_only_that():
    budget = Budget(1.0, {"a": 0.4})
    assert budget.reserve("a", extra_usd=0.1) == pytest.approx(0.5)
    assert budget.reserve("unpriced", extra_usd=0.1) == pytest.approx(0.1)
    assert budget.reserved_usd == pytest.approx(0.6)


def test_a_case_whose_cost_is_unknown_is_settled_at_what_its_ticket_reserved():
    budget = Budget(1.0, {"a": 0.4})
    budget.reserve("a")
    budget.settle_case(Ticket(0.4), Result("a", "d", "c", 0, "scored", 1.0, usage=Usage(10, 10, None)))
    assert budget.spent_usd == pytest.approx(0.4) and budget.reserved_usd == 0.0


def test_a_result_s_judges_of_unknown_cost_add_nothing():
    judged = Result("a", "d", "c", 0, "scored", 1.0, usage=Usage(1, 1, 0.01), diagnostics={"judge": {"judges": []}})
    assert result_cost(judged, 0.5) == pytest.approx(0.01)


@pytest.mark.parametrize(
    ("value", "text"), [(5.0, "$5"), (0.05028, "$0.05028"), (0.0000014, "$0.000001"), (12.5, "$12.5"), (0.0, "$0")]
)
def test_dollars_are_shown_to_the_millionth_without_trailing_zeros(value, text):
    assert usd_text(value) == text


@pytest.mark.parametrize(
    ("unrun", "samples", "unjudged", "unfinished", "left"),
    [
        (1, 1, 0, 0, "1 case not called"),
        (2, 1, 0, 0, "2 cases not called"),
        (1, 3, 0, 0, "1 call not called"),
        (40, 3, 0, 0, "40 calls not called"),
        (40, 1, 1, 0, "40 cases not called; 1 reply not judged"),
        (40, 1, 2, 3, "40 cases not called (3 of them stopped midway); 2 replies not judged"),
    ],
)
def test_the_budget_message_says_what_was_left_and_how_to_continue(unrun, samples, unjudged, unfinished, left):
    message = budget_message(0.01023, 0.01, unrun, samples, "RUN", unjudged=unjudged, unfinished=unfinished)
    assert message == (
        f"budget cap reached: spent $0.01023 of $0.01; {left}; continue with evalcore run --resume RUN "
        "--max-cost <more than 0.01>"
    )


def test_the_budget_message_by_default_has_nothing_unjudged_or_stopped_midway():
    assert budget_message(2.0, 2.0, 3, 1, "RUN") == (
        "budget cap reached: spent $2 of $2; 3 cases not called; continue with evalcore run --resume RUN "
        "--max-cost <more than 2>"
    )


@pytest.mark.parametrize(
    ("unrun", "unjudged", "samples", "left"),
    [
        (3, 2, 1, "3 cases not called; 2 replies not judged"),
        (1, 0, 2, "1 call not called"),
        (0, 1, 1, "1 reply not judged"),
        (0, 2, 1, "2 replies not judged"),
    ],
)
def test_what_another_worker_left_undone_is_named_with_how_to_continue(unrun, unjudged, samples, left):
    assert left_message(unrun, unjudged, samples, "RUN") == f"{left}; continue with evalcore run --resume RUN"


def test_a_capped_run_reserves_per_call_its_estimate_over_every_case_and_sample_from_the_store_s_history(
    tmp_path, tmp_db
):
    store = Store(tmp_db)
    suite = load_suite(fake_suite(tmp_path, n=5))
    run_suite(make_plan(suite), store)  # the history the estimate reads
    plan = make_plan(suite, RunOptions(samples=2, max_cost_usd=1.0))
    budget = open_budget(plan, store, start_run(plan, store))
    estimate = {e.contender: e.usd for e in estimate_plan_cost(plan, store).contenders}
    assert estimate != {e.contender: e.usd for e in estimate_plan_cost(plan).contenders}
    assert budget.per_call == pytest.approx({c: usd / (5 * 2) for c, usd in estimate.items()})
    assert (budget.cap_usd, budget.spent_usd, budget.paid) == (1.0, 0.0, True)


def test_a_capped_replay_counts_only_what_its_judges_spent_not_the_replayed_calls(tmp_path, tmp_db):
    from evalcore.execution.replay import open_replay

    store = Store(tmp_db)
    source, _ = run_suite(make_plan(load_suite(fake_suite(tmp_path, n=3))), store)
    options = RunOptions(max_cost_usd=1.0, overrides=Overrides())
    options.replay = open_replay(source, store)
    plan = make_plan(load_suite(tmp_path / "suite"), options)
    replayed, _ = run_suite(plan, store)
    assert stored_spend(store, replayed) > 0  # the stored usage copies the replayed run's
    budget = open_budget(plan, store, store.load_run(replayed, results=False))
    assert (budget.spent_usd, budget.paid) == (0.0, False)


def test_a_capped_replay_of_a_model_with_no_known_price_is_not_refused(tmp_path, tmp_db):
    from evalcore.execution.replay import open_replay

    store = Store(tmp_db)
    source, _ = run_suite(make_plan(load_suite(fake_suite(tmp_path, n=3))), store)
    options = RunOptions(max_cost_usd=1.0, overrides=Overrides())
    options.replay = open_replay(source, store)
    plan = make_plan(load_suite(tmp_path / "suite"), options)
    plan.contenders = [dataclasses.replace(c, model="openai/no-such-model-0000") for c in plan.contenders]
    check_budget(plan)
    with pytest.raises(ConfigError, match="no price is known for openai/no-such-model-0000"):
        check_budget(dataclasses.replace(plan, options=dataclasses.replace(plan.options, replay=None)))
