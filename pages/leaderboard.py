"""Leaderboard: who wins, by how much, at what cost, and how sure we are."""

from __future__ import annotations

import streamlit as st

from evalcore.analysis import charts
from evalcore.analysis import view as explorer
from pages import _shared as shared
from pages._shared import Keys, plain

shared.use_app_navigation()
st.title("Leaderboard")
now = shared.current()
if now is None:
    shared.empty_store()
    st.stop()

st.caption(plain(now.label))
if now.run.info.status == "running":
    st.info("This run is still going: the tables show the results so far.", icon=":material/hourglass_top:")


def filter_widget(column, label: str, name: str, options: list[str]) -> None:
    key = Keys.FILTER + name
    st.session_state[key] = st.session_state[Keys.FILTERS].get(name, [])
    column.multiselect(label, options, key=key, placeholder="all", on_change=shared.keep_filter, args=(name,))


if st.session_state.get(Keys.FILTERS_FOR) != now.ref:
    st.session_state[Keys.FILTERS] = {}
    st.session_state[Keys.FILTERS_FOR] = now.ref
# Filtered, the view comes from the run's frame: so do the lists, when the run has no saved summary (an
# upload, a run still going). Its whole summary, bootstrap included, is computed only for an unfiltered view.
options = shared.filter_options(now) if st.session_state[Keys.FILTERS] else shared.summary(now).options
choices = {"dataset": options["datasets"], "variant": options["variants"], "contender": options["contenders"],
           **{f"meta_{key}": values for key, values in options["metadata"].items()}}
# A value this run does not have (from an address, or another run's) is dropped.
st.session_state[Keys.FILTERS] = {
    name: kept for name, values in st.session_state.get(Keys.FILTERS, {}).items()
    if (kept := [v for v in values if v in choices.get(name, [])])}
# Drawn only while open (on_change="rerun"): its multiselects held back a fresh tab's first table. Its label
# stays the same (a new label closes it in the browser), so a caption says what is filtered, open or closed.
box = st.expander("Filters", icon=":material/filter_list:", key=Keys.FILTERS_OPEN, on_change="rerun")
names = {"dataset": "datasets", "variant": "variants", "contender": "contenders"}
if active := st.session_state[Keys.FILTERS]:
    st.caption(plain("Filtered by " + "; ".join(
        f"{names.get(name, 'metadata ' + name.removeprefix('meta_'))}: {', '.join(values)}"
        for name, values in active.items())))
if box.open:
    with box:
        left, middle, right = st.columns(3)
        filter_widget(left, "Datasets", "dataset", options["datasets"])
        filter_widget(middle, "Variants", "variant", options["variants"])
        filter_widget(right, "Contenders", "contender", options["contenders"])
        for column, (key, values) in zip(st.columns(3) * 9, options["metadata"].items(), strict=False):
            filter_widget(column, f"metadata: {plain(key)}", f"meta_{key}", values)  # the key is from a run file

view = shared.leaderboard_of(now)
if view.overall.empty:
    st.warning("No result matches these filters.")
    st.stop()

st.success(explorer.headline(view), icon=":material/trophy:")
st.subheader("Overall")
event = shared.show_table(view.overall, view.columns, key=Keys.LEADERBOARD_TABLE)
if event.selection.rows:
    shared.open_cases(str(view.overall["contender"].iloc[event.selection.rows[0]]))
st.caption("Click a row to open that contender's cases. Click a column header to sort.")

st.subheader("Per dataset")
# Lazy tabs: only the open one is drawn, so the page is on screen sooner.
tabs = st.tabs([plain(n) for n in view.per_dataset], key=Keys.DATASET_TAB, on_change="rerun")
for tab, table in zip(tabs, view.per_dataset.values(), strict=True):
    if tab.open:
        with tab:
            shared.show_table(table, view.columns)

st.subheader("Charts")
figures = {
    "Score vs cost": lambda: charts.score_vs(view.ranked, "cost"),
    "Score vs time": lambda: charts.score_vs(view.ranked, "time"),
    "Metrics": lambda: charts.metric_bars(view.ranked, now.run.metrics),
    "Contender × dataset": lambda: charts.dataset_heatmap(view.ranked_by_dataset),
}
for tab, (title, figure) in zip(st.tabs(list(figures), key=Keys.CHART_TAB, on_change="rerun"), figures.items(),
                                strict=True):
    if not tab.open:
        continue
    with tab:
        if not shared.charts_now():
            st.caption("The chart follows once the tables are on screen.")
            continue
        picked = st.plotly_chart(figure(), on_select="rerun", selection_mode="points", key=f"chart_{title}")
        points = (picked or {}).get("selection", {}).get("points", [])
        if points and points[0].get("customdata"):
            shared.open_cases(str(points[0]["customdata"]))

with st.expander("Glossary", icon=":material/help:"):
    st.text("\n".join(view.glossary))
