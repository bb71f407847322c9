"""The Leaderboard's judge panel: for a run scored by an LLM judge, what judging cost and took per contender,
on top of the contenders' own cost and time (the leaderboard's ``cost`` and ``time`` columns never include it)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from evalcore.analysis.people.judging import is_judged, judge_costs
from evalcore.analysis.tables.text import format_cost, format_seconds
from pages import _loaders
from pages._widgets import plain


@st.cache_data(show_spinner=False, max_entries=8)
def _judge_costs(ref: str, version: tuple, _now: _loaders.Current) -> pd.DataFrame:
    """Per contender, then ``total``: judged results, judge calls, reused verdicts, attempts, judge cost in all
    and per judged result, judge time per judged result. ``ref`` and ``version`` key the cache."""
    rows = [
        {
            "contender": c.contender,
            "judged": c.judged,
            "judge calls": c.calls,
            "reused": c.reused,
            "attempts": c.attempts,
            "judge cost": c.cost_usd,
            "judge cost/case": c.cost_per_case,
            "judge time/case": c.time_per_case,
        }
        for c in judge_costs(_loaders.run_with_results(_now).results)
    ]
    return pd.DataFrame(rows)


def judge_panel(now: _loaders.Current) -> None:
    """The panel, when the run was judged: a line with the totals, and the table per contender."""
    if not is_judged(now.run.metrics):
        return
    table = _judge_costs(now.ref, now.version, now)
    if table.empty:
        return
    total = table.iloc[-1]
    cost = "unknown" if pd.isna(total["judge cost"]) else format_cost(float(total["judge cost"]))
    time = "–" if pd.isna(total["judge time/case"]) else format_seconds(float(total["judge time/case"]))
    with st.expander(plain(f"Judge: {cost} on top of the contenders' cost"), icon=":material/gavel:"):
        st.caption(
            plain(
                f"The judge made {int(total['judge calls']):,} calls ({int(total['attempts']):,} attempts with "
                f"retries) over {int(total['judged']):,} judged results, {time} per result. The leaderboard's "
                "cost and time columns are the contenders' own; this is what judging them cost on top."
            )
        )
        st.dataframe(
            table,
            hide_index=True,
            column_config={
                "judge cost": st.column_config.NumberColumn("judge cost", format="$%.6f", help="USD, in all"),
                "judge cost/case": st.column_config.NumberColumn("judge cost/case", format="$%.6f"),
                "judge time/case": st.column_config.NumberColumn("judge time/case", format="%.2f s"),
                "reused": st.column_config.NumberColumn("reused", help="Stored verdicts reused by a rescore"),
            },
        )
