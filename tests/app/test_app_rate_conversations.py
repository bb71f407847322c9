"""pages/rate.py under AppTest on a run of the bundled ``support-chat`` suite: a conversation is rated whole, shown
as a chat (the user's and the assistant's turns in order, blind: no tokens, costs or scores), one or two side by
side, with the same rubric and pairwise controls, and the rating is stored against the result."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalcore.cli import main
from evalcore.explorer import rating
from evalcore.explorer.transcript import chat_of
from evalcore.storage.ratings import load_ratings
from evalcore.storage.store import Store
from tests.app.test_app_shared import open_page, seed, texts

PAGE = "pages/rate.py"
SUITE = Path(__file__).resolve().parents[2] / "data" / "suites" / "support-chat"
SECRET = "the-deployments-own"
RATER = rating.typed_rater("ana")


@pytest.fixture(scope="module")
def chat_run(tmp_path_factory):
    """A support-chat run with its results (three bots, eight conversations each)."""
    db = tmp_path_factory.mktemp("convo") / "run.db"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")
        assert main(["run", str(SUITE), "--db", str(db), "--quiet"]) == 0
    with Store(db) as store:
        (run_id,) = [r["id"] for r in store.list_runs()]
        return store.load_run(run_id)


def _open(monkeypatch, tmp_path, run, **state):
    seed(monkeypatch, tmp_path, run)
    monkeypatch.setenv("EVALCORE_RATE_SECRET", SECRET)
    return open_page(PAGE, rater="ana", **state)


def _expected_chat(run, item) -> list[tuple[str, str]]:
    """The item's conversations in the order shown, as (role, text), A's then B's."""
    by = {(r.dataset, r.case, r.sample, r.contender): r for r in run.results}
    return [
        (m.role, m.text)
        for contender in item.shown
        for m in chat_of(by[(item.dataset, item.case, item.sample, contender)]) or []
    ]


def _shown_chat(at) -> list[tuple[str, str]]:
    return [(m.proto.name, m.text[0].value) for m in at.get("chat_message")]


def _stored(tmp_path, run_id):
    with Store(tmp_path / "evalcore.db") as store:
        return load_ratings(store, run_id)


def test_a_pair_of_conversations_shows_as_two_chats_in_order_and_a_vote_is_stored(chat_run, monkeypatch, tmp_path):
    at = _open(monkeypatch, tmp_path, chat_run)
    assert not at.exception and not at.error
    (item, *_) = rating.rating_queue(chat_run, RATER, "pairwise", secret=SECRET)
    expected = _expected_chat(chat_run, item)
    assert {role for role, _ in expected} == {"user", "assistant"}
    assert _shown_chat(at) == expected
    shown = texts(at)
    assert not [c.id for c in chat_run.contenders if c.id in shown]
    assert "tokens" not in shown and "$" not in shown  # a cost or a score could tell the bots apart
    at.button(key="rate_A").click().run()
    assert not at.exception
    (stored,) = _stored(tmp_path, chat_run.info.id)
    assert (stored.dataset, stored.case, stored.sample) == (item.dataset, item.case, item.sample)
    assert {stored.a, stored.b} == set(item.shown) and stored.verdict in ("a", "b") and stored.random


def test_one_conversation_is_rated_on_the_conversation_judges_rubric(chat_run, monkeypatch, tmp_path):
    at = _open(monkeypatch, tmp_path, chat_run, rate_mode="One reply, blind")
    assert not at.exception and not at.error
    (item, *_) = rating.rating_queue(chat_run, RATER, "single", secret=SECRET)
    assert _shown_chat(at) == _expected_chat(chat_run, item)
    assert [c.label for c in at.segmented_control] == ["user_satisfaction", "knowledge_retention"]
    at.segmented_control[0].set_value(5)
    at.segmented_control[1].set_value(2).run()
    at.button(key="rate_store").click().run()
    assert not at.exception
    (stored,) = _stored(tmp_path, chat_run.info.id)
    assert (stored.dataset, stored.case, stored.a, stored.b) == (item.dataset, item.case, item.shown[0], None)
    assert stored.scores == {"user_satisfaction": 5.0, "knowledge_retention": 2.0}
    assert "1 of " in texts(at)
