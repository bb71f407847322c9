"""The prompt dimension end to end: plan → run → store → run file → leaderboard, what reaches the model, and
``verify`` rendering every prompt before any call."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from evalcore.analysis.tables.view import leaderboard_view
from evalcore.core.errors import ConfigError
from evalcore.core.metric_set import MetricSet
from evalcore.execution.plan import RunOptions, case_messages, make_plan
from evalcore.execution.runner import execute_plan, resume_plan, run_suite
from evalcore.execution.verify import verify_suite
from evalcore.runfile.read import read_run_file
from evalcore.runfile.write import export_run, write_run_file
from evalcore.storage.frames import results_frame
from evalcore.storage.store import Store
from evalcore.suite.lineup import Overrides
from evalcore.suite.loader import load_suite
from tests.openai_server import OpenAIServer
from tests.suites import write_suite

FIELDS_REPLY = '{"name": null, "kind": null, "count": null, "amount": null, "urgent": null, "tags": null}'
TERSE = "Fields:\n{% for f in fields %}{{ f.name }} {% endfor %}\n{{ input }}\n"
CHAT = (
    "- role: system\n  content: '{{ instructions }} {{ schema }}'\n"
    "- role: user\n  content: '[{{ metadata.difficulty }}] {{ input }}'\n"
)


def _suite(tmp_path, lineup=None, **prompts):
    config = {"lineup": lineup} if lineup is not None else None
    root = write_suite(tmp_path / "suite", config)
    (root / "prompts").mkdir()
    for name, text in (prompts or {"terse.txt": TERSE, "chat.yaml": CHAT}).items():
        (root / "prompts" / name).write_text(text)
    return root


def _plan(root, **overrides):
    return make_plan(load_suite(root), RunOptions(overrides=Overrides(**overrides)))


def test_the_plan_multiplies_contenders_by_prompt(tmp_path):
    plan = _plan(_suite(tmp_path), models=["fake/oracle"], settings={"prompt": ["terse", "chat"]})
    assert [c.id for c in plan.contenders] == ["fake/oracle · prompt=terse", "fake/oracle · prompt=chat"]
    assert list(plan.matrix()) == [c.id for c in plan.contenders] and plan.calls == 2 * 3
    assert set(plan.rendered) == {"terse", "chat"}


def test_an_unknown_prompt_on_the_command_line_is_a_configuration_error(tmp_path):
    with pytest.raises(ConfigError, match=r"prompt 'v2': no such prompt in .*prompts\. Prompts: chat, terse"):
        _plan(_suite(tmp_path), settings={"prompt": ["v2"]})


def test_a_template_that_fails_on_a_case_stops_the_plan_before_any_call(tmp_path, tmp_db):
    root = _suite(tmp_path, **{"bad.txt": "{{ input }}\n{{ metadata.region }}\n"})
    with pytest.raises(ConfigError, match=r"prompts/bad\.txt: line 2: undefined"):
        _plan(root, settings={"prompt": ["bad"]})
    assert not tmp_db.exists()


def test_a_plan_without_prompts_renders_none(tmp_path):
    plan = _plan(_suite(tmp_path))
    assert plan.rendered == {} and all("prompt" not in c.settings for c in plan.contenders)


def test_case_messages_show_each_prompt_of_the_plan_and_the_adapters_own(tmp_path):
    root = _suite(tmp_path, lineup=[{"model": "fake/oracle", "prompt": ["chat"]}, {"model": "fake/guesser"}])
    plan = make_plan(load_suite(root))
    case = plan.cases[0]
    shown = case_messages(plan, case)
    assert list(shown) == [None, "chat"]
    assert shown["chat"][1] == {"role": "user", "content": f"[easy] {case.input}"}
    assert shown[None][-1] == {"role": "user", "content": case.input}


@pytest.fixture
def prompt_run(tmp_path, tmp_db):
    root = _suite(
        tmp_path, lineup=[{"model": "fake/oracle", "prompt": ["terse", "chat"], "settings": {"temperature": 0}}]
    )
    store = Store(tmp_db)
    run_id, status = run_suite(make_plan(load_suite(root)), store)
    assert status == "completed"
    return root, store, run_id


def test_a_run_records_each_contenders_prompt_and_every_prompts_text_and_hash(prompt_run):
    root, store, run_id = prompt_run
    run = store.load_run(run_id)
    assert [(c.id, c.settings) for c in run.contenders] == [
        ("fake/oracle · prompt=terse · t=0", {"prompt": "terse", "temperature": 0}),
        ("fake/oracle · prompt=chat · t=0", {"prompt": "chat", "temperature": 0}),
    ]
    prompts = run.info.provenance["prompts"]
    suite = load_suite(root)
    assert prompts == {
        name: {"file": f"prompts/{p.path.name}", "sha256": p.sha256, "text": p.text}
        for name, p in suite.prompts.items()
    }
    assert len(run.results) == 2 * 3 and all(r.status == "scored" for r in run.results)


def test_the_prompts_round_trip_through_the_run_file_and_the_store(prompt_run, tmp_path):
    _, store, run_id = prompt_run
    run = store.load_run(run_id)
    path = write_run_file(run, tmp_path / "run.json")
    back = read_run_file(path)
    assert back.info.provenance == run.info.provenance and back.contenders == run.contenders
    exported = tmp_path / "exported.json"
    export_run(store, run_id, exported)
    assert json.loads(exported.read_text())["run"]["provenance"]["prompts"] == run.info.provenance["prompts"]
    other = Store(tmp_path / "other.db")
    other.import_run(back)
    again = other.load_run(run_id)
    assert again.info.provenance == run.info.provenance
    assert [(c.id, c.settings) for c in again.contenders] == [(c.id, c.settings) for c in run.contenders]


def test_the_leaderboard_shows_the_prompt_in_ids_and_settings(prompt_run):
    _, store, run_id = prompt_run
    run = store.load_run(run_id)
    view = leaderboard_view(results_frame(run), MetricSet.of(run.metrics), run.info.weights, None, run.contenders, B=50)
    rows = dict(zip(view.overall["contender"], view.overall["settings"], strict=True))
    assert rows == {
        "fake/oracle · prompt=terse · t=0": "prompt=terse · t=0",
        "fake/oracle · prompt=chat · t=0": "prompt=chat · t=0",
    }


def test_a_resumed_prompt_run_keeps_its_prompts(prompt_run):
    _, store, run_id = prompt_run
    with store.transaction() as conn:
        conn.execute("DELETE FROM results WHERE run_id = ? AND contender LIKE '%chat%'", (run_id,))
    store.set_status(run_id, "interrupted")
    plan, run, done = resume_plan(store, run_id)
    assert [c.id for c in plan.contenders] == ["fake/oracle · prompt=terse · t=0", "fake/oracle · prompt=chat · t=0"]
    assert asyncio.run(execute_plan(plan, store, run, done)) == "completed"
    assert len(store.load_run(run_id).results) == 6


def test_a_run_whose_prompt_file_was_edited_is_not_resumed_without_force(prompt_run):
    root, store, run_id = prompt_run
    store.set_status(run_id, "interrupted")
    (root / "prompts" / "terse.txt").write_text(TERSE + "Answer in JSON.\n")
    with pytest.raises(ConfigError, match=r"prompt terse changed since run .* Pass --force"):
        resume_plan(store, run_id)
    plan, _, _ = resume_plan(store, run_id, force=True)
    assert "Answer in JSON." in json.dumps(list(plan.rendered["terse"].values()))  # forced: the prompt as it is now


def test_each_contender_sends_its_prompts_messages_and_never_the_prompt_setting(tmp_path, tmp_db, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-prompts-0000")
    root = _suite(
        tmp_path, lineup=[{"model": "openai/test-model", "prompt": ["terse", "chat"]}, {"model": "openai/test-model"}]
    )
    with OpenAIServer(FIELDS_REPLY) as server:
        suite = load_suite(root)
        plan = make_plan(suite, RunOptions(concurrency=1, parallelism=1, overrides=Overrides(api_base=server.base_url)))
        _, status = run_suite(plan, Store(tmp_db))
    assert status == "completed" and server.calls == 3 * 3
    assert all("prompt" not in body for body in server.requests)
    sent = {json.dumps(body["messages"]) for body in server.requests}
    for case in plan.cases:
        for messages in case_messages(plan, case).values():
            assert json.dumps(messages) in sent
    terse = [b["messages"] for b in server.requests if b["messages"][0]["content"].startswith("Fields:")]
    assert len(terse) == 3 and all(len(m) == 1 and m[0]["role"] == "user" for m in terse)


# --- verify --------------------------------------------------------------------------------------------


def test_verify_renders_every_prompt_and_reports_the_file_and_line_of_an_undefined_name(tmp_path):
    root = _suite(
        tmp_path,
        **{
            "ok.txt": "{{ input }}",
            "typo.yaml": "- role: user\n  content: |\n    {{ input }}\n    {{ instrutions }}\n",
        },
    )
    report = verify_suite(root)
    assert not report.ok
    (error,) = [line for line in report.lines if line.startswith("error:")]
    assert "prompts/typo.yaml: line 4: undefined: 'instrutions' is undefined" in error
    assert "fails on 3 of 3 cases" in error
    assert "prompts: ok (1 message), typo (1 message); each rendered for every case" in report.lines


def test_verify_reports_a_syntax_error_with_file_and_line(tmp_path):
    report = verify_suite(_suite(tmp_path, **{"broken.md": "Hello\n{{ input "}))
    assert not report.ok
    assert any("prompts/broken.md: line 2: template syntax error" in line for line in report.lines)


def test_verify_names_a_lineup_prompt_the_suite_does_not_have(tmp_path):
    report = verify_suite(_suite(tmp_path, lineup=[{"model": "fake/oracle", "prompt": ["terse", "verbose"]}]))
    assert not report.ok
    assert any("prompt 'verbose': no such prompt" in line and "Prompts: chat, terse" in line for line in report.lines)


def test_verify_passes_the_bundled_suite_with_its_prompts():
    report = verify_suite(Path(__file__).resolve().parents[2] / "data" / "suites" / "intake")
    assert report.ok, report.lines
    assert "prompts: default (2 messages), terse (1 message); each rendered for every case" in report.lines


def test_a_refused_resume_names_every_prompt_edited_since_the_run_started(prompt_run):
    root, store, run_id = prompt_run
    store.set_status(run_id, "interrupted")
    (root / "prompts" / "terse.txt").write_text(TERSE + "Answer in JSON.\n")
    (root / "prompts" / "chat.yaml").unlink()
    with pytest.raises(ConfigError) as refused:
        resume_plan(store, run_id)
    assert str(refused.value) == (
        f"{root}: prompt terse, chat changed since run {run_id} started; resuming would ask the rest of the cases "
        "another question. Pass --force to resume anyway."
    )
