"""Compare: did the candidate run get worse than the base? A verdict per contender pair, each measure's
change with its interval, and the cases that flipped, each one click from the Cases page."""

from __future__ import annotations

import streamlit as st

from evalcore.analysis.decisions import forest
from evalcore.analysis.decisions.compare import CompareError, split_pair
from evalcore.analysis.decisions.compare_text import inconclusive_line
from evalcore.explorer import sharing
from pages import _address, _comparing, _frame, _loaders, _widgets
from pages._state import COMPARE_URL, UPLOAD, Keys
from pages._widgets import plain

#: Flipped cases listed at most: a table of every flip of a big run would take longer to send than the rest.
FLIPS_LISTED = 1_000

_frame.use_app_frame(__file__)
st.title("Compare")
index = _loaders.runs_index()
if not index:
    _widgets.empty_store()
    st.stop()
refs = list(index)
for note in _comparing.seed_choice(refs):
    st.warning(plain(note))
left, right = st.columns(2)
base = left.selectbox(
    "Base run",
    refs,
    key=Keys.COMPARE_BASE,
    format_func=lambda ref: sharing.run_label(index[ref]),
    help="What you ship now (a suite's pinned baseline is picked first)",
)
candidate = right.selectbox(
    "Candidate run",
    refs,
    key=Keys.COMPARE_CANDIDATE,
    format_func=lambda ref: sharing.run_label(index[ref]),
    help="The change to judge",
)
base_ids = [c.id for c in _loaders.header(base).contenders]
candidate_ids = [c.id for c in _loaders.header(candidate).contenders]
options = sharing.pair_options(base_ids, candidate_ids, same_run=base == candidate)
st.session_state[Keys.COMPARE_PAIRS] = [p for p in st.session_state.get(Keys.COMPARE_PAIRS, []) if p in options]
pairs = st.multiselect(
    "Pairs",
    options,
    key=Keys.COMPARE_PAIRS,
    # Split where both sides name a contender: ids hold "=" themselves (t=0, prompt=terse).
    format_func=lambda p: " → ".join(split_pair(p, base_ids, candidate_ids)),
    placeholder="By id, or the only contender of each run",
    help="Base contender → candidate contender. Pick pairs to compare contenders whose ids differ, or two "
    "contenders of one run (pick the same run twice).",
)
st.session_state[Keys.COMPARISON] = sharing.ComparisonState(base, candidate, tuple(pairs))
_address.write_address_bar(COMPARE_URL)
if base == candidate and not pairs:
    suite = index[base].get("suite")
    alone = not any(info.get("suite") == suite for ref, info in index.items() if ref != base)
    st.info(
        plain(f"{suite} has no other run to compare this one with. " if alone else "")
        + "Pick two different runs, or pick pairs of this run's contenders under Pairs: two prompts of one "
        "model, say (those pairs are listed first).",
        icon=":material/compare_arrows:",
    )
    if alone:
        st.caption(
            "This is the only run: run the suite again, or upload a run file to compare with this one."
            if len(index) < 2
            else "Run the suite again, or upload a run file of it, to compare two runs."
        )
        st.page_link(UPLOAD, label="Upload a run file", icon=":material/upload:")
    st.stop()

try:
    with st.spinner("Comparing the two runs…"):
        comparison = _loaders.comparison(base, candidate, pairs)
except CompareError as exc:
    _widgets.fail(exc)
    st.caption("Pick the contenders to compare under Pairs, or two runs of the same suite.")
    st.stop()

_comparing.banners(comparison.pairs)
st.caption(_comparing.scope(comparison))
st.download_button(
    "Download report",
    # Built on click only: the flips' want vs got are read from the candidate run then.
    lambda: _comparing.report_html(*_loaders.where(candidate), comparison),
    file_name=f"compare-{base[:8]}-{candidate[:8]}.html",
    mime="text/html",
    icon=":material/download:",
    on_click="ignore",  # a download changes nothing on the page: no rerun
    help="This comparison as one HTML file anyone can open offline: verdicts, changes, forest plots, flips.",
)
names = [f"{p.base} → {p.candidate}" for p in comparison.pairs]
if st.session_state.get(Keys.COMPARE_SHOWN) not in names:
    st.session_state[Keys.COMPARE_SHOWN] = names[0]
shown = st.selectbox("Pair", names, key=Keys.COMPARE_SHOWN) if len(names) > 1 else names[0]
pair = comparison.pairs[names.index(shown)]

st.subheader("Changes")
# A picture in markdown, not a chart: markdown's script is the one the page's headings use, so the plot is
# on screen with the verdict, not after a new tab has fetched a chart's (or an image element's) script; and
# as an image it can run nothing, whatever names the runs hold.
st.markdown(f"![Forest plot: each change with its 95% interval]({forest.data_url(forest.forest_svg(pair.changes))})")
st.dataframe(sharing.change_table(pair), hide_index=True)
if undecided := inconclusive_line(pair):
    st.info(plain(undecided[0].upper() + undecided[1:]), icon=":material/hourglass_empty:")

st.subheader("Flipped cases")
flips = sharing.flip_table(pair, FLIPS_LISTED)
if flips.empty:
    st.caption("No shared case changed outcome.")
    st.stop()
if len(pair.flips) > len(flips):
    st.caption(f"{len(pair.flips):,} cases changed outcome; the first {len(flips):,} are listed, regressions first.")
event = st.dataframe(
    flips,
    hide_index=True,
    on_select="rerun",
    selection_mode=_widgets.PICK_ROW,
    key=Keys.FLIP_TABLE,
    height=_widgets.table_height(len(flips)),
    column_config={
        "base": st.column_config.NumberColumn("base", format="%.0f%%", help="The base's score on the case"),
        "candidate": st.column_config.NumberColumn("candidate", format="%.0f%%"),
    },
)
picked = _widgets.picked_row(event, len(flips))
if picked is None:
    st.info("Click a case to see want vs got in both runs, and open it on the Cases page.", icon=":material/ads_click:")
    st.stop()
flip = pair.flips[picked]
sample = _comparing.flip_detail(base, candidate, pair, flip)
if st.button("Open in Cases", icon=":material/open_in_new:", help="The candidate's answer on the Cases page"):
    _frame.open_case(candidate, pair.candidate, flip.dataset, flip.case, sample)
