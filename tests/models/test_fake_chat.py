"""The conversation fakes: ``fake/user`` behaves as its persona says, the ``fake/helpdesk`` bots fail as named."""

from __future__ import annotations

import asyncio

import pytest

from evalcore.core.conversation import CONVERSATION, SIMULATED
from evalcore.core.records import Case, Contender
from evalcore.models.fake_chat import FakeChatProvider, behaviour
from evalcore.models.types import Request

FACTS = {"order number": "4417", "email": "ann@example.com"}


@pytest.fixture(autouse=True)
def _instant(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")


def _case(persona: str = "", facts: dict | None = None) -> Case:
    user = {"goal": "A refund, please.", "model": "fake/user", "persona": persona, "facts": facts or FACTS}
    return Case("chats", "c1", "default", {"user": user}, None, {CONVERSATION: SIMULATED})


def _ask(model: str, case: Case, said: list[tuple[str, str]]) -> str:
    messages = [{"role": role, "content": text} for role, text in said]
    reply = asyncio.run(FakeChatProvider().complete(Request(Contender(model, model), messages, case=case)))
    return reply.text


def _user(case: Case, conversation: list[str]) -> str:
    """The user's next message; ``conversation`` alternates the user's messages and the bot's, the user first."""
    flipped = [("assistant" if i % 2 == 0 else "user", text) for i, text in enumerate(conversation)]
    return _ask("fake/user", case, flipped)


def _bot(model: str, case: Case, conversation: list[str]) -> str:
    return _ask(model, case, [("user" if i % 2 == 0 else "assistant", t) for i, t in enumerate(conversation)])


@pytest.mark.parametrize(
    ("persona", "expected"),
    [
        ("Cooperative and calm", "cooperative"),
        ("vague then precise", "vague then precise"),
        ("changes their mind about the email", "changes their mind"),
        ("gives up after two bad replies", "gives up"),
    ],
)
def test_the_fake_user_behaves_as_its_persona_names(persona: str, expected: str):
    assert behaviour(persona) == expected


def test_a_cooperative_user_states_its_goal_then_tells_what_it_is_asked():
    case = _case()
    assert _user(case, []) == "A refund, please."
    assert _user(case, ["A refund, please.", "Could you tell me your email?"]) == "My email is ann@example.com."


def test_a_user_ends_once_every_fact_is_confirmed():
    case = _case()
    said = ["A refund, please.", "Confirmed: order number 4417, email ann@example.com."]
    assert _user(case, said).endswith("[DONE]")


def test_a_vague_user_answers_a_question_vaguely_the_first_time():
    case = _case("vague then precise")
    assert "not sure" in _user(case, ["Something is wrong.", "Could you tell me your email?"])
    again = ["Something is wrong.", "Could you tell me your email?", "I am not sure.", "Could you tell me your email?"]
    assert _user(case, again) == "My email is ann@example.com."


def test_a_user_who_changes_their_mind_corrects_a_fact_once_it_is_confirmed():
    case = _case("changes their mind", {"email": ["ann@example.com", "ann@example.org"]})
    said = ["A refund, please.", "Could you tell me your email?"]
    assert _user(case, said) == "My email is ann@example.com."
    confirmed = [*said, "My email is ann@example.com.", "Confirmed: email ann@example.com."]
    assert _user(case, confirmed) == "Sorry, I changed my mind: my email is ann@example.org."


def test_an_impatient_user_gives_up_after_two_bad_replies():
    case = _case("gives up after two bad replies")
    said = ["A refund, please.", "Thank you, I am looking into it.", "Can you please confirm?"]
    assert not _user(case, said[:2]).endswith("[GIVE UP]")
    assert _user(case, [*said, "Thank you, I am looking into it."]).endswith("[GIVE UP]")


def test_the_good_bot_asks_for_what_is_missing_and_confirms_every_fact():
    case = _case()
    assert (
        _bot("fake/helpdesk", case, ["Refund. My email is ann@example.com."]) == "Could you tell me your order number?"
    )
    reply = _bot(
        "fake/helpdesk", case, ["My email is ann@example.com.", "Could you tell me…", "My order number is 4417."]
    )
    assert reply.startswith("Confirmed:") and "4417" in reply and "ann@example.com" in reply


def test_the_forgetful_bot_asks_again_for_a_fact_told_earlier():
    said = ["My email is ann@example.com.", "Could you tell me your order number?", "My order number is 4417."]
    assert _bot("fake/helpdesk-forgets", _case(), said) == "Could you tell me your email?"


def test_the_unconfirming_bot_never_confirms():
    said = ["My email is ann@example.com.", "Could you tell me your order number?", "My order number is 4417."]
    assert "Confirmed" not in _bot("fake/helpdesk-unconfirmed", _case(), said)
