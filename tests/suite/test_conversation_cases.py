from pathlib import Path

import pytest

from evalcore.core.conversation import SCRIPTED, SIMULATED, kind_of, turns_of, user_of
from evalcore.core.errors import ConfigError
from evalcore.suite.cases import load_dataset_cases


def _write(folder: Path, name: str, text: str) -> Path:
    (folder / "cases").mkdir(parents=True, exist_ok=True)
    (folder / "cases" / name).write_text(text, encoding="utf-8")
    return folder


def test_a_case_with_turns_is_a_scripted_conversation(tmp_path: Path):
    text = "turns:\n  - user: I want a refund.\n    expected: order number\n  - user: It is 4417.\n"
    [case] = load_dataset_cases(_write(tmp_path, "refund.yaml", text), "chats")
    assert kind_of(case) == SCRIPTED
    turns = [(t.user, t.expected) for t in turns_of(case)]
    assert turns == [("I want a refund.", "order number"), ("It is 4417.", None)]


def test_a_case_with_a_user_is_a_simulated_conversation(tmp_path: Path):
    text = "user:\n  goal: a refund\n  model: fake/user\n  facts: {order number: '4417'}\n  max_turns: 5\n"
    [case] = load_dataset_cases(_write(tmp_path, "refund.yaml", text), "chats")
    assert kind_of(case) == SIMULATED
    user = user_of(case)
    assert (user.goal, user.model, user.facts, user.max_turns) == ("a refund", "fake/user", {"order number": "4417"}, 5)


def test_a_plain_case_whose_input_has_turns_is_no_conversation(tmp_path: Path):
    [case] = load_dataset_cases(_write(tmp_path, "a.yaml", "input: {turns: [1, 2]}\nexpected: x\n"), "chats")
    assert kind_of(case) is None


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("turns: []\n", "turns: must be a non-empty list"),
        ("turns:\n  - {user: hi, said: x}\n", "turns: 0.said: Extra inputs are not permitted"),
        ("user: {goal: refund}\n", "user: model: Field required"),
        ("user: {goal: refund, model: fake/user, max_turns: 0}\n", "user: max_turns: Input should be greater"),
        ("input: hi\nturns:\n  - {user: hi}\n", "input: a conversation case has no input"),
        ("turns:\n  - {user: hi}\nuser: {goal: g, model: fake/user}\n", "turns (a script) or user"),
    ],
)
def test_a_bad_conversation_case_is_refused_by_name(tmp_path: Path, text: str, problem: str):
    with pytest.raises(ConfigError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        load_dataset_cases(_write(tmp_path, "bad.yaml", text), "chats")
