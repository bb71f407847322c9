"""The address bar: a shared URL's run, filters and weights become the session's, and back.

Copying the address shares the view: app.py reads it once per session before the sidebar is drawn, and
writes it after, before the page runs (a page may stop early, and widget state is current by then).
"""

from __future__ import annotations

import streamlit as st

from evalcore.analysis import view as explorer
from evalcore.explorer import sharing
from pages import _loaders as loaders
from pages._filters import filters
from pages._sidebar import weights
from pages._state import Keys


def read_address_bar() -> None:
    """Once per session: the run, filters and weights of a shared URL become the session's state."""
    if st.session_state.get(Keys.QUERY_READ):
        return
    st.session_state[Keys.QUERY_READ] = True
    state = sharing.decode_query({k: st.query_params.get_all(k) for k in st.query_params})
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


def write_address_bar() -> None:
    """Put the run, filters and weights in the address bar, so copying it shares this view."""
    now = loaders.current()
    if now is None or now.ref.startswith(loaders.UPLOAD_PREFIX):
        return
    chosen = weights(now)
    changed = chosen != loaders.own_weights(now.run)
    state = explorer.ViewState(now.ref, filters(), chosen if changed else None)
    wanted = sharing.encode_query(state)
    if {k: st.query_params.get_all(k) for k in st.query_params} != {
        k: v if isinstance(v, list) else [v] for k, v in wanted.items()
    }:
        st.query_params.from_dict(wanted)
