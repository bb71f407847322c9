"""The Leaderboard's People panel: what people said on the Rate page, beside what the judges said."""

from __future__ import annotations

import streamlit as st

from evalcore.analysis.people import alignment, human, side_by_side, win_rates
from evalcore.analysis.tables.view import count
from evalcore.storage.ratings import load_ratings
from pages import _actions, _loaders, _widgets
from pages._pairwise import STRENGTH_COLUMNS, WIN_RATE_COLUMNS
from pages._widgets import plain

_SCORE = st.column_config.NumberColumn(format="%.3f")
_RATE = st.column_config.NumberColumn(format="percent")
#: The corrected scores on the judged metric's 0..1 scale, three digits as the CLI prints them.
_CORRECTED_COLUMNS = {name: _SCORE for name in ("judge", "judge low", "judge high", "corrected", "low", "high")} | {
    "bias": st.column_config.NumberColumn(
        format="%+.3f", help="the judge's mean error where people rated: judge minus people"
    )
}


def people_panel(now: _loaders.Current) -> None:
    """The panel, when the stored run has ratings: people's ranking, agreement, the corrected judge score."""
    if now.ref.startswith(_loaders.UPLOAD_PREFIX):
        return
    ratings = load_ratings(_loaders.store(), now.ref)
    if not ratings:
        return
    with st.expander("People: ratings, agreement and the judge corrected", icon=":material/groups:"):
        run = _loaders.run_with_results(now)
        summary = human.human_summary(run, ratings, resamples=200)
        judges = side_by_side.judges_side_by_side(run, ratings) if len(side_by_side.judged_metrics(run)) > 1 else []
        made_up = sum(human.is_demo_rater(r) for r in summary.raters)
        demo = (
            " Demo data: the raters are made up, to show how the panel reads."
            if summary.demo
            else f" Demo data: {made_up} of the {len(summary.raters)} raters (demo/…) are made up."
            if made_up
            else ""
        )
        ratings, raters = count(summary.ratings, "rating"), count(len(summary.raters), "rater")
        st.caption(plain(f"{ratings} by {raters}.{demo}"))
        if summary.pairs:
            st.markdown("**Pairs rated blind**")
            st.dataframe(win_rates.win_rate_frame(summary.pairs), hide_index=True, column_config=WIN_RATE_COLUMNS)
            st.dataframe(win_rates.strength_frame(summary.pairs), hide_index=True, column_config=STRENGTH_COLUMNS)
            st.caption(plain(human.rater_line("pairs", summary.pair_raters)))
            st.caption(plain(human.agreement_line("pairwise judge", summary.judge_pairs)))
        if summary.single_raters:
            st.caption(plain(human.rater_line("single replies", summary.single_raters)))
            st.caption(plain(human.agreement_line(f"judge ({summary.metric})", summary.judge_single)))
        if summary.corrected:
            st.markdown(f"**{plain(summary.metric)} corrected by people** (prediction-powered, 95% intervals)")
            st.dataframe(human.corrected_frame(summary), hide_index=True, column_config=_CORRECTED_COLUMNS)
            st.caption(
                "corrected: the judge's mean plus its mean error where people rated randomly drawn replies; "
                "its interval carries both the sampling of cases and the judge's measured error."
            )
        if judges:
            st.markdown("**Judges side by side**: each against the same people, and its score corrected by them")
            columns = {"accuracy": _RATE, "kappa": _SCORE} | {c: _SCORE for c in ("corrected", "low", "high", "width")}
            st.dataframe(side_by_side.side_by_side_rows(judges), hide_index=True, column_config=columns)
            st.caption(
                "A judge that agrees more with people narrows the corrected interval: the same ratings correct "
                "a smaller error. Both corrected scores estimate what people would say."
            )
        if _actions.may_change() and side_by_side.judged_metrics(run):
            align_form(now.ref)


def align_form(run_id: str) -> None:
    """Align the run's judge to these ratings (``evalcore judge align``), for whoever may change the store."""
    st.markdown("**Align the judge to people**: few-shot examples where it disagreed, measured on held-out ratings")
    left, middle, right = st.columns(3)
    shots = int(left.number_input("Examples", min_value=1, max_value=20, value=4))
    folds = int(middle.number_input("Folds", min_value=2, max_value=20, value=5))
    cap = float(right.number_input("Max cost (USD, 0: none)", min_value=0.0, value=0.0, step=0.1))
    if not st.button("Align the judge", icon=":material/tune:", help="Asks the judge again: it may cost money"):
        return
    # Imported on the click: the judge call path is not the leaderboard's to load.
    from evalcore.core.errors import EvalcoreError
    from evalcore.execution.align import AlignOptions
    from evalcore.explorer import aligning

    options = AlignOptions(shots=shots, folds=folds, max_cost=cap or None)
    try:
        with st.spinner("Asking the judge about the held-out ratings…"):
            outcome = aligning.align_run(run_id, _loaders.db_path(), _actions.access(), _actions.suite_roots(), options)
    except EvalcoreError as exc:
        _widgets.fail(exc)
        return
    if outcome.report is None:
        _widgets.fail(outcome.message)
        return
    rate = {c: _RATE for c in ("accuracy", "accuracy low", "accuracy high")}
    st.dataframe(alignment.agreement_rows(outcome.report), hide_index=True, column_config=rate)
    d = outcome.report.difference
    st.caption(plain(f"agreement difference (aligned - before): {d.value:+.3f} [{d.lo:+.3f}, {d.hi:+.3f}], paired "
                     "bootstrap; better only when the interval lies above 0."))  # fmt: skip
    (st.success if outcome.status == "aligned" else st.info)(plain(f"{outcome.status}: {outcome.message}"))
