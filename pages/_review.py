"""The Rate page's review queue: cases a model proposed (``evalcore generate``), each accepted as shown or edited,
rejected, or skipped by a person, with keys like rating's. Only an accepted case is written to its dataset's
files (:mod:`evalcore.execution.review`), and only by someone who may change the store, for a suite under the
app's suite folders (writing a suite's files loads its own scorer and adapter modules)."""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from evalcore.core.errors import EvalcoreError
from evalcore.execution.review import accept_proposal, reject_proposal
from evalcore.explorer import suite_roots
from evalcore.explorer.access import Access
from evalcore.storage.proposals import PENDING, Proposal, load_proposals
from evalcore.storage.store import Store
from pages import _actions
from pages._state import Keys
from pages._widgets import plain


def offer(store: Store, access: Access, rater: str) -> None:
    """When proposals wait, a toggle to review them instead of rating replies; while it is on, the queue is shown
    and the page stops after it."""
    skipped = st.session_state.setdefault(Keys.REVIEW_SKIPPED, [])
    pending = load_proposals(store, status=PENDING)
    said = st.session_state.pop(Keys.REVIEW_SAID, None)
    if not pending and not said:
        return
    if not st.toggle(f"Review proposed cases ({len(pending)} waiting)", key=Keys.REVIEW):
        return
    if said:
        (st.success if said[0] == "ok" else st.error)(plain(said[1]))
    waiting = [p for p in pending if p.id not in skipped] or pending
    if not waiting:
        st.info("No proposed case waits for review. evalcore generate SUITE --dataset NAME --from docs proposes some.")
        st.stop()
    _show(store, access, rater, waiting[0], len(pending))
    st.stop()


def _show(store: Store, access: Access, rater: str, p: Proposal, waiting: int) -> None:
    g = p.generator
    st.caption(plain(f"{waiting} waiting · proposal {p.id} for {p.suite} / {p.dataset}, from {p.source} "
                     f"({p.origin}), written by {g.get('model')} (seed {g.get('seed')})"))  # fmt: skip
    st.text_area("Input", _text(p.case["input"]), key=Keys.REVIEW_INPUT + p.id)
    st.text_area("Expected", _text(p.case["expected"]), key=Keys.REVIEW_EXPECTED + p.id)
    st.text_input("Why rejected (optional)", key=Keys.REVIEW_WHY + p.id)
    locked = not access.may_change()
    accept, reject, skip = st.columns(3)
    accept.button("Accept (1)", key="review_accept", shortcut="1", type="primary", width="stretch", disabled=locked,
                  on_click=_accept, args=(store, rater, p))  # fmt: skip
    reject.button("Reject (2)", key="review_reject", shortcut="2", width="stretch", disabled=locked,
                  on_click=_reject, args=(store, rater, p))  # fmt: skip
    skip.button("Skip (3)", key="review_skip", shortcut="3", width="stretch",
                on_click=lambda: st.session_state[Keys.REVIEW_SKIPPED].append(p.id))  # fmt: skip
    if locked:
        st.caption("Only someone who may change the store can accept or reject proposed cases on this deployment.")
    st.caption("Keys: 1 accept (with your edits) · 2 reject · 3 skip. Only an accepted case is written to the "
               "dataset's files.")  # fmt: skip


def _accept(store: Store, rater: str, p: Proposal) -> None:
    # A callback runs before the page does: the edits are read from the widgets' state, not the last run's values.
    given_input = st.session_state[Keys.REVIEW_INPUT + p.id]
    given_expected = st.session_state[Keys.REVIEW_EXPECTED + p.id]

    def write() -> str:
        suite_roots.confine(p.suite_path, _actions.suite_roots())
        edits = _edits(p, given_input, given_expected)
        done = accept_proposal(store, p.id, rater, **edits)
        return f"Accepted {p.id}: case {done.case_id} written to {done.path}."

    _decided(write, None)


def _reject(store: Store, rater: str, p: Proposal) -> None:
    why = st.session_state.get(Keys.REVIEW_WHY + p.id) or ""
    _decided(lambda: reject_proposal(store, p.id, rater, why), f"Rejected {p.id}.")


def _decided(act: Any, message: str | None) -> None:
    """Run a decision; what it said (or why it failed) is shown once on the next run."""
    try:
        said = act()
    except (EvalcoreError, OSError) as exc:  # a file the dataset cannot take is said like any refusal
        st.session_state[Keys.REVIEW_SAID] = ("error", str(exc))
        return
    st.session_state[Keys.REVIEW_SAID] = ("ok", message or str(said))


def _edits(p: Proposal, given_input: str, given_expected: str) -> dict[str, Any]:
    """The input and expected answer the reviewer changed, read back in their original form."""
    edits = {}
    for name, key, given in (("input", "case_input", given_input), ("expected", "expected", given_expected)):
        if given != _text(p.case[name]):
            edits[key] = _value(name, given, p.case[name])
    return edits


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=1)


def _value(name: str, text: str, original: Any) -> Any:
    if isinstance(original, str):
        return text
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise EvalcoreError(f"{name}: not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
