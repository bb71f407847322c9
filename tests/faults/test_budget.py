"""The fault matrix of the budget cap: every kind of model call a run makes (an agent's steps, an LLM judge's,
a pairwise judge's) is held to ``--max-cost``. Each row runs a real ``evalcore run`` process under a cap its
calls pass, then checks :func:`~tests.faults.invariants.assert_holds`: exit 1, the run stored ``interrupted``
(stopped by the budget), the stored spend within the cap plus one call per open slot, and what the process said
it spent is what the store holds (nothing paid lost silently)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from evalcore.storage.spend import stored_spend
from evalcore.storage.store import Store
from tests.agents import CASES as AGENT_CASES
from tests.agents import agent_suite
from tests.faults.invariants import Outcome, assert_holds, run_cli
from tests.openai_server import completion, tool_completion

SPENT = re.compile(r"budget cap reached: spent \$([0-9.]+) of")


def capped(suite: Path, db: Path, cap: float) -> Outcome:
    return run_cli("run", suite, "--db", db, "--quiet", "--max-cost", cap, timeout=120)


def stored(db: Path) -> tuple[str, dict[str, Any], float, Any]:
    """The run's status, settings, stored spend and the run itself."""
    (info,) = Store(db).list_runs()
    run = Store(db).load_run(info["id"])
    return info["status"], run.info.settings, stored_spend(Store(db), info["id"]), run


def said_spent(outcome: Outcome) -> float:
    found = SPENT.search(outcome.output)
    assert found, f"the output does not say what was spent:\n{outcome.output[-2000:]}"
    return float(found.group(1))


def assert_capped(outcome: Outcome, db: Path, cap: float, slack: float) -> Any:
    status, settings, spent, run = stored(db)
    assert_holds(
        outcome, exit_codes=[1], within_s=90, status="interrupted", stored_status=status,
        spent=spent, cap=cap, slack=slack, says=["budget cap reached", "--max-cost <more than"],
    )  # fmt: skip
    assert settings["stopped_by"] == "budget"
    assert abs(said_spent(outcome) - spent) <= 1e-6  # what was paid is what is stored
    return run


def test_an_agents_steps_are_held_to_the_cap(tmp_path: Path, tmp_db: Path):
    cases = [(f"status/{i:02d}", AGENT_CASES[0][1], AGENT_CASES[0][2]) for i in range(12)]
    suite = agent_suite(tmp_path / "s", [{"model": "fake/agent-loops"}], options={"max_steps": 40}, cases=cases)
    outcome = capped(suite, tmp_db, 0.002)
    _, _, _, run = stored(tmp_db)
    steps = [s["cost_usd"] for r in run.results for s in (r.trace or []) if s["kind"] == "model"]
    run = assert_capped(outcome, tmp_db, 0.002, slack=2 * max(steps, default=0.0))  # concurrency 2
    unfinished = [r for r in run.results if r.error is not None]
    assert all(r.error.message.startswith("not finished: the budget cap was reached") for r in unfinished)


def judged_suite(root: Path, pairwise: bool = False) -> Path:
    """30 questions answered by two fake contenders, judged by a fake LLM judge (or compared by a pairwise one)."""
    config: dict[str, Any] = {
        "suite": "judged",
        "adapter": "chat",
        "instructions": "Answer the customer.",
        "run": {"max_attempts": 1, "backoff_s": 0, "concurrency": 3},
        "lineup": [{"model": "fake/oracle"}, {"model": "fake/guesser"}],
    }
    if pairwise:
        config |= {"scorer": "non_empty", "pairwise": {"model": "fake/judge-strict"}}
    else:
        config |= {"scorers": [{"name": "llm_judge", "options": {"model": "fake/judge-strict"}}]}
    root.mkdir(parents=True)
    (root / "evalcore.yaml").write_text(json.dumps(config))
    (root / "datasets" / "tickets").mkdir(parents=True)
    question = "Can I return an item within 30 days of delivery? " * 10
    lines = [json.dumps({"id": f"q{i:03d}", "input": question, "expected": "Yes, within 30 days."}) for i in range(30)]
    (root / "datasets" / "tickets" / "cases.jsonl").write_text("\n".join(lines) + "\n")
    return root


def test_an_llm_judges_calls_are_held_to_the_cap(tmp_path: Path, tmp_db: Path):
    suite = judged_suite(tmp_path / "s")
    free = run_cli("run", suite, "--db", tmp_path / "free.db", "--quiet", timeout=120)
    assert free.exit_code == 0, free.output
    _, _, whole, run = stored(tmp_path / "free.db")
    judged = max(sum(j.get("cost_usd") or 0 for j in r.diagnostics["judge"]["judges"]) for r in run.results)
    call = max((r.usage.cost_usd or 0.0) + judged for r in run.results)
    outcome = capped(suite, tmp_db, round(whole / 3, 6))
    assert_capped(outcome, tmp_db, round(whole / 3, 6), slack=2 * 3 * call)  # parallelism × concurrency slots


def test_a_pairwise_judges_calls_are_held_to_the_cap(tmp_path: Path, tmp_db: Path):
    suite = judged_suite(tmp_path / "s", pairwise=True)
    free = run_cli("run", suite, "--db", tmp_path / "free.db", "--quiet", timeout=120)
    assert free.exit_code == 0, free.output
    _, _, whole, run = stored(tmp_path / "free.db")
    answers = sum(r.usage.cost_usd or 0.0 for r in run.results)
    judging = max(c.get("cost_usd") or 0.0 for v in run.pairwise for c in v.calls)
    assert whole - answers > 10 * judging  # the comparisons are most of what the cap has to hold
    cap = round(answers + (whole - answers) / 2, 6)  # every answer, half the comparisons
    run = assert_capped(capped(suite, tmp_db, cap), tmp_db, cap, slack=3 * judging)  # concurrency comparisons
    assert len(run.results) == 60 and 0 < len(run.pairwise) < 30  # every answer kept, some comparisons left


def test_an_agent_over_real_http_is_held_to_the_cap_and_every_step_it_paid_for_is_stored(
    tmp_path: Path, tmp_db: Path, openai_server
):
    openai_server.tool_calls = [{"name": "lookup_order", "arguments": {"order_id": "A17"}}]  # it never answers
    prices = {"input_cost_per_token": 1e-5, "output_cost_per_token": 3e-5}
    lineup = [{"model": "openai/agent-loops", "api_base": openai_server.base_url, "prices": prices}]
    cases = [(f"status/{i:02d}", AGENT_CASES[0][1], AGENT_CASES[0][2]) for i in range(10)]
    suite = agent_suite(tmp_path / "s", lineup, options={"max_steps": 6}, cases=cases)
    outcome = capped(suite, tmp_db, 0.01)
    _, _, _, run = stored(tmp_db)
    steps = [s for r in run.results for s in (r.trace or []) if s["kind"] == "model"]
    unfinished = [r for r in run.results if r.error is not None]
    assert unfinished and all(r.error.message.startswith("not finished: ") for r in unfinished)
    assert_holds(
        outcome, exit_codes=[1], within_s=90, paid=openai_server.calls,
        stored=len(steps) + sum(r.attempts for r in unfinished),
    )  # fmt: skip
    assert_capped(outcome, tmp_db, 0.01, slack=2 * max(s["cost_usd"] for s in steps))  # concurrency 2


def server_cost(server: Any, prices: dict[str, float]) -> float:
    """What the calls ``server`` received cost at ``prices``, from the usage its replies reported."""
    total = 0.0
    for body in server.requests:
        reply = tool_completion(body, server.tool_calls) if body.get("tools") else completion(body, server.content)
        usage = reply["usage"]
        total += usage["prompt_tokens"] * prices["input_cost_per_token"]
        total += usage["completion_tokens"] * prices["output_cost_per_token"]
    return total


def test_a_resumed_run_records_what_the_steps_of_its_cases_stopped_midway_cost(
    tmp_path: Path, tmp_db: Path, openai_server
):
    openai_server.tool_calls = [{"name": "lookup_order", "arguments": {"order_id": "A17"}}]  # it never answers
    prices = {"input_cost_per_token": 1e-5, "output_cost_per_token": 3e-5}
    lineup = [{"model": "openai/agent-loops", "api_base": openai_server.base_url, "prices": prices}]
    cases = [(f"status/{i:02d}", AGENT_CASES[0][1], AGENT_CASES[0][2]) for i in range(10)]
    suite = agent_suite(tmp_path / "s", lineup, options={"max_steps": 6}, cases=cases)
    first = capped(suite, tmp_db, 0.01)
    _, _, _, run = stored(tmp_db)
    assert first.exit_code == 1 and any(r.error and r.error.message.startswith("not finished: ") for r in run.results)
    resumed = run_cli("run", "--resume", run.info.id, "--db", tmp_db, "--quiet", "--max-cost", 1, timeout=120)
    status, _, spent, run = stored(tmp_db)
    assert not [r for r in run.results if r.error and r.error.message.startswith("not finished: ")]
    paid = server_cost(openai_server, prices)
    assert_holds(resumed, exit_codes=[0, 1], within_s=90, status="completed", stored_status=status, spent=spent, cap=1)
    assert abs(spent - paid) <= 1e-9, f"the run records ${spent:.6f}, its calls cost ${paid:.6f}"


def test_a_comparison_the_cap_stopped_after_its_first_order_keeps_what_that_order_cost(tmp_path: Path, tmp_db: Path):
    suite = judged_suite(tmp_path / "s", pairwise=True)
    config = json.loads((suite / "evalcore.yaml").read_text())
    config["run"]["concurrency"] = 1  # one comparison at a time: its first order reserves, then its second
    (suite / "evalcore.yaml").write_text(json.dumps(config))
    free = run_cli("run", suite, "--db", tmp_path / "free.db", "--quiet", timeout=120)
    assert free.exit_code == 0, free.output
    _, _, whole, run = stored(tmp_path / "free.db")
    answers = sum(r.usage.cost_usd or 0.0 for r in run.results)
    order = max(c.get("cost_usd") or 0.0 for v in run.pairwise for c in v.calls)
    first, second = (c["cost_usd"] for c in run.pairwise[15].calls)  # asked one after the other, as stored
    cap = round(answers + sum(v.cost_usd or 0.0 for v in run.pairwise[:15]) + first + second / 2, 7)
    outcome = capped(suite, tmp_db, cap)
    run = assert_capped(outcome, tmp_db, cap, slack=2 * order)  # what was paid is what is stored
    halves = [v for v in run.pairwise if any(c.get("not_called") for c in v.calls)]
    assert len(halves) == 1 and (halves[0].cost_usd or 0.0) > 0  # stored with its paid order, never as a verdict
    assert halves[0].outcome is None
    resumed = run_cli("run", "--resume", run.info.id, "--db", tmp_db, "--quiet", "--max-cost", 1, timeout=120)
    status, _, spent, run = stored(tmp_db)
    assert_holds(resumed, exit_codes=[0], within_s=90, status="completed", stored_status=status, spent=spent, cap=1)
    assert len(run.pairwise) == 30 and not [v for v in run.pairwise if v.error is not None]
    assert abs(spent - whole) <= 1e-9  # the paid order was kept, not asked and paid for again


ASKER_PY = '''
from evalcore.scoring.adapters import ChatAdapter


class Asker(ChatAdapter):
    """Asks a model of its own (a user simulator) before the contender."""

    def __init__(self, api_base: str):
        super().__init__()
        self.api_base = api_base

    async def call(self, case, contender, client):
        await client.complete(model="openai/simulator", api_base=self.api_base)
        return await client.complete()
'''


def test_a_model_an_adapter_asks_with_no_known_price_is_not_called_under_a_cap(tmp_path: Path, openai_server):
    suite = judged_suite(tmp_path / "s")
    config = json.loads((suite / "evalcore.yaml").read_text())
    config |= {"adapter": {"name": "asker:Asker", "options": {"api_base": openai_server.base_url}}}
    config |= {"scorer": "non_empty", "lineup": [{"model": "fake/oracle"}]}
    config.pop("scorers")
    (suite / "asker.py").write_text(ASKER_PY)
    (suite / "evalcore.yaml").write_text(json.dumps(config))
    outcome = capped(suite, tmp_path / "a.db", 1)
    assert_holds(outcome, exit_codes=[1], within_s=90, paid=openai_server.calls, stored=0)
    assert openai_server.calls == 0, "a call the cap could not bound was made"
    _, _, _, run = stored(tmp_path / "a.db")
    assert all(r.error is not None and "no price is known for openai/simulator" in r.error.message for r in run.results)

    config["prices"] = {"openai/simulator": {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}}
    (suite / "evalcore.yaml").write_text(json.dumps(config))
    outcome = capped(suite, tmp_path / "b.db", 1)
    _, _, spent, run = stored(tmp_path / "b.db")
    assert_holds(outcome, exit_codes=[0], within_s=90, spent=spent, cap=1)
    assert openai_server.calls == 30 and spent > sum(r.usage.cost_usd or 0.0 for r in run.results) - 1e-12
