"""Runs: the history; open, export, delete (after a confirmation) or resume a run."""

from __future__ import annotations

import streamlit as st

from evalcore.analysis import view as explorer
from evalcore.core.errors import EvalcoreError
from evalcore.explorer import jobs, sharing
from pages import _shared as shared
from pages._shared import Keys, plain

shared.use_app_navigation()
st.title("Runs")


@st.cache_data(show_spinner=False, max_entries=8)
def summaries(path: str, versions: tuple):  # noqa: ANN201
    return sharing.run_summaries(shared.store())


def run_file(path: str, run_id: str, gzip: bool = False) -> bytes:
    """The run as a run file, as ``evalcore export`` writes it. Made only when a download button is clicked
    (Streamlit calls this on a thread of its own, hence a connection of its own): a run of a million
    results takes most of a minute, which selecting it in the list used to cost."""
    from evalcore.runfile.io import exported_run
    from evalcore.storage.store import Store

    with Store(path) as store:
        return exported_run(store, run_id, gzip)


index = shared.store().list_runs()
if not index:
    shared.empty_store()
    st.stop()

table = summaries(shared.db_path(), tuple((i["id"], *shared.version(i)) for i in index))
money = explorer.money_format(table["cost"].dropna())
event = st.dataframe(table, hide_index=True, on_select="rerun", selection_mode="single-row", key="runs_table",
                     column_config={"cost": st.column_config.NumberColumn("cost", format=money, help="Total USD"),
                                    "id": st.column_config.TextColumn("id", width="small")})
rows = event.selection.rows
if not rows:
    st.info("Select a run to open, export, delete or resume it.", icon=":material/touch_app:")
    st.stop()

info = next(i for i in index if i["id"] == table["id"].iloc[rows[0]])
run_id = info["id"]
st.subheader(plain(sharing.run_label(info)))
buttons = st.columns(5)
if buttons[0].button("Open", type="primary", icon=":material/leaderboard:"):
    shared.open_run(run_id)
path = shared.db_path()
buttons[1].download_button("Export .json", lambda: run_file(path, run_id), file_name=f"run-{run_id[:8]}.json",
                           mime="application/json", icon=":material/download:")
buttons[2].download_button("Export .json.gz", lambda: run_file(path, run_id, gzip=True),
                           file_name=f"run-{run_id[:8]}.json.gz", mime="application/gzip", icon=":material/download:")

if shared.viewer():
    st.stop()
working = run_id in shared.jobs() and shared.jobs()[run_id].alive
if info["status"] != "completed" and not working and buttons[3].button("Resume", icon=":material/replay:",
                                                                       help="Call only what is missing"):
    try:
        job = jobs.resume_run(run_id, shared.db_path())
    except EvalcoreError as exc:
        shared.fail(exc)
    else:
        shared.jobs()[run_id] = job
        st.session_state[Keys.JOB] = run_id
        st.switch_page(shared.RUN)
if not working and buttons[4].button("Delete", icon=":material/delete:"):
    st.session_state[Keys.CONFIRM_DELETE] = run_id
if st.session_state.get(Keys.CONFIRM_DELETE) == run_id:
    st.warning(plain(f"Delete run {run_id} and its {info['results']} results? This cannot be undone."))
    yes, no = st.columns([1, 6])
    if yes.button("Yes, delete", type="primary"):
        shared.delete_run(run_id)
        del st.session_state[Keys.CONFIRM_DELETE]
        st.toast("Run deleted.")
        st.rerun()
    if no.button("Keep it"):
        del st.session_state[Keys.CONFIRM_DELETE]
        st.rerun()
