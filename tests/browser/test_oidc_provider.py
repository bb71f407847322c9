"""Streamlit's own sign-in (``st.login`` / ``st.user`` / ``st.logout``) round-trips through the tests' local
OpenID Connect provider (tests/oidc_provider.py), in a real ``streamlit run`` driven by Chromium.

The app is a small one written to a temporary folder, so these tests prove the provider and the secrets
recipe on their own; the explorer's sign-in flows build on them.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import http.client
import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import _free_port, streamlit_server

pytest.importorskip("authlib", reason="st.login needs Authlib: pip install 'streamlit[auth]'")

from tests.oidc_provider import OIDCProvider, oidc_provider, write_auth_secrets  # noqa: E402

pytestmark = pytest.mark.browser

SIGN_IN_APP = """
import streamlit as st

if st.user.is_logged_in:
    st.markdown(f"Signed in as {st.user.email} ({st.user.name})")
    if st.button("Log out"):
        st.logout()
else:
    st.markdown("Signed out")
    if st.button("Log in"):
        st.login()
"""


@contextlib.contextmanager
def _signed_app(folder: Path, provider: OIDCProvider) -> Iterator[str]:
    """``streamlit run`` of :data:`SIGN_IN_APP` whose ``[auth]`` points at ``provider``; yields its URL.

    The server runs in the repository, as the explorer's does, and reads only the secrets file given
    with ``--secrets.files``.
    """
    port = _free_port()
    # The browser must open the app on the host of the redirect URI (127.0.0.1, not localhost).
    url = f"http://127.0.0.1:{port}"
    secrets_file = write_auth_secrets(folder / "secrets.toml", provider, url)
    script = folder / "signin_app.py"
    script.write_text(SIGN_IN_APP, encoding="utf-8")
    with streamlit_server(
        folder / "evalcore.db", folder, folder / "streamlit.log", port, [f"--secrets.files={secrets_file}"], str(script)
    ) as served:
        yield served


@pytest.fixture(scope="module")
def provider() -> Iterator[OIDCProvider]:
    """The local OpenID Connect provider the app signs in through."""
    with oidc_provider() as started:
        yield started


@pytest.fixture(scope="module")
def signed_app_url(provider: OIDCProvider, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The sign-in app's base URL."""
    with _signed_app(tmp_path_factory.mktemp("signin"), provider) as url:
        yield url


@pytest.fixture
def tab(chromium, signed_app_url: str):  # noqa: ANN001, ANN201
    """A fresh tab in its own browser context (no cookies), on the sign-in app."""
    context = chromium.new_context(viewport={"width": 1000, "height": 700})
    context.set_default_timeout(20_000)
    page = context.new_page()
    page.goto(signed_app_url)
    expect(page.get_by_text("Signed out")).to_be_visible()
    yield page
    context.close()


def _cookie_names(page) -> set[str]:  # noqa: ANN001
    return {cookie["name"] for cookie in page.context.cookies()}


def test_login_signs_in_as_the_chosen_user_and_logout_signs_out(tab, provider: OIDCProvider) -> None:  # noqa: ANN001
    provider.next_user = {"email": "grace@example.com", "name": "Grace Hopper"}
    tab.get_by_role("button", name="Log in").click()
    expect(tab.get_by_text("Signed in as grace@example.com (Grace Hopper)")).to_be_visible()
    assert provider.sign_ins[-1] == "grace@example.com"
    asked = provider.authorize_requests[-1]
    assert asked["code_challenge_method"] == "S256" and asked["nonce"] and asked["state"]
    assert "_streamlit_user" in _cookie_names(tab)

    # The identity cookie signs in every new session of the browser, until logout.
    tab.reload()
    expect(tab.get_by_text("Signed in as grace@example.com (Grace Hopper)")).to_be_visible()

    tab.get_by_role("button", name="Log out").click()
    expect(tab.get_by_text("Signed out")).to_be_visible()
    assert provider.logouts[-1]["client_id"] == provider.client_id
    assert "_streamlit_user" not in _cookie_names(tab)
    tab.reload()
    expect(tab.get_by_text("Signed out")).to_be_visible()


def test_a_declined_sign_in_leaves_the_user_signed_out(tab, provider: OIDCProvider) -> None:  # noqa: ANN001
    provider.next_user = None
    sign_ins, asked = len(provider.sign_ins), len(provider.authorize_requests)
    # The round trip (app, provider, callback, app) is one navigation of the tab, redirects and all.
    with tab.expect_navigation(url=tab.url):
        tab.get_by_role("button", name="Log in").click()
    expect(tab.get_by_text("Signed out")).to_be_visible()
    assert len(provider.authorize_requests) == asked + 1
    assert len(provider.sign_ins) == sign_ins
    assert "_streamlit_user" not in _cookie_names(tab)


def _exchange(provider: OIDCProvider, code: str, redirect_uri: str, **form: str) -> tuple[int, dict]:
    body = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri}
    body |= {"client_id": provider.client_id, "client_secret": provider.client_secret} | form
    request = urllib.request.Request(f"{provider.issuer}/token", data=urllib.parse.urlencode(body).encode())
    try:
        with urllib.request.urlopen(request, timeout=5) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def _authorize(provider: OIDCProvider, redirect_uri: str, verifier: str) -> str:
    """Ask for a code as a browser would (no redirect followed); return it."""
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    query = {
        "response_type": "code",
        "client_id": provider.client_id,
        "redirect_uri": redirect_uri,
        "scope": "openid email profile",
        "state": "s",
        "nonce": "n",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
    }
    connection = http.client.HTTPConnection("127.0.0.1", provider.port, timeout=5)
    connection.request("GET", f"/authorize?{urllib.parse.urlencode(query)}")
    location = connection.getresponse().getheader("Location") or ""
    connection.close()
    return urllib.parse.parse_qs(urllib.parse.urlparse(location).query)["code"][0]


def test_the_token_endpoint_checks_the_client_the_code_and_pkce() -> None:
    with oidc_provider() as provider:
        redirect_uri = provider.auth_secrets("http://127.0.0.1:9")["redirect_uri"]
        code = _authorize(provider, redirect_uri, "v" * 43)
        assert _exchange(provider, code, redirect_uri, client_secret="wrong")[0] == 401
        code = _authorize(provider, redirect_uri, "v" * 43)
        assert _exchange(provider, code, redirect_uri, code_verifier="w" * 43) == (
            400,
            {"error": "invalid_grant", "error_description": "PKCE verification failed"},
        )
        code = _authorize(provider, redirect_uri, "v" * 43)
        status, tokens = _exchange(provider, code, redirect_uri, code_verifier="v" * 43)
        assert status == 200 and tokens["token_type"] == "Bearer" and tokens["id_token"].count(".") == 2
        assert _exchange(provider, code, redirect_uri, code_verifier="v" * 43)[0] == 400  # a code works once
