"""The deployment's roles: who may view, who may launch, resume, delete, save and pin, and the engine calls
refusing what the roles forbid whatever a page shows."""

from __future__ import annotations

import pytest

from evalcore.core.errors import EvalcoreError
from evalcore.explorer import changes, jobs
from evalcore.explorer.access import Access, AccessDenied, Policy, Visitor
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.factories import make_run
from tests.suites import write_suite

AUTH = {"redirect_uri": "http://localhost:8501/oauth2callback", "cookie_secret": "s", "client_id": "c"}
ANA = Visitor(email="ana@example.com", name="Ana", signed_in=True)
BOB = Visitor(email="bob@elsewhere.org", name="Bob", signed_in=True)
ANONYMOUS = Visitor()
LOCAL = Visitor(local=True)


@pytest.fixture(autouse=True)
def suites_in_tmp(monkeypatch, tmp_path):  # noqa: ANN001
    """The suites these tests write are under a folder the app may run."""
    monkeypatch.setenv("EVALCORE_SUITE_ROOTS", str(tmp_path))


def policy(access: dict | None = None, auth: dict | None = AUTH, **env: str) -> Policy:
    secrets = {"auth": auth, "evalcore": {"access": access or {}}}
    return Policy.from_settings(secrets, env)


def test_with_sign_in_the_launch_list_decides_by_address_or_domain():
    roles = policy({"launch": ["ana@example.com"]})
    assert Access(roles, ANA).may_change()
    assert not Access(roles, BOB).may_change()
    assert Access(roles, BOB).why_not() == "bob@elsewhere.org is not on this deployment's launch list"
    assert Access(policy({"launch": ["@elsewhere.org"]}), BOB).may_change()
    assert Access(policy({"launch": ["elsewhere.org"]}), BOB).may_change()  # a bare domain means the domain
    eve = Visitor(email="eve@notexample.com", signed_in=True)
    assert not Access(policy({"launch": ["@example.com"]}), eve).may_change()  # a domain is matched whole


def test_with_sign_in_a_signed_out_visitor_may_view_but_not_launch_even_from_this_machine():
    roles = policy({"launch": ["ana@example.com"]})
    for visitor in (ANONYMOUS, LOCAL):
        access = Access(roles, visitor)
        assert access.may_view() and not access.may_change()
        assert access.why_not() == "sign in first"


def test_e_mail_addresses_compare_without_case():
    roles = policy({"launch": ["Ana@Example.com"]})
    visitor = Visitor.from_user({"is_logged_in": True, "email": "ANA@example.COM"}, None, {})
    assert Access(roles, visitor).may_change()


def test_the_launch_list_can_come_from_the_environment():
    roles = Policy.from_settings({"auth": AUTH}, {"EVALCORE_LAUNCH": "ana@example.com, @elsewhere.org"})
    assert roles.launch == ("ana@example.com", "@elsewhere.org")
    assert Access(roles, ANA).may_change() and Access(roles, BOB).may_change()


def test_signed_in_and_everyone_open_launching_wider():
    assert Access(policy({"launch": "signed-in"}), BOB).may_change()
    assert not Access(policy({"launch": "signed-in"}), ANONYMOUS).may_change()
    assert Access(policy({"launch": "everyone"}), ANONYMOUS).may_change()


def test_viewing_can_require_sign_in():
    roles = policy({"view": "signed-in", "launch": ["ana@example.com"]})
    assert Access(roles, BOB).may_view() and Access(roles, ANA).may_view()
    assert not Access(roles, ANONYMOUS).may_view()
    assert not Access(roles, LOCAL).may_view()  # sign-in configured: this machine signs in too


def test_without_sign_in_this_machine_may_change_and_a_deployment_is_read_only():
    roles = policy(auth=None)
    assert Access(roles, LOCAL).may_change()
    assert not Access(roles, ANONYMOUS).may_change()
    assert "read-only" in str(Access(roles, ANONYMOUS).why_not())
    assert Access(policy({"launch": "everyone"}, auth=None), ANONYMOUS).may_change()  # the deployer's opt-in
    assert not Access(policy(auth=None, EVALCORE_DEPLOYED="1"), LOCAL).may_change()  # behind a local proxy


def test_viewer_mode_refuses_everyone_even_the_launch_list_and_this_machine():
    roles = policy({"launch": "everyone"}, EVALCORE_VIEWER="1")
    for visitor in (ANA, LOCAL, ANONYMOUS):
        with pytest.raises(AccessDenied, match=r"Deleting a run is turned off in this deployment \(viewer mode"):
            Access(roles, visitor).require("delete")


def test_a_visitor_is_local_only_without_an_address_and_without_a_proxy_header():
    assert Visitor.from_user({}, None, {"Host": "localhost:8501"}).local
    assert not Visitor.from_user({}, "203.0.113.9", {}).local
    # A server on every interface sees this machine's browser as loopback in other spellings.
    assert all(Visitor.from_user({}, ip, {}).local for ip in ("::ffff:127.0.0.1", "::1", "127.0.0.2"))
    assert not Visitor.from_user({}, "::ffff:203.0.113.9", {}).local
    assert not Visitor.from_user({}, "not an address", {}).local
    assert not Visitor.from_user({}, None, {"X-Forwarded-For": "203.0.113.9"}).local
    assert not Visitor.from_user({}, None, {"Forwarded": "for=203.0.113.9"}).local


def test_a_run_records_a_signed_in_launcher_only():
    assert ANA.stamp() == {"email": "ana@example.com", "name": "Ana"}
    assert ANONYMOUS.stamp() is None and LOCAL.stamp() is None


@pytest.mark.parametrize(
    ("access", "message"),
    [
        ({"launch": 42}, "launch must be"),
        ({"launch": ["ana @example.com"]}, "'ana @example.com' is not an e-mail address or a domain"),
        ({"launch": "nobody"}, "'nobody' is not an e-mail address or a domain"),
        ({"view": "friends"}, 'view must be "everyone" or "signed-in"'),
    ],
)
def test_a_misconfigured_access_section_is_refused_in_a_sentence(access, message):
    with pytest.raises(EvalcoreError, match=message):
        Policy.from_settings({"auth": AUTH, "evalcore": {"access": access}}, {})


def test_launch_is_refused_in_the_engine_call_for_a_viewer_and_an_unlisted_user(tmp_path):
    db = tmp_path / "evalcore.db"
    plan = jobs.build_plan(load_suite(write_suite(tmp_path / "suite")))
    roles = policy({"launch": ["ana@example.com"]})
    for visitor, why in ((ANONYMOUS, "sign in first"), (BOB, "not on this deployment's launch list")):
        with pytest.raises(AccessDenied, match=f"Launching a run is not allowed here .*{why}"):
            jobs.launch_run(plan, db, Access(roles, visitor))
    assert Store(db).list_runs() == []


def test_an_allowlisted_user_launches_and_the_run_records_them(tmp_path):
    db = tmp_path / "evalcore.db"
    plan = jobs.build_plan(load_suite(write_suite(tmp_path / "suite")))
    job = jobs.launch_run(plan, db, Access(policy({"launch": ["@example.com"]}), ANA))
    job.join(timeout=60)
    assert job.status == "completed"
    store = Store(db)
    assert store.list_runs()[0]["launched_by"] == "ana@example.com"
    assert store.load_run(job.run_id, results=False).info.provenance["launched_by"] == {
        "email": "ana@example.com",
        "name": "Ana",
    }


def test_resume_delete_save_and_pin_are_refused_in_the_engine_call(tmp_path):
    store = Store(tmp_path / "evalcore.db")
    store.import_run(make_run(2, 3, run_id="run-done"))
    store.import_run(make_run(2, 3, run_id="run-stopped", status="interrupted"))
    before = [(r["id"], r["status"], r["results"]) for r in store.list_runs()]
    roles = policy({"launch": ["ana@example.com"]})
    for visitor in (ANONYMOUS, BOB):
        access = Access(roles, visitor)
        with pytest.raises(AccessDenied, match="Resuming a run is not allowed"):
            jobs.resume_run("run-stopped", store.path, access)
        with pytest.raises(AccessDenied, match="Deleting a run is not allowed"):
            changes.delete_run(store, "run-done", access)
        with pytest.raises(AccessDenied, match="Saving a run is not allowed"):
            changes.save_run(store, make_run(1, 1, run_id="run-new"), access)
        with pytest.raises(AccessDenied, match="Pinning a baseline is not allowed"):
            changes.pin_baseline(store, "intake", "run-done", "m", access)
    assert [(r["id"], r["status"], r["results"]) for r in store.list_runs()] == before
    changes.delete_run(store, "run-done", Access(roles, ANA))
    assert [r["id"] for r in store.list_runs()] == ["run-stopped"]


@pytest.mark.parametrize("verified", [False, "false"])
def test_a_sign_in_whose_provider_says_the_address_is_unverified_is_refused_and_says_why(verified):
    user = {"is_logged_in": True, "email": "ada@example.com", "email_verified": verified}
    visitor = Visitor.from_user(user, "203.0.113.9", {})
    assert not visitor.signed_in and visitor.email is None
    assert visitor.refused == (
        "ada@example.com: the sign-in provider says this address is not verified; verify it with the provider, "
        "then sign in again"
    )
    policy = Policy(auth=True, launch=("ada@example.com",), rate="signed-in", view="signed-in")
    access = Access(policy, visitor)
    assert not access.may_view() and not access.may_change() and not access.may_rate()


def test_a_sign_in_with_a_verified_address_or_no_claim_is_signed_in():
    for user in ({"email_verified": True}, {}):
        visitor = Visitor.from_user({"is_logged_in": True, "email": "ada@example.com", **user}, None, {})
        assert visitor.signed_in and visitor.email == "ada@example.com" and visitor.refused is None
