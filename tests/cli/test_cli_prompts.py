"""``-p/--prompt`` and ``cases --show-prompt`` through a real ``evalcore`` process."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.cli.process import evalcore as run
from tests.suites import write_suite

INTAKE = Path(__file__).resolve().parents[2] / "data" / "suites" / "intake"


ENV = {"COLUMNS": "200"}


def evalcore(*argv: object) -> subprocess.CompletedProcess[str]:
    return run(*argv, env=ENV)


@pytest.fixture
def suite(tmp_path):
    root = write_suite(tmp_path / "suite")
    (root / "prompts").mkdir()
    (root / "prompts" / "terse.txt").write_text("Fields: {% for f in fields %}{{ f.name }} {% endfor %}\n{{ input }}\n")
    (root / "prompts" / "chat.yaml").write_text(
        "- {role: system, content: '{{ instructions }}'}\n- {role: user, content: '{{ input }}'}\n"
    )
    return root


def test_plan_shows_the_prompt_dimension(suite):
    done = evalcore("plan", suite, "-m", "fake/oracle", "-p", "terse,chat", "-t", "0", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert list(json.loads(done.stdout)["matrix"]) == [
        "fake/oracle · prompt=terse · t=0",
        "fake/oracle · prompt=chat · t=0",
    ]


def test_run_with_p_records_the_prompts_in_the_run_file(suite, tmp_path):
    out = tmp_path / "run.json"
    done = evalcore(
        "run", suite, "-m", "fake/oracle", "-p", "terse", "-p", "chat", "--db", tmp_path / "e.db", "--quiet", "-o", out
    )
    assert done.returncode == 0, done.stderr
    assert "fake/oracle · prompt=terse" in done.stdout and "fake/oracle · prompt=chat" in done.stdout
    data = json.loads(out.read_text())
    assert [(c["id"], c["settings"]) for c in data["contenders"]] == [
        ("fake/oracle · prompt=terse", {"prompt": "terse"}),
        ("fake/oracle · prompt=chat", {"prompt": "chat"}),
    ]
    prompts = data["run"]["provenance"]["prompts"]
    assert prompts["terse"]["text"] == (suite / "prompts" / "terse.txt").read_text()
    assert prompts["chat"]["file"] == "prompts/chat.yaml" and prompts["chat"]["sha256"].startswith("sha256:")
    board = evalcore("leaderboard", out)
    assert board.returncode == 0 and "fake/oracle · prompt=chat" in board.stdout, board.stderr


def test_an_unknown_prompt_is_a_configuration_error_listing_the_known_ones(suite):
    done = evalcore("plan", suite, "-p", "verbose")
    assert done.returncode == 2
    assert "prompt 'verbose': no such prompt" in done.stderr and "Prompts: chat, terse" in done.stderr


def test_cases_show_prompt_prints_the_rendered_messages_of_each_prompt(suite):
    done = evalcore("cases", suite, "--show-prompt", "complete/001", "-p", "terse,chat")
    assert done.returncode == 0, done.stderr
    assert "=== shop/complete/001 · prompt=terse (" in done.stdout
    assert "--- user\nFields: name kind count amount urgent tags \nAnn needs kind a" in done.stdout
    assert "=== shop/complete/001 · prompt=chat (" in done.stdout
    assert "--- system\nFill in the form.\n--- user\nAnn needs kind a" in done.stdout


def test_cases_show_prompt_without_p_prints_what_the_adapter_sends(suite):
    done = evalcore("cases", suite, "--show-prompt", "shop/vague/001", "--format", "json")
    assert done.returncode == 0, done.stderr
    (shown,) = json.loads(done.stdout)
    assert shown["prompt"] is None and shown["case"] == "vague/001"
    assert shown["messages"][0]["role"] == "system" and shown["messages"][0]["content"].startswith("Fill in the form.")
    assert shown["messages"][1] == {"role": "user", "content": "Someone may want something soon-ish."}


def test_cases_show_prompt_names_an_unknown_case(suite):
    done = evalcore("cases", suite, "--show-prompt", "nope/9")
    assert done.returncode == 2 and "--show-prompt 'nope/9': matches no selected case" in done.stderr


def test_the_bundled_suite_compares_its_default_and_terse_prompts(tmp_path):
    done = evalcore("plan", INTAKE, "-p", "default,terse", "--format", "json")
    assert done.returncode == 0, done.stderr
    ids = list(json.loads(done.stdout)["matrix"])
    assert "fake/oracle · prompt=default · t=0" in ids and "fake/oracle · prompt=terse · t=0" in ids
    plain = list(json.loads(evalcore("plan", INTAKE, "--format", "json").stdout)["matrix"])
    asked_both_ways = [i for i in plain if "prompt=" in i]  # the lineup's entry that already names both prompts
    assert len(asked_both_ways) == 2
    assert len(ids) == 2 * (len(plain) - 2) + 2 and set(plain) - set(ids) == {i for i in plain if "prompt=" not in i}
