"""Replay end to end: a stored run (in the store or a run file) answers every call, exactly, with no model called;
what it cannot answer is a ``replay`` error that says why; the new run records what it replayed and resumes."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from evalcore.core.errors import CallFailed
from evalcore.core.records import Result
from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.replay import open_replay, unanswerable
from evalcore.execution.runner import execute_plan, resume_plan, run_suite, start_run
from evalcore.models.fakes import FakeProvider
from evalcore.models.types import Reply, Request
from evalcore.runfile.read import read_run_file
from evalcore.runfile.write import write_run_file
from evalcore.storage.store import Store
from evalcore.suite.lineup import Overrides
from evalcore.suite.loader import load_suite
from tests.openai_server import OpenAIServer
from tests.suites import write_suite

FIELDS_REPLY = '{"name": "Ann", "kind": "a", "count": 2, "amount": 10.5, "urgent": true, "tags": ["x", "y"]}'


def reproduced(result: Result) -> tuple:
    """Everything a replay must reproduce of a result (``started_at`` is the replay's own)."""
    usage = result.usage
    return (
        result.status,
        result.score,
        result.metrics,
        result.output,
        result.raw,
        result.error,
        result.diagnostics,
        (usage.input_tokens, usage.output_tokens, usage.cost_usd),
        result.latency_s,
        result.attempts,
    )


def by_key(store: Store, run_id: str) -> dict[tuple, Result]:
    return {r.key: r for r in store.load_run(run_id).results}


def forbid_models(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on any call to a fake model fails the test: a replay must call none."""
    monkeypatch.setattr(FakeProvider, "complete", _refuse)


async def _refuse(self: FakeProvider, request: Request) -> Reply:
    raise AssertionError(f"a replay called {request.contender.model}")


def first_run(tmp_path: Path, config: dict | None = None) -> tuple[Path, Store, str]:
    root = write_suite(tmp_path / "suite", config)
    store = Store(tmp_path / "evalcore.db")
    run_id, status = run_suite(make_plan(load_suite(root)), store)
    assert status == "completed"
    return root, store, run_id


def replay(root: Path, store: Store, ref: str, **options: object) -> tuple[str, str]:
    plan = make_plan(load_suite(root), RunOptions(replay=open_replay(ref, store), **options))  # type: ignore[arg-type]
    return run_suite(plan, store)


def test_a_replay_reproduces_every_result_exactly_without_calling_a_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, store, original = first_run(tmp_path)
    forbid_models(monkeypatch)
    replayed, status = replay(root, store, original[:8])
    assert status == "completed"
    before, after = by_key(store, original), by_key(store, replayed)
    assert before.keys() == after.keys() and len(before) == 9
    assert {k: reproduced(r) for k, r in after.items()} == {k: reproduced(r) for k, r in before.items()}
    info = store.load_run(replayed, results=False).info
    assert info.settings["replay_of"] == original and info.provenance["replay_of"] == original
    assert "replay_file" not in info.settings


def test_a_result_missing_from_the_run_file_is_a_replay_error_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, store, original = first_run(tmp_path)
    forbid_models(monkeypatch)
    run = store.load_run(original)
    gone = next(r for r in run.results if r.case == "complete/002" and r.contender == "fake/guesser")
    run.results.remove(gone)
    file = write_run_file(run, tmp_path / "run.json")
    replayed, status = replay(root, store, str(file))
    after = by_key(store, replayed)
    failed = after[gone.key]
    assert (failed.status, failed.error.kind if failed.error else None) == ("error", "replay")
    assert failed.error and failed.error.message == (
        f"replay of run {original}: it holds no result for fake/guesser on shop/complete/002, sample 0"
    )
    before = by_key(store, original)
    assert all(reproduced(after[k]) == reproduced(r) for k, r in before.items() if k != gone.key)
    settings = store.load_run(replayed, results=False).info.settings
    assert settings["replay_file"] == str(file.resolve())


def test_a_contender_the_run_lacks_fails_every_call_as_a_replay_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, store, original = first_run(tmp_path)
    forbid_models(monkeypatch)
    options = RunOptions(replay=open_replay(original, store), overrides=Overrides(models=["fake/cautious"]))
    plan = make_plan(load_suite(root), options)
    assert list(unanswerable(plan)) == ["fake/cautious"]
    replayed, status = run_suite(plan, store)
    results = store.load_run(replayed).results
    assert len(results) == 3 and {r.error.kind for r in results if r.error} == {"replay"}
    assert all("it holds no result of fake/cautious" in r.error.message for r in results if r.error)


def test_a_stored_failure_is_not_replayed_as_an_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = {"lineup": [{"model": "fake/flaky"}], "run": {"max_attempts": 1, "backoff_s": 0}}
    root = write_suite(tmp_path / "suite", config)
    store = Store(tmp_path / "evalcore.db")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(FakeProvider, "complete", _always_rate_limited)
        original, _ = run_suite(make_plan(load_suite(root)), store)
    forbid_models(monkeypatch)
    replayed, _ = replay(root, store, original)
    results = store.load_run(replayed).results
    assert {r.error.kind for r in results if r.error} == {"replay"} and len(results) == 3
    assert "failed (rate_limit: 429 (scripted)): there is no reply to replay" in results[0].error.message
    assert {(r.attempts, r.latency_s) for r in results} == {(2, 0.5)}  # the time column reads as before


async def _always_rate_limited(self: FakeProvider, request: Request) -> Reply:
    raise CallFailed("rate_limit", "429 (scripted)", attempts=2, latency_s=0.5)


def test_a_case_whose_input_changed_is_not_answered_with_the_old_reply(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, store, original = first_run(tmp_path)
    forbid_models(monkeypatch)
    (root / "datasets" / "shop" / "cases" / "complete" / "001" / "input.txt").write_text("Zed needs kind c.")
    replayed, _ = replay(root, store, original)
    changed = [r for r in store.load_run(replayed).results if r.case == "complete/001"]
    assert len(changed) == 3 and all(r.error and r.error.kind == "replay" for r in changed)
    assert "case shop/complete/001 has another input than in that run" in changed[0].error.message


def test_a_prompt_whose_text_changed_is_not_answered_with_the_old_replies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_suite(tmp_path / "suite", {"lineup": [{"model": "fake/oracle", "prompt": "terse"}]})
    (root / "prompts").mkdir()
    (root / "prompts" / "terse.txt").write_text("Fill in the form.\n{{ input }}\n")
    store = Store(tmp_path / "evalcore.db")
    original, _ = run_suite(make_plan(load_suite(root)), store)
    forbid_models(monkeypatch)
    (root / "prompts" / "terse.txt").write_text("Fill in the form, briefly.\n{{ input }}\n")
    replayed, _ = replay(root, store, original)
    results = store.load_run(replayed).results
    assert all(r.error and r.error.kind == "replay" for r in results)
    assert "prompt 'terse' changed since that run (terse.txt)" in results[0].error.message


def test_a_replay_of_a_litellm_run_needs_neither_the_server_nor_a_key(
    tmp_path: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-replay-0000")
    openai_server.content = FIELDS_REPLY
    root = write_suite(tmp_path / "suite", {"run": {"backoff_s": 0}})
    store = Store(tmp_path / "evalcore.db")
    options = RunOptions(overrides=Overrides(models=["openai/test-model"], api_base=openai_server.base_url))
    original, status = run_suite(make_plan(load_suite(root), options), store)
    assert status == "completed" and openai_server.calls == 3
    openai_server.stop()
    monkeypatch.delenv("OPENAI_API_KEY")  # no api_base now: a run of the model would need the key
    replayed, status = replay(root, store, original, overrides=Overrides(models=["openai/test-model"]))
    assert status == "completed"
    before, after = by_key(store, original), by_key(store, replayed)
    assert {k: reproduced(r) for k, r in after.items()} == {k: reproduced(r) for k, r in before.items()}
    assert all(r.usage.input_tokens and r.latency_s for r in after.values())


def test_an_interrupted_replay_resumes_from_the_same_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, store, original = first_run(tmp_path)
    forbid_models(monkeypatch)
    plan = make_plan(load_suite(root), RunOptions(replay=open_replay(original, store)))
    run = start_run(plan, store)
    store.set_status(run.info.id, "interrupted")
    plan, run, done = resume_plan(store, run.info.id)
    assert plan.replay is not None and plan.replay.run.info.id == original and not done
    assert asyncio.run(execute_plan(plan, store, run, done)) == "completed"
    before, after = by_key(store, original), by_key(store, run.info.id)
    assert {k: reproduced(r) for k, r in after.items()} == {k: reproduced(r) for k, r in before.items()}


def test_a_replay_run_file_read_back_reads_as_the_original(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, store, original = first_run(tmp_path)
    file = write_run_file(store.load_run(original), tmp_path / "original.json.gz")
    replayed, _ = replay(root, Store(tmp_path / "other.db"), str(file))
    again = read_run_file(write_run_file(Store(tmp_path / "other.db").load_run(replayed), tmp_path / "replay.json"))
    assert {r.key: reproduced(r) for r in again.results} == {
        k: reproduced(r) for k, r in by_key(store, original).items()
    }
