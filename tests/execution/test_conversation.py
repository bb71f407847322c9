"""Conversation cases in a run: each turn sent the conversation so far, scores per turn and for the whole, the
simulated user's calls kept apart, a failed turn an error that keeps what was paid."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from evalcore.core.errors import CallFailed
from evalcore.core.records import Usage
from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.runner import run_suite
from evalcore.models import registry
from evalcore.models.fake_chat import FakeChatProvider
from evalcore.models.registry import register_provider
from evalcore.models.types import Reply, Request
from evalcore.storage.store import Store
from evalcore.suite.lineup import Overrides
from evalcore.suite.loader import load_suite

BUNDLED = Path(__file__).resolve().parents[2] / "data" / "suites" / "support-chat"


class Recording:
    """A provider that answers like the fake bots (or the fake user) and keeps every request; it fails the calls
    whose number is in ``fail_on`` (1-based)."""

    def __init__(self, as_model: str, fail_on: tuple[int, ...] = ()):
        self.as_model, self.fail_on, self.requests = as_model, fail_on, []
        self.inner = FakeChatProvider()

    def refusal(self, model: str, settings: dict[str, Any]) -> str | None:
        return None

    def missing_keys(self, model: str, api_base: str | None) -> list[str]:
        return []

    def takes_images(self, model: str) -> bool:
        return False

    async def complete(self, request: Request) -> Reply:
        self.requests.append(request)
        if len(self.requests) in self.fail_on:
            raise CallFailed("transport", "connection reset (test)", attempts=1, latency_s=0.0)
        contender = type(request.contender)(self.as_model, self.as_model, dict(request.contender.settings))
        reply = await self.inner.complete(type(request)(**{**request.__dict__, "contender": contender}))
        reply.usage = Usage(10, 5, 0.001)
        return reply


@pytest.fixture(autouse=True)
def _instant(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")
    monkeypatch.setattr(registry, "_PROVIDERS", {})


def _suite(tmp_path: Path, datasets: tuple[str, ...] = ("scripted", "simulated")) -> Path:
    root = tmp_path / "chat"
    shutil.copytree(BUNDLED, root)
    for name in {"scripted", "simulated"} - set(datasets):
        shutil.rmtree(root / "datasets" / name)
        config = yaml.safe_load((root / "evalcore.yaml").read_text())
        del config["datasets"][name]
        (root / "evalcore.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    return root


def _run(root: Path, tmp_db: Path, models: list[str], **options: Any) -> list[Any]:
    store = Store(tmp_db)
    plan = make_plan(load_suite(root), RunOptions(overrides=Overrides(models=models), **options))
    run_id, status = run_suite(plan, store)
    assert status == "completed"
    return store.load_run(run_id).results


def test_each_turn_is_sent_the_conversation_so_far(tmp_path: Path, tmp_db: Path):
    bot = Recording("fake/helpdesk")
    register_provider("rec/", bot)
    root = _suite(tmp_path, ("scripted",))
    _run(root, tmp_db, ["rec/bot"], concurrency=1)
    first = [r for r in bot.requests if r.case.id == "refund-one-fact-a-turn"]
    said = [[m["content"] for m in r.messages if m["role"] != "system"] for r in first]
    assert [len(s) for s in said] == [1, 3, 5, 7]
    assert said[3][:5] == said[2]  # a turn's messages begin with every earlier one
    assert said[3][1] == "Could you tell me your order number?"


def test_a_metric_of_a_scripted_case_is_its_mean_over_the_scored_turns(tmp_path: Path, tmp_db: Path):
    [result] = [
        r
        for r in _run(_suite(tmp_path, ("scripted",)), tmp_db, ["fake/helpdesk-unconfirmed"])
        if r.case == "refund-one-fact-a-turn"
    ]
    turns = result.diagnostics["turns"]
    assert [t["metrics"]["contains"] for t in turns] == [1.0, 1.0, 1.0, 0.0]
    assert result.metrics["contains"] == 0.75 and result.metrics["goal_completed"] == 0.0
    assert result.usage.input_tokens > 0 and [s["kind"] for s in result.trace][:2] == ["user", "model"]


def test_a_turn_without_expected_is_not_scored(tmp_path: Path, tmp_db: Path):
    root = _suite(tmp_path, ("scripted",))
    case = root / "datasets" / "scripted" / "cases" / "refund-recall.yaml"
    data = yaml.safe_load(case.read_text())
    data["turns"][1].pop("expected")
    case.write_text(yaml.safe_dump(data))
    [result] = [r for r in _run(root, tmp_db, ["fake/helpdesk-unconfirmed"]) if r.case == "refund-recall"]
    assert [t["turn"] for t in result.diagnostics["turns"]] == [0, 2]
    assert result.metrics["contains"] == 0.5


def test_a_simulated_conversation_ends_when_the_user_says_its_goal_is_met(tmp_path: Path, tmp_db: Path):
    [result] = [r for r in _run(_suite(tmp_path, ("simulated",)), tmp_db, ["fake/helpdesk"]) if r.case == "cooperative"]
    users = [s for s in result.trace if s["kind"] == "user"]
    assert users[-1]["end"] == "done" and result.metrics["goal_completed"] == 1.0
    assert result.metrics["turns"] == pytest.approx(4 / 6)  # four replies of six turns allowed


def test_the_simulators_calls_are_counted_apart_from_the_contenders(tmp_path: Path, tmp_db: Path):
    bot, user = Recording("fake/helpdesk"), Recording("fake/user")
    register_provider("rec/", bot)
    register_provider("sim/", user)
    root = _suite(tmp_path, ("simulated",))
    for path in (root / "datasets" / "simulated" / "cases").glob("*.yaml"):
        path.write_text(path.read_text().replace("model: fake/user", "model: sim/user"))
    results = _run(root, tmp_db, ["rec/bot"])
    assert sum(r.diagnostics["simulator"]["calls"] for r in results) == len(user.requests)
    assert sum(r.usage.cost_usd for r in results) == pytest.approx(0.001 * len(bot.requests))
    assert sum(r.diagnostics["simulator"]["cost_usd"] for r in results) == pytest.approx(0.001 * len(user.requests))


def test_the_simulated_user_never_sees_the_contenders_name(tmp_path: Path, tmp_db: Path):
    user = Recording("fake/user")
    register_provider("sim/", user)
    root = _suite(tmp_path, ("simulated",))
    for path in (root / "datasets" / "simulated" / "cases").glob("*.yaml"):
        path.write_text(path.read_text().replace("model: fake/user", "model: sim/user"))
    _run(root, tmp_db, ["fake/helpdesk"])
    sent = json.dumps([r.messages for r in user.requests])
    assert user.requests and "helpdesk" not in sent


def test_a_failed_turn_makes_the_case_an_error_that_keeps_what_was_paid(tmp_path: Path, tmp_db: Path):
    bot = Recording("fake/helpdesk", fail_on=(3,))
    register_provider("rec/", bot)
    root = _suite(tmp_path, ("scripted",))
    results = _run(root, tmp_db, ["rec/bot"], concurrency=1, max_attempts=1)
    [failed] = [r for r in results if r.status == "error"]
    assert failed.score is None and failed.metrics == {} and failed.error.kind == "transport"
    assert failed.usage.cost_usd == pytest.approx(0.002)  # the two turns answered before the failure
    assert [s["kind"] for s in failed.trace] == ["user", "model", "user", "model", "user"]


def test_a_simulators_failure_names_the_simulated_user(tmp_path: Path, tmp_db: Path):
    user = Recording("fake/user", fail_on=(2,))
    register_provider("sim/", user)
    root = _suite(tmp_path, ("simulated",))
    path = root / "datasets" / "simulated" / "cases" / "cooperative.yaml"
    path.write_text(path.read_text().replace("model: fake/user", "model: sim/user"))
    [failed] = [r for r in _run(root, tmp_db, ["fake/helpdesk"], max_attempts=1) if r.status == "error"]
    assert failed.case == "cooperative" and failed.error.message.startswith("simulated user sim/user: ")
    assert failed.diagnostics["simulator"]["calls"] == 1 and failed.usage.cost_usd > 0


def test_the_budget_cap_covers_the_contender_and_the_simulated_user_together(tmp_path: Path, tmp_db: Path):
    root = _suite(tmp_path, ("simulated",))
    full = _run(root, tmp_db, ["fake/helpdesk"])
    both = sum(r.usage.cost_usd + r.diagnostics["simulator"]["cost_usd"] for r in full)
    cap = both / 2
    store = Store(tmp_path / "capped.db")
    options = RunOptions(overrides=Overrides(models=["fake/helpdesk"]), max_cost_usd=cap, concurrency=1)
    run_id, _ = run_suite(make_plan(load_suite(root), options), store)
    results = store.load_run(run_id).results
    spent = sum((r.usage.cost_usd or 0) + (r.diagnostics.get("simulator") or {}).get("cost_usd", 0) for r in results)
    biggest = max(s["cost_usd"] or 0 for r in full for s in r.trace)
    assert 0 < spent <= cap + biggest  # at most the call in flight past its estimate
    assert sum(r.status == "scored" for r in results) < len(full)


def test_a_replayed_run_scores_every_conversation_as_the_stored_one_without_calling(tmp_path: Path, tmp_db: Path):
    from evalcore.execution.replay import open_replay

    root = _suite(tmp_path)
    store = Store(tmp_db)
    lineup = Overrides(models=["fake/helpdesk", "fake/helpdesk-forgets"])
    first, _ = run_suite(make_plan(load_suite(root), RunOptions(overrides=lineup)), store)
    bot, user = Recording("fake/helpdesk"), Recording("fake/user")
    registry._PROVIDERS.update({"fake/helpdesk": bot, "fake/user": user})  # a call to either would be recorded
    options = RunOptions(overrides=lineup, replay=open_replay(first, store))
    again, status = run_suite(make_plan(load_suite(root), options), store)
    assert status == "completed" and not bot.requests and not user.requests

    def scores(run_id: str) -> dict:
        return {r.key: (r.metrics, r.trace) for r in store.load_run(run_id).results}

    assert scores(again) == scores(first)


def test_a_replay_of_a_run_without_the_conversation_is_a_replay_error(tmp_path: Path, tmp_db: Path):
    from evalcore.execution.replay import open_replay

    root = _suite(tmp_path, ("scripted",))
    store = Store(tmp_db)
    first, _ = run_suite(make_plan(load_suite(root), RunOptions(overrides=Overrides(models=["fake/helpdesk"]))), store)
    options = RunOptions(overrides=Overrides(models=["fake/helpdesk-forgets"]), replay=open_replay(first, store))
    again, _ = run_suite(make_plan(load_suite(root), options), store)
    results = store.load_run(again).results
    assert results and all(r.status == "error" and r.error.kind == "replay" for r in results)


def test_an_agent_keeps_its_tools_in_every_turn_of_a_conversation(tmp_path: Path, tmp_db: Path):
    agent = BUNDLED.parent / "agent"
    root = tmp_path / "agent-chat"
    (root / "datasets" / "chats").mkdir(parents=True)
    shutil.copy(agent / "tools.py", root / "tools.py")
    config = yaml.safe_load((agent / "evalcore.yaml").read_text())
    config |= {"scorers": [{"name": "goal_completed", "primary": True}, "turns"], "datasets": {"chats": {}}}
    config["lineup"] = [{"model": "fake/agent"}]
    config.pop("weighted_score", None)
    config.pop("gate", None)
    (root / "evalcore.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    lookup = {"name": "lookup_order", "arguments": {"order_id": "A17"}}
    case = {"id": "where", "turns": [{"user": "Where is my order A17?"}, {"user": "Is it the blender?"}],
            "expected": {"actions": [lookup], "answer": "Order A17 (blender) is shipped."}}  # fmt: skip
    (root / "datasets" / "chats" / "cases.jsonl").write_text(json.dumps(case) + "\n")
    [result] = _run(root, tmp_db, ["fake/agent"])
    kinds = [(s["kind"], s.get("turn")) for s in result.trace]
    turn = [("model", None), ("tool", None), ("model", None)]  # a call of its tool, then its answer
    assert kinds == [("user", 0), *[(k, 0 if k == "model" else t) for k, t in turn]] + [
        ("user", 1),
        *[(k, 1 if k == "model" else t) for k, t in turn],
    ]
    assert [s["index"] for s in result.trace] == list(range(len(result.trace)))
    assert json.loads(result.raw)["content"] == result.output


def test_a_resume_judges_a_stored_conversation_without_calling_either_side_again(tmp_path: Path, tmp_db: Path):
    import asyncio

    from evalcore.execution.runner import execute_plan, resume_plan

    bot, user = Recording("fake/helpdesk"), Recording("fake/user")
    register_provider("rec/", bot)
    register_provider("sim/", user)
    root = _suite(tmp_path, ("simulated",))
    for path in (root / "datasets" / "simulated" / "cases").glob("*.yaml"):
        path.write_text(path.read_text().replace("model: fake/user", "model: sim/user"))
    config = yaml.safe_load((root / "evalcore.yaml").read_text())
    dead = {"model": "openai/guard-judge", "api_base": "http://127.0.0.1:9/v1", "scale": [1, 5]}
    config["scorers"][-1]["options"] = dead  # knowledge_retention's judge cannot be reached
    config["prices"] = {"openai/guard-judge": {"input_cost_per_token": 1e-6, "output_cost_per_token": 1e-6}}
    config["run"] |= {"concurrency": 1, "parallelism": 1, "max_attempts": 1}
    (root / "evalcore.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    store = Store(tmp_db)
    run_id, status = run_suite(make_plan(load_suite(root), RunOptions(overrides=Overrides(models=["rec/bot"]))), store)
    unjudged = {r.case: r for r in store.load_run(run_id).results}
    assert status == "interrupted" and 0 < len(unjudged) < 4  # the judge's breaker left the other cases unrun
    assert all(r.error.message.startswith("not judged: ") for r in unjudged.values())
    calls = len(bot.requests)

    config["scorers"][-1]["options"] = {"model": "fake/judge", "scale": [1, 5]}  # the judge answers again
    (root / "evalcore.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    plan, stored, done = resume_plan(store, run_id, force=True)
    assert asyncio.run(execute_plan(plan, store, stored, done)) == "completed"
    results = {r.case: r for r in store.load_run(run_id).results}
    assert len(results) == 4 and all(r.status == "scored" for r in results.values())
    assert all(results[case].trace == r.trace for case, r in unjudged.items())
    again = {r.case.id for r in bot.requests[calls:]}
    assert again and not again & set(unjudged)  # the stored conversations' turns were not asked again
