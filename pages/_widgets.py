"""How the pages draw what they share: leaderboard tables, charts after tables, untrusted text, errors,
and what a page shows when there is no run yet."""

from __future__ import annotations

from typing import Any

import streamlit as st

from evalcore.analysis.tables import view
from pages._actions import launch_demo, may_change
from pages._state import UPLOAD, Keys

#: The browser tab's icon, Material's "leaderboard" in the accent colour, sent inline: Streamlit fetches a
#: ``:material/…:`` page icon from a font host, which an offline or locked-down network refuses.
APP_ICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#3563d9" '
    'd="M7.5 21H2V9h5.5v12zm7.25-18h-5.5v18h5.5V3zM22 11h-5.5v10H22V11z"/></svg>'
)


#: A table's header and each of its rows, in pixels (Streamlit's defaults).
HEADER_PX, ROW_PX = 38, 35
#: Rows a list shows before it scrolls; a leaderboard shows more (a run's contenders, every one in view).
LIST_ROWS, LEADERBOARD_ROWS = 11, 16
#: About the width of a character of the tables' font, and of a cell's padding, in pixels.
_CHAR_PX, _CELL_PX = 7.5, 28


def table_height(rows: int, at_most: int = LIST_ROWS) -> int:
    """A table's height that shows every row, up to ``at_most`` rows (then it scrolls)."""
    return HEADER_PX + ROW_PX * max(1, min(rows, at_most))


def fit_width(values: Any, least: int = 60, most: int = 360) -> int:
    """A text column's width in pixels that shows its longest value (within ``least`` and ``most``).

    Given, not left to the table: it measures only the rows first drawn, and keeps a column's width when
    the same table is drawn again with other rows (another run's).
    """
    longest = max((len(str(v)) for v in values), default=0)
    return int(min(most, max(least, _CELL_PX + _CHAR_PX * longest)))


def column_config(columns: list[view.Column], table: Any = None) -> dict[str, Any]:
    """Streamlit's column settings for a leaderboard table's columns, by their kind; the contender and mark
    columns as wide as ``table``'s longest value, when given."""
    cc = st.column_config
    kinds = {
        view.PERCENT: lambda c: cc.ProgressColumn(c.name, help=c.help, min_value=0, max_value=100, format="%.1f%%"),
        view.POINTS: lambda c: cc.NumberColumn(c.name, help=c.help, format="%.1f"),
        view.MONEY: lambda c: cc.NumberColumn(c.name, help=c.help, format=c.format or "$%.4f"),
        view.SECONDS: lambda c: cc.NumberColumn(c.name, help=c.help, format="%.2f s"),
        view.COUNT: lambda c: cc.NumberColumn(c.name, help=c.help, format="%.0f"),
        view.TEXT: lambda c: cc.TextColumn(c.name, help=c.help),
    }
    config = {c.name: kinds[c.kind](c) for c in columns}
    config["P(best)"] = cc.NumberColumn(
        "P(best)", help="Share of bootstrap resamples in which the row ranks first", format="%.0f%%"
    )
    config["rank"] = cc.NumberColumn("rank", pinned=True, format="%d", width=50)
    widths = {}
    if table is not None:
        widths = {name: fit_width([name, *table[name]]) for name in ("contender", "mark") if name in table.columns}
    config["contender"] = cc.TextColumn(
        "contender", pinned=True, help="Model and the settings it varied", width=widths.get("contender")
    )
    if "mark" in widths and "mark" in config:
        mark = next(c for c in columns if c.name == "mark")
        config["mark"] = cc.TextColumn("mark", help=mark.help, width=widths["mark"])
    return config


#: A click on any cell of a row opens it, as does the row's box: Streamlit selects a cell on a click (in
#: row mode a click on a cell only highlights it), so the pages take a selected cell's row as the pick.
PICK_ROW = ["single-row", "single-cell"]


def picked_row(event: Any, rows: int) -> int | None:
    """The position of the row a table's selection picks: a ticked row, else the row of a clicked cell."""
    selection = event.selection
    picks = [*selection.rows, *(cell[0] for cell in selection.cells)]
    return next((int(r) for r in picks if 0 <= int(r) < rows), None)


def show_table(table: Any, columns: list[view.Column], key: str | None = None) -> Any:
    """A leaderboard table, sortable, with progress bars for scores; a click on a row selects it."""
    height = table_height(len(table), LEADERBOARD_ROWS)
    config = column_config([c for c in columns if c.name in table.columns], table)
    order = [c.name for c in columns if c.name in table.columns]
    if key is None:
        return st.dataframe(
            table, column_config=config, column_order=order, hide_index=True, height=height, placeholder="–"
        )
    return st.dataframe(
        table,
        column_config=config,
        column_order=order,
        hide_index=True,
        height=height,
        placeholder="–",
        on_select="rerun",
        selection_mode=PICK_ROW,
        key=key,
    )


#: Reports once, as a trigger, that a table of the page is on screen: checked at every frame, and after 3 s
#: without one it reports anyway, so a page's charts never wait for a table that does not come.
_TABLES_SHOWN_JS = """
export default function ({ setTriggerValue }) {
  let done = false;
  const start = performance.now();
  const report = () => { if (!done) { done = true; setTriggerValue("shown", true); } };
  const check = () => {
    if (done) return;
    const table = document.querySelector('[data-testid="stDataFrame"]');
    if ((table !== null && table.getBoundingClientRect().height > 0) || performance.now() - start > 3000) {
      requestAnimationFrame(() => requestAnimationFrame(report));  // after the frame that paints it
    } else {
      requestAnimationFrame(check);
    }
  };
  requestAnimationFrame(check);
  return () => { done = true; };
}
"""
_tables_shown = st.components.v2.component("evalcore.tables_shown", js=_TABLES_SHOWN_JS)


def charts_now() -> bool:
    """Whether this script run draws its charts: every run but a session's first that asks.

    Plotly's script is several megabytes: in a fresh browser tab, a table sent with a chart comes on
    screen in the same frame as the chart, once the browser has read that script. So the first run that
    would draw charts sends its tables, a placeholder and a few lines of JavaScript that report, once a
    table is on screen, as a widget trigger: the next script run draws the charts, whether that report or
    a click started it. Called inside an ``st.fragment``, the report reruns that fragment only; the fragment
    calls :func:`rerun_app_if_changed` first, so a widget outside it changed meanwhile is drawn too.
    """
    if st.session_state.get(Keys.CHARTS_NOW):
        return True
    st.session_state[Keys.CHARTS_NOW] = True
    _tables_shown(key=Keys.TABLES_SHOWN, on_shown_change=_rerun_only)
    return False


def widget_values(keys: tuple[str, ...], prefixes: tuple[str, ...] = ()) -> dict[str, Any]:
    """This session's widget values under ``keys`` and under every key that starts with one of ``prefixes``."""
    return {k: v for k, v in st.session_state.to_dict().items() if k in keys or k.startswith(prefixes)}


def rerun_app_if_changed(drawn: dict[str, Any], keys: tuple[str, ...], prefixes: tuple[str, ...] = ()) -> None:
    """Inside a fragment: rerun the whole app when a widget outside the fragment no longer has the value
    ``drawn`` (:func:`widget_values` of the same keys, taken as the app drew the rest of the page).

    The browser sends the widget changes of one moment as one rerun, and when one of them belongs to a
    fragment (:func:`charts_now`'s report) that rerun is the fragment's only: a slider moved the moment the
    charts are asked for is stored in the session, but the tables, the winner and the slider's caption
    would still show the weights before it.
    """
    if widget_values(keys, prefixes) != drawn:
        st.rerun()


def _rerun_only() -> None:
    """A trigger's callback: the rerun it starts is all it asks for."""


def plain(text: object) -> str:
    """Untrusted text made safe for a Markdown label (tabs, captions, metrics)."""
    return view.escape_markdown(str(text))


def fail(message: object) -> None:
    """An error in plain words."""
    st.error(plain(message), icon=":material/error:")


def empty_store() -> None:
    """What a page shows when there is no run yet."""
    st.info("No runs yet. Run the demo suite (fake models, offline, about half a minute), or upload a run file.")
    if may_change() and st.button("Run the demo suite", type="primary", icon=":material/play_arrow:"):
        launch_demo()
    st.page_link(UPLOAD, label="Upload a run file", icon=":material/upload:")
