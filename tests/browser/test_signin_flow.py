"""Sign-in on a deployment, in a real browser: ``streamlit run app.py`` with ``[auth]`` pointing at the tests'
local OpenID Connect provider (tests/oidc_provider.py) and a launch list of one address.

A signed-out visitor sees runs but no Run page and no Launch button; the listed user signs in, launches a run
and the Runs page says who launched it; an unlisted user is told why they may not launch.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.conftest import _free_port, screenshot, settled, streamlit_server

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect
pytest.importorskip("authlib", reason="st.login needs Authlib: pip install 'streamlit[auth]'")

from tests.oidc_provider import OIDCProvider, oidc_provider, write_auth_secrets  # noqa: E402

LISTED = {"email": "ada@example.com", "name": "Ada Lovelace"}
UNLISTED = {"email": "bob@elsewhere.org", "name": "Bob"}


@pytest.fixture(scope="module")
def provider() -> Iterator[OIDCProvider]:
    with oidc_provider() as started:
        yield started


@pytest.fixture(scope="module")
def signed_url(provider: OIDCProvider, demo_run_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server of its own with sign-in and a launch list (the browser must use the redirect URI's host)."""
    folder = tmp_path_factory.mktemp("signed")
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    secrets = write_auth_secrets(
        folder / "secrets.toml", provider, url, {"evalcore.access": {"launch": [LISTED["email"]]}}
    )
    with streamlit_server(
        folder / "evalcore.db", demo_run_file.parent, folder / "streamlit.log", port, [f"--secrets.files={secrets}"]
    ) as served:
        yield served


@pytest.fixture
def tab(chromium, signed_url: str):  # noqa: ANN001, ANN201
    """A tab of its own browser context: no sign-in cookie from another test."""
    context = chromium.new_context(viewport={"width": 1280, "height": 1000})
    context.set_default_timeout(20_000)
    page = context.new_page()
    page.goto(signed_url)
    expect(page.get_by_test_id("stSidebarNavLink").first).to_be_visible()
    settled(page)
    yield page
    context.close()


def nav_labels(page) -> list[str]:  # noqa: ANN001
    """The sidebar's page names (each link's text ends with its label, after its icon's name)."""
    return [link.inner_text().strip().split("\n")[-1] for link in page.get_by_test_id("stSidebarNavLink").all()]


def sign_in(page, provider: OIDCProvider, user: dict) -> None:  # noqa: ANN001
    provider.next_user = user
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_text(f"Signed in as {user['email']}")).to_be_visible()
    settled(page)


def test_a_signed_out_visitor_sees_runs_but_cannot_launch(tab, signed_url):  # noqa: ANN001
    expect(tab.get_by_text(re.compile(r"^Winner: "))).to_be_visible()
    assert nav_labels(tab) == ["Leaderboard", "Cases", "Runs", "Compare", "Upload"]
    expect(tab.get_by_role("button", name="Sign in")).to_be_visible()
    screenshot(tab, "signin_signed_out")
    tab.goto(f"{signed_url}/run")
    expect(tab.get_by_text("Launching runs is not open to you here: sign in first.")).to_be_visible()
    expect(tab.get_by_role("button", name="Launch")).to_have_count(0)


def test_the_listed_user_signs_in_launches_and_is_recorded(tab, provider, signed_url):  # noqa: ANN001
    sign_in(tab, provider, LISTED)
    expect(tab.get_by_text("Signed in as ada@example.com: may launch, resume and delete runs.")).to_be_visible()
    assert nav_labels(tab) == ["Leaderboard", "Cases", "Run", "Runs", "Compare", "Upload", "Rate"]
    tab.get_by_test_id("stSidebarNavLink").filter(has_text=re.compile(r"Run$")).click()
    expect(tab.get_by_role("heading", name="Run", exact=True)).to_be_visible()
    settled(tab)
    cases = tab.get_by_label("Cases per dataset (0: all)")
    cases.fill("1")
    cases.press("Enter")
    settled(tab)
    tab.get_by_role("button", name="Launch").click()
    expect(tab.get_by_text("The run is complete.")).to_be_visible(timeout=60_000)
    tab.get_by_test_id("stSidebarNavLink").filter(has_text="Runs").click()
    expect(tab.get_by_role("heading", name="Runs")).to_be_visible()
    settled(tab)
    table = tab.get_by_test_id("stDataFrame").first
    expect(table).to_contain_text("launched by")
    expect(table).to_contain_text("ada@example.com")
    screenshot(tab, "signin_runs_launched_by")


def test_an_unlisted_user_is_told_why_they_may_not_launch(tab, provider, signed_url):  # noqa: ANN001
    sign_in(tab, provider, UNLISTED)
    expect(tab.get_by_text("Signed in as bob@elsewhere.org: may view runs.")).to_be_visible()
    assert "Run" not in nav_labels(tab) and "Runs" in nav_labels(tab)
    tab.goto(f"{signed_url}/run")
    expect(tab.get_by_text("bob@elsewhere.org is not on this deployment's launch list")).to_be_visible()
    expect(tab.get_by_role("button", name="Launch")).to_have_count(0)
    screenshot(tab, "signin_unlisted_run_page")
    tab.get_by_role("button", name="Sign out").click()
    expect(tab.get_by_role("button", name="Sign in")).to_be_visible()


def test_without_sign_in_the_owner_launches_from_a_server_on_every_interface(chromium, demo_run_file, tmp_path):
    """``streamlit run app.py`` listens on every interface: a browser on 127.0.0.1 then arrives as
    ``::ffff:127.0.0.1``, which is this machine too (it was once taken for a visitor from elsewhere)."""
    with streamlit_server(
        tmp_path / "evalcore.db", demo_run_file.parent, tmp_path / "streamlit.log", address=None
    ) as url:
        context = chromium.new_context(viewport={"width": 1280, "height": 1000})
        page = context.new_page()
        page.goto(url)
        expect(page.get_by_text(re.compile(r"^Winner: "))).to_be_visible(timeout=30_000)
        settled(page)
        assert "Run" in nav_labels(page)
        expect(page.get_by_text("Read-only deployment")).to_have_count(0)
        context.close()


def test_a_sign_in_with_an_unverified_address_is_refused_and_says_why(tab, provider, signed_url):  # noqa: ANN001
    provider.next_user = {**LISTED, "email_verified": False}
    tab.get_by_role("button", name="Sign in").click()
    expect(tab.get_by_text("the sign-in provider says this address is not verified")).to_be_visible()
    expect(tab.get_by_text("Signed in as")).to_have_count(0)
    assert "Run" not in nav_labels(tab)
    tab.get_by_role("button", name="Sign out").click()
    expect(tab.get_by_role("button", name="Sign in")).to_be_visible()
