"""Sign-in and roles in the app (AppTest, ``AppTest.user`` standing in for Streamlit's sign-in): a viewer sees
no Launch button, an unlisted user is told why, an allowlisted user launches a run that records them, and a
deployment that wants signed-in viewers shows nothing else before sign-in."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from evalcore.storage.store import Store
from tests.app.test_app_shared import REPO, demo_run, seed, texts

AUTH = {
    "redirect_uri": "http://localhost:8501/oauth2callback",
    "cookie_secret": "a cookie secret for the tests",
    "client_id": "evalcore-tests",
    "client_secret": "not a secret",
    "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration",
}
ANA = {"is_logged_in": True, "email": "ana@example.com", "name": "Ana"}
BOB = {"is_logged_in": True, "email": "bob@elsewhere.org", "name": "Bob"}
SIGNED_OUT = {"is_logged_in": False}


def app(page: str = "app.py", user: dict | None = None, **access: object) -> AppTest:
    at = AppTest.from_file(str(REPO / page), default_timeout=30)
    at.secrets["auth"] = AUTH
    at.secrets["evalcore"] = {"access": {"launch": ["ana@example.com"]} | access}
    at.user = user if user is not None else SIGNED_OUT
    return at


def labels(at: AppTest) -> set[str]:
    return {b.label for b in at.button}


def test_a_signed_out_visitor_views_runs_and_is_offered_sign_in_not_launch(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = app().run()
    assert not at.exception and at.title[0].value == "Leaderboard"
    assert "Sign in" in {b.label for b in at.sidebar.button}
    assert "Signed-in users on this deployment's list may launch runs." in texts(at)
    run_page = app("pages/run.py").run()
    assert not run_page.exception
    assert "Launching runs is not open to you here: sign in first." in texts(run_page)
    assert "Launch" not in labels(run_page) and not run_page.selectbox


def test_an_unlisted_user_is_told_why_and_offered_no_write_action(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = app(user=BOB).run()
    assert not at.exception
    assert "Signed in as bob@elsewhere.org: may view runs." in texts(at)
    assert "Sign out" in {b.label for b in at.sidebar.button}
    run_page = app("pages/run.py", user=BOB).run()
    assert "bob@elsewhere.org is not on this deployment's launch list" in texts(run_page)
    assert "Launch" not in labels(run_page)
    runs = app("pages/runs.py", user=BOB)
    runs.session_state["runs_table"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    runs.run()
    assert not runs.exception and not {"Resume", "Delete", "Pin as baseline"} & labels(runs)


def test_an_allowlisted_user_launches_and_the_runs_page_says_who(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    at = app("pages/run.py", user=ANA).run()
    assert not at.exception and "Launch" in labels(at)
    at.multiselect[1].select("fake/oracle · t=0").run()
    at.number_input[2].set_value(1).run()  # one case per dataset
    next(b for b in at.button if b.label == "Launch").click().run()
    from pages._loaders import jobs

    job = jobs()[at.session_state["job"]]
    job.join(timeout=30)
    assert job.status == "completed", job.error
    store = Store(tmp_path / "evalcore.db")
    assert store.list_runs()[0]["launched_by"] == "ana@example.com"
    runs = app("pages/runs.py", user=BOB).run()
    assert not runs.exception
    assert list(runs.dataframe[0].value["launched by"]) == ["ana@example.com"]


def test_a_domain_on_the_list_lets_its_users_launch(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    at = app("pages/run.py", user=BOB, launch=["@elsewhere.org"]).run()
    assert not at.exception and "Launch" in labels(at)


def test_viewing_can_require_sign_in_and_then_nothing_else_is_shown(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = app(view="signed-in").run()
    assert not at.exception
    assert "Sign in to see this app's runs." in texts(at)
    assert labels(at) == {"Sign in"} and not at.dataframe and not at.sidebar.selectbox
    signed_in = app(user=BOB, view="signed-in").run()
    assert not signed_in.exception and signed_in.title[0].value == "Leaderboard"


def test_named_providers_each_get_a_sign_in_button(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30)
    at.secrets["auth"] = {
        "redirect_uri": AUTH["redirect_uri"],
        "cookie_secret": AUTH["cookie_secret"],
        "google": {"client_id": "g", "client_secret": "g", "server_metadata_url": AUTH["server_metadata_url"]},
        "okta": {"client_id": "o", "client_secret": "o", "server_metadata_url": AUTH["server_metadata_url"]},
    }
    at.user = SIGNED_OUT
    at.run()
    assert not at.exception
    assert {"Sign in with Google", "Sign in with Okta"} <= {b.label for b in at.sidebar.button}


def test_without_sign_in_the_app_on_this_machine_launches_as_before(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    at = AppTest.from_file(str(REPO / "pages/run.py"), default_timeout=30).run()
    assert not at.exception and "Launch" in labels(at)


def test_without_sign_in_a_deployment_is_read_only_unless_its_owner_opts_in(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    monkeypatch.setenv("EVALCORE_DEPLOYED", "1")
    at = AppTest.from_file(str(REPO / "pages/run.py"), default_timeout=30).run()
    assert "this deployment is read-only" in texts(at) and "Launch" not in labels(at)
    opted = AppTest.from_file(str(REPO / "pages/run.py"), default_timeout=30)
    opted.secrets["evalcore"] = {"access": {"launch": "everyone"}}
    opted.run()
    assert not opted.exception and "Launch" in labels(opted)


def test_a_misconfigured_access_section_is_an_error_on_the_page(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = app(view="friends").run()
    assert not at.exception
    assert 'view must be "everyone" or "signed-in"' in texts(at)
    assert not at.dataframe
