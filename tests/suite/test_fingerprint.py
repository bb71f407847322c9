"""A suite's definition fingerprint changes with what decides the scores, and only with that."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from evalcore.core.errors import ConfigError
from evalcore.suite.fingerprint import definition_fingerprint
from evalcore.suite.loader import load_suite
from tests.suites import CASES, write_suite


def _fingerprint(root: Path, config: dict[str, Any] | None = None, cases: dict[str, Any] | None = None) -> str:
    suite = load_suite(write_suite(root, config, cases))
    return definition_fingerprint(suite, suite.cases)


def test_lineup_weights_gate_and_description_leave_the_fingerprint_alone(tmp_path: Path) -> None:
    base = _fingerprint(tmp_path / "a")
    other = _fingerprint(
        tmp_path / "b",
        {
            "description": "another text",
            "lineup": [{"model": "fake/guesser"}],
            "weighted_score": {"weights": {"score": 1}},
            "gate": {"minimum": {"score": 0.5}},
            "run": {"samples": 3},
        },
    )
    assert other == base


def test_an_expected_answer_changes_the_fingerprint(tmp_path: Path) -> None:
    text, expected = CASES["complete/001"]
    cases = {**CASES, "complete/001": (text, {**expected, "count": 3})}
    assert _fingerprint(tmp_path / "b", cases=cases) != _fingerprint(tmp_path / "a")


def test_scorer_options_change_the_fingerprint(tmp_path: Path) -> None:
    regex = {"scorer": {"name": "regex", "options": {"pattern": "a"}}, "adapter": "text", "fields": None}
    other = {**regex, "scorer": {"name": "regex", "options": {"pattern": "b"}}}
    assert _fingerprint(tmp_path / "a", regex) != _fingerprint(tmp_path / "b", other)


def test_instructions_and_prompt_texts_change_the_fingerprint(tmp_path: Path) -> None:
    base = _fingerprint(tmp_path / "a")
    assert _fingerprint(tmp_path / "b", {"instructions": "Fill in the form, carefully."}) != base
    root = write_suite(tmp_path / "c")
    (root / "prompts").mkdir()
    (root / "prompts" / "terse.txt").write_text("{{ input }}")
    suite = load_suite(root)
    first = definition_fingerprint(suite, suite.cases)
    (root / "prompts" / "terse.txt").write_text("Answer briefly: {{ input }}")
    suite = load_suite(root)
    assert definition_fingerprint(suite, suite.cases) != first


def test_the_suite_version_changes_the_fingerprint(tmp_path: Path) -> None:
    assert _fingerprint(tmp_path / "b", {"version": 2}) != _fingerprint(tmp_path / "a")


def test_the_selected_cases_are_part_of_the_fingerprint(tmp_path: Path) -> None:
    suite = load_suite(write_suite(tmp_path / "a"))
    assert definition_fingerprint(suite, suite.cases[:1]) != definition_fingerprint(suite, suite.cases)


def test_a_misspelt_version_key_is_refused_with_a_suggestion(tmp_path: Path) -> None:
    root = write_suite(tmp_path / "a")
    config = yaml.safe_load((root / "evalcore.yaml").read_text())
    (root / "evalcore.yaml").write_text(yaml.safe_dump({**config, "verison": 2}))
    with pytest.raises(ConfigError, match="version"):
        load_suite(root)


def test_a_judges_examples_file_changes_the_fingerprint_when_its_content_does(tmp_path: Path) -> None:
    judge = {"name": "llm_judge", "options": {"model": "fake/judge", "examples": "judges/aligned.yaml"}}
    config = {"scorer": judge, "adapter": "chat", "fields": None}
    root = write_suite(tmp_path / "a", config)
    (root / "judges").mkdir()
    examples = root / "judges" / "aligned.yaml"
    examples.write_text(yaml.safe_dump({"examples": [{"question": "Q?", "answer": "A.", "verdict": "fail"}]}))
    suite = load_suite(root)
    before = definition_fingerprint(suite, suite.cases)
    examples.write_text(yaml.safe_dump({"examples": [{"question": "Q?", "answer": "A.", "verdict": "pass"}]}))
    assert definition_fingerprint(load_suite(root), suite.cases) != before


def test_a_simulated_users_model_and_prompt_change_the_fingerprint(tmp_path: Path, monkeypatch) -> None:
    from evalcore.core import conversation

    bundled = Path(__file__).resolve().parents[2] / "data" / "suites" / "support-chat"
    suite = load_suite(bundled)
    before = definition_fingerprint(suite, suite.cases)
    simulated = next(c for c in suite.cases if conversation.kind_of(c) == conversation.SIMULATED)
    simulated.input = {"user": {**simulated.input["user"], "model": "openai/gpt-4o-mini"}}
    assert definition_fingerprint(suite, suite.cases) != before
    monkeypatch.setattr("evalcore.suite.fingerprint.SIMULATOR_PROMPT", conversation.SIMULATOR_PROMPT + " Be brief.")
    changed = definition_fingerprint(suite, suite.cases)
    monkeypatch.undo()
    assert changed != definition_fingerprint(suite, suite.cases)
