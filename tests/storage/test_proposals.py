"""The review queue's table, on SQLite and PostgreSQL: proposals stored once, read back by state, decided once."""

from __future__ import annotations

import pytest

from evalcore.core.errors import ConfigError
from evalcore.storage.proposals import (
    ACCEPTED,
    PENDING,
    REJECTED,
    Proposal,
    add_proposals,
    decide_proposal,
    get_proposal,
    load_proposals,
    proposal_id,
)
from evalcore.storage.store import Store


def proposal(text: str, dataset: str = "tickets") -> Proposal:
    case = {"id": "gen-1", "variant": "returns", "input": text, "expected": "Yes ✓", "metadata": {}}
    generator = {"model": "fake/writer", "seed": 7, "settings": {}, "prompt": [{"role": "user", "content": "…"}]}
    pid = proposal_id("support", dataset, text, "Yes ✓")
    return Proposal(pid, "support", "/suites/support", dataset, "docs", "faq.md", case, generator)


def test_a_proposal_reads_back_whole_and_the_same_case_is_stored_once(store_location: str) -> None:
    with Store(store_location) as store:
        stored = add_proposals(store, [proposal("Can I return it?"), proposal("Can I return it?")])
        again = add_proposals(store, [proposal("Can I return it?"), proposal("Where is my parcel?")])
        assert [len(stored), len(again)] == [1, 1]
        first, second = load_proposals(store, suite="support", dataset="tickets", status=PENDING)
        assert first.case == proposal("Can I return it?").case and first.dataset == "tickets"
        assert first.generator["seed"] == 7 and first.origin == "faq.md" and first.created_at
        assert second.case["input"] == "Where is my parcel?" and second.position > first.position


def test_a_decision_is_recorded_once_with_the_edited_case(store_location: str) -> None:
    with Store(store_location) as store:
        (p,) = add_proposals(store, [proposal("Can I return it?")])
        (q,) = add_proposals(store, [proposal("Where is my parcel?")])
        p.case["expected"] = "Yes, within 30 days."
        decide_proposal(store, p, ACCEPTED, "ana", "edited: expected")
        decide_proposal(store, get_proposal(store, q.id[:6]), REJECTED, "ana", "off topic")
        with pytest.raises(ConfigError, match="not pending"):
            decide_proposal(store, p, REJECTED, "bo")
        (accepted,) = load_proposals(store, status=ACCEPTED)
        assert accepted.case["expected"] == "Yes, within 30 days." and accepted.decided_by == "ana"
        assert [r.note for r in load_proposals(store, status=REJECTED)] == ["off topic"]
        assert load_proposals(store, status=PENDING) == []


def test_an_unknown_proposal_id_is_refused_with_how_to_list_them(store_location: str) -> None:
    with Store(store_location) as store:
        with pytest.raises(ConfigError, match="evalcore generate review"):
            get_proposal(store, "pnope")
