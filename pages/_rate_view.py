"""What the Rate page shows of an item: the case, then the reply (or the two, A and B side by side); a
conversation whole, as a blind chat (:mod:`pages._chat`), with the simulated user's goal."""

from __future__ import annotations

import streamlit as st

from evalcore.explorer.rating import BlindView
from pages import _chat


def show_item(view: BlindView) -> None:
    """The case and its replies (conversations) in the order shown, naming no contender."""
    if view.input or view.expected or not view.chats:
        with st.container(border=True):
            if view.input or not view.chats:
                st.markdown("**The user's goal**" if view.chats else "**Input**")
                st.text(view.input)
            if view.expected:
                st.markdown("**Expected final state**" if view.chats else "**Expected**")
                st.text(view.expected)
    pair = len(view.replies) == 2
    for column, side, reply, chat in zip(
        st.columns(len(view.replies)), "AB", view.replies, view.chats or [None] * len(view.replies), strict=False
    ):
        with column.container(border=True):
            st.markdown(f"**{side}**" if pair else ("**Conversation**" if chat is not None else "**Reply**"))
            if chat is None:
                st.text(reply)
            else:
                _chat.show_messages(chat)
