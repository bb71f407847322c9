"""Who rates on the Rate page: a signed-in visitor's address, else a name they type, stored marked unverified so
it never passes for someone's sign-in."""

from __future__ import annotations

import streamlit as st

from evalcore.explorer import rating
from evalcore.explorer.access import Access
from pages._state import Keys
from pages._widgets import plain


def rater(access: Access) -> str:
    """The rater ratings are stored under; stops the page until there is one it may use."""
    visitor = access.visitor
    if visitor.signed_in and visitor.email:
        who = visitor.email
    else:
        typed = st.text_input("Your name", key=Keys.RATER).strip()
        if not typed:
            st.caption("Type your name once: your ratings and your place in the queue are kept under it (marked "
                       "unverified: sign in to rate under your address).")  # fmt: skip
            st.stop()
        if problem := rating.typed_name_problem(typed):
            st.error(plain(problem))
            st.stop()
        who = rating.typed_rater(typed)
    if problem := rating.rater_problem(who):
        st.error(plain(problem))
        st.stop()
    return who
