"""Upload: drop a run file, see its problems or its leaderboard, save it into the history.

Nothing here calls a model or imports litellm; the file is validated before anything is shown. Any file
reaches the page (the uploader takes every type): one the browser refused would leave the last file's
message on screen, with the reason for the new one only in a tooltip.
"""

from __future__ import annotations

import streamlit as st

from evalcore.analysis import view as explorer
from evalcore.core.errors import RunFileError, StoreError
from evalcore.explorer import sharing
from evalcore.runfile.uploads import read_upload, too_large
from pages import _actions, _frame, _loaders, _widgets
from pages._state import Keys
from pages._widgets import plain

RUN_FILE_ENDINGS = (".json", ".json.gz", ".gz")

_frame.use_app_frame(__file__)
st.title("Upload a run file")
st.caption(
    "A `.json` or `.json.gz` file written by `evalcore export` or `evalcore run -o`. "
    "It is checked against the run-file format before anything is shown."
)
upload = st.file_uploader("Run file", key=Keys.UPLOAD_FILE, help="A .json or .json.gz run file")
if upload is None:
    st.stop()

# The name is the uploader's: shown as escaped text, never used as a path.
if not upload.name.lower().endswith(RUN_FILE_ENDINGS):
    _widgets.fail(
        f"{upload.name} was refused: a run file is a .json or .json.gz file, written by evalcore export "
        "or evalcore run -o. Nothing was read or stored."
    )
    st.stop()

data = upload.getvalue()
try:
    run = read_upload(data, name=upload.name)
except RunFileError as exc:
    if too_large(data):
        _widgets.fail(f"{upload.name} is too large to upload. Nothing was read or stored.")
    else:
        problems = explorer.count(len(exc.problems) or 1, "problem")
        _widgets.fail(f"{upload.name} is not a valid run file: {problems}. Nothing was stored.")
    st.code("\n".join(exc.problems) or str(exc), language=None, wrap_lines=True)
    st.stop()

ref = _loaders.remember_upload(data, run)
st.success(
    plain(
        f"Valid run file: {run.info.suite}, {explorer.count(len(run.contenders), 'contender')}, "
        f"{explorer.count(len(run.cases), 'case')}, {explorer.count(len(run.results), 'result')}."
    ),
    icon=":material/check_circle:",
)
view = _loaders.view_for(ref, run.info.weights)
_widgets.show_table(view.overall, view.columns)

stored = _loaders.stored_as(ref)
left, right = st.columns(2)
if stored == sharing.SAME:
    st.info("This run is already in the history, with the same content.", icon=":material/history:")
    if st.button("Open it", type="primary", icon=":material/leaderboard:"):
        _frame.open_run(run.info.id)
    st.stop()

if left.button("Open on the leaderboard", type="primary", icon=":material/leaderboard:"):
    _frame.open_run(ref)
if _actions.viewer():
    st.stop()
if stored == sharing.DIFFERENT:
    st.warning(
        plain(
            f"A different run with the id {run.info.id} is already in the history. Saving this one replaces "
            "it (its results are deleted)."
        ),
        icon=":material/warning:",
    )
label = "Replace the stored run" if stored == sharing.DIFFERENT else "Save to the history"
if right.button(label, icon=":material/save:"):
    try:
        _actions.save_run(run, replace=stored == sharing.DIFFERENT)
    except StoreError as exc:
        _widgets.fail(exc)
    else:
        st.success("Saved. It is now in the run picker and on the Runs page.")
        _frame.open_run(run.info.id)
