"""The frame app.py draws around every page, how a page that runs without it gets it, and page switches.

Streamlit takes a folder named ``pages/`` next to the entry point for its legacy multipage mode until a
session runs ``st.navigation``; from then on the whole server ignores the folder (Streamlit documents
this on ``st.navigation``). Until then a URL such as ``/cases`` runs ``pages/cases.py`` alone, without
app.py: that is what the first visitor of a fresh server who opens a deep link gets, and what AppTest
does after ``switch_page``. So every page calls :func:`use_app_frame` first. Outside app.py's frame, it
runs ``st.navigation`` (ending the legacy mode) and asks for a rerun, which goes through app.py, which
routes to the same page by its URL path.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import streamlit as st

from pages._state import CASES, LEADERBOARD, Keys

#: Set while app.py runs a page: each script run has a thread, and so a context, of its own.
_IN_FRAME: ContextVar[bool] = ContextVar("evalcore_in_app_frame", default=False)


@contextmanager
def framed() -> Iterator[None]:
    """app.py runs the page inside this."""
    st.session_state.pop(Keys.REFRAMED, None)
    token = _IN_FRAME.set(True)
    try:
        yield
    finally:
        _IN_FRAME.reset(token)


def use_app_frame(page_file: str) -> None:
    """Rerun through app.py when Streamlit ran this page without it (see the module's docstring).

    A page run on its own as the entry point (``AppTest.from_file("pages/x.py")``) has no app.py to rerun
    through: after one rerun it goes on without the frame.
    """
    if _IN_FRAME.get() or st.session_state.get(Keys.REFRAMED):
        return
    st.session_state[Keys.REFRAMED] = True
    # A navigation's only page becomes its default, served at "/": this page would then not be found at
    # its own URL. So it comes second, after a default that is never run.
    st.navigation([st.Page(_never_run, default=True), st.Page(page_file)], position="hidden")
    st.rerun()


def _never_run() -> None:
    """The default page of :func:`use_app_frame`'s navigation: the rerun that follows routes elsewhere."""


def open_cases(contender: str) -> None:
    """Switch to the Cases page, on this contender's answers."""
    st.session_state[Keys.CASE_CONTENDER] = contender
    st.switch_page(CASES)


def open_run(ref: str, page: str = LEADERBOARD) -> None:
    """Switch to a page (the leaderboard unless told), with this run selected."""
    st.session_state[Keys.PENDING_RUN] = ref
    st.switch_page(page)


def open_case(ref: str, contender: str, dataset: str, case: str, sample: int = 0) -> None:
    """Switch to the Cases page of this run, showing this contender's answer to one case."""
    st.session_state[Keys.CASE_OPEN] = (contender, dataset, case, sample)
    st.session_state[Keys.CASE_CONTENDER] = contender
    open_run(ref, CASES)
