"""The filters every table follows: kept in the session apart from their widgets, the leaderboard's Filters
panel, and the widgets the Cases page shares with it.

Streamlit drops a widget's state on a page that does not draw it (another page, or the Filters closed);
the filters outlive both, and the address bar carries them.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import streamlit as st

from evalcore.analysis.tables import view
from pages import _loaders as loaders
from pages._state import Keys
from pages._widgets import plain

_NAMES = {"dataset": "datasets", "variant": "variants", "contender": "contenders"}


def filters() -> view.Filters:
    """The leaderboard's filters, as the session keeps them."""
    chosen = st.session_state.get(Keys.FILTERS, {})
    metadata = {name.removeprefix("meta_"): list(v) for name, v in chosen.items() if name.startswith("meta_") and v}
    return view.Filters(
        list(chosen.get("dataset", [])), list(chosen.get("variant", [])), list(chosen.get("contender", [])), metadata
    )


def keep_filter(name: str) -> None:
    """A filter's multiselect changed: keep its values with the others."""
    chosen = {**st.session_state.get(Keys.FILTERS, {}), name: list(st.session_state[Keys.FILTER + name])}
    st.session_state[Keys.FILTERS] = {n: values for n, values in chosen.items() if values}


def run_filters(now: loaders.Current, options: dict[str, Any]) -> view.Filters:
    """The filters, made the current run's: another run's are dropped, and so is a value this run does not have
    (from an address, or another run's). ``options`` are the run's filter values (``filter_options``)."""
    if st.session_state.get(Keys.FILTERS_FOR) != now.ref:
        st.session_state[Keys.FILTERS] = {}
        st.session_state[Keys.FILTERS_FOR] = now.ref
    choices = {
        "dataset": options["datasets"],
        "variant": options["variants"],
        "contender": options["contenders"],
        **{f"meta_{key}": values for key, values in options["metadata"].items()},
    }
    st.session_state[Keys.FILTERS] = {
        name: kept
        for name, values in st.session_state.get(Keys.FILTERS, {}).items()
        if (kept := [v for v in values if v in choices.get(name, [])])
    }
    return filters()


def filters_caption(leave_out: Collection[str] = (), where: str = "") -> None:
    """A caption saying what is filtered (but the filters ``leave_out``), when anything is, and ``where``."""
    active = {n: v for n, v in st.session_state.get(Keys.FILTERS, {}).items() if n not in leave_out}
    if active:
        said = (
            f"{_NAMES.get(name, 'metadata ' + name.removeprefix('meta_'))}: {', '.join(values)}"
            for name, values in active.items()
        )
        st.caption(plain("Filtered by " + "; ".join(said) + where))


def filters_panel(now: loaders.Current) -> None:
    """The Filters expander of the current run's leaderboard, with a caption saying what is filtered."""
    if st.session_state.get(Keys.FILTERS_FOR) != now.ref:
        st.session_state[Keys.FILTERS] = {}
    # Filtered, the view comes from the run's frame: so do the lists, when the run has no saved summary (an
    # upload, a run still going). Its whole summary, bootstrap included, is computed only for an unfiltered view.
    options = loaders.filter_options(now) if st.session_state.get(Keys.FILTERS) else loaders.summary(now).options
    run_filters(now, options)
    # Drawn only while open (on_change="rerun"): its multiselects would hold back a fresh tab's first table. Its
    # label stays the same (a new label closes it in the browser), so a caption says what is filtered, open or not.
    box = st.expander("Filters", icon=":material/filter_list:", key=Keys.FILTERS_OPEN, on_change="rerun")
    filters_caption()
    if box.open:
        with box:
            left, middle, right = st.columns(3)
            filter_widget(left, "Datasets", "dataset", options["datasets"])
            filter_widget(middle, "Variants", "variant", options["variants"])
            filter_widget(right, "Contenders", "contender", options["contenders"])
            for column, (key, values) in zip(st.columns(3) * 9, options["metadata"].items(), strict=False):
                filter_widget(column, f"metadata: {plain(key)}", f"meta_{key}", values)  # the key is from a run file


def filter_widget(column: Any, label: str, name: str, options: list[str]) -> list[str]:
    """One filter's multiselect in ``column``: it shows and sets the kept filter, on every page that draws it."""
    key = Keys.FILTER + name
    st.session_state[key] = st.session_state[Keys.FILTERS].get(name, [])
    return column.multiselect(label, options, key=key, placeholder="all", on_change=keep_filter, args=(name,))
