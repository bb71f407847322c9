"""One uploaded (or merged) run on the Upload page: what it is, where it came from, its leaderboard, and
whether it can be opened, saved or must replace a stored run with its id."""

from __future__ import annotations

import streamlit as st

from evalcore.analysis.tables import view
from evalcore.core.errors import StoreError
from evalcore.core.records import Run
from evalcore.explorer import sharing
from evalcore.runfile.importers import import_notes
from pages import _actions, _frame, _loaders, _widgets
from pages._widgets import plain


def show_run(run: Run, ref: str, key: str, source: str | None) -> None:
    """The run's summary line, its source's badge (``promptfoo 0.121.20``), why it did not complete and what it
    lacks, its table (none for a run without results) and its actions."""
    what = "Valid run file" if source is None or source.startswith("evalcore") else "Imported"
    results, notes = _loaders.upload_notes(ref)
    cases = _loaders.run_cases(ref)
    line = plain(
        f"{what}: {run.info.suite}, {view.count(len(run.contenders), 'contender')}, "
        f"{view.count(cases, 'case')}, {view.count(results, 'result')}."
    )
    warnings = [plain(n[:1].upper() + n[1:] + ".") for n in notes]
    if run.info.status == "failed":
        st.error("  \n".join([line, *warnings]), icon=":material/error:")
    elif warnings:
        st.warning("  \n".join([line, *warnings]), icon=":material/warning:")
    else:
        st.success(line, icon=":material/check_circle:")
    if source is not None and what == "Imported":
        st.badge(plain(source), icon=":material/input:", color="violet")
    imported = import_notes(run)
    if imported:
        with st.expander(plain(f"{view.count(len(imported), 'import note')}")):
            st.code("\n".join(imported), language=None, wrap_lines=True)
    if results:
        board = _loaders.view_for(ref, run.info.weights)
        _widgets.show_table(board.overall, board.columns)
    _actions_for(run, ref, key)


def _actions_for(run: Run, ref: str, key: str) -> None:
    stored = _loaders.stored_as(ref)
    if stored == sharing.SAME:
        st.info("This run is already in the history, with the same content.", icon=":material/history:")
        if st.button("Open it", type="primary", icon=":material/leaderboard:", key=f"upload_open_stored_{key}"):
            _frame.open_run(run.info.id)
        return
    left, right = st.columns(2)
    if left.button("Open on the leaderboard", type="primary", icon=":material/leaderboard:", key=f"upload_open_{key}"):
        _frame.open_run(ref)
    if not _actions.may_change():
        return
    if stored == sharing.DIFFERENT:
        st.warning(
            plain(
                f"A different run with the id {run.info.id} is already in the history. Saving this one replaces "
                "it (its results are deleted)."
            ),
            icon=":material/warning:",
        )
    label = "Replace the stored run" if stored == sharing.DIFFERENT else "Save to the history"
    if right.button(label, icon=":material/save:", key=f"upload_save_{key}"):
        try:
            _actions.save_run(_loaders.upload_run(ref), replace=stored == sharing.DIFFERENT)
        except StoreError as exc:
            _widgets.fail(exc)
        else:
            st.success("Saved. It is now in the run picker and on the Runs page.")
            _frame.open_run(run.info.id)
