"""Runs with a pairwise judge: over real HTTP (the local OpenAI-compatible server) and with fake judges.

The swap rule end to end (a judge that follows the answers gives wins; one that follows the position gives
inconsistent verdicts), a reply that is no verdict, a 429 on the judge, the judge's cost apart from the
contenders', checks at load and verify time, and the pairwise phase of ``evalcore rescore``."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from evalcore.core.errors import ConfigError
from evalcore.execution.plan import Replay, RunOptions, make_plan
from evalcore.execution.rescore import rescore_plan
from evalcore.execution.runner import run_suite
from evalcore.execution.verify import verify_suite
from evalcore.models.llm import litellm_module
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.openai_server import OpenAIServer

GOOD, BAD = "openai/good", "openai/bad"
JUDGE = "openai/gpt-4o-mini"  # priced by litellm's own price map
PRICES = {"input_cost_per_token": 0.001, "output_cost_per_token": 0.002}
ANSWERS = {"good": "Yes, you can return it within 30 days for a refund.", "bad": "No."}


def write_suite(root: Path, server: OpenAIServer, pairwise: dict[str, Any], cases: int = 2, **extra: Any) -> Path:
    config = {
        "suite": "paired",
        "adapter": "chat",
        "scorers": ["non_empty"],
        "run": {"max_attempts": 3, "backoff_s": 0, "concurrency": 2},
        "lineup": [{"model": m, "api_base": server.base_url, "prices": PRICES} for m in (GOOD, BAD)],
        "pairwise": {"api_base": server.base_url, **pairwise},
        **extra,
    }
    root.mkdir(parents=True)
    (root / "evalcore.yaml").write_text(json.dumps(config))
    dataset = root / "datasets" / "tickets"
    dataset.mkdir(parents=True)
    lines = [
        json.dumps({"id": f"r{i:02d}", "input": "Customer: can I return it?", "expected": ANSWERS["good"]})
        for i in range(cases)
    ]
    (dataset / "cases.jsonl").write_text("\n".join(lines) + "\n")
    return root


def judged_by(pick: Any) -> Any:
    """Server content: the judge's reply from ``pick(answer A, answer B)``, each contender's own answer."""

    def content(body: dict[str, Any]) -> str:
        if body.get("model") != "gpt-4o-mini":
            return ANSWERS[body["model"]]
        prompt = body["messages"][1]["content"]
        first = prompt.split("<answer_a>\n")[1].split("\n</answer_a>")[0]
        second = prompt.split("<answer_b>\n")[1].split("\n</answer_b>")[0]
        return pick(first, second)

    return content


def winner(name: str) -> str:
    return json.dumps({"winner": name, "reasoning": "compared"})


def fair(first: str, second: str) -> str:
    return winner("A" if len(first) > len(second) else "B")


def run(tmp_path: Path, server: OpenAIServer, **pairwise: Any) -> Any:
    store = Store(tmp_path / "evalcore.db")
    plan = make_plan(load_suite(write_suite(tmp_path / "suite", server, {"model": JUDGE, **pairwise})))
    run_id, status = run_suite(plan, store)
    assert status == "completed"
    return store, store.load_run(run_id)


def test_a_judge_that_prefers_the_better_answer_in_both_orders_records_a_win(tmp_path, openai_server):
    openai_server.content = judged_by(fair)
    _, stored = run(tmp_path, openai_server)
    assert [(v.case, v.a, v.b, v.outcome, v.orders) for v in stored.pairwise] == [
        ("r00", GOOD, BAD, "win", ["a", "a"]),
        ("r01", GOOD, BAD, "win", ["a", "a"]),
    ]
    verdict = stored.pairwise[0]
    assert verdict.judge == JUDGE and verdict.error is None
    assert [c["choice"] for c in verdict.calls] == ["A", "B"]  # good first, then good second
    assert ANSWERS["good"] in verdict.calls[0]["messages"][1]["content"]
    judged = [r for r in openai_server.requests if r["model"] == "gpt-4o-mini"]
    assert len(judged) == 4 and judged[0]["response_format"] == {"type": "json_object"}


def test_a_judge_that_prefers_whatever_it_reads_first_gives_inconsistent_verdicts(tmp_path, openai_server):
    openai_server.content = judged_by(lambda first, second: winner("A"))
    _, stored = run(tmp_path, openai_server)
    assert [(v.outcome, v.orders) for v in stored.pairwise] == [("inconsistent", ["a", "b"])] * 2


def test_a_judge_reply_that_is_not_json_is_an_error_of_kind_judge(tmp_path, openai_server):
    openai_server.content = judged_by(lambda first, second: "A is better.")
    _, stored = run(tmp_path, openai_server)
    assert all(v.outcome is None and v.error.kind == "judge" for v in stored.pairwise)
    assert "reply is not JSON" in stored.pairwise[0].error.message
    assert all(r.status == "scored" for r in stored.results)  # the contenders' answers stand


def test_a_429_on_the_judge_is_retried_and_counted_in_its_attempts(tmp_path, openai_server):
    openai_server.content = judged_by(fair)
    # Two contenders' calls per case with one case, then the judge's first attempt is refused.
    pairwise = {"samples": 1}
    store = Store(tmp_path / "evalcore.db")
    plan = make_plan(load_suite(write_suite(tmp_path / "suite", openai_server, {"model": JUDGE, **pairwise}, cases=1)))
    plan.concurrency = 1
    openai_server.script("ok", "ok", "status:429:0")
    run_id, _ = run_suite(plan, store)
    (verdict,) = store.load_run(run_id).pairwise
    assert verdict.outcome == "win"
    assert sorted(c["attempts"] for c in verdict.calls) == [1, 2]
    assert Counter(openai_server.served)["status:429:0"] == 1


def test_the_judges_cost_is_kept_apart_from_the_contenders(tmp_path, openai_server):
    openai_server.content = judged_by(fair)
    _, stored = run(tmp_path, openai_server)
    price = litellm_module().get_model_info("gpt-4o-mini")
    for verdict in stored.pairwise:
        expected = sum(
            c["input_tokens"] * price["input_cost_per_token"] + c["output_tokens"] * price["output_cost_per_token"]
            for c in verdict.calls
        )
        assert verdict.cost_usd == pytest.approx(expected) and expected > 0
        assert verdict.latency_s > 0
    for result in stored.results:  # the suite's prices, the contender's own tokens
        usage = result.usage
        assert usage.cost_usd == pytest.approx(usage.input_tokens * 0.001 + usage.output_tokens * 0.002)


def test_fake_judges_compare_offline_and_a_biased_one_shows_inconsistent_verdicts(tmp_path, openai_server):
    openai_server.content = judged_by(fair)
    _, fair_run = run(tmp_path / "fair", openai_server, model="fake/judge")
    assert {v.outcome for v in fair_run.pairwise} == {"win"}
    store = Store(tmp_path / "biased.db")
    plan = make_plan(load_suite(write_suite(tmp_path / "b", openai_server, {"model": "fake/judge-biased"}, cases=24)))
    run_id, _ = run_suite(plan, store)
    outcomes = Counter(v.outcome for v in store.load_run(run_id).pairwise)
    assert outcomes["win"] > 0 and outcomes["inconsistent"] > 0 and outcomes["loss"] == 0
    assert not [r for r in openai_server.requests if r["model"] == "gpt-4o-mini"]


def test_a_baseline_compares_each_contender_with_it(tmp_path, openai_server):
    openai_server.content = judged_by(fair)
    _, stored = run(tmp_path, openai_server, baseline=BAD)
    assert {(v.a, v.b) for v in stored.pairwise} == {(BAD, GOOD)}
    assert {v.outcome for v in stored.pairwise} == {"loss"}


def test_a_baseline_that_is_no_contender_is_refused_by_verify_and_before_a_run(tmp_path, openai_server):
    suite = write_suite(tmp_path / "suite", openai_server, {"model": "fake/judge", "baseline": "openai/nobody"})
    report = verify_suite(suite)
    assert not report.ok
    assert any("evalcore.yaml: pairwise.baseline: 'openai/nobody' is not a contender id" in x for x in report.lines)
    with pytest.raises(ConfigError, match="pairwise.baseline"):
        run_suite(make_plan(load_suite(suite)), Store(tmp_path / "evalcore.db"))
    assert openai_server.requests == []


def test_verify_names_the_pairwise_judge_and_its_pairs(tmp_path, openai_server):
    report = verify_suite(write_suite(tmp_path / "suite", openai_server, {"model": "fake/judge"}))
    assert report.ok
    assert "pairwise: fake/judge compares 1 pair (every pair), in both orders" in report.lines


@pytest.mark.parametrize(
    ("pairwise", "problem"),
    [
        ({"model": "fake/judge", "judges": 2}, "pairwise.judges"),
        ({"model": "fake/judge", "reference": "input"}, "pairwise.reference"),
        ({"model": "fake/judge", "samples": 0}, "pairwise.samples"),
        ({"rubric": "x"}, "pairwise.model"),
    ],
)
def test_a_bad_pairwise_block_is_refused_at_load_naming_file_and_key(tmp_path, openai_server, pairwise, problem):
    suite = write_suite(tmp_path / "suite", openai_server, {})
    config = json.loads((suite / "evalcore.yaml").read_text())
    config["pairwise"] = pairwise
    (suite / "evalcore.yaml").write_text(json.dumps(config))
    with pytest.raises(ConfigError) as caught:
        load_suite(suite)
    message = str(caught.value)
    assert message.startswith(str(suite / "evalcore.yaml")) and problem in message and "\n" not in message


def test_rescore_judges_the_pairs_again_and_the_cache_reuses_every_stored_call(tmp_path, openai_server):
    openai_server.content = judged_by(fair)
    store, stored = run(tmp_path, openai_server)
    before = len(openai_server.requests)
    suite = load_suite(tmp_path / "suite")
    options = RunOptions(judge_cache=True)
    run_id, status = run_suite(rescore_plan(Replay(stored), suite, options), store)
    assert status == "completed"
    again = store.load_run(run_id)
    assert len(openai_server.requests) == before  # no contender call, no judge call
    assert [(v.key, v.outcome, v.orders) for v in again.pairwise] == [
        (v.key, v.outcome, v.orders) for v in stored.pairwise
    ]
    assert all(c["cached"] for v in again.pairwise for c in v.calls)
    run_id, _ = run_suite(rescore_plan(Replay(stored), suite, RunOptions()), store)
    judged = [r for r in openai_server.requests[before:] if r["model"] == "gpt-4o-mini"]
    assert len(openai_server.requests) - before == len(judged) == 4  # only the judge is asked again


def test_the_pairwise_judge_goes_through_the_rate_limit_of_its_model(tmp_path, openai_server, monkeypatch):
    from evalcore.models import limits

    seen: list[str] = []
    original = limits.Budget.acquire

    async def spy(self: limits.Budget, charge: limits.Charge, on_wait: Any = None) -> None:
        await original(self, charge, on_wait)
        seen.append(self.limit.key)

    monkeypatch.setattr(limits.Budget, "acquire", spy)
    openai_server.content = judged_by(fair)
    suite = write_suite(tmp_path / "suite", openai_server, {"model": JUDGE}, limits={JUDGE: {"rpm": 6000}})
    _, status = run_suite(make_plan(load_suite(suite)), Store(tmp_path / "evalcore.db"))
    assert status == "completed"
    assert seen == [JUDGE] * 4  # two cases, one pair, both orders: each judge call started under the limit


def test_a_cap_stops_the_comparisons_unjudged_and_a_resume_compares_the_rest_once(tmp_path, openai_server):
    import asyncio

    from evalcore.execution.estimate import estimate_cost
    from evalcore.execution.runner import execute_plan, resume_plan

    openai_server.content = judged_by(fair)
    # A judge priced at a dollar a token: the cap leaves room for the contenders' calls and no judge call.
    dear = {JUDGE: {"input_cost_per_token": 1.0, "output_cost_per_token": 1.0}}
    suite = load_suite(write_suite(tmp_path / "suite", openai_server, {"model": JUDGE}, cases=4, prices=dear))
    store = Store(tmp_path / "evalcore.db")
    cap = estimate_cost(make_plan(suite)) * 1.01  # the contenders' calls reserve their estimate each
    run_id, status = run_suite(make_plan(suite, RunOptions(max_cost_usd=cap)), store)
    stopped = store.load_run(run_id)
    assert status == "interrupted" and stopped.info.settings["stopped_by"] == "budget"
    assert "not judged" in stopped.info.settings["stop_reason"]
    assert len(stopped.results) == 8 and stopped.pairwise == []  # every answer kept, no verdict invented
    assert all(r.get("response_format") is None for r in openai_server.requests)  # no judge call started
    asked = len(openai_server.requests)
    plan, header, done = resume_plan(store, run_id, max_cost_usd=1e9)
    assert asyncio.run(execute_plan(plan, store, header, done)) == "completed"
    finished = store.load_run(run_id)
    assert len(finished.pairwise) == 4 and all(v.outcome is not None for v in finished.pairwise)
    assert len({(v.dataset, v.case, v.sample, v.a, v.b) for v in finished.pairwise}) == 4
    assert len(openai_server.requests) - asked == 8  # no contender asked again: two judge calls per comparison


def test_a_runs_stored_spend_counts_its_pairwise_judges_calls(tmp_path, openai_server):
    from evalcore.storage.spend import stored_spend

    openai_server.content = judged_by(fair)
    store, stored = run(tmp_path, openai_server)
    answers = sum(r.usage.cost_usd for r in stored.results)
    comparisons = sum(v.cost_usd for v in stored.pairwise)
    assert comparisons > 0 and stored_spend(store, stored.info.id) == pytest.approx(answers + comparisons)
