"""What a run file's entries may name: its contenders' ids and its cases' (dataset, id) keys, and the words for
an entry that names one that is not there. The rules of results, pairwise verdicts and ratings read it."""

from __future__ import annotations

from collections.abc import Container, Iterator
from typing import Any

Loc = tuple[str | int, ...]
Problem = tuple[Loc, str]


class References:
    """The contenders and cases entries may name (None: not known, so not checked)."""

    def __init__(self, contenders: Container[Any] | None, cases: Container[tuple[Any, Any]] | None):
        self.contenders, self.cases = contenders, cases

    @classmethod
    def of(cls, data: dict[str, Any]) -> References:
        """The contenders and cases of a parsed run file; a malformed entry names nothing."""
        contenders = {c.get("id") for c in _objects(data.get("contenders"))}
        cases = {(c.get("dataset"), c.get("id")) for c in _objects(data.get("cases"))}
        return cls(contenders, cases)

    def contender_problem(self, loc: Loc, contender: Any) -> Problem | None:
        """The problem of naming ``contender`` at ``loc``, or None when the file has it."""
        if self.contenders is None or contender in self.contenders:
            return None
        return loc, f"{contender!r} is not a contenders[].id"

    def case_problem(self, loc: Loc, dataset: Any, case: Any) -> Problem | None:
        """The problem of naming the case (``dataset``, ``case``) at ``loc``, or None when the file has it."""
        if self.cases is None or (dataset, case) in self.cases:
            return None
        return loc, f"({dataset!r}, {case!r}) is not a (dataset, id) in cases[]"

    def sides_problems(self, section: str, i: int, entry: dict[str, Any], sides: tuple[str, ...]) -> Iterator[Problem]:
        """The problems of entry ``i`` of ``section`` naming contenders by its keys ``sides`` (where they are text)."""
        for side in sides:
            if isinstance(entry.get(side), str):
                problem = self.contender_problem((section, i, side), entry[side])
                if problem is not None:
                    yield problem

    def case_problems(self, section: str, i: int, entry: dict[str, Any]) -> Iterator[Problem]:
        """The problem of entry ``i`` of ``section`` naming a case by ``dataset`` and ``case`` (where they are text)."""
        where = (entry.get("dataset"), entry.get("case"))
        if all(isinstance(x, str) for x in where):
            problem = self.case_problem((section, i, "case"), *where)
            if problem is not None:
                yield problem


def _objects(items: Any) -> list[dict[str, Any]]:
    return [x for x in items if isinstance(x, dict)] if isinstance(items, list) else []
