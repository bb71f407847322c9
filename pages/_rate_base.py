"""The Rate page's base-and-candidate mode: the base run picked beside the candidate (the sidebar's run)."""

from __future__ import annotations

import streamlit as st

from evalcore.core.errors import EvalcoreError
from evalcore.core.records import Run
from evalcore.explorer import rating, sharing
from pages import _loaders
from pages._state import Keys
from pages._widgets import plain


def against_base(here: str, candidate: Run) -> tuple[Run, list[tuple[str, str]]]:
    """The run that holds ratings of a base run's replies against ``candidate``'s, and its pairs; stops the page
    when no base run fits. ``here``: the candidate's ref."""
    index = _loaders.runs_index()
    suite = candidate.info.suite
    bases = [ref for ref, info in index.items() if info.get("suite") == suite and ref != here
             and not ref.startswith((_loaders.UPLOAD_PREFIX, rating.RUN_PREFIX))]  # fmt: skip
    if not bases:
        st.info(plain(f"No other stored run of suite {suite} to rate this one against: run the suite again."))
        st.stop()
    base = st.selectbox("Base run", bases, key=Keys.RATE_BASE, format_func=lambda ref: sharing.run_label(index[ref]),
                        help="Its replies face this run's (the candidate, picked in the sidebar), blind.")  # fmt: skip
    try:
        return rating.base_candidate_run(_loaders.stored_run(base), candidate)
    except EvalcoreError as exc:
        st.error(plain(str(exc)))
        st.stop()
