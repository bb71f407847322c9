"""Adapters that make their own calls, run by the runner: conversations, targets that are no model, faults."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalcore.core.errors import ConfigError
from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.runner import run_suite
from evalcore.execution.verify import verify_suite
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.suites import write_suite

CASES = {"math/001": ("2 + 3", "5"), "math/002": ("10 - 4", "6")}

ADAPTERS = '''
from evalcore.models.types import Reply
from evalcore.scoring.adapters import ChatAdapter, Parsed


class Conversation(ChatAdapter):
    """Asks the contender twice: the question, then "are you sure?"; the second answer counts."""

    name = "conversation"

    async def call(self, case, contender, client):
        first = await client.complete()
        follow_up = [*client.messages, {"role": "assistant", "content": first.text},
                     {"role": "user", "content": "Are you sure?"}]
        second = await client.complete(follow_up)
        return Reply(text=second.text)


class Calculator(ChatAdapter):
    """A target that is no model: evaluates the input itself."""

    name = "calculator"

    async def call(self, case, contender, client):
        left, op, right = case.input.split()
        value = int(left) + int(right) if op == "+" else int(left) - int(right)
        return Reply(text=str(value))


class Shaky(Calculator):
    """Its connection resets on the first try of every case."""

    name = "shaky"
    tried = set()

    async def call(self, case, contender, client):
        if case.id not in self.tried:
            self.tried.add(case.id)
            raise ConnectionResetError("connection reset by peer")
        return await super().call(case, contender, client)


class Broken(Calculator):
    name = "broken"

    async def call(self, case, contender, client):
        raise ValueError("no answer for " + case.id)


class Greeter(ChatAdapter):
    """Reads its reply from a file of the suite folder: a class whose __init__ takes suite_dir gets it."""

    name = "greeter"

    def __init__(self, suite_dir, file="greeting.txt"):
        self.text = (suite_dir / file).read_text()

    async def call(self, case, contender, client):
        return Reply(text=self.text)


class NotAsync(Calculator):
    def call(self, case, contender, client):
        return Reply(text="x")
'''


def suite(root: Path, adapter: str, lineup: list | None = None) -> Path:
    config = {
        "adapter": f"adapters:{adapter}",
        "scorer": "exact",
        "fields": None,
        "instructions": "Answer with the number only.",
        "lineup": lineup or [{"model": "fake/oracle"}],
        "run": {"max_attempts": 3, "backoff_s": 0},
    }
    folder = write_suite(root, config=config, cases=CASES)
    (folder / "adapters.py").write_text(ADAPTERS)
    return folder


def results(root: Path, db: Path) -> list:
    store = Store(db)
    run_id, status = run_suite(make_plan(load_suite(root)), store)
    assert status == "completed"
    return sorted(store.load_run(run_id).results, key=lambda r: r.case)


def test_a_conversation_sums_the_usage_of_its_turns(tmp_path: Path, tmp_db: Path):
    owned = results(suite(tmp_path / "owned", "Conversation"), tmp_db)
    plain = results(suite(tmp_path / "plain", "Calculator", [{"model": "fake/oracle"}]), tmp_path / "other.db")
    assert [(r.score, r.output, r.attempts) for r in owned] == [(1.0, "5", 2), (1.0, "6", 2)]
    single_turn = write_suite(
        tmp_path / "single", config={"adapter": "chat", "scorer": "exact", "fields": None}, cases=CASES
    )
    one = results(single_turn, tmp_path / "single.db")[0]
    assert owned[0].usage.input_tokens > 2 * one.usage.input_tokens > 0
    assert owned[0].usage.cost_usd > one.usage.cost_usd
    assert all(r.usage.input_tokens is None for r in plain)


def test_a_target_that_is_no_model_reports_no_usage(tmp_path: Path, tmp_db: Path):
    found = results(suite(tmp_path / "s", "Calculator"), tmp_db)
    assert [(r.score, r.raw, r.attempts, r.usage.cost_usd) for r in found] == [(1.0, "5", 1, None), (1.0, "6", 1, None)]


def test_a_transient_fault_the_adapter_raises_is_retried(tmp_path: Path, tmp_db: Path):
    found = results(suite(tmp_path / "s", "Shaky"), tmp_db)
    assert [(r.status, r.score, r.attempts) for r in found] == [("scored", 1.0, 2), ("scored", 1.0, 2)]


def test_an_exception_of_the_adapter_is_an_error_result_naming_it(tmp_path: Path, tmp_db: Path):
    found = results(suite(tmp_path / "s", "Broken"), tmp_db)
    assert [(r.status, r.error.kind, r.attempts) for r in found] == [("error", "other", 1), ("error", "other", 1)]
    assert found[0].error.message == "adapter broken: other after 1 attempt: ValueError: no answer for math/001"


def test_an_adapter_class_taking_suite_dir_gets_the_suite_folder_and_its_options(tmp_path: Path, tmp_db: Path):
    root = suite(tmp_path / "s", "Greeter")
    (root / "hello.txt").write_text("5")
    config = (
        (root / "evalcore.yaml")
        .read_text()
        .replace("adapter: adapters:Greeter", "adapter: {name: adapters:Greeter, options: {file: hello.txt}}")
    )
    (root / "evalcore.yaml").write_text(config)
    assert [r.output for r in results(root, tmp_db)] == ["5", "5"]


def test_a_call_method_that_is_not_async_is_refused_at_verify(tmp_path: Path):
    report = verify_suite(suite(tmp_path / "s", "NotAsync"))
    assert not report.ok
    assert report.lines[-1] == (
        "error: evalcore.yaml: adapter: adapters:NotAsync.call must be `async def call(self, case, contender, client)`"
        " (see evalcore.scoring.client.CallingAdapter)"
    )
    with pytest.raises(ConfigError):
        run_suite(make_plan(load_suite(tmp_path / "s"), RunOptions()), Store(tmp_path / "x.db"))
