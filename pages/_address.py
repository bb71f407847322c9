"""The address bar: a shared URL's run, filters and weights become the session's, and back; on the
Compare page, its two runs and pairs too; on the Cases page, its contender, open case, toggles and search.

Copying the address shares the view: app.py reads it once per session before the sidebar is drawn, and
writes it after, before the page runs (a page may stop early, and widget state is current by then). The
Compare page writes it again once it has picked its runs (the first view picks them itself).
"""

from __future__ import annotations

import streamlit as st

from evalcore.analysis.tables import view
from evalcore.explorer import cases_address, sharing
from pages import _loaders as loaders
from pages._filters import filters
from pages._sidebar import weights
from pages._state import CASES_URL, COMPARE_URL, Keys


def read_address_bar() -> None:
    """Once per session: the run, filters and weights of a shared URL become the session's state."""
    if st.session_state.get(Keys.QUERY_READ):
        return
    st.session_state[Keys.QUERY_READ] = True
    state = sharing.decode_query({k: st.query_params.get_all(k) for k in st.query_params})
    index = loaders.runs_index()
    refs = list(index)
    state.run = sharing.resolve_ref(state.run, refs)  # a short id, as the app shows them, opens its run
    if state.run and state.run not in index and index:
        # The run the sidebar falls back to stands in, and the filters go with it: it keeps those it has.
        shown = sharing.default_run(list(index.values()))
        st.session_state[Keys.MISSING_RUN] = (state.run, shown)
        state.run = shown
    if state.run:
        st.session_state[Keys.RUN] = state.run
    st.session_state[Keys.FILTERS_FOR] = state.run
    chosen = {
        name: list(getattr(state.filters, attr))
        for attr, name in (("datasets", "dataset"), ("variants", "variant"), ("contenders", "contender"))
    }
    chosen.update({f"meta_{key}": list(values) for key, values in state.filters.metadata.items()})
    st.session_state[Keys.FILTERS] = {name: values for name, values in chosen.items() if values}
    if state.weights is not None:
        st.session_state[Keys.URL_WEIGHTS] = state.weights
    read_cases_view()
    compared = sharing.decode_comparison({k: st.query_params.get_all(k) for k in st.query_params})
    if compared != sharing.ComparisonState():
        base, candidate = (sharing.resolve_ref(ref, refs) for ref in (compared.base, compared.candidate))
        st.session_state[Keys.COMPARISON] = sharing.ComparisonState(base, candidate, compared.pairs)


def read_cases_view() -> None:
    """A shared Cases address's contender, open case, toggles and search become the Cases page's."""
    cases = cases_address.decode_cases({k: st.query_params.get_all(k) for k in st.query_params})
    if cases.by:
        st.session_state[Keys.CASE_CONTENDER] = cases.by
    if cases.case is not None:
        st.session_state[Keys.CASE_OPEN] = cases.case
    for name in cases.only:
        st.session_state[Keys.CASE_ONLY + name] = True
    if cases.search:
        st.session_state[Keys.CASE_SEARCH] = cases.search


def share_cases_view(state: cases_address.CasesState) -> None:
    """The Cases page's view, put in the address bar now (the page picks its case after the bar was written)
    and kept for the next script run's."""
    st.session_state[Keys.CASES_VIEW] = state
    now_params = {k: st.query_params.get_all(k) for k in st.query_params}
    wanted = {k: v for k, v in now_params.items() if k not in cases_address.CASES_KEYS}
    wanted |= {k: v if isinstance(v, list) else [v] for k, v in cases_address.encode_cases(state).items()}
    if now_params != wanted:
        st.query_params.from_dict(wanted)


def say_missing_run() -> None:
    """While the run standing in for one the address named (and this store lacks) is shown, say so."""
    missing = st.session_state.get(Keys.MISSING_RUN)
    if missing is None:
        return
    asked, shown = missing
    info = loaders.runs_index().get(shown)
    if st.session_state.get(Keys.RUN) != shown or info is None:
        del st.session_state[Keys.MISSING_RUN]  # another run was picked: the note is no longer true
        return
    st.warning(sharing.missing_run_note(asked, info), icon=":material/link_off:")


def write_address_bar(page: str | None = None) -> None:
    """Put the run, filters and weights in the address bar, so copying it shares this view; on the
    Compare page (``page`` is its URL path), its comparison too."""
    now_params = {k: st.query_params.get_all(k) for k in st.query_params}
    now = loaders.current()
    if now is None or now.ref.startswith(loaders.UPLOAD_PREFIX):
        wanted = {k: v for k, v in now_params.items() if k not in sharing.COMPARISON_KEYS}
    else:
        chosen = weights(now)
        changed = chosen != loaders.own_weights(now.run)
        wanted = dict(sharing.encode_query(view.ViewState(now.ref, filters(), chosen if changed else None)))
    cases = st.session_state.get(Keys.CASES_VIEW)
    if page == CASES_URL and cases is not None and now is not None and not now.ref.startswith(loaders.UPLOAD_PREFIX):
        wanted |= cases_address.encode_cases(cases)
    compared = st.session_state.get(Keys.COMPARISON)
    if page == COMPARE_URL and compared is not None:
        uploaded = (compared.base or "").startswith(loaders.UPLOAD_PREFIX) or (compared.candidate or "").startswith(
            loaders.UPLOAD_PREFIX
        )
        if not uploaded:  # an upload lives in this session only: its address would open nothing
            wanted |= sharing.encode_comparison(compared)
    if now_params != {k: v if isinstance(v, list) else [v] for k, v in wanted.items()}:
        st.query_params.from_dict(wanted)
