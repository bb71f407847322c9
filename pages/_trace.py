"""The Cases page's trace section: an agent's steps as a timeline, each tool call folded, and the expected
actions against the ones taken (the rows come from :mod:`evalcore.explorer.timeline`)."""

from __future__ import annotations

import streamlit as st

from evalcore.analysis.tables import view
from evalcore.core.records import Run
from evalcore.explorer import timeline as timelines
from pages._widgets import plain

#: How each mark reads beside a step or an expected action.
MARKS = {
    timelines.MATCHED: ":green-badge[:material/check: matched]",
    timelines.MISSING: ":red-badge[:material/close: missing]",
    timelines.EXTRA: ":orange-badge[:material/add: extra]",
}


def show_trace(run: Run, contender: str, dataset: str, case: str, sample: int) -> None:
    """The result's trace as a timeline; nothing when the result has no trace."""
    timeline = timelines.result_timeline(run, contender, dataset, case, sample)
    if timeline is None:
        return
    totals = timeline.totals
    st.markdown("**Trace**")
    st.caption(
        f"{view.count(totals['model turns'], 'model turn')} · {view.count(totals['tool calls'], 'tool call')}"
        f" · {view.count(totals['tool errors'], 'tool error')}"
        f" · {_count(totals['input tokens'])} in / {_count(totals['output tokens'])} out tokens"
        + (f" · {view.count(totals['cut results'], 'result')} cut to the byte budget" if totals["cut results"] else "")
    )
    if timeline.expected:
        _expected_vs_actual(timeline)
    if not timeline.steps:
        st.info("The agent took no step.", icon=":material/info:")
    for step in timeline.steps:
        _step(step)


def _expected_vs_actual(timeline: timelines.Timeline) -> None:
    st.markdown(f"Expected actions (order: `{timeline.order}`)")
    st.dataframe(
        timeline.expected_table().style.apply(
            lambda r: ["" if r["mark"] == timelines.MATCHED else "background-color: rgba(255, 75, 75, 0.25)"] * len(r),
            axis=1,
        ),
        hide_index=True,
        column_config={"number": "#", "step": st.column_config.NumberColumn("taken at step")},
        placeholder="–",
    )


def _step(step: dict) -> None:
    mark = MARKS.get(step["mark"], "")
    expected = f" (expected #{step['expected']})" if step["expected"] else ""
    label = f"{step['index']}. {plain(step['title'])} · {plain(step['facts'])} {mark}{expected}"
    if step["kind"] == "model":
        with st.container(border=True):
            st.markdown(f":material/smart_toy: {label}")
            if step["content"]:
                st.text(step["content"])
            for call in step["calls"]:
                st.code(call, language=None, wrap_lines=True)
        return
    icon = ":material/error:" if step["error"] is not None else ":material/build:"
    with st.expander(label, icon=icon):
        st.caption("Arguments")
        st.code(step["arguments"], language="json", wrap_lines=True)
        if step["error"] is not None:
            st.error(plain(step["error"]), icon=":material/error:")
        else:
            if step["cut"]:
                st.warning(plain(step["cut"].capitalize()), icon=":material/content_cut:")
            st.caption("Result")
            st.code(step["result"] if step["result"] is not None else "(no result)", language=None, wrap_lines=True)


def _count(value: int | None) -> str:
    return "–" if value is None else f"{value:,}"
