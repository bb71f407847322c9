"""The Leaderboard's classification panel: for a run scored with the ``classification`` scorer, one
contender's per-label precision, recall, F1 and support, its macro-F1, and its confusion matrix."""

from __future__ import annotations

import streamlit as st

from evalcore.analysis.scores import classification
from evalcore.analysis.tables import charts
from pages import _loaders, _widgets
from pages._widgets import plain

#: The metric the classification scorer gives every result: a run that has it has labels to tabulate.
CORRECT = "correct"
#: The panel's contender picker (a key of its own: the Cases page's picker means another thing).
CONTENDER_KEY = "classification_contender"


def classification_panel(now: _loaders.Current) -> None:
    """The panel, when the run has a classification metric; labels are read for the chosen contender only."""
    # A classification scorer's ``correct`` (its description says so): an LLM judge may name a dimension so too.
    if not any(a.source == CORRECT for a in now.metric_set.aggregates):
        return
    with st.expander(
        "Classification: per-label precision, recall, F1 and the confusion matrix", icon=":material/grid_on:"
    ):
        contenders = [c.id for c in now.run.contenders]
        contender = st.selectbox("Contender", contenders, key=CONTENDER_KEY)
        labels = classification.result_labels(_loaders.run_with_results(now, [contender]))
        mine = labels[labels["contender"] == contender] if len(labels) else labels
        if mine.empty:
            st.caption(plain(f"{contender} has no scored result with labels."))
            return
        want, got = list(mine["want"]), list(mine["got"])
        st.caption(
            plain(
                f"{len(mine):,} scored results: accuracy {classification.accuracy(want, got):.1%}, "
                f"macro-F1 {classification.macro_f1(want, got):.3f} (the mean F1 over the labels that occur; "
                "the leaderboard's macro_f1 column, which a weight slider can weigh)."
            )
        )
        st.dataframe(
            classification.per_label(want, got),
            hide_index=True,
            column_config={
                name: st.column_config.NumberColumn(name, format="%.3f") for name in ("precision", "recall", "f1")
            },
        )
        if _widgets.charts_now():
            matrix = classification.confusion_matrix(want, got)
            st.plotly_chart(charts.confusion_heatmap(matrix, contender), key="classification_matrix")
