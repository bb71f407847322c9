"""The Cases page's samples section: a contender's tries at one case side by side, the disagreeing ones marked
(the rows come from :func:`evalcore.explorer.samples.case_samples`)."""

from __future__ import annotations

import streamlit as st

from evalcore.core.records import Run
from evalcore.explorer.samples import case_samples


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
