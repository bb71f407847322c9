"""Answers from a stored run instead of a model (``evalcore run SUITE --replay RUN``).

:class:`ReplayProvider` answers a call with the raw reply a stored run holds for the same contender id,
dataset, case id and sample, so a past run can be scored again with a new scorer, or parsed again by
a new adapter, exactly and with no network. The reply carries the stored result's usage (tokens and
cost), latency and attempts, so the replayed run's cost and time columns read as the original's.

It never makes an answer up: a call the stored run has no usable reply for fails with kind ``replay``
and a message that says what is missing (no result for that key, a stored call that failed, a case
whose input changed, a prompt whose text changed). The failure of a stored call that failed keeps its
latency and attempts. Which answers exist is decided by whoever builds
the provider (:mod:`evalcore.execution.replay` reads them from a stored run or a run file).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evalcore.core.errors import CallFailed
from evalcore.core.records import Usage
from evalcore.models.types import Reply, Request, StoredReplies

#: The error kind of a call a replay cannot answer.
REPLAY_KIND = "replay"
#: (contender id, dataset, case id, sample)
Key = tuple[str, str, str, int]


@dataclass(frozen=True)
class StoredAnswer:
    """A stored result's reply, as a replay hands it back."""

    raw: str
    usage: Usage
    latency_s: float | None
    attempts: int
    #: The stored result's trace (an agent's steps), handed back with its reply; None when it had none.
    trace: list[dict[str, Any]] | None = None


@dataclass(frozen=True)
class StoredFailure:
    """A stored result whose call failed: nothing to replay, but its latency and attempts carry over, so the
    replayed run's time column reads as the original's."""

    why: str
    latency_s: float | None
    attempts: int


class ReplayProvider(StoredReplies):
    """Answers every call from a stored run's replies; calls no model.

    Args:
        source: how messages name the stored run (``run 3e8bd3ea``).
        answers: the stored reply of each key, its stored failure, or why that key has none (a message).
        unavailable: contender ids the run cannot answer at all, with why (e.g. their prompt changed).
    """

    def __init__(
        self,
        source: str,
        answers: Mapping[Key, StoredAnswer | StoredFailure | str],
        unavailable: Mapping[str, str] | None = None,
    ):
        self.source = source
        self.answers = answers
        self.unavailable = dict(unavailable or {})

    async def complete(self, request: Request) -> Reply:
        """The stored reply for the request's contender, case and sample.

        Raises:
            CallFailed: kind ``replay``, when the stored run holds no usable reply for it.
        """
        contender, case = request.contender.id, request.case
        if case is None:
            raise CallFailed(REPLAY_KIND, f"replay of {self.source}: a call without a case cannot be looked up")
        why = self.unavailable.get(contender)
        if why is not None:
            raise CallFailed(REPLAY_KIND, f"replay of {self.source}: {why}")
        found = self.answers.get((contender, case.dataset, case.id, request.sample))
        if isinstance(found, StoredAnswer):
            latency = found.latency_s if found.latency_s is not None else 0.0
            return Reply(
                text=found.raw, usage=found.usage, latency_s=latency, attempts=found.attempts, trace=found.trace
            )
        if isinstance(found, StoredFailure):
            message = f"replay of {self.source}: {found.why}"
            raise CallFailed(REPLAY_KIND, message, attempts=found.attempts, latency_s=found.latency_s)
        if found is None:
            found = f"it holds no result for {contender} on {case.dataset}/{case.id}, sample {request.sample}"
        raise CallFailed(REPLAY_KIND, f"replay of {self.source}: {found}")
