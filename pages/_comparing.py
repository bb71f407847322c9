"""How the Compare page draws a comparison: the runs it picks, verdict banners, scope notes, one flipped
case's want vs got."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from evalcore.analysis.decisions.compare_text import headline
from evalcore.analysis.scores.formats import plural
from evalcore.core.errors import EvalcoreError
from evalcore.explorer import drilldown, sharing
from pages import _loaders
from pages._state import Keys
from pages._widgets import fail, plain

if TYPE_CHECKING:
    from evalcore.analysis.decisions.compare import Comparison, PairComparison
    from evalcore.analysis.decisions.flips import Flip


#: Flipped cases a downloaded comparison report lists per pair, with what was wrong in each.
REPORT_FLIPS = 10


def seed_choice(refs: list[str]) -> list[str]:
    """Give the run pickers their runs before they are drawn: the kept (or shared) choice, else the
    default comparison. Returns notes on runs a shared address names that are not here."""
    kept = st.session_state.get(Keys.COMPARISON) or sharing.ComparisonState()
    default = _loaders.default_comparison(_loaders.runs_index())
    notes = []
    for key, wanted, fallback in (
        (Keys.COMPARE_BASE, kept.base, default[0]),
        (Keys.COMPARE_CANDIDATE, kept.candidate, default[1]),
    ):
        if st.session_state.get(key) in refs:
            continue
        if wanted and wanted not in refs:
            notes.append(f"Run {wanted} is not in this store; another run is picked in its place.")
        st.session_state[key] = wanted if wanted in refs else fallback
    if Keys.COMPARE_PAIRS not in st.session_state:
        st.session_state[Keys.COMPARE_PAIRS] = list(kept.pairs)
    return notes


def banners(pairs: list[PairComparison]) -> None:
    """Each pair's verdict: red for a regression, green for an improvement; the pairs with no significant
    change share one line when there are several pairs."""
    quiet = [p for p in pairs if not any(c.verdict in ("regression", "improvement") for c in p.changes)]
    for pair in pairs:
        text = plain(f"{pair.base} → {pair.candidate}: {headline(pair)} ({plural(pair.cases, 'shared case')})")
        if any(c.verdict == "regression" for c in pair.changes):
            st.error(text, icon=":material/trending_down:")
        elif pair not in quiet:
            st.success(text, icon=":material/trending_up:")
        elif len(quiet) == 1:
            st.info(text, icon=":material/trending_flat:")
    if len(quiet) > 1:
        names = ", ".join(p.base if p.base == p.candidate else f"{p.base} → {p.candidate}" for p in quiet)
        st.info(plain(f"NO SIGNIFICANT CHANGE in {len(quiet)} pairs: {names}"), icon=":material/trending_flat:")


def scope(comparison: Comparison) -> str:
    """What was compared and what was left out, in a few lines."""
    lines = [f"Compared {plural(comparison.shared_cases, 'shared case')}."]
    if comparison.left_out_cases:
        left = plural(comparison.left_out_cases, "case")
        lines[0] = lines[0][:-1] + f"; left out {left} not asked alike by both runs."
    if comparison.changed_datasets:
        lines.append("Datasets changed: " + ", ".join(comparison.changed_datasets) + ".")
    elif comparison.suite_changed:
        lines.append("The suite file changed (the datasets did not).")
    for side, ids in (("base", comparison.unpaired_base), ("candidate", comparison.unpaired_candidate)):
        if ids:
            lines.append(f"Not compared ({side} run only): " + ", ".join(ids) + ". Pair them under Pairs.")
    lines.append("Differences are candidate − base, in points for scores and rates, with 95% paired intervals.")
    return plain("  \n".join(lines))


def flip_detail(base_ref: str, candidate_ref: str, pair: PairComparison, flip: Flip) -> int:
    """One flipped case: its input, then want vs got of the base and of the candidate side by side.

    Of a case asked several times, each side shows the sample that tells the change
    (:func:`evalcore.explorer.flips.telling_sample`): for a case that got worse, the base's best answer and
    the candidate's worst. Returns the candidate's sample shown, for "Open in Cases".
    """
    from evalcore.explorer.flips import WORSE_KINDS, telling_sample

    st.markdown(f"**{plain(flip.dataset)} / {plain(flip.case)}**: {flip.kind}")
    worse = flip.kind in WORSE_KINDS
    sides, shown = [], []
    for ref, contender, worst in ((base_ref, pair.base, not worse), (candidate_ref, pair.candidate, worse)):
        try:
            run = _loaders.contender_results(ref, contender)
            samples = [r for r in run.results if r.key[:3] == (contender, flip.dataset, flip.case)]
            sample = telling_sample(samples, worst).sample if samples else 0
            sides.append(drilldown.case_detail(run, contender, flip.dataset, flip.case, sample))
            shown.append((sample, len(samples)))
        except EvalcoreError as exc:
            fail(exc)
            return 0
    st.code(sides[1]["input"], language=None, wrap_lines=True)
    for column, title, detail, (sample, count) in zip(st.columns(2), ("Base", "Candidate"), sides, shown, strict=True):
        contender = pair.base if title == "Base" else pair.candidate
        of = f" · sample {sample} of {count}" if count > 1 else ""
        column.markdown(f"**{title}**: {plain(contender)}{of}")
        if not detail["scored"]:
            column.error(plain(f"{detail['not_scored'].capitalize()}. {detail['error'] or ''}"))
            continue
        column.dataframe(
            detail["fields"], hide_index=True, column_config={"right": st.column_config.CheckboxColumn("right")}
        )
    return shown[1][0]


def report_html(path: str, candidate: str, comparison: Comparison) -> str:
    """The comparison as one offline HTML file (``evalcore compare --format html``), with what was wrong in the
    first flips of each pair read from the candidate run. Made only when the download button is clicked
    (Streamlit calls this on a thread of its own, hence a store connection of its own)."""
    from evalcore.explorer.compare_report import comparison_html
    from evalcore.explorer.flips import flip_details
    from evalcore.storage.history import StoredRun
    from evalcore.storage.store import Store

    with Store(path) as store:  # an upload's own store, or the app's (see _loaders.where)
        details = flip_details(StoredRun(store, candidate), comparison, REPORT_FLIPS)
    return comparison_html(comparison, details, flips=REPORT_FLIPS)
