"""Proposed cases waiting for a person: the ``proposals`` table (migration ``0010_proposals``).

``evalcore generate`` stores each case a model proposed for a dataset here, never in the dataset's files. A
person then accepts (perhaps edited) or rejects it (``evalcore generate review``, the Rate page's review queue);
only an accepted case is written to the dataset (:mod:`evalcore.suite.additions`). A proposal's id is a hash of
its suite, dataset, input and expected answer, so the same case proposed twice is one row. The same statements
run on SQLite and PostgreSQL (:mod:`evalcore.storage.postgres` translates them).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from evalcore.core.clock import utc_now
from evalcore.core.errors import ConfigError

#: A proposal's states: waiting for a person, then accepted (written to the dataset) or rejected.
PENDING, ACCEPTED, REJECTED = "pending", "accepted", "rejected"

#: The table and its index (migration 0010).
SCHEMA = (
    """CREATE TABLE proposals (
        id TEXT PRIMARY KEY, suite TEXT NOT NULL, suite_path TEXT NOT NULL, dataset TEXT NOT NULL,
        source TEXT NOT NULL, origin TEXT NOT NULL, "case" TEXT NOT NULL, generator TEXT NOT NULL,
        status TEXT NOT NULL, created_at TEXT NOT NULL, decided_at TEXT, decided_by TEXT, note TEXT NOT NULL,
        position INTEGER NOT NULL)""",
    "CREATE INDEX proposals_dataset ON proposals (suite, dataset, status)",
)

_COLUMNS = (
    'id, suite, suite_path, dataset, source, origin, "case", generator, status, created_at, decided_at, decided_by, '
    "note, position"
)
_ENCODE = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"), sort_keys=True).encode


@dataclass
class Proposal:
    """One proposed case and what made it."""

    #: ``p`` and 12 hex digits of its suite, dataset, input and expected answer.
    id: str
    #: The suite's name and its folder (where an accepted case is written).
    suite: str
    suite_path: str
    dataset: str
    #: ``docs``, ``personas`` or ``failures``.
    source: str
    #: What it was written from: a document's file name, a persona or scenario, a run's case.
    origin: str
    #: The case in the dataset's form: ``id``, ``variant``, ``input``, ``expected``, ``metadata``.
    case: dict[str, Any]
    #: The writer: ``model``, ``settings``, ``seed``, ``prompt`` (the messages it was sent).
    generator: dict[str, Any]
    status: str = PENDING
    created_at: str = ""
    decided_at: str | None = None
    decided_by: str | None = None
    #: Why it was rejected, or what the reviewer changed.
    note: str = ""
    position: int = field(default=-1, compare=False)


def proposal_id(suite: str, dataset: str, case_input: Any, expected: Any) -> str:
    """The id of a proposal: the same case proposed again for the same dataset has the same one."""
    text = _ENCODE([suite, dataset, case_input, expected])
    return "p" + hashlib.sha256(text.encode()).hexdigest()[:12]


def add_proposals(store: Any, proposals: list[Proposal]) -> list[Proposal]:
    """Store new proposals in one transaction; the ones whose id is stored already are left out.

    Returns:
        The proposals stored now, with their time and position.
    """
    stored: list[Proposal] = []
    with store.transaction() as conn:
        known = {row[0] for row in conn.execute("SELECT id FROM proposals")}
        (last,) = conn.execute("SELECT COALESCE(MAX(position), -1) FROM proposals").fetchone()
        now = utc_now()
        for p in proposals:
            if p.id in known:
                continue
            known.add(p.id)
            last += 1
            p.created_at, p.position = p.created_at or now, last
            conn.execute(f"INSERT INTO proposals ({_COLUMNS}) VALUES ({', '.join('?' * 14)})", _row(p))
            stored.append(p)
    return stored


def load_proposals(
    store: Any, *, suite: str | None = None, dataset: str | None = None, status: str | None = None
) -> list[Proposal]:
    """The stored proposals, oldest first, of a suite, a dataset and a status when given."""
    where, params = [], []
    for column, value in (("suite", suite), ("dataset", dataset), ("status", status)):
        if value is not None:
            where.append(f"{column} = ?")
            params.append(value)
    sql = f"SELECT {_COLUMNS} FROM proposals" + (f" WHERE {' AND '.join(where)}" if where else "")
    with store.transaction("DEFERRED") as conn:
        rows = conn.execute(sql + " ORDER BY position", params).fetchall()
    return [_proposal(row) for row in rows]


def get_proposal(store: Any, ref: str) -> Proposal:
    """The proposal whose id is ``ref`` (a unique prefix is enough).

    Raises:
        ConfigError: no proposal, or several, start with ``ref``.
    """
    with store.transaction("DEFERRED") as conn:
        rows = conn.execute(f"SELECT {_COLUMNS} FROM proposals WHERE id LIKE ?", (ref.replace("%", "") + "%",))
        found = rows.fetchall()
    if len(found) != 1:
        what = "no proposal" if not found else f"{len(found)} proposals"
        raise ConfigError(
            f"{what} with id {ref!r} in the store; list them with evalcore generate review (ids start with p)"
        )
    return _proposal(found[0])


def decide_proposal(store: Any, proposal: Proposal, status: str, who: str, note: str = "") -> None:
    """Record a person's decision on a pending proposal (and the case as accepted, edits included).

    Raises:
        ConfigError: the proposal was decided already.
    """
    with store.transaction() as conn:
        row = conn.execute("SELECT status FROM proposals WHERE id = ?", (proposal.id,)).fetchone()
        if row is None or row[0] != PENDING:
            raise ConfigError(f"proposal {proposal.id} is {row[0] if row else 'gone'}, not pending: nothing changed")
        conn.execute(
            'UPDATE proposals SET status = ?, decided_at = ?, decided_by = ?, note = ?, "case" = ? WHERE id = ?',
            (status, utc_now(), who, note, _ENCODE(proposal.case), proposal.id),
        )
    proposal.status = status


def reopen_proposal(store: Any, proposal: Proposal) -> None:
    """Put a proposal back in the queue (its acceptance could not be written to the dataset's files)."""
    with store.transaction() as conn:
        conn.execute(
            "UPDATE proposals SET status = ?, decided_at = NULL, decided_by = NULL, note = '' WHERE id = ?",
            (PENDING, proposal.id),
        )
    proposal.status = PENDING


def _row(p: Proposal) -> tuple:
    return (
        p.id, p.suite, p.suite_path, p.dataset, p.source, p.origin, _ENCODE(p.case), _ENCODE(p.generator), p.status,
        p.created_at, p.decided_at, p.decided_by, p.note, p.position,
    )  # fmt: skip


def _proposal(row: tuple) -> Proposal:
    pid, suite, path, dataset, source, origin, case, generator, status, created, decided, who, note, pos = row
    return Proposal(
        pid, suite, path, dataset, source, origin, json.loads(case), json.loads(generator), status, created,
        decided, who, note, int(pos),
    )  # fmt: skip
