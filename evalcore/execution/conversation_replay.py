"""Replaying a stored conversation (``evalcore run --replay``): each side answered from its stored transcript.

The contender's turns are answered with the stored run's model turns, in order, and a simulated user's with its
stored messages (end marks included), each with the usage it was stored with; nothing is called. The
conversation is then scored again, so a new scorer or suite reads an old conversation without a model. A
conversation the stored run cannot answer is an error of kind ``replay``, never a made-up turn: no stored result
for its key, a stored error, a case whose script or user differs from the stored one, or a turn past the stored
transcript's end.
"""

from __future__ import annotations

from typing import Any

from evalcore.core.errors import CallFailed
from evalcore.core.records import Case, Result, Run, Usage
from evalcore.models.types import Reply, Request, StoredReplies

#: The last stored run indexed, and its results by key: a replay asks one run for every case.
_INDEX: list[Any] = [None, {}]


class ReplayedSide(StoredReplies):
    """One side of a stored conversation (``model``: the contender; ``user``: a simulated user), turn by turn."""

    def __init__(self, trace: list[dict[str, Any]], kind: str):
        self.steps = [s for s in trace if s.get("kind") == kind]
        self.kind = kind
        self.asked = 0

    async def complete(self, request: Request) -> Reply:
        if self.asked >= len(self.steps):
            who = "contender" if self.kind == "model" else "simulated user"
            raise CallFailed("replay", f"the stored conversation has no {who} message for turn {self.asked}")
        step = self.steps[self.asked]
        self.asked += 1
        usage = Usage(step.get("input_tokens"), step.get("output_tokens"), step.get("cost_usd"))
        return Reply(text=step.get("content") or "", usage=usage, latency_s=step.get("latency_s") or 0.0)


def replayed_sides(run: Run, contender: str, case: Case, sample: int) -> tuple[ReplayedSide, ReplayedSide]:
    """The stored conversation's two sides for this contender, case and sample.

    Raises:
        CallFailed: kind ``replay``, saying why the stored run cannot answer it.
    """
    stored = _results(run).get((contender, case.dataset, case.id, sample))
    where = f"run {run.info.id}"
    if stored is None:
        raise CallFailed("replay", f"{where} has no result for {contender} on {case.dataset}/{case.id}")
    if stored.status == "error" or not stored.trace:
        raise CallFailed(
            "replay", f"{where} holds no finished conversation for {contender} on {case.dataset}/{case.id}"
        )
    kept = next((c for c in run.cases if c.key == case.key), None)
    if kept is None or kept.input != case.input:
        raise CallFailed("replay", f"{case.dataset}/{case.id}: its turns or user differ from {where}'s")
    return ReplayedSide(stored.trace, "model"), ReplayedSide(stored.trace, "user")


def _results(run: Run) -> dict[tuple[str, str, str, int], Result]:
    if _INDEX[0] is not run:
        _INDEX[:] = [run, {r.key: r for r in run.results}]
    return _INDEX[1]  # type: ignore[no-any-return]
