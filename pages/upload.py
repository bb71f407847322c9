"""Upload: drop run files or other tools' files (promptfoo, Inspect, lm-eval, Every Eval Ever, OpenTelemetry traces),
see each one's problems or its leaderboard, save them into the history, or merge them into one leaderboard.

Nothing here calls a model or imports litellm; each file's kind is told from its content and it is read
before anything is shown. Any file reaches the page (the uploader takes every type): one the browser refused
would leave the last file's message on screen, with the reason for the new one only in a tooltip.
"""

from __future__ import annotations

import streamlit as st

from evalcore.analysis.tables import view
from evalcore.core.errors import EvalcoreError, RunFileError
from evalcore.core.records import Run
from evalcore.runfile.importers import source_label
from evalcore.runfile.merge import merge_runs
from evalcore.runfile.uploads import TooManyResults, limits_text, too_large
from pages import _frame, _loaders, _upload_view, _widgets
from pages._state import Keys
from pages._widgets import plain

UPLOAD_ENDINGS = (".json", ".json.gz", ".gz", ".eval", ".zip")

_frame.use_app_frame(__file__)
st.title("Upload runs")
st.caption(
    "Run files written by `evalcore export` or `evalcore run -o` (`.json`, `.json.gz`), promptfoo result files "
    "(`promptfoo eval -o`, `promptfoo export`), Inspect AI logs (`.json`, `.eval`), lm-evaluation-harness "
    "output folders zipped (`results_*.json` with its `samples_*.jsonl`), Every Eval Ever records (the "
    "aggregate `<uuid>.json`, or a zip of it with its `<uuid>_samples.jsonl`) and OpenTelemetry traces of model "
    "calls (OTLP JSON), one or several at once. "
    "Each is recognised by its content and checked before anything is shown. " + limits_text() + " An upload "
    "is kept on the server's disk for this session only."
)
uploads = st.file_uploader(
    "Run files, promptfoo results, Inspect logs, zipped lm-eval output folders, Every Eval Ever records or "
    "OpenTelemetry traces",
    key=Keys.UPLOAD_FILE,
    accept_multiple_files=True,
    help="A .json, .json.gz, .eval or .zip file; several at once to compare or merge them",
)
if not uploads:
    st.session_state.pop(Keys.UPLOAD_MERGED, None)
    st.stop()


def _read(upload) -> tuple[Run, str] | None:  # noqa: ANN001 (Streamlit's UploadedFile)
    """The upload's run and its ref, or None after saying why it was refused (nothing is stored)."""
    # The name is the uploader's: shown as escaped text, never used as a path.
    if not upload.name.lower().endswith(UPLOAD_ENDINGS):
        _widgets.fail(
            f"{upload.name} was refused: a run file is a .json or .json.gz file, written by evalcore export "
            "or evalcore run -o (a promptfoo result file is a .json file, an Inspect log a .json or .eval "
            "file, an lm-eval output folder or an Every Eval Ever record with its samples a .zip). Nothing was "
            "read or stored."
        )
        return None
    data = upload.getvalue()
    try:
        ref = _loaders.upload_ref(data, upload.name)
    except RunFileError as exc:
        if too_large(data) or isinstance(exc, TooManyResults):
            _widgets.fail(f"{upload.name} is too large to upload. Nothing was stored.")
        else:
            problems = view.count(len(exc.problems) or 1, "problem")
            _widgets.fail(f"{upload.name} is not a valid run file: {problems}. Nothing was stored.")
        st.code("\n".join(exc.problems) or str(exc), language=None, wrap_lines=True)
        return None
    return _loaders.header(ref), ref


runs = [(upload.name, *read) for upload in uploads if (read := _read(upload)) is not None]
for i, (name, run, ref) in enumerate(runs):
    if len(runs) > 1:
        st.subheader(plain(name), divider="gray")
    _upload_view.show_run(run, ref, key=str(i), source=source_label(run))

if len(runs) < 2:
    st.session_state.pop(Keys.UPLOAD_MERGED, None)
    st.stop()

st.subheader("Merge", divider="gray")
st.caption(
    "One leaderboard of every contender above, over the cases all these runs share (matched by dataset and "
    "id); the cases some run lacks are listed and left out."
)
by_id = st.checkbox(
    "Match cases by id alone", help="When the tools named the dataset differently (promptfoo and Inspect do)"
)
if st.button("Merge", icon=":material/merge:"):
    try:
        merged = merge_runs([_loaders.upload_run(ref) for _, _, ref in runs], by_id=by_id)
    except EvalcoreError as exc:
        _widgets.fail(exc)
        st.session_state.pop(Keys.UPLOAD_MERGED, None)
    else:
        st.session_state[Keys.UPLOAD_MERGED] = (_loaders.keep_merged(merged.run), merged.unmatched)
merged_ref, unmatched = st.session_state.get(Keys.UPLOAD_MERGED, (None, []))
if merged_ref is not None and (merged_run := _loaders.upload_header(merged_ref)) is not None:
    if unmatched:
        st.warning(
            plain(f"{view.count(len(unmatched), 'case')} not in every run, left out: ")
            + ", ".join(plain(f"{dataset} / {case}") for _, dataset, case in unmatched[:20])
            + (" …" if len(unmatched) > 20 else ""),
            icon=":material/call_split:",
        )
    _upload_view.show_run(merged_run, merged_ref, key="merged", source=None)
