"""Upload: drop a run file, see its problems or its leaderboard, save it into the history.

Nothing here calls a model or imports litellm; the file is validated before anything is shown.
"""

from __future__ import annotations

import streamlit as st

from evalcore.core.errors import RunFileError, StoreError
from evalcore.runfile.uploads import read_upload, too_large
from pages import _shared as shared
from pages._shared import plain

shared.use_app_navigation()
st.title("Upload a run file")
st.caption("A `.json` or `.json.gz` file written by `evalcore export` or `evalcore run -o`. "
           "It is checked against the run-file format before anything is shown.")
upload = st.file_uploader("Run file", type=["json", "gz"], key="upload_file")
if upload is None:
    st.stop()

data = upload.getvalue()
try:
    run = read_upload(data)
except RunFileError as exc:
    if too_large(data):
        st.error("This file is too large to upload. Nothing was read or stored.", icon=":material/error:")
    else:
        st.error(f"This is not a valid run file: {len(exc.problems) or 1} problem(s). Nothing was stored.",
                 icon=":material/error:")
    st.code("\n".join(exc.problems) or str(exc), language=None, wrap_lines=True)
    st.stop()

ref = shared.remember_upload(data, run)
st.success(plain(f"Valid run file: {run.info.suite}, {len(run.contenders)} contenders, {len(run.cases)} cases, "
                 f"{len(run.results)} results."), icon=":material/check_circle:")
view = shared.view_for(ref, run.info.weights)
shared.show_table(view.overall, view.columns)

left, right = st.columns(2)
if left.button("Open on the leaderboard", type="primary", icon=":material/leaderboard:"):
    shared.open_run(ref)
if not shared.viewer() and right.button("Save to the history", icon=":material/save:"):
    try:
        shared.save_run(run)
    except StoreError as exc:
        shared.fail(f"{exc}. It is already in the history: open it from Runs.")
    else:
        st.success("Saved. It is now in the run picker and on the Runs page.")
        shared.open_run(run.info.id)
