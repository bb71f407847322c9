"""Rate: people rate replies blind, two side by side or one on the judge's rubric, for the run picked in the sidebar,
or that run's replies (the candidate) against another run's of the same suite (the base). A conversation is rated
whole, shown as a chat.

The queue and the blinding live in :mod:`evalcore.explorer.rating` and :mod:`evalcore.explorer.blinding`: the
contenders' names stay on the server until the rater's queue is done (``EVALCORE_RATE_REVEAL=each``: after each
vote).
"""

from __future__ import annotations

import os

import streamlit as st

from evalcore.core.errors import EvalcoreError
from evalcore.explorer import blinding, changes, rating
from evalcore.storage.ratings import add_ratings, load_ratings
from pages import _actions, _frame, _loaders, _rate_base, _rate_view, _rater, _review, _widgets
from pages._state import Keys
from pages._widgets import plain

#: The page's modes and the queue each draws; base and candidate is pairwise over the two runs' replies.
MODES: dict[str, rating.Mode] = {
    "Pairwise, blind": "pairwise",
    "One reply, blind": "single",
    "Base and candidate, blind": "pairwise",
}

#: What the queue may put first.
NO_ORDER, DISAGREEMENTS, FLAGGED, SAMPLES = "Random order", "Disagreements", "Flagged for review", "Samples disagree"

_frame.use_app_frame(__file__)
st.title("Rate")
now = _loaders.current()
if now is None:
    _widgets.empty_store()
    st.stop()
if now.ref.startswith(_loaders.UPLOAD_PREFIX):
    st.info("Ratings are kept in the store: save this upload first (Upload page), then rate it.")
    st.stop()
access = _actions.access()
if not access.may_rate():
    st.info("Rating is not open to you on this deployment ([evalcore.access] rate).", icon=":material/lock:")
    st.stop()
rater = _rater.rater(access)
_review.offer(_loaders.store(), access, rater)  # proposed cases, when some wait and the reviewer asks for them

st.caption(plain(now.label))
left, middle, right = st.columns([3, 2, 1])
mode_label = left.radio("Mode", list(MODES), key=Keys.RATE_MODE, horizontal=True)
mode = MODES[mode_label]
run = _loaders.run_with_results(now)
orders = [NO_ORDER, DISAGREEMENTS] + ([FLAGGED] if rating.flagged_metrics(now.run.metrics) else [])
orders += [SAMPLES] if rating.has_samples(run) else []
first = middle.selectbox("First in the queue", orders, key=Keys.RATE_FIRST, help="Disagreements: items the judges "
                         "disagreed on; flagged: replies the judge panel flagged for review (disagreement_threshold); "
                         "samples disagree: cases a contender answered differently on its tries. "
                         "They are not a random draw, so they never correct the judge's score.")  # fmt: skip
size = int(right.number_input("Queue", 1, 500, rating.QUEUE_SIZE, key=Keys.RATE_SIZE))

store = _loaders.store()
try:
    secret, reveal_when = blinding.rate_secret(os.environ, store.location.folder), blinding.reveal_setting(os.environ)
except EvalcoreError as exc:
    st.error(plain(str(exc)))
    st.stop()
target, pairs = now.ref, None
if mode_label.startswith("Base"):
    run, pairs = _rate_base.against_base(now.ref, run)
    target = run.info.id
    if target not in _loaders.runs_index() and not access.may_change():
        why = f"Base-and-candidate ratings are kept in a run of their own, {target}, which only someone who may "
        st.info(plain(why + "change the store can start (their first rating stores it)."), icon=":material/lock:")
        st.stop()
    st.caption(plain(f"Ratings are kept in a run of their own, {target}: the Leaderboard's People panel reads it."))
queue = rating.rating_queue(
    run, rater, mode, size=size, disagreements_first=first == DISAGREEMENTS, flagged_first=first == FLAGGED,
    samples_first=first == SAMPLES,
    pairs=pairs, secret=secret,
)  # fmt: skip
done = rating.done_items(queue, load_ratings(store, target), rater)
revealed = st.session_state.pop(Keys.RATE_REVEAL, None)
if revealed:
    st.success(plain(revealed), icon=":material/visibility:")
st.progress(len(done) / len(queue) if queue else 1.0)
st.caption(f"{len(done)} of {len(queue)} rated")
pending = [item for item in queue if item not in done]
if not pending:
    st.info("Nothing left to rate in this queue. The Leaderboard's People panel shows what was said.")
    if reveal_when == "end" and queue:
        st.markdown("**Who wrote what**")
        st.dataframe(blinding.reveal_rows(queue, mode), hide_index=True)
    st.stop()

item = pending[0]
view = rating.blind_view(run, item)
# The item's place in the queue tells two replies to one case apart without naming who wrote them (a widget's
# key reaches the browser), so one reply's choices never carry over to the next.
key = f"{item.dataset}/{item.case}/{item.sample}/{mode}/{queue.index(item)}"
_rate_view.show_item(view)  # a conversation whole, as a chat
comment = st.text_input("Comment (optional)", key=Keys.RATE_COMMENT + key)


def _store(stored: object, shown: rating.QueueItem) -> None:
    if target not in _loaders.runs_index():  # a base-and-candidate run is stored with its first rating
        changes.save_run(store, run, access)
    add_ratings(store, target, [stored])  # type: ignore[list-item]
    named = blinding.reveal(shown) if reveal_when == "each" else "names are shown once the queue is done"
    st.session_state[Keys.RATE_REVEAL] = f"Stored. {named[0].upper()}{named[1:]}."


order = [c.id for c in run.contenders]
if mode == "pairwise":
    buttons = st.columns(4)
    for column, (side, label), shortcut in zip(buttons, rating.SIDE_VERDICTS.items(), "1234", strict=True):
        column.button(
            f"{label} ({shortcut})",
            key=f"rate_{side}",
            shortcut=shortcut,
            width="stretch",
            on_click=lambda s=side: _store(rating.pair_rating(item, s, rater, order, comment), item),
        )
else:
    dimensions = rating.judge_dimensions(run)
    if dimensions:
        scores = {d: st.segmented_control(d, [1, 2, 3, 4, 5], key=Keys.RATE_SCORE + d + key) for d in dimensions}
        complete = all(v is not None for v in scores.values())
        chosen = {d: float(v) for d, v in scores.items() if v is not None}
        st.button(
            "Store (Enter)",
            key="rate_store",
            shortcut="Enter",
            disabled=not complete,
            type="primary",
            on_click=lambda: _store(rating.single_rating(item, rater, "", chosen, comment), item),
        )
    else:
        for column, verdict, shortcut in zip(st.columns(2), ("pass", "fail"), "12", strict=True):
            column.button(
                f"{verdict.title()} ({shortcut})",
                key=f"rate_{verdict}",
                shortcut=shortcut,
                width="stretch",
                on_click=lambda v=verdict: _store(rating.single_rating(item, rater, v, {}, comment), item),
            )
st.caption("Keys: " + ("1 A better · 2 B better · 3 tie · 4 both bad" if mode == "pairwise" else "the buttons' keys"))
