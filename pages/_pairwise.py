"""The Leaderboard's pairwise panel: for a run with pairwise verdicts (a suite's ``pairwise:`` judge), each
contender's win rate with its 95% interval, and the Bradley–Terry ranking."""

from __future__ import annotations

import streamlit as st

from evalcore.analysis.people import win_rates
from pages import _loaders
from pages._widgets import plain

#: The panel's choice of how an inconsistent verdict counts (its own key: no other widget means this).
INCONSISTENT_KEY = "pairwise_inconsistent"
_CHOICES = {"as a tie": "tie", "not at all": "exclude"}
_SHARE = "%.1f%%"
#: How :func:`~evalcore.analysis.people.win_rates.win_rate_frame` reads, here and in the People panel.
WIN_RATE_COLUMNS = {
    "win rate %": st.column_config.NumberColumn(
        "win rate", format=_SHARE, help="(wins + ties / 2) / (wins + losses + ties)"
    ),
    "low %": st.column_config.NumberColumn(
        "low", format=_SHARE, help="95% interval (Agresti–Coull; Clopper–Pearson under 32)"
    ),
    "high %": st.column_config.NumberColumn("high", format=_SHARE),
}
#: How :func:`~evalcore.analysis.people.win_rates.strength_frame` reads, here and in the People panel.
STRENGTH_COLUMNS = {
    "strength": st.column_config.NumberColumn(
        "strength", format="%+.2f", help="Bradley–Terry log-strength; exp(a − b): odds that a beats b"
    ),
    "low": st.column_config.NumberColumn("low", format="%+.2f", help="95% bootstrap interval over cases"),
    "high": st.column_config.NumberColumn("high", format="%+.2f"),
    "P(best) %": st.column_config.NumberColumn(
        "P(best)", format="%.0f%%", help="Share of bootstrap resamples of the cases it ranks first in"
    ),
}


@st.cache_data(show_spinner=False, max_entries=8)
def _summary(ref: str, version: tuple, inconsistent: str, _now: _loaders.Current) -> win_rates.PairwiseSummary:
    """The run's pairwise summary; ``ref``, ``version`` and ``inconsistent`` key the cache."""
    run = _now.run
    return win_rates.pairwise_summary(run.pairwise, [c.id for c in run.contenders], inconsistent=inconsistent)


def pairwise_panel(now: _loaders.Current) -> None:
    """The panel, when the run has pairwise verdicts: the outcome counts, the win rates and the ranking."""
    if not now.run.pairwise:
        return
    with st.expander("Pairwise: win rates and Bradley–Terry ranking", icon=":material/compare_arrows:"):
        choice = st.radio(
            "Count a verdict whose two orders disagree",
            list(_CHOICES),
            horizontal=True,
            key=INCONSISTENT_KEY,
            help="A judge that prefers whichever answer it reads first gives inconsistent verdicts.",
        )
        summary = _summary(now.ref, now.version, _CHOICES[choice], now)
        counts = ", ".join(f"{n:,} {k}" for k, n in summary.outcomes.items() if n)
        st.caption(
            plain(
                f"{summary.comparisons:,} comparisons judged by {summary.judge}, each in both orders: {counts}. "
                "A win, loss or tie counts only when both orders agree."
            )
        )
        st.dataframe(
            win_rates.win_rate_frame(summary),
            hide_index=True,
            column_config=WIN_RATE_COLUMNS,
        )
        st.dataframe(
            win_rates.strength_frame(summary),
            hide_index=True,
            column_config=STRENGTH_COLUMNS,
        )
