"""A person's decision on a proposed case: accepted (perhaps edited) into the dataset's files, or rejected.

Only :func:`accept_proposal` writes to a dataset, and only after the case passes the dataset's own checks
(:class:`~evalcore.execution.verify.CaseCheck`). The case is appended in the dataset's form
(:mod:`evalcore.suite.additions`) with ``metadata.generated`` saying where it came from (the proposal, its
source, the writer's model and seed, who accepted it and whether they edited it), so the suite's definition
fingerprint changes and a run before it is no automatic baseline for a run after it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalcore.core.errors import ConfigError
from evalcore.execution.verify import CaseCheck
from evalcore.storage.proposals import (
    ACCEPTED,
    PENDING,
    REJECTED,
    Proposal,
    decide_proposal,
    get_proposal,
    reopen_proposal,
)
from evalcore.suite.additions import add_case, next_case_id
from evalcore.suite.cases import case_from_mapping
from evalcore.suite.fingerprint import definition_fingerprint
from evalcore.suite.loader import load_suite

#: The metadata key of an accepted case that says where it came from.
ORIGIN_KEY = "generated"
_UNSET: Any = object()


@dataclass(frozen=True)
class Accepted:
    """Where an accepted case was written, and the suite's definition fingerprint before and after."""

    path: Path
    case_id: str
    fingerprint_before: str
    fingerprint_after: str


def accept_proposal(store: Any, ref: str, who: str, *, case_input: Any = _UNSET, expected: Any = _UNSET) -> Accepted:
    """Write the pending proposal ``ref`` (edited: a new input or expected answer) to its dataset's files.

    Returns:
        Where the case now is, and the suite's definition fingerprint (over all its cases) before and after.

    Raises:
        ConfigError: the proposal is not pending, its suite cannot be loaded, or the (edited) case fails the
            dataset's checks; nothing is written then.
    """
    proposal = _pending(store, ref)
    suite = load_suite(proposal.suite_path)
    if proposal.dataset not in suite.datasets:
        raise ConfigError(f"proposal {proposal.id}: suite {suite.path} has no dataset {proposal.dataset} any more")
    folder = suite.path / "datasets" / proposal.dataset
    edited = [name for name, value in (("input", case_input), ("expected", expected)) if value is not _UNSET]
    case = dict(proposal.case)
    case.update({name: value for name, value in (("input", case_input), ("expected", expected)) if name in edited})
    case["id"] = next_case_id(folder, case["variant"], f"gen-{proposal.id[1:]}")
    case["metadata"] = {ORIGIN_KEY: _origin(proposal, who, edited)}
    checked = case_from_mapping(case, proposal.dataset, f"proposal {proposal.id}", default_id=case["id"])
    if checked.id in {c.id for c in suite.datasets[proposal.dataset].cases}:
        raise ConfigError(f"proposal {proposal.id}: case id {checked.id!r} is taken in {folder}; nothing was written")
    problem = CaseCheck(suite).problem(checked)
    if problem is not None:
        raise ConfigError(f"proposal {proposal.id}: {problem}; nothing was written")
    before = definition_fingerprint(suite, suite.cases)
    proposal.case = case
    # Claimed in the store first: of two people accepting it at once, one is refused before writing anything.
    decide_proposal(store, proposal, ACCEPTED, who, f"edited: {', '.join(edited)}" if edited else "")
    try:
        where = add_case(folder, case)
    except BaseException:
        reopen_proposal(store, proposal)
        raise
    grown = load_suite(proposal.suite_path)
    return Accepted(where, checked.id, before, definition_fingerprint(grown, grown.cases))


def reject_proposal(store: Any, ref: str, who: str, why: str = "") -> Proposal:
    """Mark the pending proposal ``ref`` rejected; nothing is written to any dataset."""
    proposal = _pending(store, ref)
    decide_proposal(store, proposal, REJECTED, who, why)
    return proposal


def _pending(store: Any, ref: str) -> Proposal:
    proposal = get_proposal(store, ref)
    if proposal.status != PENDING:
        raise ConfigError(f"proposal {proposal.id} is {proposal.status} already (by {proposal.decided_by}); "
                          "nothing changed")  # fmt: skip
    return proposal


def _origin(proposal: Proposal, who: str, edited: list[str]) -> dict[str, Any]:
    g = proposal.generator
    return {
        "proposal": proposal.id, "from": proposal.source, "origin": proposal.origin, "model": g.get("model"),
        "seed": g.get("seed"), "accepted_by": who, "edited": edited,
    }  # fmt: skip
