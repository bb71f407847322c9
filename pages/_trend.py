"""The Runs page's trend of a suite over its runs, and the pinned baselines: which run each suite's gate
compares with, and the button that pins one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import streamlit as st

from evalcore.analysis.tables import charts
from evalcore.core.errors import EvalcoreError
from evalcore.explorer import sharing
from pages import _actions, _loaders, _widgets
from pages._state import Keys
from pages._widgets import plain

if TYPE_CHECKING:
    import pandas as pd

WINNER = "Each run's winner"
VALUES = ["score", "cost", "time"]


@st.cache_data(show_spinner=False, max_entries=8)
def trend(path: str, versions: tuple, suite: str) -> pd.DataFrame:
    """:func:`evalcore.explorer.sharing.run_trend` of the store at ``path``; ``versions`` (every run's id and
    version) is part of the cache key only, so a run added, deleted or moving on makes it again."""
    return sharing.run_trend(_loaders.store(), suite)


def pinned_note(suite: str, pin: dict | None) -> str:
    if pin is None:
        return f"No baseline is pinned for {suite}: pick a run in the list to pin it."
    when = str(pin["pinned_at"])[:16].replace("T", " ")
    return f"Pinned baseline of {suite}: run {pin['run_id'][:8]}, contender {pin['contender']} (since {when})."


def trend_panel(index: list[dict], picked: dict | None) -> None:
    """A suite's score, cost or time over its runs, of one contender or each run's winner; the pinned
    baseline starred. The suite follows the run picked in the list."""
    suites = list(dict.fromkeys(str(i["suite"]) for i in index))
    if picked is not None and st.session_state.get(Keys.TREND_FOR) != picked["id"]:
        st.session_state[Keys.TREND_FOR] = picked["id"]
        st.session_state[Keys.TREND_SUITE] = str(picked["suite"])
    if st.session_state.get(Keys.TREND_SUITE) not in suites:
        st.session_state[Keys.TREND_SUITE] = suites[0]
    st.subheader("Trend")
    left, middle, right = st.columns([2, 3, 3])
    suite = left.selectbox("Suite", suites, key=Keys.TREND_SUITE)
    table = trend(_loaders.db_path(), tuple((i["id"], *_loaders.version(i)) for i in index), suite)
    contenders = [WINNER, *sharing.trend_contenders(table)]
    if st.session_state.get(Keys.TREND_CONTENDER) not in contenders:
        st.session_state[Keys.TREND_CONTENDER] = WINNER
    contender = middle.selectbox("Contender", contenders, key=Keys.TREND_CONTENDER)
    value = right.radio("Show", VALUES, key=Keys.TREND_VALUE, horizontal=True)
    pin = _loaders.pins().get(suite)
    st.caption(plain(pinned_note(suite, pin)))
    # Drawn at once, not after one more script run (``_widgets.charts_now``): a click on the runs table while
    # that run is under way could be lost, and the Runs page is mostly reached from a tab that has Plotly.
    runs = sharing.trend_of(table, None if contender == WINNER else contender)
    if len(runs) < 2:  # one point has no trend, and its axes would span milliseconds and a point either side
        who = "" if contender == WINNER else f" with {contender}"
        st.info(
            plain(f"{suite} has {'one run' if len(runs) else 'no run'}{who} so far: its trend shows from the second."),
            icon=":material/show_chart:",
        )
        return
    st.plotly_chart(charts.run_trend(runs, value, pin["run_id"] if pin else None), key=Keys.CHART + "trend")


def pin_button(info: dict[str, Any], winner: str | None) -> None:
    """Pin the picked run's contender (its winner unless told) as its suite's baseline."""
    choose, act = st.columns([3, 2], vertical_alignment="bottom")
    suite, run_id = str(info["suite"]), str(info["id"])
    contenders = [c.id for c in _loaders.header(run_id).contenders]
    if st.session_state.get(Keys.PIN_CONTENDER) not in contenders:
        st.session_state[Keys.PIN_CONTENDER] = winner if winner in contenders else contenders[0]
    contender = choose.selectbox(
        "Baseline contender",
        contenders,
        key=Keys.PIN_CONTENDER,
        help="The contender the gate compares a candidate with",
    )
    pin = _loaders.pins().get(suite)
    if pin is not None and (pin["run_id"], pin["contender"]) == (run_id, contender):
        act.success(plain(f"Pinned: the baseline of {suite}"), icon=":material/push_pin:")
        return
    if act.button("Pin as baseline", icon=":material/push_pin:", help=f"What `evalcore gate` compares {suite} with"):
        try:
            _actions.pin_baseline(suite, run_id, contender)
        except EvalcoreError as exc:
            _widgets.fail(exc)
            return
        st.toast(plain(f"Pinned run {run_id[:8]} ({contender}) as the baseline of {suite}."))
        st.rerun()
