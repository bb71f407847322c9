"""The sidebar every page shares: the run picker and the weight sliders, and the weights they set."""

from __future__ import annotations

import streamlit as st

from evalcore.analysis.scores.weights import direction_warnings
from evalcore.analysis.tables import view
from evalcore.explorer import sharing
from pages import _loaders as loaders
from pages._filters import filters
from pages._state import Keys


def sidebar(*, weighted: bool = True) -> None:
    """The run picker, on every page, and the weight sliders, on a page whose tables they rank (``weighted``)."""
    index = loaders.runs_index()
    if Keys.PENDING_RUN in st.session_state:
        st.session_state[Keys.RUN] = st.session_state.pop(Keys.PENDING_RUN)
    if not index:
        st.sidebar.caption("No runs yet.")
        return
    if st.session_state.get(Keys.RUN) not in index:
        st.session_state[Keys.RUN] = sharing.default_run(list(index.values()))
    st.sidebar.selectbox(
        "Run",
        list(index),
        key=Keys.RUN,
        format_func=lambda ref: sharing.run_label(index[ref]),
        help="A run from the history, or a file you uploaded",
        persist_state="session",
    )
    now = loaders.current()
    if now is not None and weighted:
        weight_sliders(now)


def weight_sliders(now: loaders.Current) -> None:
    """One slider per weight, each with a caption saying its share of the weighted score."""
    names = view.weight_names(now.metric_set)
    if Keys.URL_WEIGHTS in st.session_state:
        set_weights(sharing.usable_weights(st.session_state.pop(Keys.URL_WEIGHTS), now.metric_set) or {}, names)
        st.session_state[Keys.WEIGHTS_FOR] = now.ref
    elif st.session_state.get(Keys.WEIGHTS_FOR) != now.ref:
        set_weights(loaders.run_weights(now.run), names)
        st.session_state[Keys.WEIGHTS_FOR] = now.ref
    elif any(Keys.WEIGHT + n not in st.session_state for n in names):
        # st.switch_page drops the sliders' state: the sliders would come back at -100 (their minimum) for
        # one script run, while the browser still showed the positions the user had set.
        kept = st.session_state.get(Keys.WEIGHT_POSITIONS, {})
        for name in names:
            st.session_state[Keys.WEIGHT + name] = kept.get(name, 0)
    st.sidebar.subheader("Weights")
    unweighted = st.sidebar.empty()
    positions, captions = {}, {}
    for name in names:
        positions[name] = st.sidebar.slider(
            name,
            -view.SLIDER_MAX,
            view.SLIDER_MAX,
            step=1,
            key=Keys.WEIGHT + name,
            format="%+d",
            help=view.weight_hint(name, now.metric_set),
            persist_state="session",  # kept on a page that leaves the sliders out
        )
        captions[name] = st.sidebar.empty()
    st.session_state[Keys.WEIGHT_POSITIONS] = positions
    chosen = view.slider_weights(positions)
    shares = view.live_shares(chosen)
    if not any(positions.values()):
        unweighted.caption("No weights set: ranked by score.")
    against = direction_warnings(chosen, now.metric_set)
    for name, caption in captions.items():
        share = shares.get(name, 0.0)
        direction = "lower is better" if positions[name] < 0 else "higher is better"
        if name in against:  # beside the slider that set it
            caption.warning(against[name][0].upper() + against[name][1:] + ".", icon="⚠️")
        else:
            caption.caption(f"{100 * share:.0f}% of the weighted score, {direction}" if share else "not weighted")
    st.sidebar.button(
        "Reset to the run's weights",
        on_click=set_weights,
        args=(loaders.run_weights(now.run), names),
        use_container_width=True,
    )


def set_weights(values: dict[str, float], names: list[str]) -> None:
    """Put the sliders at these weights (a name not in ``values`` at 0)."""
    positions = view.slider_values(values)
    for name in names:
        st.session_state[Keys.WEIGHT + name] = positions.get(name, 0)


def weights(now: loaders.Current) -> dict[str, float]:
    """The sliders' weights (non-zero ones) when the sliders are set for this run, else the run's own."""
    if st.session_state.get(Keys.WEIGHTS_FOR) != now.ref:
        return loaders.own_weights(now.run)
    names = view.weight_names(now.metric_set)  # a stable order keeps the address stable
    return view.slider_weights({n: st.session_state.get(Keys.WEIGHT + n, 0) for n in names})


def leaderboard_of(now: loaders.Current) -> view.LeaderboardView:
    """The selected run's leaderboard under the sliders' weights and the page's filters."""
    chosen, rated = tuple(sorted(weights(now).items())), loaders.rated_key(now)
    return loaders.cached_view(loaders.db_path(), now.ref, now.version, chosen, loaders.filters_key(filters()), rated)
