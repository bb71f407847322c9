"""pages/run.py under AppTest, the bundled conversation demo: its plan says the cost is a lower bound, and it runs
in the background to a leaderboard that ranks the bot that answers well first."""

from __future__ import annotations

from tests.app.test_app_shared import open_page, seed, texts, unescaped

PAGE = "pages/run.py"


def test_the_support_chat_demo_runs_from_the_app_and_ranks_the_good_bot_first(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    at = open_page(PAGE)
    at.selectbox[0].select("suites/support-chat").run()
    assert not at.exception and not at.error
    assert next(m.value for m in at.metric if m.label == "Results") == "24"
    assert unescaped(next(m.value for m in at.metric if m.label == "Estimated cost")).startswith("≥ $")
    next(b for b in at.button if b.label == "Launch").click().run()
    from pages._loaders import jobs

    job = jobs()[at.session_state["job"]]
    job.join(timeout=60)
    at.run()
    assert job.status == "completed", job.error
    assert "The run is complete." in texts(at)
    board = at.dataframe[0].value
    assert str(board.iloc[0]["contender"]).startswith("fake/helpdesk") and len(board) == 3
