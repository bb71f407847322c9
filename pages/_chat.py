"""The Cases page's conversation section: a transcript as a chat, each reply with its turn's scores beside it
(the messages come from :mod:`evalcore.explorer.transcript`)."""

from __future__ import annotations

import streamlit as st

from evalcore.core.records import Result
from evalcore.explorer.transcript import chat_of
from pages._widgets import plain


def show_chat(result: Result) -> bool:
    """The result's conversation as a chat; False (nothing shown) when its trace is no conversation."""
    messages = chat_of(result)
    if messages is None:
        return False
    st.markdown("**Conversation**")
    simulator = result.diagnostics.get("simulator")
    if simulator:
        st.caption(
            plain(f"Simulated user {simulator['model']}: {simulator['calls']} calls, apart from the contender's")
        )
    for message in messages:
        with st.chat_message(message.role):
            st.text(message.text)
            scores = " · ".join(f"{name} {_score(v)}" for name, v in message.scores.items())
            note = " · ".join(p for p in (scores, message.note) if p)
            if note:
                st.caption(plain(note))
    return True


def _score(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"
