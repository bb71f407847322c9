"""A deployment's store named in its secrets (``[connections.evalcore] url = "postgresql://…"``), the way
``st.connection`` reads a connection: the app opens, seeds and shows the runs of that PostgreSQL store; a store
file ``EVALCORE_DB`` names must exist."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from evalcore.storage.store import Store
from tests.app.test_app_shared import REPO, demo_run, seed


def test_the_app_keeps_its_runs_in_the_postgresql_store_its_secret_names(monkeypatch, tmp_path, postgres_server):
    url = postgres_server.new_url()
    seed(monkeypatch, tmp_path, demo_run())
    monkeypatch.delenv("EVALCORE_DB")
    (tmp_path / "evalcore.db").unlink()
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30)
    at.secrets["connections"] = {"evalcore": {"url": url}}
    at.run()
    assert not at.exception and not at.error
    assert at.sidebar.selectbox(key="run").value == "run-demo"
    assert not (tmp_path / "evalcore.db").exists()
    with Store(url) as store:
        assert [r["id"] for r in store.list_runs()] == ["run-demo"]


def test_evalcore_db_comes_before_the_secret(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30)
    at.secrets["connections"] = {"evalcore": {"url": "postgresql://nobody@127.0.0.1:9/none"}}
    at.run()
    assert not at.exception and not at.error
    assert (tmp_path / "evalcore.db").is_file()


def test_the_store_the_app_seeds_is_logged_without_its_password(monkeypatch, tmp_path, postgres_server, caplog):
    url = postgres_server.new_url().replace("postgres@", "postgres:hunter2@")  # trust: any password is taken
    seed(monkeypatch, tmp_path, demo_run())
    monkeypatch.setenv("EVALCORE_DB", url)
    with caplog.at_level("INFO"):
        at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30).run()
    assert not at.exception
    seeded = [r.getMessage() for r in caplog.records if "seeded" in r.getMessage()]
    assert seeded and "***" in seeded[0]
    assert "hunter2" not in caplog.text


def test_a_store_file_evalcore_db_names_that_does_not_exist_is_said_on_the_page_not_created(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    named = tmp_path / "typo" / "evalcre.db"
    monkeypatch.setenv("EVALCORE_DB", str(named))
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30).run()
    assert not at.exception
    said = [e.value.replace("\\", "") for e in at.error]  # as plain text: the page escapes Markdown
    assert len(said) == 1 and said[0].startswith(f"no store at {named} (EVALCORE_DB")
    assert not named.parent.exists()
