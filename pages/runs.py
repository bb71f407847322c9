"""Runs: the history; open, export, delete (after a confirmation), resume (or retry a completed run's errors)
or pin a run as its suite's baseline; a suite's trend over its runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from evalcore.analysis.scores.formats import DASH, UNKNOWN_COST_HELP
from evalcore.analysis.tables import view
from evalcore.core.errors import EvalcoreError
from evalcore.execution.resume import why_not_resumable
from evalcore.explorer import jobs, sharing
from evalcore.storage.runs import STOPPED_BY_BUDGET, STOPPED_BY_UNREACHABLE
from pages import _actions, _frame, _loaders, _trend, _widgets
from pages._state import RUN, Keys
from pages._widgets import plain

if TYPE_CHECKING:
    import pandas as pd

STATUS_HELP = (
    "running; completed; cancelled: stopped with Cancel; interrupted: the process stopped; failed. "
    "A run that is not completed can be resumed: only what is missing is called. A completed run with errors "
    "can retry them: only the errors are called again."
)
NO_SELECTION = {"selection": {"rows": [], "columns": [], "cells": []}}

_frame.use_app_frame(__file__)
st.title("Runs")


def delete(run_id: str) -> None:
    """The confirmed deletion; the list's selection is cleared, so no other run is picked in its place."""
    del st.session_state[Keys.CONFIRM_DELETE]
    try:
        _actions.delete_run(run_id)
    except EvalcoreError as exc:
        _widgets.fail(exc)
        return
    st.session_state[Keys.RUNS_TABLE] = NO_SELECTION
    st.toast("Run deleted.")


@st.cache_data(show_spinner=False, max_entries=8)
def history(path: str, versions: tuple) -> pd.DataFrame:
    """The run history of the store at ``path``. ``versions`` (each run's id and version) is read by
    Streamlit, not here: as part of the cache key, it makes the table again once a run is added, deleted
    or moves on."""
    return sharing.run_summaries(_loaders.store())


def run_file(path: str, run_id: str, gzip: bool = False) -> bytes:
    """The run as a run file, as ``evalcore export`` writes it. Made only when a download button is clicked
    (Streamlit calls this on a thread of its own, hence a connection of its own): exporting a big run
    takes long, and selecting it in the list should not."""
    from evalcore.runfile.write import exported_run
    from evalcore.storage.store import Store

    with Store(path) as store:
        return exported_run(store, run_id, gzip)


def resume_cap(run_id: str) -> float | None:
    """For a run with a budget cap: the cap its resume will keep to, asked of the user (0: none); None (the
    recorded cap, if any) for a run without one."""
    settings = _loaders.header(run_id).info.settings
    recorded = settings.get("max_cost_usd")
    if not recorded:
        return None
    if settings.get("stopped_by") == STOPPED_BY_BUDGET:
        st.warning(plain(f"This run stopped at its budget cap: {settings.get('stop_reason') or ''}"))
    return float(
        st.number_input(
            "Budget cap for the resume (USD, 0: none)",
            min_value=0.0,
            value=float(recorded),
            step=float(recorded),
            format="%.4f",
            key=f"resume_cap_{run_id}",
            help="For the whole run: what it has already spent counts. Raise it to let the resume finish.",
        )
    )


def run_actions(info: dict, winner: str) -> None:
    """What can be done with the picked run: open, export, and (if the roles allow) resume, rescore, delete, pin."""
    run_id = info["id"]
    st.subheader(plain(sharing.run_label(info)))
    buttons = st.columns(6)
    if buttons[0].button("Open", type="primary", icon=":material/leaderboard:"):
        _frame.open_run(run_id)
    path = _loaders.db_path()
    buttons[1].download_button(
        "Export .json",
        lambda: run_file(path, run_id),
        file_name=f"run-{run_id[:8]}.json",
        mime="application/json",
        icon=":material/download:",
        on_click="ignore",  # a download changes nothing on the page: no rerun
    )
    buttons[2].download_button(
        "Export .json.gz",
        lambda: run_file(path, run_id, gzip=True),
        file_name=f"run-{run_id[:8]}.json.gz",
        mime="application/gzip",
        icon=":material/download:",
        on_click="ignore",  # a download changes nothing on the page: no rerun
    )

    settings = _loaders.header(run_id).info.settings if info["status"] == "interrupted" else {}
    if settings.get("stopped_by") == STOPPED_BY_UNREACHABLE and settings.get("stop_reason"):
        st.warning(plain(f"This run stopped: {settings['stop_reason']}"), icon=":material/cloud_off:")
    if not _actions.may_change():
        return
    working = run_id in _loaders.jobs() and _loaders.jobs()[run_id].alive
    unfinished = info["status"] != "completed"
    retry = not unfinished and int(info["errors"] or 0) > 0  # a completed run's errors can be called again
    refused = why_not_resumable(_loaders.header(run_id), retry) if unfinished or retry else None
    resumable = (unfinished or retry) and not working and refused is None
    if refused and unfinished:
        st.caption(plain(refused))
    cap = resume_cap(run_id) if resumable else None
    label, icon, hint = (
        ("Retry errors", ":material/restart_alt:", f"Call again only the {info['errors']} results that are errors")
        if retry
        else ("Resume", ":material/replay:", "Call only what is missing")
    )
    if resumable and buttons[3].button(label, icon=icon, help=hint):
        try:
            job = jobs.resume_run(
                run_id, _loaders.db_path(), _actions.access(), _actions.suite_roots(), cap, retry_errors=retry
            )
        except EvalcoreError as exc:
            _widgets.fail(exc)
        else:
            _loaders.jobs()[run_id] = job
            st.session_state[Keys.JOB] = run_id
            st.switch_page(RUN)
    if not working and buttons[4].button(
        "Rescore",
        icon=":material/rule:",
        help="Score the stored outputs again with the suite's current scorers, as a new run: no model is called, "
        "and a judge only where its model or prompt changed",
    ):
        try:
            job = jobs.rescore_run(run_id, _loaders.db_path(), _actions.access(), _actions.suite_roots())
        except EvalcoreError as exc:
            _widgets.fail(exc)
        else:
            _loaders.jobs()[job.run_id] = job
            st.session_state[Keys.JOB] = job.run_id
            st.switch_page(RUN)
    if not working and buttons[5].button("Delete", icon=":material/delete:"):
        st.session_state[Keys.CONFIRM_DELETE] = run_id
    if info["status"] == "completed":
        _trend.pin_button(info, winner)
    if st.session_state.get(Keys.CONFIRM_DELETE) == run_id:
        results = view.count(int(info["results"] or 0), "result")
        st.warning(plain(f"Delete run {run_id} and its {results}? This cannot be undone."))
        yes, no = st.columns([1, 6])
        yes.button("Yes, delete", type="primary", on_click=delete, args=(run_id,))
        if no.button("Keep it"):
            del st.session_state[Keys.CONFIRM_DELETE]
            st.rerun()


index = _loaders.store().list_runs()
if not index:
    _widgets.empty_store()
    st.stop()

table = history(_loaders.db_path(), tuple((i["id"], *_loaders.version(i)) for i in index))
# A column no run fills is left out rather than shown as a column of dashes.
shown = table.drop(columns=[c for c in ("launched by", "metadata") if table[c].isna().all()])
event = st.dataframe(
    shown.fillna({c: DASH for c in ("launched by", "metadata") if c in shown}),
    hide_index=True,
    placeholder=DASH,  # an unknown cost reads as unknown, never "None" and never $0
    on_select="rerun",
    selection_mode=_widgets.PICK_ROW,
    key=Keys.RUNS_TABLE,
    column_config={
        "cost": st.column_config.NumberColumn(
            "cost", format=view.money_format(table["cost"].dropna()), help=f"Total USD; {UNKNOWN_COST_HELP}"
        ),
        "id": st.column_config.TextColumn("id", width="small"),
        "status": st.column_config.TextColumn("status", help=STATUS_HELP),
        "launched by": st.column_config.TextColumn("launched by", help="Who launched the run, signed in to the app"),
        "metadata": st.column_config.TextColumn(
            "metadata", help="The run's labels (evalcore run --metadata KEY=VALUE); evalcore runs --metadata filters"
        ),
    },
)
picked = _widgets.picked_row(event, len(table))
info = None if picked is None else next(i for i in index if i["id"] == table["id"].iloc[picked])
if info is None:
    st.info("Click a run to open, export, delete, resume or pin it.", icon=":material/touch_app:")
else:
    run_actions(info, str(table["winner"].iloc[picked]))
_trend.trend_panel(index, info)
