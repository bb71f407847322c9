"""Sign-in with Streamlit's own authentication (``st.login``/``st.logout``, an OIDC provider under ``[auth]``
in ``.streamlit/secrets.toml``), and what the sidebar says of the visitor's rights."""

from __future__ import annotations

import streamlit as st

from evalcore.explorer.access import Access
from pages._widgets import plain


def sign_in_buttons(access: Access, where: object = st, key: str = "") -> None:
    """A sign-in button per provider of ``[auth]`` (one when ``[auth]`` holds a single provider)."""
    for provider in access.policy.providers or ("",):
        label = f"Sign in with {provider.replace('_', ' ').title()}" if provider else "Sign in"
        where.button(  # type: ignore[attr-defined]
            label,
            on_click=st.login,
            args=(provider,) if provider else (),
            icon=":material/login:",
            key=f"sign_in_{key}_{provider}",
            type="primary",
        )


def sign_in_wall(access: Access) -> None:
    """What a visitor sees when only signed-in visitors may view."""
    st.title("evalcore")
    if access.visitor.refused:
        st.error(plain(f"Sign-in refused: {access.visitor.refused}."), icon=":material/no_accounts:")
        st.button("Sign out", on_click=st.logout, icon=":material/logout:", key="sign_out_wall")
        return
    st.info("Sign in to see this app's runs.", icon=":material/lock:")
    sign_in_buttons(access, key="wall")


def sidebar_account(access: Access) -> None:
    """Who the visitor is, what they may do here, and the sign-in or sign-out button."""
    policy, visitor = access.policy, access.visitor
    side = st.sidebar
    if policy.viewer:
        side.caption("Viewer mode: launching and deleting runs is turned off.")
    elif not policy.auth and not access.may_change():
        side.caption("Read-only deployment: launching and deleting runs is turned off.")
    if not policy.auth:
        return
    if visitor.refused:  # signed in with the provider, refused here: signing out lets them try another account
        side.error(plain(f"Sign-in refused: {visitor.refused}."), icon=":material/no_accounts:")
        side.button("Sign out", on_click=st.logout, icon=":material/logout:", key="sign_out")
        return
    if not visitor.signed_in:
        side.caption("Signed-in users on this deployment's list may launch runs.")
        sign_in_buttons(access, side, key="sidebar")
        return
    rights = "may launch, resume and delete runs" if access.may_change() else "may view runs"
    side.caption(plain(f"Signed in as {visitor.label()}: {rights}."))
    side.button("Sign out", on_click=st.logout, icon=":material/logout:", key="sign_out")
