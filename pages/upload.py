"""Upload: drop a run file, see its problems or its leaderboard, save it into the history.

Nothing here calls a model or imports litellm; the file is validated before anything is shown.
"""

from __future__ import annotations

import streamlit as st

from evalcore.core.errors import RunFileError, StoreError
from evalcore.runfile.uploads import read_upload, too_large
from pages import _actions, _frame, _loaders, _widgets
from pages._state import Keys
from pages._widgets import plain

_frame.use_app_frame(__file__)
st.title("Upload a run file")
st.caption(
    "A `.json` or `.json.gz` file written by `evalcore export` or `evalcore run -o`. "
    "It is checked against the run-file format before anything is shown."
)
upload = st.file_uploader("Run file", type=["json", "gz"], key=Keys.UPLOAD_FILE)
if upload is None:
    st.stop()

data = upload.getvalue()
try:
    run = read_upload(data)
except RunFileError as exc:
    if too_large(data):
        st.error("This file is too large to upload. Nothing was read or stored.", icon=":material/error:")
    else:
        st.error(
            f"This is not a valid run file: {len(exc.problems) or 1} problem(s). Nothing was stored.",
            icon=":material/error:",
        )
    st.code("\n".join(exc.problems) or str(exc), language=None, wrap_lines=True)
    st.stop()

ref = _loaders.remember_upload(data, run)
st.success(
    plain(
        f"Valid run file: {run.info.suite}, {len(run.contenders)} contenders, {len(run.cases)} cases, "
        f"{len(run.results)} results."
    ),
    icon=":material/check_circle:",
)
view = _loaders.view_for(ref, run.info.weights)
_widgets.show_table(view.overall, view.columns)

left, right = st.columns(2)
if left.button("Open on the leaderboard", type="primary", icon=":material/leaderboard:"):
    _frame.open_run(ref)
if not _actions.viewer() and right.button("Save to the history", icon=":material/save:"):
    try:
        _actions.save_run(run)
    except StoreError as exc:
        _widgets.fail(f"{exc}. It is already in the history: open it from Runs.")
    else:
        st.success("Saved. It is now in the run picker and on the Runs page.")
        _frame.open_run(run.info.id)
