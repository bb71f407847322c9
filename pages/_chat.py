"""A transcript as a chat: the Cases page's conversation section, each reply with its turn's scores beside it,
and the Rate page's blind conversations (the messages come from :mod:`evalcore.explorer.transcript`)."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from evalcore.core.records import Result
from evalcore.explorer.transcript import ChatMessage, chat_of
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
    show_messages(messages)
    return True


def show_messages(messages: Sequence[ChatMessage]) -> None:
    """Chat messages in order, each with its scores and note under it (a blind chat has none: the Rate page's)."""
    for message in messages:
        with st.chat_message(message.role):
            st.text(message.text)
            scores = " · ".join(f"{name} {_score(v)}" for name, v in message.scores.items())
            note = " · ".join(p for p in (scores, message.note) if p)
            if note:
                st.caption(plain(note))


def _score(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"
