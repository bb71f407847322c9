"""The Cases page's repeats: a contender's tries at one case side by side, the disagreeing ones marked (the rows
come from :func:`evalcore.explorer.samples.case_samples`), and whether the case is known to be flaky across the
store's runs (:func:`evalcore.analysis.decisions.flaky.run_flaky`)."""

from __future__ import annotations

import streamlit as st

from evalcore.analysis.decisions.flaky import FlakyCase, run_flaky
from evalcore.core.records import Run
from evalcore.explorer.samples import case_samples
from pages import _loaders


def show_samples(run: Run, contender: str, dataset: str, case: str) -> None:
    """Every sample of the case, when the run asked it more than once; nothing otherwise."""
    table = case_samples(run, contender, dataset, case)
    if len(table) < 2:
        return
    disagree = int((~table["agrees"]).sum())
    st.markdown("**Samples**")
    st.caption(
        f"{len(table)} tries at this case; "
        + (f"{disagree} disagree with the usual outcome (marked)" if disagree else "all agree")
    )
    styled = table.style.apply(
        lambda r: [("" if r["agrees"] else "background-color: rgba(255, 165, 0, 0.25)")] * len(r), axis=1
    )
    st.dataframe(
        styled,
        hide_index=True,
        column_config={
            "score": st.column_config.ProgressColumn("score", min_value=0, max_value=100, format="%.0f%%"),
            "agrees": st.column_config.CheckboxColumn("agrees"),
            "output": st.column_config.TextColumn("output", width="large"),
        },
    )


@st.cache_data(show_spinner=False, max_entries=8)
def _flaky(path: str, ref: str, version: tuple) -> dict[tuple[str, str, str], FlakyCase]:
    """The run's known-flaky cases, read again when the run or the store changes (``path``, ``version``)."""
    return run_flaky(_loaders.store(), ref)


def show_flaky(now: _loaders.Current, contender: str, dataset: str, case: str) -> None:
    """A warning when the case flips across the store's runs of this suite definition and contender."""
    if now.ref.startswith(_loaders.UPLOAD_PREFIX):
        return
    found = _flaky(_loaders.db_path(), now.ref, now.version).get((contender, dataset, case))
    if found is not None:
        outcomes = "".join("✓" if o else "✗" for o in found.outcomes)
        st.warning(
            f"Known flaky: its outcome flipped {found.flips} times in {len(found.outcomes)} runs of this suite "
            f"definition ({outcomes}, oldest first), more than this contender's cases do ({found.base_rate:.0%} "
            "of the time): a change here is as likely noise (see evalcore flaky).",
            icon=":material/shuffle:",
        )
