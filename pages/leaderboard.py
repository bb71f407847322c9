"""Leaderboard: who wins, by how much, at what cost, and how sure we are."""

from __future__ import annotations

import streamlit as st

from evalcore.analysis.ranking.leaderboard import FEW_CASES
from evalcore.analysis.tables import charts, view
from evalcore.analysis.tables.text import FEW_MARK, NO_SCORED_MARK
from evalcore.explorer import drilldown, report
from pages import _classification, _filters, _frame, _judging, _loaders, _pairwise, _people, _sidebar, _widgets
from pages._state import Keys
from pages._widgets import plain

_frame.use_app_frame(__file__)
st.title("Leaderboard")
now = _loaders.current()
if now is None:
    _widgets.empty_store()
    st.stop()

st.caption(plain(now.label))
if now.run.info.status == "running":
    st.info("This run is still going: the tables show the results so far.", icon=":material/hourglass_top:")
problems = _loaders.run_notes(now)
if problems:
    st.warning("  \n".join(plain(n[:1].upper() + n[1:] + ".") for n in problems), icon=":material/warning:")

_filters.filters_panel(now)
board = _sidebar.leaderboard_of(now)
if board.overall.empty:
    st.warning("No result matches these filters.")
    st.stop()

path, weights, chosen = _loaders.db_path(), board.weights, _filters.filters()
st.download_button(
    "Download report",
    # Built on click only (every result is read): one HTML file with these weights and filters, live sliders.
    lambda: report.stored_run_report(path, now.ref, report.ReportOptions(weights=weights, filters=chosen)),
    file_name=f"report-{now.ref[:8]}.html",
    mime="text/html",
    icon=":material/download:",
    on_click="ignore",  # a download changes nothing on the page: no rerun
    help="One file anyone can open offline: tables, charts, failing cases and weight sliders.",
)
if board.banner.alone is None:
    st.success(view.headline(board), icon=":material/trophy:")
else:
    st.info(view.headline(board), icon=":material/person:")
st.subheader("Overall")
event = _widgets.show_table(board.overall, board.columns, key=Keys.LEADERBOARD_TABLE)
picked = _widgets.picked_row(event, len(board.overall))
if picked is not None:
    _frame.open_cases(str(board.overall["contender"].iloc[picked]))
notes = ["Click a row to open that contender's cases. Click a column header to sort."]
if not board.weights:
    notes.append("No weights set: ranked by score.")
basis = _loaders.rank_basis(now)
if basis is not None:
    notes.append(plain(basis.note))
if board.few_cases:
    notes.append(
        f"{FEW_MARK}: scored on fewer than {FEW_CASES} cases, so its intervals are wide and its P(best) shaky."
    )
if (board.ranked["scored"] == 0).any():
    notes.append(f"{NO_SCORED_MARK}: every call failed, so it has no rank, score or P(best); it is listed last.")
st.caption("  \n".join(notes))

st.subheader("Per dataset")
# Lazy tabs: only the open one is drawn, so the page is on screen sooner.
tabs = st.tabs([plain(n) for n in board.per_dataset], key=Keys.DATASET_TAB, on_change="rerun")
for tab, table in zip(tabs, board.per_dataset.values(), strict=True):
    if tab.open:
        with tab:
            _widgets.show_table(table, board.columns)

st.subheader("Charts")
#: The widgets the page above the charts is drawn from: the run picker, the weights, the filters, the tables.
OUTSIDE = (Keys.RUN, Keys.FILTERS, Keys.LEADERBOARD_TABLE, Keys.DATASET_TAB), (Keys.WEIGHT, Keys.FILTER)
drawn = _widgets.widget_values(*OUTSIDE)


@st.fragment
def charts_panel() -> None:
    """The chart tabs. A fragment: the script run that draws the first chart, a chart tab opened and a point
    clicked rerun this panel only, so the tables above stay as they are and a click on them is taken at once."""
    _widgets.rerun_app_if_changed(drawn, *OUTSIDE)
    figures = {
        "Score vs cost": lambda: charts.score_vs(board.ranked, "cost"),
        "Score vs time": lambda: charts.score_vs(board.ranked, "time"),
        "Metrics": lambda: charts.metric_bars(board.ranked, now.run.metrics),
        "Contender × dataset": lambda: charts.dataset_heatmap(board.ranked_by_dataset),
    }
    for tab, (title, figure) in zip(
        st.tabs(list(figures), key=Keys.CHART_TAB, on_change="rerun"), figures.items(), strict=True
    ):
        if not tab.open:
            continue
        with tab:
            if not _widgets.charts_now():
                st.caption("The chart follows once the tables are on screen.")
                continue
            picked = st.plotly_chart(figure(), on_select="rerun", selection_mode="points", key=Keys.CHART + title)
            points = (picked or {}).get("selection", {}).get("points", [])
            if points and points[0].get("customdata"):
                _frame.open_cases(str(points[0]["customdata"]))


charts_panel()

_classification.classification_panel(now)
_judging.judge_panel(now)
_pairwise.pairwise_panel(now)
_people.people_panel(now)

prompts = drilldown.prompts_asked(now.run)
if prompts:
    with st.expander(f"Prompts ({len(prompts)})", icon=":material/chat:"):
        for prompt in prompts:
            st.markdown(f"**{plain(prompt['name'])}** · {plain(prompt['file'] or 'file not recorded')}")
            st.caption(plain(f"Asked by {', '.join(prompt['contenders'])}"))
            st.code(prompt["text"] or "(the run file does not hold this prompt's text)", language=None, wrap_lines=True)

with st.expander("Glossary", icon=":material/help:"):
    st.text("\n".join(board.glossary))
